// The HTTP interfaces end to end: real PostgreSQL, Temporal dev server, MQTT broker and simulated
// vehicles; every response is validated against the OpenAPI documents.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../api/app.js';
import { TokenService } from '../api/auth.js';
import { ApiClient, Event, Role, RoleAssignment, Vehicle } from '../db/entities/index.js';
import { tenantEm } from '../db/orm.js';
import { seedTenant, demoAppClient, demoOperatorClient, type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import { startTestBackend, uniqueTenant, type TestBackend } from './support/stack.js';

const jwtSecret = 'test-secret-for-the-api-suite';
let backend: TestBackend;
let server: Server;
let baseUrl: string;
let operatorToken: string;
let rival: SeededTenant;

interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined || options.rawBody !== undefined)
    headers['content-type'] ??= 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function token(
  tenant: string,
  client: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const reply = await call('POST', `/v1/${tenant}/auth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...(scope ? { scope } : {}),
    },
  });
  expect(reply.status).toBe(200);
  return reply.body.access_token;
}

function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.errorCode }).toEqual({ status, code });
  expect(reply.body).toEqual({
    errorCode: code,
    userMessage: expect.any(String),
    httpStatus: status,
    traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
}

const back = (path: string) => `/v1/${backend.seed.tenant}/back${path}`;
const front = (path: string) => `/v1/${backend.seed.tenant}/front${path}`;

async function vehicles(): Promise<Vehicle[]> {
  return tenantEm(backend.orm, backend.seed.tenant).find(Vehicle, {}, { orderBy: { id: 'asc' } });
}

beforeAll(async () => {
  backend = await startTestBackend();
  rival = await seedTenant(backend.orm.em, uniqueTenant('rival'), 'Rival Mobility');
  const app = createApp({
    orm: backend.orm,
    temporal: backend.client,
    taskQueue: backend.taskQueue,
    jwtSecret,
    tokenTtlSeconds: 600,
    readinessChecks: {
      database: async () => void (await backend.orm.em.getConnection().execute('select 1')),
    },
    validateResponses: true,
    log: (message) => console.error(message),
  });
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  operatorToken = await token(backend.seed.tenant, demoOperatorClient);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await backend?.stop();
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

    const events = await call('GET', back(`/RENTALS/${rentalId}/events`), { token: operatorToken });
    expect(events.body.map((event: { type: string }) => event.type)).toEqual([
      'RENTAL_RESERVATION',
      'VEHICLE_COMMAND_UNLOCK',
      'RENTAL_START',
      'VEHICLE_COMMAND_LOCK',
      'RENTAL_PARK',
      'VEHICLE_COMMAND_LOCK',
      'RENTAL_END',
    ]);
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
      tenant: backend.seed.tenant as never,
      clientId: 'spandau-ops',
      name: 'Spandau ops',
      secretHash: await hashSecret('spandau-secret'),
      scopes: ['back'],
    });
    em.create(RoleAssignment, {
      tenant: backend.seed.tenant as never,
      role,
      subjectType: 'API_CLIENT',
      subjectId: client.clientId,
      branch: backend.seed.otherBranchId as never,
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
  });
});
