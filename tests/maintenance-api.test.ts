// The maintenance service end to end over HTTP against the real database: its own served document (and the
// operator and app documents without it), the maintenance logs against events written with known buckets
// (a time zone bucket, an invalid zone falling back to UTC), branch-scope and tenant denials, and hostile
// input on every route. Every response is validated against the maintenance document. Field routes and
// service vehicles: maintenance-field-routes.test.ts; the pure rules: maintenance-rules.test.ts.
/* eslint-disable @typescript-eslint/no-explicit-any -- reading untyped JSON answers and documents */
import { Event } from '../db/entities/Event.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startMaintenanceSession, type MaintenanceSession } from './support/maintenance-session.js';

let ms: MaintenanceSession;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let reader: string;
let rivalOperator: string;
let appToken: string;
let vehicles: Vehicle[];

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const mt = (path: string) => `/v1/${seed.tenant}/maintenance/api${path}`;
const em = () => tenantEm(stack.backend.orm, seed.tenant);

beforeAll(async () => {
  ms = await startMaintenanceSession('rivalmt');
  ({ stack, seed, rival } = ms.session);
  ({ operator, reader, rivalOperator, appToken, vehicles } = ms);
}, 120_000);

afterAll(async () => {
  await ms?.session.stop();
});

describe('the maintenance document', () => {
  it('is served, validated like the others, and the operator and app documents do not carry it', async () => {
    const document = (await call('GET', '/openapi/maintenance.json')).body;
    expect(document.openapi).toBe('3.1.0');
    const paths = Object.keys(document.paths);
    for (const path of [
      '/vehicle-maintenance-log/branch/{branchId}',
      '/vehicle-maintenance-log/branch/{branchId}/battery-swaps',
      '/vehicle-maintenance-log/branch/{branchId}/latest-activities',
      '/vehicle-maintenance-log/user/{userAuthId}',
      '/vehicle-maintenance-log/user/{userAuthId}/details',
      '/vehicle-maintenance-log/user/{userAuthId}/battery-swaps',
      '/vehicle-maintenance-log/user/{userAuthId}/approached-vehicle',
      '/routes',
      '/routes/my',
      '/routes/{routeId}/action',
      '/routes/{routeId}/stop-action',
      '/routes/{routeId}/stop-item-action',
      '/vehicles',
    ])
      expect(paths).toContain(`/v1/{tenant}/maintenance/api${path}`);
    expect(Object.keys(document.paths['/v1/{tenant}/maintenance/api/routes']).sort()).toEqual([
      'get',
      'patch',
      'post',
    ]);
    expect(Object.keys(document.paths['/v1/{tenant}/maintenance/api/vehicles']).sort()).toEqual([
      'delete',
      'get',
      'patch',
      'post',
    ]);
    // Every path is the service's or the token endpoints'.
    expect(paths.filter((path) => !/^\/v1\/\{tenant\}\/(maintenance\/api|auth)\//.test(path))).toEqual([]);
    for (const name of ['back', 'front']) {
      const other = (await call('GET', `/openapi/${name}.json`)).body;
      expect(Object.keys(other.paths).filter((path) => path.includes('/maintenance/api'))).toEqual([]);
    }
    // Bounded inputs, operation ids, catalogue errors, as in the other documents.
    const unbounded: string[] = [];
    const visit = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (
        (schema.type === 'integer' || schema.type === 'number') &&
        (schema.maximum === undefined || schema.minimum === undefined)
      )
        unbounded.push(where);
      if (schema.type === 'string' && schema.maxLength === undefined && !schema.enum) unbounded.push(where);
      if (schema.type === 'array' && schema.maxItems === undefined) unbounded.push(where);
      for (const [key, value] of Object.entries(schema))
        if (typeof value === 'object') visit(value, `${where}/${key}`);
    };
    const resolve = (schema: any) =>
      schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(operations)) {
        expect(typeof operation.operationId).toBe('string');
        expect(operation.tags.length).toBeGreaterThan(0);
        for (const parameter of operation.parameters ?? [])
          visit(parameter.schema, `${method} ${path} ${parameter.name}`);
        for (const content of Object.values(operation.requestBody?.content ?? {}))
          visit(resolve((content as any).schema), `${method} ${path} body`);
        expect(Object.keys(operation.responses).some((status) => Number(status) >= 400)).toBe(true);
      }
    expect(unbounded).toEqual([]);
    expect((await fetch(`${stack.baseUrl}/docs/maintenance`)).status).toBe(200);
  });

  it('authenticates as the operator interface does', async () => {
    const path = mt(`/routes?branchId=${seed.branchId}`);
    expectError(await call('GET', path), 401, 'JWT006');
    expectError(await call('GET', path, { token: appToken }), 403, '0005');
    expectError(await call('GET', path, { token: rivalOperator }), 403, 'AUTH002');
    expectError(await call('GET', path, { token: 'not-a-token' }), 401, 'AUTH005');
    expectError(await call('GET', mt('/nothing-here'), { token: operator }), 404, '0020');
    expectError(await call('PUT', mt('/routes'), { token: operator, body: {} }), 405, '0021');
  });
});

