import type { EntityManager } from '@mikro-orm/postgresql';
import type { IotModule } from './entities/index.js';
import { Vehicle } from './entities/index.js';
import { categoryConfiguration } from './categories.js';

/** A vehicle as the simulator needs it (the shape of devices/simulator.ts's vehicle spec). */
export interface SimulatedVehicleSpec {
  vehicleId: string;
  code: string;
  position: { lat: number; lng: number };
  stateOfCharge: number;
  hasTailbox: boolean;
  charging: boolean;
}

/** The tenant's vehicles as a simulator fleet, so simulated devices match the database ids. */
export async function simulatorFleet(em: EntityManager): Promise<SimulatedVehicleSpec[]> {
  const vehicles = await em.find(Vehicle, {}, { orderBy: { id: 'asc' } });
  const fleet: SimulatedVehicleSpec[] = [];
  const configurations = new Map<number, Awaited<ReturnType<typeof categoryConfiguration>>>();
  for (const vehicle of vehicles) {
    const configuration =
      configurations.get(vehicle.category.id) ?? (await categoryConfiguration(em, vehicle.category.id));
    configurations.set(vehicle.category.id, configuration);
    fleet.push({
      vehicleId: String(vehicle.id),
      code: vehicle.code,
      position: { lat: vehicle.latitude ?? 0, lng: vehicle.longitude ?? 0 },
      stateOfCharge: vehicle.stateOfCharge ?? 100,
      hasTailbox: configuration.hasTailbox ?? false,
      charging: vehicle.charging,
    });
  }
  return fleet;
}

/** The module fields a representation reads: an entity, or a row of `vehiclePage`. */
export type IotModuleRecord = Pick<
  IotModule,
  'id' | 'externalId' | 'name' | 'iccid' | 'state' | 'vehicleId' | 'createdAt' | 'updatedAt'
>;

/** The vehicle fields a representation reads: an entity, or a row of `vehiclePage`. */
export type VehicleRecord = Pick<
  Vehicle,
  | 'id'
  | 'code'
  | 'licensePlate'
  | 'rentalState'
  | 'serviceStateV2'
  | 'stateOfCharge'
  | 'iotStateOfCharge'
  | 'iotModuleLevel'
  | 'powerState'
  | 'offline'
  | 'locked'
  | 'charging'
  | 'latitude'
  | 'longitude'
  | 'odometerKm'
  | 'speedKmh'
  | 'hdop'
  | 'maxSpeedKmh'
  | 'lastSeenAt'
  | 'legalInspectionDate'
  | 'tags'
  | 'customProperties'
  | 'virtual'
  | 'createdAt'
  | 'updatedAt'
> & { branch: { id: number }; category: { id: number } };

/** Filters of the operator's vehicle search (all optional but the branches). */
export interface VehicleFilter {
  branchIds: readonly number[];
  search?: string;
  categoryId?: number;
  serviceStatesV2?: readonly string[];
  rentalStates?: readonly string[];
  offline?: boolean;
  tag?: string;
}

/** Sortable fields of the vehicle search and their columns. */
const sortColumns = {
  id: 'id',
  code: 'code',
  createdAt: 'created_at',
  stateOfCharge: 'state_of_charge',
  serviceStateV2: 'service_state_v2',
  rentalState: 'rental_state',
} as const;

/** A sort field of the vehicle search. */
export type VehicleSortField = keyof typeof sortColumns;

interface VehiclePageRow {
  total_count: string;
  id: number;
  code: string;
  license_plate: string | null;
  branch_id: number;
  category_id: number;
  rental_state: Vehicle['rentalState'];
  service_state_v2: Vehicle['serviceStateV2'];
  state_of_charge: number | null;
  iot_state_of_charge: number | null;
  iot_module_level: number | null;
  power_state: Vehicle['powerState'];
  offline: boolean;
  locked: boolean;
  charging: boolean;
  latitude: number | null;
  longitude: number | null;
  odometer_km: number | null;
  speed_kmh: number | null;
  hdop: number | null;
  max_speed_kmh: number | null;
  last_seen_at: string | null;
  legal_inspection_date: string | null;
  tags: string[];
  custom_properties: Record<string, unknown>;
  virtual: boolean;
  created_at: string;
  updated_at: string;
  module_id: number | null;
  module_external_id: string;
  module_name: string;
  module_iccid: string | null;
  module_state: IotModule['state'];
  module_created_at: string;
  module_updated_at: string;
}

