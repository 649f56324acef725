// The read cache (db/read-cache.ts) never outlives a write: grants, clients, branches, category
// configuration, settings, areas and compatible branches changed through the ORM count on the very next
// read of the same process; in another process (the API is its own, as `npm run api` starts it) once the
// commit's notification arrives, which `acrossProcesses` waits for within READ_CACHE_TTL_MS; writes no
// cache can see count within READ_CACHE_TTL_MS.
import { ApiClient } from '../db/entities/ApiClient.js';
import { Area } from '../db/entities/Area.js';
import { Branch } from '../db/entities/Branch.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { READ_CACHE_TTL_MS } from '../db/read-cache.js';
import { categoryConfiguration } from '../db/categories.js';
import { loadBranchGeofence } from '../db/areas.js';
import { endBranchCandidates } from '../db/rental-requirements.js';
import { effectiveSetting, settingOrDefaults } from '../db/settings.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError, startHttpStack, type HttpStack } from './support/http.js';
import { demoOperatorClient } from '../db/seed/access.js';

let stack: HttpStack;
let tenant: string;
let branchId: number;

/** A new API client holding the operations role on the seeded branch, and its token. */
async function grantedClient(clientId: string): Promise<{ token: string; assignmentId: number }> {
  const em = tenantEm(stack.backend.orm, tenant);
  const role = await em.findOneOrFail(Role, { name: 'Fleet operations' });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  const assignment = em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: clientId,
    branch: em.getReference(Branch, branchId),
  });
  await em.flush();
  const token = await stack.token(tenant, { clientId, clientSecret: `${clientId}-secret` });
  return { token, assignmentId: assignment.id };
}

/**
 * What another process reads after a write: its cache empties on the commit's notification, within
 * milliseconds and never later than the time to live. Reads until `accepted`, for at most that bound.
 */
