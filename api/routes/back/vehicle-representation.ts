// The operator's vehicle representation, which the fleet's route files share (the operator interface
// only): the vehicle, IoT module and telemetry report schemas and mappers, and the vehicle a request names
// (by the path's `id` or the query's `vehicleId`/`vehicleCode`), loaded once per request, with the access
// helper on it.
import { Type, type Static } from '@sinclair/typebox';
import { IotModule } from '../../../db/entities/IotModule.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleTelemetry } from '../../../db/entities/VehicleTelemetry.js';
import type { EntityManager } from '../../../db/orm.js';
import type { IotModuleRecord, VehicleRecord } from '../../../db/fleet.js';
import { categoryReadiness, type CategoryReadiness } from '../../../db/categories.js';
import { DomainError } from '../../../domain/errors.js';
import {
  batteryLevels,
  iotModuleStates,
  powerStates,
  serviceStatesV2,
  unavailabilityReasons,
  vehicleRentalStates,
} from '../../../domain/vehicle.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Position, StringEnum } from '../../kernel/schemas.js';
import { readinessOf } from '../../shared/vehicle-readiness.js';

export const ServiceStateV2 = component('ServiceStateV2', StringEnum(serviceStatesV2));
export const IotModuleState = component('IotModuleState', StringEnum(iotModuleStates));

export const IotModuleSchema = component(
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

export type VehicleDto = Static<typeof VehicleSchema>;

export const TelemetryEntry = component(
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

/** One telemetry report as the operator sees it (the history and a vehicle's details). */
export const toTelemetryEntry = (row: VehicleTelemetry): Static<typeof TelemetryEntry> => ({
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
});

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

/** The DTO of one vehicle (see vehicleDtos). */
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
export const vehicleByQuery = (ctx: RouteContext<unknown, { vehicleId?: number; vehicleCode?: string }>) =>
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

/** The path parameters of `/vehicles/{id}…`. */
export const IdParams = Type.Object({ id: Id() });
