import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from './entities/Branch.js';
import { Setting } from './entities/Setting.js';
import { branchAncestry } from './branches.js';
import { TENANT_DEFAULT_BRANCH, type SettingCandidate, type SettingProblem } from '../domain/settings.js';
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

// ---------------------------------------------------------------------------------------------------
// Management writes (api/routes/back/settings-management.ts): the checks against stored rows and the
// lock that makes them hold until the writing transaction commits.

/**
 * Serializes writes of these keys in the tenant until the transaction ends (advisory locks, taken in key
 * order so two writers of several keys never wait on each other in a circle): the overlap check below
 * then sees every row another writer committed.
 */
export async function lockSettingKeys(
  tx: EntityManager,
  tenant: string,
  keys: Iterable<string>,
): Promise<void> {
  for (const key of [...new Set(keys)].sort())
    await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`setting:${tenant}:${key}`]);
}

/** Of these branch ids (0 excluded), those the tenant has no branch for. */
export async function missingBranchIds(em: EntityManager, branchIds: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(branchIds.filter((id) => id !== TENANT_DEFAULT_BRANCH))];
  if (wanted.length === 0) return [];
  const found = new Set(
    (await em.find(Branch, { id: { $in: wanted } }, { fields: ['id'] })).map((b) => b.id),
  );
  return wanted.filter((id) => !found.has(id));
}

/**
 * What a candidate's branches conflict with in the database: branches the tenant lacks (B404) and
 * branches another row of the same key already names (ST104; rows in `excludeIds` are being replaced).
 */
export async function storedSettingProblems(
  em: EntityManager,
  candidate: Pick<SettingCandidate, 'key' | 'branchIds'>,
  excludeIds: ReadonlySet<number>,
): Promise<SettingProblem[]> {
  const problems: SettingProblem[] = [];
  for (const id of await missingBranchIds(em, candidate.branchIds))
    problems.push({
      errorCode: 'B404',
      path: `/branchIds/${candidate.branchIds.indexOf(id)}`,
      message: `branch ${id} not found`,
    });
  const others = (await em.find(Setting, { key: candidate.key }, { orderBy: { id: 'asc' } })).filter(
    (row) => !excludeIds.has(row.id),
  );
  for (const id of new Set(candidate.branchIds)) {
    const holder = others.find((row) => row.branchIds.includes(id));
    if (holder)
      problems.push({
        errorCode: 'ST104',
        path: `/branchIds/${candidate.branchIds.indexOf(id)}`,
        message: `setting ${holder.id} already holds ${candidate.key} for branch ${id}`,
      });
  }
  return problems;
}
