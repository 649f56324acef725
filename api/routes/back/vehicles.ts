// Operator endpoints of the fleet: vehicles, their commands, telemetry and activity, IoT modules.
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Branch } from '../../../db/entities/Branch.js';
import { Event } from '../../../db/entities/Event.js';
import { IotModule } from '../../../db/entities/IotModule.js';
import { VehicleAction } from '../../../db/entities/VehicleAction.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { VehicleCommand } from '../../../db/entities/VehicleCommand.js';
import { VehicleTelemetry } from '../../../db/entities/VehicleTelemetry.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import {
  vehiclePage,
  type IotModuleRecord,
  type VehicleRecord,
  type VehicleSortField,
} from '../../../db/fleet.js';
import { categoryReadiness, resolvedCategories, type CategoryReadiness } from '../../../db/categories.js';
import { DomainError } from '../../../domain/errors.js';
import {
  batteryLevels,
  commandProcesses,
  commandRefusal,
  commandReturns,
  effectiveBatteryLevel,
  iotModuleStates,
  iotModuleTransitionRefusal,
  powerStates,
  predefinedVehicleCommands,
  serviceStateEventType,
  serviceStatesV2,
  unavailabilityReasons,
  vehicleOperationRefusal,
  vehicleReadiness,
  vehicleRentalStates,
  type PredefinedVehicleCommand,
  type VehicleActionKind,
  type VehicleOperationStep,
} from '../../../domain/vehicle.js';
import {
  VEHICLE_COMMAND_WORKFLOW_TYPE,
  vehicleCommandWorkflowStartOptions,
} from '../../../workflows/fleet.messages.js';
import type { ExecutedVehicleCommand } from '../../../activities/fleet.js';
import { debugCommandName } from '../../../devices/protocol.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import {
  clampedInstant,
  component,
  DateTime,
  Id,
  Int,
  Nullable,
  Position,
  Str,
  StringEnum,
  Dictionary,
} from '../../kernel/schemas.js';

const tags = ['Vehicles'];
const commandTags = ['Vehicle Commands'];

export const ServiceStateV2 = component('ServiceStateV2', StringEnum(serviceStatesV2));
const IotModuleState = component('IotModuleState', StringEnum(iotModuleStates));