describe('maintenance logs', () => {
  const alice = 'operator:alice';
  const window = 'startDate=2030-03-10T00:00:00Z&endDate=2030-03-13T00:00:00Z';
  let first: number;
  let second: number;

  beforeAll(async () => {
    const setup = em();
    [first, second] = [vehicles[0]!.id, vehicles[1]!.id];
    const event = (type: string, at: string, extra: Record<string, unknown> = {}) =>
      setup.create(Event, {
        type,
        createdAt: new Date(at),
        branchId: seed.branchId,
        vehicleId: first,
        adminSubject: alice,
        ...extra,
      });
    event('VEHICLE_MAINTENANCE_APPROACH', '2030-03-10T22:30:00Z');
    // 00:30 on the 11th in Berlin (UTC+1 in March), still the 10th in UTC.
    event('BATTERY_SWAP', '2030-03-10T23:30:00Z');
    event('VEHICLE_MAINTENANCE_CLOSE', '2030-03-11T08:00:00Z');
    event('VEHICLE_COMMAND_LOCK', '2030-03-11T09:00:00Z');
    event('VEHICLE_COMMAND_UNLOCK', '2030-03-11T09:30:00Z', { rentalId: 77 }); // a rental's own: not maintenance
    event('VEHICLE_MAINTENANCE_APPROACH', '2030-03-11T12:00:00Z', { vehicleId: second });
    event('VEHICLE_SERVICE_STATE_V2_INSPECT', '2030-03-12T10:00:00Z', { adminSubject: 'operator:bob' });
    event('RENTAL_START', '2030-03-11T10:00:00Z'); // not a maintenance event
    event('VEHICLE_MAINTENANCE_DEPLOY', '2030-03-11T10:00:00Z', { branchId: seed.otherBranchId });
    event('VEHICLE_MAINTENANCE_DEPLOY', '2030-03-14T10:00:00Z'); // after the window
    await setup.flush();
    const other = tenantEm(stack.backend.orm, rival.tenant);
    other.create(Event, {
      type: 'BATTERY_SWAP',
      createdAt: new Date('2030-03-11T10:00:00Z'),
      branchId: rival.branchId,
    });
    await other.flush();
  });

  const zero = {
    APPROACH: 0,
    DEPLOY: 0,
    CLOSE: 0,
    VEHICLE_COMMAND: 0,
    SERVICE_STATE_CHANGE: 0,
    BATTERY_SWAP: 0,
  };

  it("counts a branch's events per UTC day, per Berlin day, and falls back to UTC for an invalid zone", async () => {
    const utc = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.branchId}?${window}&interval=DAY`),
      { token: reader },
    );
    expect(utc.status).toBe(200);
    expect(utc.body).toMatchObject({
      branchId: seed.branchId,
      userAuthId: null,
      interval: 'DAY',
      userTimezone: 'UTC',
    });
    expect(utc.body.totals).toEqual({
      ...zero,
      APPROACH: 2,
      CLOSE: 1,
      VEHICLE_COMMAND: 1,
      SERVICE_STATE_CHANGE: 1,
      BATTERY_SWAP: 1,
    });
    expect(utc.body.buckets).toEqual([
      {
        start: '2030-03-10T00:00:00.000Z',
        localStart: '2030-03-10T00:00:00',
        total: 2,
        counts: { ...zero, APPROACH: 1, BATTERY_SWAP: 1 },
      },
      {
        start: '2030-03-11T00:00:00.000Z',
        localStart: '2030-03-11T00:00:00',
        total: 3,
        counts: { ...zero, APPROACH: 1, CLOSE: 1, VEHICLE_COMMAND: 1 },
      },
      {
        start: '2030-03-12T00:00:00.000Z',
        localStart: '2030-03-12T00:00:00',
        total: 1,
        counts: { ...zero, SERVICE_STATE_CHANGE: 1 },
      },
    ]);
    const berlin = await call(
      'GET',
      mt(
        `/vehicle-maintenance-log/branch/${seed.branchId}?${window}&interval=DAY&userTimezone=Europe/Berlin`,
      ),
      { token: reader },
    );
    expect(berlin.body.userTimezone).toBe('Europe/Berlin');
    expect(berlin.body.buckets.map((b: any) => [b.start, b.localStart, b.total])).toEqual([
      ['2030-03-09T23:00:00.000Z', '2030-03-10T00:00:00', 1],
      ['2030-03-10T23:00:00.000Z', '2030-03-11T00:00:00', 4],
      ['2030-03-11T23:00:00.000Z', '2030-03-12T00:00:00', 1],
    ]);
    for (const zone of ['Mars/Olympus_Mons', 'not a zone', 'Europe/../etc', '%00'])
      expect(
        (
          await call(
            'GET',
            mt(
              `/vehicle-maintenance-log/branch/${seed.branchId}?${window}&userTimezone=${encodeURIComponent(zone)}`,
            ),
            {
              token: reader,
            },
          )
        ).body,
      ).toMatchObject({ userTimezone: 'UTC', buckets: utc.body.buckets });
    const month = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.branchId}?${window}&interval=MONTH`),
      { token: reader },
    );
    expect(month.body.buckets).toEqual([
      expect.objectContaining({ start: '2030-03-01T00:00:00.000Z', total: 6 }),
    ]);
    const hours = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.branchId}?${window}&interval=HOUR`),
      { token: reader },
    );
    expect(hours.body.buckets[0]).toMatchObject({ start: '2030-03-10T22:00:00.000Z', total: 1 });
    // The city alone has none; with its children it has the district's.
    const city = await call('GET', mt(`/vehicle-maintenance-log/branch/${seed.cityBranchId}?${window}`), {
      token: operator,
    });
    expect(city.body.buckets).toEqual([]);
    const tree = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.cityBranchId}?${window}&includeChildBranches=true`),
      {
        token: operator,
      },
    );
    expect(tree.body.totals).toEqual(utc.body.totals);
  });

  it('counts battery swaps per bucket, in the time zone', async () => {
    const utc = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.branchId}/battery-swaps?${window}`),
      { token: reader },
    );
    expect(utc.body).toMatchObject({ totalSwaps: 1, interval: 'DAY', userTimezone: 'UTC' });
    expect(utc.body.buckets).toEqual([
      { start: '2030-03-10T00:00:00.000Z', localStart: '2030-03-10T00:00:00', swaps: 1, vehicles: 1 },
    ]);
    const berlin = await call(
      'GET',
      mt(
        `/vehicle-maintenance-log/branch/${seed.branchId}/battery-swaps?${window}&userTimezone=Europe/Berlin`,
      ),
      { token: reader },
    );
    expect(berlin.body.buckets).toEqual([
      { start: '2030-03-10T23:00:00.000Z', localStart: '2030-03-11T00:00:00', swaps: 1, vehicles: 1 },
    ]);
    const user = await call(
      'GET',
      mt(
        `/vehicle-maintenance-log/user/${alice}/battery-swaps?branchId=${seed.branchId}&${window}&interval=WEEK`,
      ),
      {
        token: reader,
      },
    );
    expect(user.body).toMatchObject({ userAuthId: alice, totalSwaps: 1, interval: 'WEEK' });
    expect(user.body.buckets[0].start).toBe('2030-03-04T00:00:00.000Z'); // the Monday
    const bob = await call(
      'GET',
      mt(`/vehicle-maintenance-log/user/operator:bob/battery-swaps?branchId=${seed.branchId}&${window}`),
      { token: reader },
    );
    expect(bob.body).toMatchObject({ totalSwaps: 0, buckets: [] });
  });

  it('lists latest activities and a user’s details, paged, newest first', async () => {
    const page = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.branchId}/latest-activities?${window}&size=2`),
      { token: reader },
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('x-total-count')).toBe('6');
    expect(page.body.map((a: any) => [a.kind, a.eventType])).toEqual([
      ['SERVICE_STATE_CHANGE', 'VEHICLE_SERVICE_STATE_V2_INSPECT'],
      ['APPROACH', 'VEHICLE_MAINTENANCE_APPROACH'],
    ]);
    expect(page.body[0]).toMatchObject({
      userAuthId: 'operator:bob',
      branchId: seed.branchId,
      vehicleId: first,
    });
    const beyond = await call(
      'GET',
      mt(`/vehicle-maintenance-log/branch/${seed.branchId}/latest-activities?${window}&page=50`),
      { token: reader },
    );
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-total-count')).toBe('6');
    const details = await call(
      'GET',
      mt(`/vehicle-maintenance-log/user/${alice}/details?branchId=${seed.branchId}&${window}`),
      { token: reader },
    );
    expect(details.headers.get('x-total-count')).toBe('5');
    expect(details.body.every((a: any) => a.userAuthId === alice)).toBe(true);
    const metrics = await call(
      'GET',
      mt(`/vehicle-maintenance-log/user/${alice}?branchId=${seed.branchId}&${window}`),
      { token: reader },
    );
    expect(metrics.body.totals).toEqual({
      ...zero,
      APPROACH: 2,
      CLOSE: 1,
      VEHICLE_COMMAND: 1,
      BATTERY_SWAP: 1,
    });
    // Without a window: the last 30 days (none of these 2030 events).
    const recent = await call(
      'GET',
      mt(`/vehicle-maintenance-log/user/${alice}/details?branchId=${seed.branchId}`),
      { token: reader },
    );
    expect(recent.body).toEqual([]);
  });

  it('lists the vehicles a user approached', async () => {
    const reply = await call(
      'GET',
      mt(`/vehicle-maintenance-log/user/${alice}/approached-vehicle?branchId=${seed.branchId}&${window}`),
      {
        token: reader,
      },
    );
    expect(reply.headers.get('x-total-count')).toBe('2');
    expect(reply.body).toEqual([
      expect.objectContaining({
        vehicleId: second,
        vehicleCode: vehicles[1]!.code,
        approaches: 1,
        lastApproachedAt: '2030-03-11T12:00:00.000Z',
      }),
      expect.objectContaining({
        vehicleId: first,
        approaches: 1,
        lastApproachedAt: '2030-03-10T22:30:00.000Z',
      }),
    ]);
  });

  it('refuses bad windows and parameters with catalogue errors, and other branches and tenants', async () => {
    const base = `/vehicle-maintenance-log/branch/${seed.branchId}`;
    expectError(
      await call('GET', mt(`${base}?startDate=2030-03-13T00:00:00Z&endDate=2030-03-10T00:00:00Z`), {
        token: reader,
      }),
      400,
      'MT100',
    );
    expectError(
      await call('GET', mt(`${base}?startDate=2028-01-01T00:00:00Z&endDate=2030-01-01T00:00:00Z`), {
        token: reader,
      }),
      400,
      'MT100',
    );
    expectError(
      await call(
        'GET',
        mt(`${base}?startDate=2030-01-01T00:00:00Z&endDate=2030-03-01T00:00:00Z&interval=HOUR`),
        { token: reader },
      ),
      400,
      'MT100',
    );
    for (const query of [
      'endDate=2030-03-10T00:00:00Z', // startDate missing
      `${window}&interval=YEAR`,
      `${window}&interval=day`,
      'startDate=2030-02-30T00:00:00Z&endDate=2030-03-10T00:00:00Z',
      `${window}&includeChildBranches=maybe`,
      `${window}&unknown=1`,
      `${window}&userTimezone=${'x'.repeat(65)}`,
      `${window}&userTimezone=Europe%00Berlin`,
    ])
      expectError(await call('GET', mt(`${base}?${query}`), { token: reader }), 400, '0022');
    expectError(
      await call('GET', mt(`/vehicle-maintenance-log/user/${alice}?${window}`), { token: reader }),
      400,
      '0022',
    ); // branchId required
    for (const id of ['0x1', '1e3', '01', '-1', '2147483648', 'abc'])
      expectError(
        await call('GET', mt(`/vehicle-maintenance-log/branch/${id}?${window}`), { token: reader }),
        400,
        '0022',
      );
    expectError(
      await call('GET', mt(`/vehicle-maintenance-log/branch/${seed.cityBranchId}?${window}`), {
        token: reader,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', mt(`/vehicle-maintenance-log/branch/${seed.otherBranchId}/battery-swaps?${window}`), {
        token: operator,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', mt(`/vehicle-maintenance-log/user/${alice}/details?branchId=${seed.otherBranchId}`), {
        token: operator,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', mt(`/vehicle-maintenance-log/branch/${rival.branchId}?${window}`), {
        token: operator,
      }),
      404,
      'B404',
    );
    expectError(
      await call(
        'GET',
        mt(`/vehicle-maintenance-log/user/x/approached-vehicle?branchId=${rival.cityBranchId}`),
        { token: operator },
      ),
      404,
      'B404',
    );
  });
});

