// The operator's representation of roles and role assignments, and the rules the role routes share: who
// may manage grants on a scope, and the no-escalation check (a caller hands out, or takes away, only
// permissions it holds itself on that scope). See docs/access.md.
import type { LockMode } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { Role } from '../../../db/entities/Role.js';
import type { RoleAssignment } from '../../../db/entities/RoleAssignment.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchDirectory } from '../../../db/branches.js';
import { apiClientNames, operationsLimitedTo } from '../../../db/roles.js';
import { DomainError } from '../../../domain/errors.js';
import {
  effectivePermissions,
  type GrantScope,
  type PermissionCatalogue,
} from '../../../domain/permissions.js';
import { permits } from '../../authorization.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

export const tags = ['Roles'];

/** A permission name as sent: upper-case words joined by underscores (unknown names answer 0022). */
export const PermissionName = Str(64, {
  pattern: '^[A-Z][A-Z0-9_]*$',
  description: 'A permission name, e.g. RENTAL_READ (GET /roles/permissions lists them).',
});

/** A list of permission names, each once. */
export const PermissionNames = (description: string, minItems = 0) =>
  Type.Array(PermissionName, { minItems, maxItems: 200, uniqueItems: true, description });

/** A role's name: 1–100 characters, not blank, no NUL (stored trimmed). */
export const RoleName = Str(100, {
  minLength: 1,
  pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$',
  description: 'Unique in the tenant (AR100); stored without surrounding white space.',
});

export const RoleSchema = component(
  'Role',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      permissions: Type.Array(Type.String(), {
        description:
          'The permissions (the spec calls them actions) the role grants: operational ones take effect on branch assignments, finance ones on business-unit assignments.',
      }),
    },
    { additionalProperties: false },
  ),
);
export type RoleDto = Static<typeof RoleSchema>;

export const RoleIdParams = Type.Object({ roleId: Id() });

export const roleSubjectTypes = ['OPERATOR', 'API_CLIENT'] as const;
export const RoleSubjectType = component(
  'RoleSubjectType',
  StringEnum(roleSubjectTypes, {
    description:
      "OPERATOR: a person signed in through the operators' identity provider (subjectId = the `sub` of their tokens); API_CLIENT: a client-credentials client of the tenant (subjectId = its client_id).",
  }),
);

export const RoleAssignmentSchema = component(
  'RoleAssignment',
  Type.Object(
    {
      id: Id(),
      roleId: Id(),
      roleName: Type.String(),
      subjectType: RoleSubjectType,
      subjectId: Type.String(),
      subjectName: Nullable(Type.String({ description: "The API client's name; null for operators." })),
      branchId: Nullable(Id({ description: 'Operational scope: this branch and its descendants.' })),
      businessUnitId: Nullable(Id({ description: 'Finance scope: this business unit.' })),
    },
    { additionalProperties: false },
  ),
);
export type RoleAssignmentDto = Static<typeof RoleAssignmentSchema>;

export const toRoleDto = (role: Role): RoleDto => ({
  id: role.id,
  name: role.name,
  permissions: [...role.permissions],
});

/** The scope of an assignment: its branch or its business unit (exactly one is set). */
export const scopeOf = (assignment: RoleAssignment): GrantScope =>
  assignment.branch ? { branchId: assignment.branch.id } : { businessUnitId: assignment.businessUnit!.id };

/** Assignments as the API shows them (their roles loaded), with the API clients' names. */
export async function toAssignmentDtos(
  em: EntityManager,
  tenant: string,
  rows: readonly RoleAssignment[],
): Promise<RoleAssignmentDto[]> {
  const clients = await apiClientNames(
    em,
    tenant,
    rows.filter((row) => row.subjectType === 'API_CLIENT').map((row) => row.subjectId),
  );
  return rows.map((row) => ({
    id: row.id,
    roleId: row.role.id,
    roleName: row.role.name,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    subjectName: row.subjectType === 'API_CLIENT' ? (clients.get(row.subjectId) ?? null) : null,
    branchId: row.branch?.id ?? null,
    businessUnitId: row.businessUnit?.id ?? null,
  }));
}

export const describeScope = (scope: GrantScope) =>
  'branchId' in scope ? `branch ${scope.branchId}` : `business unit ${scope.businessUnitId}`;

/** The permission that manages grants on a scope: ROLE_MANAGE on a branch, BUSINESS_UNIT_ROLE_MANAGE on a unit. */
export const managePermissionOn = (scope: GrantScope) =>
  'branchId' in scope ? 'ROLE_MANAGE' : 'BUSINESS_UNIT_ROLE_MANAGE';

/** The permission that reads grants on a scope: ROLE_READ on a branch, BUSINESS_UNIT_ROLE_READ on a unit. */
export const readPermissionOn = (scope: GrantScope) =>
  'branchId' in scope ? 'ROLE_READ' : 'BUSINESS_UNIT_ROLE_READ';

