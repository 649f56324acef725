// The event search (`GET /events`), the readable types (`GET /events/types`) and the entity timelines with
// `includeRelatedEvents`, over HTTP against the real database: each filter and sort against a table of
// expected events, the paging headers and the count bound, the event family permissions (a rental-only
// reader, a vehicle-timeline-only reader, a caller without EVENT_READ), GPS positions hidden without
// POSITION_LOG_READ, events of no branch and of another branch, another tenant, and hostile input.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Booking } from '../db/entities/Booking.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { recordEvent, type EventFields } from '../db/events.js';
import { tenantEm } from '../db/orm.js';
import { eventTypeCatalogue, EVENT_SEARCH_COUNT_LIMIT } from '../domain/events.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Eight o'clock on the second day of next month (UTC): a month the migration made a partition for. */
const now = new Date();
const t0 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2, 8);
const at = (minutes: number) => new Date(t0 + minutes * MINUTE);
const window = `createdAt.from=${at(-60).toISOString()}&createdAt.to=${at(DAY / MINUTE).toISOString()}`;

const P1 = { lat: 52.52, lng: 13.405 };
const P2 = { lat: 52.5, lng: 13.4 };
const VP1 = { lat: 52.51, lng: 13.39 };

/** The fixture's event ids by name (e1 … e12), and the ids of what they name. */
const ids: Record<string, number> = {};
let ref: {
  mitte: number;
  city: number;
  spandau: number;
  v1: number;
  v2: number;
  c1: number;
  c2: number;
  r1: number;
  r2: number;
  b1: number;
};
let tokens: { operator: string; admin: string; rentalOnly: string; vehicleOnly: string; nothing: string };
let rivalEventId: number;

