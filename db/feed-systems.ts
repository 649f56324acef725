// Queries of the feeds domain shared by every public feed (GBFS, MDS): a tenant's published systems and
// the branches a system covers (its root branch and every descendant).
import { FeedSystem } from './entities/FeedSystem.js';
import { branchWithDescendants } from './branches.js';
import type { EntityManager } from './orm.js';

/** The published system `systemId` of the EntityManager's tenant, or undefined (unknown or unpublished). */
export async function publishedFeedSystem(
  em: EntityManager,
  systemId: string,
): Promise<FeedSystem | undefined> {
  return (await em.findOne(FeedSystem, { systemId, published: true })) ?? undefined;
}

/** Every published system of the EntityManager's tenant, by system id. */
export function publishedFeedSystems(em: EntityManager): Promise<FeedSystem[]> {
  return em.find(FeedSystem, { published: true }, { orderBy: { systemId: 'asc' } });
}

/** The ids of the branches a system covers: its root branch and all its descendants. */
export function feedSystemBranchIds(
  em: EntityManager,
  tenant: string,
  system: FeedSystem,
): Promise<number[]> {
  return branchWithDescendants(em, tenant, system.rootBranch.id);
}
