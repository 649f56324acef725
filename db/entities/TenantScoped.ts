import type { Dictionary, EntityManager, Opt } from '@mikro-orm/core';
import { Filter, ManyToOne } from '@mikro-orm/decorators/es';
import { Tenant } from './Tenant.js';

/** Name of the always-on filter that confines every query to the request's tenant. */
export const TENANT_FILTER = 'tenant';

/**
 * The id of the tenant an EntityManager is confined to (see `tenantEm`), for statements written without
 * the ORM; an EntityManager confined to none is a programming error.
 */
export function tenantIdOf(em: EntityManager): string {
  const tenantId = em.getFilterParams<{ tenantId?: string }>(TENANT_FILTER)?.tenantId;
  if (!tenantId)
    throw new Error('tenant data is read and written only through a tenant EntityManager (tenantEm)');
  return tenantId;
}

/** The tenant an EntityManager is confined to; new rows of that EntityManager get it. */
function tenantOf(em: EntityManager): Tenant {
  return em.getReference(Tenant, tenantIdOf(em));
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
