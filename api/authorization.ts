import type { EntityManager } from '@mikro-orm/postgresql';
import { branchAncestry, branchDirectory } from '../db/branches.js';
import { readCacheOf } from '../db/read-cache.js';
import { Branch } from '../db/entities/Branch.js';
import { DomainError } from '../domain/errors.js';
import {
  grantsAllow,
  grantsAllowAnywhere,
  type Grant,
  type PermissionCatalogue,
} from '../domain/permissions.js';
import type { Principal } from './context.js';
import type { AccessScope, RouteContext } from './kernel/route.js';

type NamedGrant = Grant & { roleName: string };

/** What the database says about a subject: whether its API client is active, and its grants. */
interface SubjectGrants {
  clientActive: boolean;
  grants: NamedGrant[];
}

async function loadSubjectGrants(em: EntityManager, principal: Principal): Promise<SubjectGrants> {
  const tenant = principal.tenant;
  const [clientRows, grantRows] = await Promise.all([
    principal.subjectType === 'API_CLIENT'
      ? em.execute<{ active: boolean }[]>(
          'select active from api_client where tenant_id = ? and client_id = ? limit 1',
          [tenant, principal.subjectId],
        )
      : Promise.resolve([{ active: true }]),
    em.execute<
      { name: string; permissions: string[]; branch_id: number | null; business_unit_id: number | null }[]
    >(
      `select r.name, r.permissions, a.branch_id, a.business_unit_id
         from role_assignment a join role r on r.id = a.role_id and r.tenant_id = ?
        where a.tenant_id = ? and a.subject_type = ? and a.subject_id = ?`,
      [tenant, tenant, principal.subjectType, principal.subjectId],
    ),
  ]);
  return {
    clientActive: clientRows[0]?.active === true,
    grants: grantRows.map((row) => ({
      roleName: row.name,
      permissions: row.permissions,
      branchId: row.branch_id === null ? undefined : Number(row.branch_id),
      businessUnitId: row.business_unit_id === null ? undefined : Number(row.business_unit_id),
    })),
  };
}

/**
 * Answers "may this caller do X here" for one request. Grants are read from the database (not baked into
 * tokens) through the read cache (db/read-cache.ts): revoking a role, an assignment or a client through
 * the API takes effect at once; a change this process does not see within READ_CACHE_TTL_MS (2 s).
 * Operational permissions are checked on a branch (grants on its ancestors count); finance permissions
 * on a business unit (the one behind the branch when a branch is given).
 */
export class RequestAuthorizer {
  private grants?: Promise<NamedGrant[]>;

  constructor(
    private readonly em: EntityManager,
    private readonly principal: Principal,
    private readonly permissions: PermissionCatalogue,
  ) {}

  private loadGrants(): Promise<NamedGrant[]> {
    this.grants ??= (async () => {
      // Customers act for themselves only (`{ customer }` routes); they hold no operator grants.
      if (this.principal.subjectType === 'CUSTOMER') return [];
      const { principal, em } = this;
      const subject = await readCacheOf(em).get(
        em,
        `grants:${principal.tenant}:${principal.subjectType}:${principal.subjectId}`,
        () => loadSubjectGrants(em, principal),
      );
      if (!subject.clientActive) throw new DomainError('AUTH005', 'the API client of this token is disabled');
      return subject.grants;
    })();
    return this.grants;
  }

  private async ancestryOf(branchId: number): Promise<number[]> {
    const ancestry = await branchAncestry(this.em, this.principal.tenant, branchId);
    if (ancestry.length === 0) throw new DomainError('B404', `branch ${branchId} not found`);
    return ancestry;
  }

  private async businessUnitOfBranch(branchId: number): Promise<number> {
    const { branches } = await branchDirectory(this.em, this.principal.tenant, { branchId });
    const branch = branches.get(branchId);
    if (!branch) throw new DomainError('B404', `branch ${branchId} not found`);
    return branch.businessUnitId;
  }

