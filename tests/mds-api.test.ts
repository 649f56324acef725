// The MDS 2.0 provider over HTTP for a freshly seeded tenant (the demo data): every answer valid under
// the vendored official schemas, the event sequence of whole rentals run through the app API and the
// rental workflows matching docs/mds.md, trips with their telemetry route, and the agency credentials'
// lifecycle. Access and hostile input: tests/mds-access.test.ts; a generated fleet: tests/mds-fleet.test.ts.
import { Vehicle } from '../db/entities/Vehicle.js';
import { mdsId } from '../db/mds-ids.js';
import { tenantEm } from '../db/orm.js';
import type { MdsMode } from '../domain/mds.js';
import { expectError, type HttpStack } from './support/http.js';
import { agencyToken, allPages, expectValidMds, isMdsContentType, mdsGet, modesOf } from './support/mds.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let tenant: string;
let token: string;
let modes: Map<string, MdsMode>;
const startedAt = Date.now();

const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const get = (path: string, headers?: Record<string, string>) => mdsGet(stack, tenant, token, path, headers);

beforeAll(async () => {
  session = await startSession({ signInDemoCustomer: true });
  ({ stack } = session);
  tenant = session.seed.tenant;
  token = await agencyToken(stack, tenant);
  const vehicles = (await allPages(stack, token, `/v1/${tenant}/mds/vehicles?size=10`)).flatMap(
    (page) => page.body.vehicles,
  );
  modes = modesOf(vehicles);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** A ready vehicle of the kind asked for, as the app lists them. */
async function readyVehicle(kind: 'scooter' | 'car', skip: number[] = []): Promise<Vehicle> {
  const listed = await stack.call(
    'GET',
    stack.front(`/vehicles?branchId=${session.seed.branchId}&onlyAvailable=true&size=100`),
    { token: session.annaToken },
  );
  const ids = (listed.body as Array<{ id: number }>)
    .map((vehicle) => vehicle.id)
    .filter((id) => !skip.includes(id));
  const vehicles = await tenantEm(stack.backend.orm, tenant).find(
    Vehicle,
    { id: { $in: ids } },
    { populate: ['category'], orderBy: { id: 'asc' } },
  );
  const found = vehicles.find((vehicle) => (vehicle.category.name === 'Compact car') === (kind === 'car'));
  if (!found) throw new Error(`no ready ${kind}`);
  return found;
}

describe('the demo data through every provider endpoint', () => {
  test('vehicles, one by one and paged with links, valid MDS 2.0 in its own media type', async () => {
    const first = await get('/vehicles?size=10');
    expectValidMds('/vehicles', first, modes);
    expect(isMdsContentType(first.headers.get('content-type'))).toBe(true);
    expect(first.body.version).toBe('2.0.0');
    expect(first.body.links.next).toMatch(/\/mds\/vehicles\?.*page=1/);
    expect(first.body.links.prev).toBeNull();
    expect(
      new Set(first.body.vehicles.map((vehicle: { vehicle_type: string }) => vehicle.vehicle_type)),
    ).toEqual(new Set(['scooter_standing', 'car']));
    const pages = await allPages(stack, token, `/v1/${tenant}/mds/vehicles?size=10`);
    for (const page of pages) expectValidMds('/vehicles', page, modes);
    expect(pages.at(-1)!.body.links.next).toBeNull();
    expect(modes.size).toBeGreaterThanOrEqual(20);
    const [device] = [...modes.keys()];
    const one = await get(`/vehicles/${device}`);
    expectValidMds('/vehicles/{device_id}', one, modes);
    expect(one.body.vehicles).toHaveLength(1);
  });

  test('vehicle status, all and one', async () => {
    const pages = await allPages(stack, token, `/v1/${tenant}/mds/vehicles/status?size=7`);
    const statuses = pages.flatMap((page) => page.body.vehicles_status);
    for (const page of pages) expectValidMds('/vehicles/status', page, modes);
    expect(statuses).toHaveLength(modes.size);
    // The simulated fleet is online and ready: most are available; the seed's unavailable ones are not.
    const states = statuses.map(
      (status: { last_event: { vehicle_state: string } }) => status.last_event.vehicle_state,
    );
    expect(states).toContain('available');
    const [device] = [...modes.keys()];
    expectValidMds('/vehicles/status/{device_id}', await get(`/vehicles/status/${device}`), modes);
  });

  test('historical hours, recent events, trips, telemetry and the last month’s report', async () => {
    const lastHour = hourText(Date.now() - 3_600_000);
    expectValidMds('/events/historical', await get(`/events/historical?event_time=${lastHour}`), modes);
    expectValidMds('/trips', await get(`/trips?end_time=${lastHour}`), modes);
    expectValidMds('/telemetry', await get(`/telemetry?telemetry_time=${lastHour}`), modes);
    const recent = await get(`/events/recent?start_time=${startedAt - 60_000}&end_time=${Date.now()}`);
    expectValidMds('/events/recent', recent, modes);
    const month = new Date();
    month.setUTCDate(0);
    const name = `${month.toISOString().slice(0, 7)}.csv`;
    const report = await fetch(`${stack.baseUrl}/v1/${tenant}/mds/reports/${name}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/csv' },
    });
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await report.text()).toMatch(
      /^provider_id,start_date,duration,special_group_type,geography_id,vehicle_type,trip_count,rider_count\n/,
    );
  });
});

describe('a whole rental through the app API and the rental workflow', () => {
  /** Reserve, start, park, drive, ride and end; then the MDS events of the vehicle since `from`. */
  async function rentAndRead(vehicle: Vehicle, customer: number) {
    const customerToken = await session.customerToken(session.seed.customerIds[customer]!);
    const from = Date.now() - 1;
    const device = mdsId(tenant, 'device', vehicle.id);
    const operate = (rentalId: number, operationType: string) =>
      stack.call('POST', stack.front(`/rentals/${rentalId}/operation`), {
        token: customerToken,
        body: { operationType },
      });
    const reserved = await stack.call('POST', stack.front('/rentals'), {
      token: customerToken,
      body: { vehicleId: vehicle.id },
    });
    expect(reserved.status).toBe(201);
    const rentalId: number = reserved.body.id;
    const status = async () => (await get(`/vehicles/status/${device}`)).body.vehicles_status[0];
    expect((await status()).last_event).toMatchObject({
      vehicle_state: 'reserved',
      event_types: ['reservation_start'],
      trip_ids: [mdsId(tenant, 'trip', rentalId)],
    });
    expect((await operate(rentalId, 'START')).status).toBe(200);
    expect((await status()).last_event).toMatchObject({
      vehicle_state: 'on_trip',
      event_types: ['trip_start'],
    });
    expect((await operate(rentalId, 'PARK')).status).toBe(200);
    expect((await operate(rentalId, 'DRIVE')).status).toBe(200);
    stack.backend.simulator.ride(String(vehicle.id), 400);
    await stack.backend.simulator.publishTelemetryNow(String(vehicle.id));
    expect((await operate(rentalId, 'END')).status).toBe(200);
    const after = await status();
    expectValidMds('/vehicles/status/{device_id}', await get(`/vehicles/status/${device}`), modes);
    const recent = await get(`/events/recent?start_time=${from}&end_time=${Date.now()}`);
    expectValidMds('/events/recent', recent, modes);
    const events = (recent.body.events as Array<Record<string, unknown>>).filter(
      (event) => event.device_id === device,
    );
    return { rentalId, events, after };
  }

  test('a scooter: reserved, on_trip, available (parking is no MDS state of micromobility)', async () => {
    const { rentalId, events, after } = await rentAndRead(await readyVehicle('scooter'), 0);
    const trip = mdsId(tenant, 'trip', rentalId);
    expect(events.map((event) => [event.vehicle_state, event.event_types, event.trip_ids])).toEqual([
      ['reserved', ['reservation_start'], [trip]],
      ['on_trip', ['trip_start'], [trip]],
      ['available', ['trip_end'], [trip]],
    ]);
    expect(after.last_event.vehicle_state).toBe('available');
  });

  test('a car: reserved, on_trip, stopped while parked, on_trip again, available', async () => {
    const { events } = await rentAndRead(await readyVehicle('car'), 1);
    expect(events.map((event) => `${event.vehicle_state}:${(event.event_types as string[])[0]}`)).toEqual([
      'reserved:reservation_start',
      'on_trip:trip_start',
      'stopped:trip_stop',
      'on_trip:trip_resume',
      'available:trip_end',
    ]);
    // Event ids are stable: the same window answers the same ids.
    const ids = events.map((event) => event.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('the ended rental is a trip of its hour, its distance along the telemetry route', async () => {
    const vehicle = await readyVehicle('scooter');
    const { rentalId } = await rentAndRead(vehicle, 2);
    // Trips and telemetry are served for hours that are over: move this rental two hours back.
    const em = tenantEm(stack.backend.orm, tenant);
    // The ride's reports reach the table through the broker and the ingestor, on a loaded machine after
    // the rental ended: wait for them before moving the hour, or they land outside the moved trip.
    for (const deadline = Date.now() + 60_000; ;) {
      const [{ n }] = await em.execute<[{ n: string }]>(
        `select count(*) as n from vehicle_telemetry t join rental r on r.tenant_id = t.tenant_id
          where r.tenant_id = ? and r.id = ? and t.vehicle_id = r.vehicle_id
            and t.reported_at between r.started_at and r.ended_at`,
        [tenant, rentalId],
      );
      if (Number(n) > 0) break;
      if (Date.now() > deadline) throw new Error(`no telemetry of rental ${rentalId} arrived`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const shift = "interval '2 hours'";
    await em.execute(
      `update rental set reserved_at = reserved_at - ${shift}, started_at = started_at - ${shift},
              ended_at = ended_at - ${shift} where tenant_id = ? and id = ?`,
      [tenant, rentalId],
    );
    const [rental] = await em.execute<{ started_at: Date; ended_at: Date }[]>(
      'select started_at, ended_at from rental where tenant_id = ? and id = ?',
      [tenant, rentalId],
    );
    await em.execute(
      `update vehicle_telemetry set reported_at = reported_at - ${shift}
        where tenant_id = ? and vehicle_id = ? and reported_at >= ?::timestamptz + ${shift}`,
      [tenant, vehicle.id, rental!.started_at],
    );
    const hour = hourText(new Date(rental!.ended_at).getTime());
    const trips = await get(`/trips?end_time=${hour}`);
    expectValidMds('/trips', trips, modes);
    const trip = trips.body.trips.find(
      (row: { trip_id: string }) => row.trip_id === mdsId(tenant, 'trip', rentalId),
    );
    expect(trip).toMatchObject({
      device_id: mdsId(tenant, 'device', vehicle.id),
      trip_type: ['rider'],
    });
    // The simulator rode 400 m; the start and end positions are the rental's.
    expect(trip.distance).toBeGreaterThanOrEqual(390);
    // What the customer was billed, in minor units of the invoice's currency.
    expect(trip).toMatchObject({ actual_cost: expect.any(Number), currency: 'EUR' });
    expect(Number.isInteger(trip.actual_cost)).toBe(true);
    expect(trip.duration).toBeGreaterThanOrEqual(0);
    const telemetry = await get(`/telemetry?telemetry_time=${hour}`);
    expectValidMds('/telemetry', telemetry, modes);
    expect(
      telemetry.body.telemetry.filter((point: { trip_ids: string[] | null }) =>
        point.trip_ids?.includes(trip.trip_id),
      ).length,
    ).toBeGreaterThan(0);
  });
});

describe('agency credentials (operator interface)', () => {
  test('created with a secret shown once, listed, its token reads MDS, revoked: no token, no reads', async () => {
    const created = await stack.call('POST', stack.back('/mds-agencies'), {
      token: session.operatorToken,
      body: { name: 'Senatsverwaltung Mobilität' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Senatsverwaltung Mobilität', active: true });
    const credentials = { clientId: created.body.clientId, clientSecret: created.body.clientSecret };
    const listed = await stack.call('GET', stack.back('/mds-agencies'), { token: session.operatorToken });
    expect(listed.body.map((agency: { id: number }) => agency.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(credentials.clientSecret);
    const own = await agencyToken(stack, tenant, credentials);
    expect((await mdsGet(stack, tenant, own, '/vehicles?size=1')).status).toBe(200);
    const shown = await stack.call('GET', stack.back(`/mds-agencies/${created.body.id}`), {
      token: session.operatorToken,
    });
    expect(shown.body).toMatchObject({ clientId: credentials.clientId, lastTokenAt: expect.any(String) });
    // The OAuth2 forms of client authentication: a form body, and HTTP Basic.
    const form = await fetch(`${stack.baseUrl}/v1/${tenant}/mds/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      }),
    });
    expect([form.status, ((await form.json()) as { scope: string }).scope]).toEqual([200, 'mds']);
    const basic = await fetch(`${stack.baseUrl}/v1/${tenant}/mds/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(basic.status).toBe(200);
    expect(basic.headers.get('cache-control')).toBe('no-store');
    const revoked = await stack.call('POST', stack.back(`/mds-agencies/${created.body.id}/revoke`), {
      token: session.operatorToken,
    });
    expect(revoked.body).toMatchObject({ active: false, revokedBy: 'client:demo-operator' });
    expectError(await mdsGet(stack, tenant, own, '/vehicles?size=1'), 401, 'MDS411');
    await expect(agencyToken(stack, tenant, credentials)).rejects.toThrow(/AUTH101/);
    expectError(
      await stack.call('POST', stack.back(`/mds-agencies/${created.body.id}/revoke`), {
        token: session.operatorToken,
      }),
      409,
      'MDS412',
    );
    expectError(
      await stack.call('GET', stack.back('/mds-agencies/999999'), { token: session.operatorToken }),
      404,
      'MDS410',
    );
  });
});
