// The MDS provider over a generated fleet (docs/mds.md): 5,000 vehicles more in the seeded tenant's
// published system, in every rental, service, battery and connectivity state, with a past hour of
// telemetry, ended rentals and state-changing events. Every page of every endpoint is valid under the
// vendored official schemas, the pages add up to the fleet, and the states come out as the table says.
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { tenantEm } from '../db/orm.js';
import type { MdsMode } from '../domain/mds.js';
import type { HttpStack } from './support/http.js';
import { agencyToken, allPages, expectValidMds, modesOf } from './support/mds.js';
import type { MdsOperation } from './support/mds-schemas.js';
import { startSession, type Session } from './support/session.js';

const FLEET = 5_000;
const HOUR_MS = 3_600_000;
let session: Session;
let stack: HttpStack;
let tenant: string;
let token: string;
let modes: Map<string, MdsMode>;
/** The past hour the generated history happened in (three hours ago, so it is over). */
const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 3 * HOUR_MS;
const hour = new Date(hourStart).toISOString().slice(0, 13);

/** Inserts the generated fleet and its hour of history straight into the read model. */
async function generateFleet(): Promise<void> {
  const em = tenantEm(stack.backend.orm, tenant);
  const scooters = await em.findOneOrFail(VehicleCategory, { name: 'E-Scooter' });
  const cars = await em.findOneOrFail(VehicleCategory, { name: 'Compact car' });
  const { branchId, customerIds } = session.seed;
  const at = new Date(hourStart);
  // Rental, service, battery and connectivity states cycle at co-prime periods: every combination occurs.
  await em.execute(
    `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
                          power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at,
                          latitude, longitude, state_of_charge, max_speed_kmh)
     select ?, 'GEN-' || g, ?, case when g % 5 = 0 then ? else ? end,
            (array['AVAILABLE','AVAILABLE','RESERVATION','DRIVING','PARKING','DELIVERED','AVAILABLE'])[g % 7 + 1],
            (array['FUNCTIONAL','FUNCTIONAL','FUNCTIONAL','INSPECT','RELOCATE','COLLECT','SERVICE_WORKSHOP',
                   'LOST','RETIRED','MAINTENANCE','IMPOUNDED','READY_FOR_DEPLOYMENT','FUNCTIONAL'])[g % 13 + 1],
            (array['HIGH','MEDIUM','LOW','CRITICAL','UNKNOWN'])[g % 5 + 1],
            'OFF', g % 11 = 0, true, false, '[]', '{}', ?, ?,
            52.45 + (g % 100) * 0.002, 13.30 + (g / 100) * 0.004, (g * 7) % 101, case when g % 3 = 0 then 20 end
       from generate_series(1, ?) as g`,
    [tenant, branchId, cars.id, scooters.id, at, at, FLEET],
  );
  const generated = await em.execute<{ id: number }[]>(
    `select id from vehicle where tenant_id = ? and code like 'GEN-%' order by id`,
    [tenant],
  );
  const ids = generated.map((row) => Number(row.id));
  // Twelve telemetry points in the hour for every fourth vehicle.
  await em.execute(
    `insert into vehicle_telemetry (tenant_id, vehicle_id, reported_at, received_at, latitude, longitude,
                                    speed_kmh, state_of_charge, power_state, locked)
     select ?, v.id, ?::timestamptz + (k * interval '5 minutes'), ?::timestamptz + (k * interval '5 minutes'),
            v.latitude + k * 0.0005, v.longitude, 12 + k, greatest(v.state_of_charge - k, 0), 'ON', false
       from vehicle v cross join generate_series(0, 11) as k
      where v.tenant_id = ? and v.code like 'GEN-%' and v.id % 4 = 0`,
    [tenant, at, at, tenant],
  );
  // An ended rental in the hour for every tenth vehicle, with its three rental events.
  const rented = ids.filter((id) => id % 10 === 0);
  for (const [index, vehicleId] of rented.entries()) {
    const [{ id: rentalId }] = await em.execute<[{ id: number }]>(
      `select nextval('rental_id_seq')::int as id`,
    );
    const reserved = hourStart + (index % 20) * 60_000;
    const started = reserved + 60_000;
    const ended = started + 25 * 60_000;
    const position = (offset: number) => JSON.stringify({ lat: 52.5 + offset, lng: 13.4 });
    await em.execute(
      `insert into rental (id, tenant_id, workflow_id, state, branch_id, vehicle_id, customer_id, reserved_at,
                           started_at, ended_at, start_position, end_position, created_at, updated_at)
       values (?, ?, ?, 'ENDED', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        rentalId,
        tenant,
        `rental:${tenant}:${rentalId}`,
        branchId,
        vehicleId,
        customerIds[index % customerIds.length]!,
        new Date(reserved),
        new Date(started),
        new Date(ended),
        position(0),
        position(0.01),
        new Date(reserved),
        new Date(ended),
      ],
    );
    for (const [type, time] of [
      ['RENTAL_RESERVATION', reserved],
      ['RENTAL_START', started],
      ['RENTAL_END', ended],
    ] as const)
      await em.execute(
        `insert into event (tenant_id, created_at, type, branch_id, vehicle_id, rental_id, vehicle_position)
         values (?, ?, ?, ?, ?, ?, ?)`,
        [tenant, new Date(time), type, branchId, vehicleId, rentalId, position(0)],
      );
  }
  // Service, battery and connectivity changes of other vehicles in the hour.
  await em.execute(
    `insert into event (tenant_id, created_at, type, branch_id, vehicle_id)
     select ?, ?::timestamptz + ((v.id % 50) * interval '1 minute'),
            (array['VEHICLE_SERVICE_STATE_V2_COLLECT', 'VEHICLE_BATTERY_LEVEL_LOW', 'VEHICLE_OFFLINE',
                   'VEHICLE_SERVICE_STATE_V2_SERVICE_WORKSHOP', 'VEHICLE_ONLINE',
                   'VEHICLE_SERVICE_STATE_V2_LOST'])[v.id % 6 + 1], v.branch_id, v.id
       from vehicle v where v.tenant_id = ? and v.code like 'GEN-%' and v.id % 10 = 3`,
    [tenant, new Date(hourStart), tenant],
  );
}

beforeAll(async () => {
  session = await startSession();
  ({ stack } = session);
  tenant = session.seed.tenant;
  token = await agencyToken(stack, tenant);
  await generateFleet();
  const vehicles = (await allPages(stack, token, `/v1/${tenant}/mds/vehicles?size=1000`)).flatMap(
    (page) => page.body.vehicles,
  );
  modes = modesOf(vehicles);
}, 300_000);

afterAll(async () => {
  await session?.stop();
});

/** Every page of an operation, each valid; the records of all pages. */
async function everyPage(operation: MdsOperation, path: string, key: string) {
  const pages = await allPages(stack, token, `/v1/${tenant}/mds${path}`);
  for (const page of pages) expectValidMds(operation, page, modes);
  return pages.flatMap((page) => page.body[key] as Array<Record<string, unknown>>);
}

test('vehicles and their status: every page valid, the pages add up to the published fleet', async () => {
  const [{ count }] = await tenantEm(stack.backend.orm, tenant).execute<[{ count: string }]>(
    `select count(*) from vehicle where tenant_id = ? and not virtual`,
    [tenant],
  );
  expect(modes.size).toBe(Number(count));
  expect(modes.size).toBeGreaterThanOrEqual(FLEET);
  expect(new Set(modes.values())).toEqual(new Set(['micromobility', 'car-share']));
  const statuses = await everyPage('/vehicles/status', '/vehicles/status?size=1000', 'vehicles_status');
  expect(statuses).toHaveLength(modes.size);
  const states = new Set(
    statuses.map((status) => (status.last_event as { vehicle_state: string }).vehicle_state),
  );
  expect(states).toEqual(
    new Set([
      'available',
      'reserved',
      'on_trip',
      'stopped',
      'non_operational',
      'removed',
      'missing',
      'non_contactable',
    ]),
  );
}, 120_000);

test('the generated hour: events, trips and telemetry, every page valid', async () => {
  const events = await everyPage(
    '/events/historical',
    `/events/historical?event_time=${hour}&size=250`,
    'events',
  );
  const types = new Set(
    events.map((event) => `${event.vehicle_state}:${(event.event_types as string[])[0]}`),
  );
  for (const expected of ['reserved:reservation_start', 'on_trip:trip_start', 'available:trip_end'])
    expect(types).toContain(expected);
  expect(
    events.every(
      (event) => Number(event.timestamp) >= hourStart && Number(event.timestamp) < hourStart + HOUR_MS,
    ),
  ).toBe(true);
  const trips = await everyPage('/trips', `/trips?end_time=${hour}&size=100`, 'trips');
  // Rentals end 26 to 45 minutes into the hour: all of them in it.
  expect(trips).toHaveLength(Math.floor(FLEET / 10));
  expect(trips.every((trip) => Number(trip.duration) === 25 * 60 && Number(trip.distance) > 1000)).toBe(true);
  const telemetry = await everyPage('/telemetry', `/telemetry?telemetry_time=${hour}&size=5000`, 'telemetry');
  expect(telemetry.length).toBeGreaterThanOrEqual((FLEET / 4) * 12);
  expect(telemetry.some((point) => point.trip_ids !== null)).toBe(true);
  const recent = await everyPage(
    '/events/recent',
    `/events/recent?start_time=${hourStart}&end_time=${hourStart + HOUR_MS}&size=1000`,
    'events',
  );
  // The same window through both endpoints: the same events, the same ids.
  expect(recent.map((event) => event.event_id).sort()).toEqual(events.map((event) => event.event_id).sort());
}, 180_000);
