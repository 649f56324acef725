// Permission catalogue and scope rules (pure). Roles bundle permissions; assignments grant a role
// on a branch (operational scope, covers the branch's descendants) or on a business unit (finance scope).

export const operationalPermissions = [
  'RENTAL_READ',
  'RENTAL_CREATE',
  'RENTAL_OPERATE',
  'RENTAL_CANCEL',
  'VEHICLE_READ',
  'VEHICLE_COMMAND',
  'CUSTOMER_READ',
  'EVENT_READ',
  'POSITION_LOG_READ',
  'SETTINGS_READ',
  'ROLE_READ',
] as const;

export const financePermissions = ['INVOICE_READ', 'PAYMENT_READ', 'BALANCE_READ', 'REFUND_CREATE'] as const;

export type OperationalPermission = (typeof operationalPermissions)[number];
export type FinancePermission = (typeof financePermissions)[number];
export type Permission = OperationalPermission | FinancePermission;

export const allPermissions: readonly Permission[] = [...operationalPermissions, ...financePermissions];

export function isFinancePermission(permission: string): permission is FinancePermission {
  return (financePermissions as readonly string[]).includes(permission);
}

/** One grant as the authorizer sees it: a role's permissions on a branch or a business unit. */
export interface Grant {
  permissions: readonly string[];
  branchId?: number;
  businessUnitId?: number;
}

/**
 * Whether the grants allow `permission` on a branch. `branchAncestry` lists the branch itself first,
 * then its ancestors, so a grant on a parent covers the children. Finance permissions are checked
 * against the business unit behind the branch instead.
 */
export function grantsAllow(
  grants: readonly Grant[],
  permission: Permission,
  target: { branchAncestry?: readonly number[]; businessUnitId?: number },
): boolean {
  return grants.some((grant) => {
    if (!grant.permissions.includes(permission)) return false;
    if (isFinancePermission(permission)) {
      return grant.businessUnitId !== undefined && grant.businessUnitId === target.businessUnitId;
    }
    return grant.branchId !== undefined && (target.branchAncestry ?? []).includes(grant.branchId);
  });
}

/** Whether the grants allow `permission` anywhere (used by `GET /roles/assignments/exists` without a scope). */
export function grantsAllowAnywhere(grants: readonly Grant[], permission: string): boolean {
  return grants.some((grant) => grant.permissions.includes(permission));
}
