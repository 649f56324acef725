// Permission rules (pure). Each domain declares its permissions (composition/domains); roles bundle them;
// assignments grant a role on a branch (operational scope, covers the branch's descendants) or on a
// business unit (finance scope).

/** Permissions a domain declares: operational ones are checked on branches, finance ones on business units. */
export interface DomainPermissions {
  operational?: readonly string[];
  finance?: readonly string[];
}

/** Every permission of the platform, by kind. */
export interface PermissionCatalogue {
  operational: readonly string[];
  finance: readonly string[];
  all: readonly string[];
}

/** Joins the domains' permission lists; a name declared twice is a programming error. */
export function buildPermissionCatalogue(lists: readonly DomainPermissions[]): PermissionCatalogue {
  const operational = lists.flatMap((list) => list.operational ?? []);
  const finance = lists.flatMap((list) => list.finance ?? []);
  const all = [...operational, ...finance];
  const twice = all.filter((name, index) => all.indexOf(name) !== index);
  if (twice.length) throw new Error(`permissions declared twice: ${[...new Set(twice)].join(', ')}`);
  return { operational, finance, all };
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
