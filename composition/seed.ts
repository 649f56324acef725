// Demo and test tenants, seeded with the roles of every domain's permissions.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  seedDemoTenant as seedDemoTenantWith,
  seedTenant as seedTenantWith,
  type SeededTenant,
} from '../db/seed.js';
import { permissionCatalogue } from './registry.js';

export {
  DEMO_TENANT,
  DEMO_BRANCH_CODE,
  demoAppClient,
  demoOperatorClient,
  type SeededTenant,
} from '../db/seed.js';

/** Seeds one tenant (tests and benchmarks make their own). */
export const seedTenant = (em: EntityManager, tenant: string, name: string): Promise<SeededTenant> =>
  seedTenantWith(em, tenant, name, permissionCatalogue());

/** Seeds the demo tenant once (skips when it exists). */
export const seedDemoTenant = (em: EntityManager): Promise<{ created: boolean }> =>
  seedDemoTenantWith(em, permissionCatalogue());
