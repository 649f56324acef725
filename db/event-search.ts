// Reads of the event table for the event search (`GET /events`) and the entity timelines
// (`GET /{entityType}/{entityId}/events`): one SQL statement per page and one for the count, built from
// fixed fragments (values are bound, so each filter combination is one prepared statement), confined to
// what the caller may read (`EventVisibility`). docs/events.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  eventFamilies,
  eventFamilyPrefixes,
  likePrefix,
  type EventFamily,
  type EventSortField,
} from '../domain/events.js';
import { preparedRows } from './prepared.js';

/** One stored event as the reads answer it. */
export interface EventRow {
  id: string;
  type: string;
  /** A Date, or the ISO text the pool's type parsers leave timestamps as. */
  created_at: Date | string;
  branch_id: number | null;
  vehicle_id: number | null;
  rental_id: number | null;
  booking_id: number | null;
  customer_id: number | null;
  admin_subject: string | null;
  position: { lat: number; lng: number } | null;
  vehicle_position: { lat: number; lng: number } | null;
  description: string | null;
  payload: Record<string, unknown> | null;
}

const columns =
  'id, type, created_at, branch_id, vehicle_id, rental_id, booking_id, customer_id, admin_subject, position, vehicle_position, description, payload';

/**
 * The events a caller may read: for groups of families, the branches whose events of those families it
 * reads; the families whose events of no branch it reads; or everything (no condition at all, the
 * fastest plan: a tenant-wide reader).
 */
export interface EventVisibility {
  everything: boolean;
  groups: readonly { branchIds: readonly number[]; families: readonly EventFamily[] }[];
  branchless: readonly EventFamily[];
}

/** Binds `value` as the next `$n` and answers the placeholder with its cast. */
function bind(values: unknown[], value: unknown, cast: string): string {
  values.push(value);
  return `$${values.length}::${cast}`;
}

const entityPatterns = Object.values(eventFamilyPrefixes).flat().map(likePrefix);

/** ` and <the types of these families>`, or nothing when the families are all of them. */
function familyCondition(values: unknown[], families: readonly EventFamily[]): string {
  if (eventFamilies.every((family) => families.includes(family))) return '';
  const patterns = families
    .filter((family): family is Exclude<EventFamily, 'GENERAL'> => family !== 'GENERAL')
    .flatMap((family) => eventFamilyPrefixes[family].map(likePrefix));
  const general = families.includes('GENERAL');
  if (!general) return ` and type like any(${bind(values, patterns, 'text[]')})`;
  const notEntity = `not (type like any(${bind(values, entityPatterns, 'text[]')}))`;
  if (patterns.length === 0) return ` and ${notEntity}`;
  return ` and (type like any(${bind(values, patterns, 'text[]')}) or ${notEntity})`;
}

/** The visibility condition (` and (...)`), empty for a reader of everything. */
function visibilityCondition(values: unknown[], visibility: EventVisibility): string {
  if (visibility.everything) return '';
  const parts: string[] = [];
  for (const group of visibility.groups)
    if (group.branchIds.length && group.families.length)
      parts.push(
        `(branch_id = any(${bind(values, group.branchIds, 'int[]')})${familyCondition(values, group.families)})`,
      );
  if (visibility.branchless.length)
    parts.push(`(branch_id is null${familyCondition(values, visibility.branchless)})`);
  return parts.length ? ` and (${parts.join(' or ')})` : ' and false';
}

/** The filters of `GET /events`; every list is an IN, every given filter narrows (AND). */
export interface EventSearchCriteria {
  types?: readonly string[];
  customerIds?: readonly number[];
  rentalIds?: readonly number[];
  bookingIds?: readonly number[];
  vehicleIds?: readonly number[];
  /** created_at at or after. */
  from?: Date;
  /** created_at before. */
  to?: Date;
  sort: { field: EventSortField; direction: 'asc' | 'desc' };
  limit: number;
  offset: number;
  /** Matches are counted up to this number. */
  countLimit: number;
}

const orderColumns: Record<EventSortField, (direction: 'asc' | 'desc') => string> = {
  createdAt: (direction) => `created_at ${direction}, id ${direction}`,
  id: (direction) => `id ${direction}`,
  type: (direction) => `type ${direction}, created_at desc, id desc`,
};

/** The statement texts (a page and a capped count) and their values for the criteria. */
export function eventSearchStatements(
  tenant: string,
  criteria: EventSearchCriteria,
  visibility: EventVisibility,
): { page: string; count: string; values: unknown[] } {
  const values: unknown[] = [tenant];
  let where = 'tenant_id = $1';
  const lists: [keyof EventSearchCriteria, string, string][] = [
    ['types', 'type', 'text[]'],
    ['customerIds', 'customer_id', 'int[]'],
    ['rentalIds', 'rental_id', 'int[]'],
    ['bookingIds', 'booking_id', 'int[]'],
    ['vehicleIds', 'vehicle_id', 'int[]'],
  ];
  for (const [key, column, cast] of lists) {
    const list = criteria[key] as readonly unknown[] | undefined;
    if (list?.length) where += ` and ${column} = any(${bind(values, [...list], cast)})`;
  }
  if (criteria.from) where += ` and created_at >= ${bind(values, criteria.from, 'timestamptz')}`;
  if (criteria.to) where += ` and created_at < ${bind(values, criteria.to, 'timestamptz')}`;
  where += visibilityCondition(values, visibility);
  const order = orderColumns[criteria.sort.field](criteria.sort.direction);
  const limit = values.length + 1;
  return {
    page: `select ${columns} from event where ${where} order by ${order} limit $${limit}::int offset $${limit + 1}::int`,
    count: `select count(*)::int as total from (select 1 from event where ${where} limit $${limit}::int) matched`,
    values,
  };
}

