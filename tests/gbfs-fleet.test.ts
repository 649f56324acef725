// GBFS at fleet scale (docs/feeds.md): a generated fleet of 5,000 vehicles in every rental state, in
// service states on and off the street, charged, flat, offline, without position and docked at a physical
// station, published through both versions; every file validated against MobilityData's official schemas,
// and what each state becomes in the feeds checked one by one.
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoFeedSystemId } from '../db/seed/feeds.js';
import { GbfsSnapshots } from '../api/feeds/gbfs-snapshots.js';
import { gbfsModel, type GbfsSource, type GbfsVehicleRow } from '../domain/gbfs-model.js';
import { renderV2, renderV3 } from '../domain/gbfs-render.js';
import { allFeedFiles, gbfsSchemaErrors, getFeed } from './support/gbfs.js';
import { type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';

process.env.FEEDS_REALTIME_TTL_SECONDS = '0';
process.env.FEEDS_STATIC_TTL_SECONDS = '0';
process.env.FEEDS_CHECK_INTERVAL_MS = '100';

const FLEET = 5000;
const rentalStates = ['AVAILABLE', 'RESERVATION', 'DRIVING', 'PARKING', 'DELIVERED'];
const serviceStates = [
  'FUNCTIONAL',
  'FUNCTIONAL',
  'FUNCTIONAL',
  'SERVICE_ON_SITE',
  'SERVICE_WORKSHOP',
  'RETIRED',
  'RELOCATE',
];

let session: Session;
let stack: HttpStack;
let seed: SeededTenant;
let stationId: number;

beforeAll(async () => {
  session = await startSession();
  ({ stack, seed } = session);
  const connection = tenantEm(stack.backend.orm, seed.tenant).getConnection();
  // Vehicle g: rental state g % 5, service state g % 7, a charge of 0–99 % (none every 11th), offline every
  // 13th, charging every 17th, no position every 19th; categories in turn; half in the district, half in the city.
  await connection.execute(
    `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
       power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at, virtual,
       state_of_charge, latitude, longitude, last_seen_at, last_report_at)
     select ?, 'GBFS-' || g, case when g % 2 = 0 then ? else ? end,
       (select id from vehicle_category where tenant_id = ? order by id offset (g % 3) limit 1),
       (array['AVAILABLE','RESERVATION','DRIVING','PARKING','DELIVERED'])[g % 5 + 1],
       (array['FUNCTIONAL','FUNCTIONAL','FUNCTIONAL','SERVICE_ON_SITE','SERVICE_WORKSHOP','RETIRED','RELOCATE'])[g % 7 + 1],
       'HIGH', 'OFF', g % 13 = 0, true, g % 17 = 0, '[]', '{}', now(), now(), false,
       case when g % 11 = 0 then null else g % 100 end,
       case when g % 19 = 0 then null else 52.45 + (g % 200) / 1000.0 end,
       case when g % 19 = 0 then null else 13.3 + (g % 300) / 1000.0 end,
       now(), now() - (g % 600) * interval '1 second'
     from generate_series(1, ?) g`,
    [seed.tenant, seed.branchId, seed.cityBranchId, seed.tenant, FLEET],
  );
  // A physical station with 12 slots: 8 holding generated vehicles (AVAILABLE and FUNCTIONAL ones), 1 out of order.
  const [station] = await connection.execute<{ id: number }[]>(
    `insert into physical_station (tenant_id, branch_id, name, state, latitude, longitude, address, description, images)
     values (?, ?, 'Feeds dock', 'OPERATIONAL', 52.52, 13.405, 'Dockstraße 1', '{}', '[]') returning id`,
    [seed.tenant, seed.branchId],
  );
  stationId = station!.id;
  await connection.execute(
    `insert into physical_station_slot (tenant_id, physical_station_id, number, state, vehicle_id, connected_at)
     select ?, ?, n, case when n = 12 then 'OUT_OF_ORDER' when n <= 8 then 'OCCUPIED' else 'VACANT' end,
            (select id from vehicle where tenant_id = ? and code = 'GBFS-' || (n * 70) ), case when n <= 8 then now() end
     from generate_series(1, 12) n`,
    [seed.tenant, stationId, seed.tenant],
  );
  await connection.execute(
    `update physical_station_slot set vehicle_id = null where tenant_id = ? and number > 8`,
    [seed.tenant],
  );
  await connection.execute('analyze vehicle');
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

test('every file of both versions is valid for a fleet of 5,000 vehicles in several states', async () => {
  const { bodies, errors } = await allFeedFiles(stack.baseUrl, seed.tenant, demoFeedSystemId);
  expect(errors).toEqual({});
  const vehicles = bodies.get('v3/vehicle_status').data.vehicles as {
    vehicle_id: string;
    is_reserved: boolean;
    is_disabled: boolean;
    station_id?: string;
    lat?: number;
  }[];
  const bikes = bodies.get('v2/free_bike_status').data.bikes as { bike_id: string; is_reserved: boolean }[];
  // Listed: not in a trip (DRIVING, PARKING) and on the street (not SERVICE_WORKSHOP, RETIRED).
  let expected = 0;
  let reserved = 0;
  for (let g = 1; g <= FLEET; g += 1) {
    const rental = rentalStates[g % 5]!;
    const service = serviceStates[g % 7]!;
    if (rental === 'DRIVING' || rental === 'PARKING') continue;
    if (service === 'SERVICE_WORKSHOP' || service === 'RETIRED') continue;
    const docked = g % 70 === 0 && g / 70 <= 8;
    if (g % 19 === 0 && !docked) continue;
    expected += 1;
    if (rental === 'RESERVATION' || rental === 'DELIVERED') reserved += 1;
  }
  const mine = await generatedIds();
  const generated = vehicles.filter((v) => mine.has(v.vehicle_id)).length;
  expect(generated).toBe(expected);
  expect(bikes.length).toBe(vehicles.length);
  expect(new Set(vehicles.map((v) => v.vehicle_id)).size).toBe(vehicles.length);
  expect(vehicles.filter((v) => v.is_reserved && mine.has(v.vehicle_id)).length).toBe(reserved);
  expect(bikes.filter((v) => v.is_reserved).length).toBe(vehicles.filter((v) => v.is_reserved).length);
  // Disabled: out of order (SERVICE_ON_SITE), flat, offline or unknown charge, whatever the reservation.
  expect(vehicles.filter((v) => v.is_disabled).length).toBeGreaterThan(FLEET / 10);
  // The dock: its docked vehicles carry its station id; its counts add up.
  const dockId = `ps-${stationId}`;
  const docked = vehicles.filter((v) => v.station_id === dockId);
  expect(docked.length).toBeGreaterThan(0);
  const status = (bodies.get('v3/station_status').data.stations as { station_id: string }[]).find(
    (s) => s.station_id === dockId,
  ) as Record<string, unknown>;
  expect(status).toMatchObject({
    num_docks_available: 3,
    num_docks_disabled: 1,
    is_renting: true,
    is_returning: true,
    num_vehicles_available: docked.filter((v) => !v.is_reserved && !v.is_disabled).length,
  });
  const info = (bodies.get('v3/station_information').data.stations as { station_id: string }[]).find(
    (s) => s.station_id === dockId,
  );
  expect(info).toMatchObject({ capacity: 12, is_virtual_station: false, address: 'Dockstraße 1' });
  // Both versions list the same vehicles under the same ids.
  expect(new Set(bikes.map((b) => b.bike_id))).toEqual(new Set(vehicles.map((v) => v.vehicle_id)));
  const { headers } = await getFeed(
    stack.baseUrl,
    `/v1/${seed.tenant}/gbfs/${demoFeedSystemId}/v3/vehicle_status.json`,
  );
  expect(headers.get('etag')).toBeTruthy();
}, 120_000);

test('a snapshot serves stored bytes; a change replaces them, never before last_updated + ttl', async () => {
  const store = new GbfsSnapshots(stack.backend.orm, 'https://feeds.example', {
    realtimeTtlSeconds: 2,
    staticTtlSeconds: 60,
    checkIntervalMs: 50,
  });
  const read = (file: string) => store.file(seed.tenant, demoFeedSystemId, 'v3', file);
  const first = (await read('vehicle_status'))!;
  const info = (await read('system_information'))!;
  expect(await read('vehicle_status')).toBe(first);
  expect(JSON.parse(first.body.toString())).toMatchObject({ ttl: 2, version: '3.0' });
  await tenantEm(stack.backend.orm, seed.tenant)
    .getConnection()
    .execute(`update vehicle set latitude = latitude + 0.001 where tenant_id = ? and code = 'GBFS-1'`, [
      seed.tenant,
    ]);
  let changed = first;
  const started = Date.now();
  while (changed === first && Date.now() - started < 15_000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    changed = (await read('vehicle_status'))!;
  }
  const seenAt = Date.now();
  expect(changed).not.toBe(first);
  // Not before the promise of the old bytes ran out; the new ones say when they were made.
  expect(seenAt).toBeGreaterThanOrEqual(first.lastUpdated.getTime() + 2000);
  expect(changed.etag).not.toBe(first.etag);
  expect(changed.lastUpdated.getTime()).toBeGreaterThanOrEqual(first.lastUpdated.getTime() + 2000);
  expect(Date.parse(JSON.parse(changed.body.toString()).last_updated)).toBe(changed.lastUpdated.getTime());
  // A file whose data did not change keeps its bytes, last_updated and ETag.
  expect(await read('system_information')).toBe(info);
}, 60_000);

/** The public ids of the generated vehicles (the feeds' id table, joined to the vehicles' codes). */
async function generatedIds(): Promise<Set<string>> {
  const rows = await tenantEm(stack.backend.orm, seed.tenant)
    .getConnection()
    .execute<{ public_id: string }[]>(
      `select f.public_id from feed_vehicle_id f join vehicle v on v.id = f.vehicle_id
        where f.tenant_id = ? and v.code like 'GBFS-%'`,
      [seed.tenant],
    );
  return new Set(rows.map((row) => row.public_id));
}

describe('the model, rule by rule (pure)', () => {
  const configuration = { socLevels: { high: 50, medium: 20, low: 10 } };
  const vehicle = (publicId: string, fields: Partial<GbfsVehicleRow> = {}): GbfsVehicleRow => ({
    publicId,
    branchId: 2,
    categoryId: 7,
    latitude: 52.5,
    longitude: 13.4,
    rentalState: 'AVAILABLE',
    serviceStateV2: 'FUNCTIONAL',
    stateOfCharge: 80,
    iotStateOfCharge: null,
    iotModuleLevel: null,
    offline: false,
    charging: false,
    lastReportAt: new Date('2026-12-01T10:00:00Z'),
    heldByBooking: false,
    dockedAt: null,
    ...fields,
  });
  const square = {
    type: 'MultiPolygon' as const,
    coordinates: [
      [
        [
          [13.3, 52.4],
          [13.5, 52.4],
          [13.5, 52.6],
          [13.3, 52.6],
          [13.3, 52.4],
        ],
      ],
    ],
  };
  const source: GbfsSource = {
    tenant: 't',
    system: {
      systemId: 'x',
      name: 'X',
      shortName: null,
      operatorName: null,
      url: null,
      purchaseUrl: null,
      phoneNumber: null,
      email: null,
      feedContactEmail: 'feeds@example.org',
      startDate: null,
      licenseUrl: null,
      attributionOrganizationName: null,
      attributionUrl: null,
      privacyUrl: null,
      termsUrl: null,
      rentalApps: null,
      language: 'en',
      timezone: 'Europe/Berlin',
      openingHours: '24/7',
    },
    rootBranchId: 1,
    branches: [
      { id: 1, name: 'City', parentId: null, state: 'OPERATIONAL' },
      { id: 2, name: 'District', parentId: 1, state: 'OPERATIONAL' },
    ],
    systemBranchIds: [1, 2],
    vehicleTypes: [7, 8].map((categoryId) => ({
      categoryId,
      categoryName: `Category ${categoryId}`,
      categoryBookable: true,
      configuration,
      formFactor: 'scooter_standing' as const,
      propulsionType: 'electric' as const,
      maxRangeMeters: 30000,
      riderCapacity: 1,
      make: null,
      model: null,
      wheelCount: 2,
      maxPermittedSpeedKmh: 20,
    })),
    vehicles: [
      vehicle('ready'),
      vehicle('held', { heldByBooking: true }),
      vehicle('delivered', { rentalState: 'DELIVERED' }),
      vehicle('reserved', { rentalState: 'RESERVATION' }),
      vehicle('driving', { rentalState: 'DRIVING' }),
      vehicle('parking', { rentalState: 'PARKING' }),
      vehicle('workshop', { serviceStateV2: 'SERVICE_WORKSHOP' }),
      vehicle('flat', { stateOfCharge: 5 }),
      vehicle('offline', { offline: true }),
      vehicle('nowhere', { latitude: null, longitude: null }),
      vehicle('unmapped', { categoryId: 99 }),
    ],
    stations: [],
    physicalStations: [],
    areas: [
      {
        id: 'a1',
        name: 'Business area',
        vehicleTypeIds: [],
        geofence: square,
        policies: [
          { type: 'ALLOW_END_RENTAL_POLICY' },
          {
            type: 'SPEED_LIMIT_POLICY',
            speedLimit: 20,
            speedLimitOverrides: [{ vehicleCategoryId: 8, speedLimit: 12 }],
          },
        ],
      },
      {
        id: 'a2',
        name: 'Only 8',
        vehicleTypeIds: [8],
        geofence: square,
        policies: [{ type: 'NO_END_RENTAL_POLICY' }],
      },
      {
        id: 'a3',
        name: 'Notice only',
        vehicleTypeIds: [],
        geofence: square,
        policies: [{ type: 'NOTICE_AREA_POLICY' }],
      },
    ],
    pricing: [
      {
        bundleId: 3,
        name: 'Miles',
        description: null,
        type: 'ON_DEMAND_LEGACY',
        currency: 'USD',
        distanceUnit: 'MILE',
        version: 1,
        rules: {
          pricesIncludeTax: true,
          freeFloatingPricingMode: null,
          booking: null,
          onDemand: {
            unlockFee: '1.00',
            reservationPerMinute: '0',
            timeSlots: [
              { fromMinute: 0, drivingPerMinute: '0.39', parkingPerMinute: '0.10' },
              { fromMinute: 30, drivingPerMinute: '0.29', parkingPerMinute: '0.10' },
            ],
            distancePerUnit: '1.609344',
            includedDistance: 10,
            billingIncrementMinutes: 1,
            minimumPrice: '0',
          },
        },
      },
    ],
    assignments: [{ branchId: 1, categoryId: 7, bundleId: 3, bundleType: 'ON_DEMAND_LEGACY' }],
  };

  test('availability, pricing and zones of a synthetic system, valid in both versions', () => {
    const model = gbfsModel(source, new Date('2026-12-01T12:00:00Z'));
    const byId = new Map(model.vehicles.map((v) => [v.id, v]));
    expect([...byId.keys()].sort()).toEqual(['delivered', 'flat', 'held', 'offline', 'ready', 'reserved']);
    expect(byId.get('ready')).toMatchObject({
      isReserved: false,
      isDisabled: false,
      pricingPlanId: 'plan-3',
    });
    for (const id of ['held', 'delivered', 'reserved']) expect(byId.get(id)!.isReserved).toBe(true);
    for (const id of ['flat', 'offline']) expect(byId.get(id)!.isDisabled).toBe(true);
    expect(byId.get('ready')).toMatchObject({ currentFuelPercent: 0.8, currentRangeMeters: 24000 });

    const [plan] = model.plans;
    expect(plan).toMatchObject({
      id: 'plan-3',
      price: 1,
      isTaxable: false,
      perMin: [
        { start: 0, rate: 0.39, interval: 1, end: 30 },
        { start: 30, rate: 0.29, interval: 1 },
      ],
      perKm: [{ start: 17, rate: 1, interval: 1 }],
    });

    const [business, only8] = model.zones;
    expect(business!.rules).toEqual([
      {
        vehicleTypeIds: ['cat-8'],
        rideStartAllowed: true,
        rideEndAllowed: true,
        rideThroughAllowed: true,
        maximumSpeedKph: 12,
      },
      {
        vehicleTypeIds: null,
        rideStartAllowed: true,
        rideEndAllowed: true,
        rideThroughAllowed: true,
        maximumSpeedKph: 20,
      },
    ]);
    expect(only8!.rules).toEqual([
      {
        vehicleTypeIds: ['cat-8'],
        rideStartAllowed: true,
        rideEndAllowed: false,
        rideThroughAllowed: true,
        maximumSpeedKph: null,
      },
    ]);
    expect(model.zones).toHaveLength(2);
    expect(model.globalRules[0]).toMatchObject({ vehicleTypeIds: ['cat-7', 'cat-8'], rideEndAllowed: false });

    const urls = {
      base: 'https://feeds.example/v1/t/gbfs/x',
      manifest: 'https://feeds.example/v1/t/gbfs/manifest.json',
    };
    const stamp = { last_updated: '2026-12-01T12:00:00Z', ttl: 0, version: '3.0' };
    for (const [file, data] of Object.entries(renderV3(model, urls, 't')))
      expect({ file, errors: gbfsSchemaErrors('v3', file, { ...stamp, data }) }).toEqual({
        file,
        errors: [],
      });
    const stamp2 = { last_updated: 1796126400, ttl: 0, version: '2.3' };
    for (const [file, data] of Object.entries(renderV2(model, urls, 't')))
      expect({ file, errors: gbfsSchemaErrors('v2', file, { ...stamp2, data }) }).toEqual({
        file,
        errors: [],
      });
  });

  test('a closed branch disables its vehicles and raises a system_closure alert', () => {
    const closed = {
      ...source,
      branches: source.branches.map((b) => (b.id === 2 ? { ...b, state: 'MAINTENANCE' } : b)),
    };
    const model = gbfsModel(closed, new Date('2026-12-01T12:00:00Z'));
    expect(model.vehicles.find((v) => v.id === 'ready')!.isDisabled).toBe(true);
    expect(model.alerts).toEqual([expect.objectContaining({ type: 'SYSTEM_CLOSURE', regionIds: ['br-2'] })]);
  });
});
