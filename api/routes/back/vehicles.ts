// Operator endpoints of the vehicles themselves: search (list, map, by code), create, read (also in detail)
// and update a vehicle, remove its legal inspection date. Its commands, configured operations, history and
// IoT module are in the other vehicle-*.ts files and iot-modules.ts; all share vehicle-representation.ts.
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { Damage } from '../../../db/entities/Damage.js';
import { Rental } from '../../../db/entities/Rental.js';
import { Task } from '../../../db/entities/Task.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { VehicleTelemetry } from '../../../db/entities/VehicleTelemetry.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { vehiclePage, type VehicleSortField } from '../../../db/fleet.js';
import { categoryReadiness, resolvedCategories } from '../../../db/categories.js';
import { openDamageStates } from '../../../domain/damage.js';
import { DomainError } from '../../../domain/errors.js';
import {
  batteryLevels,
  effectiveBatteryLevel,
  serviceStateEventType,
  serviceStatesV2,
  unavailabilityReasons,
  vehicleRentalStates,
} from '../../../domain/vehicle.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Position, Str, StringEnum, Dictionary } from '../../kernel/schemas.js';
import {
  IdParams,
  onTheVehicle,
  ServiceStateV2,
  TelemetryEntry,
  toTelemetryEntry,
  toVehicleDto,
  vehicleById,
  vehicleDto,
  vehicleDtos,
  VehicleSchema,
  type VehicleDto,
} from './vehicle-representation.js';

const tags = ['Vehicles'];

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

/**
 * What a patch changes of the vehicle's base data (category, licence plate, inspection date, custom
 * properties), each `{ from, to }`: the VEHICLE_BASE_DATA_CHANGED platform webhook's payload.
 */
function vehicleBaseDataChanges(
  vehicle: Vehicle,
  body: Static<typeof VehiclePatch>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const compare = (field: string, from: unknown, to: unknown) => {
    if (to !== undefined && JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  };
  compare('categoryId', vehicle.category.id, body.categoryId);
  compare('licensePlate', vehicle.licensePlate ?? null, body.licensePlate);
  compare('legalInspectionDate', vehicle.legalInspectionDate ?? null, body.legalInspectionDate);
  compare('customProperties', vehicle.customProperties ?? {}, body.customProperties);
  return changes;
}

/** Applies a patch with its events; moving to another branch needs VEHICLE_UPDATE there too. */
async function patchVehicle(
  ctx: RouteContext<unknown, unknown, Static<typeof VehiclePatch>>,
  vehicle: Vehicle,
): Promise<VehicleDto> {
  const { em, body } = ctx;
  assertRealDate(body.legalInspectionDate);
  const branchId = vehicle.branch.id;
  const baseDataChanges = vehicleBaseDataChanges(vehicle, body);
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
  if (Object.keys(baseDataChanges).length)
    ctx.recordEvent({
      type: 'VEHICLE_BASE_DATA_CHANGED',
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      payload: { vehicleId: vehicle.id, code: vehicle.code, changes: baseDataChanges },
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

const VehicleCategorySummary = component(
  'VehicleCategorySummary',
  Type.Object(
    { id: Id(), name: Type.String(), parentId: Nullable(Id()), bookable: Type.Boolean() },
    {
      additionalProperties: false,
      description: 'The full category: GET /vehicles/categories-management/{id}.',
    },
  ),
);

const DetailedVehicle = component(
  'DetailedVehicle',
  Type.Object(
    {
      ...VehicleSchema.properties,
      category: VehicleCategorySummary,
      openDamagesCount: Type.Integer({ minimum: 0, description: 'Damages NEW, APPROVED or UNDER_REPAIR.' }),
      openTasksCount: Type.Integer({ minimum: 0, description: 'Tasks not COMPLETED.' }),
      currentRentalId: Nullable(Id({ description: 'The open rental (RESERVATION or ACTIVE), if any.' })),
      lastTelemetry: Nullable(TelemetryEntry),
    },
    {
      additionalProperties: false,
      description:
        "The vehicle (the Vehicle fields, its IoT module in `module`) with what an operator's detail page shows beside it: its category, how many damages and tasks are open, its open rental and its newest telemetry report (`lastTelemetry`, null before the first).",
    },
  ),
);

export const getVehicleDetails = defineRoute({
  operationId: 'getVehicleDetails',
  method: 'get',
  path: '/vehicles/{id}/details',
  interface: 'back',
  summary:
    'One vehicle with its category, IoT module, open damages and tasks, open rental and last telemetry',
  tags,
  params: IdParams,
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'The vehicle in detail', schema: DetailedVehicle } },
  errors: ['V404'],
  async handler(ctx) {
    const { em } = ctx;
    const vehicle = await vehicleById(ctx);
    const [dto, categories, openDamagesCount, openTasksCount, rental, telemetry] = await Promise.all([
      vehicleDto(em, vehicle),
      resolvedCategories(em),
      em.count(Damage, { vehicleId: vehicle.id, state: { $in: [...openDamageStates] } }),
      em.count(Task, { vehicleId: vehicle.id, taskState: { $ne: 'COMPLETED' } }),
      em.findOne(
        Rental,
        { vehicle: vehicle.id, state: { $in: ['RESERVATION', 'ACTIVE'] } },
        { fields: ['id'] },
      ),
      em.findOne(
        VehicleTelemetry,
        { vehicleId: vehicle.id },
        { orderBy: { reportedAt: 'desc', id: 'desc' } },
      ),
    ]);
    const { category } = categories.get(vehicle.category.id)!;
    return ok({
      ...dto,
      category: {
        id: category.id,
        name: category.name,
        parentId: category.parent?.id ?? null,
        bookable: category.bookable,
      },
      openDamagesCount,
      openTasksCount,
      currentRentalId: rental?.id ?? null,
      lastTelemetry: telemetry ? toTelemetryEntry(telemetry) : null,
    });
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

// Two lists: the documents list paths in the order the fleet registers routes (composition/domains/fleet.ts),
// these static `/vehicles…` paths before the other files', the paths of `/vehicles/{id}` after.
export const vehicleRoutes = [listVehicles, vehicleMap, getVehicleByCode, createVehicle, updateVehicleByCode];
export const vehicleByIdRoutes = [getVehicle, getVehicleDetails, updateVehicle, removeLegalInspectionDate];
