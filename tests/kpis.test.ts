// KPIs over HTTP against the real database: a branch (and a child branch) of known vehicles, categories,
// business areas, stations, rentals, bookings, damages, tasks and settings, where every one of the
// eighteen KPI types has a value worked out by hand; the location KPIs are also checked against the
// geofence rules of domain/geofence.ts (turf) and AVAILABLE_VEHICLES against the vehicle list's
// ready-to-rent flag. Denials (permission, branch, tenant) and hostile input. Responses are validated
// against the document.
import { randomUUID } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Area } from '../db/entities/Area.js';
import { AreaType } from '../db/entities/AreaType.js';
import { Booking } from '../db/entities/Booking.js';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Customer } from '../db/entities/Customer.js';
import { Damage } from '../db/entities/Damage.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { Station } from '../db/entities/Station.js';
import { Task } from '../db/entities/Task.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { loadBranchGeofence } from '../db/areas.js';
import type { EntityManager } from '../db/orm.js';
import { geofenceVerdict, type GeofenceGeometry } from '../domain/geofence.js';
import { kpiTypes, type KpiType } from '../domain/insight.js';
import { stationContains } from '../domain/rental-requirements.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let vehicleReader: string;
let kpiOnElsewhere: string;

/** The fixture's rows, by the names the expectations use. */
const v: Record<string, Vehicle> = {};
const rentals: Record<string, number> = {};
const stations: Record<string, Station> = {};
let town: Branch;
let district: Branch;

const square = (west: number, south: number, east: number, north: number): number[][] => [
  [west, south],
  [east, south],
  [east, north],
  [west, north],
  [west, south],
];
/** Business area 1 (every category) with a hole, business area 2 (category B only), station S2's area. */
const area1: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [[square(13.4, 52.5, 13.42, 52.52), square(13.405, 52.505, 13.407, 52.507)]],
};
const area2: GeofenceGeometry = { type: 'MultiPolygon', coordinates: [[square(13.43, 52.5, 13.44, 52.51)]] };
const s2Area: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [[square(13.415, 52.515, 13.416, 52.516)]],
};

const hours = (n: number) => n * 3600 * 1000;

