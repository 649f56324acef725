// What the operator's settings routes share: the management representation (a setting with its name,
// value type and public visibility), the write bodies, who may read or manage a setting, and the check of
// a candidate against the registry (domain/settings.ts) and the stored rows (db/settings.ts).
// Access: SETTINGS_READ to read a setting, on one of its branches (branch 0, the tenant-wide fallback
// every branch falls back to, on any branch); SETTINGS_MANAGE to write one, on every branch it names
// before and after the write (branch 0: on every top-level branch, i.e. tenant-wide). See docs/settings.md.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from '../../../db/entities/Branch.js';
import { Setting } from '../../../db/entities/Setting.js';
import { missingBranchIds, storedSettingProblems } from '../../../db/settings.js';
import { DomainError } from '../../../domain/errors.js';
import {
  refusalOf,
  settingAreas,
  settingCandidateProblems,
  settingKeyPattern,
  TENANT_DEFAULT_BRANCH,
  type SettingCandidate,
  type SettingDefaults,
  type SettingProblem,
} from '../../../domain/settings.js';
import { authorizeTenantWide } from '../../authorization.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, Dictionary, Id, Int, Str, StringEnum } from '../../kernel/schemas.js';
import { visibleBranchIds } from './branches.js';

export const tags = ['Settings'];
export const SETTINGS_READ = 'SETTINGS_READ';
export const SETTINGS_MANAGE = 'SETTINGS_MANAGE';

export const SettingArea = StringEnum(settingAreas);

/** A branch id of a setting: 0 is the tenant-wide fallback. */
export const SettingBranchIds = Type.Array(Int(0, 2147483647), {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: 'Branches the value applies to (and their descendants); `[0]` is the tenant-wide fallback.',
});

export const SettingKey = Str(200, {
  minLength: 1,
  pattern: settingKeyPattern,
  description: 'A known key, or a custom key under `app.`, `dashboard.` or `maintenance.action.`.',
});

/** A setting value: a JSON object; its key's schema (docs/settings.md) says what it holds. */
export const SettingValue = Dictionary(Str(200, { minLength: 1 }), Type.Unknown(), {
  maxProperties: 200,
  description:
    "A JSON object matching the key's schema (docs/settings.md); never a secret (ST102). Names, numbers and nesting are bounded (ST100).",
});

const SettingName = Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });
const ValueType = Str(100, { minLength: 1, pattern: '^[A-Z][A-Z0-9_]*$' });

export const SettingManaged = component(
  'SettingManaged',
  Type.Object(
    {
      id: Id(),
      key: Type.String(),
      name: Type.String(),
      area: SettingArea,
      valueType: Type.String(),
      branchIds: Type.Array(Type.Integer()),
      value: Type.Record(Type.String(), Type.Unknown()),
      publicVisible: Type.Boolean({ description: 'Whether the value may be shown to end users.' }),
    },
    { additionalProperties: false },
  ),
);
export type SettingManagedDto = Static<typeof SettingManaged>;

/** The management representation of a row. */
export const toSettingDto = (row: Setting): SettingManagedDto => ({
  id: row.id,
  key: row.key,
  name: row.name,
  area: row.area,
  valueType: row.valueType,
  branchIds: [...row.branchIds],
  value: row.value,
  publicVisible: row.publicVisible,
});

/** Fields an update may send; those left out keep their stored value (the key never changes). */
export const settingUpdateFields = {
  name: Type.Optional(SettingName),
  area: Type.Optional(SettingArea),
  valueType: Type.Optional(ValueType),
  branchIds: Type.Optional(SettingBranchIds),
  value: SettingValue,
  publicVisible: Type.Optional(Type.Boolean()),
};

export const SettingCreate = component(
  'SettingCreate',
  Type.Object(
    {
      key: SettingKey,
      ...settingUpdateFields,
    },
    {
      additionalProperties: false,
      description:
        "Area, value type, name and public visibility default to the key's (docs/settings.md); branchIds to `[0]`.",
    },
  ),
);

export const SettingUpdate = component(
  'SettingUpdate',
  Type.Object(settingUpdateFields, {
    additionalProperties: false,
    description: 'Replaces the value; the other fields, when sent, replace theirs. The key never changes.',
  }),
);

export const SettingIdParams = Type.Object({ settingId: Id() });

// ---------------------------------------------------------------------------------------------------
// Access

