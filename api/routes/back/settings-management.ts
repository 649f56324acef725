// Operator endpoints of settings management (spec: `/settings-management`): the list with its filters,
// create, read, update, delete, the all-or-nothing bulk update, the validation report and the reload of
// every process's read cache. Every write is checked against the registry of known keys and their value
// schemas (domain/settings.ts), refuses secrets (ST102) and overlapping branches (ST104), and holds the
// key's advisory lock until it commits. Access: see setting-representation.ts and docs/settings.md.
import { LockMode } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { Setting } from '../../../db/entities/Setting.js';
import { lockSettingKeys } from '../../../db/settings.js';
import { readCacheOf } from '../../../db/read-cache.js';
import { DomainError } from '../../../domain/errors.js';
import {
  settingAreas,
  settingKeyKind,
  TENANT_DEFAULT_BRANCH,
  type SettingCandidate,
  type SettingProblem,
} from '../../../domain/settings.js';
import { likePattern } from '../../shared/branch-representation.js';
import { authorizeTenantWide } from '../../authorization.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { inRequestTransaction } from './branches.js';
import {
  authorizeManage,
  authorizeRead,
  candidateProblems,
  loadSetting,
  mayRead,
  overlapsAmong,
  refuse,
  SETTINGS_MANAGE,
  SETTINGS_READ,
  SettingArea,
  SettingCreate,
  SettingIdParams,
  SettingManaged,
  settingReader,
  SettingUpdate,
  settingUpdateFields,
  tags,
  toSettingDto,
} from './setting-representation.js';

export const listManagedSettings = defineRoute({
  operationId: 'listManagedSettings',
  method: 'get',
  path: '/settings-management',
  interface: 'back',
  summary: 'Settings of every area, with their names, value types and public visibility',
  description:
    '`key` and `name` match anywhere in the text, case ignored, unless `exactMatch=true`; `area` and `branchId` (rows naming that branch; 0 for tenant-wide rows) narrow further. Only settings the caller may read are listed. Ordered by key, then id; paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    key: Type.Optional(Str(200, { minLength: 1 })),
    name: Type.Optional(Str(200, { minLength: 1 })),
    exactMatch: Type.Optional(Type.Boolean({ default: false })),
    area: Type.Optional(SettingArea),
    branchId: Type.Optional(Int(0, 2147483647)),
  }),
  paged: { defaultSize: 50 },
  access: { anyCaller: 'lists only the settings on whose branches the caller holds SETTINGS_READ.' },
  responses: { 200: { description: 'One page of settings', schema: Type.Array(SettingManaged) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const reader = await settingReader(ctx);
    if (!reader.anywhere) throw new DomainError('AUTH002', `missing permission ${SETTINGS_READ}`);
    const where: Record<string, unknown> = {};
    const match = (text: string) => (query.exactMatch ? text : { $ilike: likePattern(text) });
    if (query.key !== undefined) where.key = match(query.key);
    if (query.name !== undefined) where.name = match(query.name);
    if (query.area !== undefined) where.area = query.area;
    // A tenant holds tens of settings, not thousands: filtered by readability here, then paged.
    const rows = (await em.find(Setting, where, { orderBy: { key: 'asc', id: 'asc' } })).filter(
      (row) =>
        mayRead(reader, row.branchIds) &&
        (query.branchId === undefined || row.branchIds.includes(query.branchId)),
    );
    return ok(rows.slice(page.offset, page.offset + page.size).map(toSettingDto), { total: rows.length });
  },
});

export const getManagedSetting = defineRoute({
  operationId: 'getManagedSetting',
  method: 'get',
  path: '/settings-management/{settingId}',
  interface: 'back',
  summary: 'One setting',
  tags,
  params: SettingIdParams,
  access: { anyCaller: "the handler requires SETTINGS_READ on one of the setting's branches." },
  responses: { 200: { description: 'The setting', schema: SettingManaged } },
  errors: ['ST404', 'AUTH002'],
  async handler(ctx) {
    const row = await loadSetting(ctx.em, ctx.params.settingId);
    await authorizeRead(ctx, row);
    return ok(toSettingDto(row));
  },
});

