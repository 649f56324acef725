import type { EntityManager } from '@mikro-orm/postgresql';
import { Setting } from './entities/index.js';
import { branchAncestry } from './branches.js';

/**
 * The effective setting for a branch: the branch's own value, else the nearest ancestor's, else the
 * tenant fallback stored on branch 0. Undefined when the key is not configured at all.
 */
export async function effectiveSetting(
  em: EntityManager,
  tenant: string,
  key: string,
  branchId: number | undefined,
): Promise<Setting | undefined> {
  const candidates = await em.find(Setting, { key });
  if (candidates.length === 0) return undefined;
  const chain = branchId === undefined ? [] : await branchAncestry(em, tenant, branchId);
  for (const id of [...chain, 0]) {
    const match = candidates.find((setting) => setting.branchIds.includes(id));
    if (match) return match;
  }
  return undefined;
}
