// Rate limits of the searches (docs/observability.md): a route naming a class (`rateLimit: 'search'`)
// counts each caller's requests per tenant; past the limit of the setting `rateLimits.search` it answers
// RL101 (429) with Retry-After. Searches of every class count together, other callers and tenants are
// not limited, and a changed setting is the limit of the next request.
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { READ_CACHE_TTL_MS } from '../db/read-cache.js';
import { hashSecret } from '../platform/secrets.js';
import { defaultRateLimits, rateLimitOf, rateLimitSettingKey } from '../domain/rate-limits.js';
import { expectError, testJwtSecret, type Reply } from './support/http.js';
import { testLogLevel } from './support/stack.js';
import { startApi } from '../composition/api-server.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let secondCaller: string;

const key = rateLimitSettingKey('search');
const rentals = (token: string, tenant = session.seed.tenant, branchId = session.seed.branchId) =>
  session.stack.call('GET', `/v1/${tenant}/back/rentals?branchId=${branchId}`, { token });
const customers = (token: string) => session.stack.call('GET', session.stack.back('/customers'), { token });
const operator = () => session.operatorToken;

/**
 * Sets the tenant's search limit (the row of branch 0), or removes it, and waits out the read cache's
 * time to live: the API applies it once it heard the change, at the latest when its entry expired.
 */
async function setLimit(value: Record<string, unknown> | null): Promise<void> {
  const em = session.em();
  const row = await em.findOne(Setting, { key });
  if (value === null) {
    if (row) await em.remove(row).flush();
  } else {
    if (row) row.value = value;
    else
      em.create(Setting, {
        key,
        name: 'Search rate limit',
        area: 'CORE',
        valueType: 'JSON',
        branchIds: [0],
        value,
      });
    await em.flush();
  }
  await new Promise((resolve) => setTimeout(resolve, READ_CACHE_TTL_MS + 100));
}