  private async assertBusinessUnitExists(businessUnitId: number): Promise<void> {
    const { businessUnitIds } = await branchDirectory(this.em, this.principal.tenant, { businessUnitId });
    if (!businessUnitIds.has(businessUnitId))
      throw new DomainError('B405', `business unit ${businessUnitId} not found`);
  }

  /** Throws AUTH002 unless the caller holds the permission on the scope; unknown scopes are B404 / B405. */
  async authorize(permission: string, scope: AccessScope): Promise<void> {
    if (!this.permissions.all.includes(permission))
      throw new Error(`permission ${permission} is not declared by any domain`);
    const finance = this.permissions.finance.includes(permission);
    let target: { branchAncestry?: number[]; businessUnitId?: number };
    if ('branchId' in scope) {
      target = finance
        ? { businessUnitId: await this.businessUnitOfBranch(scope.branchId) }
        : { branchAncestry: await this.ancestryOf(scope.branchId) };
    } else {
      if (!finance) throw new Error(`${permission} is an operational permission: check it on a branch`);
      await this.assertBusinessUnitExists(scope.businessUnitId);
      target = { businessUnitId: scope.businessUnitId };
    }
    if (!grantsAllow(await this.loadGrants(), permission, target)) {
      const where =
        'branchId' in scope ? `branch ${scope.branchId}` : `business unit ${scope.businessUnitId}`;
      throw new DomainError('AUTH002', `missing permission ${permission} on ${where}`);
    }
  }

  /** Whether the caller holds a permission or role, on a branch, a business unit, or anywhere. */
  async holds(query: {
    permission?: string;
    roleName?: string;
    branchId?: number;
    businessUnitId?: number;
  }): Promise<boolean> {
    const grants = await this.loadGrants();
    let scoped = grants;
    if (query.branchId !== undefined) {
      const ancestry = await this.ancestryOf(query.branchId);
      const businessUnitId = await this.businessUnitOfBranch(query.branchId);
      scoped = scoped.filter(
        (grant) =>
          (grant.branchId !== undefined && ancestry.includes(grant.branchId)) ||
          (grant.businessUnitId !== undefined && grant.businessUnitId === businessUnitId),
      );
    }
    if (query.businessUnitId !== undefined)
      scoped = scoped.filter((grant) => grant.businessUnitId === query.businessUnitId);
    if (query.roleName !== undefined) scoped = scoped.filter((grant) => grant.roleName === query.roleName);
    return query.permission === undefined ? scoped.length > 0 : grantsAllowAnywhere(scoped, query.permission);
  }
}

/**
 * Authorizes a tenant-wide operation (no branch of its own): the permission is needed on every top-level
 * branch, i.e. over the whole tenant (AUTH002 otherwise).
 */
export async function authorizeTenantWide(
  ctx: Pick<RouteContext, 'em' | 'authorize'>,
  permission: string,
): Promise<void> {
  const roots = await ctx.em.find(Branch, { parent: null }, { fields: ['id'] });
  for (const root of roots) await ctx.authorize(permission, { branchId: root.id });
}

/**
 * Authorizes a read of tenant-wide records (customers) from a branch or from anywhere: with a branch the
 * permission is needed there (B404 for an unknown branch); without one, on some branch of the tenant.
 */
export async function authorizeOnBranchOrAnywhere(
  ctx: Pick<RouteContext, 'authorize' | 'holds'>,
  permission: string,
  branchId: number | undefined,
): Promise<void> {
  if (branchId !== undefined) return ctx.authorize(permission, { branchId });
  if (!(await ctx.holds({ permission })))
    throw new DomainError('AUTH002', `missing permission ${permission}: held on no branch of the tenant`);
}

/**
 * Whether the caller holds the permission on the scope, exactly as `authorize` decides (unknown scopes
 * still throw B404 / B405): role management asks it for every permission a grant would hand out.
 */
export async function permits(
  ctx: Pick<RouteContext, 'authorize'>,
  permission: string,
  scope: AccessScope,
): Promise<boolean> {
  try {
    await ctx.authorize(permission, scope);
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'AUTH002') return false;
    throw error;
  }
}
