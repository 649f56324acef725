// Demo and test tenants, seeded by every domain's seed step in the order of the domain list.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  seedDemoTenant as seedDemoTenantWith,
  seedTenant as seedTenantWith,
  type SeededTenant,
  type TenantSeeding,
} from '../db/seed.js';
import { domains, permissionCatalogue } from './registry.js';
import { loadConfig } from '../platform/config.js';
import type { ObjectStore } from '../platform/object-store.js';
import { configuredObjectStore } from './object-store.js';

/**
 * Every domain's seed step, the permission catalogue and the object store seeded files go to (the one
 * given, else the configured one; none without S3_ENDPOINT).
 */
const seeding = (objectStore?: ObjectStore): TenantSeeding => ({
  steps: domains.flatMap((domain) => (domain.seed ? [domain.seed] : [])),
  permissions: permissionCatalogue(),
  objectStore: objectStore ?? (loadConfig().s3Endpoint ? configuredObjectStore() : undefined),
});

/** Seeds one tenant (tests and benchmarks make their own). */
export const seedTenant = (
  em: EntityManager,
  tenant: string,
  name: string,
  options: { objectStore?: ObjectStore } = {},
): Promise<SeededTenant> => seedTenantWith(em, tenant, name, seeding(options.objectStore));

/** Seeds the demo tenant once (skips when it exists). */
export const seedDemoTenant = (
  em: EntityManager,
  options: { objectStore?: ObjectStore } = {},
): Promise<{ created: boolean }> => seedDemoTenantWith(em, seeding(options.objectStore));
