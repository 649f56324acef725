// Operator endpoints of roles and the permission catalogue (spec "Events, settings, roles"): the
// permission types, roles with their permissions (the spec's "actions"), create, replace, delete, and
// adding or removing actions. Roles are tenant-wide; a change reaches every subject the role is assigned
// to, so it needs what changing those assignments needs (the manage permission and every changed
// permission held on each scope the role is assigned on: AUTH002, AUTHZ019.2). Root permissions never
// enter a role (AUTHZ019.1). See docs/access.md.
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { recordEvent } from '../../../db/events.js';
import { Role } from '../../../db/entities/Role.js';
import type { EntityManager } from '../../../db/orm.js';
import { operationsLimitedTo, roleAssignmentScopes } from '../../../db/roles.js';
import { DomainError } from '../../../domain/errors.js';
import {
  permissionChange,
  permissionKind,
  permissionListRefusal,
  type PermissionCatalogue,
} from '../../../domain/permissions.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Str, StringEnum } from '../../kernel/schemas.js';
import { likePattern } from '../../shared/branch-representation.js';
import {
  assertManagesRoles,
  assertReadsRoles,
  describeScope,
  loadRole,
  managePermissionOn,
  PermissionName,
  PermissionNames,
  RoleIdParams,
  RoleName,
  RoleSchema,
  rootPermissionsOf,
  tags,
  toRoleDto,
  unheldOn,
} from './role-representation.js';

const assignableKinds = ['OPERATIONAL', 'FINANCE'] as const;

const PermissionType = component(
  'PermissionType',
  Type.Object(
    {
      name: Type.String(),
      kind: StringEnum(assignableKinds, {
        description:
          'OPERATIONAL: checked on a branch (grants on ancestors count); FINANCE: on a business unit.',
      }),
      scope: StringEnum(['BRANCH', 'BUSINESS_UNIT'] as const, {
        description: 'Where an assignment must be made for the permission to take effect.',
      }),
      domain: Type.String({ description: 'The domain declaring it (customers, fleet, finance…).' }),
    },
    { additionalProperties: false },
  ),
);

export const listPermissionTypes = defineRoute({
  operationId: 'listPermissionTypes',
  method: 'get',
  path: '/roles/permissions',
  interface: 'back',
  summary: 'The permission types a role may hold',
  description:
    "Every permission the platform's domains declare that a tenant may grant, in domain order. Root permissions (internal to the platform operator) are not listed: no tenant role may hold one.",
  tags,
  query: Type.Object({ kind: Type.Optional(StringEnum(assignableKinds)) }),
  access: {
    anyCaller: 'the handler requires ROLE_READ or BUSINESS_UNIT_ROLE_READ on some scope of the tenant.',
  },
  responses: {
    200: { description: 'Permission types', schema: Type.Array(PermissionType, { maxItems: 1000 }) },
  },
  errors: ['AUTH002'],
  async handler(ctx) {
    await assertReadsRoles(ctx);
    const catalogue = ctx.services.permissions;
    const types = catalogue.all.map((name) => {
      const kind = permissionKind(catalogue, name) as (typeof assignableKinds)[number];
      return {
        name,
        kind,
        scope: kind === 'OPERATIONAL' ? ('BRANCH' as const) : ('BUSINESS_UNIT' as const),
        domain: catalogue.declaredBy.get(name) ?? '',
      };
    });
    return ok(ctx.query.kind ? types.filter((type) => type.kind === ctx.query.kind) : types);
  },
});

export const listRoles = defineRoute({
  operationId: 'listRoles',
  method: 'get',
  path: '/roles',
  interface: 'back',
  summary: 'The roles of the tenant with their permissions, by name',
  description:
    '`searchText` matches names (case ignored); `permission` keeps the roles holding it (a name no domain declares is 0022). Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    searchText: Type.Optional(Str(100, { minLength: 1 })),
    permission: Type.Optional(PermissionName),
  }),
  paged: { defaultSize: 50 },
  access: {
    anyCaller: 'the handler requires ROLE_READ or BUSINESS_UNIT_ROLE_READ on some scope of the tenant.',
  },
  responses: { 200: { description: 'One page of roles', schema: Type.Array(RoleSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await assertReadsRoles(ctx);
    const { query, page, em, tenant } = ctx;
    if (query.permission !== undefined && !permissionKind(ctx.services.permissions, query.permission))
      throw new DomainError('0022', `${query.permission} is not a permission of this platform`);
    const rows = await em.execute<{ id: number; name: string; permissions: string[]; total: string }[]>(
      `select id, name, permissions, count(*) over () as total from role
        where tenant_id = ?
          and (?::text is null or name ilike ?)
          and (?::jsonb is null or permissions @> ?::jsonb)
        order by name, id limit ? offset ?`,
      [
        tenant,
        query.searchText ?? null,
        query.searchText === undefined ? '' : likePattern(query.searchText),
        query.permission === undefined ? null : JSON.stringify([query.permission]),
        query.permission === undefined ? '[]' : JSON.stringify([query.permission]),
        page.size,
        page.offset,
      ],
    );
    const total =
      rows.length > 0
        ? Number(rows[0]!.total)
        : await countRoles(em, tenant, query.searchText, query.permission);
    return ok(
      rows.map((row) => ({ id: Number(row.id), name: row.name, permissions: row.permissions })),
      { total },
    );
  },
});

