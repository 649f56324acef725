import { kpiRoutes } from '../../api/routes/back/kpis.js';
import { analyticsRoutes } from '../../api/routes/back/analytics.js';
import { insightErrors } from '../../domain/insight.errors.js';
import { Migration20261125074338_insight_indexes } from '../../db/migrations/Migration20261125074338_insight_indexes.js';
import { defineDomain } from './domain.js';

/**
 * Insight: the operator's KPIs and analytics, read from the other domains' read model (one SQL statement
 * per request; docs/insight.md). It owns no table, only indexes its statements need.
 */
export const insightDomain = defineDomain({
  name: 'insight',
  errors: insightErrors,
  migrations: [Migration20261125074338_insight_indexes],
  permissions: { operational: ['KPI_READ', 'ANALYTICS_READ'] },
  routes: [...kpiRoutes, ...analyticsRoutes],
});