/** Asserts an RL101 answer and returns its Retry-After seconds. */
function expectLimited(reply: Reply, windowSeconds: number): number {
  expectError(reply, 429, 'RL101');
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  return retryAfter;
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  // A second caller of the same tenant: its own client with read grants on the same branch.
  const em = session.em();
  const role = em.create(Role, { name: 'Search reader', permissions: ['RENTAL_READ', 'CUSTOMER_READ'] });
  const client = em.create(ApiClient, {
    clientId: 'search-reader',
    name: 'Search reader',
    secretHash: await hashSecret('search-reader-secret'),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: em.getReference(Branch, session.seed.branchId),
  });
  await em.flush();
  secondCaller = await session.stack.token(session.seed.tenant, {
    clientId: 'search-reader',
    clientSecret: 'search-reader-secret',
  });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

test('past the limit: 429 RL101 with Retry-After; every search counts, other callers and tenants are not limited', async () => {
  await setLimit({ points: 3, durationSeconds: 60 });
  expect((await rentals(operator())).status).toBe(200);
  expect((await customers(operator())).status).toBe(200);
  expect((await rentals(operator())).status).toBe(200);
  expectLimited(await customers(operator()), 60);
  expectLimited(await rentals(operator()), 60);
  // A refused request is not served: no paging headers, nothing read.
  const refused = await rentals(operator());
  expect(refused.headers.get('x-total-count')).toBeNull();
  // Routes without a class are not counted.
  const vehicles = session.stack.back(`/vehicles?branchId=${session.seed.branchId}`);
  expect((await session.stack.call('GET', vehicles, { token: operator() })).status).toBe(200);
  // Another caller of the tenant has its own count; another tenant its own limit (the default).
  expect((await rentals(secondCaller)).status).toBe(200);
  expect((await customers(secondCaller)).status).toBe(200);
  expect(
    (await rentals(session.rivalOperatorToken, session.rival.tenant, session.rival.branchId)).status,
  ).toBe(200);
  // Hostile queries are refused by the contract before they are counted, and still answer 400.
  expectError(
    await session.stack.call('GET', session.stack.back('/rentals?branchId=0x1'), { token: secondCaller }),
    400,
    '0022',
  );
  expect((await rentals(secondCaller)).status).toBe(200);
  expectLimited(await rentals(secondCaller), 60);
});

test('one count across two API processes: the limit holds whichever process answers', async () => {
  // A second API process of the same deployment, made as `npm run api` makes it.
  const second = await startApi({
    ...session.stack.backend.processEnv,
    JWT_SECRET: testJwtSecret,
    API_PORT: '0',
    API_HOST: '127.0.0.1',
    LOG_LEVEL: testLogLevel,
  });
  try {
    await setLimit({ points: 4, durationSeconds: 60 });
    const viaSecond = (token: string) =>
      fetch(`${second.url}/v1/${session.seed.tenant}/back/rentals?branchId=${session.seed.branchId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    // Alternating between the processes: four requests are served, the fifth is refused by either. (The
    // second caller, so the operator's count under this limit stays fresh for the next test, whose first
    // request may still be judged by this limit until the API hears the setting change.)
    expect((await rentals(secondCaller)).status).toBe(200);
    expect((await viaSecond(secondCaller)).status).toBe(200);
    expect((await rentals(secondCaller)).status).toBe(200);
    expect((await viaSecond(secondCaller)).status).toBe(200);
    const refused = await viaSecond(secondCaller);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { errorCode: string }).errorCode).toBe('RL101');
    expectLimited(await rentals(secondCaller), 60);
  } finally {
    await second.close();
    await setLimit(null);
  }
});

test('a changed setting is the limit of the next request; a window ends after Retry-After', async () => {
  // A new limit starts a fresh window under it.
  await setLimit({ points: 2, durationSeconds: 1 });
  expect((await rentals(operator())).status).toBe(200);
  expect((await rentals(operator())).status).toBe(200);
  const wait = expectLimited(await rentals(operator()), 1);
  await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
  expect((await rentals(operator())).status).toBe(200);
  // Without the setting the default applies (120 per minute).
  await setLimit(null);
  for (let i = 0; i < 5; i += 1) expect((await customers(operator())).status).toBe(200);
});

test('values out of bounds keep the default; the documents list RL101 and Retry-After on every limited search', async () => {
  expect(rateLimitOf('search', { points: 0, durationSeconds: 30 })).toEqual({
    points: defaultRateLimits.search.points,
    durationSeconds: 30,
  });
  expect(rateLimitOf('search', { points: '1e3', durationSeconds: 1.5 })).toEqual(defaultRateLimits.search);
  expect(rateLimitOf('search', 'x')).toEqual(defaultRateLimits.search);
  // A stored row with junk does not break the searches (the registry refuses such writes).
  await setLimit({ points: -1, durationSeconds: 'soon' });
  expect((await rentals(operator())).status).toBe(200);
  await setLimit(null);

  type Response = { description: string; headers?: Record<string, { schema: unknown }> };
  type Operation = { operationId: string; description: string; responses: Record<string, Response> };
  const document = (await session.stack.call('GET', '/openapi/back.json')).body as {
    paths: Record<string, Record<string, Operation>>;
  };
  const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
  const limited = operations.filter((operation) => operation.description.includes('**Rate limit:**'));
  expect(limited.map((operation) => operation.operationId)).toEqual(
    expect.arrayContaining(['listRentals', 'searchCustomers']),
  );
  for (const operation of limited) {
    const tooMany = operation.responses['429']!;
    expect(tooMany.description).toContain('`RL101`');
    expect(tooMany.headers?.['Retry-After']?.schema).toEqual({ type: 'integer', minimum: 1 });
  }
  // And only those: a list without a class documents no 429.
  const vehicles = operations.find((operation) => operation.operationId === 'listVehicles');
  expect(vehicles?.responses['429']).toBeUndefined();
});