/** The number of matching roles, when the page asked for lies beyond them. */
async function countRoles(
  em: EntityManager,
  tenant: string,
  searchText: string | undefined,
  permission: string | undefined,
): Promise<number> {
  const [row] = await em.execute<{ total: string }[]>(
    `select count(*) as total from role where tenant_id = ?
        and (?::text is null or name ilike ?) and (?::jsonb is null or permissions @> ?::jsonb)`,
    [
      tenant,
      searchText ?? null,
      searchText === undefined ? '' : likePattern(searchText),
      permission === undefined ? null : JSON.stringify([permission]),
      permission === undefined ? '[]' : JSON.stringify([permission]),
    ],
  );
  return Number(row?.total ?? 0);
}

export const getRole = defineRoute({
  operationId: 'getRole',
  method: 'get',
  path: '/roles/{roleId}',
  interface: 'back',
  summary: 'One role with its permissions',
  tags,
  params: RoleIdParams,
  access: {
    anyCaller: 'the handler requires ROLE_READ or BUSINESS_UNIT_ROLE_READ on some scope of the tenant.',
  },
  responses: { 200: { description: 'The role', schema: RoleSchema } },
  errors: ['AUTH002', 'AR404'],
  async handler(ctx) {
    await assertReadsRoles(ctx);
    return ok(toRoleDto(await loadRole(ctx.em, ctx.params.roleId)));
  },
});

/** Refuses a permission list: unknown names (0022), root permissions (AUTHZ019.1). */
function assertStorable(catalogue: PermissionCatalogue, names: readonly string[]): void {
  const refusal = permissionListRefusal(catalogue, names);
  if (refusal?.code === '0022')
    throw new DomainError('0022', `not permissions of this platform: ${refusal.names.join(', ')}`);
  if (refusal)
    throw new DomainError(
      'AUTHZ019.1',
      `root permissions are internal to the platform operator: ${refusal.names.join(', ')}`,
    );
}

/** Refuses a name another role has (AR100) or one configured vehicle operations are limited to (AR101). */
async function assertNameFree(
  em: EntityManager,
  tenant: string,
  name: string,
  roleId?: number,
): Promise<void> {
  const other = await em.findOne(Role, { name }, { fields: ['id'] });
  if (other && other.id !== roleId) throw new DomainError('AR100', `a role named "${name}" exists`);
  const operations = await operationsLimitedTo(em, tenant, name);
  if (operations.length)
    throw new DomainError(
      'AR101',
      `configured vehicle operations are limited to roles named "${name}" (${operations.map((op) => op.id).join(', ')}): only the platform operator introduces that name`,
    );
}

/** Turns the unique (tenant, name) violation of a concurrent write into AR100. */
async function flushNamed(em: EntityManager, name: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('AR100', `a role named "${name}" exists`);
    throw error;
  }
}

const RoleCreate = component(
  'RoleCreate',
  Type.Object(
    {
      name: RoleName,
      permissions: Type.Optional(PermissionNames('The permissions it grants (default none).')),
    },
    { additionalProperties: false },
  ),
);

export const createRole = defineRoute({
  operationId: 'createRole',
  method: 'post',
  path: '/roles',
  interface: 'back',
  summary: 'Create a role',
  description:
    'Needs ROLE_MANAGE or BUSINESS_UNIT_ROLE_MANAGE on some scope of the tenant: a new role is assigned nowhere, so it grants nothing yet (assigning it is checked against what the assigner holds). Unknown permission names are 0022, root permissions AUTHZ019.1.',
  tags,
  body: RoleCreate,
  access: {
    anyCaller: 'the handler requires ROLE_MANAGE or BUSINESS_UNIT_ROLE_MANAGE on some scope of the tenant.',
  },
  responses: { 201: { description: 'The role', schema: RoleSchema } },
  errors: ['AUTH002', 'AUTHZ019', 'AR100', 'AR101'],
  async handler(ctx) {
    const { em, body, tenant } = ctx;
    await assertManagesRoles(ctx);
    const permissions = [...(body.permissions ?? [])];
    assertStorable(ctx.services.permissions, permissions);
    const name = body.name.trim();
    await assertNameFree(em, tenant, name);
    const role = await em.transactional(async (tx) => {
      const role = tx.create(Role, { name, permissions });
      await flushNamed(tx, name);
      recordEvent(tx, {
        type: 'ROLE_CREATED',
        adminSubject: ctx.actor,
        payload: { roleId: role.id, name, permissions },
      });
      return role;
    });
    return created(toRoleDto(role), { Location: `${ctx.baseUrl}/roles/${role.id}` });
  },
});