/**
 * One page of the search and the number of matches (exact below `countLimit`, else `countLimit` and
 * `exact: false`). The two statements run at once on two pooled connections.
 */
export async function searchEvents(
  em: EntityManager,
  tenant: string,
  criteria: EventSearchCriteria,
  visibility: EventVisibility,
): Promise<{ rows: EventRow[]; total: number; exact: boolean }> {
  const { page, count, values } = eventSearchStatements(tenant, criteria, visibility);
  const [rows, [counted]] = await Promise.all([
    preparedRows<EventRow>(em, page, [...values, criteria.limit, criteria.offset]),
    preparedRows<{ total: number }>(em, count, [...values, criteria.countLimit]),
  ]);
  const total = counted?.total ?? 0;
  return { rows, total, exact: total < criteria.countLimit };
}

/** What an entity's timeline holds: the events naming it, and with related events its trips' events. */
export interface TimelineSelection {
  /** The events whose column names the entity. */
  column: 'rental_id' | 'booking_id' | 'customer_id' | 'vehicle_id';
  id: number;
  /** Also the events of these rentals (a vehicle's trips: events that do not name the vehicle). */
  rentalIds?: readonly number[];
  /** Also the vehicle's events inside each window (a trip: from its reservation to its end). */
  trips?: readonly { vehicleId: number; from: Date; to: Date }[];
}

/** The windows with those of one vehicle that overlap merged, so no event is selected twice. */
function mergedTrips(
  trips: NonNullable<TimelineSelection['trips']>,
): { vehicleId: number; from: Date; to: Date }[] {
  const sorted = [...trips].sort((a, b) => a.vehicleId - b.vehicleId || a.from.getTime() - b.from.getTime());
  const merged: { vehicleId: number; from: Date; to: Date }[] = [];
  for (const trip of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.vehicleId === trip.vehicleId && trip.from.getTime() <= last.to.getTime()) {
      if (trip.to.getTime() > last.to.getTime()) last.to = trip.to;
    } else merged.push({ ...trip });
  }
  return merged;
}

/**
 * One page of a timeline (oldest first) and its total. The trips' vehicle events are a second branch of
 * a UNION ALL driven by the (vehicle, created_at) index, without the rows the first branch has.
 */
export async function timelineEvents(
  em: EntityManager,
  tenant: string,
  selection: TimelineSelection,
  visibility: EventVisibility,
  page: { limit: number; offset: number },
): Promise<{ rows: EventRow[]; total: number }> {
  const values: unknown[] = [tenant];
  const column = selection.column;
  const own = [`${column} = ${bind(values, selection.id, 'int')}`];
  if (selection.rentalIds?.length)
    own.push(`rental_id = any(${bind(values, [...selection.rentalIds], 'int[]')})`);
  let timeline = `select ${columns} from event where tenant_id = $1 and (${own.join(' or ')})`;
  const trips = mergedTrips(selection.trips ?? []);
  if (trips.length) {
    const windows = [
      bind(
        values,
        trips.map((trip) => trip.vehicleId),
        'int[]',
      ),
      bind(
        values,
        trips.map((trip) => trip.from),
        'timestamptz[]',
      ),
      bind(
        values,
        trips.map((trip) => trip.to),
        'timestamptz[]',
      ),
    ];
    const prefixed = columns
      .split(', ')
      .map((name) => `e.${name}`)
      .join(', ');
    timeline +=
      ` union all select ${prefixed} from unnest(${windows.join(', ')}) as w(vehicle_id, from_at, to_at)` +
      ` join event e on e.tenant_id = $1 and e.vehicle_id = w.vehicle_id and e.created_at >= w.from_at and e.created_at <= w.to_at` +
      ` where not coalesce(${own.map((condition) => `e.${condition}`).join(' or ')}, false)`;
  }
  const where = `true${visibilityCondition(values, visibility)}`;
  const limit = values.length + 1;
  const [rows, [counted]] = await Promise.all([
    preparedRows<EventRow>(
      em,
      `select * from (${timeline}) t where ${where} order by id asc limit $${limit}::int offset $${limit + 1}::int`,
      [...values, page.limit, page.offset],
    ),
    preparedRows<{ total: number }>(
      em,
      `select count(*)::int as total from (${timeline}) t where ${where}`,
      values,
    ),
  ]);
  return { rows, total: counted?.total ?? 0 };
}
