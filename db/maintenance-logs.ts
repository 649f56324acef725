// The maintenance logs' reads: each one SQL statement over the event table's (tenant, type, created_at)
// index (the branch subtree, when asked for, is a recursive CTE inside the same statement), run as a
// prepared statement. Buckets are computed by PostgreSQL with date_trunc in the caller's time zone.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  allMaintenanceEventTypes,
  batterySwapEventType,
  maintenanceEventTypes,
  timeZoneNamePattern,
  type MetricsInterval,
} from '../domain/maintenance.js';
import { preparedRows } from './prepared.js';

/** Where the events are read: the tenant, a branch (with its descendants), optionally one user's only. */
export interface LogScope {
  tenant: string;
  branchId: number;
  includeChildBranches: boolean;
  /** The acting subject (`event.admin_subject`, a task's userAuthId); undefined: everyone's. */
  userAuthId?: string;
  from: Date;
  to: Date;
}

let knownZones: Promise<Set<string>> | undefined;

/**
 * The time zone a read buckets in: the name sent when PostgreSQL knows it (its own list, read once per
 * process), else UTC, as the spec says for an omitted or invalid userTimezone.
 */
export async function effectiveTimeZone(em: EntityManager, name: string | undefined): Promise<string> {
  if (!name || !timeZoneNamePattern.test(name)) return 'UTC';
  knownZones ??= preparedRows<{ name: string }>(em, 'select name from pg_timezone_names', []).then(
    (rows) => new Set(rows.map((row) => row.name)),
    (error: unknown) => {
      knownZones = undefined;
      throw error;
    },
  );
  return (await knownZones).has(name) ? name : 'UTC';
}

/**
 * The statement's start: the branch subtree ($1 branch, $2 tenant, $3 whether descendants count) and
 * the event filter ($4 types, $5 from, $6 to, $7 user or null). Vehicle commands count only outside
 * rentals: a rental's own commands carry its id, an operator's or a crew's do not.
 */
const scopedEvents = `with recursive tree(id, depth) as (
    select id, 0 from branch where id = $1 and tenant_id = $2
    union all
    select b.id, t.depth + 1 from branch b join tree t on b.parent_id = t.id
     where $3::boolean and b.tenant_id = $2 and t.depth < 32
  ), matches as (
    select e.id, e.type, e.created_at, e.branch_id, e.vehicle_id, e.admin_subject, e.description, e.position
      from event e
     where e.tenant_id = $2 and e.type = any($4::text[]) and e.created_at >= $5 and e.created_at < $6
       and e.branch_id in (select id from tree)
       and ($7::text is null or e.admin_subject = $7)
       and (e.rental_id is null or e.type not like 'VEHICLE\\_COMMAND\\_%')
  )`;

const scopeValues = (scope: LogScope, types: readonly string[]) => [
  scope.branchId,
  scope.tenant,
  scope.includeChildBranches,
  types,
  scope.from,
  scope.to,
  scope.userAuthId ?? null,
];

/** One bucket's count of one event type. */
export interface TypeBucketRow {
  start: Date;
  local_start: string;
  type: string;
  events: string;
  vehicles: string;
}

/**
 * Counts per bucket and event type ($8 interval field, $9 time zone): the bucket is the local
 * date_trunc, answered as its instant and as local wall time.
 */
async function countsByBucket(
  em: EntityManager,
  scope: LogScope,
  types: readonly string[],
  interval: MetricsInterval,
  timeZone: string,
): Promise<TypeBucketRow[]> {
  return preparedRows<TypeBucketRow>(
    em,
    `${scopedEvents}
  select date_trunc($8, m.created_at at time zone $9) at time zone $9 as start,
         to_char(date_trunc($8, m.created_at at time zone $9), 'YYYY-MM-DD"T"HH24:MI:SS') as local_start,
         m.type, count(*) as events, count(distinct m.vehicle_id) as vehicles
    from matches m
   group by 1, 2, 3
   order by 1, 3`,
    [...scopeValues(scope, types), interval.toLowerCase(), timeZone],
  );
}

/** Maintenance events per bucket and type (every kind). */
export const maintenanceCounts = (
  em: EntityManager,
  scope: LogScope,
  interval: MetricsInterval,
  timeZone: string,
) => countsByBucket(em, scope, allMaintenanceEventTypes, interval, timeZone);

/** Battery swaps per bucket (with the distinct vehicles swapped). */
export const batterySwapCounts = (
  em: EntityManager,
  scope: LogScope,
  interval: MetricsInterval,
  timeZone: string,
) => countsByBucket(em, scope, [batterySwapEventType], interval, timeZone);

/** One event of a maintenance log list, with the total of the list. */
export interface ActivityRow {
  total: string;
  id: string | null;
  type: string | null;
  created_at: Date | null;
  branch_id: number | null;
  vehicle_id: number | null;
  admin_subject: string | null;
  description: string | null;
  position: { lat: number; lng: number } | null;
}

/** One page of maintenance events, newest first, with the list's total ($8 limit, $9 offset). */
export async function maintenanceActivities(
  em: EntityManager,
  scope: LogScope,
  page: { size: number; offset: number },
): Promise<{ rows: ActivityRow[]; total: number }> {
  const rows = await preparedRows<ActivityRow>(
    em,
    `${scopedEvents}
  select c.total, p.*
    from (select count(*) as total from matches) c
    left join lateral (
      select * from matches order by created_at desc, id desc limit $8 offset $9
    ) p on true`,
    [...scopeValues(scope, allMaintenanceEventTypes), page.size, page.offset],
  );
  return { rows: rows.filter((row) => row.id !== null), total: Number(rows[0]?.total ?? 0) };
}

/** A vehicle a user approached in the window. */
export interface ApproachRow {
  total: string;
  vehicle_id: number | null;
  code: string | null;
  approaches: string | null;
  last_approached_at: Date | null;
  branch_id: number | null;
  position: { lat: number; lng: number } | null;
}

/** One page of the vehicles approached, most recently approached first ($8 limit, $9 offset). */
export async function approachedVehicles(
  em: EntityManager,
  scope: LogScope,
  page: { size: number; offset: number },
): Promise<{ rows: ApproachRow[]; total: number }> {
  const rows = await preparedRows<ApproachRow>(
    em,
    `${scopedEvents}, approached as (
    select distinct on (m.vehicle_id) m.vehicle_id, m.created_at as last_approached_at, m.branch_id,
           m.position, count(*) over (partition by m.vehicle_id) as approaches
      from matches m where m.vehicle_id is not null
     order by m.vehicle_id, m.created_at desc, m.id desc
  )
  select c.total, p.*
    from (select count(*) as total from approached) c
    left join lateral (
      select a.*, v.code from approached a
        left join vehicle v on v.id = a.vehicle_id and v.tenant_id = $2
       order by a.last_approached_at desc, a.vehicle_id desc limit $8 offset $9
    ) p on true`,
    [...scopeValues(scope, maintenanceEventTypes.APPROACH), page.size, page.offset],
  );
  return { rows: rows.filter((row) => row.vehicle_id !== null), total: Number(rows[0]?.total ?? 0) };
}
