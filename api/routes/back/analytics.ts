// Operator endpoints of the analytics (the spec's GET /analytics/userEvents and
// /analytics/rentals/startPositions): TimePosition lists (time, pos, weight) of a branch, with its
// descendants on request, over a period (`from`/`to`, the last 24 hours by default, at most 31 days).
// Access: ANALYTICS_READ on the branch; positions are rounded to ≈ 1.1 km without POSITION_LOG_READ on
// it, to ≈ 11 m with it (docs/insight.md).
import { Type, type Static } from '@sinclair/typebox';
import {
  analyticsPage,
  rentalStartStatement,
  userEventStatement,
  type AnalyticsQuery,
  type AnalyticsStatement,
  type TimePositionCell,
} from '../../../db/analytics.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { analyticsPeriod, analyticsPrecision } from '../../../domain/insight.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { callerEventAccess, positionShown } from './event-visibility.js';
import { clampedInstant, component, DateTime, Id, Position } from '../../kernel/schemas.js';

const tags = ['Analytics'];

export const TimePosition = component(
  'TimePosition',
  Type.Object(
    {
      time: DateTime({ description: 'Start of the hour (UTC) the cell covers.' }),
      pos: Position,
      weight: Type.Integer({ minimum: 1, description: 'How many events or rental starts fell in the cell.' }),
    },
    {
      additionalProperties: false,
      description:
        'One cell of an analytics answer: an hour and a position rounded to the grid (4 decimals with POSITION_LOG_READ, else 2), with how many fell in it.',
    },
  ),
);

const AnalyticsQuerySchema = Type.Object({
  branchId: Id(),
  includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  from: Type.Optional(
    DateTime({ description: 'Start of the period (inclusive); default 24 hours before `to`.' }),
  ),
  to: Type.Optional(
    DateTime({ description: 'End of the period (exclusive); default now. At most 31 days after `from`.' }),
  ),
});

type AnalyticsContext = RouteContext<unknown, Static<typeof AnalyticsQuerySchema>>;

const access = {
  permission: 'ANALYTICS_READ',
  branchOf: 'query parameter branchId',
  branch: (ctx: AnalyticsContext) => ctx.query.branchId,
};

const toTimePositionDto = (cell: TimePositionCell): Static<typeof TimePosition> => ({
  time: cell.time,
  pos: { lat: cell.lat, lng: cell.lng },
  weight: cell.weight,
});

/** The page of cells the statement built for the request's branch scope, period and precision answers. */
async function timePositions(
  ctx: AnalyticsContext,
  statementFor: (query: AnalyticsQuery) => AnalyticsStatement,
) {
  const { em, tenant, query, page } = ctx;
  const period = analyticsPeriod(
    {
      from: query.from === undefined ? undefined : clampedInstant(query.from),
      to: query.to === undefined ? undefined : clampedInstant(query.to),
    },
    new Date(),
  );
  if (!period) throw new DomainError('ANL100', '`to` must follow `from`, at most 31 days later');
  const [branchIds, holdsPositionLog, eventAccess] = await Promise.all([
    query.includeChildBranches ? branchWithDescendants(em, tenant, query.branchId) : [query.branchId],
    ctx.holds({ permission: 'POSITION_LOG_READ', branchId: query.branchId }),
    callerEventAccess(ctx),
  ]);
  const { cells, total } = await analyticsPage(
    em,
    statementFor({
      tenant,
      branchIds,
      ...period,
      precision: analyticsPrecision(holdsPositionLog),
      // Events of no branch: precise only where GET /events shows their position (tenant-wide).
      branchlessPrecision: analyticsPrecision(positionShown(eventAccess, null)),
      limit: page.size,
      offset: page.offset,
    }),
  );
  return ok(cells.map(toTimePositionDto), { total });
}

const paged = { defaultSize: 1000, maxSize: 5000 };

export const userEventPositions = defineRoute({
  operationId: 'analyticsUserEvents',
  method: 'get',
  path: '/analytics/userEvents',
  interface: 'back',
  summary: "Where and when the app's users were active in a branch",
  description:
    'The stored APP_ events with a device position in the period, of the branch (and its descendants with `includeChildBranches`): events naming one of the branches, or naming none (app events usually carry no branch) whose position lies in an active area of one of them. Grouped per hour and rounded position (`weight` = events), ordered by time then position, paged with the X-Total-* headers (counting cells).',
  tags,
  query: AnalyticsQuerySchema,
  paged,
  access,
  responses: { 200: { description: 'One page of cells', schema: Type.Array(TimePosition) } },
  errors: ['ANL100'],
  handler: (ctx) => timePositions(ctx, userEventStatement),
});

export const rentalStartPositions = defineRoute({
  operationId: 'analyticsRentalStartPositions',
  method: 'get',
  path: '/analytics/rentals/startPositions',
  interface: 'back',
  summary: 'Where and when rentals of a branch started',
  description:
    'The rentals of the branch (and its descendants with `includeChildBranches`) that started in the period, at their start position, grouped per hour and rounded position (`weight` = rentals), ordered by time then position, paged with the X-Total-* headers (counting cells).',
  tags,
  query: AnalyticsQuerySchema,
  paged,
  access,
  responses: { 200: { description: 'One page of cells', schema: Type.Array(TimePosition) } },
  errors: ['ANL100'],
  handler: (ctx) => timePositions(ctx, rentalStartStatement),
});

export const analyticsRoutes = [userEventPositions, rentalStartPositions];
