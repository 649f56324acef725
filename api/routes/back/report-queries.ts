// The report queries exports are made of (docs/exports.md): a read-only catalogue, the same for every
// tenant, read from domain/exports.ts (each report's columns in CSV order).
import { Type, type Static } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import { reportQueries, reportQueryById } from '../../../domain/exports.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Int, Nullable } from '../../kernel/schemas.js';
import { tags } from './export-representation.js';

const ReportQuerySchema = component(
  'ReportQuery',
  Type.Object(
    {
      id: Type.Integer({ description: 'The queryId of exports and of the webhook payload.' }),
      key: Type.String(),
      name: Type.String({ description: 'The queryName of the webhook payload.' }),
      description: Type.String(),
      periodColumn: Nullable(
        Type.String({ description: 'The column the period filters; null: a snapshot (period ignored).' }),
      ),
      branchFilter: Type.String({ description: 'What the branch filter applies to.' }),
      columns: Type.Array(
        Type.Object(
          { name: Type.String(), type: Type.String(), description: Type.String() },
          { additionalProperties: false },
        ),
        { description: 'The CSV columns, in order (the header line).' },
      ),
    },
    { additionalProperties: false },
  ),
);

const toDto = (query: (typeof reportQueries)[number]): Static<typeof ReportQuerySchema> => ({
  id: query.id,
  key: query.key,
  name: query.name,
  description: query.description,
  periodColumn: query.periodColumn,
  branchFilter: query.branchFilter,
  columns: query.columns.map((column) => ({ ...column })),
});

const catalogue = 'the catalogue is the same for every tenant and holds no data (no permission needed).';

export const listReportQueries = defineRoute({
  operationId: 'listReportQueries',
  method: 'get',
  path: '/report-queries',
  interface: 'back',
  summary: 'The report queries exports can run, with their columns',
  tags,
  access: { anyCaller: catalogue },
  responses: { 200: { description: 'Every report query', schema: Type.Array(ReportQuerySchema) } },
  errors: [],
  async handler() {
    return ok(reportQueries.map(toDto));
  },
});

export const getReportQuery = defineRoute({
  operationId: 'getReportQuery',
  method: 'get',
  path: '/report-queries/{queryId}',
  interface: 'back',
  summary: 'One report query and its columns',
  tags,
  params: Type.Object({ queryId: Int(1, 1000) }),
  access: { anyCaller: catalogue },
  responses: { 200: { description: 'The report query', schema: ReportQuerySchema } },
  errors: ['EX407'],
  async handler(ctx) {
    const query = reportQueryById(ctx.params.queryId);
    if (!query) throw new DomainError('EX407', `report query ${ctx.params.queryId} not found`);
    return ok(toDto(query));
  },
});

export const reportQueryRoutes = [listReportQueries, getReportQuery];
