import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { tenantEm } from '../../../db/orm.js';
import type { Permission } from '../../../domain/permissions.js';
import { DomainError } from '../../../domain/errors.js';
import { RequestAuthorizer } from '../../authorization.js';
import { pathTenant, principalOf } from '../../context.js';

/** `GET /roles/assignments/exists`: lets a dashboard pre-check what the caller may do (the action stays authoritative). */
export function rolesRouter(orm: MikroORM): Router {
  const router = Router({ mergeParams: true });
  router.get('/roles/assignments/exists', async (req, res) => {
    const authorizer = new RequestAuthorizer(tenantEm(orm, pathTenant(req)), principalOf(req));
    const query = req.query as {
      permission?: Permission;
      roleName?: string;
      branchId?: string;
      businessUnitId?: string;
    };
    if (query.permission === undefined && query.roleName === undefined) {
      throw new DomainError('0022', 'give permission or roleName');
    }
    const exists = await authorizer.holds({
      permission: query.permission,
      roleName: query.roleName,
      branchId: query.branchId === undefined ? undefined : Number(query.branchId),
      businessUnitId: query.businessUnitId === undefined ? undefined : Number(query.businessUnitId),
    });
    res.json({ exists });
  });
  return router;
}