const IotModuleSchema = component(
  'IotModule',
  Type.Object(
    {
      id: Id(),
      externalId: Type.String(),
      name: Type.String(),
      iccid: Nullable(Type.String()),
      state: IotModuleState,
      vehicleId: Nullable(Id()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const VehicleSchema = component(
  'Vehicle',
  Type.Object(
    {
      id: Id(),
      code: Type.String(),
      licensePlate: Nullable(Type.String()),
      branchId: Id(),
      categoryId: Id(),
      rentalState: StringEnum(vehicleRentalStates),
      serviceStateV2: ServiceStateV2,
      available: Type.Boolean({ description: 'All six ready-to-rent rules hold.' }),
      unavailabilityReasons: Type.Array(StringEnum(unavailabilityReasons)),
      batteryLevel: StringEnum(batteryLevels),
      stateOfCharge: Nullable(Type.Number()),
      iotStateOfCharge: Nullable(Type.Number()),
      iotModuleLevel: Nullable(Type.Number({ description: 'IoT module supply voltage.' })),
      powerState: StringEnum(powerStates),
      offline: Type.Boolean(),
      locked: Type.Boolean(),
      charging: Type.Boolean(),
      position: Nullable(Position),
      odometerKm: Nullable(Type.Number()),
      speedKmh: Nullable(Type.Number()),
      hdop: Nullable(Type.Number()),
      maxSpeedKmh: Nullable(Type.Number()),
      lastSeenAt: Nullable(DateTime()),
      legalInspectionDate: Nullable(Type.String({ format: 'date' })),
      tags: Type.Array(Type.String()),
      customProperties: Type.Record(Type.String(), Type.Unknown()),
      module: Nullable(IotModuleSchema),
      virtual: Type.Boolean(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

type VehicleDto = Static<typeof VehicleSchema>;

/** The module row of a DTO. */
export function toIotModuleDto(module: IotModuleRecord): Static<typeof IotModuleSchema> {
  return {
    id: module.id,
    externalId: module.externalId,
    name: module.name,
    iccid: module.iccid ?? null,
    state: module.state,
    vehicleId: module.vehicleId ?? null,
    createdAt: module.createdAt.toISOString(),
    updatedAt: module.updatedAt.toISOString(),
  };
}

/** The ready-to-rent rules applied to a vehicle row and its resolved category. */
export function readinessOf(vehicle: VehicleRecord, category: CategoryReadiness | undefined) {
  return vehicleReadiness({
    rentalState: vehicle.rentalState,
    serviceStateV2: vehicle.serviceStateV2,
    stateOfCharge: vehicle.stateOfCharge,
    iotStateOfCharge: vehicle.iotStateOfCharge,
    iotModuleLevel: vehicle.iotModuleLevel,
    offline: vehicle.offline,
    charging: vehicle.charging,
    categoryBookable: category?.bookable ?? false,
    configuration: category?.configuration ?? {},
  });
}

/** The operator's vehicle representation, with availability computed by the ready-to-rent rules. */
export function toVehicleDto(
  vehicle: VehicleRecord,
  category: CategoryReadiness | undefined,
  module: IotModuleRecord | undefined,
): VehicleDto {
  const readiness = readinessOf(vehicle, category);
  return {
    id: vehicle.id,
    code: vehicle.code,
    licensePlate: vehicle.licensePlate ?? null,
    branchId: vehicle.branch.id,
    categoryId: vehicle.category.id,
    rentalState: vehicle.rentalState,
    serviceStateV2: vehicle.serviceStateV2,
    available: readiness.available,
    unavailabilityReasons: readiness.unavailabilityReasons,
    batteryLevel: readiness.batteryLevel,
    stateOfCharge: vehicle.stateOfCharge ?? null,
    iotStateOfCharge: vehicle.iotStateOfCharge ?? null,
    iotModuleLevel: vehicle.iotModuleLevel ?? null,
    powerState: vehicle.powerState,
    offline: vehicle.offline,
    locked: vehicle.locked,
    charging: vehicle.charging,
    position:
      vehicle.latitude != null && vehicle.longitude != null
        ? { lat: vehicle.latitude, lng: vehicle.longitude }
        : null,
    odometerKm: vehicle.odometerKm ?? null,
    speedKmh: vehicle.speedKmh ?? null,
    hdop: vehicle.hdop ?? null,
    maxSpeedKmh: vehicle.maxSpeedKmh ?? null,
    lastSeenAt: vehicle.lastSeenAt?.toISOString() ?? null,
    legalInspectionDate: vehicle.legalInspectionDate ?? null,
    tags: vehicle.tags,
    customProperties: vehicle.customProperties,
    module: module ? toIotModuleDto(module) : null,
    virtual: vehicle.virtual,
    createdAt: vehicle.createdAt.toISOString(),
    updatedAt: vehicle.updatedAt.toISOString(),
  };
}

/** DTOs of many vehicles with two extra queries (categories, modules). */
export async function vehicleDtos(em: EntityManager, vehicles: Vehicle[]): Promise<VehicleDto[]> {
  if (!vehicles.length) return [];
  const [categories, modules] = await Promise.all([
    categoryReadiness(em),
    em.find(IotModule, { vehicleId: { $in: vehicles.map((vehicle) => vehicle.id) } }),
  ]);
  const moduleByVehicle = new Map(modules.map((module) => [module.vehicleId!, module]));
  return vehicles.map((vehicle) =>
    toVehicleDto(vehicle, categories.get(vehicle.category.id), moduleByVehicle.get(vehicle.id)),
  );
}

export async function vehicleDto(em: EntityManager, vehicle: Vehicle): Promise<VehicleDto> {
  return (await vehicleDtos(em, [vehicle]))[0]!;
}

/** The vehicle of the path's `id`, loaded once per request (access check and handler share it). */
export const vehicleById = (ctx: RouteContext<{ id: number }>) =>
  ctx.once('vehicle', async () => {
    const vehicle = await ctx.em.findOne(Vehicle, ctx.params.id);
    if (!vehicle) throw new DomainError('V404', `vehicle ${ctx.params.id} not found`);
    return vehicle;
  });

/** Access to the vehicle of the path's `id`: `permission` on the vehicle's branch. */
export const onTheVehicle = (permission: string) => ({
  permission,
  branchOf: 'the vehicle',
  branch: async (ctx: RouteContext<{ id: number }>) => (await vehicleById(ctx)).branch.id,
});

/** The vehicle named by exactly one of `vehicleId` and `vehicleCode` in the query. */
const vehicleByQuery = (ctx: RouteContext<unknown, { vehicleId?: number; vehicleCode?: string }>) =>
  ctx.once('vehicle', async () => {
    const { vehicleId, vehicleCode } = ctx.query;
    if ((vehicleId === undefined) === (vehicleCode === undefined))
      throw new DomainError('0022', 'give exactly one of vehicleId and vehicleCode');
    const vehicle =
      vehicleId !== undefined
        ? await ctx.em.findOne(Vehicle, vehicleId)
        : await ctx.em.findOne(Vehicle, { code: vehicleCode! });
    if (!vehicle) throw new DomainError('V404');
    return vehicle;
  });

const IdParams = Type.Object({ id: Id() });

/** A calendar date PostgreSQL stores (years 1900 to 2199). */
const InspectionDate = Type.String({
  format: 'date',
  maxLength: 10,
  pattern: '^(19|20|21)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
});

/** Refuses a calendar date that does not exist (e.g. 2026-02-30) when the validator's format check is lax. */
function assertRealDate(value: string | null | undefined): void {
  if (!value) return;
  const parsed = Date.parse(`${value}T00:00:00Z`);
  if (!Number.isFinite(parsed) || new Date(parsed).toISOString().slice(0, 10) !== value)
    throw new DomainError('0022', `${value} is not a calendar date`);
}

const VehicleList = Type.Array(VehicleSchema);

const sortPattern = '^(id|code|createdAt|stateOfCharge|serviceStateV2|rentalState)(,(asc|desc|ASC|DESC))?$';

export const listVehicles = defineRoute({
  operationId: 'listVehicles',
  method: 'get',
  path: '/vehicles',
  interface: 'back',
  summary: "A branch's vehicles for operator search, with availability and its reasons",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    search: Type.Optional(Str(64, { minLength: 1, description: 'Part of the code or licence plate.' })),
    categoryId: Type.Optional(Id()),
    serviceStateV2: Type.Optional(Type.Array(ServiceStateV2, { maxItems: serviceStatesV2.length })),
    rentalState: Type.Optional(
      Type.Array(StringEnum(vehicleRentalStates), { maxItems: vehicleRentalStates.length }),
    ),
    offline: Type.Optional(Type.Boolean()),
    tag: Type.Optional(Str(64, { minLength: 1 })),
    sort: Type.Optional(Type.String({ pattern: sortPattern, maxLength: 30, default: 'id,asc' })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'VEHICLE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of vehicles', schema: VehicleList } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branchIds = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const [field, direction] = (query.sort ?? 'id,asc').split(',');
    const [{ vehicles, total }, categories] = await Promise.all([
      vehiclePage(
        em,
        tenant,
        {
          branchIds,
          search: query.search,
          categoryId: query.categoryId,
          serviceStatesV2: query.serviceStateV2,
          rentalStates: query.rentalState,
          offline: query.offline,
          tag: query.tag,
        },
        { field: field as VehicleSortField, direction: direction?.toLowerCase() === 'desc' ? 'desc' : 'asc' },
        { limit: page.size, offset: page.offset },
      ),
      categoryReadiness(em),
    ]);
    return ok(
      vehicles.map(({ vehicle, module }) =>
        toVehicleDto(vehicle, categories.get(vehicle.category.id), module),
      ),
      { total },
    );
  },
});

const MapVehicle = component(
  'MapVehicle',
  Type.Object(
    {
      id: Id(),
      code: Type.String(),
      categoryId: Id(),
      position: Position,
      available: Type.Boolean(),
      unavailabilityReasons: Type.Array(StringEnum(unavailabilityReasons)),
      batteryLevel: StringEnum(batteryLevels),
      stateOfCharge: Nullable(Type.Number()),
      serviceStateV2: ServiceStateV2,
      rentalState: StringEnum(vehicleRentalStates),
    },
    { additionalProperties: false },
  ),
);

export const vehicleMap = defineRoute({
  operationId: 'vehicleMap',
  method: 'get',
  path: '/vehicles/map',
  interface: 'back',
  summary: 'Operations map: positioned vehicles of a branch, without retired or virtual ones',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  }),
  access: {
    permission: 'VEHICLE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Vehicles on the map', schema: Type.Array(MapVehicle) } },
  errors: [],
  async handler({ em, tenant, query }) {
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const vehicles = await em.find(
      Vehicle,
      {
        branch: { $in: branches },
        virtual: false,
        serviceStateV2: { $nin: ['RETIRED', 'DEFLEETED'] },
        latitude: { $ne: null },
        longitude: { $ne: null },
      },
      { orderBy: { id: 'asc' }, limit: 10_000 },
    );
    const dtos = await vehicleDtos(em, vehicles);
    return ok(
      dtos.map((dto) => ({
        id: dto.id,
        code: dto.code,
        categoryId: dto.categoryId,
        position: dto.position!,
        available: dto.available,
        unavailabilityReasons: dto.unavailabilityReasons,
        batteryLevel: dto.batteryLevel,
        stateOfCharge: dto.stateOfCharge,
        serviceStateV2: dto.serviceStateV2,
        rentalState: dto.rentalState,
      })),
    );
  },
});

export const getVehicleByCode = defineRoute({
  operationId: 'getVehicleByCode',
  method: 'get',
  path: '/vehicles/code/{code}',
  interface: 'back',
  summary: 'One vehicle by its code',
  tags,
  params: Type.Object({ code: Str(64, { minLength: 1 }) }),
  access: {
    permission: 'VEHICLE_READ',
    branchOf: 'the vehicle',
    branch: async (ctx) => (await vehicleByCode(ctx)).branch.id,
  },
  responses: { 200: { description: 'The vehicle', schema: VehicleSchema } },
  errors: ['V404'],
  async handler(ctx) {
    return ok(await vehicleDto(ctx.em, await vehicleByCode(ctx)));
  },
});

const vehicleByCode = (ctx: RouteContext<{ code: string }>) =>
  ctx.once('vehicle', async () => {
    const vehicle = await ctx.em.findOne(Vehicle, { code: ctx.params.code });
    if (!vehicle) throw new DomainError('V404', `vehicle ${ctx.params.code} not found`);
    return vehicle;
  });

const VehicleCreate = component(
  'VehicleCreate',
  Type.Object(
    {
      code: Str(64, { minLength: 1 }),
      licensePlate: Type.Optional(Nullable(Str(32))),
      branchId: Id(),
      categoryId: Id(),
      serviceStateV2: Type.Optional(ServiceStateV2),
      position: Type.Optional(Position),
      legalInspectionDate: Type.Optional(Nullable(InspectionDate)),
      tags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
      customProperties: Type.Optional(Dictionary(Str(64), Str(1000), { maxProperties: 50 })),
      virtual: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
);

async function requireCategory(em: EntityManager, categoryId: number): Promise<VehicleCategory> {
  const category = await em.findOne(VehicleCategory, categoryId);
  if (!category) throw new DomainError('V102', `vehicle category ${categoryId} not found`);
  return category;
}

export const createVehicle = defineRoute({
  operationId: 'createVehicle',
  method: 'post',
  path: '/vehicles',
  interface: 'back',
  summary: 'Create a vehicle',
  tags,
  body: VehicleCreate,
  access: {
    permission: 'VEHICLE_CREATE',
    branchOf: 'body field branchId',
    branch: (ctx) => ctx.body.branchId,
  },
  responses: {
    201: {
      description: 'The new vehicle',
      schema: VehicleSchema,
      headers: { Location: { description: 'URL of the vehicle.', schema: Str(200) } },
    },
  },
  errors: ['V102', 'V100', '0022'],
  async handler(ctx) {
    const { em, body } = ctx;
    assertRealDate(body.legalInspectionDate);
    const category = await requireCategory(em, body.categoryId);
    if (await em.count(Vehicle, { code: body.code }))
      throw new DomainError('V100', `a vehicle with code ${body.code} exists`);
    const vehicle = em.create(Vehicle, {
      code: body.code,
      licensePlate: body.licensePlate ?? null,
      branch: body.branchId,
      category,
      serviceStateV2: body.serviceStateV2 ?? 'FUNCTIONAL',
      latitude: body.position?.lat ?? null,
      longitude: body.position?.lng ?? null,
      legalInspectionDate: body.legalInspectionDate ?? null,
      tags: body.tags ?? [],
      customProperties: body.customProperties ?? {},
      virtual: body.virtual ?? false,
      rotatingUuid: randomUUID(),
    });
    await em.flush();
    ctx.recordEvent({
      type: 'VEHICLE_UPDATE',
      branchId: body.branchId,
      vehicleId: vehicle.id,
      description: 'created',
    });
    return created(await vehicleDto(em, vehicle), { Location: `${ctx.baseUrl}/vehicles/${vehicle.id}` });
  },
});

const VehiclePatch = component(
  'VehiclePatch',
  Type.Object(
    {
      serviceStateV2: Type.Optional(ServiceStateV2),
      branchId: Type.Optional(Id()),
      categoryId: Type.Optional(Id()),
      position: Type.Optional(Position),
      licensePlate: Type.Optional(Nullable(Str(32))),
      legalInspectionDate: Type.Optional(Nullable(InspectionDate)),
      tags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
      customProperties: Type.Optional(Dictionary(Str(64), Str(1000), { maxProperties: 50 })),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

/** Applies a patch with its events; moving to another branch needs VEHICLE_UPDATE there too. */
async function patchVehicle(
  ctx: RouteContext<unknown, unknown, Static<typeof VehiclePatch>>,
  vehicle: Vehicle,
): Promise<VehicleDto> {
  const { em, body } = ctx;
  assertRealDate(body.legalInspectionDate);
  const branchId = vehicle.branch.id;
  if (body.categoryId !== undefined && body.categoryId !== vehicle.category.id)
    vehicle.category = await requireCategory(em, body.categoryId);
  if (body.branchId !== undefined && body.branchId !== branchId) {
    await ctx.authorize('VEHICLE_UPDATE', { branchId: body.branchId });
    vehicle.branch = em.getReference(Branch, body.branchId);
    ctx.recordEvent({
      type: 'VEHICLE_BRANCH_CHANGED',
      branchId: body.branchId,
      vehicleId: vehicle.id,
      payload: { from: branchId, to: body.branchId },
    });
  }
  if (body.serviceStateV2 !== undefined && body.serviceStateV2 !== vehicle.serviceStateV2) {
    ctx.recordEvent({
      type: serviceStateEventType(body.serviceStateV2),
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      payload: { from: vehicle.serviceStateV2, to: body.serviceStateV2 },
    });
    vehicle.serviceStateV2 = body.serviceStateV2;
  }
  if (body.position) {
    vehicle.latitude = body.position.lat;
    vehicle.longitude = body.position.lng;
  }
  if (body.licensePlate !== undefined) vehicle.licensePlate = body.licensePlate;
  if (body.legalInspectionDate !== undefined) vehicle.legalInspectionDate = body.legalInspectionDate;
  if (body.customProperties) vehicle.customProperties = body.customProperties;
  if (body.tags) {
    vehicle.tags = [...new Set(body.tags)];
    ctx.recordEvent({
      type: 'VEHICLE_TAGS_UPDATE',
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      payload: { tags: vehicle.tags },
    });
  }
  ctx.recordEvent({
    type: 'VEHICLE_UPDATE',
    branchId: vehicle.branch.id,
    vehicleId: vehicle.id,
    payload: { fields: Object.keys(body) },
  });
  const categories = await resolvedCategories(em);
  vehicle.batteryLevel = effectiveBatteryLevel(
    vehicle,
    categories.get(vehicle.category.id)?.configuration ?? {},
  );
  await em.flush();
  return vehicleDto(em, vehicle);
}

export const updateVehicleByCode = defineRoute({
  operationId: 'updateVehicleByCode',
  method: 'patch',
  path: '/vehicles',
  interface: 'back',
  summary: 'Update a vehicle named by its code',
  tags,
  query: Type.Object({ code: Str(64, { minLength: 1 }) }),
  body: VehiclePatch,
  access: {
    permission: 'VEHICLE_UPDATE',
    branchOf: 'the vehicle',
    branch: async (ctx) => (await vehicleByCodeQuery(ctx)).branch.id,
  },
  responses: { 200: { description: 'The updated vehicle', schema: VehicleSchema } },
  errors: ['V404', 'V102', '0022'],
  async handler(ctx) {
    return ok(await patchVehicle(ctx, await vehicleByCodeQuery(ctx)));
  },
});

const vehicleByCodeQuery = (ctx: RouteContext<unknown, { code: string }>) =>
  ctx.once('vehicle', async () => {
    const vehicle = await ctx.em.findOne(Vehicle, { code: ctx.query.code });
    if (!vehicle) throw new DomainError('V404', `vehicle ${ctx.query.code} not found`);
    return vehicle;
  });

const CommandRequest = component(
  'VehicleCommandRequest',
  Type.Object(
    {
      command: StringEnum(predefinedVehicleCommands),
      customCommandName: Type.Optional(Str(100, { minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' })),
      namedParameters: Type.Optional(
        Dictionary(
          Str(64),
          Type.Union([Str(500), Type.Number({ minimum: -1e9, maximum: 1e9 }), Type.Boolean()]),
          {
            maxProperties: 20,
          },
        ),
      ),
      queueIfOffline: Type.Optional(
        Type.Boolean({
          description: 'ASYNC only: queue the command for an offline vehicle instead of refusing it.',
        }),
      ),
      queueExpiresInSeconds: Type.Optional(Int(10, 7 * 86400, { default: 3600 })),
    },
    {
      additionalProperties: false,
      description:
        'A predefined command, or CUSTOM_COMMAND with customCommandName and namedParameters. Parameters of predefined commands (e.g. SET_MAX_SPEED maxSpeedKmh) go in namedParameters.',
    },
  ),
);

const CommandResponse = component(
  'VehicleCommandResponse',
  Type.Object(
    {
      commandId: Type.String(),
      vehicleId: Id(),
      command: StringEnum(predefinedVehicleCommands),
      status: Nullable(StringEnum(['OK', 'SENT', 'QUEUED'] as const)),
      data: Nullable(Type.Record(Type.String(), Type.Unknown())),
    },
    {
      additionalProperties: false,
      description: 'status and data are null when `return` does not ask for them.',
    },
  ),
);

const commandQuery = {
  process: StringEnum(commandProcesses),
  return: StringEnum(commandReturns),
};

/**
 * Whether a command may go to the vehicle: configured for its category (A100) and its integration client
 * (IoT module) not retired (V410).
 */
export async function assertCommandable(
  em: EntityManager,
  vehicle: Vehicle,
  command: PredefinedVehicleCommand,
): Promise<void> {
  const configuration = (await resolvedCategories(em)).get(vehicle.category.id)?.configuration ?? {};
  if (commandRefusal(command, configuration))
    throw new DomainError('A100', `${command} is not configured for this vehicle's category`);
  await assertIntegrationActive(em, vehicle);
}

/** Refuses a vehicle whose integration client (IoT module) is retired (V410). */
async function assertIntegrationActive(em: EntityManager, vehicle: Vehicle): Promise<void> {
  const module = await em.findOne(IotModule, { vehicleId: vehicle.id });
  if (module?.state === 'RETIRED')
    throw new DomainError(
      'V410',
      `the vehicle's integration client (module ${module.externalId}) is retired`,
    );
}

/**
 * Sends a command: checks the category's command list, the module (retired: 410) and connectivity
 * (SYNC to an offline vehicle answers 504 at once; ASYNC may queue it), then runs the vehicle command
 * workflow, whose id allows one running command per vehicle (409 otherwise).
 */
async function executeCommand(
  ctx: RouteContext<
    unknown,
    { process: 'SYNC' | 'ASYNC'; return: 'DATA' | 'STATUS' | 'NONE' },
    Static<typeof CommandRequest>
  >,
  vehicle: Vehicle,
): Promise<Static<typeof CommandResponse>> {
  const { em, body, query, tenant } = ctx;
  if ((body.command === 'CUSTOM_COMMAND') !== (body.customCommandName !== undefined))
    throw new DomainError('0022', 'customCommandName is given with CUSTOM_COMMAND and only then');
  await assertCommandable(em, vehicle, body.command);
  const params: Record<string, unknown> | undefined =
    body.command === 'CUSTOM_COMMAND'
      ? { name: body.customCommandName, parameters: body.namedParameters ?? {} }
      : body.namedParameters;
  const commandId = `cmd:${tenant}:${vehicle.id}:${randomUUID()}`;
  const shape = (status: 'OK' | 'SENT' | 'QUEUED', data: Record<string, unknown> | null) => ({
    commandId,
    vehicleId: vehicle.id,
    command: body.command,
    status: query.return === 'NONE' ? null : status,
    data: query.return === 'DATA' ? data : null,
  });
  if (vehicle.offline) {
    if (query.process === 'SYNC' || !body.queueIfOffline)
      throw new DomainError('V504', 'the vehicle is offline; it cannot answer now');
    em.create(VehicleCommand, {
      commandId,
      vehicleId: vehicle.id,
      command: body.command,
      params: params ?? null,
      status: 'QUEUED',
      requestedBy: ctx.actor,
      expiresAt: new Date(Date.now() + (body.queueExpiresInSeconds ?? 3600) * 1000),
    });
    ctx.recordEvent({
      type: `VEHICLE_COMMAND_${body.command}`,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: 'QUEUED until the vehicle reconnects',
      payload: { commandId, status: 'QUEUED' },
    });
    return shape('QUEUED', null);
  }
  if (query.process === 'ASYNC') {
    await startOperation(ctx, vehicle, commandId, body.command, [
      { type: 'COMMAND', command: body.command, params },
    ]);
    return shape('SENT', null);
  }
  const result = await runOperation(ctx, vehicle, commandId, body.command, [
    { type: 'COMMAND', command: body.command, params },
  ]);
  return shape('OK', result.data);
}

/** The workflow start options of an operation on a vehicle. */
function operationOptions(
  ctx: RouteContext,
  vehicle: Vehicle,
  commandId: string,
  label: string,
  steps: VehicleOperationStep[],
) {
  return vehicleCommandWorkflowStartOptions(
    {
      tenant: ctx.tenant,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      commandId,
      label,
      steps,
      requestedBy: ctx.actor,
    },
    ctx.services.taskQueue,
  );
}

/** A start refused because the vehicle's workflow id is taken means a command is in progress (V409). */
function inProgress(error: unknown): unknown {
  return error instanceof WorkflowExecutionAlreadyStartedError
    ? new DomainError('V409', 'a command to this vehicle is in progress')
    : error;
}

/** Starts an operation and returns once Temporal holds it (ASYNC: it will be sent). */
export async function startOperation(
  ctx: RouteContext,
  vehicle: Vehicle,
  commandId: string,
  label: string,
  steps: VehicleOperationStep[],
): Promise<void> {
  try {
    await ctx.services.temporal.workflow.start(
      VEHICLE_COMMAND_WORKFLOW_TYPE,
      operationOptions(ctx, vehicle, commandId, label, steps),
    );
  } catch (error) {
    throw inProgress(error);
  }
}

/** Runs an operation and waits for its outcome (SYNC). */
export async function runOperation(
  ctx: RouteContext,
  vehicle: Vehicle,
  commandId: string,
  label: string,
  steps: VehicleOperationStep[],
): Promise<ExecutedVehicleCommand> {
  try {
    return await ctx.services.temporal.workflow.execute<(input: unknown) => Promise<ExecutedVehicleCommand>>(
      VEHICLE_COMMAND_WORKFLOW_TYPE,
      operationOptions(ctx, vehicle, commandId, label, steps),
    );
  } catch (error) {
    throw inProgress(error);
  }
}

const commandErrors = ['V404', 'V409', 'V410', 'V502', 'V504', 'A100', '0022'] as const;

export const executeVehicleCommand = defineRoute({
  operationId: 'executeVehicleCommand',
  method: 'post',
  path: '/vehicles/execute-command',
  interface: 'back',
  summary: 'Send a command to a vehicle (SYNC waits for its answer, ASYNC only ensures it is sent)',
  description:
    '409 V409: a command to this vehicle is in progress; 502 V502: the vehicle refused or reported an error (the body failureReason carries its code and description, also on the vehicle activity); 504 V504: no answer in time, or the vehicle is offline (SYNC); 410 V410: its integration client is retired.',
  tags: commandTags,
  query: Type.Object({
    ...commandQuery,
    vehicleId: Type.Optional(Id()),
    vehicleCode: Type.Optional(Str(64, { minLength: 1 })),
  }),
  body: CommandRequest,
  access: {
    permission: 'VEHICLE_COMMAND',
    branchOf: 'the vehicle',
    branch: async (ctx) => (await vehicleByQuery(ctx)).branch.id,
  },
  responses: { 200: { description: 'The command outcome', schema: CommandResponse } },
  errors: commandErrors,
  async handler(ctx) {
    return ok(await executeCommand(ctx, await vehicleByQuery(ctx)));
  },
});

export const legacyVehicleCommand = defineRoute({
  operationId: 'legacyVehicleCommand',
  method: 'post',
  path: '/vehicles/{id}/command',
  interface: 'back',
  summary: 'Send a command to a vehicle (deprecated)',
  tags: commandTags,
  params: IdParams,
  query: Type.Object(commandQuery),
  body: CommandRequest,
  access: onTheVehicle('VEHICLE_COMMAND'),
  responses: { 200: { description: 'The command outcome', schema: CommandResponse } },
  errors: commandErrors,
  deprecated: { replacement: 'POST /vehicles/execute-command' },
  async handler(ctx) {
    return ok(await executeCommand(ctx, await vehicleById(ctx)));
  },
});

export const debugVehicleCommand = defineRoute({
  operationId: 'debugVehicleCommand',
  method: 'post',
  path: '/vehicles/{id}/command/debug',
  interface: 'back',
  summary: "Send one line to the vehicle module's debug console; answers the console's text output",
  description:
    'The body is the console line as text/plain (1–1000 characters); it goes to the device as the DEBUG command (docs/device-protocol.md) through the per-vehicle command workflow, so it waits for the answer like a SYNC command: 409 V409 while another command runs, 502 V502 when the module refuses or has no debug console, 504 V504 when it does not answer or is offline, 410 V410 when its integration client is retired. Recorded as a VEHICLE_COMMAND_DEBUG event with the command on the vehicle activity.',
  tags: commandTags,
  params: IdParams,
  body: Str(1000, { minLength: 1, description: 'One line for the debug console, e.g. `status`.' }),
  bodyContentTypes: ['text/plain'],
  access: onTheVehicle('VEHICLE_DEBUG'),
  responses: { 200: { description: "The console's output", schema: Type.String() } },
  errors: ['V404', 'V409', 'V410', 'V502', 'V504'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    await assertIntegrationActive(ctx.em, vehicle);
    if (vehicle.offline) throw new DomainError('V504', 'the vehicle is offline; it cannot answer now');
    const commandId = `cmd:${ctx.tenant}:${vehicle.id}:${randomUUID()}`;
    const result = await runOperation(ctx, vehicle, commandId, debugCommandName, [
      { type: 'COMMAND', command: debugCommandName, params: { input: ctx.body } },
    ]);
    const output = result.data?.output;
    return ok(typeof output === 'string' ? output : JSON.stringify(result.data ?? null));
  },
});

const ActionSchema = component(
  'VehicleAction',
  Type.Object(
    {
      id: Id(),
      kind: StringEnum(['ACTION', 'ACTIVITY', 'COMPOSITE_ACTIVITY'] as const),
      name: Type.String(),
      description: Nullable(Type.String()),
      steps: Type.Array(Type.Record(Type.String(), Type.Unknown())),
      roleNames: Type.Array(Type.String(), {
        description: 'Roles that may run it; empty: every holder of VEHICLE_COMMAND.',
      }),
    },
    { additionalProperties: false },
  ),
);

const toActionDto = (action: VehicleAction): Static<typeof ActionSchema> => ({
  id: action.id,
  kind: action.kind,
  name: action.name,
  description: action.description ?? null,
  steps: action.steps.map((step) => ({ ...step })),
  roleNames: action.roleNames,
});

export const listVehicleActions = defineRoute({
  operationId: 'listVehicleActions',
  method: 'get',
  path: '/vehicles-management/actions',
  interface: 'back',
  summary: 'The configured vehicle operations (actions, activities, composite activities)',
  tags: ['Vehicle Action Management'],
  access: {
    anyCaller:
      'operation definitions are tenant configuration; the handler requires VEHICLE_READ on some branch',
  },
  responses: { 200: { description: 'Operations', schema: Type.Array(ActionSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    if (!(await ctx.holds({ permission: 'VEHICLE_READ' })))
      throw new DomainError('AUTH002', 'VEHICLE_READ is needed on at least one branch');
    return ok((await ctx.em.find(VehicleAction, {}, { orderBy: { id: 'asc' } })).map(toActionDto));
  },
});

/**
 * Runs a configured operation of `kind` on the vehicle of the query: it must be configured for the
 * vehicle's category and allowed to one of the caller's roles on the vehicle's branch (A100 otherwise).
 */
async function executeOperation(
  ctx: RouteContext<{ actionId: number }, { vehicleId?: number; vehicleCode?: string }>,
  kind: VehicleActionKind,
): Promise<VehicleDto> {
  const vehicle = await vehicleByQuery(ctx);
  const operation = await ctx.em.findOne(VehicleAction, { id: ctx.params.actionId, kind });
  if (!operation) throw new DomainError('VH404', `no ${kind.toLowerCase()} ${ctx.params.actionId}`);
  const configuration = (await resolvedCategories(ctx.em)).get(vehicle.category.id)?.configuration ?? {};
  const roles: string[] = [];
  for (const roleName of operation.roleNames)
    if (await ctx.holds({ roleName, branchId: vehicle.branch.id })) roles.push(roleName);
  const refusal = vehicleOperationRefusal(operation, configuration, roles);
  if (refusal) throw new DomainError('A100', refusal);
  if (operation.steps.some((step) => step.type === 'COMMAND')) {
    const module = await ctx.em.findOne(IotModule, { vehicleId: vehicle.id });
    if (module?.state === 'RETIRED') throw new DomainError('V410');
    if (vehicle.offline) throw new DomainError('V504', 'the vehicle is offline; it cannot answer now');
  }
  await runOperation(
    ctx,
    vehicle,
    `op:${ctx.tenant}:${vehicle.id}:${randomUUID()}`,
    `${kind}:${operation.name}`,
    operation.steps,
  );
  return vehicleDto(ctx.em.fork(), (await ctx.em.fork().findOne(Vehicle, vehicle.id))!);
}

const operationQuery = Type.Object({
  vehicleId: Type.Optional(Id()),
  vehicleCode: Type.Optional(Str(64, { minLength: 1 })),
});
const operationErrors = ['V404', 'VH404', 'A100', 'V409', 'V410', 'V502', 'V504', '0022'] as const;
const operationBranch = async (ctx: RouteContext<unknown, { vehicleId?: number; vehicleCode?: string }>) =>
  (await vehicleByQuery(ctx)).branch.id;

export const executeVehicleAction = defineRoute({
  operationId: 'executeVehicleAction',
  method: 'post',
  path: '/vehicles/execute-action/{actionId}',
  interface: 'back',
  summary: 'Run a configured action on a vehicle (give exactly one of vehicleId and vehicleCode)',
  tags: ['Vehicle Actions'],
  params: Type.Object({ actionId: Id() }),
  query: operationQuery,
  access: { permission: 'VEHICLE_COMMAND', branchOf: 'the vehicle', branch: (ctx) => operationBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: operationErrors,
  async handler(ctx) {
    return ok(await executeOperation(ctx, 'ACTION'));
  },
});

export const executeVehicleActivity = defineRoute({
  operationId: 'executeVehicleActivity',
  method: 'post',
  path: '/vehicles/execute-activity/{actionId}',
  interface: 'back',
  summary: 'Run a configured activity (platform-side state change) on a vehicle',
  tags: ['Vehicle Actions'],
  params: Type.Object({ actionId: Id({ description: 'The activity id.' }) }),
  query: operationQuery,
  access: { permission: 'VEHICLE_COMMAND', branchOf: 'the vehicle', branch: (ctx) => operationBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: operationErrors,
  async handler(ctx) {
    return ok(await executeOperation(ctx, 'ACTIVITY'));
  },
});

export const executeVehicleCompositeActivity = defineRoute({
  operationId: 'executeVehicleCompositeActivity',
  method: 'post',
  path: '/vehicles/execute-composite-activity/{actionId}',
  interface: 'back',
  summary: 'Run a configured sequence of activities and commands on a vehicle',
  tags: ['Vehicle Actions'],
  params: Type.Object({ actionId: Id({ description: 'The composite activity id.' }) }),
  query: operationQuery,
  access: { permission: 'VEHICLE_COMMAND', branchOf: 'the vehicle', branch: (ctx) => operationBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: operationErrors,
  async handler(ctx) {
    return ok(await executeOperation(ctx, 'COMPOSITE_ACTIVITY'));
  },
});

export const getVehicle = defineRoute({
  operationId: 'getVehicle',
  method: 'get',
  path: '/vehicles/{id}',
  interface: 'back',
  summary: 'One vehicle',
  tags,
  params: IdParams,
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'The vehicle', schema: VehicleSchema } },
  errors: ['V404'],
  async handler(ctx) {
    return ok(await vehicleDto(ctx.em, await vehicleById(ctx)));
  },
});

export const updateVehicle = defineRoute({
  operationId: 'updateVehicle',
  method: 'patch',
  path: '/vehicles/{id}',
  interface: 'back',
  summary:
    'Update service state, branch, category, position, plate, legal inspection date, tags or custom properties',
  tags,
  params: IdParams,
  body: VehiclePatch,
  access: onTheVehicle('VEHICLE_UPDATE'),
  responses: { 200: { description: 'The updated vehicle', schema: VehicleSchema } },
  errors: ['V404', 'V102', '0022'],
  async handler(ctx) {
    return ok(await patchVehicle(ctx, await vehicleById(ctx)));
  },
});

export const removeLegalInspectionDate = defineRoute({
  operationId: 'removeLegalInspectionDate',
  method: 'delete',
  path: '/vehicles/{id}/legalInspectionDate',
  interface: 'back',
  summary: "Remove a vehicle's legal inspection date",
  tags,
  params: IdParams,
  access: onTheVehicle('VEHICLE_UPDATE'),
  responses: { 204: { description: 'Removed' } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    vehicle.legalInspectionDate = null;
    ctx.recordEvent({
      type: 'VEHICLE_UPDATE',
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: 'legal inspection date removed',
    });
    return noContent();
  },
});

const TelemetryEntry = component(
  'VehicleTelemetryEntry',
  Type.Object(
    {
      reportedAt: DateTime(),
      receivedAt: DateTime(),
      position: Position,
      speedKmh: Nullable(Type.Number()),
      maxSpeedKmh: Nullable(Type.Number({ description: 'Speed limit configured on the device.' })),
      hdop: Nullable(Type.Number()),
      stateOfCharge: Nullable(Type.Number()),
      batteries: Nullable(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
      batteryMaxCapacityWh: Nullable(Type.Number()),
      powerState: Type.String(),
      locked: Type.Boolean(),
      charging: Nullable(Type.Boolean()),
      odometerKm: Nullable(Type.Number()),
      iotModuleLevel: Nullable(Type.Number()),
    },
    { additionalProperties: false },
  ),
);

export const vehicleTelemetry = defineRoute({
  operationId: 'vehicleTelemetry',
  method: 'get',
  path: '/vehicles/{id}/telemetry',
  interface: 'back',
  summary: 'Telemetry history of a vehicle, newest first',
  tags,
  params: IdParams,
  query: Type.Object({ from: Type.Optional(DateTime()), to: Type.Optional(DateTime()) }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of telemetry', schema: Type.Array(TelemetryEntry) } },
  errors: ['V404'],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    const range: Record<string, Date> = {};
    if (query.from) range.$gte = clampedInstant(query.from);
    if (query.to) range.$lte = clampedInstant(query.to);
    if (Object.keys(range).length) where.reportedAt = range;
    const [rows, total] = await em.findAndCount(VehicleTelemetry, where, {
      orderBy: { reportedAt: 'desc', id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(
      rows.map((row) => ({
        reportedAt: row.reportedAt.toISOString(),
        receivedAt: row.receivedAt.toISOString(),
        position: { lat: row.latitude, lng: row.longitude },
        speedKmh: row.speedKmh ?? null,
        maxSpeedKmh: row.maxSpeedKmh ?? null,
        hdop: row.hdop ?? null,
        stateOfCharge: row.stateOfCharge ?? null,
        batteries: row.batteries ?? null,
        batteryMaxCapacityWh: row.batteryMaxCapacityWh ?? null,
        powerState: row.powerState,
        locked: row.locked,
        charging: row.charging ?? null,
        odometerKm: row.odometerKm ?? null,
        iotModuleLevel: row.iotModuleLevel ?? null,
      })),
      { total },
    );
  },
});

const CommandRecord = component(
  'VehicleCommandRecord',
  Type.Object(
    {
      commandId: Type.String(),
      command: Type.String(),
      status: StringEnum([
        'QUEUED',
        'SENT',
        'OK',
        'REFUSED',
        'ERROR',
        'TIMEOUT',
        'CANCELLED',
        'EXPIRED',
      ] as const),
      params: Nullable(Type.Record(Type.String(), Type.Unknown())),
      failureReason: Nullable(
        Type.Object({ code: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }),
      ),
      requestedBy: Nullable(Type.String()),
      rentalId: Nullable(Type.Integer()),
      sentAt: DateTime(),
      answeredAt: Nullable(DateTime()),
      expiresAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

const toCommandRecord = (row: VehicleCommand): Static<typeof CommandRecord> => ({
  commandId: row.commandId,
  command: row.command,
  status: row.status,
  params: row.params ?? null,
  failureReason: row.failureReason ?? null,
  requestedBy: row.requestedBy ?? null,
  rentalId: row.rentalId ?? null,
  sentAt: row.sentAt.toISOString(),
  answeredAt: row.answeredAt?.toISOString() ?? null,
  expiresAt: row.expiresAt?.toISOString() ?? null,
});

export const vehicleActivity = defineRoute({
  operationId: 'vehicleActivity',
  method: 'get',
  path: '/vehicles/{id}/activity',
  interface: 'back',
  summary: 'Commands sent to a vehicle, newest first, including queued ones',
  tags,
  params: IdParams,
  query: Type.Object({
    status: Type.Optional(
      StringEnum(['QUEUED', 'SENT', 'OK', 'REFUSED', 'ERROR', 'TIMEOUT', 'CANCELLED', 'EXPIRED'] as const),
    ),
  }),
  paged: { defaultSize: 50 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of commands', schema: Type.Array(CommandRecord) } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    if (ctx.query.status) where.status = ctx.query.status;
    const [rows, total] = await ctx.em.findAndCount(VehicleCommand, where, {
      orderBy: { id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(rows.map(toCommandRecord), { total });
  },
});

export const cancelQueuedCommand = defineRoute({
  operationId: 'cancelQueuedCommand',
  method: 'delete',
  path: '/vehicles/{id}/activity/{commandId}',
  interface: 'back',
  summary: 'Cancel a command queued for an offline vehicle',
  tags,
  params: Type.Object({ id: Id(), commandId: Str(300, { minLength: 1 }) }),
  access: onTheVehicle('VEHICLE_COMMAND'),
  responses: { 200: { description: 'The cancelled command', schema: CommandRecord } },
  errors: ['V404', 'V101'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where = { commandId: ctx.params.commandId, vehicleId: vehicle.id };
    // One conditional update: a command the ingestor claims for delivery at the same moment stays SENT.
    const cancelled = await ctx.em.nativeUpdate(
      VehicleCommand,
      { ...where, status: 'QUEUED' },
      { status: 'CANCELLED' },
    );
    const command = await ctx.em.findOne(VehicleCommand, where);
    if (!command) throw new DomainError('V404', `command ${ctx.params.commandId} not found on this vehicle`);
    if (!cancelled)
      throw new DomainError('V101', `only a queued command can be cancelled; it is ${command.status}`);
    ctx.recordEvent({
      type: `VEHICLE_COMMAND_${command.command}`,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: 'CANCELLED before delivery',
      payload: { commandId: command.commandId, status: 'CANCELLED' },
    });
    return ok(toCommandRecord(command));
  },
});

const LogEntry = component(
  'VehicleLogEntry',
  Type.Object(
    {
      id: Type.String(),
      type: Type.String(),
      createdAt: DateTime(),
      adminSubject: Nullable(Type.String()),
      rentalId: Nullable(Type.Integer()),
      description: Nullable(Type.String()),
      payload: Nullable(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
);

export const vehicleLogEntries = defineRoute({
  operationId: 'vehicleLogEntries',
  method: 'get',
  path: '/vehicles/{id}/log-entries',
  interface: 'back',
  summary: 'What happened to a vehicle (its events), newest first',
  tags,
  params: IdParams,
  query: Type.Object({ typePrefix: Type.Optional(Str(60, { pattern: '^[A-Z0-9_]+$' })) }),
  paged: { defaultSize: 50 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of log entries', schema: Type.Array(LogEntry) } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    if (ctx.query.typePrefix) where.type = { $like: `${ctx.query.typePrefix}%` };
    const [rows, total] = await ctx.em.findAndCount(Event, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(
      rows.map((row) => ({
        id: String(row.id),
        type: row.type,
        createdAt: row.createdAt.toISOString(),
        adminSubject: row.adminSubject ?? null,
        rentalId: row.rentalId ?? null,
        description: row.description ?? null,
        payload: row.payload ?? null,
      })),
      { total },
    );
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

// IoT module records (tenant-wide; managing them needs IOT_MODULE_MANAGE on some branch).
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

/** Static paths before parametrised ones: express matches in mount order. */
export const vehicleRoutes = [
  listVehicles,
  vehicleMap,
  getVehicleByCode,
  createVehicle,
  updateVehicleByCode,
  executeVehicleCommand,
  listVehicleActions,
  executeVehicleAction,
  executeVehicleActivity,
  executeVehicleCompositeActivity,
  listIotModules,
  createIotModule,
  updateIotModuleState,
  legacyVehicleCommand,
  debugVehicleCommand,
  getVehicle,
  updateVehicle,
  removeLegalInspectionDate,
  vehicleTelemetry,
  vehicleActivity,
  cancelQueuedCommand,
  vehicleLogEntries,
  associateIotModule,
  removeIotModule,
];