describe('hostile input on every route', () => {
  it('answers catalogue errors, never a fault', async () => {
    const nul = 'a\u0000b';
    const cases: [string, string, CallOptions['body'] | undefined, number, string][] = [
      [
        'GET',
        `/vehicle-maintenance-log/branch/1e3?startDate=2030-01-01T00:00:00Z&endDate=2030-01-02T00:00:00Z`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/branch/${seed.branchId}/battery-swaps?startDate=x&endDate=y`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/branch/${seed.branchId}/battery-swaps?startDate=2030-01-01T00:00:00Z&endDate=2030-01-02T00:00:00Z&interval=HOUR`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/branch/${seed.branchId}/latest-activities?size=0`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/branch/${seed.branchId}/latest-activities?page=0x1`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/user/${encodeURIComponent(nul)}/details?branchId=${seed.branchId}`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/user/${'u'.repeat(201)}?branchId=${seed.branchId}&startDate=2030-01-01T00:00:00Z&endDate=2030-01-02T00:00:00Z`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/user/a/battery-swaps?branchId=1.5&startDate=2030-01-01T00:00:00Z&endDate=2030-01-02T00:00:00Z`,
        undefined,
        400,
        '0022',
      ],
      [
        'GET',
        `/vehicle-maintenance-log/user/a/approached-vehicle?branchId=${seed.branchId}&endDate=2030-13-01T00:00:00Z`,
        undefined,
        400,
        '0022',
      ],
      ['GET', `/routes?branchId=${seed.branchId}&state=DONE`, undefined, 400, '0022'],
      ['GET', '/routes/my?size=101', undefined, 400, '0022'],
      ['POST', '/routes', { branchId: '1', name: 'x', stops: [] }, 400, '0022'],
      ['POST', '/routes', { branchId: seed.branchId, name: '   ', stops: [] }, 400, '0022'],
      ['POST', '/routes', { branchId: seed.branchId, name: nul, stops: [] }, 400, '0022'],
      [
        'POST',
        '/routes',
        { branchId: seed.branchId, name: 'x', stops: [{ position: { lat: 91, lng: 0 } }] },
        400,
        '0022',
      ],
      [
        'POST',
        '/routes',
        {
          branchId: seed.branchId,
          name: 'x',
          stops: [{ position: { lat: 1, lng: 1 }, items: [{ taskId: 1, action: 'CLEAN' }] }],
        },
        400,
        '0022',
      ],
      [
        'POST',
        '/routes',
        {
          branchId: seed.branchId,
          name: 'x',
          stops: Array.from({ length: 201 }, () => ({ position: { lat: 1, lng: 1 } })),
        },
        400,
        '0022',
      ],
      [
        'POST',
        '/routes',
        { branchId: seed.branchId, name: 'x', plannedFor: '2030-02-30', stops: [] },
        400,
        '0022',
      ],
      ['POST', '/routes', { branchId: seed.branchId, name: 'x', stops: [], extra: true }, 400, '0022'],
      ['PATCH', '/routes', { id: 1 }, 400, '0022'],
      ['PATCH', '/routes', { id: 2147483648, name: 'x' }, 400, '0022'],
      ['POST', '/routes/0x1/action', { action: 'START' }, 400, '0022'],
      ['POST', '/routes/1/action', { action: 'start' }, 400, '0022'],
      ['POST', '/routes/1/stop-action', { stopId: '1', action: 'ARRIVE' }, 400, '0022'],
      ['POST', '/routes/1/stop-item-action', { stopId: 1, itemId: 1e3, action: 'DONE' }, 400, '0022'],
      ['GET', '/vehicles?branchId=-1', undefined, 400, '0022'],
      [
        'POST',
        '/vehicles',
        { branchId: seed.branchId, name: 'x', licencePlate: '!!', capacity: 1 },
        400,
        '0022',
      ],
      [
        'POST',
        '/vehicles',
        { branchId: seed.branchId, name: 'x', licencePlate: 'AB 1', capacity: 1001 },
        400,
        '0022',
      ],
      [
        'POST',
        '/vehicles',
        { branchId: seed.branchId, name: 'x', licencePlate: 'AB 1', capacity: 1.5 },
        400,
        '0022',
      ],
      ['PATCH', '/vehicles', { id: 1, state: 'BROKEN' }, 400, '0022'],
      ['DELETE', '/vehicles?id=1e3', undefined, 400, '0022'],
      ['DELETE', '/vehicles', undefined, 400, '0022'],
      ['POST', '/routes/999999/action', { action: 'START' }, 404, 'MT404'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const reply = await call(method, mt(path), {
        token: operator,
        ...(body === undefined ? {} : { body }),
      });
      expect({ method, path, status: reply.status, code: reply.body?.errorCode }).toEqual({
        method,
        path,
        status,
        code,
      });
    }
    expectError(
      await call('POST', mt('/routes'), { token: operator, rawBody: '{"branchId": 1,' }),
      400,
      'AUTH001',
    );
    expectError(
      await call('POST', mt('/routes'), {
        token: operator,
        rawBody: 'name=x',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      '0023',
    );
  });
});