/** A back-interface API client holding a role with these permissions on a branch. */
async function clientWith(em: EntityManager, name: string, permissions: string[], branchId: number) {
  const role = em.create(Role, { name, permissions });
  em.create(ApiClient, {
    clientId: name,
    name,
    secretHash: await hashSecret(`${name}-secret`),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: name,
    branch: em.getReference(Branch, branchId),
  });
  return { clientId: name, clientSecret: `${name}-secret` };
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalkpi', name: 'Rival KPIs' } });
  operator = session.operatorToken;
  const { seed } = session;
  const em = session.em();
  const now = Date.now();
  const [{ midnight }] = await em.execute<[{ midnight: Date }]>(
    `select date_trunc('day', now() at time zone 'Europe/Berlin') at time zone 'Europe/Berlin' as midnight`,
  );
  // Ended "today" in Berlin whatever the hour the suite runs at.
  const today = new Date((new Date(midnight).getTime() + now) / 2);

  const unit = em.getReference(BusinessUnit, seed.businessUnitId);
  const city = em.getReference(Branch, seed.cityBranchId);
  town = em.create(Branch, {
    name: 'KPI town',
    code: 'KPI-TOWN',
    parent: city,
    businessUnit: unit,
    timeZoneId: 'Europe/Berlin',
  });
  district = em.create(Branch, {
    name: 'KPI district',
    code: 'KPI-DISTRICT',
    parent: town,
    businessUnit: unit,
    timeZoneId: 'Europe/Berlin',
  });
  const catA = em.create(VehicleCategory, { name: 'KPI A' });
  const catB = em.create(VehicleCategory, {
    name: 'KPI B',
    configuration: { chargingLimit: 90, socLevels: { high: 70, medium: 40, low: 15 } },
  });
  const catC = em.create(VehicleCategory, { name: 'KPI C', configuration: { ignoreSoC: true } });
  const catD = em.create(VehicleCategory, {
    name: 'KPI D',
    configuration: { useIoTBatteryLevel: true, ioTBatteryLevels: { high: 4.0, medium: 3.8, low: 3.6 } },
  });
  const catN = em.create(VehicleCategory, { name: 'KPI N', bookable: false });
  await em.flush();

  const vehicle = (
    name: string,
    category: VehicleCategory,
    fields: Partial<Vehicle> & { at?: [number, number] | null },
    branch = town,
  ) => {
    const { at, ...rest } = fields;
    v[name] = em.create(Vehicle, {
      code: `KPI-${name}`,
      branch,
      category,
      offline: false,
      // Reported just now: every test backend's ingestor marks vehicles silent for 5 minutes (or never
      // heard from) offline, across tenants, every 30 s.
      lastSeenAt: new Date(now),
      rentalState: 'AVAILABLE',
      serviceStateV2: 'FUNCTIONAL',
      latitude: at ? at[0] : null,
      longitude: at ? at[1] : null,
      ...rest,
    });
  };
  vehicle('v1', catA, { stateOfCharge: 80, at: [52.5101, 13.4101] }); // at S1
  vehicle('v2', catA, { stateOfCharge: 20, at: [52.506, 13.406] }); // low; in area 1's hole
  vehicle('v3', catA, { stateOfCharge: 90, offline: true, at: [52.505, 13.406] }); // on the hole's edge
  vehicle('v4', catB, { stateOfCharge: 85, charging: true, at: [52.53, 13.45] }); // on its charger; outside
  vehicle('v5', catA, { stateOfCharge: 85, charging: true, at: [52.5102, 13.4099] }); // at S1, over target
  vehicle('v6', catC, { stateOfCharge: null, at: [52.5155, 13.4155] }); // ignores SoC; in S2's area
  vehicle('v7', catN, { stateOfCharge: 50, at: null }); // category not bookable; no position
  vehicle('v8', catA, { stateOfCharge: 60, rentalState: 'DRIVING', at: [52.6, 13.6] }); // on-demand rental
  vehicle('v9', catA, { stateOfCharge: 70, rentalState: 'DRIVING', at: [52.6, 13.6] }); // overdue booking
  vehicle('v10', catA, { stateOfCharge: 30, serviceStateV2: 'RELOCATE', at: [52.512, 13.412] }); // at S6
  vehicle('v11', catA, { stateOfCharge: 5, serviceStateV2: 'SERVICE_WORKSHOP', at: [52.505, 13.435] }); // area 2 is B's
  vehicle('v12', catA, { stateOfCharge: 40, at: [52.519, 13.419] }); // new; critical damage; open task
  vehicle('v13', catA, { stateOfCharge: 10, serviceStateV2: 'RETIRED', at: [52.6, 13.6] }); // counts nowhere
  vehicle('v14', catA, { stateOfCharge: 10, virtual: true, at: [52.6, 13.6] }); // counts nowhere
  vehicle('v15', catD, { stateOfCharge: 90, iotModuleLevel: 3.7, at: [52.5, 13.4] }); // IoT level low; corner
  vehicle('v17', catB, { stateOfCharge: 75, at: [52.505, 13.435] }); // in area 2, which is B's
  vehicle('v16', catA, { stateOfCharge: 95, charging: true, at: [52.511, 13.401] }, district);

  const businessType = em.create(AreaType, {
    id: randomUUID(),
    name: 'KPI business area',
    style: { color: '#000000', lineThickness: 1, opacity: 0.5 },
    policyTypes: ['ALLOW_END_RENTAL_POLICY', 'NOTICE_AREA_POLICY'],
  });
  const area = (name: string, geofence: GeofenceGeometry, vehicleTypeIds: number[], allow = true) =>
    em.create(Area, {
      id: randomUUID(),
      name,
      branch: town,
      areaType: businessType,
      geofence,
      vehicleTypeIds,
      policies: [{ type: allow ? 'ALLOW_END_RENTAL_POLICY' : 'NOTICE_AREA_POLICY' }],
    });
  area('area 1', area1, []);
  area('area 2', area2, [catB.id]);
  // A notice area covering v4 and v11 is no business area.
  area('notice', { type: 'MultiPolygon', coordinates: [[square(13.42, 52.5, 13.5, 52.6)]] }, [], false);
  const station = (name: string, fields: Partial<Station>) => {
    stations[name] = em.create(Station, {
      name,
      branch: town,
      type: 'VIRTUAL',
      latitude: 52.51,
      longitude: 13.41,
      ...fields,
    });
  };
  station('S1', { capacity: 2, radius: 50 });
  station('S2', { type: 'DOCKING', capacity: 1, latitude: 52.5155, longitude: 13.4155, area: s2Area });
  station('S3', { type: 'RECOMMENDED', capacity: null, radius: 5000 });
  station('S4', { capacity: 1, radius: 5000, state: 'INACTIVE' });
  station('S5', { capacity: 1, radius: 5000, validUntil: new Date(now - hours(1)) });
  station('S6', { type: 'PROMOTION', capacity: 5, radius: 100, latitude: 52.512, longitude: 13.412 });
  em.create(Setting, {
    key: 'insight.kpis',
    name: 'KPI thresholds of the KPI town',
    area: 'DASHBOARD',
    valueType: 'JSON',
    branchIds: [town.id],
    value: { idleAfterHours: 72 },
  });
  em.create(Setting, {
    key: 'insight.kpis',
    name: 'KPI thresholds of the KPI district',
    area: 'DASHBOARD',
    valueType: 'JSON',
    branchIds: [district.id],
    value: { idleAfterHours: 24, chargingTargetPercent: 50 },
  });
  await em.flush();

  const customers = seed.customerIds.map((id) => em.getReference(Customer, id));
  const nextId = async (sequence: string) =>
    (await em.execute<[{ id: number }]>(`select nextval('${sequence}')::int as id`))[0].id;
  const rental = async (name: string, fields: Partial<Rental> & { vehicle: Vehicle }, branch = town) => {
    const id = await nextId('rental_id_seq');
    rentals[name] = id;
    return em.create(Rental, {
      id,
      workflowId: `kpi-rental-${id}`,
      branch,
      customer: customers[0]!,
      reservedAt: new Date(now - hours(200)),
      state: 'ENDED',
      ...fields,
    });
  };
  await rental('r1', { vehicle: v.v1!, startedAt: new Date(now - hours(30)), endedAt: today });
  await rental('r2', { vehicle: v.v1!, state: 'CANCELLED', endedAt: today });
  await rental('r3', {
    vehicle: v.v1!,
    state: 'ENDED_NO_MOVEMENT',
    startedAt: new Date(now - hours(30)),
    endedAt: today,
  });
  await rental('r4', {
    vehicle: v.v3!,
    startedAt: new Date(now - hours(100)),
    endedAt: new Date(now - hours(60)),
  });
  // A reservation of v2 that never started is no activity (v2 stays idle).
  await rental('r8', { vehicle: v.v2!, state: 'EXPIRED', endedAt: new Date(now - hours(60)) });
  await rental('r5', {
    vehicle: v.v8!,
    state: 'ACTIVE',
    customer: customers[2]!,
    startedAt: new Date(now - hours(0.2)),
  });
  const bookedRental = await rental('r6', {
    vehicle: v.v9!,
    state: 'ACTIVE',
    customer: customers[3]!,
    startedAt: new Date(now - hours(3)),
  });
  await rental(
    'r7',
    { vehicle: v.v16!, startedAt: new Date(now - hours(31)), endedAt: new Date(now - hours(30)) },
    district,
  );
  const booking = async (fields: Partial<Booking> & { vehicle: Vehicle; startTime: Date; endTime: Date }) => {
    const id = await nextId('booking_id_seq');
    em.create(Booking, {
      id,
      workflowId: `kpi-booking-${id}`,
      state: 'DELIVERED',
      customer: customers[3]!,
      branch: town,
      endBranch: town,
      vehicleCategory: catA,
      heldFrom: fields.startTime,
      heldUntil: fields.endTime,
      ...fields,
    });
  };
  await booking({
    vehicle: v.v9!,
    startTime: new Date(now - hours(4)),
    endTime: new Date(now - hours(1)),
    rental: bookedRental,
    pickedUpAt: new Date(now - hours(3)),
    overdueSince: new Date(now - hours(0.5)),
  });
  await booking({ vehicle: v.v10!, startTime: new Date(now + hours(2)), endTime: new Date(now + hours(4)) });
  const damage = (vehicle: Vehicle, state: Damage['state'], severity: Damage['severity']) =>
    em.create(Damage, {
      vehicleId: vehicle.id,
      branchId: town.id,
      part: 'deck',
      reportedBy: 'test',
      state,
      severity,
    });
  damage(v.v11!, 'APPROVED', 'HIGH');
  damage(v.v12!, 'NEW', 'CRITICAL');
  damage(v.v15!, 'REPAIRED', 'CRITICAL');
  damage(v.v13!, 'NEW', 'CRITICAL');
  const task = (vehicle: Vehicle, taskState: Task['taskState']) =>
    em.create(Task, { title: 'Check', branchId: town.id, vehicleId: vehicle.id, taskState });
  task(v.v12!, 'IN_PROGRESS');
  task(v.v2!, 'NEW');
  task(v.v15!, 'COMPLETED');
  task(v.v13!, 'NEW');

  const readers = [
    await clientWith(em, 'kpi-vehicle-reader', ['VEHICLE_READ'], seed.cityBranchId),
    await clientWith(em, 'kpi-elsewhere', ['KPI_READ'], seed.otherBranchId),
  ];
  await em.flush();
  // Every vehicle but v12 has been in the fleet for ten days (the column is set on insert).
  await em.execute(`update vehicle set created_at = ? where id in (?)`, [
    new Date(now - hours(240)),
    Object.entries(v)
      .filter(([name]) => name !== 'v12')
      .map(([, row]) => row.id),
  ]);
  [vehicleReader, kpiOnElsewhere] = await Promise.all(
    readers.map((client) => session.stack.token(seed.tenant, client)),
  );
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

const back = (path: string) => session.stack.back(path);
const kpis = (query: string, token = operator) =>
  session.stack.call('GET', back(`/kpis?${query}`), { token });
const ids = (...names: string[]) => names.map((name) => v[name]!.id).sort((a, b) => a - b);

interface Expected {
  total: number;
  value: number | null;
  ids: number[];
}

/** The hand-worked values for the KPI town alone. */
function expectedForTown(): Record<KpiType, Expected> {
  const count = (total: number, ...names: string[]): Expected => ({
    total,
    value: names.length,
    ids: ids(...names),
  });
  return {
    AVAILABLE_VEHICLES: count(14, 'v1', 'v5', 'v6', 'v10', 'v12', 'v17'),
    LOW_BATTERY_VEHICLES: count(14, 'v2', 'v11', 'v15'),
    OFFLINE_VEHICLES: count(14, 'v3'),
    // (80+20+90+85+85+50+60+70+30+5+40+90+75) / 13: v6 reports no state of charge.
    AVERAGE_STATE_OF_CHARGE: {
      total: 14,
      value: 60,
      ids: ids('v1', 'v2', 'v3', 'v4', 'v5', 'v7', 'v8', 'v9', 'v10', 'v11', 'v12', 'v15', 'v17'),
    },
    VEHICLES_IN_SERVICE: count(14, 'v11'),
    VEHICLES_TO_RELOCATE: count(14, 'v10'),
    // Of the AVAILABLE, rentable-state vehicles, those without a rental started or ended in 72 hours (the
    // town's setting) and older than that: v1 ended one today, v3 one 60 hours ago, v12 is new.
    IDLE_VEHICLES: count(11, 'v2', 'v4', 'v5', 'v6', 'v7', 'v10', 'v15', 'v17'),
    // Of the charging v4 and v5: v4's category target is 90 (it is at 85), v5 reaches the default 80.
    VEHICLES_CHARGING_OVER_TARGET_LEVEL: count(2, 'v5'),
    // Positioned, not driving: v2 in the hole, v4 nowhere, v11 only in category B's area.
    VEHICLES_OUTSIDE_BUSINESS_AREAS: count(11, 'v2', 'v4', 'v11'),
    // AVAILABLE and positioned, in a branch with return stations: only v1, v5 (S1) and v6 (S2) are at one.
    VEHICLES_OUTSIDE_ON_DEMAND_STATION: count(11, 'v2', 'v3', 'v4', 'v10', 'v11', 'v12', 'v15', 'v17'),
    ON_DEMAND_STATIONS_AT_FULL_CAPACITY: {
      total: 3,
      value: 2,
      ids: [stations.S1!.id, stations.S2!.id].sort((a, b) => a - b),
    },
    VEHICLES_IN_ACTIVE_BOOKINGS: count(14, 'v9'),
    VEHICLES_IN_ACTIVE_ON_DEMAND_RENTALS: count(14, 'v8'),
    VEHICLES_IN_OVERDUE_BOOKINGS: count(14, 'v9'),
    SUCCESSFULLY_ENDED_RENTALS_TODAY: { total: 3, value: 1, ids: [rentals.r1!] },
    VEHICLES_WITH_OPEN_DAMAGE: count(14, 'v11', 'v12'),
    VEHICLES_WITH_CRITICAL_NEW_DAMAGE: count(14, 'v12'),
    VEHICLES_WITH_OPEN_TASK: count(14, 'v2', 'v12'),
  };
}

const entityOf = (type: KpiType) =>
  type === 'ON_DEMAND_STATIONS_AT_FULL_CAPACITY'
    ? 'ON_DEMAND_STATION'
    : type === 'SUCCESSFULLY_ENDED_RENTALS_TODAY'
      ? 'RENTAL'
      : 'VEHICLE';

const asExpected = (expected: Record<KpiType, Expected>) =>
  kpiTypes.map((type) => ({
    type,
    total: expected[type].total,
    value: expected[type].value,
    entity: entityOf(type),
    entityIds: expected[type].ids,
  }));

describe('KPIs', () => {
  test('every type of a branch has its hand-worked value', async () => {
    const reply = await kpis(`branchId=${town.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(asExpected(expectedForTown()));
  });

  test('includeChildBranches adds the child branch with its own settings', async () => {
    const expected = expectedForTown();
    const add = (type: KpiType, total: number, hit: boolean) => {
      const entry = expected[type];
      entry.total += total;
      if (hit) {
        entry.value = (entry.value ?? 0) + 1;
        entry.ids = [...entry.ids, v.v16!.id].sort((a, b) => a - b);
      }
    };
    for (const type of kpiTypes) if (entityOf(type) === 'VEHICLE') add(type, 1, false);
    add('AVAILABLE_VEHICLES', 0, true);
    // v16 reports 95: (780 + 95) / 14.
    expected.AVERAGE_STATE_OF_CHARGE = {
      total: 15,
      value: 62.5,
      ids: [...expected.AVERAGE_STATE_OF_CHARGE.ids, v.v16!.id].sort((a, b) => a - b),
    };
    // The district's 24 hours make v16 (its rental ended 30 hours ago) idle; its target of 50 % is passed.
    add('IDLE_VEHICLES', 0, true);
    add('VEHICLES_CHARGING_OVER_TARGET_LEVEL', 0, true);
    // In area 1 (its parent's): looked at, not outside. The district has no return station: not looked at.
    expected.VEHICLES_OUTSIDE_ON_DEMAND_STATION.total -= 1;
    const reply = await kpis(`branchId=${town.id}&includeChildBranches=true`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(asExpected(expected));
  });

  test('type narrows the answer, in the spec order', async () => {
    const reply = await kpis(`branchId=${town.id}&type=IDLE_VEHICLES&type=AVAILABLE_VEHICLES`);
    expect(reply.status).toBe(200);
    expect(reply.body.map((kpi: { type: string }) => kpi.type)).toEqual([
      'AVAILABLE_VEHICLES',
      'IDLE_VEHICLES',
    ]);
    const expected = expectedForTown();
    expect(reply.body[1]).toEqual(
      expect.objectContaining({ total: 11, entityIds: expected.IDLE_VEHICLES.ids }),
    );
    // Each type alone answers what it answers among all (its own statement).
    for (const type of kpiTypes) {
      const alone = await kpis(`branchId=${town.id}&type=${type}`);
      expect([type, alone.body]).toEqual([type, asExpected(expected).filter((kpi) => kpi.type === type)]);
    }
  });

  test('the location KPIs agree with the geofence rules, AVAILABLE_VEHICLES with the vehicle list', async () => {
    const em = session.em();
    const [body] = [(await kpis(`branchId=${town.id}`)).body as { type: string; entityIds: number[] }[]];
    const idsOf = (type: string) => body.find((kpi) => kpi.type === type)!.entityIds;
    const fleet = Object.values(v).filter(
      (vehicle) => vehicle.branch.id === town.id && !vehicle.virtual && vehicle.serviceStateV2 !== 'RETIRED',
    );
    const prepared = await loadBranchGeofence(em, session.seed.tenant, town.id);
    const outside = fleet.filter(
      (vehicle) =>
        vehicle.latitude != null &&
        vehicle.rentalState !== 'DRIVING' &&
        geofenceVerdict(prepared, {
          position: { lat: vehicle.latitude, lng: vehicle.longitude! },
          vehicleCategoryId: vehicle.category.id,
        }).endRental.refusal === 'OUTSIDE_END_RENTAL_AREA',
    );
    expect(idsOf('VEHICLES_OUTSIDE_BUSINESS_AREAS')).toEqual(outside.map((x) => x.id).sort((a, b) => a - b));
    const returns = [stations.S1!, stations.S2!].map((station) => ({
      id: station.id,
      position: { lat: station.latitude, lng: station.longitude },
      radiusMeters: station.radius ?? null,
      area: station.area ?? null,
    }));
    const away = fleet.filter(
      (vehicle) =>
        vehicle.latitude != null &&
        vehicle.rentalState === 'AVAILABLE' &&
        !returns.some((station) =>
          stationContains(station, { lat: vehicle.latitude!, lng: vehicle.longitude! }),
        ),
    );
    expect(idsOf('VEHICLES_OUTSIDE_ON_DEMAND_STATION')).toEqual(away.map((x) => x.id).sort((a, b) => a - b));
    const list = await session.stack.call('GET', back(`/vehicles?branchId=${town.id}&size=100`), {
      token: operator,
    });
    expect(list.status).toBe(200);
    const available = (
      list.body as { id: number; available: boolean; serviceStateV2: string; virtual?: boolean }[]
    )
      .filter((vehicle) => vehicle.available)
      .map((vehicle) => vehicle.id)
      .sort((a, b) => a - b);
    expect(idsOf('AVAILABLE_VEHICLES')).toEqual(available);
  });

  test('denials: permission, branch, tenant, no token', async () => {
    expectError(await kpis(`branchId=${town.id}`, vehicleReader), 403, 'AUTH002');
    // KPI_READ on the sibling branch is not KPI_READ on the town.
    expectError(await kpis(`branchId=${town.id}`, kpiOnElsewhere), 403, 'AUTH002');
    expect((await kpis(`branchId=${session.seed.otherBranchId}`, kpiOnElsewhere)).status).toBe(200);
    expectError(await kpis(`branchId=${session.seed.otherBranchId}`), 403, 'AUTH002');
    // Another tenant's branch does not exist here; the rival's operator cannot read ours either.
    expectError(await kpis(`branchId=${session.rival.cityBranchId}`), 404, 'B404');
    expectError(
      await session.stack.call('GET', `/v1/${session.rival.tenant}/back/kpis?branchId=${town.id}`, {
        token: session.rivalOperatorToken,
      }),
      404,
      'B404',
    );
    expectError(await session.stack.call('GET', back(`/kpis?branchId=${town.id}`)), 401, 'JWT006');
  });

  test('hostile input answers 400 0022', async () => {
    const cases = [
      '',
      'branchId=0x1',
      'branchId=1e3',
      'branchId=0',
      'branchId=-1',
      'branchId=2147483648',
      'branchId=abc',
      `branchId=${encodeURIComponent('1\u0000')}`,
      `branchId=${town.id}&branchId=${town.id}`,
      `branchId=${town.id}&includeChildBranches=maybe`,
      `branchId=${town.id}&includeChildBranches=1`,
      `branchId=${town.id}&type=BOGUS`,
      `branchId=${town.id}&type=available_vehicles`,
      `branchId=${town.id}&type=IDLE_VEHICLES&type=IDLE_VEHICLES`,
      `branchId=${town.id}&type=${encodeURIComponent('IDLE_VEHICLES\u0000')}`,
      `branchId=${town.id}&type=`,
      `branchId=${town.id}&unknown=1`,
    ];
    const replies: [string, number, string][] = [];
    for (const query of cases) {
      const reply: Reply = await kpis(query);
      replies.push([query, reply.status, reply.body?.errorCode]);
    }
    expect(replies).toEqual(cases.map((query) => [query, 400, '0022']));
  });
});