/** What the caller may read: the branches it holds SETTINGS_READ on (subtrees), computed once a request. */
export interface SettingReader {
  /** Holds SETTINGS_READ somewhere: branch 0 values are readable. */
  anywhere: boolean;
  /** Holds it on every branch: sees rows of branches that no longer exist too. */
  everywhere: boolean;
  branches: ReadonlySet<number>;
}

export function settingReader(ctx: RouteContext): Promise<SettingReader> {
  return ctx.once('setting-reader', async () => {
    const branches = await visibleBranchIds(ctx, SETTINGS_READ);
    const all = await ctx.em.count(Branch, {});
    return { anywhere: branches.size > 0, everywhere: branches.size > 0 && branches.size >= all, branches };
  });
}

/** Whether the reader may see a row (any of its branches, branch 0 when it reads anywhere). */
export function mayRead(reader: SettingReader, branchIds: readonly number[]): boolean {
  if (reader.everywhere) return true;
  return branchIds.some((id) => (id === TENANT_DEFAULT_BRANCH ? reader.anywhere : reader.branches.has(id)));
}

/** AUTH002 unless the caller may read the row. */
export async function authorizeRead(ctx: RouteContext, row: Setting): Promise<void> {
  if (!mayRead(await settingReader(ctx), row.branchIds))
    throw new DomainError(
      'AUTH002',
      `missing permission ${SETTINGS_READ} on the branches of setting ${row.id}`,
    );
}

/**
 * AUTH002 unless the caller holds SETTINGS_MANAGE on each branch (branch 0: tenant-wide). Branches the
 * tenant lacks are B404 in what a caller writes; in a stored row (a branch deleted since) they need the
 * tenant-wide grant.
 */
export async function authorizeManage(
  ctx: RouteContext,
  branchIds: readonly number[],
  stored = false,
): Promise<void> {
  const missing = new Set(await missingBranchIds(ctx.em, branchIds));
  if (!stored && missing.size > 0) throw new DomainError('B404', `branch ${[...missing][0]} not found`);
  for (const branchId of new Set(branchIds))
    if (branchId !== TENANT_DEFAULT_BRANCH && !missing.has(branchId))
      await ctx.authorize(SETTINGS_MANAGE, { branchId });
  if (branchIds.includes(TENANT_DEFAULT_BRANCH) || missing.size > 0)
    await authorizeTenantWide(ctx, SETTINGS_MANAGE);
}

/** The row of the tenant with this id, or ST404 (another tenant's ids are not found). */
export async function loadSetting(em: EntityManager, settingId: number): Promise<Setting> {
  const row = await em.findOne(Setting, settingId);
  if (!row) throw new DomainError('ST404', `setting ${settingId} not found`);
  return row;
}

// ---------------------------------------------------------------------------------------------------
// Checks

/** Problems of a candidate (registry, value, branches, overlaps) with paths under `prefix`. */
export async function candidateProblems(
  em: EntityManager,
  candidate: SettingCandidate,
  excludeIds: ReadonlySet<number>,
  prefix = '',
): Promise<{ problems: SettingProblem[]; defaults: SettingDefaults | undefined }> {
  const { problems, defaults } = settingCandidateProblems(candidate);
  problems.push(...(await storedSettingProblems(em, candidate, excludeIds)));
  return { problems: problems.map((p) => ({ ...p, path: `${prefix}${p.path}` })), defaults };
}

/** Overlaps between candidates written together: two of one key naming one branch (ST104). */
export function overlapsAmong(
  candidates: readonly { key: string; branchIds: readonly number[] }[],
): SettingProblem[][] {
  const problems = candidates.map((): SettingProblem[] => []);
  candidates.forEach((candidate, index) => {
    for (let earlier = 0; earlier < index; earlier += 1) {
      const other = candidates[earlier]!;
      if (other.key !== candidate.key) continue;
      for (const id of candidate.branchIds)
        if (other.branchIds.includes(id))
          problems[index]!.push({
            errorCode: 'ST104',
            path: `/${index}/branchIds/${candidate.branchIds.indexOf(id)}`,
            message: `item ${earlier} already sets ${candidate.key} for branch ${id}`,
          });
    }
  });
  return problems;
}

/** Refuses a write with the code of its first problem (docs/settings.md), naming each of that code. */
export function refuse(problems: readonly SettingProblem[]): void {
  if (problems.length === 0) return;
  const { code, message } = refusalOf(problems);
  throw new DomainError(code, message);
}
