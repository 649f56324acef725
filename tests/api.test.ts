// The HTTP interfaces end to end: real PostgreSQL, Temporal dev server, MQTT broker and simulated
// vehicles; every response is validated against the OpenAPI documents.
import type { Express } from 'express';
import { infrastructureRoutes } from '../api/app.js';
import { fullPath } from '../api/kernel/route.js';
import { TokenService } from '../api/auth.js';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Event } from '../db/entities/Event.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { recordEvent } from '../db/events.js';
import { type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import { type TestBackend } from './support/stack.js';
import {
  expectError,
  testJwtSecret as jwtSecret,
  type CallOptions,
  type HttpStack,
  type Reply,
} from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { allRoutes } from '../composition/registry.js';
import { demoAppClient, demoOperatorClient } from '../db/seed/access.js';

let session: Session;
let stack: HttpStack;
let backend: TestBackend;
let baseUrl: string;
let operatorToken: string;
let rival: SeededTenant;
let app: Express;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const token = (tenant: string, client: { clientId: string; clientSecret: string }, scope?: string) =>
  stack.token(tenant, client, scope);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);

async function vehicles(): Promise<Vehicle[]> {
  return tenantEm(backend.orm, backend.seed.tenant).find(Vehicle, {}, { orderBy: { id: 'asc' } });
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  ({ stack, backend, rival, operatorToken } = session);
  ({ baseUrl, app } = stack);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('rental lifecycle over HTTP', () => {
  test('POST /rentals reserves; START unlocks over MQTT; END locks; reads and events follow', async () => {
    const [vehicle] = await vehicles();
    const created = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: backend.seed.customerIds[0], vehicleId: vehicle!.id },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'RESERVATION',
      branchId: backend.seed.branchId,
      vehicle: { id: vehicle!.id, code: vehicle!.code },
    });
    expect(created.body.workflowId).toBe(`rental:${backend.seed.tenant}:${created.body.id}`);
    const rentalId = created.body.id;

    const started = await call('POST', back(`/rentals/${rentalId}/operation`), {
      token: operatorToken,
      body: { operationType: 'START' },
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ state: 'ACTIVE', activeMode: 'DRIVING' });
    expect(backend.simulator.getVehicle(String(vehicle!.id))?.locked).toBe(false);

    const parked = await call('POST', back(`/rentals/${rentalId}/operation`), {
      token: operatorToken,
      body: { operationType: 'PARK' },
    });
    expect(parked.body).toMatchObject({ state: 'ACTIVE', activeMode: 'PARKING' });
    const parkedAgain = await call('POST', back(`/rentals/${rentalId}/operation`), {
      token: operatorToken,
      body: { operationType: 'PARK' },
    });
    expectError(parkedAgain, 409, 'R201');
    await call('POST', back(`/rentals/${rentalId}/operation`), {
      token: operatorToken,
      body: { operationType: 'DRIVE' },
    });
    backend.simulator.ride(String(vehicle!.id), 250);

    const ended = await call('POST', back(`/rentals/${rentalId}/operation`), {
      token: operatorToken,
      body: { operationType: 'END' },
    });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ state: 'ENDED', activeMode: null });
    expect(ended.body.endedAt).toEqual(expect.any(String));
    expect(backend.simulator.getVehicle(String(vehicle!.id))?.locked).toBe(true);

    const read = await call('GET', back(`/rentals/${rentalId}`), { token: operatorToken });
    expect(read.body.state).toBe('ENDED');
    const list = await call('GET', back(`/rentals?branchId=${backend.seed.branchId}&state=ENDED`), {
      token: operatorToken,
    });
    expect(list.status).toBe(200);
    expect(list.body.map((rental: { id: number }) => rental.id)).toContain(rentalId);
    expect(Number(list.headers.get('x-total-count'))).toBeGreaterThanOrEqual(1);
    const viaParent = await call(
      'GET',
      back(`/rentals?branchId=${backend.seed.cityBranchId}&includeChildBranches=true`),
      { token: operatorToken },
    );
    expect(viaParent.body.map((rental: { id: number }) => rental.id)).toContain(rentalId);

    // END answered once the rental was ended and priced; its invoice is billed right after, and the
    // billing's events join the rental's timeline then.
    const timeline = async () =>
      (await call('GET', back(`/RENTALS/${rentalId}/events`), { token: operatorToken })).body as Array<{
        type: string;
      }>;
    for (
      const deadline = Date.now() + 30_000;
      !(await timeline()).some((e) => e.type === 'INVOICE_BILLED');
    ) {
      if (Date.now() > deadline) throw new Error(`rental ${rentalId}'s invoice was not billed`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const events = { body: await timeline() };
    const rentalAndVehicle = (event: { type: string }) => /^(RENTAL|VEHICLE)_/.test(event.type);
    expect(events.body.filter(rentalAndVehicle).map((event) => event.type)).toEqual([
      'RENTAL_RESERVATION',
      'VEHICLE_COMMAND_UNLOCK',
      'RENTAL_START',
      'VEHICLE_COMMAND_LOCK',
      'RENTAL_PARK',
      'VEHICLE_COMMAND_UNLOCK',
      'RENTAL_DRIVE',
      'VEHICLE_COMMAND_LOCK',
      'RENTAL_END',
    ]);
    // With includeRelatedEvents the trip's vehicle events join the timeline (here a telemetry-driven one).
    const eventEm = tenantEm(backend.orm, backend.seed.tenant);
    recordEvent(eventEm, {
      type: 'VEHICLE_BATTERY_LEVEL_MEDIUM',
      vehicleId: vehicle!.id,
      branchId: backend.seed.branchId,
      createdAt: new Date(Date.parse(read.body.startedAt) + 1),
    });
    await eventEm.flush();
    const related = await call('GET', back(`/RENTALS/${rentalId}/events?includeRelatedEvents=true`), {
      token: operatorToken,
    });
    expect(related.body.map((event: { type: string }) => event.type)).toContain(
      'VEHICLE_BATTERY_LEVEL_MEDIUM',
    );
    expect(events.body.map((event: { type: string }) => event.type)).not.toContain(
      'VEHICLE_BATTERY_LEVEL_MEDIUM',
    );
    expectError(await call('DELETE', back(`/rentals/${rentalId}`), { token: operatorToken }), 409, 'R201');
  });

  test('DELETE cancels a reservation and releases the vehicle; a second rental for the customer is R102', async () => {
    const [, vehicle, other] = await vehicles();
    const created = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: backend.seed.customerIds[1], vehicleCode: vehicle!.code },
    });
    expect(created.status).toBe(201);
    const second = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: backend.seed.customerIds[1], vehicleId: other!.id },
    });
    expectError(second, 409, 'R102');
    const taken = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: backend.seed.customerIds[2], vehicleId: vehicle!.id },
    });
    expectError(taken, 409, 'R103');

    const cancelled = await call('DELETE', back(`/rentals/${created.body.id}`), { token: operatorToken });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('CANCELLED');
    const row = await tenantEm(backend.orm, backend.seed.tenant).findOneOrFail(Vehicle, vehicle!.id);
    expect(row.rentalState).toBe('AVAILABLE');
  });

  test('a vehicle that refuses to unlock answers 502 R173 and the rental stays reserved', async () => {
    const vehicle = (await vehicles())[3]!;
    const created = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: backend.seed.customerIds[3], vehicleId: vehicle.id },
    });
    backend.simulator.setBehaviour(String(vehicle.id), 'REFUSE');
    try {
      const started = await call('POST', back(`/rentals/${created.body.id}/operation`), {
        token: operatorToken,
        body: { operationType: 'START' },
      });
      expectError(started, 502, 'R173');
    } finally {
      backend.simulator.setBehaviour(String(vehicle.id), 'NORMAL');
    }
    expect(
      (await call('GET', back(`/rentals/${created.body.id}`), { token: operatorToken })).body.state,
    ).toBe('RESERVATION');
    expect(
      (await call('DELETE', back(`/rentals/${created.body.id}`), { token: operatorToken })).body.state,
    ).toBe('CANCELLED');
  });

  test('an offline vehicle is not ready to rent (R103)', async () => {
    const vehicle = (await vehicles())[4]!;
    const em = tenantEm(backend.orm, backend.seed.tenant);
    await em.nativeUpdate(Vehicle, { id: vehicle.id }, { serviceStateV2: 'SERVICE_WORKSHOP' });
    const refused = await call('POST', back('/rentals'), {
      token: operatorToken,
      body: { guserId: backend.seed.customerIds[0], vehicleId: vehicle.id },
    });
    expectError(refused, 409, 'R103');
    expect(refused.body.userMessage).toContain('OUT_OF_ORDER');
  });
});

