import type { EntityManager } from '@mikro-orm/postgresql';
import type { IotModule } from './entities/IotModule.js';
import { Vehicle } from './entities/Vehicle.js';
import { categoryConfiguration } from './categories.js';
import { preparedRows, preparedTuples } from './prepared.js';

/** A vehicle as the simulator needs it (the shape of devices/simulator.ts's vehicle spec). */
export interface SimulatedVehicleSpec {
  vehicleId: string;
  code: string;
  position: { lat: number; lng: number };
  stateOfCharge: number;
  hasTailbox: boolean;
  charging: boolean;
  /** The recorded odometer: the device goes on from it instead of reporting 0 (issue 35.5). */
  odometerKm: number;
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
      odometerKm: vehicle.odometerKm ?? 0,
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

/** A row of `vehiclePage`: the total, then {@link pageColumns} in order. */
type VehiclePageRow = [
  totalCount: string,
  id: number,
  code: string,
  licensePlate: string | null,
  branchId: number,
  categoryId: number,
  rentalState: Vehicle['rentalState'],
  serviceStateV2: Vehicle['serviceStateV2'],
  stateOfCharge: number | null,
  iotStateOfCharge: number | null,
  iotModuleLevel: number | null,
  powerState: Vehicle['powerState'],
  offline: boolean,
  locked: boolean,
  charging: boolean,
  latitude: number | null,
  longitude: number | null,
  odometerKm: number | null,
  speedKmh: number | null,
  hdop: number | null,
  maxSpeedKmh: number | null,
  lastSeenAt: string | null,
  legalInspectionDate: string | null,
  tags: string[],
  customProperties: Record<string, unknown>,
  virtual: boolean,
  createdAt: string,
  updatedAt: string,
  moduleId: number | null,
  moduleExternalId: string,
  moduleName: string,
  moduleIccid: string | null,
  moduleState: IotModule['state'],
  moduleCreatedAt: string,
  moduleUpdatedAt: string,
];

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
  // Every value is a parameter and every filter a fixed fragment, so each combination of filters is one
  // statement text, prepared once per pooled connection (db/prepared.ts).
  const values: unknown[] = [];
  const parameter = (value: unknown) => `$${values.push(value)}`;
  const conditions = [
    `v.tenant_id = ${parameter(tenant)}`,
    `v.branch_id = any(${parameter(filter.branchIds)}::int[])`,
  ];
  if (filter.search) {
    const like = parameter(`%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    conditions.push(`(v.code ilike ${like} or v.license_plate ilike ${like})`);
  }
  if (filter.categoryId) conditions.push(`v.category_id = ${parameter(filter.categoryId)}`);
  for (const [column, states] of [
    ['service_state_v2', filter.serviceStatesV2],
    ['rental_state', filter.rentalStates],
  ] as const)
    if (states) conditions.push(`v.${column} = any(${parameter(states)}::text[])`);
  if (filter.offline !== undefined) conditions.push(`v.offline = ${parameter(filter.offline)}`);
  if (filter.tag) conditions.push(`v.tags @> ${parameter(JSON.stringify([filter.tag]))}::jsonb`);
  const where = conditions.join(' and ');
  const direction = sort.direction === 'desc' ? 'desc' : 'asc';
  const order =
    sort.field === 'id'
      ? `v.id ${direction}`
      : `v.${sortColumns[sort.field]} ${direction}, v.id ${direction}`;
  const filterValues = [...values];
  const rows = await preparedTuples<VehiclePageRow>(
    em,
    `select (select count(*) from vehicle v where ${where}) as total_count, ${pageColumns}
       from vehicle v left join iot_module m on m.tenant_id = v.tenant_id and m.vehicle_id = v.id
      where ${where} order by ${order} limit ${parameter(page.limit)} offset ${parameter(page.offset)}`,
    values,
  );
  let total = rows.length ? Number(rows[0]![0]) : 0;
  if (!rows.length && page.offset > 0) {
    const [count] = await preparedRows<{ total_count: string }>(
      em,
      `select count(*) as total_count from vehicle v where ${where}`,
      filterValues,
    );
    total = Number(count!.total_count);
  }
  // Timestamps as the entities read them (the driver hands them over as text).
  const platform = em.getPlatform();
  const instant = (value: string) => platform.parseDate(value);
  return {
    total,
    // Column positions as in VehiclePageRow (the select list's order).
    vehicles: rows.map((row) => ({
      vehicle: {
        id: row[1],
        code: row[2],
        licensePlate: row[3],
        branch: { id: row[4] },
        category: { id: row[5] },
        rentalState: row[6],
        serviceStateV2: row[7],
        stateOfCharge: row[8],
        iotStateOfCharge: row[9],
        iotModuleLevel: row[10],
        powerState: row[11],
        offline: row[12],
        locked: row[13],
        charging: row[14],
        latitude: row[15],
        longitude: row[16],
        odometerKm: row[17],
        speedKmh: row[18],
        hdop: row[19],
        maxSpeedKmh: row[20],
        lastSeenAt: row[21] === null ? null : instant(row[21]),
        legalInspectionDate: row[22],
        tags: row[23],
        customProperties: row[24],
        virtual: row[25],
        createdAt: instant(row[26]),
        updatedAt: instant(row[27]),
      },
      module:
        row[28] === null
          ? undefined
          : {
              id: row[28],
              externalId: row[29],
              name: row[30],
              iccid: row[31],
              state: row[32],
              vehicleId: row[1],
              createdAt: instant(row[33]),
              updatedAt: instant(row[34]),
            },
    })),
  };
}