async function acrossProcesses<T>(read: () => Promise<T>, accepted: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + READ_CACHE_TTL_MS + 500;
  for (;;) {
    const value = await read();
    if (accepted(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The API's answer once a client's grant or state changed in another process. */
const refusedAcrossProcesses = <R extends { status: number }>(read: () => Promise<R>) =>
  acrossProcesses(read, (reply) => reply.status !== 200);

const list = (token: string, branch = branchId) =>
  stack.call('GET', stack.back(`/vehicles?branchId=${branch}`), { token });

beforeAll(async () => {
  stack = await startHttpStack();
  tenant = stack.backend.seed.tenant;
  branchId = stack.backend.seed.branchId;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

test('a revoked assignment is refused once the change commits', async () => {
  const { token, assignmentId } = await grantedClient('cache-revoke');
  expect((await list(token)).status).toBe(200);
  const em = tenantEm(stack.backend.orm, tenant);
  em.remove(em.getReference(RoleAssignment, assignmentId));
  await em.flush();
  expectError(await refusedAcrossProcesses(() => list(token)), 403, 'AUTH002');
});

test('a revocation inside a transaction counts once it commits', async () => {
  const { token, assignmentId } = await grantedClient('cache-transaction');
  expect((await list(token)).status).toBe(200);
  await inTenantTransaction(stack.backend.orm, tenant, async (tx) => {
    tx.remove(tx.getReference(RoleAssignment, assignmentId));
    await tx.flush();
    // Not committed yet: the grant still holds, and what is read now is not kept.
    expect((await list(token)).status).toBe(200);
  });
  expectError(await refusedAcrossProcesses(() => list(token)), 403, 'AUTH002');
});

test('a disabled API client is refused once the change commits', async () => {
  const { token } = await grantedClient('cache-disable');
  expect((await list(token)).status).toBe(200);
  const em = tenantEm(stack.backend.orm, tenant);
  const client = await em.findOneOrFail(ApiClient, { clientId: 'cache-disable' });
  client.active = false;
  await em.flush();
  expectError(await refusedAcrossProcesses(() => list(token)), 401, 'AUTH005');
});

test('a category made unbookable shows in availability once the change commits', async () => {
  const { token } = await grantedClient('cache-category');
  const em = tenantEm(stack.backend.orm, tenant);
  const vehicle = await em.findOneOrFail(Vehicle, { branch: branchId }, { orderBy: { id: 'asc' } });
  const category = await em.findOneOrFail(VehicleCategory, vehicle.category.id);
  const availability = async () =>
    ((await list(token)).body as Array<{ id: number; available: boolean }>).find((v) => v.id === vehicle.id)!;
  await availability();
  category.bookable = false;
  await em.flush();
  try {
    expect((await acrossProcesses(availability, (vehicle) => !vehicle.available)).available).toBe(false);
  } finally {
    category.bookable = true;
    await em.flush();
  }
});

test('a branch created after the tree was cached is found; writes by hand count within the bound', async () => {
  const { token, assignmentId } = await grantedClient('cache-bound');
  expect((await list(token)).status).toBe(200);
  const em = tenantEm(stack.backend.orm, tenant);
  const parent = await em.findOneOrFail(Branch, branchId);
  const child = em.create(Branch, {
    name: 'Cache child',
    code: 'cache-child',
    parent,
    businessUnit: parent.businessUnit,
    timeZoneId: 'Europe/Berlin',
  });
  await em.flush();
  // Inherited from the parent's grant through the ancestry read from the refreshed tree.
  expect((await list(token, child.id)).status).toBe(200);
  // A delete the ORM does not see (another process, SQL by hand) is bounded by the time to live.
  await em.getConnection().execute('delete from role_assignment where id = ?', [assignmentId]);
  await new Promise((resolve) => setTimeout(resolve, READ_CACHE_TTL_MS + 100));
  expectError(await list(token), 403, 'AUTH002');
});

test('a transaction serves cached entries and sees its own category writes; a rollback leaves the committed ones', async () => {
  const { orm } = stack.backend;
  const category = await tenantEm(orm, tenant).findOneOrFail(VehicleCategory, {}, { orderBy: { id: 'asc' } });
  const outside = async () => (await categoryConfiguration(tenantEm(orm, tenant), category.id)).hasTailbox;
  const original = await outside(); // cached now
  const rolledBack = new Error('roll back');
  await expect(
    inTenantTransaction(orm, tenant, async (tx) => {
      expect((await categoryConfiguration(tx, category.id)).hasTailbox).toBe(original);
      const row = await tx.findOneOrFail(VehicleCategory, category.id);
      row.configuration = { ...row.configuration, hasTailbox: !original };
      await tx.flush();
      expect((await categoryConfiguration(tx, category.id)).hasTailbox).toBe(!original);
      throw rolledBack;
    }),
  ).rejects.toBe(rolledBack);
  expect(await outside()).toBe(original);
});

test('a setting changed through the ORM counts on the next read', async () => {
  const em = tenantEm(stack.backend.orm, tenant);
  const key = 'cache.test';
  const read = () =>
    settingOrDefaults(tenantEm(stack.backend.orm, tenant), tenant, key, branchId, { level: 0 });
  expect(await read()).toEqual({ level: 0 });
  const row = em.create(Setting, {
    key,
    name: 'cache test',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { level: 1 },
  });
  await em.flush();
  expect(await read()).toEqual({ level: 1 });
  row.value = { level: 2 };
  await em.flush();
  expect(await read()).toEqual({ level: 2 });
  // What the cache hands out is frozen: no reader changes another's.
  const cached = await effectiveSetting(tenantEm(stack.backend.orm, tenant), tenant, key, branchId);
  expect(Object.isFrozen(cached?.value)).toBe(true);
  await em.remove(row).flush();
  expect(await read()).toEqual({ level: 0 });
});

test('an area switched off and on counts at once for where rentals may end', async () => {
  const em = tenantEm(stack.backend.orm, tenant);
  const geofence = async () =>
    (await loadBranchGeofence(tenantEm(stack.backend.orm, tenant), tenant, branchId)).areas.map(
      (area) => area.id,
    );
  const before = await geofence();
  expect(before.length).toBeGreaterThan(0);
  const area = await em.findOneOrFail(Area, { id: before[0]! });
  area.status = 'INACTIVE';
  await em.flush();
  expect(await geofence()).toEqual(before.slice(1));
  area.status = 'ACTIVE';
  await em.flush();
  expect(new Set(await geofence())).toEqual(new Set(before));
});

test('compatible branches replaced through the API count for where rentals may end once the API commits', async () => {
  const operator = await stack.token(tenant, demoOperatorClient);
  const { cityBranchId } = stack.backend.seed;
  const candidates = async () =>
    (await endBranchCandidates(tenantEm(stack.backend.orm, tenant), tenant, branchId)).candidates;
  const replace = (entries: unknown[]) =>
    stack.call('PUT', stack.back(`/branches/${branchId}/compatible-branches`), {
      token: operator,
      body: entries,
    });
  const original = await stack.call('GET', stack.back(`/branches/${branchId}/compatible-branches`), {
    token: operator,
  });
  expect((await candidates())[0]).toBe(branchId);
  expect((await replace([{ branchId: cityBranchId, isIncoming: false, isOutgoing: true }])).status).toBe(200);
  expect(await acrossProcesses(candidates, (found) => found.length === 2)).toEqual([branchId, cityBranchId]);
  // Removing every link writes nothing through the unit of work: the route empties the cache itself.
  expect((await replace([])).status).toBe(200);
  expect(await acrossProcesses(candidates, (found) => found.length === 1)).toEqual([branchId]);
  expect((await replace(original.body as unknown[])).status).toBe(200);
});