describe('request errors use the catalogue', () => {
  test('malformed JSON, invalid body, bad parameter, unknown route and wrong method', async () => {
    expectError(
      await call('POST', back('/rentals'), { token: operatorToken, rawBody: '{"guserId": ' }),
      400,
      'AUTH001',
    );
    expectError(
      await call('POST', back('/rentals'), { token: operatorToken, body: { vehicleId: 1 } }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: 1, vehicleId: 1, vehicleCode: 'x' },
      }),
      400,
      '0022',
    );
    expectError(await call('GET', back('/rentals?branchId=abc'), { token: operatorToken }), 400, '0022');
    expectError(await call('GET', back('/rentals'), { token: operatorToken }), 400, '0022');
    expectError(
      await call('POST', back('/rentals/1/operation'), {
        token: operatorToken,
        body: { operationType: 'FLY' },
      }),
      400,
      '0022',
    );
    expectError(await call('GET', back('/no-such-thing'), { token: operatorToken }), 404, '0020');
    expectError(await call('PUT', back('/rentals'), { token: operatorToken, body: {} }), 405, '0021');
    expectError(await call('GET', '/nowhere'), 404, '0020');
    expectError(await call('GET', back('/rentals/999999'), { token: operatorToken }), 404, 'R404');
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: 999999, vehicleId: (await vehicles())[5]!.id },
      }),
      404,
      'U106',
    );
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: 1, vehicleCode: 'NOPE' },
      }),
      404,
      'V404',
    );
  });

  test('health: liveness and readiness', async () => {
    expect((await call('GET', '/health/live')).body).toEqual({ status: 'UP' });
    const ready = await call('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database.status).toBe('UP');
    expect((await fetch(`${baseUrl}/docs/back`)).status).toBe(200);
    expect((await call('GET', '/openapi/back.json')).body.openapi).toBe('3.1.0');
  });

  test('metrics are served on a port of their own, not to anyone on the public one', async () => {
    expectError(await call('GET', '/metrics'), 404, '0020');
    const scrape = await fetch(stack.metricsUrl);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
  });
});

