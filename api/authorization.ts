import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiClient, Branch, BusinessUnit, RoleAssignment } from '../db/entities/index.js';
import { branchAncestry } from '../db/branches.js';
import { DomainError } from '../domain/errors.js';
import {
  grantsAllow,
  grantsAllowAnywhere,
  type Grant,
  type PermissionCatalogue,
} from '../domain/permissions.js';
import type { Principal } from './context.js';
import type { AccessScope } from './kernel/route.js';

/**
 * Answers "may this caller do X here" for one request. Grants are read from the database on each
 * request (not baked into tokens), so revoking a role or disabling a client takes effect at once.
 * Operational permissions are checked on a branch (grants on its ancestors count); finance permissions
 * on a business unit (the one behind the branch when a branch is given).
 */
export class RequestAuthorizer {
  private grants?: Promise<Array<Grant & { roleName: string }>>;

  constructor(
    private readonly em: EntityManager,
    private readonly principal: Principal,
    private readonly permissions: PermissionCatalogue,
  ) {}

  private loadGrants(): Promise<Array<Grant & { roleName: string }>> {
    this.grants ??= (async () => {
      // Customers act for themselves only (`{ customer }` routes); they hold no operator grants.
      if (this.principal.subjectType === 'CUSTOMER') return [];
      if (this.principal.subjectType === 'API_CLIENT') {
        const client = await this.em.findOne(ApiClient, { clientId: this.principal.subjectId });
        if (!client?.active) throw new DomainError('AUTH005', 'the API client of this token is disabled');
      }
      const assignments = await this.em.find(
        RoleAssignment,
        {
          subjectType: this.principal.subjectType as 'API_CLIENT' | 'OPERATOR',
          subjectId: this.principal.subjectId,
        },
        { populate: ['role'] },
      );
      return assignments.map((assignment) => ({
        roleName: assignment.role.name,
        permissions: assignment.role.permissions,
        branchId: assignment.branch?.id,
        businessUnitId: assignment.businessUnit?.id,
      }));
    })();
    return this.grants;
  }

  private async ancestryOf(branchId: number): Promise<number[]> {
    const ancestry = await branchAncestry(this.em, this.principal.tenant, branchId);
    if (ancestry.length === 0) throw new DomainError('B404', `branch ${branchId} not found`);
    return ancestry;
  }

  private async businessUnitOfBranch(branchId: number): Promise<number> {
    const branch = await this.em.findOne(Branch, branchId, { fields: ['businessUnit'] });
    if (!branch) throw new DomainError('B404', `branch ${branchId} not found`);
    return branch.businessUnit.id;
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
      if (!(await this.em.count(BusinessUnit, scope.businessUnitId)))
        throw new DomainError('B405', `business unit ${scope.businessUnitId} not found`);
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