/** A role of the tenant (AR404 otherwise), optionally locked for the rest of the transaction. */
export async function loadRole(em: EntityManager, roleId: number, lockMode?: LockMode): Promise<Role> {
  const role = await em.findOne(Role, roleId, lockMode === undefined ? {} : { lockMode });
  if (!role) throw new DomainError('AR404', `role ${roleId} not found`);
  return role;
}

/**
 * Whether the caller holds the permission where it takes effect on some scope of the tenant: an
 * operational one on some branch, a finance one on some business unit (a grant where it is inert does
 * not count). In-memory checks once the caller's grants and the branch directory are loaded.
 */
async function heldSomewhere(
  ctx: Pick<RouteContext, 'authorize' | 'em' | 'tenant' | 'services'>,
  permission: string,
): Promise<boolean> {
  const { branches, businessUnitIds } = await branchDirectory(ctx.em, ctx.tenant);
  if (ctx.services.permissions.finance.includes(permission)) {
    for (const businessUnitId of businessUnitIds)
      if (await permits(ctx, permission, { businessUnitId })) return true;
    return false;
  }
  for (const branchId of branches.keys()) if (await permits(ctx, permission, { branchId })) return true;
  return false;
}

/** Throws AUTH002 unless the caller holds one of `permissions` on some scope of the tenant. */
export async function assertHeldSomewhere(
  ctx: Pick<RouteContext, 'authorize' | 'em' | 'tenant' | 'services'>,
  permissions: readonly string[],
): Promise<void> {
  for (const permission of permissions) if (await heldSomewhere(ctx, permission)) return;
  throw new DomainError(
    'AUTH002',
    `missing permission ${permissions.join(' or ')} on every scope of the tenant`,
  );
}

/** Reading roles needs ROLE_READ or BUSINESS_UNIT_ROLE_READ somewhere (definitions are tenant-wide). */
export const assertReadsRoles = (ctx: Pick<RouteContext, 'authorize' | 'em' | 'tenant' | 'services'>) =>
  assertHeldSomewhere(ctx, ['ROLE_READ', 'BUSINESS_UNIT_ROLE_READ']);

/** Creating or deleting an unassigned role needs ROLE_MANAGE or BUSINESS_UNIT_ROLE_MANAGE somewhere. */
export const assertManagesRoles = (ctx: Pick<RouteContext, 'authorize' | 'em' | 'tenant' | 'services'>) =>
  assertHeldSomewhere(ctx, ['ROLE_MANAGE', 'BUSINESS_UNIT_ROLE_MANAGE']);

/** The permissions among `permissions` that take effect on the scope and the caller does not hold there. */
export async function unheldOn(
  ctx: Pick<RouteContext, 'authorize'>,
  catalogue: PermissionCatalogue,
  permissions: readonly string[],
  scope: GrantScope,
): Promise<string[]> {
  const unheld: string[] = [];
  for (const permission of effectivePermissions(catalogue, permissions, scope))
    if (!(await permits(ctx, permission, scope))) unheld.push(permission);
  return unheld;
}

/** The root permissions a role holds (only the platform operator makes such a role). */
export const rootPermissionsOf = (catalogue: PermissionCatalogue, role: Role) =>
  role.permissions.filter((name) => catalogue.root.includes(name));

/**
 * What granting or revoking `role` on `scope` needs, the same both ways: the manage permission on the scope
 * (AUTH002; B404 / B405 for an unknown scope), no root permission in the role (AUTHZ018.1), every
 * permission the role gives on that scope held by the caller there (AUTHZ018.2), and, for a role that
 * configured vehicle operations are limited to, one of each operation's roles held there (AUTHZ018.3).
 */
export async function assertMayGrant(
  ctx: Pick<RouteContext, 'authorize' | 'holds' | 'tenant' | 'services'>,
  em: EntityManager,
  role: Role,
  scope: GrantScope,
): Promise<void> {
  await ctx.authorize(managePermissionOn(scope), scope);
  const catalogue = ctx.services.permissions;
  const root = rootPermissionsOf(catalogue, role);
  if (root.length)
    throw new DomainError(
      'AUTHZ018.1',
      `role ${role.id} holds root permissions (${root.join(', ')}): only the platform operator grants it`,
    );
  const unheld = await unheldOn(ctx, catalogue, role.permissions, scope);
  if (unheld.length)
    throw new DomainError(
      'AUTHZ018.2',
      `you do not hold ${unheld.join(', ')} on ${describeScope(scope)}: you may only grant or revoke what you hold there`,
    );
  for (const operation of await operationsLimitedTo(em, ctx.tenant, role.name)) {
    let holdsOne = false;
    for (const roleName of operation.roleNames)
      if (await ctx.holds({ roleName, ...scope })) {
        holdsOne = true;
        break;
      }
    if (!holdsOne)
      throw new DomainError(
        'AUTHZ018.3',
        `vehicle operation ${operation.id} (${operation.name}) is limited to ${operation.roleNames.join(', ')}: you hold none of them on ${describeScope(scope)}`,
      );
  }
}