/**
 * Changes a role in one transaction holding its row lock (assignments of it wait meanwhile): `next` gives
 * the new name and permission list from the locked role. Checks, in order: root permissions already in the
 * role (AUTHZ019.1: such a role is the platform operator's), the new name (AR100, AR101), then on every
 * scope the role is assigned on the manage permission (AUTH002) and each added or removed permission
 * taking effect there (AUTHZ019.2); an unassigned role needs the manage permission somewhere.
 */
async function changeRole(
  ctx: RouteContext<{ roleId: number }>,
  next: (role: Role) => { name: string; permissions: string[] },
): Promise<Role> {
  const catalogue = ctx.services.permissions;
  // The caller's grants are loaded before the row lock is taken (the checks then read them from memory).
  await assertManagesRoles(ctx);
  return ctx.em.transactional(async (tx) => {
    const role = await loadRole(tx, ctx.params.roleId, LockMode.PESSIMISTIC_WRITE);
    const root = rootPermissionsOf(catalogue, role);
    if (root.length)
      throw new DomainError(
        'AUTHZ019.1',
        `role ${role.id} holds root permissions (${root.join(', ')}): only the platform operator changes it`,
      );
    const { name, permissions } = next(role);
    const renamed = name !== role.name;
    if (renamed) {
      const limited = await operationsLimitedTo(tx, ctx.tenant, role.name);
      if (limited.length)
        throw new DomainError(
          'AR101',
          `configured vehicle operations (${limited.map((op) => op.id).join(', ')}) are limited to "${role.name}": it keeps its name`,
        );
      await assertNameFree(tx, ctx.tenant, name, role.id);
    }
    const { added, removed } = permissionChange(role.permissions, permissions);
    const changed = [...added, ...removed];
    for (const scope of await roleAssignmentScopes(tx, ctx.tenant, role.id)) {
      await ctx.authorize(managePermissionOn(scope), scope);
      const unheld = await unheldOn(ctx, catalogue, changed, scope);
      if (unheld.length)
        throw new DomainError(
          'AUTHZ019.2',
          `role ${role.id} is assigned on ${describeScope(scope)}, where you do not hold ${unheld.join(', ')}: the whole update is rejected`,
        );
    }
    if (!renamed && changed.length === 0) return role;
    const previousName = role.name;
    role.name = name;
    role.permissions = permissions;
    recordEvent(tx, {
      type: 'ROLE_UPDATED',
      adminSubject: ctx.actor,
      payload: { roleId: role.id, name, ...(renamed ? { previousName } : {}), added, removed },
    });
    await flushNamed(tx, name);
    return role;
  });
}

const RoleUpdate = component(
  'RoleUpdate',
  Type.Object(
    { name: RoleName, permissions: PermissionNames('The complete new list (replaces the old one).') },
    { additionalProperties: false },
  ),
);

export const updateRole = defineRoute({
  operationId: 'updateRole',
  method: 'put',
  path: '/roles/{roleId}',
  interface: 'back',
  summary: 'Replace a role’s name and permissions',
  description:
    'The role changes for every subject it is assigned to, from their next request. Needs, on every scope the role is assigned on, ROLE_MANAGE (branch) or BUSINESS_UNIT_ROLE_MANAGE (business unit) — AUTH002 — and every added or removed permission that takes effect there held by the caller there (AUTHZ019.2, nothing is changed); an unassigned role needs the manage permission somewhere. Unknown names are 0022, root permissions AUTHZ019.1; a role configured vehicle operations are limited to keeps its name (AR101).',
  tags,
  params: RoleIdParams,
  body: RoleUpdate,
  access: {
    anyCaller:
      'the handler requires the manage permission on every scope the role is assigned on (see the description).',
  },
  responses: { 200: { description: 'The role', schema: RoleSchema } },
  errors: ['AUTH002', 'AUTHZ019', 'AR404', 'AR100', 'AR101', 'B404', 'B405'],
  async handler(ctx) {
    const permissions = [...ctx.body.permissions];
    assertStorable(ctx.services.permissions, permissions);
    const role = await changeRole(ctx, () => ({ name: ctx.body.name.trim(), permissions }));
    return ok(toRoleDto(role));
  },
});

