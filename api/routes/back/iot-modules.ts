// IoT modules: the tenant-wide module records (managing them needs IOT_MODULE_MANAGE on some branch) and
// the module of a vehicle (associate, remove).
import { Type } from '@sinclair/typebox';
import { IotModule } from '../../../db/entities/IotModule.js';
import { DomainError } from '../../../domain/errors.js';
import { iotModuleTransitionRefusal } from '../../../domain/vehicle.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Str, StringEnum } from '../../kernel/schemas.js';
import {
  IdParams,
  IotModuleSchema,
  IotModuleState,
  onTheVehicle,
  toIotModuleDto,
  vehicleById,
  vehicleDto,
  VehicleSchema,
} from './vehicle-representation.js';

const tags = ['Vehicles'];
const moduleTags = ['IoT Modules'];

async function requireModuleManager(ctx: RouteContext): Promise<void> {
  if (!(await ctx.holds({ permission: 'IOT_MODULE_MANAGE' })))
    throw new DomainError('AUTH002', 'IOT_MODULE_MANAGE is needed on at least one branch');
}

export const listIotModules = defineRoute({
  operationId: 'listIotModules',
  method: 'get',
  path: '/iot-modules',
  interface: 'back',
  summary: 'IoT module records',
  tags: moduleTags,
  query: Type.Object({
    state: Type.Optional(IotModuleState),
    search: Type.Optional(Str(100, { minLength: 1 })),
  }),
  paged: { defaultSize: 50 },
  access: {
    anyCaller: 'modules are tenant-wide; the handler requires IOT_MODULE_MANAGE on at least one branch',
  },
  responses: { 200: { description: 'One page of modules', schema: Type.Array(IotModuleSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requireModuleManager(ctx);
    const where: Record<string, unknown> = {};
    if (ctx.query.state) where.state = ctx.query.state;
    if (ctx.query.search) {
      const like = `%${ctx.query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.$or = [{ externalId: { $ilike: like } }, { name: { $ilike: like } }];
    }
    const [rows, total] = await ctx.em.findAndCount(IotModule, where, {
      orderBy: { id: 'asc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(rows.map(toIotModuleDto), { total });
  },
});

const IotModuleCreate = component(
  'IotModuleCreate',
  Type.Object(
    {
      externalId: Str(100, { minLength: 1 }),
      name: Str(200, { minLength: 1 }),
      iccid: Type.Optional(Str(32, { pattern: '^[0-9]{10,32}$' })),
      state: Type.Optional(StringEnum(['NEW', 'NOT_READY', 'UNASSIGNED'] as const)),
    },
    { additionalProperties: false },
  ),
);

export const createIotModule = defineRoute({
  operationId: 'createIotModule',
  method: 'post',
  path: '/iot-modules',
  interface: 'back',
  summary: 'Register an IoT module',
  tags: moduleTags,
  body: IotModuleCreate,
  access: {
    anyCaller: 'modules are tenant-wide; the handler requires IOT_MODULE_MANAGE on at least one branch',
  },
  responses: { 201: { description: 'The module', schema: IotModuleSchema } },
  errors: ['AUTH002', 'MO100', 'MO101', 'MO102'],
  async handler(ctx) {
    await requireModuleManager(ctx);
    const { em, body } = ctx;
    if (await em.count(IotModule, { externalId: body.externalId })) throw new DomainError('MO100');
    if (await em.count(IotModule, { name: body.name })) throw new DomainError('MO101');
    if (body.iccid && (await em.count(IotModule, { iccid: body.iccid }))) throw new DomainError('MO102');
    const module = em.create(IotModule, {
      externalId: body.externalId,
      name: body.name,
      iccid: body.iccid ?? null,
      state: body.state ?? 'NEW',
    });
    await em.flush();
    return created(toIotModuleDto(module));
  },
});

export const updateIotModuleState = defineRoute({
  operationId: 'updateIotModuleState',
  method: 'patch',
  path: '/iot-modules/{moduleId}',
  interface: 'back',
  summary: "Change a module's state (NEW, NOT_READY, UNASSIGNED, RETIRED); ASSIGNED comes from association",
  tags: moduleTags,
  params: Type.Object({ moduleId: Id() }),
  body: Type.Object(
    { state: StringEnum(['NEW', 'NOT_READY', 'UNASSIGNED', 'RETIRED'] as const) },
    { additionalProperties: false },
  ),
  access: {
    anyCaller: 'modules are tenant-wide; the handler requires IOT_MODULE_MANAGE on at least one branch',
  },
  responses: { 200: { description: 'The module', schema: IotModuleSchema } },
  errors: ['AUTH002', 'MO103', 'MO104'],
  async handler(ctx) {
    await requireModuleManager(ctx);
    const module = await ctx.em.findOne(IotModule, ctx.params.moduleId);
    if (!module) throw new DomainError('MO103');
    const refusal = iotModuleTransitionRefusal(module.state, ctx.body.state);
    if (refusal) throw new DomainError(refusal);
    // A module moved back to circulation leaves its vehicle; a retired one stays attached (commands 410).
    if (ctx.body.state !== 'RETIRED') module.vehicleId = null;
    module.state = ctx.body.state;
    return ok(toIotModuleDto(module));
  },
});

const ModuleAssociation = component(
  'IotModuleAssociation',
  Type.Object(
    { moduleId: Type.Optional(Id()), externalModuleId: Type.Optional(Str(100, { minLength: 1 })) },
    { additionalProperties: false, description: 'Exactly one of moduleId and externalModuleId (MO105).' },
  ),
);

export const associateIotModule = defineRoute({
  operationId: 'associateIotModule',
  method: 'post',
  path: '/vehicles/{id}/iot-module',
  interface: 'back',
  summary: 'Associate an IoT module with a vehicle',
  tags,
  params: IdParams,
  body: ModuleAssociation,
  access: onTheVehicle('IOT_MODULE_MANAGE'),
  responses: { 200: { description: 'The vehicle with its module', schema: VehicleSchema } },
  errors: ['V404', 'MO103', 'MO104', 'MO105', 'MO106'],
  async handler(ctx) {
    const { em, body } = ctx;
    const vehicle = await vehicleById(ctx);
    if ((body.moduleId === undefined) === (body.externalModuleId === undefined))
      throw new DomainError('MO105', 'give exactly one of moduleId and externalModuleId');
    const module = await em.findOne(
      IotModule,
      body.moduleId !== undefined ? { id: body.moduleId } : { externalId: body.externalModuleId! },
    );
    if (!module) throw new DomainError('MO103');
    if (module.state === 'RETIRED')
      throw new DomainError('MO104', 'a retired module must first become UNASSIGNED');
    if (module.vehicleId && module.vehicleId !== vehicle.id)
      throw new DomainError(
        'MO106',
        `module ${module.externalId} is associated with vehicle ${module.vehicleId}`,
      );
    const current = await em.findOne(IotModule, { vehicleId: vehicle.id });
    if (current && current.id !== module.id) {
      current.vehicleId = null;
      current.state = 'UNASSIGNED';
      await em.flush();
    }
    module.vehicleId = vehicle.id;
    module.state = 'ASSIGNED';
    ctx.recordEvent({
      type: 'VEHICLE_UPDATE',
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: `IoT module ${module.externalId} associated`,
    });
    await em.flush();
    return ok(await vehicleDto(em, vehicle));
  },
});

export const removeIotModule = defineRoute({
  operationId: 'removeIotModule',
  method: 'delete',
  path: '/vehicles/{id}/iot-module',
  interface: 'back',
  summary: "Remove a vehicle's IoT module (the module becomes UNASSIGNED)",
  tags,
  params: IdParams,
  access: onTheVehicle('IOT_MODULE_MANAGE'),
  responses: { 200: { description: 'The vehicle without module', schema: VehicleSchema } },
  errors: ['V404', 'MO103'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const module = await ctx.em.findOne(IotModule, { vehicleId: vehicle.id });
    if (!module) throw new DomainError('MO103', 'the vehicle has no IoT module');
    module.vehicleId = null;
    if (module.state !== 'RETIRED') module.state = 'UNASSIGNED';
    ctx.recordEvent({
      type: 'VEHICLE_UPDATE',
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: `IoT module ${module.externalId} removed`,
    });
    await ctx.em.flush();
    return ok(await vehicleDto(ctx.em, vehicle));
  },
});

// Two lists: the documents list paths in the order the fleet registers routes (composition/domains/fleet.ts),
// `/iot-modules…` among the static paths, the module of `/vehicles/{id}` after.
export const iotModuleRoutes = [listIotModules, createIotModule, updateIotModuleState];
export const vehicleIotModuleRoutes = [associateIotModule, removeIotModule];
