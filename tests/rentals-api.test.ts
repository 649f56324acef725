// Rentals through both interfaces end to end (real PostgreSQL, Temporal, MQTT and simulated vehicles):
// the app's own rental flow for a signed-in customer, ownership (A102), business-account context, the
// cleanliness rating, and the operator's list filters, export, passed-through listing and routes.
import { Rental } from '../db/entities/Rental.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleTelemetry } from '../db/entities/VehicleTelemetry.js';
import { Event } from '../db/entities/Event.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { CostCenter } from '../db/entities/CostCenter.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Customer } from '../db/entities/Customer.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoGroupCode } from '../db/seed/customers.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { uniqueEmail } from './support/customers.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let operatorToken: string;
let appClientToken: string;
let annaToken: string;
let benToken: string;
let claraToken: string;
let denizToken: string;
let rival: SeededTenant;
let seed: SeededTenant;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => tenantEm(stack.backend.orm, seed.tenant);

const customerToken = (tenant: string, id: number) => session.customerToken(id, tenant);

/** Vehicles ready to rent, as the app sees them; each test takes its own so they never collide. */
let readyVehicles: Vehicle[] = [];
function takeVehicle(): Vehicle {
  const vehicle = readyVehicles.shift();
  if (!vehicle) throw new Error('no ready vehicle left');
  return vehicle;
}

/** The business context the rental workflow was started with (its first history event's input). */
async function businessInput(rentalId: number): Promise<Record<string, unknown>> {
  const history = await stack.backend.client.workflow
    .getHandle(`rental:${seed.tenant}:${rentalId}`)
    .fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = JSON.parse(Buffer.from(payload!.data!).toString()) as Record<string, unknown>;
  return Object.fromEntries(
    ['userGroupId', 'costCenterId', 'reason']
      .filter((key) => input[key] !== undefined)
      .map((key) => [key, input[key]]),
  );
}

const operate = (token: string, rentalId: number, operationType: string, extra: object = {}) =>
  call('POST', front(`/rentals/${rentalId}/operation`), { token, body: { operationType, ...extra } });

