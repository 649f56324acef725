import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiClient, Branch, RoleAssignment } from '../db/entities/index.js';
import { branchAncestry } from '../db/branches.js';
import { DomainError } from '../domain/errors.js';
import { grantsAllow, grantsAllowAnywhere, type Grant, type Permission } from '../domain/permissions.js';
import type { Principal } from './context.js';

/**
 * Answers "may this caller do X here" for one request. Grants are read from the database on each
 * request (not baked into tokens), so revoking a role or disabling a client takes effect at once.
 */
export class RequestAuthorizer {
  private grants?: Promise<Array<Grant & { roleName: string }>>;

  constructor(
    private readonly em: EntityManager,
    private readonly principal: Principal,
  ) {}

  private loadGrants(): Promise<Array<Grant & { roleName: string }>> {
    this.grants ??= (async () => {
      if (this.principal.subjectType === 'API_CLIENT') {
        const client = await this.em.findOne(ApiClient, { clientId: this.principal.subjectId });
        if (!client?.active) throw new DomainError('AUTH005', 'the API client of this token is disabled');
      }
      const assignments = await this.em.find(
        RoleAssignment,
        { subjectType: this.principal.subjectType, subjectId: this.principal.subjectId },
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

  /** Operational check on a branch (grants on ancestors count). Unknown branch → B404. */
  async requireOnBranch(permission: Permission, branchId: number): Promise<void> {
    const ancestry = await branchAncestry(this.em, this.principal.tenant, branchId);
    if (ancestry.length === 0) throw new DomainError('B404', `branch ${branchId} not found`);
    const grants = await this.loadGrants();
    if (!grantsAllow(grants, permission, { branchAncestry: ancestry })) {
      throw new DomainError('AUTH002', `missing permission ${permission} on branch ${branchId}`);
    }
  }

  /** Whether the caller holds a permission or role, on a branch, a business unit, or anywhere. */
  async holds(query: {
    permission?: Permission;
    roleName?: string;
    branchId?: number;
    businessUnitId?: number;
  }): Promise<boolean> {
    const grants = await this.loadGrants();
    let scoped = grants;
    if (query.branchId !== undefined) {
      const ancestry = await branchAncestry(this.em, this.principal.tenant, query.branchId);
      if (ancestry.length === 0) throw new DomainError('B404', `branch ${query.branchId} not found`);
      const branch = await this.em.findOneOrFail(Branch, query.branchId);
      scoped = scoped.filter(
        (grant) =>
          (grant.branchId !== undefined && ancestry.includes(grant.branchId)) ||
          (grant.businessUnitId !== undefined && grant.businessUnitId === branch.businessUnit.id),
      );
    }
    if (query.businessUnitId !== undefined)
      scoped = scoped.filter((grant) => grant.businessUnitId === query.businessUnitId);
    if (query.roleName !== undefined) scoped = scoped.filter((grant) => grant.roleName === query.roleName);
    return query.permission === undefined ? scoped.length > 0 : grantsAllowAnywhere(scoped, query.permission);
  }
}
