// Settings management over HTTP against the real database: every verb of `/settings-management` (list
// with its filters and paging, create, read, update, delete, the all-or-nothing bulk update, the
// validation report naming each wrong value, reload), the operator's and the app's `GET /settings` (their
// areas, the fallbacks), the no-secrets rule (ST102), denials by branch and tenant, and hostile input.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { tenantEm } from '../db/orm.js';
import { effectiveSetting } from '../db/settings.js';
import { hashSecret } from '../platform/secrets.js';
import { repoRoot } from '../platform/config.js';
import { knownSettings } from '../domain/settings.js';
import { CREDIT_CHECK_SETTING_KEY } from '../platform/credit-check.js';
import { VERIFICATION_SETTING_KEY } from '../platform/verification.js';
import { REQUEST_SIGNING_SETTING_KEY } from '../api/routes/auth/signing.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
/** Administrator on both top-level branches: tenant-wide. */
let admin: string;
/** SETTINGS_READ on the district only. */
let reader: string;
/** A role without any settings permission, on the city. */
let outsider: string;
let district: number;
let city: number;
let sibling: number;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const manage = (path = '') => back(`/settings-management${path}`);

/** An API client holding `permissions` (a role of its own) on each of `branchIds`; its token. */
async function clientWith(permissions: string[], branchIds: number[]): Promise<string> {
  const em = session.em();
  const clientId = `settings-${randomBytes(4).toString('hex')}`;
  const role = em.create(Role, { name: `role-${clientId}`, permissions });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  for (const branchId of branchIds)
    em.create(RoleAssignment, {
      role,
      subjectType: 'API_CLIENT',
      subjectId: clientId,
      branch: em.getReference(Branch, branchId),
    });
  await em.flush();
  return session.stack.token(session.seed.tenant, { clientId, clientSecret: `${clientId}-secret` });
}

/** Creates a setting as the administrator; its id. */
async function created(body: Record<string, unknown>, token = admin): Promise<number> {
  const reply = await call('POST', manage(), { token, body });
  expect({ status: reply.status, body: reply.body }).toEqual({ status: 201, body: expect.anything() });
  return reply.body.id;
}

const stored = (id: number) => session.em().findOneOrFail(Setting, id);