beforeAll(async () => {
  session = await startSession({ rival: true, signInDemoCustomer: true });
  ({ stack, seed, rival, operatorToken, appClientToken, annaToken } = session);
  const [, ben, clara, deniz] = seed.customerIds;
  [benToken, claraToken, denizToken] = await Promise.all(
    [ben!, clara!, deniz!].map((id) => customerToken(seed.tenant, id)),
  );
  const available = await call(
    'GET',
    front(`/vehicles?branchId=${seed.branchId}&onlyAvailable=true&size=100`),
    {
      token: annaToken,
    },
  );
  const ids = new Set<number>(available.body.map((vehicle: { id: number }) => vehicle.id));
  readyVehicles = (await em().find(Vehicle, { id: { $in: [...ids] } }, { orderBy: { id: 'asc' } })).filter(
    (vehicle) => vehicle.rotatingUuid,
  );
  expect(readyVehicles.length).toBeGreaterThanOrEqual(8);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('the app rental flow', () => {
  test('a signed-in customer reserves, starts, parks, drives and ends through the app', async () => {
    const vehicle = takeVehicle();
    const reserved = await call('POST', front('/rentals'), {
      token: annaToken,
      body: { vehicleCode: vehicle.code },
    });
    expect(reserved.status).toBe(201);
    expect(reserved.headers.get('location')).toBe(`/v1/${seed.tenant}/front/rentals/${reserved.body.id}`);
    expect(reserved.body).toMatchObject({
      state: 'RESERVATION',
      vehicle: { id: vehicle.id },
      user: { id: seed.customerIds[0] },
      createdBy: `customer:${seed.customerIds[0]}`,
      userGroupId: null,
      annotations: [],
      cleanlinessRating: null,
    });
    const rentalId: number = reserved.body.id;

    const started = await operate(annaToken, rentalId, 'START', { userPosition: { lat: 52.53, lng: 13.4 } });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ state: 'ACTIVE', activeMode: 'DRIVING' });
    expect(stack.backend.simulator.getVehicle(String(vehicle.id))?.locked).toBe(false);
    expect((await operate(annaToken, rentalId, 'PARK')).body).toMatchObject({ activeMode: 'PARKING' });
    expect((await operate(annaToken, rentalId, 'DRIVE')).body).toMatchObject({ activeMode: 'DRIVING' });
    expectError(await operate(annaToken, rentalId, 'DRIVE'), 409, 'R201');
    // Customers have no administrative override.
    expectError(
      await call('POST', front(`/rentals/${rentalId}/operation`), {
        token: annaToken,
        body: { operationType: 'END', adminOverride: true },
      }),
      400,
      '0022',
    );
    stack.backend.simulator.ride(String(vehicle.id), 300);
    const ended = await operate(annaToken, rentalId, 'END');
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ state: 'ENDED', activeMode: null });
    expect(stack.backend.simulator.getVehicle(String(vehicle.id))?.locked).toBe(true);
    expectError(await operate(annaToken, rentalId, 'START'), 409, 'R201');

    const mine = await call('GET', front('/rentals?state=ENDED&size=5'), { token: annaToken });
    expect(mine.status).toBe(200);
    expect(mine.body.map((rental: { id: number }) => rental.id)).toContain(rentalId);
    expect(mine.headers.get('x-page-size')).toBe('5');
    expect(Number(mine.headers.get('x-total-count'))).toBeGreaterThanOrEqual(1);
    const events = await em().find(Event, { rentalId }, { orderBy: { id: 'asc' } });
    expect(events.filter((event) => event.type.startsWith('RENTAL_')).map((event) => event.type)).toEqual([
      'RENTAL_RESERVATION',
      'RENTAL_START',
      'RENTAL_PARK',
      'RENTAL_DRIVE',
      'RENTAL_END',
    ]);

    // The cleanliness rating: 1–5, once, only after the end; a RENTAL_FEEDBACK event for the operator.
    const path = front(`/rentals/${rentalId}/cleanliness-rating`);
    expectError(await call('POST', path, { token: annaToken, body: { rating: 6 } }), 400, '0022');
    expectError(await call('POST', path, { token: annaToken, body: { rating: 0 } }), 400, '0022');
    expectError(await call('POST', path, { token: annaToken, body: { rating: 3.5 } }), 400, '0022');
    expectError(await call('POST', path, { token: benToken, body: { rating: 1 } }), 403, 'A102');
    const rated = await call('POST', path, { token: annaToken, body: { rating: 4, comment: ' crumbs ' } });
    expect(rated.status).toBe(200);
    expect(rated.body).toMatchObject({ cleanlinessRating: 4, cleanlinessComment: 'crumbs' });
    expectError(await call('POST', path, { token: annaToken, body: { rating: 5 } }), 409, 'R210');
    const feedback = await em().find(Event, { rentalId, type: 'RENTAL_FEEDBACK' });
    expect(feedback).toHaveLength(1);
    expect(feedback[0]!.adminSubject).toBe(`customer:${seed.customerIds[0]}`);
    const operatorView = await call('GET', back(`/rentals/${rentalId}`), { token: operatorToken });
    expect(operatorView.body).toMatchObject({ cleanlinessRating: 4, state: 'ENDED' });

    // The route of the trip from the vehicle's telemetry between start and end.
    const rental = await em().findOneOrFail(Rental, rentalId);
    const startMs = rental.startedAt!.getTime();
    const endMs = rental.endedAt!.getTime();
    const span = endMs - startMs;
    const points = [-1000, 0, span * 0.25, span * 0.5, span * 0.75, span, span + 1000].map((offset, index) =>
      em().create(VehicleTelemetry, {
        vehicleId: vehicle.id,
        reportedAt: new Date(startMs + offset),
        receivedAt: new Date(),
        latitude: 52.5 + index / 1000,
        longitude: 13.4,
        speedKmh: 10 + index,
        powerState: 'ON',
        locked: false,
      }),
    );
    await em().persist(points).flush();
    const route = await call('GET', back(`/rentals/${rentalId}/routes`), { token: operatorToken });
    expect(route.status).toBe(200);
    expect(route.body).toMatchObject({ rentalId, vehicleId: vehicle.id, sampled: false });
    const inside = route.body.waypoints.filter(
      (point: { lat: number }) => point.lat > 52.5 && point.lat < 52.506,
    );
    expect(inside.map((point: { speedKmh: number }) => point.speedKmh)).toEqual([11, 12, 13, 14, 15]);
    const times = route.body.waypoints.map((point: { time: string }) => Date.parse(point.time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times.every((time: number) => time >= startMs && time <= endMs)).toBe(true);
    const thinned = await call('GET', back(`/rentals/${rentalId}/routes?maxPoints=2`), {
      token: operatorToken,
    });
    expect(thinned.body.waypoints.length).toBeLessThanOrEqual(3);
    expect(thinned.body.sampled).toBe(true);
    expect(thinned.body.waypoints.at(-1)).toEqual(route.body.waypoints.at(-1));
    expectError(
      await call('GET', back(`/rentals/${rentalId}/routes?maxPoints=100000`), { token: operatorToken }),
      400,
      '0022',
    );
  });

  test('vehicleId and vehicleRotatingUuid identify the vehicle too; cancel and own list follow', async () => {
    const byId = takeVehicle();
    const byUuid = takeVehicle();
    const first = await call('POST', front('/rentals'), { token: claraToken, body: { vehicleId: byId.id } });
    expect(first.status).toBe(201);
    expect(first.body.vehicle.id).toBe(byId.id);
    expectError(
      await call('POST', front('/rentals'), { token: claraToken, body: { vehicleId: byUuid.id } }),
      409,
      'R102',
    );
    const cancelled = await call('DELETE', front(`/rentals/${first.body.id}`), { token: claraToken });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('CANCELLED');
    expectError(await call('DELETE', front(`/rentals/${first.body.id}`), { token: claraToken }), 409, 'R201');

    const second = await call('POST', front('/rentals'), {
      token: claraToken,
      body: { vehicleRotatingUuid: byUuid.rotatingUuid },
    });
    expect(second.status).toBe(201);
    expect(second.body.vehicle.id).toBe(byUuid.id);
    const reserved = await call('GET', front('/rentals?state=RESERVATION'), { token: claraToken });
    expect(reserved.body.map((rental: { id: number }) => rental.id)).toEqual([second.body.id]);
    // Renewing inside the allowance is the workflow's; the app can ask for it.
    const renewed = await operate(claraToken, second.body.id, 'RENEW_RESERVATION');
    expect([200, 409]).toContain(renewed.status);
    expect((await call('DELETE', front(`/rentals/${second.body.id}`), { token: claraToken })).status).toBe(
      200,
    );

    expectError(
      await call('POST', front('/rentals'), {
        token: claraToken,
        body: { vehicleRotatingUuid: '00000000-0000-4000-8000-000000000000' },
      }),
      404,
      'V404',
    );
    expectError(
      await call('POST', front('/rentals'), { token: claraToken, body: { vehicleCode: 'NOPE' } }),
      404,
      'V404',
    );
    expectError(
      await call('POST', front('/rentals'), {
        token: claraToken,
        body: { vehicleId: byId.id, vehicleCode: byId.code },
      }),
      400,
      '0022',
    );
    expectError(await call('POST', front('/rentals'), { token: claraToken, body: {} }), 400, '0022');
    expectError(
      await call('POST', front('/rentals'), {
        token: claraToken,
        body: { vehicleRotatingUuid: 'not-a-uuid' },
      }),
      400,
      '0022',
    );
  });

  test("another customer's rental is A102 on every app endpoint; an app client token alone cannot rent", async () => {
    const vehicle = takeVehicle();
    const own = await call('POST', front('/rentals'), { token: denizToken, body: { vehicleId: vehicle.id } });
    expect(own.status).toBe(201);
    const id = own.body.id;
    const other = { token: benToken };
    expectError(await call('GET', front(`/rentals/${id}`), other), 403, 'A102');
    expectError(await operate(benToken, id, 'START'), 403, 'A102');
    expectError(await call('DELETE', front(`/rentals/${id}`), other), 403, 'A102');
    expectError(await call('POST', front(`/rentals/${id}/buy-reservation?minutes=10`), other), 403, 'A102');
    expectError(
      await call('POST', front(`/rentals/${id}/cleanliness-rating`), { ...other, body: { rating: 3 } }),
      403,
      'A102',
    );
    expect((await call('GET', front('/rentals'), other)).body.map((r: { id: number }) => r.id)).not.toContain(
      id,
    );
    expect((await call('GET', front(`/rentals/${id}`), { token: denizToken })).body.id).toBe(id);
    // Rating before the end.
    expectError(
      await call('POST', front(`/rentals/${id}/cleanliness-rating`), {
        token: denizToken,
        body: { rating: 3 },
      }),
      409,
      'R201',
    );

    // The API client token of the app is not a customer: 0001 on every current-user route.
    expectError(
      await call('POST', front('/rentals'), { token: appClientToken, body: { vehicleId: takeVehicle().id } }),
      401,
      '0001',
    );
    expectError(await call('GET', front('/rentals'), { token: appClientToken }), 401, '0001');
    expectError(await call('GET', front(`/rentals/${id}`), { token: appClientToken }), 401, '0001');
    expectError(await call('GET', front('/rentals'), {}), 401, 'JWT006');
    // The operator's token belongs to the other interface.
    expectError(await call('GET', front('/rentals'), { token: operatorToken }), 403, '0005');

    // buy-reservation: bounded minutes; unknown rentals are R404.
    for (const minutes of ['0', '121', '-5', '1.5', 'abc', '99999999999'])
      expectError(
        await call('POST', front(`/rentals/${id}/buy-reservation?minutes=${minutes}`), { token: denizToken }),
        400,
        '0022',
      );
    expectError(
      await call('POST', front(`/rentals/${id}/buy-reservation`), { token: denizToken }),
      400,
      '0022',
    );
    expectError(
      await call('POST', front('/rentals/999999/buy-reservation?minutes=5'), { token: denizToken }),
      404,
      'R404',
    );
    // Beyond the 120 minutes a rental may buy (the route's bound): R205 from the workflow's validator.
    expect(
      (await call('POST', front(`/rentals/${id}/buy-reservation?minutes=100`), { token: denizToken })).status,
    ).toBe(200);
    expectError(
      await call('POST', front(`/rentals/${id}/buy-reservation?minutes=30`), { token: denizToken }),
      409,
      'R205',
    );

    expect((await call('DELETE', front(`/rentals/${id}`), { token: denizToken })).body.state).toBe(
      'CANCELLED',
    );
    expectError(
      await call('POST', front(`/rentals/${id}/buy-reservation?minutes=5`), { token: denizToken }),
      409,
      'R201',
    );
  });

  test("another tenant's rentals and hostile ids are not found", async () => {
    // The rival's vehicles are not simulated: its rental row stands on its own (reads need no workflow).
    const rivalEm = tenantEm(stack.backend.orm, rival.tenant);
    const rivalVehicle = await rivalEm.findOneOrFail(Vehicle, {}, { orderBy: { id: 'asc' } });
    const [{ id }] = await rivalEm.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    rivalEm.create(Rental, {
      id,
      workflowId: `rental:${rival.tenant}:${id}`,
      state: 'ENDED',
      branch: rivalVehicle.branch,
      vehicle: rivalVehicle,
      customer: rival.customerIds[2]!,
      reservedAt: new Date(),
      endedAt: new Date(),
    });
    await rivalEm.flush();
    expectError(
      await call('POST', front(`/rentals/${id}/cleanliness-rating`), {
        token: annaToken,
        body: { rating: 1 },
      }),
      404,
      'R404',
    );
    expectError(await call('GET', front(`/rentals/${id}`), { token: annaToken }), 404, 'R404');
    expectError(await call('GET', back(`/rentals/${id}`), { token: operatorToken }), 404, 'R404');
    expectError(await call('GET', back(`/rentals/${id}/routes`), { token: operatorToken }), 404, 'R404');
    expectError(await operate(annaToken, id, 'START'), 404, 'R404');
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: rival.customerIds[0], vehicleId: takeVehicle().id },
      }),
      404,
      'U106',
    );
    expectError(
      await call('POST', front('/rentals'), { token: annaToken, body: { vehicleId: rivalVehicle.id } }),
      404,
      'V404',
    );
    // A customer token of the rival tenant does not open this tenant.
    const rivalCustomer = await customerToken(rival.tenant, rival.customerIds[0]!);
    expect([401, 403]).toContain((await call('GET', front('/rentals'), { token: rivalCustomer })).status);
    for (const bad of ['0', '-1', '2147483648', 'abc', '1.5', '%00'])
      expect([bad, (await call('GET', front(`/rentals/${bad}`), { token: annaToken })).status]).toEqual([
        bad,
        400,
      ]);
    expectError(await call('GET', front('/rentals?state=FLYING'), { token: annaToken }), 400, '0022');
    expectError(await call('GET', front('/rentals?size=1000'), { token: annaToken }), 400, '0022');
  });
});

