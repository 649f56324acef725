// The read cache across processes (db/read-cache.ts): a second ORM, connected as the worker process
// connects its own (composition/worker-main.ts: `connectOrm`), stands for the worker. Its cache keeps
// entries for ten minutes here, so whatever it sees within a second or two it learned from the
// PostgreSQL notification: a setting written through the API, `POST /settings-management/reload` after
// a change by hand, and a listener whose connection was cut reconnecting and hearing writes again.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { tenantEm, type MikroORM } from '../db/orm.js';
import { ReadCache, readCacheOf } from '../db/read-cache.js';
import { effectiveSetting } from '../db/settings.js';
import { hashSecret } from '../platform/secrets.js';
import { connectOrm } from '../composition/orm.js';
import { expectError, startHttpStack, type HttpStack } from './support/http.js';

let stack: HttpStack;
let workerOrm: MikroORM;
let admin: string;
let tenant: string;
const applicationName = `settings-reload-${randomBytes(3).toString('hex')}`;

/** What the worker's ORM reads for a key (tenant-wide), through its read cache. */
const workerReads = async (key: string) =>
  (await effectiveSetting(tenantEm(workerOrm, tenant), tenant, key, undefined))?.value;

/** Polls the worker's read until it answers `expected` (at most two seconds; its entries live ten minutes). */
async function workerSeesWithin(key: string, expected: unknown): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 2_000) {
    if (JSON.stringify(await workerReads(key)) === JSON.stringify(expected)) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the worker's ORM did not see ${JSON.stringify(expected)} for ${key}`);
}

beforeAll(async () => {
  stack = await startHttpStack();
  tenant = stack.backend.seed.tenant;
  workerOrm = await connectOrm(process.env.DATABASE_URL!, {
    pool: { min: 0, max: 2 },
    driverOptions: { application_name: applicationName },
    subscribers: [new ReadCache(600_000)],
  });
  const em = tenantEm(stack.backend.orm, tenant);
  const clientId = `settings-admin-${randomBytes(3).toString('hex')}`;
  const role = await em.findOneOrFail(Role, { name: 'Administrator' });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-s`),
    scopes: ['back'],
  });
  for (const branchId of [stack.backend.seed.cityBranchId, stack.backend.seed.otherBranchId])
    em.create(RoleAssignment, {
      role,
      subjectType: 'API_CLIENT',
      subjectId: clientId,
      branch: em.getReference(Branch, branchId),
    });
  await em.flush();
  admin = await stack.token(tenant, { clientId, clientSecret: `${clientId}-s` });
}, 120_000);

afterAll(async () => {
  await workerOrm?.close();
  await stack?.stop();
});

test('a setting written through the API is seen by the worker at once', async () => {
  expect(readCacheOf(workerOrm.em).hearsOtherProcesses).toBe(true);
  const createdReply = await stack.call('POST', stack.back('/settings-management'), {
    token: admin,
    body: { key: 'app.reload-one', value: { v: 1 } },
  });
  expect(createdReply.status).toBe(201);
  await workerSeesWithin('app.reload-one', { v: 1 }); // cached by the worker from now on
  const heard = readCacheOf(workerOrm.em).remoteInvalidations;
  const put = await stack.call('PUT', stack.back(`/settings-management/${createdReply.body.id}`), {
    token: admin,
    body: { value: { v: 2 } },
  });
  expect(put.status).toBe(200);
  await workerSeesWithin('app.reload-one', { v: 2 });
  expect(readCacheOf(workerOrm.em).remoteInvalidations).toBeGreaterThan(heard);
  expect(
    (await stack.call('DELETE', stack.back(`/settings-management/${createdReply.body.id}`), { token: admin }))
      .status,
  ).toBe(204);
  await workerSeesWithin('app.reload-one', undefined);
});

test("/reload empties the worker's cache after a change by hand; it takes the tenant-wide grant", async () => {
  const createdReply = await stack.call('POST', stack.back('/settings-management'), {
    token: admin,
    body: { key: 'app.reload-two', value: { v: 1 } },
  });
  await workerSeesWithin('app.reload-two', { v: 1 });
  const cache = readCacheOf(workerOrm.em);
  const emptied = cache.emptied;
  // A change the unit of work never sees: no notification, so the worker keeps its entry...
  await stack.backend.orm.em
    .getConnection()
    .execute(`update setting set value = '{"v": 2}' where id = ?`, [createdReply.body.id]);
  const stale = await workerReads('app.reload-two');
  // ...unless something emptied it meanwhile: another suite's write (same database) or the listener's
  // reconnection (which empties the cache without a notification to count).
  if (cache.emptied === emptied) expect(stale).toEqual({ v: 1 });

  expectError(
    await stack.call('POST', stack.back('/settings-management/reload'), {
      token: await stack.token(tenant, { clientId: 'demo-operator', clientSecret: 'demo-operator-secret' }),
    }),
    403,
    'AUTH002',
  );
  const reload = await stack.call('POST', stack.back('/settings-management/reload'), { token: admin });
  expect(reload.status).toBe(204);
  // The API's own cache was emptied before it answered; the worker's as soon as the notification arrives.
  expect(
    (await effectiveSetting(tenantEm(stack.backend.orm, tenant), tenant, 'app.reload-two', undefined))?.value,
  ).toEqual({ v: 2 });
  await workerSeesWithin('app.reload-two', { v: 2 });
});

test('a listener whose connection is cut reconnects, empties its cache and hears writes again', async () => {
  const cache = readCacheOf(workerOrm.em);
  const createdReply = await stack.call('POST', stack.back('/settings-management'), {
    token: admin,
    body: { key: 'app.reload-three', value: { v: 1 } },
  });
  await workerSeesWithin('app.reload-three', { v: 1 });
  const [{ cut }] = await stack.backend.orm.em.getConnection().execute<[{ cut: string }]>(
    `select count(pg_terminate_backend(pid))::int as cut from pg_stat_activity
        where application_name = ? and query like 'listen %'`,
    [applicationName],
  );
  expect(Number(cut)).toBe(1);
  const deadline = Date.now() + 5_000;
  while (cache.hearsOtherProcesses && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  while (!cache.hearsOtherProcesses && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(cache.hearsOtherProcesses).toBe(true);
  await stack.call('PUT', stack.back(`/settings-management/${createdReply.body.id}`), {
    token: admin,
    body: { value: { v: 2 } },
  });
  await workerSeesWithin('app.reload-three', { v: 2 });
});