describe('authentication and authorization deny what they must', () => {
  test('token endpoint: wrong secret, unknown tenant, forbidden scope', async () => {
    const tenant = backend.seed.tenant;
    const wrong = await call('POST', `/v1/${tenant}/auth/token`, {
      body: { grant_type: 'client_credentials', client_id: 'demo-operator', client_secret: 'nope' },
    });
    expectError(wrong, 401, 'AUTH101');
    const unknownTenant = await call('POST', `/v1/zz-none/auth/token`, {
      body: { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b' },
    });
    expectError(unknownTenant, 404, 'AUTH051');
    const scope = await call('POST', `/v1/${tenant}/auth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: 'demo-operator',
        client_secret: 'demo-operator-secret',
        scope: 'front',
      },
    });
    expectError(scope, 400, 'AUTH217');
    const form = await fetch(`${baseUrl}/v1/${tenant}/auth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('demo-operator:demo-operator-secret').toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(form.status).toBe(200);
  });

  test('missing header JWT006, invalid token AUTH005, expired 0001, wrong interface 0005', async () => {
    const path = back(`/rentals?branchId=${backend.seed.branchId}`);
    expectError(await call('GET', path), 401, 'JWT006');
    expectError(await call('GET', path, { token: 'not.a.jwt' }), 401, 'AUTH005');
    expectError(await call('GET', path, { headers: { authorization: 'Token abc' } }), 401, 'AUTH005');
    const forged = await new TokenService('another-secret', 60).issue({
      tenant: backend.seed.tenant,
      subjectType: 'API_CLIENT',
      subjectId: 'demo-operator',
      scope: 'back',
    });
    expectError(await call('GET', path, { token: forged }), 401, 'AUTH005');
    const expired = await new TokenService(jwtSecret, 60).issue(
      { tenant: backend.seed.tenant, subjectType: 'API_CLIENT', subjectId: 'demo-operator', scope: 'back' },
      -10,
    );
    expectError(await call('GET', path, { token: expired }), 401, '0001');
    const appToken = await token(backend.seed.tenant, demoAppClient);
    expectError(await call('GET', path, { token: appToken }), 403, '0005');
    expectError(await call('GET', front('/settings?keys=app.map'), { token: operatorToken }), 403, '0005');
  });

  test("a token of one tenant never reads another tenant's data", async () => {
    const rivalToken = await token(rival.tenant, demoOperatorClient);
    const rivalVehicle = (await tenantEm(backend.orm, rival.tenant).find(Vehicle, {}, { limit: 1 }))[0]!;
    expectError(
      await call('GET', back(`/rentals?branchId=${backend.seed.branchId}`), { token: rivalToken }),
      403,
      'AUTH002',
    );
    // Right tenant in path and token, but the other tenant's ids: nothing is found.
    expectError(
      await call('GET', back(`/rentals?branchId=${rival.branchId}`), { token: operatorToken }),
      404,
      'B404',
    );
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: rival.customerIds[0], vehicleId: rivalVehicle.id },
      }),
      404,
      'V404',
    );
    expectError(
      await call('GET', back(`/VEHICLES/${rivalVehicle.id}/events`), { token: operatorToken }),
      404,
      'V404',
    );
  });

  test('branch-scoped permissions: a client with a role on another branch is denied (AUTH002)', async () => {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const role = await em.findOneOrFail(Role, { name: 'Fleet operations' });
    const client = em.create(ApiClient, {
      clientId: 'spandau-ops',
      name: 'Spandau ops',
      secretHash: await hashSecret('spandau-secret'),
      scopes: ['back'],
    });
    em.create(RoleAssignment, {
      role,
      subjectType: 'API_CLIENT',
      subjectId: client.clientId,
      branch: em.getReference(Branch, backend.seed.otherBranchId),
    });
    await em.flush();
    const spandau = await token(backend.seed.tenant, {
      clientId: 'spandau-ops',
      clientSecret: 'spandau-secret',
    });
    expectError(
      await call('GET', back(`/rentals?branchId=${backend.seed.branchId}`), { token: spandau }),
      403,
      'AUTH002',
    );
    const vehicle = (await vehicles())[6]!;
    expectError(
      await call('POST', back('/rentals'), {
        token: spandau,
        body: { guserId: backend.seed.customerIds[2], vehicleId: vehicle.id },
      }),
      403,
      'AUTH002',
    );
    expect(
      (await call('GET', back(`/rentals?branchId=${backend.seed.otherBranchId}`), { token: spandau })).status,
    ).toBe(200);

    const exists = (query: string, bearer: string) =>
      call('GET', back(`/roles/assignments/exists?${query}`), { token: bearer });
    expect((await exists(`permission=RENTAL_READ&branchId=${backend.seed.branchId}`, spandau)).body).toEqual({
      exists: false,
    });
    expect(
      (await exists(`permission=RENTAL_READ&branchId=${backend.seed.otherBranchId}`, spandau)).body,
    ).toEqual({ exists: true });
    expect(
      (await exists(`permission=RENTAL_READ&branchId=${backend.seed.branchId}`, operatorToken)).body,
    ).toEqual({ exists: true });
    expect(
      (await exists(`permission=INVOICE_READ&businessUnitId=${backend.seed.businessUnitId}`, operatorToken))
        .body,
    ).toEqual({ exists: true });
    expect((await exists(`permission=INVOICE_READ`, spandau)).body).toEqual({ exists: false });
    expect((await exists(`roleName=Finance`, operatorToken)).body).toEqual({ exists: true });
    expectError(await exists('', operatorToken), 400, '0022');

    client.active = false;
    await em.flush();
    expectError(
      await call('GET', back(`/rentals?branchId=${backend.seed.otherBranchId}`), { token: spandau }),
      401,
      'AUTH005',
    );
  });
});

