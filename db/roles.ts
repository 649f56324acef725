// Queries of the access domain's role management: where a role is assigned, which configured vehicle
// operations are limited to a role, and the names of API clients shown beside their assignments.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { GrantScope } from '../domain/permissions.js';

/**
 * Every distinct scope a role is assigned on (a branch or a business unit): changing the role changes the
 * grants on each of them. Read through `em`, so inside a transaction that locked the role it is exact.
 */
export async function roleAssignmentScopes(
  em: EntityManager,
  tenant: string,
  roleId: number,
): Promise<GrantScope[]> {
  const rows = await em.execute<{ branch_id: number | null; business_unit_id: number | null }[]>(
    `select distinct branch_id, business_unit_id from role_assignment
      where tenant_id = ? and role_id = ? order by branch_id nulls last, business_unit_id`,
    [tenant, roleId],
  );
  return rows.map((row) =>
    row.branch_id !== null
      ? { branchId: Number(row.branch_id) }
      : { businessUnitId: Number(row.business_unit_id) },
  );
}

/** A configured vehicle operation limited to certain roles (by name). */
export interface RoleLimitedOperation {
  id: number;
  name: string;
  roleNames: string[];
}

/**
 * The configured vehicle operations (`vehicle_action`) whose role list names `roleName`: holding that role
 * lets a subject run them, so the name is a privilege of its own.
 */
export async function operationsLimitedTo(
  em: EntityManager,
  tenant: string,
  roleName: string,
): Promise<RoleLimitedOperation[]> {
  const rows = await em.execute<{ id: number; name: string; role_names: string[] }[]>(
    `select id, name, role_names from vehicle_action
      where tenant_id = ? and role_names @> ?::jsonb order by id`,
    [tenant, JSON.stringify([roleName])],
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name, roleNames: row.role_names }));
}

/** The names of the tenant's API clients among `clientIds` (operators have no directory here). */
export async function apiClientNames(
  em: EntityManager,
  tenant: string,
  clientIds: readonly string[],
): Promise<Map<string, string>> {
  if (clientIds.length === 0) return new Map();
  const rows = await em.execute<{ client_id: string; name: string }[]>(
    `select client_id, name from api_client where tenant_id = ? and client_id in (?)`,
    [tenant, [...new Set(clientIds)]],
  );
  return new Map(rows.map((row) => [row.client_id, row.name]));
}