test('buy-reservation extends my reservation by the minutes bought (RESERVATION_PAID)', async () => {
  const vehicle = takeVehicle();
  const reserved = await call('POST', front('/rentals'), {
    token: claraToken,
    body: { vehicleId: vehicle.id },
  });
  expect(reserved.status).toBe(201);
  const bought = await call('POST', front(`/rentals/${reserved.body.id}/buy-reservation?minutes=10`), {
    token: claraToken,
  });
  expect(bought.status).toBe(200);
  expect(bought.body.paidReservationMinutes).toBe(10);
  expect(Date.parse(bought.body.reservationExpiresAt) - Date.parse(reserved.body.reservationExpiresAt)).toBe(
    600_000,
  );
  const events = await em().find(Event, { rentalId: reserved.body.id, type: 'RENTAL_BUY_RESERVATION' });
  expect(events).toHaveLength(1);
  expect((await call('DELETE', front(`/rentals/${reserved.body.id}`), { token: claraToken })).status).toBe(
    200,
  );
});

describe('business rentals', () => {
  test('the account, its cost center and the reason rules; group activity for owner and member', async () => {
    const group = await em().findOneOrFail(UserGroup, { code: demoGroupCode });
    const costCenters = await em().find(CostCenter, { group }, { orderBy: { id: 'asc' } });
    const sales = costCenters.find((center) => center.code === 'SALES')!;
    const ops = costCenters.find((center) => center.code === 'OPS')!;
    const rivalGroup = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(UserGroup, {
      code: demoGroupCode,
    });
    const vehicle = takeVehicle();
    const reserve = (token: string, body: object) =>
      call('POST', front('/rentals'), { token, body: { vehicleId: vehicle.id, ...body } });

    // Clara is no member; ids naming nothing, or another tenant's, are 422 like any body reference.
    expectError(await reserve(claraToken, { userGroupId: group.id }), 422, 'R190');
    expectError(await reserve(benToken, { userGroupId: 999999 }), 422, 'R190');
    expectError(await reserve(benToken, { userGroupId: rivalGroup.id }), 422, 'R190');
    expectError(await reserve(benToken, { userGroupId: group.id, costCenterId: 999999 }), 422, 'R191');
    expectError(await reserve(benToken, { costCenterId: sales.id }), 422, 'R191');
    expectError(await reserve(benToken, { userGroupId: group.id, reason: 'x'.repeat(501) }), 400, '0022');
    expectError(await reserve(benToken, { userGroupId: group.id, reason: 'a\u0000b' }), 400, '0022');

    // An account keeping a driving log needs the trip's reason.
    await em().nativeUpdate(UserGroup, { id: group.id }, { requireDrivingLog: true });
    try {
      expectError(await reserve(benToken, { userGroupId: group.id }), 422, 'R192');
      expectError(await reserve(benToken, { userGroupId: group.id, reason: '   ' }), 422, 'R192');
      const business = await reserve(benToken, {
        userGroupId: group.id,
        costCenterId: ops.id,
        reason: 'Client visit',
      });
      expect(business.status).toBe(201);
      const rentalId = business.body.id;
      expect(await businessInput(rentalId)).toEqual({
        userGroupId: group.id,
        costCenterId: ops.id,
        reason: 'Client visit',
      });
      expect(business.body).toMatchObject({
        userGroupId: group.id,
        costCenterId: ops.id,
        reason: 'Client visit',
      });
      const read = await call('GET', front(`/rentals/${rentalId}`), { token: benToken });
      expect(read.body).toMatchObject({
        userGroupId: group.id,
        costCenterId: ops.id,
        reason: 'Client visit',
      });

      // Ben (member) sees his own business rentals; Anna (owner) sees the account's; Clara is no member.
      const asMember = await call('GET', front(`/rentals/user-group/${group.id}`), { token: benToken });
      expect(asMember.status).toBe(200);
      expect(asMember.body.map((r: { id: number }) => r.id)).toContain(rentalId);
      expect(asMember.body.every((r: { user: { id: number } }) => r.user.id === seed.customerIds[1])).toBe(
        true,
      );
      const asOwner = await call('GET', front(`/rentals/user-group/${group.id}?state=RESERVATION`), {
        token: annaToken,
      });
      expect(asOwner.body.map((r: { id: number }) => r.id)).toContain(rentalId);
      expect(asOwner.headers.get('x-total-count')).toBe(String(asOwner.body.length));
      expectError(
        await call('GET', front(`/rentals/user-group/${group.id}`), { token: claraToken }),
        404,
        'UG404',
      );
      expectError(
        await call('GET', front(`/rentals/user-group/${rivalGroup.id}`), { token: benToken }),
        404,
        'UG404',
      );

      // The operator filters by business account.
      const byGroup = await call('GET', back(`/rentals?branchId=${seed.branchId}&userGroupId=${group.id}`), {
        token: operatorToken,
      });
      expect(byGroup.body.map((r: { id: number }) => r.id)).toEqual([rentalId]);
      expect((await call('DELETE', front(`/rentals/${rentalId}`), { token: benToken })).status).toBe(200);
    } finally {
      await em().nativeUpdate(UserGroup, { id: group.id }, { requireDrivingLog: false });
    }

    // AdminAddRental takes the same context; without a cost center the account's default is used.
    const adminBusiness = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: seed.customerIds[1], vehicleId: vehicle.id, userGroupId: group.id },
    });
    expect(adminBusiness.status).toBe(201);
    expect(await businessInput(adminBusiness.body.id)).toEqual({
      userGroupId: group.id,
      costCenterId: sales.id,
    });
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: seed.customerIds[2], vehicleId: takeVehicle().id, userGroupId: group.id },
      }),
      422,
      'R190',
    );
    expect(
      (await call('DELETE', back(`/rentals/${adminBusiness.body.id}`), { token: operatorToken })).status,
    ).toBe(200);
  });

  test('an ended business rental is a BUSINESS invoice of the account; its billing summary is for managers only', async () => {
    const group = await em().findOneOrFail(UserGroup, { code: demoGroupCode });
    const ops = await em().findOneOrFail(CostCenter, { group, code: 'OPS' });
    const vehicle = takeVehicle();
    const rental = await call('POST', front('/rentals'), {
      token: benToken,
      body: { vehicleId: vehicle.id, userGroupId: group.id, costCenterId: ops.id, reason: 'Site visit' },
    });
    expect(rental.status).toBe(201);
    const id = rental.body.id;
    expect((await operate(benToken, id, 'START')).status).toBe(200);
    stack.backend.simulator.ride(String(vehicle.id), 400);
    const ended = await operate(benToken, id, 'END');
    expect(ended.body).toMatchObject({ state: 'ENDED', userGroupId: group.id });
    expect(ended.body.invoiceId).toEqual(expect.any(Number));
    const invoice = await em().findOneOrFail(Invoice, ended.body.invoiceId);
    expect(invoice).toMatchObject({ type: 'BUSINESS', totalGross: ended.body.priceV4.totals.gross });

    const summary = (query = '') =>
      call('GET', front(`/groups-management/${group.id}/billing-summary${query}`), { token: annaToken });
    const all = await summary();
    expect(all.status).toBe(200);
    const eur = all.body.currencies.find(
      (entry: { currency: string }) => entry.currency === invoice.currency,
    );
    expect(eur.invoiceCount).toBeGreaterThanOrEqual(1);
    expect(eur.costCenters).toEqual(
      expect.arrayContaining([expect.objectContaining({ costCenterId: ops.id })]),
    );
    // Any schema-valid date-time filters: offsets beyond PostgreSQL's range and leap seconds included.
    for (const query of ['?from=8311-06-03T14%3A54%3A03-21%3A29', '?to=2016-12-31T23%3A59%3A60Z'])
      expect((await summary(query)).body.currencies).toEqual([]);
    const past = await summary('?to=2020-01-01T00:00:00Z');
    expect(past.body.currencies).toEqual([]);
    expect((await summary('?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z')).body.currencies).toEqual([]);
    // A member who does not manage the account: A100; someone outside it: UG404.
    expectError(
      await call('GET', front(`/groups-management/${group.id}/billing-summary`), { token: benToken }),
      403,
      'A100',
    );
    expectError(
      await call('GET', front(`/groups-management/${group.id}/billing-summary`), { token: claraToken }),
      404,
      'UG404',
    );
  });
});