export const createManagedSetting = defineRoute({
  operationId: 'createManagedSetting',
  method: 'post',
  path: '/settings-management',
  interface: 'back',
  summary: 'Create a setting',
  description:
    "The key must be known or custom (ST101); the area and value type are the key's (ST103); the value must match the key's schema (ST100) and hold no secret (ST102); no other row of the key may name one of its branches (ST104); branch 0 stands alone (ST105).",
  tags,
  body: SettingCreate,
  access: {
    anyCaller: 'the handler requires SETTINGS_MANAGE on every branch of the setting (branch 0: tenant-wide).',
  },
  responses: {
    201: {
      description: 'The setting',
      schema: SettingManaged,
      headers: { Location: { description: 'URL of the new setting.', schema: Str(200) } },
      links: {
        GetManagedSetting: {
          operationId: 'getManagedSetting',
          parameters: { settingId: '$response.body#/id' },
        },
      },
    },
  },
  errors: ['AUTH002', 'B404', 'ST100', 'ST101', 'ST102', 'ST103', 'ST104', 'ST105'],
  async handler(ctx) {
    const { body } = ctx;
    const branchIds = body.branchIds ?? [TENANT_DEFAULT_BRANCH];
    await authorizeManage(ctx, branchIds);
    const candidate: SettingCandidate = {
      key: body.key,
      area: body.area,
      valueType: body.valueType,
      branchIds,
      value: body.value,
    };
    const row = await inRequestTransaction(ctx, async (tx) => {
      await lockSettingKeys(tx, ctx.tenant, [body.key]);
      const { problems, defaults } = await candidateProblems(tx, candidate, new Set());
      refuse(problems);
      const setting = tx.create(Setting, {
        key: body.key,
        name: body.name?.trim() ?? defaults!.name,
        area: defaults!.area,
        valueType: defaults!.valueType,
        branchIds: [...branchIds],
        value: body.value,
        publicVisible: body.publicVisible ?? defaults!.publicVisible,
      });
      await tx.flush();
      return setting;
    });
    return created(toSettingDto(row), { Location: `${ctx.baseUrl}/settings-management/${row.id}` });
  },
});

type UpdateBody = Static<typeof SettingUpdate>;

/** The candidate an update makes of a stored row: what the body sends over what the row holds. */
const updatedCandidate = (row: Setting, body: UpdateBody): SettingCandidate => ({
  key: row.key,
  area: body.area,
  valueType: body.valueType,
  branchIds: body.branchIds ?? row.branchIds,
  value: body.value,
});

/**
 * Applies an update body to a row (checked before); a known key's area and value type become the
 * registry's (a row written by hand before may differ), a custom key's area its prefix's.
 */
function applyUpdate(row: Setting, body: UpdateBody): void {
  const kind = settingKeyKind(row.key);
  if (body.name !== undefined) row.name = body.name.trim();
  if (kind.kind === 'known') {
    row.area = kind.known.area;
    row.valueType = kind.known.valueType;
  } else if (kind.kind === 'custom') {
    row.area = kind.family.area;
    if (body.valueType !== undefined) row.valueType = body.valueType;
  }
  if (body.branchIds !== undefined) row.branchIds = [...body.branchIds];
  if (body.publicVisible !== undefined) row.publicVisible = body.publicVisible;
  row.value = body.value;
}

