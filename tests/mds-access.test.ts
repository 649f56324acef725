// Who may read the MDS provider interface and what hostile input gets (docs/mds.md): agency tokens only,
// of their own tenant only, and never on the operator or app interfaces; the version, hours, windows,
// paging, ids and report names a client may send, each refused with a catalogue error, never a 5xx.
import { TokenService } from '../api/auth.js';
import { demoMdsAgency } from '../db/seed/mds.js';
import { expectError, testJwtSecret, type HttpStack, type Reply } from './support/http.js';
import { agencyToken, mdsGet } from './support/mds.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let tenant: string;
let rivalTenant: string;
let token: string;
let rivalToken: string;

const get = (path: string, headers?: Record<string, string>) => mdsGet(stack, tenant, token, path, headers);
const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const pastHour = hourText(Date.now() - 3 * 3_600_000);

beforeAll(async () => {
  session = await startSession({ rival: true });
  ({ stack } = session);
  tenant = session.seed.tenant;
  rivalTenant = session.rival.tenant;
  [token, rivalToken] = await Promise.all([agencyToken(stack, tenant), agencyToken(stack, rivalTenant)]);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** A catalogue error body, whatever the code, and never a server error. */
function expectCatalogued(reply: Reply, status: number): void {
  expect({ status: reply.status, keys: Object.keys(reply.body ?? {}).sort() }).toEqual({
    status,
    keys: ['errorCode', 'httpStatus', 'traceId', 'userMessage'],
  });
}

describe('agency tokens and nothing else, of their own tenant only', () => {
  test('no token, operator and app tokens are refused on MDS', async () => {
    expectError(await stack.call('GET', `/v1/${tenant}/mds/vehicles`, {}), 401, 'JWT006');
    expectError(await mdsGet(stack, tenant, session.operatorToken, '/vehicles'), 403, '0005');
    expectError(await mdsGet(stack, tenant, session.appClientToken, '/vehicles/status'), 403, '0005');
    expectError(await mdsGet(stack, tenant, 'not.a.token', '/trips?end_time=2024-01-01T00'), 401, 'AUTH005');
  });

  test('an agency token is refused on the operator and app interfaces', async () => {
    expectError(await stack.call('GET', stack.back('/vehicles'), { token }), 403, '0005');
    expectError(await stack.call('GET', stack.back('/mds-agencies'), { token }), 403, '0005');
    expectError(await stack.call('GET', stack.front('/vehicles'), { token }), 403, '0005');
    expectError(
      await stack.call('GET', `/v1/${tenant}/maintenance/api/service-vehicles`, { token }),
      403,
      '0005',
    );
  });

  test("an agency token cannot read another tenant's feed, nor get a token there", async () => {
    for (const path of [
      '/vehicles',
      '/vehicles/status',
      `/trips?end_time=${pastHour}`,
      '/reports/2024-01.csv',
    ])
      expectError(await mdsGet(stack, rivalTenant, token, path), 403, 'AUTH002');
    expectError(await mdsGet(stack, tenant, rivalToken, '/vehicles'), 403, 'AUTH002');
    // Each tenant's own agency sees only its own vehicles: no device id in common.
    const own = (await get('/vehicles?size=100')).body.vehicles.map(
      (v: { device_id: string }) => v.device_id,
    );
    const rival = (await mdsGet(stack, rivalTenant, rivalToken, '/vehicles?size=100')).body.vehicles.map(
      (v: { device_id: string }) => v.device_id,
    );
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((device: string) => rival.includes(device))).toEqual([]);
    expectError(await get(`/vehicles/${rival[0]}`), 404, 'MDS404');
    expectError(await get(`/vehicles/status/${rival[0]}`), 404, 'MDS404');
  });

  test('tokens are issued for good credentials only, and only of scope mds', async () => {
    const issue = (body: object) => stack.call('POST', `/v1/${tenant}/mds/token`, { body });
    const good = { grant_type: 'client_credentials', client_id: demoMdsAgency.clientId };
    expectError(await issue({ ...good, client_secret: 'wrong' }), 401, 'AUTH101');
    expectError(await issue({ grant_type: 'client_credentials' }), 401, 'AUTH101');
    expectError(
      await issue({ ...good, client_secret: demoMdsAgency.clientSecret, scope: 'back' }),
      400,
      '0022',
    );
    expectError(await issue({ ...good, client_secret: 'x\u0000' }), 400, '0022');
    // An operator's API client is no agency.
    expectError(
      await issue({
        grant_type: 'client_credentials',
        client_id: 'demo-operator',
        client_secret: 'demo-operator-secret',
      }),
      401,
      'AUTH101',
    );
    expectError(
      await stack.call('POST', `/v1/no-such-tenant/mds/token`, {
        body: { ...good, client_secret: demoMdsAgency.clientSecret },
      }),
      404,
      'AUTH051',
    );
    // Signed with the right key but claims that do not go together: scope mds is an agency's alone.
    const signer = new TokenService(testJwtSecret, 600);
    const forged = await signer.issue({
      tenant,
      subjectType: 'API_CLIENT',
      subjectId: 'demo-operator',
      scope: 'mds',
    });
    expectError(await mdsGet(stack, tenant, forged, '/vehicles'), 401, 'AUTH005');
    const backAgency = await signer.issue({
      tenant,
      subjectType: 'AGENCY',
      subjectId: demoMdsAgency.clientId,
      scope: 'back',
    });
    expectError(await stack.call('GET', stack.back('/vehicles'), { token: backAgency }), 401, 'AUTH005');
    // A token naming an agency the tenant does not have reads nothing.
    const unknown = await signer.issue({
      tenant,
      subjectType: 'AGENCY',
      subjectId: 'mds-nobody',
      scope: 'mds',
    });
    expectError(await mdsGet(stack, tenant, unknown, '/vehicles'), 401, 'MDS411');
  });

  test('operators without MDS_AGENCY_* on the published systems manage no credentials', async () => {
    const customer = await session.customerToken(session.seed.customerIds[0]!);
    expectError(await stack.call('GET', stack.back('/mds-agencies'), { token: customer }), 403, '0005');
    // The rival's operator token is for the rival tenant.
    expectError(
      await stack.call('GET', stack.back('/mds-agencies'), { token: session.rivalOperatorToken }),
      403,
      'AUTH002',
    );
    const rivalList = await stack.call('GET', `/v1/${rivalTenant}/back/mds-agencies`, {
      token: session.rivalOperatorToken,
    });
    expect(rivalList.status).toBe(200);
    const own = await stack.call('GET', stack.back('/mds-agencies'), { token: session.operatorToken });
    expectError(
      await stack.call('GET', `/v1/${rivalTenant}/back/mds-agencies/${own.body[0].id}`, {
        token: session.rivalOperatorToken,
      }),
      404,
      'MDS410',
    );
  });
});

describe('hostile input gets catalogue errors, never a 5xx', () => {
  test('versions: other MDS versions and media types MDS does not answer are 406', async () => {
    for (const accept of [
      'application/vnd.mds+json;version=1.2',
      'application/vnd.mds+json;version=2.1',
      'application/vnd.mds+json',
      'text/html',
    ])
      expectError(await get('/vehicles', { accept }), 406, 'MDS406');
    expect((await get('/vehicles', { accept: 'application/json' })).status).toBe(200);
    expect((await get('/vehicles', { accept: '*/*' })).status).toBe(200);
  });

  test('hours: malformed, impossible, missing, NUL, too long or not over yet', async () => {
    for (const hour of [
      '2023-02-30T10',
      '2023-01-01T24',
      '1969-12-31T23',
      '2023-1-01T10',
      '2023-01-01',
      'yesterday',
    ])
      for (const path of ['/trips?end_time=', '/telemetry?telemetry_time=', '/events/historical?event_time='])
        expectError(await get(`${path}${encodeURIComponent(hour)}`), 400, 'MDS400');
    expectError(await get('/trips?end_time=2023-01-01T10%00'), 400, '0022');
    expectError(await get(`/trips?end_time=${'9'.repeat(41)}`), 400, '0022');
    expectError(await get('/trips'), 400, '0022');
    expectError(await get('/trips?end_time=2023-01-01T10&end_time=2023-01-01T11'), 400, '0022');
    expectError(await get(`/trips?end_time=${hourText(Date.now())}`), 404, 'MDS405');
    expectError(await get('/events/historical?event_time=2999-01-01T00'), 404, 'MDS405');
    expectError(await get('/telemetry?telemetry_time=2023-01-01T10&extra=1'), 400, '0022');
  });

  test('recent events: loose numbers, reversed, too old or future windows', async () => {
    const now = Date.now();
    for (const query of [
      `start_time=0x1&end_time=${now}`,
      `start_time=1e3&end_time=${now}`,
      'start_time=-1&end_time=1',
      `start_time=${now}`,
      `start_time=1.5&end_time=${now}`,
      'start_time=1&end_time=1e30',
    ])
      expectError(await get(`/events/recent?${query}`), 400, '0022');
    expectError(await get(`/events/recent?start_time=${now - 1000}&end_time=${now - 2000}`), 400, 'MDS401');
    expectError(
      await get(`/events/recent?start_time=${now - 15 * 86_400_000}&end_time=${now}`),
      400,
      'MDS401',
    );
    expectError(
      await get(`/events/recent?start_time=${now - 1000}&end_time=${now + 3_600_000}`),
      400,
      'MDS401',
    );
  });

  test('paging: huge, zero, negative or loose page sizes are 0022; a page past the end is empty', async () => {
    for (const query of [
      'size=100000',
      'size=0',
      'page=-1',
      'size=1.5',
      'page=0x1',
      'size=1e3',
      'page=99999999',
    ])
      expectError(await get(`/vehicles?${query}`), 400, '0022');
    const past = await get('/vehicles/status?page=1000000&size=5000');
    expect(past.status).toBe(200);
    expect(past.body.vehicles_status).toEqual([]);
    expect(past.body.links.next).toBeNull();
  });

  test('device ids and report names', async () => {
    expectError(await get('/vehicles/not-a-uuid'), 400, '0022');
    expectError(await get('/vehicles/status/%00'), 400, '0022');
    expectError(await get('/vehicles/00000000-0000-4000-8000-000000000000'), 404, 'MDS404');
    expectError(await get('/vehicles/status/00000000-0000-4000-8000-000000000000'), 404, 'MDS404');
    for (const name of ['2026-13.csv', 'x.csv', '2999-01.csv', '..%2F..%2Fetc%2Fpasswd', '2024-01.json'])
      expectError(await get(`/reports/${name}`, { accept: 'text/csv' }), 404, 'MDS407');
    expectCatalogued(await get('/reports/%00', { accept: 'text/csv' }), 400);
  });
});

describe('the MDS document', () => {
  test('every operation documents its errors, and every value a client sends is bounded', async () => {
    const document = (await stack.call('GET', '/openapi/mds.json')).body;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'get /v1/{tenant}/mds/events/historical',
      'get /v1/{tenant}/mds/events/recent',
      'get /v1/{tenant}/mds/reports/{filename}',
      'get /v1/{tenant}/mds/telemetry',
      'get /v1/{tenant}/mds/trips',
      'get /v1/{tenant}/mds/vehicles',
      'get /v1/{tenant}/mds/vehicles/status',
      'get /v1/{tenant}/mds/vehicles/status/{device_id}',
      'get /v1/{tenant}/mds/vehicles/{device_id}',
      'post /v1/{tenant}/mds/token',
    ]);
    const unbounded: string[] = [];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const visit = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (
        (schema.type === 'integer' || schema.type === 'number') &&
        (schema.maximum === undefined || schema.minimum === undefined)
      )
        unbounded.push(where);
      if (schema.type === 'string' && schema.maxLength === undefined && !schema.enum) unbounded.push(where);
      for (const [key, value] of Object.entries(schema))
        if (typeof value === 'object') visit(value, `${where}/${key}`);
    };
    for (const { path, method, operation } of operations) {
      expect([path, operation.operationId, operation.summary, operation.tags.length > 0]).toEqual([
        path,
        expect.any(String),
        expect.any(String),
        true,
      ]);
      const statuses = method === 'get' ? ['400', '401', '403', '406'] : ['400', '401'];
      for (const status of statuses)
        expect([path, status, operation.responses[status]?.description]).toEqual([
          path,
          status,
          expect.any(String),
        ]);
      for (const parameter of operation.parameters) visit(parameter.schema, `${path} ${parameter.name}`);
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body)
        visit(body.$ref ? document.components.schemas[body.$ref.split('/').pop()] : body, `${path} body`);
    }
    expect(unbounded).toEqual([]);
  });
});