describe('app interface', () => {
  test('app events are accepted anonymously with a device position; non-APP_ types are refused', async () => {
    const posted = await call('POST', front('/userevents?type=APP_START'), {
      body: { screen: 'map' },
      headers: { 'device-position': '52.52;13.405' },
    });
    expect(posted.status).toBe(204);
    const events = await tenantEm(backend.orm, backend.seed.tenant).find(Event, { type: 'APP_START' });
    expect(events).toHaveLength(1);
    expect(events[0]!.position).toEqual({ lat: 52.52, lng: 13.405 });
    expect(events[0]!.payload).toEqual({ requestInfo: { screen: 'map' } });
    expectError(await call('POST', front('/userevents?type=RENTAL_START')), 400, '0022');
    expectError(
      await call('POST', front('/userevents?type=APP_LOGIN'), { token: 'garbage' }),
      401,
      'AUTH005',
    );
  });

  test('settings resolve APP values per branch with the tenant fallback', async () => {
    const appToken = await token(backend.seed.tenant, demoAppClient);
    const settings = await call(
      'GET',
      front(`/settings?keys=app.map&keys=rental.reservation&branchIds=${backend.seed.branchId}`),
      { token: appToken },
    );
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual([
      {
        key: 'app.map',
        area: 'APP',
        branchIds: [backend.seed.branchId],
        value: expect.objectContaining({ zoom: 14 }),
      },
    ]);
    expectError(await call('GET', front('/settings?keys=app.map')), 401, 'JWT006');
    // A branch that does not exist (here or anywhere) gets no made-up value; 0 is the tenant-wide one.
    expectError(
      await call('GET', front(`/settings?keys=app.map&branchIds=0&branchIds=99999`), { token: appToken }),
      404,
      'B404',
    );
    const rival = await call('GET', front(`/settings?keys=app.map&branchIds=0`), { token: appToken });
    expect(rival.status).toBe(200);
  });
});

