// Operator endpoint of the KPIs (the spec's GET /kpis): the eighteen KPI types for a branch, with its
// descendants on request, each computed from the read model by one SQL statement (db/kpis.ts). Access:
// KPI_READ on the branch. Definitions: docs/insight.md.
import { Type, type Static } from '@sinclair/typebox';
import { kpiInputs, kpiStatement, runKpiStatement, type KpiRow } from '../../../db/kpis.js';
import { kpiEntities, kpiTypes, requestedKpiTypes } from '../../../domain/insight.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id, Nullable, StringEnum } from '../../kernel/schemas.js';

const tags = ['KPIs'];

export const KpiType = component(
  'KpiType',
  StringEnum(kpiTypes, { description: 'A KPI type (docs/insight.md defines each).' }),
);

export const Kpi = component(
  'Kpi',
  Type.Object(
    {
      type: KpiType,
      total: Type.Integer({
        minimum: 0,
        description:
          'The population the KPI looks at (e.g. the vehicles of the scope, the charging vehicles, the stations with a capacity).',
      }),
      value: Nullable(
        Type.Number({
          description:
            'The figure: a count of `entityIds`, or for AVERAGE_STATE_OF_CHARGE the mean state of charge (percent, one decimal; null when no vehicle reports one).',
        }),
      ),
      entity: StringEnum(kpiEntities, { description: 'What `entityIds` name.' }),
      entityIds: Type.Array(Type.Integer(), { description: 'The entities behind the figure, ascending.' }),
    },
    { additionalProperties: false },
  ),
);

const toKpiDto = (row: KpiRow): Static<typeof Kpi> => ({
  type: row.type,
  total: row.total,
  value: row.value,
  entity: row.entity,
  entityIds: row.entityIds,
});

export const getKpis = defineRoute({
  operationId: 'getKpis',
  method: 'get',
  path: '/kpis',
  interface: 'back',
  summary: "A branch's KPIs",
  description:
    'The KPIs of the vehicles, stations and rentals of the branch (with its descendants when `includeChildBranches`), for every type or the `type`s asked (repeatable), in the order of the spec. Vehicles count in the branch they are in now; retired, defleeted and virtual vehicles in none. Each KPI is one SQL statement over the read model; definitions and the `insight.kpis` setting they read are in docs/insight.md.',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    type: Type.Optional(
      Type.Array(KpiType, {
        maxItems: kpiTypes.length,
        uniqueItems: true,
        description: 'KPI types to compute (repeatable); all when left out.',
      }),
    ),
  }),
  access: {
    permission: 'KPI_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'The KPIs asked for', schema: Type.Array(Kpi) } },
  errors: [],
  async handler({ em, tenant, query }) {
    const inputs = await kpiInputs(em, tenant, query.branchId, query.includeChildBranches ?? false);
    const rows = await runKpiStatement(em, kpiStatement(requestedKpiTypes(query.type), inputs));
    return ok(rows.map(toKpiDto));
  },
});

export const kpiRoutes = [getKpis];
