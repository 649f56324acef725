// The MDS provider's reads (docs/mds.md): the vehicles of a tenant's published systems (a branch subtree
// each, FeedSystem, whose category has a feed vehicle type), their current state and last telemetry, the
// fleetflow events that move the MDS state machine, ended rentals as trips, the telemetry history, and the
// monthly report's counts. Raw SQL over the read model, tenant explicit, values bound.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BATTERY_EVENT_PREFIX,
  mdsSourceEventTypes,
  SERVICE_EVENT_PREFIX,
  type MdsPropulsionType,
  type MdsVehicleType,
} from '../domain/mds.js';
import type { BatteryLevel, ServiceStateV2, VehicleRentalState } from '../domain/vehicle.js';
import { likePrefix } from '../domain/events.js';

/**
 * The vehicles MDS publishes: in the subtree of a published system's root branch, not virtual, of a
 * category with a feed vehicle type, with a known position. `published` is the CTE's name.
 */
const publishedVehicles = `with recursive covered(id, depth) as (
    select s.root_branch_id, 0 from feed_system s where s.tenant_id = ? and s.published
    union
    select b.id, c.depth + 1 from branch b join covered c on b.parent_id = c.id
     where b.tenant_id = ? and c.depth < 32
  ),
  published as (
    select v.*, t.form_factor, t.propulsion_type, t.make, t.model
      from vehicle v
      join feed_vehicle_type t on t.tenant_id = v.tenant_id and t.category_id = v.category_id
     where v.tenant_id = ? and not v.virtual and v.latitude is not null and v.longitude is not null
       and v.branch_id in (select id from covered)
  )`;
const scope = (tenant: string) => [tenant, tenant, tenant];

