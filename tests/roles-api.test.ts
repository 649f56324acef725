// Roles, permission types and role assignments over HTTP against the real database: every verb, the
// scopes (branch with its descendants, business unit), root permissions (AUTHZ019 on roles, AUTHZ018 on
// grants), no escalation (a caller grants, changes or revokes only what it holds on the scope), other
// tenants' and ungranted branches' ids, hostile input, and a role change taking effect on the very next
// request of the subject holding it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { TokenService } from '../api/auth.js';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { tenantEm, type EntityManager } from '../db/orm.js';
import { hashSecret } from '../platform/secrets.js';
import { accessDocsPath, accessDocument } from '../scripts/access-docs.js';
import { expectError, testJwtSecret, type CallOptions, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let admin: string;
let limited: string;
let nobody: string;
let limitedRoleId: number;
let cityId: number;
let districtId: number;
let siblingId: number;
let unitId: number;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const tokens = new TokenService(testJwtSecret, 600);

type Grant = { roleId: number; branchId?: number; businessUnitId?: number };

/** A role made as the platform operator would (straight into the database); its id. */
async function roleWith(
  name: string,
  permissions: string[],
  em: EntityManager = session.em(),
): Promise<number> {
  const role = em.create(Role, { name, permissions });
  await em.flush();
  return role.id;
}

const roleId = async (name: string, em: EntityManager = session.em()) =>
  (await em.findOneOrFail(Role, { name })).id;

/** A new API client of the tenant holding `grants` (written directly); its client id and a back token. */
async function apiClient(
  grants: Grant[],
  tenant = session.seed.tenant,
): Promise<{ clientId: string; token: string }> {
  const em = tenantEm(session.backend.orm, tenant);
  const clientId = `roles-${randomBytes(4).toString('hex')}`;
  em.create(ApiClient, {
    clientId,
    name: `Client ${clientId}`,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  for (const grant of grants)
    em.create(RoleAssignment, {
      subjectType: 'API_CLIENT',
      subjectId: clientId,
      role: em.getReference(Role, grant.roleId),
      branch: grant.branchId ? em.getReference(Branch, grant.branchId) : null,
      businessUnit: grant.businessUnitId ? em.getReference(BusinessUnit, grant.businessUnitId) : null,
    });
  await em.flush();
  const token = await session.stack.token(tenant, { clientId, clientSecret: `${clientId}-secret` });
  return { clientId, token };
}

const createRole = (body: unknown, token = admin) => call('POST', back('/roles'), { token, body });
const assign = (body: Record<string, unknown>, token = admin) =>
  call('POST', back('/roles/assignments'), { token, body });
const rentals = (token: string, branchId = districtId) =>
  call('GET', back(`/rentals?branchId=${branchId}`), { token });

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalroles', name: 'Rival Roles' } });
  ({
    cityBranchId: cityId,
    branchId: districtId,
    otherBranchId: siblingId,
    businessUnitId: unitId,
  } = session.seed);
  const administrator = await roleId('Administrator');
  admin = (
    await apiClient([
      { roleId: administrator, branchId: cityId },
      { roleId: administrator, businessUnitId: unitId },
    ])
  ).token;
  limitedRoleId = await roleWith('Limited admin', ['ROLE_READ', 'ROLE_MANAGE', 'RENTAL_READ']);
  limited = (await apiClient([{ roleId: limitedRoleId, branchId: cityId }])).token;
  nobody = (await apiClient([])).token;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

test('permission types: name, kind, scope and domain; no root permission; ROLE_READ needed', async () => {
  const all = await call('GET', back('/roles/permissions'), { token: admin });
  expect(all.status).toBe(200);
  expect(all.body).toContainEqual({
    name: 'RENTAL_READ',
    kind: 'OPERATIONAL',
    scope: 'BRANCH',
    domain: 'rentals',
  });
  expect(all.body).toContainEqual({
    name: 'INVOICE_READ',
    kind: 'FINANCE',
    scope: 'BUSINESS_UNIT',
    domain: 'finance',
  });
  expect(all.body).toContainEqual({
    name: 'ROLE_MANAGE',
    kind: 'OPERATIONAL',
    scope: 'BRANCH',
    domain: 'access',
  });
  expect(all.body.some((type: { name: string }) => type.name.startsWith('ROOT_'))).toBe(false);
  const finance = await call('GET', back('/roles/permissions?kind=FINANCE'), {
    token: session.operatorToken,
  });
  expect(finance.body.length).toBeGreaterThan(0);
  expect(finance.body.every((type: { kind: string }) => type.kind === 'FINANCE')).toBe(true);
  expectError(await call('GET', back('/roles/permissions'), { token: nobody }), 403, 'AUTH002');
  expectError(await call('GET', back('/roles'), { token: nobody }), 403, 'AUTH002');
});

test('roles: create, read, list, replace, add and remove actions, delete', async () => {
  const made = await createRole({ name: '  Night crew ', permissions: ['RENTAL_READ'] });
  expect(made.status).toBe(201);
  expect(made.body).toEqual({ id: expect.any(Number), name: 'Night crew', permissions: ['RENTAL_READ'] });
  expect(made.headers.get('Location')).toMatch(new RegExp(`/roles/${made.body.id}$`));
  const id = made.body.id;
  expectError(await createRole({ name: 'Night crew' }), 409, 'AR100');
  expect((await call('GET', back(`/roles/${id}`), { token: session.operatorToken })).body.name).toBe(
    'Night crew',
  );

  const search = await call('GET', back('/roles?searchText=NIGHT&size=1'), { token: admin });
  expect(search.body).toEqual([made.body]);
  expect(search.headers.get('X-Total-Count')).toBe('1');
  const holding = await call('GET', back('/roles?permission=RENTAL_READ&size=200'), { token: admin });
  expect(holding.body.map((role: { name: string }) => role.name)).toEqual(
    expect.arrayContaining(['Night crew', 'Administrator', 'Fleet operations', 'Limited admin']),
  );
  expect(holding.body.map((role: { name: string }) => role.name)).not.toContain('Finance');
  const beyond = await call('GET', back('/roles?page=50'), { token: admin });
  expect(beyond.body).toEqual([]);
  expect(Number(beyond.headers.get('X-Total-Count'))).toBeGreaterThanOrEqual(5);

  const replaced = await call('PUT', back(`/roles/${id}`), {
    token: admin,
    body: { name: 'Night shift', permissions: ['RENTAL_READ', 'VEHICLE_READ'] },
  });
  expect(replaced.body).toEqual({ id, name: 'Night shift', permissions: ['RENTAL_READ', 'VEHICLE_READ'] });
  const added = await call('POST', back(`/roles/${id}/actions`), {
    token: admin,
    body: { actions: ['RENTAL_CREATE', 'RENTAL_READ'] },
  });
  expect(added.body.permissions).toEqual(['RENTAL_READ', 'VEHICLE_READ', 'RENTAL_CREATE']);
  const removed = await call('DELETE', back(`/roles/${id}/actions`), {
    token: admin,
    body: { actions: ['VEHICLE_READ', 'PAYMENT_READ'] },
  });
  expect(removed.body.permissions).toEqual(['RENTAL_READ', 'RENTAL_CREATE']);

  // Managing roles is the administrator's: the demo operator reads them only.
  expectError(await createRole({ name: 'Mine' }, session.operatorToken), 403, 'AUTH002');
  expectError(await call('DELETE', back(`/roles/${id}`), { token: session.operatorToken }), 403, 'AUTH002');

  expect((await call('DELETE', back(`/roles/${id}`), { token: admin })).status).toBe(204);
  expectError(await call('GET', back(`/roles/${id}`), { token: admin }), 404, 'AR404');
  expectError(await call('DELETE', back(`/roles/${id}`), { token: admin }), 404, 'AR404');
  expectError(
    await call('POST', back(`/roles/${id}/actions`), { token: admin, body: { actions: ['RENTAL_READ'] } }),
    404,
    'AR404',
  );

  const events = await session
    .em()
    .getConnection()
    .execute<{ type: string; admin_subject: string }[]>(
      `select type, admin_subject from event
        where tenant_id = ? and type like 'ROLE_%' and payload->>'roleId' = ? order by id`,
      [session.seed.tenant, String(id)],
    );
  expect(events.map((event) => event.type)).toEqual([
    'ROLE_CREATED',
    'ROLE_UPDATED',
    'ROLE_UPDATED',
    'ROLE_UPDATED',
    'ROLE_DELETED',
  ]);
  expect(events[0]!.admin_subject).toMatch(/^client:roles-/);
});

test('roles in use: assigned or named by configured vehicle operations (AR101); names taken (AR100)', async () => {
  const administrator = await roleId('Administrator');
  const fleet = await roleId('Fleet operations');
  expectError(await call('DELETE', back(`/roles/${administrator}`), { token: admin }), 409, 'AR101');
  const spare = await roleWith(`Spare ${randomBytes(3).toString('hex')}`, []);
  const rename = (id: number, name: string) =>
    call('PUT', back(`/roles/${id}`), { token: admin, body: { name, permissions: [] } });
  expectError(await rename(spare, 'Fleet operations'), 409, 'AR100');
  expectError(await rename(fleet, 'Fleet crew'), 409, 'AR101');
  // The seeded "Reboot IoT module" is limited to Administrator: nobody takes its name elsewhere.
  await session
    .em()
    .getConnection()
    .execute(
      `update vehicle_action set role_names = '["Night owls"]' where tenant_id = ? and name = 'Reboot IoT module'`,
      [session.seed.tenant],
    );
  expectError(await rename(spare, 'Night owls'), 409, 'AR101');
  expectError(await createRole({ name: 'Night owls' }), 409, 'AR101');
  await session
    .em()
    .getConnection()
    .execute(
      `update vehicle_action set role_names = '["Administrator"]' where tenant_id = ? and name = 'Reboot IoT module'`,
      [session.seed.tenant],
    );
  expect((await call('DELETE', back(`/roles/${spare}`), { token: admin })).status).toBe(204);
});

test('root permissions: never in a role (AUTHZ019), never granted (AUTHZ018), never held', async () => {
  expectError(
    await createRole({ name: 'Platform', permissions: ['RENTAL_READ', 'ROOT_BRANCH_MANAGE'] }),
    403,
    'AUTHZ019.1',
  );
  const plain = (await createRole({ name: `Plain ${randomBytes(3).toString('hex')}` })).body.id;
  expectError(
    await call('PUT', back(`/roles/${plain}`), {
      token: admin,
      body: { name: 'Plain', permissions: ['ROOT_TENANT_MANAGE'] },
    }),
    403,
    'AUTHZ019.1',
  );
  expectError(
    await call('POST', back(`/roles/${plain}/actions`), {
      token: admin,
      body: { actions: ['ROOT_API_CLIENT_MANAGE'] },
    }),
    403,
    'AUTHZ019.1',
  );
  const exists = await call('GET', back('/roles/assignments/exists?permission=ROOT_TENANT_MANAGE'), {
    token: admin,
  });
  expect(exists.body).toEqual({ exists: false });

  // A role the platform operator made with a root permission: read-only and not grantable for tenants.
  const platform = await roleWith(`Platform ${randomBytes(3).toString('hex')}`, [
    'RENTAL_READ',
    'ROOT_VEHICLE_ACTION_MANAGE',
  ]);
  expectError(
    await call('POST', back(`/roles/${platform}/actions`), {
      token: admin,
      body: { actions: ['RENTAL_CREATE'] },
    }),
    403,
    'AUTHZ019.1',
  );
  expectError(await call('DELETE', back(`/roles/${platform}`), { token: admin }), 403, 'AUTHZ019.1');
  expectError(
    await assign({ roleId: platform, subjectType: 'OPERATOR', subjectId: 'ops@idp', branchId: cityId }),
    403,
    'AUTHZ018.1',
  );
});

test('assignments: grant to API clients and operators, list, per-branch detail, revoke', async () => {
  const crewRole = await roleWith(`Crew ${randomBytes(3).toString('hex')}`, ['RENTAL_READ', 'INVOICE_READ']);
  const crew = await apiClient([]);
  expectError(await rentals(crew.token), 403, 'AUTH002');
  const granted = await assign({
    roleId: crewRole,
    subjectType: 'API_CLIENT',
    subjectId: crew.clientId,
    branchId: districtId,
  });
  expect(granted.status).toBe(201);
  expect(granted.body).toEqual({
    id: expect.any(Number),
    roleId: crewRole,
    roleName: expect.stringMatching(/^Crew /),
    subjectType: 'API_CLIENT',
    subjectId: crew.clientId,
    subjectName: `Client ${crew.clientId}`,
    branchId: districtId,
    businessUnitId: null,
  });
  expect((await rentals(crew.token)).status).toBe(200);
  expectError(
    await assign({
      roleId: crewRole,
      subjectType: 'API_CLIENT',
      subjectId: crew.clientId,
      branchId: districtId,
    }),
    409,
    'AR102',
  );

  // An operator is the `sub` of the tokens the operators' identity provider issues.
  const alice = 'alice@idp.example';
  const aliceToken = await tokens.issue({
    tenant: session.seed.tenant,
    subjectType: 'OPERATOR',
    subjectId: alice,
    scope: 'back',
  });
  expectError(await rentals(aliceToken), 403, 'AUTH002');
  const aliceGrant = await assign({
    roleId: crewRole,
    subjectType: 'OPERATOR',
    subjectId: alice,
    branchId: cityId,
  });
  expect(aliceGrant.body).toMatchObject({
    subjectType: 'OPERATOR',
    subjectId: alice,
    subjectName: null,
    branchId: cityId,
  });
  expect((await rentals(aliceToken)).status).toBe(200);
  const financeGrant = await assign({
    roleId: crewRole,
    subjectType: 'OPERATOR',
    subjectId: alice,
    businessUnitId: unitId,
  });
  expect(financeGrant.body).toMatchObject({ branchId: null, businessUnitId: unitId });

  expectError(
    await assign({
      roleId: crewRole,
      subjectType: 'API_CLIENT',
      subjectId: 'no-such-client',
      branchId: cityId,
    }),
    404,
    'AUTH210',
  );
  const rivalClient = await apiClient([], session.rival.tenant);
  expectError(
    await assign({
      roleId: crewRole,
      subjectType: 'API_CLIENT',
      subjectId: rivalClient.clientId,
      branchId: cityId,
    }),
    404,
    'AUTH210',
  );

  const list = (query: string, token = admin) => call('GET', back(`/roles/assignments?${query}`), { token });
  const ids = (reply: Reply) => reply.body.map((row: { id: number }) => row.id);
  expect(ids(await list(`subjectType=OPERATOR&subjectId=${encodeURIComponent(alice)}`))).toEqual([
    aliceGrant.body.id,
    financeGrant.body.id,
  ]);
  expect(ids(await list(`roleId=${crewRole}`))).toEqual([
    granted.body.id,
    aliceGrant.body.id,
    financeGrant.body.id,
  ]);
  expect(ids(await list(`roleId=${crewRole}&branchId=${cityId}`))).toEqual([aliceGrant.body.id]);
  expect(ids(await list(`roleId=${crewRole}&branchId=${cityId}&includeChildBranches=true`))).toEqual([
    granted.body.id,
    aliceGrant.body.id,
  ]);
  expect(ids(await list(`roleId=${crewRole}&businessUnitId=${unitId}`))).toEqual([financeGrant.body.id]);
  const paged = await list(`roleId=${crewRole}&size=2&page=1`);
  expect(ids(paged)).toEqual([financeGrant.body.id]);
  expect([paged.headers.get('X-Total-Count'), paged.headers.get('X-Total-Pages')]).toEqual(['3', '2']);
  // Without BUSINESS_UNIT_ROLE_READ the limited administrator sees the city's grants, not the unit's.
  expect(ids(await list(`roleId=${crewRole}`, limited))).toEqual([granted.body.id, aliceGrant.body.id]);
  expectError(await list(`businessUnitId=${unitId}`, limited), 403, 'AUTH002');
  expectError(await list(`branchId=${siblingId}`, limited), 403, 'AUTH002');

  const detailed = await call(
    'GET',
    back(`/roles/assignments-detailed?branchId=${cityId}&includeChildBranches=true`),
    { token: admin },
  );
  expect(detailed.status).toBe(200);
  const district = detailed.body.find((branch: { branchId: number }) => branch.branchId === districtId);
  expect(district).toMatchObject({
    branchName: 'Berlin Mitte',
    businessUnitId: unitId,
    businessUnitAssignmentsIncluded: true,
  });
  const aliceThere = district.subjects.find((subject: { subjectId: string }) => subject.subjectId === alice);
  expect(aliceThere.roles.map((role: { via: string }) => role.via).sort()).toEqual([
    'ANCESTOR',
    'BUSINESS_UNIT',
  ]);
  const crewThere = district.subjects.find(
    (subject: { subjectId: string }) => subject.subjectId === crew.clientId,
  );
  expect(crewThere).toMatchObject({
    subjectType: 'API_CLIENT',
    subjectName: `Client ${crew.clientId}`,
    roles: [{ assignmentId: granted.body.id, via: 'BRANCH' }],
  });
  const demo = district.subjects.find(
    (subject: { subjectId: string }) => subject.subjectId === 'demo-operator',
  );
  expect(
    demo.roles.map((role: { roleName: string; via: string }) => `${role.roleName}/${role.via}`).sort(),
  ).toEqual(['Finance/BUSINESS_UNIT', 'Fleet operations/ANCESTOR']);
  const narrow = await call('GET', back(`/roles/assignments-detailed?branchId=${districtId}`), {
    token: limited,
  });
  expect(narrow.body).toHaveLength(1);
  expect(narrow.body[0].businessUnitAssignmentsIncluded).toBe(false);
  expect(
    narrow.body[0].subjects.flatMap((subject: { roles: { via: string }[] }) =>
      subject.roles.map((role) => role.via),
    ),
  ).not.toContain('BUSINESS_UNIT');
  expectError(
    await call('GET', back(`/roles/assignments-detailed?branchId=${siblingId}`), { token: limited }),
    403,
    'AUTH002',
  );

  expect((await call('DELETE', back(`/roles/assignments/${granted.body.id}`), { token: admin })).status).toBe(
    204,
  );
  expectError(await rentals(crew.token), 403, 'AUTH002');
  expectError(
    await call('DELETE', back(`/roles/assignments/${granted.body.id}`), { token: admin }),
    404,
    'AR404',
  );
  const events = await session
    .em()
    .getConnection()
    .execute<{ type: string; branch_id: number | null }[]>(
      `select type, branch_id from event where tenant_id = ? and type like 'ROLE_ASSIGNMENT_%' and payload->>'assignmentId' = ? order by id`,
      [session.seed.tenant, String(granted.body.id)],
    );
  expect(events).toEqual([
    { type: 'ROLE_ASSIGNMENT_CREATED', branch_id: districtId },
    { type: 'ROLE_ASSIGNMENT_DELETED', branch_id: districtId },
  ]);
});

test('no escalation: grants, role changes and revocations stay within what the caller holds', async () => {
  // The limited administrator holds ROLE_READ, ROLE_MANAGE and RENTAL_READ on the city.
  const administrator = await roleId('Administrator');
  const readers = await roleWith(`Readers ${randomBytes(3).toString('hex')}`, ['RENTAL_READ']);
  const target = { subjectType: 'OPERATOR', subjectId: 'bob@idp.example' };
  expectError(
    await assign({ roleId: administrator, ...target, branchId: districtId }, limited),
    403,
    'AUTHZ018.2',
  );
  expectError(await assign({ roleId: readers, ...target, branchId: siblingId }, limited), 403, 'AUTH002');
  expectError(await assign({ roleId: readers, ...target, businessUnitId: unitId }, limited), 403, 'AUTH002');
  const granted = await assign({ roleId: readers, ...target, branchId: districtId }, limited);
  expect(granted.status).toBe(201);

  // Adding a permission the caller lacks on a scope the role is assigned on: rejected as a whole.
  expectError(
    await call('POST', back(`/roles/${readers}/actions`), {
      token: limited,
      body: { actions: ['RENTAL_CREATE', 'RENTAL_READ'] },
    }),
    403,
    'AUTHZ019.2',
  );
  expectError(
    await call('PUT', back(`/roles/${readers}`), {
      token: limited,
      body: { name: 'Readers+', permissions: ['RENTAL_READ', 'VEHICLE_DEBUG'] },
    }),
    403,
    'AUTHZ019.2',
  );
  expect((await call('GET', back(`/roles/${readers}`), { token: limited })).body.permissions).toEqual([
    'RENTAL_READ',
  ]);
  // The administrator holds it there; finance permissions are inert on branch assignments, so they pass.
  const widened = await call('POST', back(`/roles/${readers}/actions`), {
    token: admin,
    body: { actions: ['RENTAL_CREATE', 'INVOICE_READ'] },
  });
  expect(widened.body.permissions).toEqual(['RENTAL_READ', 'RENTAL_CREATE', 'INVOICE_READ']);
  // …and now the limited administrator may neither revoke the grant nor take the permission away again.
  expectError(
    await call('DELETE', back(`/roles/assignments/${granted.body.id}`), { token: limited }),
    403,
    'AUTHZ018.2',
  );
  expectError(
    await call('DELETE', back(`/roles/${readers}/actions`), {
      token: limited,
      body: { actions: ['RENTAL_CREATE'] },
    }),
    403,
    'AUTHZ019.2',
  );
  // A role on a business unit needs BUSINESS_UNIT_ROLE_MANAGE there to change at all.
  await assign({ roleId: readers, ...target, businessUnitId: unitId });
  expectError(
    await call('DELETE', back(`/roles/${readers}/actions`), {
      token: limited,
      body: { actions: ['RENTAL_READ'] },
    }),
    403,
    'AUTH002',
  );
  // Nor may the limited administrator revoke the administrator's own grant.
  const adminGrant = (
    await call('GET', back(`/roles/assignments?roleId=${administrator}&branchId=${cityId}`), {
      token: limited,
    })
  ).body[0];
  expectError(
    await call('DELETE', back(`/roles/assignments/${adminGrant.id}`), { token: limited }),
    403,
    'AUTHZ018.2',
  );

  // Roles configured vehicle operations are limited to: the caller must hold one of each operation's roles.
  const fleet = await session.em().findOneOrFail(Role, { name: 'Fleet operations' });
  const clone = await roleWith(`Clone ${randomBytes(3).toString('hex')}`, [
    ...fleet.permissions,
    'ROLE_MANAGE',
  ]);
  const cloneAdmin = await apiClient([{ roleId: clone, branchId: cityId }]);
  expectError(
    await assign({ roleId: fleet.id, ...target, branchId: districtId }, cloneAdmin.token),
    403,
    'AUTHZ018.3',
  );
  expect((await assign({ roleId: fleet.id, ...target, branchId: districtId })).status).toBe(201);
});

test('other tenants: their roles, assignments, branches, units and clients are not found', async () => {
  const rivalEm = tenantEm(session.backend.orm, session.rival.tenant);
  const rivalAdmin = await apiClient(
    [{ roleId: await roleId('Administrator', rivalEm), branchId: session.rival.cityBranchId }],
    session.rival.tenant,
  );
  const ours = await roleId('Limited admin');
  const ourGrant = (await call('GET', back(`/roles/assignments?roleId=${ours}`), { token: admin })).body[0];
  const rivalBack = (path: string) => `/v1/${session.rival.tenant}/back${path}`;
  expectError(await call('GET', rivalBack(`/roles/${ours}`), { token: rivalAdmin.token }), 404, 'AR404');
  expectError(
    await call('PUT', rivalBack(`/roles/${ours}`), {
      token: rivalAdmin.token,
      body: { name: 'Mine', permissions: [] },
    }),
    404,
    'AR404',
  );
  expectError(
    await call('DELETE', rivalBack(`/roles/assignments/${ourGrant.id}`), { token: rivalAdmin.token }),
    404,
    'AR404',
  );
  expect(
    (await call('GET', rivalBack(`/roles/assignments?roleId=${ours}`), { token: rivalAdmin.token })).body,
  ).toEqual([]);
  // Our token on their tenant's path is refused before anything is read.
  expectError(await call('GET', rivalBack('/roles'), { token: admin }), 403, 'AUTH002');
  const rivalRole = await roleId('Fleet operations', rivalEm);
  const target = { subjectType: 'OPERATOR', subjectId: 'carol@idp.example' };
  expectError(await assign({ roleId: rivalRole, ...target, branchId: cityId }), 404, 'AR404');
  expectError(await assign({ roleId: ours, ...target, branchId: session.rival.cityBranchId }), 404, 'B404');
  expectError(
    await assign({ roleId: ours, ...target, businessUnitId: session.rival.businessUnitId }),
    404,
    'B405',
  );
});

test('a role change counts on the very next request', async () => {
  const role = await roleWith(`Next request ${randomBytes(3).toString('hex')}`, ['RENTAL_READ']);
  const subject = await apiClient([{ roleId: role, branchId: cityId }]);
  // Twice, so the grants are cached when the change comes.
  expect((await rentals(subject.token)).status).toBe(200);
  expect((await rentals(subject.token)).status).toBe(200);
  const remove = await call('DELETE', back(`/roles/${role}/actions`), {
    token: admin,
    body: { actions: ['RENTAL_READ'] },
  });
  expect(remove.body.permissions).toEqual([]);
  expectError(await rentals(subject.token), 403, 'AUTH002');
  await call('POST', back(`/roles/${role}/actions`), { token: admin, body: { actions: ['RENTAL_READ'] } });
  expect((await rentals(subject.token)).status).toBe(200);
  await call('PUT', back(`/roles/${role}`), {
    token: admin,
    body: { name: 'Next request, renamed', permissions: ['VEHICLE_READ'] },
  });
  expectError(await rentals(subject.token), 403, 'AUTH002');
  const exists = await call(
    'GET',
    back(
      `/roles/assignments/exists?roleName=${encodeURIComponent('Next request, renamed')}&branchId=${districtId}`,
    ),
    { token: subject.token },
  );
  expect(exists.body).toEqual({ exists: true });
});

test('hostile input answers 0022', async () => {
  const role = await roleId('Limited admin');
  const valid = {
    roleId: role,
    subjectType: 'OPERATOR',
    subjectId: 'dave@idp.example',
    branchId: districtId,
  };
  const cases: [string, string, unknown?][] = [
    ['GET', '/roles/0x1'],
    ['GET', '/roles/1e3'],
    ['GET', '/roles/01'],
    ['GET', '/roles/-1'],
    ['GET', '/roles/2147483648'],
    ['DELETE', '/roles/assignments/0x1'],
    ['GET', '/roles?permission=BOGUS'],
    ['GET', '/roles?permission=rental_read'],
    ['GET', '/roles?searchText=%00'],
    ['GET', '/roles/permissions?kind=ROOT'],
    ['GET', '/roles/assignments?roleId=1e3'],
    ['GET', '/roles/assignments?subjectId=a%00b'],
    ['GET', `/roles/assignments?branchId=${cityId}&businessUnitId=${unitId}`],
    ['GET', '/roles/assignments-detailed'],
    ['GET', '/roles/assignments/exists?permission=BOGUS'],
    ['GET', '/roles/assignments/exists?roleName=Fin%00ance'],
    ['POST', '/roles', { name: 'a\u0000b' }],
    ['POST', '/roles', { name: '   ' }],
    ['POST', '/roles', { name: 'x'.repeat(101) }],
    ['POST', '/roles', { name: 'Bogus', permissions: ['BOGUS'] }],
    ['POST', '/roles', { name: 'Bogus', permissions: 'RENTAL_READ' }],
    ['POST', '/roles', { name: 'Bogus', permissions: ['RENTAL_READ', 'RENTAL_READ'] }],
    ['POST', '/roles', { name: 'Bogus', permissions: ['RENTAL_READ\u0000'] }],
    ['POST', '/roles', { name: 'Bogus', extra: true }],
    ['POST', '/roles', { name: 7 }],
    ['PUT', `/roles/${role}`, { name: 'Limited admin' }],
    ['POST', `/roles/${role}/actions`, { actions: [] }],
    ['DELETE', `/roles/${role}/actions`, { actions: ['NOT_A_PERMISSION'] }],
    ['POST', '/roles/assignments', { ...valid, roleId: '1' }],
    ['POST', '/roles/assignments', { ...valid, roleId: 0 }],
    ['POST', '/roles/assignments', { ...valid, subjectType: 'CUSTOMER' }],
    ['POST', '/roles/assignments', { ...valid, businessUnitId: unitId }],
    ['POST', '/roles/assignments', { ...valid, branchId: undefined }],
    ['POST', '/roles/assignments', { ...valid, subjectId: ' dave' }],
    ['POST', '/roles/assignments', { ...valid, subjectId: 'da\u202eve' }],
    ['POST', '/roles/assignments', { ...valid, subjectId: 'da\u0000ve' }],
    ['POST', '/roles/assignments', { ...valid, subjectId: '' }],
    ['POST', '/roles/assignments', { ...valid, branchId: 1.5 }],
  ];
  for (const [method, path, body] of cases) {
    const reply = await call(method, back(path), { token: admin, ...(body === undefined ? {} : { body }) });
    expect({ method, path, body, code: reply.body?.errorCode, status: reply.status }).toEqual({
      method,
      path,
      body,
      code: '0022',
      status: 400,
    });
  }
  // A number in exponent form inside JSON is still a number: 1e9 is role 1,000,000,000, which does not exist.
  const exponent = await call('POST', back('/roles/assignments'), {
    token: admin,
    rawBody: `{"roleId":1e9,"subjectType":"OPERATOR","subjectId":"dave","branchId":${districtId}}`,
  });
  expectError(exponent, 404, 'AR404');
});

test('docs/access.md lists every permission as the domains declare them', async () => {
  expect(fs.readFileSync(accessDocsPath, 'utf8')).toBe(await accessDocument());
});