describe('operator endpoints', () => {
  test("a blocked customer's rental is refused (U131) and nothing is written; another tenant's customer is U106", async () => {
    const vehicle = takeVehicle();
    const email = uniqueEmail('blocked-renter');
    const signedUp = await call('POST', `/v1/${seed.tenant}/auth/customer/sign-up`, {
      body: { email, password: 'secret-pass-1', firstName: 'B', lastName: 'R', acceptTnc: true },
    });
    expect(signedUp.status).toBe(201);
    const customerId: number = signedUp.body.customerId;
    await em().nativeUpdate(Customer, { id: customerId }, { isBlocked: true });
    const rent = (guserId: number) =>
      call('POST', back('/rentals'), { token: operatorToken, body: { guserId, vehicleId: vehicle.id } });
    expectError(await rent(customerId), 403, 'U131');
    expect(await em().count(Rental, { customer: customerId })).toBe(0);
    expectError(await rent(rival.customerIds[0]!), 404, 'U106');
    // Neither refusal reserved the vehicle: it is still free to rent.
    const after = await em().findOneOrFail(Vehicle, vehicle.id, { refresh: true });
    expect(after.rentalState).toBe(vehicle.rentalState);
  });

  test('list filters, paging headers, export and branch-scope denials', async () => {
    const vehicle = takeVehicle();
    const created = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: seed.customerIds[3], vehicleId: vehicle.id },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const list = (query: string) =>
      call('GET', back(`/rentals?branchId=${seed.branchId}&${query}`), { token: operatorToken });
    const ids = (reply: Reply) => reply.body.map((rental: { id: number }) => rental.id);

    expect(ids(await list(`vehicleId=${vehicle.id}&state=RESERVATION&state=ACTIVE`))).toEqual([id]);
    expect(ids(await list(`vehicleId=${vehicle.id}&state=ENDED`))).toEqual([]);
    expect(ids(await list(`guserId=${seed.customerIds[3]}&state=RESERVATION`))).toEqual([id]);
    expect(
      ids(await list(`searchText=${encodeURIComponent(vehicle.code.slice(1))}&state=RESERVATION`)),
    ).toContain(id);
    expect(ids(await list('searchText=Y%C4%B1lmaz&state=RESERVATION'))).toContain(id);
    expect(ids(await list('searchText=%25&state=RESERVATION'))).toEqual([]);
    const reservedAt = Date.parse(created.body.reservedAt);
    const around = (from: number, to: number) =>
      `reservedFrom=${new Date(from).toISOString()}&reservedTo=${new Date(to).toISOString()}`;
    expect(ids(await list(around(reservedAt, reservedAt + 1)))).toEqual([id]);
    expect(ids(await list(around(reservedAt + 1, reservedAt + 60_000)))).toEqual([]);
    expect(ids(await list(`startedFrom=2000-01-01T00:00:00Z&vehicleId=${vehicle.id}`))).toEqual([]);
    expect(ids(await list(`endedTo=2999-01-01T00:00:00Z&vehicleId=${vehicle.id}`))).toEqual([]);

    const paged = await list('size=1&page=0&sort=id,asc');
    expect(paged.body).toHaveLength(1);
    const total = Number(paged.headers.get('x-total-count'));
    expect(total).toBeGreaterThanOrEqual(3);
    expect(paged.headers.get('x-total-pages')).toBe(String(total));
    expect(paged.headers.get('x-page-number')).toBe('0');
    expect(ids(await list('size=1&page=1&sort=id,asc'))[0]).toBeGreaterThan(paged.body[0].id);
    expect((await list('size=200&sort=endedAt,desc')).status).toBe(200);
    expect(
      Number(
        (
          await call('GET', back(`/rentals?branchId=${seed.cityBranchId}&includeChildBranches=true`), {
            token: operatorToken,
          })
        ).headers.get('x-total-count'),
      ),
    ).toBe(total);

    const exported = await call('GET', back(`/rentals/export?branchId=${seed.branchId}&limit=2`), {
      token: operatorToken,
    });
    expect(exported.status).toBe(200);
    expect(exported.body).toHaveLength(2);
    const next = await call(
      'GET',
      back(`/rentals/export?branchId=${seed.branchId}&limit=10000&afterId=${exported.body[1].id}`),
      { token: operatorToken },
    );
    expect(next.body.length).toBe(total - 2);
    expect(next.body.every((rental: { id: number }) => rental.id > exported.body[1].id)).toBe(true);
    const filtered = await call(
      'GET',
      back(`/rentals/export?branchId=${seed.branchId}&vehicleId=${vehicle.id}`),
      {
        token: operatorToken,
      },
    );
    expect(ids(filtered)).toEqual([id]);
    expectError(
      await call('GET', back(`/rentals/export?branchId=${seed.branchId}&limit=10001`), {
        token: operatorToken,
      }),
      400,
      '0022',
    );

    // The operator client holds no role on the sibling branch.
    const otherBranch = seed.otherBranchId;
    for (const path of [
      `/rentals?branchId=${otherBranch}`,
      `/rentals/export?branchId=${otherBranch}`,
      `/rentals/passed-through?branchId=${otherBranch}`,
    ])
      expectError(await call('GET', back(path), { token: operatorToken }), 403, 'AUTH002');
    const elsewhere = takeVehicle();
    await em().nativeUpdate(Vehicle, { id: elsewhere.id }, { branch: otherBranch });
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: seed.customerIds[2], vehicleId: elsewhere.id },
      }),
      403,
      'AUTH002',
    );
    expectError(await call('GET', back('/rentals?branchId=999999'), { token: operatorToken }), 404, 'B404');
    expectError(
      await call('GET', back(`/rentals?branchId=${seed.branchId}&reservedFrom=yesterday`), {
        token: operatorToken,
      }),
      400,
      '0022',
    );
    expectError(
      await call('GET', back(`/rentals?branchId=${seed.branchId}&searchText=${'x'.repeat(101)}`), {
        token: operatorToken,
      }),
      400,
      '0022',
    );
    expectError(
      await call('GET', back(`/rentals?branchId=${seed.branchId}&searchText=a%00b`), {
        token: operatorToken,
      }),
      400,
      '0022',
    );
    expect((await call('DELETE', back(`/rentals/${id}`), { token: operatorToken })).status).toBe(200);
  });

  test('passed-through: rentals of another branch that ended in this one', async () => {
    const vehicle = takeVehicle();
    const created = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: seed.customerIds[2], vehicleId: vehicle.id },
    });
    const id = created.body.id;
    expect((await call('DELETE', back(`/rentals/${id}`), { token: operatorToken })).status).toBe(200);
    // The end branch is the geography's to set at END; here the row says where the rental ended.
    await em().nativeUpdate(Rental, { id }, { endBranch: seed.cityBranchId });
    const passed = await call('GET', back(`/rentals/passed-through?branchId=${seed.cityBranchId}`), {
      token: operatorToken,
    });
    expect(passed.status).toBe(200);
    expect(passed.body.map((rental: { id: number }) => rental.id)).toEqual([id]);
    expect(passed.body[0]).toMatchObject({ branchId: seed.branchId, endBranchId: seed.cityBranchId });
    expect(passed.headers.get('x-total-count')).toBe('1');
    // The whole subtree counts as one: a rental of a child branch did not pass through.
    const subtree = await call(
      'GET',
      back(`/rentals/passed-through?branchId=${seed.cityBranchId}&includeChildBranches=true`),
      { token: operatorToken },
    );
    expect(subtree.body).toEqual([]);
    const own = await call('GET', back(`/rentals/passed-through?branchId=${seed.branchId}`), {
      token: operatorToken,
    });
    expect(own.body.map((rental: { id: number }) => rental.id)).not.toContain(id);
  });
});