/** Locks the rows (and their keys) for an update; ST404 for one deleted meanwhile. */
async function lockedRows(
  ctx: RouteContext,
  tx: Parameters<Parameters<typeof inRequestTransaction>[1]>[0],
  rows: readonly Setting[],
): Promise<Setting[]> {
  await lockSettingKeys(
    tx,
    ctx.tenant,
    rows.map((row) => row.key),
  );
  const locked = await tx.find(
    Setting,
    { id: { $in: rows.map((row) => row.id) } },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  return rows.map((row) => {
    const found = locked.find((candidate) => candidate.id === row.id);
    if (!found) throw new DomainError('ST404', `setting ${row.id} not found`);
    return found;
  });
}

export const updateManagedSetting = defineRoute({
  operationId: 'updateManagedSetting',
  method: 'put',
  path: '/settings-management/{settingId}',
  interface: 'back',
  summary: "Replace a setting's value (and, when sent, its name, branches, visibility)",
  description: 'Checked like a create (ST100–ST105); the key never changes.',
  tags,
  params: SettingIdParams,
  body: SettingUpdate,
  access: {
    anyCaller:
      'the handler requires SETTINGS_MANAGE on every branch of the setting, before and after (branch 0: tenant-wide).',
  },
  responses: { 200: { description: 'The setting', schema: SettingManaged } },
  errors: ['ST404', 'AUTH002', 'B404', 'ST100', 'ST101', 'ST102', 'ST103', 'ST104', 'ST105'],
  async handler(ctx) {
    const { body } = ctx;
    const stored = await loadSetting(ctx.em, ctx.params.settingId);
    await authorizeManage(ctx, stored.branchIds, true);
    if (body.branchIds) await authorizeManage(ctx, body.branchIds);
    const row = await inRequestTransaction(ctx, async (tx) => {
      const [locked] = await lockedRows(ctx, tx, [stored]);
      const { problems } = await candidateProblems(
        tx,
        updatedCandidate(locked!, body),
        new Set([locked!.id]),
      );
      refuse(problems);
      applyUpdate(locked!, body);
      await tx.flush();
      return locked!;
    });
    return ok(toSettingDto(row));
  },
});

export const deleteManagedSetting = defineRoute({
  operationId: 'deleteManagedSetting',
  method: 'delete',
  path: '/settings-management/{settingId}',
  interface: 'back',
  summary:
    'Delete a setting (its branches fall back to their ancestors, then to branch 0, then to the default)',
  tags,
  params: SettingIdParams,
  access: {
    anyCaller: 'the handler requires SETTINGS_MANAGE on every branch of the setting (branch 0: tenant-wide).',
  },
  responses: { 204: { description: 'Deleted' } },
  errors: ['ST404', 'AUTH002'],
  async handler(ctx) {
    const row = await loadSetting(ctx.em, ctx.params.settingId);
    await authorizeManage(ctx, row.branchIds, true);
    await ctx.em.remove(row).flush();
    return noContent();
  },
});

const BulkItem = Type.Object(
  { id: Id(), ...settingUpdateFields },
  { additionalProperties: false, description: 'An update of the setting `id`.' },
);

export const bulkUpdateSettings = defineRoute({
  operationId: 'bulkUpdateSettings',
  method: 'put',
  path: '/settings-management/bulk',
  interface: 'back',
  summary: 'Update several settings at once: all or nothing',
  description:
    "Each item is an update of one setting (as `PUT /settings-management/{id}`), each id once (0022). One refused item refuses the whole request and nothing is written: the answer's code is the first problem's (ST404 for an unknown id, AUTH002, B404, ST100–ST105), its message names the item (`/index/...`).",
  tags,
  body: component('SettingBulkUpdate', Type.Array(BulkItem, { minItems: 1, maxItems: 100 })),
  access: {
    anyCaller:
      'the handler requires SETTINGS_MANAGE on every branch of every setting, before and after (branch 0: tenant-wide).',
  },
  responses: {
    200: { description: 'The settings, in the order of the request', schema: Type.Array(SettingManaged) },
  },
  errors: ['0022', 'ST404', 'AUTH002', 'B404', 'ST100', 'ST101', 'ST102', 'ST103', 'ST104', 'ST105'],
  async handler(ctx) {
    const { body, em } = ctx;
    const ids = body.map((item) => item.id);
    if (new Set(ids).size !== ids.length)
      throw new DomainError('0022', 'a setting id appears twice in the bulk update');
    const stored = await em.find(Setting, { id: { $in: ids } });
    const rows = ids.map((id, index) => {
      const row = stored.find((candidate) => candidate.id === id);
      if (!row) throw new DomainError('ST404', `/${index}/id: setting ${id} not found`);
      return row;
    });
    for (const [index, item] of body.entries()) {
      await authorizeManage(ctx, rows[index]!.branchIds, true);
      if (item.branchIds) await authorizeManage(ctx, item.branchIds);
    }
    const updated = await inRequestTransaction(ctx, async (tx) => {
      const locked = await lockedRows(ctx, tx, rows);
      const candidates = body.map((item, index) => updatedCandidate(locked[index]!, item));
      const problems: SettingProblem[] = [];
      const among = overlapsAmong(candidates);
      for (const [index, candidate] of candidates.entries()) {
        const found = await candidateProblems(tx, candidate, new Set(ids), `/${index}`);
        problems.push(...found.problems, ...among[index]!);
      }
      refuse(problems);
      body.forEach((item, index) => applyUpdate(locked[index]!, item));
      await tx.flush();
      return locked;
    });
    return ok(updated.map(toSettingDto));
  },
});

const ValidationItem = Type.Object(
  {
    id: Type.Optional(Id({ description: 'The setting this would update: its own row is no overlap.' })),
    key: Str(200, { minLength: 1 }),
    name: Type.Optional(Str(200)),
    area: Type.Optional(SettingArea),
    valueType: Type.Optional(Str(100)),
    branchIds: Type.Optional(
      Type.Array(Int(0, 2147483647), { minItems: 1, maxItems: 100, uniqueItems: true }),
    ),
    value: Type.Unknown({ description: 'Any JSON: what is wrong with it is reported.' }),
    publicVisible: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const SettingProblemSchema = Type.Object(
  {
    errorCode: Type.String({
      description: 'The code a write of this item would answer (ST100–ST105, ST404, B404).',
    }),
    path: Type.String({ description: 'JSON pointer into the item, e.g. `/value/reservationMinutes`.' }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

const ValidationReport = component(
  'SettingValidationReport',
  Type.Object(
    {
      valid: Type.Boolean({ description: 'Whether every item could be written as sent (together).' }),
      items: Type.Array(
        Type.Object(
          {
            index: Type.Integer(),
            id: Nullable(Type.Integer()),
            key: Type.String(),
            area: Nullable(StringEnum(settingAreas)),
            valueType: Nullable(Type.String()),
            valid: Type.Boolean(),
            problems: Type.Array(SettingProblemSchema),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const validateSettings = defineRoute({
  operationId: 'validateSettings',
  method: 'post',
  path: '/settings-management/validate',
  interface: 'back',
  summary: 'Check settings without writing them: a report naming each wrong value',
  description:
    "Answers 200 whatever the items hold: `valid` says whether all of them could be written together, and each item lists its problems (unknown key, area or value type, each value the key's schema refuses, secrets, NUL characters, missing branches, overlaps with stored rows and among the items). Items with an `id` are checked as updates of that setting.",
  tags,
  body: Type.Array(ValidationItem, { minItems: 1, maxItems: 100 }),
  access: { anyCaller: 'the handler requires SETTINGS_READ on some branch; it writes nothing.' },
  responses: { 200: { description: 'The validation report', schema: ValidationReport } },
  errors: ['AUTH002'],
  async handler(ctx) {
    const { body, em } = ctx;
    if (!(await settingReader(ctx)).anywhere)
      throw new DomainError('AUTH002', `missing permission ${SETTINGS_READ}`);
    const ids = body.flatMap((item) => (item.id === undefined ? [] : [item.id]));
    const stored = ids.length ? await em.find(Setting, { id: { $in: ids } }) : [];
    const candidates = body.map((item): SettingCandidate => ({
      key: item.key,
      area: item.area,
      valueType: item.valueType,
      branchIds: item.branchIds ?? [TENANT_DEFAULT_BRANCH],
      value: item.value,
    }));
    const among = overlapsAmong(candidates);
    const items = [];
    for (const [index, item] of body.entries()) {
      const { problems, defaults } = await candidateProblems(em, candidates[index]!, new Set(ids), '');
      if (item.id !== undefined && !stored.some((row) => row.id === item.id))
        problems.unshift({ errorCode: 'ST404', path: '/id', message: `setting ${item.id} not found` });
      problems.push(...among[index]!.map((p) => ({ ...p, path: p.path.replace(/^\/\d+/, '') })));
      items.push({
        index,
        id: item.id ?? null,
        key: item.key,
        area: defaults?.area ?? null,
        valueType: defaults?.valueType ?? null,
        valid: problems.length === 0,
        problems,
      });
    }
    return ok({ valid: items.every((item) => item.valid), items });
  },
});

export const reloadSettings = defineRoute({
  operationId: 'reloadSettings',
  method: 'post',
  path: '/settings-management/reload',
  interface: 'back',
  summary:
    "Empty every process's read cache (settings, grants, branches…): the next reads load from the database",
  description:
    'Settings written through this API count at once everywhere anyway; reload is for rows changed by hand in the database. This process empties its cache before answering; the others (the worker included) when the PostgreSQL notification sent before the answer reaches them, within milliseconds.',
  tags,
  access: { anyCaller: 'the handler requires SETTINGS_MANAGE tenant-wide (on every top-level branch).' },
  responses: { 204: { description: 'Reloaded' } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, SETTINGS_MANAGE);
    await readCacheOf(ctx.em).reloadEverywhere(ctx.em);
    return noContent();
  },
});

export const settingManagementRoutes = [
  listManagedSettings,
  getManagedSetting,
  createManagedSetting,
  updateManagedSetting,
  deleteManagedSetting,
  bulkUpdateSettings,
  validateSettings,
  reloadSettings,
];
