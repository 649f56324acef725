import type { EntityManager } from '@mikro-orm/postgresql';
import { Setting } from './entities/Setting.js';
import { branchAncestry } from './branches.js';
import { deepFreeze, readCacheOf } from './read-cache.js';

/** What a setting row says; rows of a key come from the read cache, frozen (settings writes empty it). */
export type SettingRow = Readonly<Pick<Setting, 'id' | 'key' | 'branchIds' | 'value'>>;

/** Every row of one setting key, from the read cache: rental steps read several keys each. */
async function settingRows(em: EntityManager, tenant: string, key: string): Promise<readonly SettingRow[]> {
  return readCacheOf(em).get(em, `settings:${tenant}:${key}`, async () =>
    (await em.find(Setting, { key })).map((row) =>
      deepFreeze({
        id: row.id,
        key: row.key,
        branchIds: structuredClone(row.branchIds),
        value: structuredClone(row.value),
      }),
    ),
  );
}

/**
 * Among the rows of one key, the one that applies to a branch: the branch's own value, else the nearest
 * ancestor's, else the tenant fallback stored on branch 0. Branch 0 itself asks for the fallback only.
 */
export async function settingForBranch<Row extends Pick<Setting, 'branchIds'>>(
  em: EntityManager,
  tenant: string,
  candidates: readonly Row[],
  branchId: number | undefined,
): Promise<Row | undefined> {
  if (candidates.length === 0) return undefined;
  const chain = branchId === undefined || branchId === 0 ? [] : await branchAncestry(em, tenant, branchId);
  for (const id of [...chain, 0]) {
    const match = candidates.find((setting) => setting.branchIds.includes(id));
    if (match) return match;
  }
  return undefined;
}

/**
 * Loads these keys into the read cache outside any transaction: a transaction is served what the cache
 * holds but never fills it, so a key first read inside one would be read from the database every time.
 */
export async function warmSettings(
  em: EntityManager,
  tenant: string,
  keys: readonly string[],
): Promise<void> {
  for (const key of keys) await settingRows(em, tenant, key);
}

/** The effective value of a setting key for a branch; undefined when the key is not configured at all. */
export async function effectiveSetting(
  em: EntityManager,
  tenant: string,
  key: string,
  branchId: number | undefined,
): Promise<SettingRow | undefined> {
  return settingForBranch(em, tenant, await settingRows(em, tenant, key), branchId);
}

/**
 * Like {@link effectiveSetting}, with the branch found by `branchOf` only when the key has rows to choose
 * among: a hot path whose key is usually not configured then reads nothing but the read cache.
 */
export async function effectiveSettingOf(
  em: EntityManager,
  tenant: string,
  key: string,
  branchOf: () => Promise<number | undefined>,
): Promise<SettingRow | undefined> {
  const rows = await settingRows(em, tenant, key);
  if (rows.length === 0) return undefined;
  return settingForBranch(em, tenant, rows, await branchOf());
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