describe('published systems only', () => {
  test('unpublishing the system empties the feed at once; publishing it again brings the vehicles back', async () => {
    const systems = await stack.call('GET', stack.back('/feed-systems'), { token: session.operatorToken });
    expect(systems.status).toBe(200);
    const published = (systems.body as Array<{ id: number; published: boolean }>).filter(
      (system) => system.published,
    );
    expect(published.length).toBeGreaterThan(0);
    const before = await get('/vehicles?size=1');
    expect(Number(before.headers.get('x-total-count'))).toBeGreaterThan(0);
    const device = before.body.vehicles[0].device_id as string;
    const toggle = (id: number, action: 'publish' | 'unpublish') =>
      stack.call('POST', stack.back(`/feed-systems/${id}/${action}`), { token: session.operatorToken });
    try {
      for (const system of published) expect((await toggle(system.id, 'unpublish')).status).toBe(200);
      const after = await get('/vehicles');
      expect([after.status, after.body.vehicles, after.headers.get('x-total-count')]).toEqual([200, [], '0']);
      expect((await get('/vehicles/status')).body.vehicles_status).toEqual([]);
      expectError(await get(`/vehicles/status/${device}`), 404, 'MDS404');
    } finally {
      for (const system of published) await toggle(system.id, 'publish');
    }
    expect((await get(`/vehicles/${device}`)).status).toBe(200);
  });
});