/** An API client holding `permissions` (a role of its own) on each of `branchIds`; its token. */
async function clientWith(permissions: string[], branchIds: number[]): Promise<string> {
  const em = session.em();
  const clientId = `events-${randomBytes(4).toString('hex')}`;
  const role = em.create(Role, { name: `Role ${clientId}`, permissions });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  for (const branchId of branchIds)
    em.create(RoleAssignment, {
      subjectType: 'API_CLIENT',
      subjectId: clientId,
      role,
      branch: em.getReference(Branch, branchId),
    });
  await em.flush();
  return session.stack.token(session.seed.tenant, { clientId, clientSecret: `${clientId}-secret` });
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  const { seed } = session;
  const em = session.em();
  const template = await em.findOneOrFail(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
  const seeded = await em.findOneOrFail(Customer, seed.customerIds[0]!);
  // Vehicles and customers of their own: no telemetry, sign-in or seed event names them.
  const vehicle = (code: string) =>
    em.create(Vehicle, { code, branch: template.branch, category: template.category });
  const customer = (name: string) =>
    em.create(Customer, {
      email: `${name}-${randomBytes(3).toString('hex')}@example.com`,
      firstName: name,
      lastName: 'Events',
      homeBusinessUnit: seeded.homeBusinessUnit,
    });
  const [v1, v2] = [
    vehicle(`EV1-${randomBytes(2).toString('hex')}`),
    vehicle(`EV2-${randomBytes(2).toString('hex')}`),
  ];
  const [c1, c2] = [customer('Ada'), customer('Bo')];
  await em.flush();
  const [{ r1, r2, b1 }] = await em.execute<[{ r1: number; r2: number; b1: number }]>(
    `select nextval('rental_id_seq')::int as r1, nextval('rental_id_seq')::int as r2, nextval('booking_id_seq')::int as b1`,
  );
  const mitte = em.getReference(Branch, seed.branchId);
  // R1: V1 by C1 from t0-10 to t0+61; R2: V2 by C2 from t0+110 to t0+170, the rental of booking B1.
  em.create(Rental, {
    id: r1,
    workflowId: `events-test-rental-${r1}`,
    state: 'ENDED',
    branch: mitte,
    vehicle: v1,
    customer: c1,
    reservedAt: at(-10),
    startedAt: at(0),
    endedAt: at(61),
  });
  const rental2 = em.create(Rental, {
    id: r2,
    workflowId: `events-test-rental-${r2}`,
    state: 'ENDED',
    branch: mitte,
    vehicle: v2,
    customer: c2,
    reservedAt: at(110),
    startedAt: at(115),
    endedAt: at(170),
  });
  em.create(Booking, {
    id: b1,
    workflowId: `events-test-booking-${b1}`,
    state: 'SUCCESSFUL',
    customer: c2,
    branch: mitte,
    endBranch: mitte,
    vehicleCategory: template.category,
    vehicle: v2,
    startTime: at(100),
    endTime: at(200),
    heldFrom: at(100),
    heldUntil: at(200),
    rental: rental2,
  });
  await em.flush();
  ref = {
    mitte: seed.branchId,
    city: seed.cityBranchId,
    spandau: seed.otherBranchId,
    v1: v1.id,
    v2: v2.id,
    c1: c1.id,
    c2: c2.id,
    r1,
    r2,
    b1,
  };
  const A = seed.branchId;
  const fixture: [string, EventFields][] = [
    [
      'e1',
      {
        type: 'RENTAL_START',
        branchId: A,
        vehicleId: v1.id,
        rentalId: r1,
        customerId: c1.id,
        createdAt: at(0),
        position: P1,
        vehiclePosition: VP1,
      },
    ],
    [
      'e2',
      {
        type: 'VEHICLE_BATTERY_LEVEL_LOW',
        branchId: A,
        vehicleId: v1.id,
        createdAt: at(30),
        vehiclePosition: VP1,
      },
    ],
    [
      'e3',
      {
        type: 'RENTAL_END',
        branchId: A,
        vehicleId: v1.id,
        rentalId: r1,
        customerId: c1.id,
        createdAt: at(60),
        position: P1,
      },
    ],
    ['e4', { type: 'VEHICLE_OFFLINE', branchId: A, vehicleId: v1.id, createdAt: at(90) }],
    ['e5', { type: 'BOOKING_CREATED', branchId: A, bookingId: b1, customerId: c2.id, createdAt: at(100) }],
    ['e6', { type: 'VEHICLE_COMMAND_UNLOCK', branchId: A, vehicleId: v2.id, createdAt: at(120) }],
    [
      'e7',
      {
        type: 'RENTAL_START',
        branchId: A,
        vehicleId: v2.id,
        rentalId: r2,
        bookingId: b1,
        customerId: c2.id,
        createdAt: at(130),
      },
    ],
    ['e8', { type: 'VEHICLE_OFFLINE', branchId: seed.otherBranchId, vehicleId: v2.id, createdAt: at(140) }],
    ['e9', { type: 'APP_START', customerId: c1.id, createdAt: at(150), position: P2 }],
    ['e10', { type: 'NOTIFICATION', customerId: c2.id, createdAt: at(160) }],
    [
      'e11',
      {
        type: 'INVOICE_CREATED',
        branchId: A,
        rentalId: r1,
        customerId: c1.id,
        createdAt: at(170),
        payload: { invoiceId: 1 },
      },
    ],
    ['e12', { type: 'USER_PROFILE_DATA_CHANGED', customerId: c1.id, createdAt: at(-400 * 24 * 60) }],
  ];
  const events = fixture.map(([, fields]) => recordEvent(em, fields));
  await em.flush();
  fixture.forEach(([name], index) => (ids[name] = Number(events[index]!.id)));
  // The other tenant's event names our first vehicle's id: our searches never find it.
  const rivalEm = tenantEm(session.backend.orm, session.rival.tenant);
  const rivalEvent = recordEvent(rivalEm, { type: 'RENTAL_START', vehicleId: v1.id, createdAt: at(5) });
  await rivalEm.flush();
  rivalEventId = Number(rivalEvent.id);

  const everyEventPermission = [
    'EVENT_READ',
    'RENTAL_EVENT_READ',
    'BOOKING_EVENT_READ',
    'VEHICLE_EVENT_READ',
    'USER_EVENT_READ',
    'POSITION_LOG_READ',
  ];
  tokens = {
    operator: session.operatorToken, // Fleet operations on Berlin: not Spandau, so not tenant-wide
    admin: await clientWith(everyEventPermission, [seed.cityBranchId, seed.otherBranchId]),
    rentalOnly: await clientWith(['EVENT_READ', 'RENTAL_EVENT_READ'], [seed.branchId]),
    vehicleOnly: await clientWith(['VEHICLE_EVENT_READ'], [seed.cityBranchId]),
    nothing: await clientWith(['VEHICLE_READ'], [seed.cityBranchId]),
  };
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** The fixture names of a list of events (ids outside the fixture as `?id`). */
const names = (body: { id: number }[]) =>
  body.map((event) => Object.entries(ids).find(([, id]) => id === event.id)?.[0] ?? `?${event.id}`);

const search = (query: string, token = tokens.operator) => call('GET', back(`/events?${query}`), { token });

test('each filter and sort answers the expected events, newest first by default', async () => {
  const { v1, v2, c1, r1, b1, mitte, city } = ref;
  const cases: [string, string[]][] = [
    ['', ['e11', 'e10', 'e9', 'e7', 'e6', 'e5', 'e4', 'e3', 'e2', 'e1']],
    ['type=RENTAL_START,RENTAL_END', ['e7', 'e3', 'e1']],
    ['type=RENTAL_START&type=VEHICLE_OFFLINE', ['e7', 'e4', 'e1']],
    [`vehicle.id=${v1}`, ['e4', 'e3', 'e2', 'e1']],
    [`vehicle.id=${v1}&vehicle.id=${v2}`, ['e7', 'e6', 'e4', 'e3', 'e2', 'e1']],
    [`rental.id=${r1}`, ['e11', 'e3', 'e1']],
    [`booking.id=${b1}`, ['e7', 'e5']],
    [`guser.id=${c1}`, ['e11', 'e9', 'e3', 'e1']],
    [`guser.id=${c1}&type=RENTAL_END`, ['e3']],
    [`branch.id=${mitte}`, ['e11', 'e7', 'e6', 'e5', 'e4', 'e3', 'e2', 'e1']],
    [`branch.id=${city}`, []],
    [`branch.id=${city}&includeChildBranches=true`, ['e11', 'e7', 'e6', 'e5', 'e4', 'e3', 'e2', 'e1']],
    [`type=VEHICLE_OFFLINE&vehicle.id=${v2}`, []], // e8 is Spandau's
    ['type=NO_SUCH_TYPE', []],
    ['sort=id,asc', ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e9', 'e10', 'e11']],
    ['sort=createdAt,asc', ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e9', 'e10', 'e11']],
    ['sort=id', ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e9', 'e10', 'e11']],
    ['sort=id,DESC', ['e11', 'e10', 'e9', 'e7', 'e6', 'e5', 'e4', 'e3', 'e2', 'e1']],
    ['sort=type,asc', ['e9', 'e5', 'e11', 'e10', 'e3', 'e7', 'e1', 'e2', 'e6', 'e4']],
  ];
  for (const [query, expected] of cases) {
    const reply = await search(`${window}${query ? `&${query}` : ''}`);
    expect({ query, status: reply.status, events: names(reply.body) }).toEqual({
      query,
      status: 200,
      events: expected,
    });
    expect({ query, total: reply.headers.get('x-total-count') }).toEqual({
      query,
      total: String(expected.length),
    });
  }
  // The time range: from inclusive, to exclusive.
  const range = await search(`createdAt.from=${at(60).toISOString()}&createdAt.to=${at(130).toISOString()}`);
  expect(names(range.body)).toEqual(['e6', 'e5', 'e4', 'e3']);
  // An event in the default partition (no partition covers last year's month).
  const old = await search(
    `createdAt.from=${at(-401 * 24 * 60).toISOString()}&createdAt.to=${at(-399 * 24 * 60).toISOString()}&guser.id=${c1}`,
  );
  expect(names(old.body)).toEqual(['e12']);
  // The representation, with positions for the operator (POSITION_LOG_READ on Mitte).
  const [e1] = (await search(`${window}&rental.id=${r1}&type=RENTAL_START`)).body;
  expect(e1).toEqual({
    id: ids.e1,
    type: 'RENTAL_START',
    createdAt: at(0).toISOString(),
    branchId: mitte,
    vehicleId: v1,
    rentalId: r1,
    bookingId: null,
    guserId: c1,
    adminGuser: null,
    position: P1,
    vehiclePosition: VP1,
    description: null,
    payload: null,
  });
});

test('paging headers, and the count bound', async () => {
  const page = await search(`${window}&size=3&page=1`);
  expect(names(page.body)).toEqual(['e7', 'e6', 'e5']);
  expect(
    Object.fromEntries(
      ['x-total-count', 'x-total-pages', 'x-page-number', 'x-page-size', 'x-total-count-exact'].map(
        (name) => [name, page.headers.get(name)],
      ),
    ),
  ).toEqual({
    'x-total-count': '10',
    'x-total-pages': '4',
    'x-page-number': '1',
    'x-page-size': '3',
    'x-total-count-exact': 'true',
  });
  // More matches than the bound: the count stops there, and so do the pages.
  const from = at(2 * 24 * 60);
  await session.em().execute(
    `insert into event (tenant_id, type, created_at, branch_id)
     select ?, 'VEHICLE_LOCATE', ?::timestamptz + g * interval '1 second', ? from generate_series(1, ?) g`,
    [session.seed.tenant, from.toISOString(), ref.mitte, EVENT_SEARCH_COUNT_LIMIT + 5],
  );
  const bulk = `createdAt.from=${from.toISOString()}&createdAt.to=${at(3 * 24 * 60).toISOString()}`;
  const first = await search(`${bulk}&size=200`);
  expect(first.body).toHaveLength(200);
  expect(first.headers.get('x-total-count')).toBe(String(EVENT_SEARCH_COUNT_LIMIT));
  expect(first.headers.get('x-total-count-exact')).toBe('false');
  expect((await search(`${bulk}&size=200&page=49`)).body).toHaveLength(200);
  expectError(await search(`${bulk}&size=200&page=50`), 400, '0022');
});

test('permissions: families, branches, events of no branch, positions', async () => {
  // Every event permission on both roots, with positions: Spandau's event and the app event's position.
  const admin = await search(window, tokens.admin);
  expect(names(admin.body)).toEqual(['e11', 'e10', 'e9', 'e8', 'e7', 'e6', 'e5', 'e4', 'e3', 'e2', 'e1']);
  const adminE9 = admin.body.find((event: { id: number }) => event.id === ids.e9);
  expect(adminE9.position).toEqual(P2);
  // The operator reads Berlin only: no Spandau event, and no position of an event of no branch.
  const operator = await search(window);
  expect(operator.body.find((event: { id: number }) => event.id === ids.e9).position).toBeNull();
  expect(operator.body.find((event: { id: number }) => event.id === ids.e1).position).toEqual(P1);

  // EVENT_READ and RENTAL_EVENT_READ on Mitte: its rental events and its events of no entity family
  // (INVOICE_CREATED), the NOTIFICATION of no branch; no positions.
  const rentalOnly = await search(window, tokens.rentalOnly);
  expect(names(rentalOnly.body)).toEqual(['e11', 'e10', 'e7', 'e3', 'e1']);
  const e1 = rentalOnly.body.find((event: { id: number }) => event.id === ids.e1);
  expect({ position: e1.position, vehiclePosition: e1.vehiclePosition }).toEqual({
    position: null,
    vehiclePosition: null,
  });
  expectError(await search(`branch.id=${ref.spandau}`, tokens.rentalOnly), 403, 'AUTH002');
  expectError(await search(`branch.id=${ref.city}`, tokens.rentalOnly), 403, 'AUTH002');
  expect(names((await search(`${window}&branch.id=${ref.mitte}`, tokens.rentalOnly)).body)).toEqual([
    'e11',
    'e7',
    'e3',
    'e1',
  ]);
  const types = await call('GET', back('/events/types'), { token: tokens.rentalOnly });
  expect(types.status).toBe(200);
  const families = new Set(types.body.map((entry: { family: string }) => entry.family));
  expect([...families].sort()).toEqual(['GENERAL', 'RENTAL']);
  expect(types.body).toContainEqual({
    type: 'RENTAL_START',
    family: 'RENTAL',
    permission: 'RENTAL_EVENT_READ',
    source: 'spec',
  });
  expect(types.body.map((entry: { type: string }) => entry.type)).not.toContain('VEHICLE_OFFLINE');

  // The operator's types: the whole catalogue.
  const all = await call('GET', back('/events/types'), { token: tokens.operator });
  expect(all.body).toHaveLength(eventTypeCatalogue.length);
  expect(all.body).toContainEqual({
    type: 'APP_BT_UNLOCK',
    family: 'USER',
    permission: 'USER_EVENT_READ',
    source: 'app',
  });

  // Without EVENT_READ: no search and no types, whatever else it holds.
  for (const token of [tokens.vehicleOnly, tokens.nothing]) {
    expectError(await search(window, token), 403, 'AUTH002');
    expectError(await call('GET', back('/events/types'), { token }), 403, 'AUTH002');
  }

  // Another tenant: its own events only; ours are not found, its branch is unknown here.
  const rival = await call('GET', `/v1/${session.rival.tenant}/back/events?${window}&vehicle.id=${ref.v1}`, {
    token: session.rivalOperatorToken,
  });
  expect(rival.body.map((event: { id: number }) => event.id)).toEqual([rivalEventId]);
  expectError(await search(`branch.id=${session.rival.branchId}`), 404, 'B404');
  // Our token on the other tenant's path.
  expectError(
    await call('GET', `/v1/${session.rival.tenant}/back/events`, { token: tokens.operator }),
    403,
    'AUTH002',
  );
});

test('timelines: includeRelatedEvents adds the trips, each family needs its permission', async () => {
  const timeline = async (path: string, token = tokens.operator) => {
    const reply = await call('GET', back(path), { token });
    expect({ path, status: reply.status }).toEqual({ path, status: 200 });
    return names(reply.body);
  };
  const { r1, b1, c1, c2, v1, v2 } = ref;
  expect(await timeline(`/RENTALS/${r1}/events`)).toEqual(['e1', 'e3', 'e11']);
  // The trip of R1: V1 from t0-10 to t0+61 (e4 at t0+90 is after it).
  expect(await timeline(`/RENTALS/${r1}/events?includeRelatedEvents=true`)).toEqual([
    'e1',
    'e2',
    'e3',
    'e11',
  ]);
  expect(await timeline(`/BOOKINGS/${b1}/events`)).toEqual(['e5', 'e7']);
  // The booking's rental R2: V2 from t0+110 to t0+170; Spandau's e8 only for a reader of Spandau.
  expect(await timeline(`/BOOKINGS/${b1}/events?includeRelatedEvents=true`)).toEqual(['e5', 'e6', 'e7']);
  expect(await timeline(`/BOOKINGS/${b1}/events?includeRelatedEvents=true`, tokens.admin)).toEqual([
    'e5',
    'e6',
    'e7',
    'e8',
  ]);
  expect(await timeline(`/CUSTOMERS/${c1}/events`)).toEqual(['e1', 'e3', 'e9', 'e11', 'e12']);
  expect(await timeline(`/CUSTOMERS/${c1}/events?includeRelatedEvents=true`)).toEqual([
    'e1',
    'e2',
    'e3',
    'e9',
    'e11',
    'e12',
  ]);
  expect(await timeline(`/CUSTOMERS/${c2}/events?includeRelatedEvents=true`)).toEqual([
    'e5',
    'e6',
    'e7',
    'e10',
  ]);
  expect(await timeline(`/VEHICLES/${v1}/events`)).toEqual(['e1', 'e2', 'e3', 'e4']);
  // The vehicle's rentals' events that do not name it (R1's invoice).
  expect(await timeline(`/VEHICLES/${v1}/events?includeRelatedEvents=true`)).toEqual([
    'e1',
    'e2',
    'e3',
    'e4',
    'e11',
  ]);
  expect(await timeline(`/VEHICLES/${v2}/events`, tokens.admin)).toEqual(['e6', 'e7', 'e8']);

  // Positions: the operator sees V1's on Mitte, not the app event's of no branch.
  const c1Events = (await call('GET', back(`/CUSTOMERS/${c1}/events`), { token: tokens.operator })).body;
  expect(c1Events.find((event: { id: number }) => event.id === ids.e1).vehiclePosition).toEqual(VP1);
  expect(c1Events.find((event: { id: number }) => event.id === ids.e9).position).toBeNull();
  const rentalPage = await call('GET', back(`/RENTALS/${r1}/events?size=2&page=1`), {
    token: tokens.operator,
  });
  expect(names(rentalPage.body)).toEqual(['e11']);
  expect(rentalPage.headers.get('x-total-count')).toBe('3');

  // VEHICLE_EVENT_READ alone: the vehicle's VEHICLE_* events, no rental events, no other timeline.
  expect(await timeline(`/VEHICLES/${v1}/events`, tokens.vehicleOnly)).toEqual(['e2', 'e4']);
  expectError(
    await call('GET', back(`/RENTALS/${r1}/events`), { token: tokens.vehicleOnly }),
    403,
    'AUTH002',
  );
  expectError(
    await call('GET', back(`/CUSTOMERS/${c1}/events`), { token: tokens.vehicleOnly }),
    403,
    'AUTH002',
  );
  // RENTAL_EVENT_READ on Mitte: the rental's RENTAL_* events; its invoice event needs EVENT_READ, held too.
  expect(await timeline(`/RENTALS/${r1}/events?includeRelatedEvents=true`, tokens.rentalOnly)).toEqual([
    'e1',
    'e3',
    'e11',
  ]);
  expectError(
    await call('GET', back(`/VEHICLES/${v1}/events`), { token: tokens.rentalOnly }),
    403,
    'AUTH002',
  );
  expectError(await call('GET', back(`/RENTALS/${r1}/events`), { token: tokens.nothing }), 403, 'AUTH002');
});

test('hostile input is a catalogue error', async () => {
  const cases: [string, number, string][] = [
    ['/events?vehicle.id=0x1', 400, '0022'],
    ['/events?vehicle.id=1e3', 400, '0022'],
    ['/events?vehicle.id=-1', 400, '0022'],
    ['/events?vehicle.id=1.5', 400, '0022'],
    ['/events?rental.id=2147483648', 400, '0022'],
    ['/events?guser.id=abc', 400, '0022'],
    ['/events?branch.id=0', 400, '0022'],
    ['/events?createdAt.from=2026-02-30T00:00:00Z', 400, '0022'],
    ['/events?createdAt.from=2026-13-01T00:00:00Z', 400, '0022'],
    ['/events?createdAt.to=yesterday', 400, '0022'],
    ['/events?createdAt.to=%2B099999-01-01T00:00:00Z', 400, '0022'],
    ['/events?type=RENTAL%00START', 400, '0022'],
    ['/events?type=rental_start', 400, '0022'],
    ['/events?type=RENTAL_START,,RENTAL_END', 400, '0022'],
    ["/events?type=RENTAL_START'%20OR%201=1--", 400, '0022'],
    ['/events?sort=position,desc', 400, '0022'],
    ['/events?sort=id,up', 400, '0022'],
    ['/events?sort=id%00', 400, '0022'],
    ['/events?sort=created_at;drop%20table%20event', 400, '0022'],
    ['/events?page=-1', 400, '0022'],
    ['/events?size=0', 400, '0022'],
    ['/events?size=201', 400, '0022'],
    ['/events?includeChildBranches=maybe', 400, '0022'],
    ['/events?branch.id=2147483647', 404, 'B404'],
    ['/RENTALS/0x1/events', 400, '0022'],
    ['/PLANETS/1/events', 400, '0022'],
    ['/RENTALS/1/events?includeRelatedEvents=1e3', 400, '0022'],
    ['/RENTALS/2147483647/events', 404, 'R404'],
  ];
  for (const [path, status, code] of cases) {
    const reply = await call('GET', back(path), { token: tokens.operator });
    expect({ path, status: reply.status, code: reply.body?.errorCode }).toEqual({ path, status, code });
  }
  // A time range whose end comes first matches nothing; dates beyond PostgreSQL's range are clamped.
  expect(
    (await search(`createdAt.from=${at(60).toISOString()}&createdAt.to=${at(0).toISOString()}`)).body,
  ).toEqual([]);
  expect(
    (await search('createdAt.from=0001-01-01T00:00:00Z&createdAt.to=9999-12-31T23:59:59Z&type=NOTIFICATION'))
      .status,
  ).toBe(200);
});
