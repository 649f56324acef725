// App endpoints of the fleet: the vehicles a customer may see and rent.
import { Type, type Static } from '@sinclair/typebox';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { resolvedCategories } from '../../../db/categories.js';
import { DomainError } from '../../../domain/errors.js';
import { batteryLevels, unavailabilityReasons } from '../../../domain/vehicle.js';
import { readinessOf } from '../../shared/vehicle-readiness.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';

const tags = ['Vehicles'];

const AppVehicle = component(
  'AppVehicle',
  Type.Object(
    {
      id: Id(),
      code: Type.String(),
      licensePlate: Nullable(Type.String()),
      branchId: Id(),
      categoryId: Id(),
      categoryName: Type.String(),
      position: Nullable(Position),
      stateOfCharge: Nullable(Type.Number()),
      batteryLevel: StringEnum(batteryLevels),
      available: Type.Boolean(),
      unavailabilityReasons: Type.Array(StringEnum(unavailabilityReasons)),
      appProperties: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
);

type AppVehicleDto = Static<typeof AppVehicle>;

/** Vehicles the app may show: not virtual, not retired or defleeted (others answer V404). */
const visibleToApp = { virtual: false, serviceStateV2: { $nin: ['RETIRED', 'DEFLEETED'] } } as const;

async function appDtos(em: EntityManager, vehicles: Vehicle[]): Promise<AppVehicleDto[]> {
  const categories = await resolvedCategories(em);
  return vehicles.map((vehicle) => {
    const resolved = categories.get(vehicle.category.id);
    const readiness = readinessOf(vehicle, resolved);
    return {
      id: vehicle.id,
      code: vehicle.code,
      licensePlate: vehicle.licensePlate ?? null,
      branchId: vehicle.branch.id,
      categoryId: vehicle.category.id,
      categoryName: resolved?.category.name ?? '',
      position:
        vehicle.latitude != null && vehicle.longitude != null
          ? { lat: vehicle.latitude, lng: vehicle.longitude }
          : null,
      stateOfCharge: vehicle.stateOfCharge ?? null,
      batteryLevel: readiness.batteryLevel,
      available: readiness.available,
      unavailabilityReasons: readiness.unavailabilityReasons,
      appProperties: resolved?.category.appProperties ?? {},
    };
  });
}

async function oneVehicle(em: EntityManager, where: Record<string, unknown>, label: string) {
  const vehicle = await em.findOne(Vehicle, { ...where, ...visibleToApp });
  if (!vehicle) throw new DomainError('V404', `vehicle ${label} not found`);
  return (await appDtos(em, [vehicle]))[0]!;
}

const appAccess = {
  anyCaller:
    "the app sees the tenant's customer-facing fleet (no virtual, retired or defleeted vehicles) and no operator fields",
} as const;

export const appListVehicles = defineRoute({
  operationId: 'appListVehicles',
  method: 'get',
  path: '/vehicles',
  interface: 'front',
  summary: 'Vehicles for the app map, optionally up to a maximum state of charge',
  tags,
  query: Type.Object({
    branchId: Type.Optional(Id({ description: 'The branch and its child branches.' })),
    maxStateOfCharge: Type.Optional(Int(0, 100)),
    onlyAvailable: Type.Optional(Type.Boolean({ default: false })),
  }),
  paged: { defaultSize: 100, maxSize: 500 },
  access: appAccess,
  responses: { 200: { description: 'One page of vehicles', schema: Type.Array(AppVehicle) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const where: Record<string, unknown> = { ...visibleToApp };
    if (query.branchId) where.branch = { $in: await branchWithDescendants(em, tenant, query.branchId) };
    if (query.maxStateOfCharge !== undefined) where.stateOfCharge = { $lte: query.maxStateOfCharge };
    if (query.onlyAvailable) {
      // Narrowed in SQL by what can be checked there; the rules then decide per vehicle.
      where.rentalState = 'AVAILABLE';
      where.offline = false;
      const vehicles = await em.find(Vehicle, where, { orderBy: { id: 'asc' }, limit: 10_000 });
      const available = (await appDtos(em, vehicles)).filter((dto) => dto.available);
      return ok(available.slice(page.offset, page.offset + page.size), { total: available.length });
    }
    const [vehicles, total] = await em.findAndCount(Vehicle, where, {
      orderBy: { id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await appDtos(em, vehicles), { total });
  },
});

export const appGetVehicleByCode = defineRoute({
  operationId: 'appGetVehicleByCode',
  method: 'get',
  path: '/vehicles/code/{code}',
  interface: 'front',
  summary: 'One vehicle by the code printed on it',
  tags,
  params: Type.Object({ code: Str(64, { minLength: 1 }) }),
  access: appAccess,
  responses: { 200: { description: 'The vehicle', schema: AppVehicle } },
  errors: ['V404'],
  async handler({ em, params }) {
    return ok(await oneVehicle(em, { code: params.code }, params.code));
  },
});

export const appGetVehicleByRotatingUuid = defineRoute({
  operationId: 'appGetVehicleByRotatingUuid',
  method: 'get',
  path: '/vehicles/rotating-uuid/{rotatingUuid}',
  interface: 'front',
  summary: 'One vehicle by its rotating identifier (e.g. scanned from its display)',
  tags,
  params: Type.Object({ rotatingUuid: Type.String({ format: 'uuid', maxLength: 36 }) }),
  access: appAccess,
  responses: { 200: { description: 'The vehicle', schema: AppVehicle } },
  errors: ['V404'],
  async handler({ em, params }) {
    return ok(await oneVehicle(em, { rotatingUuid: params.rotatingUuid }, 'with this identifier'));
  },
});

export const appGetVehicle = defineRoute({
  operationId: 'appGetVehicle',
  method: 'get',
  path: '/vehicles/{id}',
  interface: 'front',
  summary: 'One vehicle',
  tags,
  params: Type.Object({ id: Id() }),
  access: appAccess,
  responses: { 200: { description: 'The vehicle', schema: AppVehicle } },
  errors: ['V404'],
  async handler({ em, params }) {
    return ok(await oneVehicle(em, { id: params.id }, String(params.id)));
  },
});

export const appVehicleRoutes = [
  appListVehicles,
  appGetVehicleByCode,
  appGetVehicleByRotatingUuid,
  appGetVehicle,
];
