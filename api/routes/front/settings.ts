import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Setting } from '../../../db/entities/index.js';
import { tenantEm } from '../../../db/orm.js';
import { settingForBranch } from '../../../db/settings.js';
import { pathTenant } from '../../context.js';

const toArray = (value: unknown): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];

/** `GET /settings`: app configuration (areas APP and SHARED only; never secrets), resolved per branch with fallback. */
export function appSettingsRouter(orm: MikroORM): Router {
  const router = Router({ mergeParams: true });
  router.get('/settings', async (req, res) => {
    const tenant = pathTenant(req);
    const em = tenantEm(orm, tenant);
    const keys = toArray(req.query.keys);
    const branchIds = toArray(req.query.branchIds).map(Number);
    const rows = await em.find(
      Setting,
      { key: { $in: keys }, area: { $in: ['APP', 'SHARED'] } },
      { orderBy: { id: 'asc' } },
    );
    const result: Array<{ key: string; area: string; branchIds: number[]; value: Record<string, unknown> }> =
      [];
    for (const key of keys) {
      const candidates = rows.filter((row) => row.key === key);
      if (candidates.length === 0) continue;
      // Without branchIds, every configured value of the key; with them, the effective value per branch.
      if (branchIds.length === 0) {
        candidates.forEach((row) =>
          result.push({ key, area: row.area, branchIds: row.branchIds, value: row.value }),
        );
        continue;
      }
      const chosen = new Map<Setting, number[]>();
      for (const branchId of branchIds) {
        const match = await settingForBranch(em, tenant, candidates, branchId);
        if (match) chosen.set(match, [...(chosen.get(match) ?? []), branchId]);
      }
      chosen.forEach((ids, row) => result.push({ key, area: row.area, branchIds: ids, value: row.value }));
    }
    res.json(result);
  });
  return router;
}
