import type { Dictionary, EntityManager, Opt } from '@mikro-orm/core';
import { Filter, ManyToOne } from '@mikro-orm/decorators/es';
import { Tenant } from './Tenant.js';

/** Name of the always-on filter that confines every query to the request's tenant. */
export const TENANT_FILTER = 'tenant';

/** The tenant an EntityManager is confined to (see `tenantEm`); new rows of that EntityManager get it. */
function tenantOf(em: EntityManager): Tenant {
  const tenantId = em.getFilterParams<{ tenantId?: string }>(TENANT_FILTER)?.tenantId;
  if (!tenantId)
    throw new Error('tenant-owned rows are created only through a tenant EntityManager (tenantEm)');
  return em.getReference(Tenant, tenantId);
}

/**
 * Base of every tenant-owned entity: the tenant relation plus the default filter, so a
 * forgotten `where tenant = ?` can never leak rows across tenants. New rows take the tenant of the
 * EntityManager that flushes them, so no code sets it by hand.
 */
@Filter({
  name: TENANT_FILTER,
  default: true,
  cond: (args: Dictionary) => ({ tenant: args.tenantId as string }),
})
export abstract class TenantScoped {
  @ManyToOne({
    entity: () => Tenant,
    fieldName: 'tenant_id',
    ref: false,
    onCreate: (_entity, em) => tenantOf(em),
  })
  tenant!: Opt<Tenant>;
}
