import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { Setting } from '../../../db/entities/Setting.js';
import { DomainError } from '../../../domain/errors.js';
import { settingForBranch } from '../../../db/settings.js';
import { ok, defineRoute } from '../../kernel/route.js';
import { component, Int, Str, StringEnum } from '../../kernel/schemas.js';

const SettingSimple = component(
  'SettingSimple',
  Type.Object(
    {
      key: Type.String(),
      area: StringEnum(['APP', 'SHARED'] as const),
      branchIds: Type.Array(Type.Integer()),
      value: Type.Object({}),
    },
    { additionalProperties: false },
  ),
);

/** `GET /settings`: app configuration (areas APP and SHARED only; never secrets), resolved per branch with fallback. */
export const getAppSettings = defineRoute({
  operationId: 'getAppSettings',
  method: 'get',
  path: '/settings',
  interface: 'front',
  summary: 'Effective APP and SHARED settings for the given keys',
  tags: ['Settings'],
  query: Type.Object({
    keys: Type.Array(Str(200, { minLength: 1 }), { minItems: 1, maxItems: 50 }),
    branchIds: Type.Optional(Type.Array(Int(0, 2147483647), { maxItems: 50 })),
  }),
  access: { anyCaller: 'only settings of the APP and SHARED areas, which every app may read, are shown.' },
  responses: {
    200: { description: 'Settings found (unknown keys are left out)', schema: Type.Array(SettingSimple) },
  },
  errors: ['B404'],
  async handler({ em, tenant, query }) {
    const keys = query.keys;
    const branchIds = query.branchIds ?? [];
    // 0 is the tenant-wide value; any other id must be one of the tenant's branches (no value is made up
    // for a branch that does not exist).
    const named = [...new Set(branchIds.filter((id) => id !== 0))];
    if (named.length) {
      const found = new Set(
        (await em.find(Branch, { id: { $in: named } }, { fields: ['id'] })).map((branch) => branch.id),
      );
      const unknown = named.find((id) => !found.has(id));
      if (unknown !== undefined) throw new DomainError('B404', `branch ${unknown} not found`);
    }
    const appAreas = ['APP', 'SHARED'] as const;
    const rows = await em.find(
      Setting,
      { key: { $in: keys }, area: { $in: [...appAreas] } },
      { orderBy: { id: 'asc' } },
    );
    const result: Static<typeof SettingSimple>[] = [];
    const simple = (row: Setting, ids: number[]): Static<typeof SettingSimple> => ({
      key: row.key,
      area: row.area === 'APP' ? 'APP' : 'SHARED',
      branchIds: ids,
      value: row.value,
    });
    for (const key of new Set(keys)) {
      const candidates = rows.filter((row) => row.key === key);
      if (candidates.length === 0) continue;
      // Without branchIds, every configured value of the key; with them, the effective value per branch.
      if (branchIds.length === 0) {
        candidates.forEach((row) => result.push(simple(row, row.branchIds)));
        continue;
      }
      const chosen = new Map<Setting, number[]>();
      for (const branchId of branchIds) {
        const match = await settingForBranch(em, tenant, candidates, branchId);
        if (match) chosen.set(match, [...(chosen.get(match) ?? []), branchId]);
      }
      chosen.forEach((ids, row) => result.push(simple(row, ids)));
    }
    return ok(result);
  },
});

export const appSettingRoutes = [getAppSettings];
