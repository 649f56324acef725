// Operator endpoint `GET /settings` (spec: "keys (comma list or repeated), optional branchIds; effective
// DASHBOARD and SHARED values with fallbacks"): what the operators' dashboard reads. Per asked branch the
// value of the branch, else of its nearest ancestor, else the tenant-wide row (branch 0), else the known
// key's default; without branchIds every row of the keys the caller may read. See docs/settings.md.
import { Type, type Static } from '@sinclair/typebox';
import { Setting } from '../../../db/entities/Setting.js';
import { settingForBranch } from '../../../db/settings.js';
import { DomainError } from '../../../domain/errors.js';
import {
  dashboardSettingAreas,
  knownSettings,
  settingKeyPattern,
  TENANT_DEFAULT_BRANCH,
} from '../../../domain/settings.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Int, Str, StringEnum } from '../../kernel/schemas.js';
import { mayRead, SETTINGS_READ, settingReader, tags } from './setting-representation.js';

const OperatorSetting = component(
  'OperatorSetting',
  Type.Object(
    {
      key: Type.String(),
      area: StringEnum(dashboardSettingAreas),
      branchIds: Type.Array(Type.Integer(), {
        description: 'The asked branches this value applies to; without branchIds, the branches of the row.',
      }),
      value: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
);
type OperatorSettingDto = Static<typeof OperatorSetting>;

const MAX_KEYS = 50;
const keyOnly = new RegExp(settingKeyPattern);

export const getOperatorSettings = defineRoute({
  operationId: 'getOperatorSettings',
  method: 'get',
  path: '/settings',
  interface: 'back',
  summary: 'Effective DASHBOARD and SHARED settings for the given keys',
  description: `\`keys\` repeated or comma-separated (at most ${MAX_KEYS} keys). With \`branchIds\` (repeated), per branch the value of the branch, else of its nearest ancestor, else the tenant-wide value (branch 0), else the default of a known key; one item per value with the asked branches it applies to. Without \`branchIds\`, every stored value of the keys the caller may read. Keys of other areas, and keys with no value, are left out.`,
  tags,
  query: Type.Object({
    keys: Type.Array(Str(2000, { minLength: 1, pattern: '^[A-Za-z0-9._,-]+$' }), {
      minItems: 1,
      maxItems: MAX_KEYS,
    }),
    branchIds: Type.Optional(Type.Array(Int(0, 2147483647), { maxItems: 50 })),
  }),
  access: {
    anyCaller:
      'the handler requires SETTINGS_READ on each asked branch (branch 0: on some branch), and without branchIds shows only rows on whose branches the caller holds it.',
  },
  responses: { 200: { description: 'Settings found', schema: Type.Array(OperatorSetting) } },
  errors: ['0022', 'AUTH002', 'B404'],
  async handler(ctx) {
    const { em, tenant, query } = ctx;
    const keys = [...new Set(query.keys.flatMap((list) => list.split(',')).filter(Boolean))];
    if (keys.length > MAX_KEYS || keys.some((key) => !keyOnly.test(key)))
      throw new DomainError('0022', `keys: at most ${MAX_KEYS} keys, each dot-separated segments`);
    const branchIds = [...new Set(query.branchIds ?? [])];
    const reader = await settingReader(ctx);
    if (!reader.anywhere) throw new DomainError('AUTH002', `missing permission ${SETTINGS_READ}`);
    for (const branchId of branchIds)
      if (branchId !== TENANT_DEFAULT_BRANCH) await ctx.authorize(SETTINGS_READ, { branchId });
    const rows = await em.find(
      Setting,
      { key: { $in: keys }, area: { $in: [...dashboardSettingAreas] } },
      { orderBy: { id: 'asc' } },
    );
    const result: OperatorSettingDto[] = [];
    const item = (key: string, area: string, ids: number[], value: Record<string, unknown>) =>
      result.push({ key, area: area === 'DASHBOARD' ? 'DASHBOARD' : 'SHARED', branchIds: ids, value });
    for (const key of keys) {
      const candidates = rows.filter((row) => row.key === key);
      const known = Object.hasOwn(knownSettings, key) ? knownSettings[key] : undefined;
      const fallback =
        known?.default !== undefined && (dashboardSettingAreas as readonly string[]).includes(known.area)
          ? { area: known.area, value: known.default as Record<string, unknown> }
          : undefined;
      if (branchIds.length === 0) {
        const readable = candidates.filter((row) => mayRead(reader, row.branchIds));
        readable.forEach((row) => item(key, row.area, [...row.branchIds], row.value));
        if (readable.length === 0 && fallback)
          item(key, fallback.area, [TENANT_DEFAULT_BRANCH], fallback.value);
        continue;
      }
      const chosen = new Map<Setting | undefined, number[]>();
      for (const branchId of branchIds) {
        const match = await settingForBranch(em, tenant, candidates, branchId);
        if (match || fallback) chosen.set(match, [...(chosen.get(match) ?? []), branchId]);
      }
      chosen.forEach((ids, row) =>
        row ? item(key, row.area, ids, row.value) : item(key, fallback!.area, ids, fallback!.value),
      );
    }
    return ok(result);
  },
});

export const operatorSettingRoutes = [getOperatorSettings];