describe('hostile input never reaches a handler unvalidated and never causes a 5xx', () => {
  test('paths are case-sensitive and exact: case variants and trailing slashes are unknown routes', async () => {
    const tenant = backend.seed.tenant;
    for (const path of [
      `/v1/${tenant}/Back/rentals?branchId=${backend.seed.branchId}`,
      `/v1/${tenant}/back/Rentals?branchId=${backend.seed.branchId}`,
      `/v1/${tenant}/back/rentals/?branchId=${backend.seed.branchId}`,
      `/V1/${tenant}/back/rentals?branchId=${backend.seed.branchId}`,
    ])
      expectError(await call('GET', path, { token: operatorToken }), 404, '0020');
    // Seen before: an unknown operationType and an object as a boolean reached the workflow through /Back.
    expectError(
      await call('POST', `/v1/${tenant}/Back/rentals/1/operation`, {
        token: operatorToken,
        body: { operationType: 'FLY', adminOverride: { x: 1 } },
      }),
      404,
      '0020',
    );
  });

  test('NUL characters in bodies, queries and headers-derived values are refused with 0022', async () => {
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: backend.seed.customerIds[0], vehicleCode: 'SC\u0000001' },
      }),
      400,
      '0022',
    );
    const appToken = await token(backend.seed.tenant, demoAppClient);
    expectError(await call('GET', front('/settings?keys=app%00map'), { token: appToken }), 400, '0022');
    expectError(
      await call('POST', front('/userevents?type=APP_OPEN'), { body: { 'scr\u0000een': 'map' } }),
      400,
      '0022',
    );
    expectError(
      await call('GET', back(`/roles/assignments/exists?roleName=Fin%00ance`), { token: operatorToken }),
      400,
      '0022',
    );
  });

  test('unbounded numbers are refused by the contract, not by PostgreSQL', async () => {
    const list = `/rentals?branchId=${backend.seed.branchId}`;
    expectError(
      await call('GET', back(`${list}&page=100000000000000000000`), { token: operatorToken }),
      400,
      '0022',
    );
    expectError(await call('GET', back(`${list}&size=1e3`), { token: operatorToken }), 400, '0022');
    expectError(
      await call('GET', back('/rentals/99999999999999999999'), { token: operatorToken }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        rawBody: '{"guserId": 1e400, "vehicleId": 1}',
      }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/rentals'), { token: operatorToken, body: { guserId: 1e20, vehicleId: 1 } }),
      400,
      '0022',
    );
    // The last page of a real list answers normally.
    expect((await call('GET', back(`${list}&page=1000000`), { token: operatorToken })).status).toBe(200);
  });

  test('a malformed Basic header at the token endpoint is a credentials error', async () => {
    const tenant = backend.seed.tenant;
    for (const credentials of ['%E0%A4%A:secret', 'no-colon-here', ':', '\u0000:\u0000']) {
      const reply = await fetch(`${baseUrl}/v1/${tenant}/auth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      });
      const body = (await reply.json()) as { errorCode: string };
      expect({ status: reply.status, code: body.errorCode }).toEqual(
        reply.status === 400 ? { status: 400, code: '0022' } : { status: 401, code: 'AUTH101' },
      );
    }
    const garbage = await fetch(`${baseUrl}/v1/${tenant}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ###' },
      body: 'grant_type=client_credentials',
    });
    expect(garbage.status).toBeLessThan(500);
  });

  test('deeply nested or oversized app event details are refused, not crashed on', async () => {
    const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expectError(await call('POST', front('/userevents?type=APP_OPEN'), { rawBody: deep }), 400, '0022');
    const wide = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, index]));
    expectError(await call('POST', front('/userevents?type=APP_OPEN'), { body: wide }), 400, '0022');
    expectError(
      await call('GET', `/v1/%E0%A4%A/back/rentals?branchId=1`, { token: operatorToken }),
      400,
      '0022',
    );
  });

  test('an anonymous app event for an unknown tenant is AUTH051', async () => {
    expectError(
      await call('POST', '/v1/zz-nobody/front/userevents?type=APP_START', { body: {} }),
      404,
      'AUTH051',
    );
  });

  test('JSON bodies are taken as typed: a string is not an integer, an object is not a boolean', async () => {
    const vehicle = (await vehicles())[7]!;
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: String(backend.seed.customerIds[0]), vehicleId: vehicle.id },
      }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/rentals'), {
        token: operatorToken,
        body: { guserId: backend.seed.customerIds[0], vehicleId: vehicle.id, startImmediately: 'true' },
      }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/rentals/1/operation'), {
        token: operatorToken,
        body: { operationType: 'START', adminOverride: { yes: true } },
      }),
      400,
      '0022',
    );
  });

  test('repeated query parameters are accepted up to the documented maximum', async () => {
    const appToken = await token(backend.seed.tenant, demoAppClient);
    const keys = (count: number) => Array.from({ length: count }, (_, index) => `keys=k${index}`).join('&');
    const fifty = await call('GET', front(`/settings?keys=app.map&${keys(49)}`), { token: appToken });
    expect(fifty.status).toBe(200);
    expect(fifty.body.map((setting: { key: string }) => setting.key)).toEqual(['app.map']);
    expectError(await call('GET', front(`/settings?${keys(51)}`), { token: appToken }), 400, '0022');
    const states = await call(
      'GET',
      back(`/rentals?branchId=${backend.seed.branchId}&state=ENDED&state=CANCELLED`),
      { token: operatorToken },
    );
    expect(states.status).toBe(200);
  });

  test('415 and 431 are documented catalogue answers', async () => {
    const unsupported = await call('POST', back('/rentals'), {
      token: operatorToken,
      rawBody: 'guserId=1',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(unsupported, 415, '0023');
    const document = (await call('GET', '/openapi/back.json')).body;
    expect(Object.keys(document.paths['/v1/{tenant}/back/rentals'].post.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '409', '413', '415', '431']),
    );
    const tooLarge = await fetch(`${baseUrl}${back('/rentals')}`, {
      headers: { 'x-padding': 'x'.repeat(20_000) },
    });
    expect(tooLarge.status).toBe(431);
    expect(await tooLarge.json()).toEqual({
      errorCode: '0025',
      userMessage: expect.any(String),
      httpStatus: 431,
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any -- walking untyped JSON documents */
describe('the contract is the declarations', () => {
  test('every express route is a declaration or an infrastructure route, and every declaration is served', () => {
    interface Layer {
      route?: { path: string; methods: object };
      // A router, or the kernel's dispatch to one router per resource.
      handle?: { stack?: Layer[]; routers?: Array<{ stack: Layer[] }> };
    }
    const routesOf = (layers: Layer[]): string[] =>
      layers.flatMap((layer) =>
        layer.route
          ? Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${layer.route!.path}`)
          : [
              ...routesOf(layer.handle?.stack ?? []),
              ...(layer.handle?.routers ?? []).flatMap((router) => routesOf(router.stack)),
            ],
      );
    const served = routesOf((app.router as unknown as { stack: Layer[] }).stack);
    const declared = allRoutes().map(
      (route) => `${route.method.toUpperCase()} ${fullPath(route).replace(/\{([^}]+)\}/g, ':$1')}`,
    );
    expect(served.filter((route) => !declared.includes(route)).sort()).toEqual(
      [...infrastructureRoutes].sort(),
    );
    expect(declared.filter((route) => !served.includes(route))).toEqual([]);
  });

  test('every operation of both documents has an operationId, summary, tags and catalogue error responses', async () => {
    for (const name of ['back', 'front']) {
      const document = (await call('GET', `/openapi/${name}.json`)).body;
      for (const [path, operations] of Object.entries(
        document.paths as Record<string, Record<string, any>>,
      )) {
        for (const [method, operation] of Object.entries(operations)) {
          const where = `${method.toUpperCase()} ${path}`;
          expect({
            where,
            operationId: typeof operation.operationId,
            summary: typeof operation.summary,
          }).toEqual({
            where,
            operationId: 'string',
            summary: 'string',
          });
          expect(operation.tags.length).toBeGreaterThan(0);
          const errors = Object.entries(operation.responses as Record<string, any>).filter(
            ([status]) => Number(status) >= 400,
          );
          expect(errors.length).toBeGreaterThan(0);
          for (const [, response] of errors) {
            expect(response.description).toMatch(/`[0-9A-Z.]+`/);
            expect(response.content['application/json'].schema).toEqual({
              $ref: '#/components/schemas/Error',
            });
          }
        }
      }
    }
  });

  test('every value a client sends is bounded by the documents', async () => {
    const unbounded: string[] = [];
    const visit = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.type === 'integer' || schema.type === 'number') {
        if (schema.maximum === undefined || schema.minimum === undefined)
          unbounded.push(`${where}: ${schema.type}`);
      }
      if (schema.type === 'string' && schema.maxLength === undefined && !schema.enum)
        unbounded.push(`${where}: string`);
      if (schema.type === 'array' && schema.maxItems === undefined) unbounded.push(`${where}: array`);
      for (const [key, value] of Object.entries(schema))
        if (typeof value === 'object') visit(value, `${where}/${key}`);
    };
    for (const name of ['back', 'front']) {
      const document = (await call('GET', `/openapi/${name}.json`)).body;
      const resolve = (schema: any) =>
        schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
      for (const [path, operations] of Object.entries(
        document.paths as Record<string, Record<string, any>>,
      )) {
        for (const [method, operation] of Object.entries(operations)) {
          for (const parameter of operation.parameters ?? [])
            visit(parameter.schema, `${method} ${path} ${parameter.name}`);
          for (const [type, content] of Object.entries(operation.requestBody?.content ?? {}))
            visit(resolve((content as any).schema), `${method} ${path} body ${type}`);
        }
      }
    }
    expect(unbounded).toEqual([]);
  });
});
/* eslint-enable @typescript-eslint/no-explicit-any */
