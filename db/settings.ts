import type { EntityManager } from '@mikro-orm/postgresql';
import { Setting } from './entities/index.js';
import { branchAncestry } from './branches.js';

/**
 * Among the rows of one key, the one that applies to a branch: the branch's own value, else the nearest
 * ancestor's, else the tenant fallback stored on branch 0. Branch 0 itself asks for the fallback only.
 */
export async function settingForBranch(
  em: EntityManager,
  tenant: string,
  candidates: readonly Setting[],
  branchId: number | undefined,
): Promise<Setting | undefined> {
  if (candidates.length === 0) return undefined;
  const chain = branchId === undefined || branchId === 0 ? [] : await branchAncestry(em, tenant, branchId);
  for (const id of [...chain, 0]) {
    const match = candidates.find((setting) => setting.branchIds.includes(id));
    if (match) return match;
  }
  return undefined;
}

/** The effective value of a setting key for a branch; undefined when the key is not configured at all. */
export async function effectiveSetting(
  em: EntityManager,
  tenant: string,
  key: string,
  branchId: number | undefined,
): Promise<Setting | undefined> {
  return settingForBranch(em, tenant, await em.find(Setting, { key }), branchId);
}

/** A setting's value for a branch laid over its defaults (keys the row leaves out keep their default). */
export async function settingOrDefaults<T extends object>(
  em: EntityManager,
  tenant: string,
  key: string,
  branchId: number | undefined,
  defaults: T,
): Promise<T> {
  const row = await effectiveSetting(em, tenant, key, branchId);
  return { ...defaults, ...(row?.value as Partial<T> | undefined) };
}
