// The analytics of the operator interface: where and when things happened in a branch, as TimePosition
// cells (hour, position rounded to a grid, count), one SQL statement per page. User events are the stored
// APP_ events with a device position; rental start positions come from the rentals. See docs/insight.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import { polygonContains, polygonsOf } from './insight-geometry.js';
import { preparedRows } from './prepared.js';

/** One cell of an analytics answer: the hour it starts, its grid position, and how many fell in it. */
export interface TimePositionCell {
  /** ISO-8601, UTC. */
  time: string;
  lat: number;
  lng: number;
  weight: number;
}

/** What an analytics page is asked for. */
export interface AnalyticsQuery {
  tenant: string;
  branchIds: readonly number[];
  from: Date;
  to: Date;
  /** Decimal places positions are rounded to (domain/insight.ts analyticsPrecision). */
  precision: number;
  /**
   * Decimal places of the positions of events that name no branch (user events): their precise position
   * needs POSITION_LOG_READ tenant-wide, as `GET /events` shows it (api/routes/back/event-visibility.ts
   * positionShown); `precision` when absent.
   */
  branchlessPrecision?: number;
  limit: number;
  offset: number;
}

/** A statement ready to run, for the route and the benchmarks alike. */
export interface AnalyticsStatement {
  text: string;
  values: unknown[];
}

/**
 * The grouped select over `source` rows (time, lat, lng), one page, with the number of cells; positions
 * rounded to `precision` decimals (an SQL expression over the row `x`, by default the query's).
 */
const cells = (source: string, precision = '$4::int') => `select
    to_char(date_trunc('hour', x.at at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as time,
    round(x.lat::numeric, ${precision})::float8 as lat, round(x.lng::numeric, ${precision})::float8 as lng,
    count(*)::int as weight, count(*) over ()::int as total
  from (${source}) as x
 group by 1, 2, 3
 order by 1, 2, 3
 limit $5::int offset $6::int`;

const parameters = (query: AnalyticsQuery, ...more: unknown[]) => [
  query.tenant,
  query.from,
  query.to,
  query.precision,
  query.limit,
  query.offset,
  ...more,
];

/**
 * User events of a branch: stored APP_ events with a device position in the period that name one of the
 * branches, or, naming none (app events usually carry no branch), whose position lies in an active area
 * of one of them.
 */
export function userEventStatement(query: AnalyticsQuery): AnalyticsStatement {
  const point = `point((e.position ->> 'lng')::float8, (e.position ->> 'lat')::float8)`;
  const text = `with scope_areas as materialized (
      select polygon.shape, polygon.bbox, polygon.holes
        from area a ${polygonsOf(`a.geofence -> 'coordinates'`)}
       where a.tenant_id = $1::text and a.status = 'ACTIVE' and a.branch_id = any($7::int[]))
    ${cells(
      `select e.created_at as at, (e.position ->> 'lat')::float8 as lat, (e.position ->> 'lng')::float8 as lng,
            case when e.branch_id is null then $8::int else $4::int end as precision
       from event e
      where e.tenant_id = $1::text and e.type like 'APP\\_%' and e.created_at >= $2::timestamptz
        and e.created_at < $3::timestamptz
        and jsonb_typeof(e.position -> 'lat') = 'number' and jsonb_typeof(e.position -> 'lng') = 'number'
        and (e.branch_id = any($7::int[])
          or (e.branch_id is null and exists (select 1 from scope_areas sa where ${polygonContains('sa', point)})))`,
      'x.precision',
    )}`;
  return {
    text,
    values: parameters(query, [...query.branchIds], query.branchlessPrecision ?? query.precision),
  };
}

/** Rental start positions of a branch: rentals of the branches that started in the period, where they started. */
export function rentalStartStatement(query: AnalyticsQuery): AnalyticsStatement {
  const text = cells(`select r.started_at as at, (r.start_position ->> 'lat')::float8 as lat,
        (r.start_position ->> 'lng')::float8 as lng
       from rental r
      where r.tenant_id = $1::text and r.branch_id = any($7::int[]) and r.started_at >= $2::timestamptz
        and r.started_at < $3::timestamptz
        and jsonb_typeof(r.start_position -> 'lat') = 'number' and jsonb_typeof(r.start_position -> 'lng') = 'number'`);
  return { text, values: parameters(query, [...query.branchIds]) };
}

/** Runs an analytics statement: one page of cells, ordered by time then position, and the number of cells in all. */
export async function analyticsPage(
  em: EntityManager,
  statement: AnalyticsStatement,
): Promise<{ cells: TimePositionCell[]; total: number }> {
  type Row = { time: string; lat: number; lng: number; weight: number; total: number };
  const rows = await preparedRows<Row>(em, statement.text, statement.values);
  let total = rows.length ? Number(rows[0]!.total) : 0;
  if (!rows.length && Number(statement.values[5]) > 0) {
    // A page past the end carries no count: the first cell of the same statement does.
    const values = [...statement.values];
    values[4] = 1;
    values[5] = 0;
    const [first] = await preparedRows<Row>(em, statement.text, values);
    total = first ? Number(first.total) : 0;
  }
  return {
    total,
    cells: rows.map((row) => ({
      time: row.time,
      lat: Number(row.lat),
      lng: Number(row.lng),
      weight: Number(row.weight),
    })),
  };
}
