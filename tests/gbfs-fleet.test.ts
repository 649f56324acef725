// GBFS at fleet scale (docs/feeds.md): a generated fleet of 5,000 vehicles in every rental state, in
// service states on and off the street, charged, flat, offline, without position and docked at a physical
// station, published through both versions; every file validated against MobilityData's official schemas,
// and what each state becomes in the feeds checked one by one.
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoFeedSystemId } from '../db/seed/feeds.js';
import { allFeedFiles, getFeed } from './support/gbfs.js';
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