const pageColumns = `v.id, v.code, v.license_plate, v.branch_id, v.category_id, v.rental_state, v.service_state_v2,
  v.state_of_charge, v.iot_state_of_charge, v.iot_module_level, v.power_state, v.offline, v.locked, v.charging,
  v.latitude, v.longitude, v.odometer_km, v.speed_kmh, v.hdop, v.max_speed_kmh, v.last_seen_at,
  to_char(v.legal_inspection_date, 'YYYY-MM-DD') as legal_inspection_date, v.tags, v.custom_properties, v.virtual,
  v.created_at, v.updated_at, m.id as module_id, m.external_id as module_external_id, m.name as module_name,
  m.iccid as module_iccid, m.state as module_state, m.created_at as module_created_at,
  m.updated_at as module_updated_at`;

/**
 * One page of the vehicle search with its module and the number of matches, in one query and without
 * entities (the list is read far more often than anything else; hydrating 50 entities cost more than the
 * query). A page past the end costs a second query, for the count.
 */
export async function vehiclePage(
  em: EntityManager,
  tenant: string,
  filter: VehicleFilter,
  sort: { field: VehicleSortField; direction: 'asc' | 'desc' },
  page: { limit: number; offset: number },
): Promise<{ vehicles: Array<{ vehicle: VehicleRecord; module?: IotModuleRecord }>; total: number }> {
  const conditions = ['v.tenant_id = ?', `v.branch_id in (${filter.branchIds.map(() => '?').join(', ')})`];
  const params: unknown[] = [tenant, ...filter.branchIds];
  if (filter.search) {
    const like = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push('(v.code ilike ? or v.license_plate ilike ?)');
    params.push(like, like);
  }
  if (filter.categoryId) {
    conditions.push('v.category_id = ?');
    params.push(filter.categoryId);
  }
  for (const [column, values] of [
    ['service_state_v2', filter.serviceStatesV2],
    ['rental_state', filter.rentalStates],
  ] as const)
    if (values) {
      conditions.push(values.length ? `v.${column} in (${values.map(() => '?').join(', ')})` : 'false');
      params.push(...values);
    }
  if (filter.offline !== undefined) {
    conditions.push('v.offline = ?');
    params.push(filter.offline);
  }
  if (filter.tag) {
    conditions.push('v.tags @> ?::jsonb');
    params.push(JSON.stringify([filter.tag]));
  }
  const where = conditions.join(' and ');
  const direction = sort.direction === 'desc' ? 'desc' : 'asc';
  const order =
    sort.field === 'id'
      ? `v.id ${direction}`
      : `v.${sortColumns[sort.field]} ${direction}, v.id ${direction}`;
  const rows = await em.execute<VehiclePageRow[]>(
    `select (select count(*) from vehicle v where ${where}) as total_count, ${pageColumns}
       from vehicle v left join iot_module m on m.tenant_id = v.tenant_id and m.vehicle_id = v.id
      where ${where} order by ${order} limit ? offset ?`,
    [...params, ...params, page.limit, page.offset],
  );
  let total = rows.length ? Number(rows[0]!.total_count) : 0;
  if (!rows.length && page.offset > 0) {
    const [count] = await em.execute<{ total_count: string }[]>(
      `select count(*) as total_count from vehicle v where ${where}`,
      params,
    );
    total = Number(count!.total_count);
  }
  // Timestamps as the entities read them (the driver hands them over as text).
  const platform = em.getPlatform();
  const instant = (value: string) => platform.parseDate(value);
  return {
    total,
    vehicles: rows.map((row) => ({
      vehicle: {
        id: row.id,
        code: row.code,
        licensePlate: row.license_plate,
        branch: { id: row.branch_id },
        category: { id: row.category_id },
        rentalState: row.rental_state,
        serviceStateV2: row.service_state_v2,
        stateOfCharge: row.state_of_charge,
        iotStateOfCharge: row.iot_state_of_charge,
        iotModuleLevel: row.iot_module_level,
        powerState: row.power_state,
        offline: row.offline,
        locked: row.locked,
        charging: row.charging,
        latitude: row.latitude,
        longitude: row.longitude,
        odometerKm: row.odometer_km,
        speedKmh: row.speed_kmh,
        hdop: row.hdop,
        maxSpeedKmh: row.max_speed_kmh,
        lastSeenAt: row.last_seen_at === null ? null : instant(row.last_seen_at),
        legalInspectionDate: row.legal_inspection_date,
        tags: row.tags,
        customProperties: row.custom_properties,
        virtual: row.virtual,
        createdAt: instant(row.created_at),
        updatedAt: instant(row.updated_at),
      },
      module:
        row.module_id === null
          ? undefined
          : {
              id: row.module_id,
              externalId: row.module_external_id,
              name: row.module_name,
              iccid: row.module_iccid,
              state: row.module_state,
              vehicleId: row.id,
              createdAt: instant(row.module_created_at),
              updatedAt: instant(row.module_updated_at),
            },
    })),
  };
}