/** PostgreSQL array literals (bound as one value: the driver would spread a JS array into a list). */
const intArray = (values: readonly number[]) => `{${values.map((value) => Math.trunc(value)).join(',')}}`;
const textArray = (values: readonly string[]) =>
  `{${values.map((value) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;

/** The source events' filter on `e.type` (its values first in the bound list). */
const sourceTypeFilter = `(e.type = any(?::text[]) or e.type like ? or e.type like ?)`;
const sourceTypeValues = [
  textArray(mdsSourceEventTypes),
  likePrefix(SERVICE_EVENT_PREFIX),
  likePrefix(BATTERY_EVENT_PREFIX),
];

export interface MdsVehicleRow {
  id: number;
  code: string;
  licensePlate: string | null;
  formFactor: MdsVehicleType;
  propulsionType: MdsPropulsionType;
  make: string | null;
  model: string | null;
  maxSpeedKmh: number | null;
  latitude: number;
  longitude: number;
  rentalState: VehicleRentalState;
  serviceStateV2: ServiceStateV2;
  batteryLevel: BatteryLevel;
  offline: boolean;
  stateOfCharge: number | null;
  createdAt: Date;
  updatedAt: Date;
}

const vehicleColumns = `p.id, p.code, p.license_plate as "licensePlate", p.form_factor as "formFactor",
  p.propulsion_type as "propulsionType", p.make, p.model, p.max_speed_kmh as "maxSpeedKmh", p.latitude,
  p.longitude, p.rental_state as "rentalState", p.service_state_v2 as "serviceStateV2",
  p.battery_level as "batteryLevel", p.offline, p.state_of_charge as "stateOfCharge",
  p.created_at as "createdAt", p.updated_at as "updatedAt"`;

/** Ids of every published vehicle of the tenant (device_id lookups derive their ids from them). */
export async function publishedVehicleIds(em: EntityManager, tenant: string): Promise<number[]> {
  const rows = await em.execute<{ id: number }[]>(
    `${publishedVehicles} select id from published order by id`,
    scope(tenant),
  );
  return rows.map((row) => Number(row.id));
}

/** One page of published vehicles (by id), or the given ones, with the total. */
export async function publishedVehiclePage(
  em: EntityManager,
  tenant: string,
  page: { offset: number; size: number } | { ids: number[] },
): Promise<{ rows: MdsVehicleRow[]; total: number }> {
  const byIds = 'ids' in page;
  const rows = await em.execute<(MdsVehicleRow & { total: string })[]>(
    `${publishedVehicles}
     select ${vehicleColumns}, count(*) over () as total from published p
      ${byIds ? 'where p.id = any(?::int[])' : ''} order by p.id ${byIds ? '' : 'offset ? limit ?'}`,
    [...scope(tenant), ...(byIds ? [intArray(page.ids)] : [page.offset, page.size])],
  );
  const total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && !byIds && page.offset > 0) {
    const [count] = await em.execute<{ total: string }[]>(
      `${publishedVehicles} select count(*) as total from published`,
      scope(tenant),
    );
    return { rows: [], total: Number(count?.total ?? 0) };
  }
  return { rows: rows.map(({ total: _total, ...row }) => ({ ...row, id: Number(row.id) })), total };
}

/** What `/vehicles/status` needs beside the vehicle: its open rental, last source event and telemetry. */
export interface MdsStatusExtras {
  vehicleId: number;
  openRentalId: number | null;
  lastEventId: string | null;
  lastEventAt: Date | null;
  lastEventPosition: { lat: number; lng: number } | null;
  telemetryId: string | null;
  telemetryAt: Date | null;
  telemetryLatitude: number | null;
  telemetryLongitude: number | null;
  telemetrySpeedKmh: number | null;
  telemetryStateOfCharge: number | null;
}

/** The open rental, newest source event and newest telemetry of each of the given vehicles. */
export async function statusExtras(
  em: EntityManager,
  tenant: string,
  vehicleIds: number[],
): Promise<Map<number, MdsStatusExtras>> {
  const rows = await em.execute<MdsStatusExtras[]>(
    `select v.id as "vehicleId", r.id as "openRentalId", le.id as "lastEventId", le.created_at as "lastEventAt",
            le.vehicle_position as "lastEventPosition", lt.id as "telemetryId", lt.reported_at as "telemetryAt",
            lt.latitude as "telemetryLatitude", lt.longitude as "telemetryLongitude",
            lt.speed_kmh as "telemetrySpeedKmh", lt.state_of_charge as "telemetryStateOfCharge"
       from unnest(?::int[]) as v(id)
       left join rental r on r.tenant_id = ? and r.vehicle_id = v.id and r.state in ('RESERVATION', 'ACTIVE')
       left join lateral (
         select e.id, e.created_at, e.vehicle_position from event e
          where e.tenant_id = ? and e.vehicle_id = v.id and ${sourceTypeFilter}
          order by e.created_at desc, e.id desc limit 1) le on true
       left join lateral (
         select t.id, t.reported_at, t.latitude, t.longitude, t.speed_kmh, t.state_of_charge
           from vehicle_telemetry t where t.tenant_id = ? and t.vehicle_id = v.id
          order by t.reported_at desc limit 1) lt on true`,
    [intArray(vehicleIds), tenant, tenant, ...sourceTypeValues, tenant],
  );
  return new Map(rows.map((row) => [Number(row.vehicleId), { ...row, vehicleId: Number(row.vehicleId) }]));
}

/** A fleetflow event that may move the MDS state machine. */
export interface MdsSourceEvent {
  id: string;
  type: string;
  createdAt: Date;
  vehicleId: number;
  rentalId: number | null;
  vehiclePosition: { lat: number; lng: number } | null;
  position: { lat: number; lng: number } | null;
  payload: Record<string, unknown> | null;
}

/**
 * The published vehicles with source events in `[from, to)`: their count, and the ids of one page of them
 * (by id). The events endpoints page by vehicle: a page holds every event of its vehicles.
 */
export async function vehiclesWithEvents(
  em: EntityManager,
  tenant: string,
  window: { from: Date; to: Date },
  page: { offset: number; size: number },
): Promise<{ ids: number[]; total: number }> {
  const rows = await em.execute<{ id: number; total: string }[]>(
    `${publishedVehicles}
     select p.id, count(*) over () as total from published p
      where exists (select 1 from event e where e.tenant_id = ? and e.vehicle_id = p.id
                       and e.created_at >= ? and e.created_at < ? and ${sourceTypeFilter})
      order by p.id offset ? limit ?`,
    [...scope(tenant), tenant, window.from, window.to, ...sourceTypeValues, page.offset, page.size],
  );
  return { ids: rows.map((row) => Number(row.id)), total: rows[0] ? Number(rows[0].total) : 0 };
}

const sourceEventColumns = `e.id, e.type, e.created_at as "createdAt", e.vehicle_id as "vehicleId",
  e.rental_id as "rentalId", e.vehicle_position as "vehiclePosition", e.position, e.payload`;

/** The source events of the given vehicles in `[from, to)`, in order per vehicle. */
export async function sourceEvents(
  em: EntityManager,
  tenant: string,
  vehicleIds: number[],
  window: { from: Date; to: Date },
): Promise<MdsSourceEvent[]> {
  const rows = await em.execute<MdsSourceEvent[]>(
    `select ${sourceEventColumns} from event e
      where e.tenant_id = ? and e.vehicle_id = any(?::int[]) and e.created_at >= ? and e.created_at < ?
        and ${sourceTypeFilter}
      order by e.vehicle_id, e.created_at, e.id`,
    [tenant, intArray(vehicleIds), window.from, window.to, ...sourceTypeValues],
  );
  return rows.map((row) => ({ ...row, id: String(row.id), vehicleId: Number(row.vehicleId) }));
}

/** The families of source events whose last one before a window seeds each vehicle's fold. */
export type SourceFamily = 'rental' | 'service' | 'battery' | 'connectivity';

/**
 * Per vehicle, the last source event of each family before `at` and the first at or after it (the state
 * the window starts from, docs/mds.md).
 */
export async function sourceEventsAround(
  em: EntityManager,
  tenant: string,
  vehicleIds: number[],
  at: Date,
): Promise<
  Array<{
    vehicleId: number;
    family: SourceFamily;
    type: string;
    payload: Record<string, unknown> | null;
    before: boolean;
  }>
> {
  const [before, after] = await Promise.all([
    nearestSourceEvents(em, tenant, vehicleIds, at, 'before'),
    nearestSourceEvents(em, tenant, vehicleIds, at, 'after'),
  ]);
  return [
    ...before.map((row) => ({ ...row, before: true })),
    ...after.map((row) => ({ ...row, before: false })),
  ];
}

async function nearestSourceEvents(
  em: EntityManager,
  tenant: string,
  vehicleIds: number[],
  at: Date,
  side: 'before' | 'after',
): Promise<
  Array<{ vehicleId: number; family: SourceFamily; type: string; payload: Record<string, unknown> | null }>
> {
  const rentalTypes = mdsSourceEventTypes.filter((type) => type.startsWith('RENTAL_'));
  const [condition, order] = side === 'before' ? ['e.created_at < ?', 'desc'] : ['e.created_at >= ?', 'asc'];
  const rows = await em.execute<
    { vehicleId: number; family: SourceFamily; type: string; payload: Record<string, unknown> | null }[]
  >(
    `select v.id as "vehicleId", f.family, x.type, x.payload
       from unnest(?::int[]) as v(id)
      cross join (values ('rental'), ('service'), ('battery'), ('connectivity')) as f(family)
      cross join lateral (
        select e.type, e.payload from event e
         where e.tenant_id = ? and e.vehicle_id = v.id and ${condition}
           and case f.family when 'rental' then e.type = any(?::text[])
                             when 'service' then e.type like ?
                             when 'battery' then e.type like ?
                             else e.type in ('VEHICLE_ONLINE', 'VEHICLE_OFFLINE') end
         order by e.created_at ${order}, e.id ${order} limit 1) x`,
    [
      intArray(vehicleIds),
      tenant,
      at,
      textArray(rentalTypes),
      likePrefix(SERVICE_EVENT_PREFIX),
      likePrefix(BATTERY_EVENT_PREFIX),
    ],
  );
  return rows.map((row) => ({ ...row, vehicleId: Number(row.vehicleId) }));
}

/** An ended rental of a published vehicle, as an MDS trip. */
export interface MdsTripRow {
  rentalId: number;
  vehicleId: number;
  formFactor: MdsVehicleType;
  startedAt: Date;
  endedAt: Date;
  startPosition: { lat: number; lng: number };
  endPosition: { lat: number; lng: number };
  startOdometerKm: number | null;
  endOdometerKm: number | null;
  /** The rental's invoice, when it was billed: its currency and gross total (decimal text). */
  currency: string | null;
  totalGross: string | null;
}

/** One page of the rentals of published vehicles that ended in `[from, to)` after starting (by rental id). */
export async function endedTrips(
  em: EntityManager,
  tenant: string,
  window: { from: Date; to: Date },
  page: { offset: number; size: number },
): Promise<{ rows: MdsTripRow[]; total: number }> {
  const rows = await em.execute<(MdsTripRow & { total: string })[]>(
    `${publishedVehicles}
     select r.id as "rentalId", r.vehicle_id as "vehicleId", p.form_factor as "formFactor",
            r.started_at as "startedAt", r.ended_at as "endedAt", r.start_position as "startPosition",
            r.end_position as "endPosition", r.start_odometer_km as "startOdometerKm",
            r.end_odometer_km as "endOdometerKm", i.currency, i.total_gross::text as "totalGross",
            count(*) over () as total
       from rental r join published p on p.id = r.vehicle_id
       left join invoice i on i.tenant_id = r.tenant_id and i.id = r.invoice_id
      where r.tenant_id = ? and r.state in ('ENDED', 'ENDED_NO_MOVEMENT') and r.started_at is not null
        and r.ended_at >= ? and r.ended_at < ?
        and r.start_position is not null and r.end_position is not null
      order by r.id offset ? limit ?`,
    [...scope(tenant), tenant, window.from, window.to, page.offset, page.size],
  );
  return {
    rows: rows.map(({ total: _total, ...row }) => ({
      ...row,
      rentalId: Number(row.rentalId),
      vehicleId: Number(row.vehicleId),
    })),
    total: rows[0] ? Number(rows[0].total) : 0,
  };
}

/** The positions a rental's vehicle reported while it ran (its route), in order, per rental. */
export async function tripRoutes(
  em: EntityManager,
  tenant: string,
  rentalIds: number[],
): Promise<Map<number, Array<{ lat: number; lng: number }>>> {
  const rows = await em.execute<{ rentalId: number; lat: number; lng: number }[]>(
    `select r.id as "rentalId", t.latitude as lat, t.longitude as lng
       from rental r join vehicle_telemetry t
         on t.tenant_id = r.tenant_id and t.vehicle_id = r.vehicle_id
        and t.reported_at >= r.started_at and t.reported_at <= r.ended_at
      where r.tenant_id = ? and r.id = any(?::int[])
      order by r.id, t.reported_at, t.id`,
    [tenant, intArray(rentalIds)],
  );
  const routes = new Map<number, Array<{ lat: number; lng: number }>>();
  for (const row of rows) {
    const id = Number(row.rentalId);
    routes.set(id, [...(routes.get(id) ?? []), { lat: row.lat, lng: row.lng }]);
  }
  return routes;
}

/** One telemetry message of a published vehicle, with the rental it belongs to (if any). */
export interface MdsTelemetryRow {
  id: string;
  vehicleId: number;
  reportedAt: Date;
  latitude: number;
  longitude: number;
  speedKmh: number | null;
  stateOfCharge: number | null;
  rentalId: number | null;
}

/** One page of the telemetry of published vehicles reported in `[from, to)` (by id). */
export async function telemetryPage(
  em: EntityManager,
  tenant: string,
  window: { from: Date; to: Date },
  page: { offset: number; size: number },
): Promise<{ rows: MdsTelemetryRow[]; total: number }> {
  const rows = await em.execute<(MdsTelemetryRow & { total: string })[]>(
    `${publishedVehicles}
     select t.id, t.vehicle_id as "vehicleId", t.reported_at as "reportedAt", t.latitude, t.longitude,
            t.speed_kmh as "speedKmh", t.state_of_charge as "stateOfCharge", r.id as "rentalId",
            count(*) over () as total
       from vehicle_telemetry t
       join published p on p.id = t.vehicle_id
       left join rental r on r.tenant_id = t.tenant_id and r.vehicle_id = t.vehicle_id
        and r.started_at <= t.reported_at and (r.ended_at is null or r.ended_at > t.reported_at)
      where t.tenant_id = ? and t.reported_at >= ? and t.reported_at < ?
      order by t.id offset ? limit ?`,
    [...scope(tenant), tenant, window.from, window.to, page.offset, page.size],
  );
  return {
    rows: rows.map(({ total: _total, ...row }) => ({
      ...row,
      id: String(row.id),
      vehicleId: Number(row.vehicleId),
      rentalId: row.rentalId === null ? null : Number(row.rentalId),
    })),
    total: rows[0] ? Number(rows[0].total) : 0,
  };
}

/** Trips started in `[from, to)` by published vehicles, and their distinct riders, per vehicle type. */
export async function monthlyTripCounts(
  em: EntityManager,
  tenant: string,
  window: { from: Date; to: Date },
): Promise<Array<{ vehicleType: MdsVehicleType; trips: number; riders: number }>> {
  const rows = await em.execute<{ vehicleType: MdsVehicleType; trips: string; riders: string }[]>(
    `${publishedVehicles}
     select p.form_factor as "vehicleType", count(*) as trips, count(distinct r.customer_id) as riders
       from rental r join published p on p.id = r.vehicle_id
      where r.tenant_id = ? and r.started_at >= ? and r.started_at < ?
      group by p.form_factor order by p.form_factor`,
    [...scope(tenant), tenant, window.from, window.to],
  );
  return rows.map((row) => ({
    vehicleType: row.vehicleType,
    trips: Number(row.trips),
    riders: Number(row.riders),
  }));
}
