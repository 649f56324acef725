import type { Dictionary } from '@mikro-orm/core';
import { Filter, ManyToOne } from '@mikro-orm/decorators/es';
import { Tenant } from './Tenant.js';

/** Name of the always-on filter that confines every query to the request's tenant. */
export const TENANT_FILTER = 'tenant';

/**
 * Base of every tenant-owned entity: the tenant relation plus the default filter, so a
 * forgotten `where tenant = ?` can never leak rows across tenants.
 */
@Filter({
  name: TENANT_FILTER,
  default: true,
  cond: (args: Dictionary) => ({ tenant: args.tenantId as string }),
})
export abstract class TenantScoped {
  @ManyToOne({ entity: () => Tenant, fieldName: 'tenant_id', ref: false })
  tenant!: Tenant;
}
