// Seeds a tenant from the domains' seed steps (db/seed/board.ts), in one transaction: the demo tenant of
// `npm start`, and the tenants the tests and benchmarks make.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Tenant } from './entities/Tenant.js';
import type { PermissionCatalogue } from '../domain/permissions.js';
import type { ObjectStore } from '../platform/object-store.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './seed/board.js';

export const DEMO_TENANT = 'demo';

/** What a seeded tenant holds, for the tests and the start banner. */
export interface SeededTenant {
  tenant: string;
  businessUnitId: number;
  cityBranchId: number;
  branchId: number;
  /** A sibling branch the operator client holds no role on (for denial paths). */
  otherBranchId: number;
  customerIds: number[];
  /** The demo booking stations (branches under the city): three cars at the first, one at the second. */
  bookingStationIds: [number, number];
}

/** The domains' seed steps and the permission catalogue the seeded roles grant from. */
export interface TenantSeeding {
  steps: readonly DomainSeed[];
  permissions: PermissionCatalogue;
  /** Where seeded files go (the demo photo); none seeded without it. */
  objectStore?: ObjectStore;
}

/** Seeds the demo tenant once (skips when it exists). */
export async function seedDemoTenant(
  rootEm: EntityManager,
  seeding: TenantSeeding,
): Promise<{ created: boolean }> {
  const em = rootEm.fork();
  if (await em.findOne(Tenant, { id: DEMO_TENANT }, { filters: false })) return { created: false };
  await seedTenant(em, DEMO_TENANT, 'Demo Mobility', seeding);
  return { created: true };
}

/**
 * Seeds one tenant in one transaction: every domain's rows in the order of the domain list, one flush,
 * then the steps that read back what was written. The demo tenant: a business unit, a city branch with a
 * district holding 24 vehicles of two categories at real Berlin street corners, a sibling branch,
 * customers, roles, an operator API client (back) and an app client (front), settings, geography,
 * pricing, booking stations and damages.
 */
export async function seedTenant(
  rootEm: EntityManager,
  tenantId: string,
  name: string,
  seeding: TenantSeeding,
): Promise<SeededTenant> {
  return rootEm.fork().transactional(async (tx) => {
    const board: SeedBoard = {
      tenantId,
      tenantName: name,
      permissions: seeding.permissions,
      objectStore: seeding.objectStore,
    };
    for (const step of seeding.steps) await step.rows?.(tx, board);
    await tx.flush();
    for (const step of seeding.steps) await step.afterFlush?.(tx, board);
    const [mainStation, secondStation] = fromBoard(board, 'bookingStations');
    return {
      tenant: tenantId,
      businessUnitId: fromBoard(board, 'businessUnit').id,
      cityBranchId: fromBoard(board, 'city').id,
      branchId: fromBoard(board, 'district').id,
      otherBranchId: fromBoard(board, 'sibling').id,
      customerIds: fromBoard(board, 'customers').map((customer) => customer.id),
      bookingStationIds: [mainStation.id, secondStation.id],
    };
  });
}
