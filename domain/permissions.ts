// Permission rules (pure). Each domain declares its permissions (composition/domains); roles bundle them;
// assignments grant a role on a branch (operational scope, covers the branch's descendants) or on a
// business unit (finance scope). Root permissions are the platform operator's own: they are known, so a
// tenant naming one is refused rather than told it does not exist, but no tenant may put one in a role or
// grant it (docs/access.md).

/**
 * Permissions a domain declares: operational ones are checked on branches, finance ones on business units;
 * root ones name what only the platform operator does (outside the tenant API) and are never assignable.
 */
export interface DomainPermissions {
  operational?: readonly string[];
  finance?: readonly string[];
  root?: readonly string[];
}

/** The kind of a permission: where it is checked (branch or business unit), or a root permission. */
export type PermissionKind = 'OPERATIONAL' | 'FINANCE' | 'ROOT';

/** Every permission of the platform, by kind; `all` is what tenants may grant (operational and finance). */
export interface PermissionCatalogue {
  operational: readonly string[];
  finance: readonly string[];
  all: readonly string[];
  /** The platform operator's internal permissions: never in a tenant's role, never granted through the API. */
  root: readonly string[];
  /** The domain that declares each permission (root ones included), for listing them grouped. */
  declaredBy: ReadonlyMap<string, string>;
}

/** Joins the domains' permission lists; a name declared twice (in any kind) is a programming error. */
export function buildPermissionCatalogue(
  lists: readonly (DomainPermissions & { domain?: string })[],
): PermissionCatalogue {
  const operational = lists.flatMap((list) => list.operational ?? []);
  const finance = lists.flatMap((list) => list.finance ?? []);
  const root = lists.flatMap((list) => list.root ?? []);
  const all = [...operational, ...finance];
  const every = [...all, ...root];
  const twice = every.filter((name, index) => every.indexOf(name) !== index);
  if (twice.length) throw new Error(`permissions declared twice: ${[...new Set(twice)].join(', ')}`);
  const declaredBy = new Map<string, string>();
  for (const list of lists)
    for (const name of [...(list.operational ?? []), ...(list.finance ?? []), ...(list.root ?? [])])
      declaredBy.set(name, list.domain ?? '');
  return { operational, finance, all, root, declaredBy };
}

/** The kind of a permission, or undefined for a name no domain declares. */
export function permissionKind(catalogue: PermissionCatalogue, name: string): PermissionKind | undefined {
  if (catalogue.operational.includes(name)) return 'OPERATIONAL';
  if (catalogue.finance.includes(name)) return 'FINANCE';
  if (catalogue.root.includes(name)) return 'ROOT';
  return undefined;
}

/** The scope a role assignment grants on: a branch (and its descendants) or a business unit. */
export type GrantScope = { branchId: number } | { businessUnitId: number };

/**
 * The permissions of a role that take effect on an assignment's scope: operational ones on a branch,
 * finance ones on a business unit. The others are inert there (the authorizer checks finance permissions
 * on business units and operational ones on branches), so granting them on that scope gives nothing.
 */
export function effectivePermissions(
  catalogue: PermissionCatalogue,
  permissions: readonly string[],
  scope: GrantScope,
): string[] {
  const kind = 'branchId' in scope ? catalogue.operational : catalogue.finance;
  return [...new Set(permissions.filter((name) => kind.includes(name)))];
}

/**
 * Why a permission list sent by a tenant cannot be stored in a role, as the catalogue code to answer and
 * the names concerned: names no domain declares are a validation error (0022), root permissions are the
 * platform operator's (AUTHZ019.1). Undefined when every name may be used.
 */
export function permissionListRefusal(
  catalogue: PermissionCatalogue,
  names: readonly string[],
): { code: '0022' | 'AUTHZ019.1'; names: string[] } | undefined {
  const unknown = names.filter((name) => permissionKind(catalogue, name) === undefined);
  if (unknown.length) return { code: '0022', names: unknown };
  const root = names.filter((name) => catalogue.root.includes(name));
  if (root.length) return { code: 'AUTHZ019.1', names: root };
  return undefined;
}

/** What a change of a role's permission list adds and removes (each name once, in the order given). */
export function permissionChange(
  before: readonly string[],
  after: readonly string[],
): { added: string[]; removed: string[] } {
  return {
    added: [...new Set(after.filter((name) => !before.includes(name)))],
    removed: [...new Set(before.filter((name) => !after.includes(name)))],
  };
}

/** One grant as the authorizer sees it: a role's permissions on a branch or a business unit. */
export interface Grant {
  permissions: readonly string[];
  branchId?: number;
  businessUnitId?: number;
}

/**
 * Whether the grants allow a permission on a target: a branch (given as the branch first, then its
 * ancestors, so a grant on a parent covers the children) or a business unit. The authorizer passes the
 * branch for operational permissions and the business unit for finance ones.
 */
export function grantsAllow(
  grants: readonly Grant[],
  permission: string,
  target: { branchAncestry?: readonly number[]; businessUnitId?: number },
): boolean {
  return grants.some(
    (grant) =>
      grant.permissions.includes(permission) &&
      ((grant.branchId !== undefined && (target.branchAncestry ?? []).includes(grant.branchId)) ||
        (grant.businessUnitId !== undefined && grant.businessUnitId === target.businessUnitId)),
  );
}

/** Whether the grants allow `permission` anywhere (used by `GET /roles/assignments/exists` without a scope). */
export function grantsAllowAnywhere(grants: readonly Grant[], permission: string): boolean {
  return grants.some((grant) => grant.permissions.includes(permission));
}