beforeAll(async () => {
  session = await startSession({ rival: true });
  ({ cityBranchId: city, branchId: district, otherBranchId: sibling } = session.seed);
  const role = await session.em().findOneOrFail(Role, { name: 'Administrator' });
  admin = await clientWith(role.permissions, [city, sibling]);
  reader = await clientWith(['SETTINGS_READ'], [district]);
  outsider = await clientWith(['VEHICLE_READ'], [city]);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

test('create, read, list with filters and paging, update and delete; effective values follow at once', async () => {
  const id = await created({
    key: 'rental.reservation',
    branchIds: [district],
    value: { reservationMinutes: 20 },
  });
  const read = await call('GET', manage(`/${id}`), { token: admin });
  expect(read.status).toBe(200);
  expect(read.body).toEqual({
    id,
    key: 'rental.reservation',
    name: 'Rental reservation',
    area: 'CORE',
    valueType: 'RENTAL_RESERVATION_SETTINGS',
    branchIds: [district],
    value: { reservationMinutes: 20 },
    publicVisible: false,
  });
  const effective = () =>
    effectiveSetting(
      tenantEm(session.backend.orm, session.seed.tenant),
      session.seed.tenant,
      'rental.reservation',
      district,
    );
  expect((await effective())?.value).toEqual({ reservationMinutes: 20 });

  // Filters: key and name contain (case ignored) unless exactMatch; area; branchId; paging headers.
  const ids = async (query: string) =>
    ((await call('GET', manage(`?${query}`), { token: admin })).body as { id: number }[]).map((s) => s.id);
  const seeded = (await session.em().find(Setting, { key: 'rental.reservation' })).find((row) =>
    row.branchIds.includes(0),
  )!.id;
  expect(await ids('key=RESERVATION')).toEqual([seeded, id]);
  expect(await ids('key=reservation&exactMatch=true')).toEqual([]);
  expect(await ids('key=rental.reservation&exactMatch=true')).toEqual([seeded, id]);
  expect(await ids('name=Rental%20reservation&exactMatch=true')).toEqual([seeded, id]);
  expect(await ids(`key=rental.reservation&branchId=${district}`)).toEqual([id]);
  expect(await ids('key=rental.reservation&branchId=0')).toEqual([seeded]);
  expect(await ids('area=APP')).toEqual([(await session.em().findOneOrFail(Setting, { key: 'app.map' })).id]);
  const page = await call('GET', manage('?key=rental.reservation&size=1&page=1'), { token: admin });
  expect(page.body.map((s: { id: number }) => s.id)).toEqual([id]);
  expect(page.headers.get('x-total-count')).toBe('2');

  const updated = await call('PUT', manage(`/${id}`), {
    token: admin,
    body: { name: 'District reservation', value: { reservationMinutes: 25, bufferMinutes: 30 } },
  });
  expect(updated.status).toBe(200);
  expect(updated.body).toMatchObject({ name: 'District reservation', branchIds: [district] });
  expect((await effective())?.value).toEqual({ reservationMinutes: 25, bufferMinutes: 30 });

  expect((await call('DELETE', manage(`/${id}`), { token: admin })).status).toBe(204);
  expectError(await call('GET', manage(`/${id}`), { token: admin }), 404, 'ST404');
  expectError(await call('DELETE', manage(`/${id}`), { token: admin }), 404, 'ST404');
  // The district falls back to the tenant-wide row again.
  expect((await effective())?.id).toBe(seeded);
});

test('custom keys: app. for the app (APP and SHARED only there), dashboard. for the operators (DASHBOARD and SHARED)', async () => {
  const app = await created({ key: 'app.theme', value: { color: '#0050ff' } });
  expect(await stored(app)).toMatchObject({
    area: 'APP',
    valueType: 'JSON',
    publicVisible: true,
    name: 'app.theme',
  });
  const dashboard = await created({
    key: 'dashboard.layout',
    name: 'Dashboard layout',
    value: { columns: 3 },
  });
  await created({ key: 'dashboard.layout', branchIds: [district], value: { columns: 2 } });
  expect(await stored(dashboard)).toMatchObject({ area: 'DASHBOARD', publicVisible: false });

  // The app sees APP and SHARED only.
  const appSees = await call('GET', session.stack.front('/settings?keys=app.theme&keys=dashboard.layout'), {
    token: session.appClientToken,
  });
  expect(appSees.body).toEqual([
    { key: 'app.theme', area: 'APP', branchIds: [0], value: { color: '#0050ff' } },
  ]);
  // The operators see DASHBOARD and SHARED, keys comma-separated or repeated, effective per branch.
  const operatorSees = await call(
    'GET',
    back(
      `/settings?keys=app.theme,dashboard.layout&keys=rental.reservation&branchIds=${district}&branchIds=${sibling}`,
    ),
    { token: admin },
  );
  expect(operatorSees.status).toBe(200);
  expect(operatorSees.body).toEqual([
    { key: 'dashboard.layout', area: 'DASHBOARD', branchIds: [district], value: { columns: 2 } },
    { key: 'dashboard.layout', area: 'DASHBOARD', branchIds: [sibling], value: { columns: 3 } },
  ]);
  // A known SHARED key without any row: its default.
  const fallback = await call('GET', back(`/settings?keys=messages.defaultLanguage&branchIds=${district}`), {
    token: reader,
  });
  expect(fallback.body).toEqual([
    {
      key: 'messages.defaultLanguage',
      area: 'SHARED',
      branchIds: [district],
      value: knownSettings['messages.defaultLanguage']!.default,
    },
  ]);
  const everyRow = await call('GET', back('/settings?keys=dashboard.layout'), { token: reader });
  expect(everyRow.body.map((s: { branchIds: number[] }) => s.branchIds)).toEqual([[0], [district]]);
  // The area of a custom key is its prefix's; a known key's area and value type are its own.
  expectError(
    await call('POST', manage(), { token: admin, body: { key: 'app.x', area: 'CORE', value: {} } }),
    400,
    'ST103',
  );
  expectError(
    await call('POST', manage(), {
      token: admin,
      body: { key: 'booking.settings', valueType: 'XYZ', branchIds: [sibling], value: {} },
    }),
    400,
    'ST103',
  );
  expectError(
    await call('POST', manage(), { token: admin, body: { key: 'nope.thing', value: {} } }),
    422,
    'ST101',
  );
  // The KPI thresholds (docs/insight.md) are a known DASHBOARD key with their bounds.
  await created({ key: 'insight.kpis', branchIds: [district], value: { idleAfterHours: 24 } });
  const stricter = await call('POST', manage(), {
    token: admin,
    body: { key: 'insight.kpis', branchIds: [sibling], value: { chargingTargetPercent: 150 } },
  });
  expect(stricter.status).toBe(400);
  expect(stricter.body.errorCode).toBe('ST100');
  // One value per branch and key.
  expectError(
    await call('POST', manage(), {
      token: admin,
      body: { key: 'dashboard.layout', branchIds: [district], value: {} },
    }),
    409,
    'ST104',
  );
});

test('validate answers 200 with a report naming each wrong value, and valid when all could be written', async () => {
  const reply = await call('POST', manage('/validate'), {
    token: reader,
    body: [
      {
        key: 'rental.reservation',
        branchIds: [district],
        value: { reservationMinutes: '15', bufferMinutes: -1, extra: true },
      },
      { key: 'nope.key', value: {} },
      { key: 'app.x', area: 'CORE', value: {} },
      { key: 'app.creds', value: { nested: { password: 'hunter2' } } },
      { key: 'booking.settings', branchIds: [sibling], value: { noShowFee: '1.50', dropoffSlotMinutes: 15 } },
      { key: 'rental.requirements', branchIds: [city], value: { default: { start: ['MINIMUM_AGE'] } } },
      { key: 'app.y', branchIds: [2_000_000_000], value: {} },
      { key: 'rental.reservation', value: {} },
      { key: 'app.z', value: 'text' },
      { key: 'app.dup', branchIds: [district], value: {} },
      { key: 'app.dup', branchIds: [city, district], value: {} },
    ],
  });
  expect(reply.status).toBe(200);
  expect(reply.body.valid).toBe(false);
  const problems = (index: number) =>
    reply.body.items[index].problems.map(
      (p: { errorCode: string; path: string }) => `${p.errorCode} ${p.path}`,
    );
  expect(problems(0).sort()).toEqual([
    'ST100 /value/bufferMinutes',
    'ST100 /value/extra',
    'ST100 /value/reservationMinutes',
  ]);
  expect(reply.body.items[0]).toMatchObject({
    index: 0,
    area: 'CORE',
    valueType: 'RENTAL_RESERVATION_SETTINGS',
    valid: false,
  });
  expect(problems(1)).toEqual(['ST101 /key']);
  expect(problems(2)).toEqual(['ST103 /area']);
  expect(problems(3)).toEqual(['ST102 /value/nested/password']);
  expect(reply.body.items[3].problems[0].message).not.toContain('hunter2');
  expect(reply.body.items[4]).toMatchObject({ valid: true, problems: [] });
  expect(problems(5)).toEqual(['ST100 /value']);
  expect(reply.body.items[5].problems[0].message).toContain('MINIMUM_AGE needs minimumAge');
  expect(problems(6)).toEqual(['B404 /branchIds/0']);
  expect(problems(7)).toEqual(['ST104 /branchIds/0']); // the seeded tenant-wide row
  expect(problems(8)).toEqual(['ST100 /value']);
  expect(problems(9)).toEqual([]);
  expect(problems(10)).toEqual(['ST104 /branchIds/1']);

  // Every seeded row passes as an update of itself, so the registry's schemas fit the values in use.
  const rows = await session.em().find(Setting, {}, { orderBy: { id: 'asc' } });
  const seededReport = await call('POST', manage('/validate'), {
    token: admin,
    body: rows.map((row) => ({ id: row.id, key: row.key, branchIds: row.branchIds, value: row.value })),
  });
  expect(seededReport.body.items.filter((item: { valid: boolean }) => !item.valid)).toEqual([]);
  expect(seededReport.body.valid).toBe(true);
});

test('the registry knows every key the code reads, and docs/settings.md lists each', () => {
  for (const key of [CREDIT_CHECK_SETTING_KEY, VERIFICATION_SETTING_KEY, REQUEST_SIGNING_SETTING_KEY])
    expect(Object.keys(knownSettings)).toContain(key);
  const documented = readFileSync(path.join(repoRoot, 'docs/settings.md'), 'utf8');
  expect(Object.keys(knownSettings).filter((key) => !documented.includes(`| \`${key}\``))).toEqual([]);
});

test('bulk update writes all or nothing', async () => {
  const a = await created({ key: 'app.bulk-a', value: { v: 1 } });
  const b = await created({ key: 'app.bulk-b', value: { v: 1 } });
  const c1 = await created({ key: 'app.bulk-c', branchIds: [district], value: { v: 1 } });
  const c2 = await created({ key: 'app.bulk-c', branchIds: [city], value: { v: 1 } });
  const values = async () => (await Promise.all([a, b, c1, c2].map(stored))).map((row) => row.value);
  const bulk = (body: unknown, token = admin) => call('PUT', manage('/bulk'), { token, body });

  expectError(
    await bulk([
      { id: a, value: { v: 2 } },
      { id: b, value: { apiToken: 'x' } },
    ]),
    422,
    'ST102',
  );
  expectError(
    await bulk([
      { id: a, value: { v: 2 } },
      { id: 2_000_000_000, value: {} },
    ]),
    404,
    'ST404',
  );
  expectError(
    await bulk([
      { id: c1, branchIds: [sibling], value: { v: 2 } },
      { id: c2, branchIds: [sibling], value: { v: 2 } },
    ]),
    409,
    'ST104',
  );
  expectError(
    await bulk([
      { id: a, value: { v: 2 } },
      { id: a, value: { v: 3 } },
    ]),
    400,
    '0022',
  );
  expectError(await bulk([{ id: a, value: { v: 2 } }], reader), 403, 'AUTH002');
  expect(await values()).toEqual([{ v: 1 }, { v: 1 }, { v: 1 }, { v: 1 }]);

  // Swapping the branches of two rows of one key is one consistent state: allowed together.
  const done = await bulk([
    { id: a, value: { v: 2 } },
    { id: c1, branchIds: [city], value: { v: 2 } },
    { id: c2, branchIds: [district], value: { v: 2 } },
  ]);
  expect(done.status).toBe(200);
  expect(done.body.map((s: { id: number; branchIds: number[] }) => [s.id, s.branchIds])).toEqual([
    [a, [0]],
    [c1, [city]],
    [c2, [district]],
  ]);
  expect(await values()).toEqual([{ v: 2 }, { v: 1 }, { v: 2 }, { v: 2 }]);
});

test('no secret is ever stored: credential names and credential-looking values are refused (ST102)', async () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl';
  const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
  for (const body of [
    { key: 'app.apiToken', value: {} },
    { key: 'app.payments', value: { stripe: { secretKey: 'abc' } } },
    { key: 'app.payments', value: { client_secret: 'abc' } },
    { key: 'app.payments', value: { list: [{ 'private-key': 'abc' }] } },
    { key: 'app.payments', value: { passwordHint: 'abc' } },
    { key: 'app.session', value: { anything: jwt } },
    { key: 'app.session', value: { certificate: pem } },
    { key: 'app.session', value: { feed: 'https://user:pa55@example.com/feed' } },
    { key: 'app.session', value: { stripe: 'sk_live_51HxxxxxxxxxxxxxxxxxxxXYZ' } },
    { key: 'app.session', value: { header: 'Bearer abcdefghijklmnop' } },
  ]) {
    const reply = await call('POST', manage(), { token: admin, body });
    expectError(reply, 422, 'ST102');
    expect(reply.body.userMessage).not.toMatch(/abc|pa55|eyJ|BEGIN|sk_live|abcdefghij/);
  }
  // An update cannot smuggle one in either; names that only resemble credentials pass.
  const id = await created({
    key: 'app.keys',
    value: { keyboardLayout: 'qwertz', tokenizer: 'none', maxSkewSeconds: 5 },
  });
  expectError(
    await call('PUT', manage(`/${id}`), { token: admin, body: { value: { token: 'abc' } } }),
    422,
    'ST102',
  );
  expect((await stored(id)).value).toEqual({
    keyboardLayout: 'qwertz',
    tokenizer: 'none',
    maxSkewSeconds: 5,
  });
  expect(
    await session.em().count(Setting, { key: { $in: ['app.apiToken', 'app.payments', 'app.session'] } }),
  ).toBe(0);
});

test('denials: branches, tenant-wide rows, other tenants', async () => {
  const operator = session.operatorToken; // Fleet operations on the city: SETTINGS_MANAGE there, not tenant-wide
  const onDistrict = await created({ key: 'app.denial', branchIds: [district], value: {} }, operator);
  const onSibling = await created({ key: 'app.denial', branchIds: [sibling], value: {} });
  const onCity = await created({ key: 'app.denial', branchIds: [city], value: {} });
  expectError(
    await call('POST', manage(), { token: operator, body: { key: 'app.denial', value: {} } }),
    403,
    'AUTH002',
  );
  expectError(
    await call('POST', manage(), {
      token: operator,
      body: { key: 'app.denial2', branchIds: [sibling], value: {} },
    }),
    403,
    'AUTH002',
  );
  // Moving a row to a branch the caller does not manage, or touching one it does not manage.
  expectError(
    await call('PUT', manage(`/${onDistrict}`), {
      token: operator,
      body: { branchIds: [sibling], value: {} },
    }),
    403,
    'AUTH002',
  );
  expectError(await call('DELETE', manage(`/${onSibling}`), { token: operator }), 403, 'AUTH002');
  expectError(await call('POST', manage('/reload'), { token: operator }), 403, 'AUTH002');

  // A reader of the district reads its rows and the tenant-wide ones, not the city's or the sibling's.
  expect((await call('GET', manage(`/${onDistrict}`), { token: reader })).status).toBe(200);
  expectError(await call('GET', manage(`/${onSibling}`), { token: reader }), 403, 'AUTH002');
  expectError(await call('GET', manage(`/${onCity}`), { token: reader }), 403, 'AUTH002');
  const listed = await call('GET', manage('?key=app.denial&exactMatch=true'), { token: reader });
  expect(listed.body.map((s: { id: number }) => s.id)).toEqual([onDistrict]);
  expectError(
    await call('POST', manage(), { token: reader, body: { key: 'app.r', branchIds: [district], value: {} } }),
    403,
    'AUTH002',
  );
  expectError(
    await call('GET', back(`/settings?keys=app.denial&branchIds=${sibling}`), { token: reader }),
    403,
    'AUTH002',
  );

  // Without any settings permission.
  expectError(await call('GET', manage(), { token: outsider }), 403, 'AUTH002');
  expectError(
    await call('GET', back('/settings?keys=dashboard.layout'), { token: outsider }),
    403,
    'AUTH002',
  );
  expectError(
    await call('POST', manage('/validate'), { token: outsider, body: [{ key: 'app.x', value: {} }] }),
    403,
    'AUTH002',
  );
  expectError(await call('GET', manage(), { token: session.appClientToken }), 403, '0005');

  // Another tenant's ids are not found; another tenant's branches do not exist here.
  const rival = session.rivalOperatorToken;
  const rivalPath = (path: string) => `/v1/${session.rival.tenant}/back/settings-management${path}`;
  expectError(await call('GET', rivalPath(`/${onDistrict}`), { token: rival }), 404, 'ST404');
  expectError(
    await call('PUT', rivalPath(`/${onDistrict}`), { token: rival, body: { value: {} } }),
    404,
    'ST404',
  );
  expectError(await call('DELETE', rivalPath(`/${onDistrict}`), { token: rival }), 404, 'ST404');
  expectError(
    await call('PUT', rivalPath('/bulk'), { token: rival, body: [{ id: onDistrict, value: {} }] }),
    404,
    'ST404',
  );
  expectError(
    await call('POST', manage(), {
      token: admin,
      body: { key: 'app.r', branchIds: [session.rival.branchId], value: {} },
    }),
    404,
    'B404',
  );
  expect((await stored(onDistrict)).value).toEqual({});
});

test('hostile input answers catalogue errors, never a 5xx', async () => {
  const deep = JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40));
  const cases: [string, string, CallOptions, number, string][] = [
    ['GET', manage('/0x1'), {}, 400, '0022'],
    ['GET', manage('/1e3'), {}, 400, '0022'],
    ['GET', manage('/-1'), {}, 400, '0022'],
    ['GET', manage('/2147483648'), {}, 400, '0022'],
    ['GET', manage('?exactMatch=yes'), {}, 400, '0022'],
    ['GET', manage('?area=ROOT'), {}, 400, '0022'],
    ['GET', manage('?key=a%00b'), {}, 400, '0022'],
    ['GET', back('/settings?keys=a%00b'), {}, 400, '0022'],
    ['GET', back('/settings?keys=,,'), {}, 200, ''],
    ['GET', back('/settings?keys=a..b'), {}, 400, '0022'],
    ['GET', back('/settings?keys=app.x&branchIds=0x1'), {}, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.\u0000x', value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'Bad Key', value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', value: 'text' } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', value: [1] } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', value: { 'a\u0000': 1 } } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', value: { a: { b: 'x\u0000' } } } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', value: { a: { 'b\u0000': 1 } } } }, 400, '0022'],
    ['POST', manage('/validate'), { body: [{ key: 'app.x', value: { a: ['\u0000'] } }] }, 400, '0022'],
    ['POST', manage(), { rawBody: '{"key":"app.x","value":{"a":1e400}}' }, 400, 'ST100'],
    ['POST', manage(), { body: { key: 'app.x', value: deep } }, 400, 'ST100'],
    ['POST', manage(), { body: { key: 'app.x', value: { s: 'x'.repeat(70_000) } } }, 400, 'ST100'],
    ['POST', manage(), { body: { key: 'app.x', branchIds: ['1'], value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', branchIds: [0, 0], value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', branchIds: [0, district], value: {} } }, 400, 'ST105'],
    ['POST', manage(), { body: { key: 'app.x', branchIds: [2147483648], value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', branchIds: [], value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', area: 'ROOT', value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', name: '   ', value: {} } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x', value: {}, id: 5 } }, 400, '0022'],
    ['POST', manage(), { body: { key: 'app.x' } }, 400, '0022'],
    ['POST', manage(), { rawBody: '{"key":"app.x",' }, 400, 'AUTH001'],
    ['PUT', manage('/bulk'), { body: [] }, 400, '0022'],
    ['PUT', manage('/bulk'), { body: [{ id: '0x1', value: {} }] }, 400, '0022'],
    ['POST', manage('/validate'), { body: [{ key: 'app.x' }] }, 400, '0022'],
    ['POST', manage('/validate'), { body: [{ key: 'app.x', value: {}, branchIds: [1.5] }] }, 400, '0022'],
  ];
  const failures: string[] = [];
  for (const [method, path, options, status, code] of cases) {
    const reply = await call(method, path, { token: admin, ...options });
    const got = `${reply.status} ${reply.body?.errorCode ?? ''}`;
    if (got !== `${status} ${code}`)
      failures.push(`${method} ${path} ${JSON.stringify(options).slice(0, 80)}: ${got}`);
  }
  expect(failures).toEqual([]);
  expect(await session.em().count(Setting, { key: 'app.x' })).toBe(0);
});
