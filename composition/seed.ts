// Demo and test tenants, seeded by every domain's seed step in the order of the domain list.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  seedDemoTenant as seedDemoTenantWith,
  seedTenant as seedTenantWith,
  type SeededTenant,
  type TenantSeeding,
} from '../db/seed.js';
import { domains, permissionCatalogue } from './registry.js';

/** Every domain's seed step and the permission catalogue. */
const seeding = (): TenantSeeding => ({
  steps: domains.flatMap((domain) => (domain.seed ? [domain.seed] : [])),
  permissions: permissionCatalogue(),
});

/** Seeds one tenant (tests and benchmarks make their own). */
export const seedTenant = (em: EntityManager, tenant: string, name: string): Promise<SeededTenant> =>
  seedTenantWith(em, tenant, name, seeding());

/** Seeds the demo tenant once (skips when it exists). */
export const seedDemoTenant = (em: EntityManager): Promise<{ created: boolean }> =>
  seedDemoTenantWith(em, seeding());