export const deleteRole = defineRoute({
  operationId: 'deleteRole',
  method: 'delete',
  path: '/roles/{roleId}',
  interface: 'back',
  summary: 'Delete a role that is assigned to nobody',
  description:
    'Refused with AR101 while the role is assigned (delete its assignments first: each needs what granting it needs, so nobody revokes grants they could not give) or while configured vehicle operations are limited to it. Needs what creating a role needs: ROLE_MANAGE or BUSINESS_UNIT_ROLE_MANAGE on some scope.',
  tags,
  params: RoleIdParams,
  access: {
    anyCaller:
      'the handler requires ROLE_MANAGE or BUSINESS_UNIT_ROLE_MANAGE on some scope, as creating does.',
  },
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'AUTHZ019', 'AR404', 'AR101'],
  async handler(ctx) {
    await assertManagesRoles(ctx);
    await ctx.em.transactional(async (tx) => {
      const role = await loadRole(tx, ctx.params.roleId, LockMode.PESSIMISTIC_WRITE);
      const root = rootPermissionsOf(ctx.services.permissions, role);
      if (root.length)
        throw new DomainError(
          'AUTHZ019.1',
          `role ${role.id} holds root permissions: only the platform operator deletes it`,
        );
      const scopes = await roleAssignmentScopes(tx, ctx.tenant, role.id);
      if (scopes.length)
        throw new DomainError(
          'AR101',
          `role ${role.id} is assigned on ${scopes.map(describeScope).join(', ')}: delete its assignments first`,
        );
      const limited = await operationsLimitedTo(tx, ctx.tenant, role.name);
      if (limited.length)
        throw new DomainError(
          'AR101',
          `configured vehicle operations (${limited.map((op) => op.id).join(', ')}) are limited to "${role.name}"`,
        );
      tx.remove(role);
      recordEvent(tx, {
        type: 'ROLE_DELETED',
        adminSubject: ctx.actor,
        payload: { roleId: role.id, name: role.name, permissions: role.permissions },
      });
    });
    return noContent();
  },
});

const RoleActions = component(
  'RoleActions',
  Type.Object(
    { actions: PermissionNames('Permission names to add or remove.', 1) },
    { additionalProperties: false },
  ),
);

const actionRules =
  'Needs, on every scope the role is assigned on, the manage permission (AUTH002) and each of these permissions that takes effect there held by the caller (AUTHZ019.2: the whole update is rejected); an unassigned role needs ROLE_MANAGE or BUSINESS_UNIT_ROLE_MANAGE somewhere. Unknown names are 0022, root permissions AUTHZ019.1. Effective from the next request of every holder.';

export const addRoleActions = defineRoute({
  operationId: 'addRoleActions',
  method: 'post',
  path: '/roles/{roleId}/actions',
  interface: 'back',
  summary: 'Add permissions (actions) to a role',
  description: `Names the role already holds are kept once. ${actionRules}`,
  tags,
  params: RoleIdParams,
  body: RoleActions,
  access: {
    anyCaller:
      'the handler requires the manage permission on every scope the role is assigned on (see the description).',
  },
  responses: { 200: { description: 'The role', schema: RoleSchema } },
  errors: ['AUTH002', 'AUTHZ019', 'AR404', 'B404', 'B405'],
  async handler(ctx) {
    assertStorable(ctx.services.permissions, ctx.body.actions);
    const role = await changeRole(ctx, (current) => ({
      name: current.name,
      permissions: [
        ...current.permissions,
        ...ctx.body.actions.filter((name) => !current.permissions.includes(name)),
      ],
    }));
    return ok(toRoleDto(role));
  },
});

export const removeRoleActions = defineRoute({
  operationId: 'removeRoleActions',
  method: 'delete',
  path: '/roles/{roleId}/actions',
  interface: 'back',
  summary: 'Remove permissions (actions) from a role',
  description: `Names the role does not hold are ignored, but each must be a permission of the platform (0022). Removing needs what adding needs. ${actionRules}`,
  tags,
  params: RoleIdParams,
  body: RoleActions,
  access: {
    anyCaller:
      'the handler requires the manage permission on every scope the role is assigned on (see the description).',
  },
  responses: { 200: { description: 'The role', schema: RoleSchema } },
  errors: ['AUTH002', 'AUTHZ019', 'AR404', 'B404', 'B405'],
  async handler(ctx) {
    const role = await changeRole(ctx, (current) => {
      // A name the platform no longer declares may still be removed from a role that holds it.
      assertStorable(
        ctx.services.permissions,
        ctx.body.actions.filter(
          (name) => !current.permissions.includes(name) || permissionKind(ctx.services.permissions, name),
        ),
      );
      return {
        name: current.name,
        permissions: current.permissions.filter((name) => !ctx.body.actions.includes(name)),
      };
    });
    return ok(toRoleDto(role));
  },
});

export const roleRoutes = [
  listPermissionTypes,
  listRoles,
  getRole,
  createRole,
  updateRole,
  deleteRole,
  addRoleActions,
  removeRoleActions,
];
