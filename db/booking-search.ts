// The read side of bookings: availability days, drop-off slots, the categories and stations a window can
// be booked at, utilization, a station's capacity forecast and conflicts. Each loads a station's pool and
// flows once (db/booking-availability.ts) and evaluates them in memory with the same rules admission uses
// (domain/booking.ts), so a search answers what a creation would decide.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { BookingStation } from './entities/BookingStation.js';
import { PricingAssignment } from './entities/PricingAssignment.js';
import { PricingBundleVersion } from './entities/PricingBundleVersion.js';
import { VehicleCategory } from './entities/VehicleCategory.js';
import { type Branch } from './entities/Branch.js';
import {
  bookingStationOf,
  capacityConflict,
  goneServiceStates,
  loadPool,
  loadStationFlows,
  openingConflicts,
  poolConflict,
  stationCooldowns,
  type BookingConflict,
  type LoadedPool,
} from './booking-availability.js';
import { branchAncestry, branchWithDescendants } from './branches.js';
import { categoryReadiness } from './categories.js';
import { readCacheOf } from './read-cache.js';
import { effectiveSetting, settingOrDefaults } from './settings.js';
import { isDomainError, DomainError } from '../domain/errors.js';
import { applicableVersion } from '../domain/pricing-versions.js';
import type { PricingVersionStatus } from '../domain/pricing.js';
import { requirementsFor, RENTAL_REQUIREMENTS_SETTING_KEY } from '../domain/rental-requirements.js';
import {
  BOOKING_SETTINGS_KEY,
  defaultBookingSettings,
  expectedVehicles,
  heldInterval,
  holdingBookingStates,
  isOpenAt,
  mostFreeDuring,
  nextDate,
  openSpanOfDay,
  poolRemaining,
  weekdayOfDate,
  zonedInstant,
  type BookingSettings,
  type Interval,
} from '../domain/booking.js';
import { operationalServiceStates } from '../domain/vehicle.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const holdingStatesSql = holdingBookingStates.map((state) => `'${state}'`).join(', ');
const goneStatesSql = goneServiceStates.map((state) => `'${state}'`).join(', ');

/** The booking settings of a branch (the `booking.settings` setting over the defaults). */
export const bookingSettingsOf = (
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<BookingSettings> =>
  settingOrDefaults(em, tenant, BOOKING_SETTINGS_KEY, branchId, defaultBookingSettings);

/** A booking station by its branch id, or S404 (for the `/booking-stations/{bookingStationId}` paths). */
export async function loadBookingStation(em: EntityManager, branchId: number): Promise<BookingStation> {
  const station = await em.findOne(BookingStation, { branch: branchId }, { populate: ['branch'] });
  if (!station) throw new DomainError('S404', `booking station ${branchId} not found`);
  return station;
}

/** The booking stations among a branch and (optionally) its descendants. */
export async function stationsUnder(
  em: EntityManager,
  tenant: string,
  branchId: number,
  includeChildBranches: boolean,
): Promise<BookingStation[]> {
  const branches = includeChildBranches ? await branchWithDescendants(em, tenant, branchId) : [branchId];
  return em.find(
    BookingStation,
    { branch: { $in: branches } },
    { populate: ['branch'], orderBy: { branch: { name: 'asc' }, id: 'asc' } },
  );
}

/** Filters of the categories a station offers (both default true in the spec). */
export interface CategoryFilters {
  /** Only categories with a published BOOKING pricing applying at the station at `at`. */
  withPricingOnly: boolean;
  /** Only categories whose rental requirements at the station resolve (docs/bookings.md). */
  withRentalRequirementsOnly: boolean;
  at: Date;
}

/** What deciding a station's bookable categories needs, loaded together (and read-cached briefly). */
interface StationCategoryFacts {
  categories: VehicleCategory[];
  /** Category id → the BOOKING bundle assigned at the station or its nearest ancestor. */
  bundleOf: Map<number, number>;
  /** Published (or superseded, expired) versions of those bundles. */
  versions: Array<{
    bundleId: number;
    id: number;
    status: PricingVersionStatus;
    effectiveFrom: number | null;
    validUntil: number | null;
  }>;
  requirementsSetting: unknown;
}

async function loadStationCategoryFacts(
  em: EntityManager,
  tenant: string,
  station: BookingStation,
): Promise<StationCategoryFacts> {
  const offered = station.vehicleCategoryIds;
  const categories = await em.find(
    VehicleCategory,
    offered.length ? { bookable: true, id: { $in: offered } } : { bookable: true },
    { orderBy: { name: 'asc', id: 'asc' } },
  );
  const ancestry = await branchAncestry(em, tenant, station.branch.id);
  const assignments = categories.length
    ? await em.find(PricingAssignment, {
        branch: { $in: ancestry },
        bundleType: 'BOOKING',
        vehicleCategory: { $in: categories.map((category) => category.id) },
      })
    : [];
  const bundleOf = new Map<number, number>();
  for (const category of categories)
    for (const id of ancestry) {
      const row = assignments.find(
        (assignment) => assignment.branch.id === id && assignment.vehicleCategory.id === category.id,
      );
      if (row) {
        bundleOf.set(category.id, row.bundle.id);
        break;
      }
    }
  const versions = bundleOf.size
    ? await em.find(
        PricingBundleVersion,
        {
          bundle: { $in: [...new Set(bundleOf.values())] },
          status: { $in: ['PUBLISHED', 'SUPERSEDED', 'EXPIRED'] },
        },
        { fields: ['id', 'status', 'effectiveFrom', 'validUntil', 'bundle'] },
      )
    : [];
  const setting = await effectiveSetting(em, tenant, RENTAL_REQUIREMENTS_SETTING_KEY, station.branch.id);
  return {
    categories,
    bundleOf,
    versions: versions.map((version) => ({
      bundleId: version.bundle.id,
      id: version.id,
      status: version.status,
      effectiveFrom: version.effectiveFrom?.getTime() ?? null,
      validUntil: version.validUntil?.getTime() ?? null,
    })),
    requirementsSetting: setting?.value,
  };
}

/**
 * Categories generally bookable at a station: bookable categories the station offers (all of them when it
 * names none), optionally only those with BOOKING pricing applying at `at` and resolvable rental
 * requirements there: the resolution of `pricingForBranch` and `requirementsConfigFor` for every category
 * at once. The facts come from the read cache (db/read-cache.ts, at most 2 s old) outside transactions;
 * admission never depends on them.
 */
export async function bookableCategories(
  em: EntityManager,
  tenant: string,
  station: BookingStation,
  filters: CategoryFilters,
): Promise<VehicleCategory[]> {
  const facts = await readCacheOf(em).get(em, `booking-categories:${tenant}:${station.branch.id}`, () =>
    loadStationCategoryFacts(em, tenant, station),
  );
  const readiness = filters.withRentalRequirementsOnly ? await categoryReadiness(em) : undefined;
  return facts.categories.filter((category) => {
    if (filters.withPricingOnly) {
      const bundleId = facts.bundleOf.get(category.id);
      const versions = facts.versions.filter((version) => version.bundleId === bundleId);
      if (bundleId === undefined || !applicableVersion(versions, filters.at.getTime())) return false;
    }
    if (readiness) {
      const key = readiness.get(category.id)?.configuration.rentalRequirementsKey;
      try {
        if (key !== undefined && requirementsFor(facts.requirementsSetting, key).profile === null)
          return false;
      } catch (error) {
        if (isDomainError(error)) return false;
        throw error;
      }
    }
    return true;
  });
}

/** One category's availability on one local day at a station. */
export interface CategoryDay {
  vehicleCategoryId: number;
  /** Usable vehicles of the category at the station (out of order ones included: they may be back). */
  vehicles: number;
  /** Bookings covering the whole open span of the day the pool can still take. */
  bookableForWholeDay: number;
  /** Most vehicles free at one moment of the open span: bookable at some time of the day. */
  bookableAtSomeTime: number;
  available: boolean;
}

/** One local day at a station. */
export interface AvailabilityDay {
  date: string;
  open: boolean;
  /** The open span of the day (earliest opening to latest closing), null when closed. */
  openFrom: string | null;
  openUntil: string | null;
  categories: CategoryDay[];
}

/**
 * Availability per local day (station time zone) and category over `fromDate`–`toDate` (inclusive): for
 * each day the pool is loaded once for the whole range and evaluated per day in memory.
 */
export async function availabilityDays(
  em: EntityManager,
  tenant: string,
  station: BookingStation,
  categoryIds: readonly number[],
  fromDate: string,
  toDate: string,
): Promise<AvailabilityDay[]> {
  const timeZone = station.branch.timeZoneId;
  const days: string[] = [];
  for (let date = fromDate; date <= toDate; date = nextDate(date)) days.push(date);
  // Days widened by the longest cooldown a booking here can get: the holds a whole-day booking would meet.
  const padMs =
    Math.max(
      station.startCooldownMinutes,
      station.endCooldownMinutes,
      ...Object.values(station.categoryCooldowns).flatMap((override) => [
        override.startCooldownMinutes ?? 0,
        override.endCooldownMinutes ?? 0,
      ]),
    ) * MINUTE_MS;
  const span: Interval = {
    startMs: zonedInstant(fromDate, 0, timeZone) - padMs,
    endMs: zonedInstant(toDate, 24 * 60, timeZone) + padMs,
  };
  const pools = new Map<number, LoadedPool>();
  for (const categoryId of categoryIds)
    pools.set(
      categoryId,
      await loadPool(em, tenant, { branchId: station.branch.id, vehicleCategoryId: categoryId }, span, {
        skipHoldsWithoutVehicles: true,
      }),
    );
  return days.map((date) => {
    const openSpan = openSpanOfDay(station.openingHours, weekdayOfDate(date));
    const iso = (minutes: number) => new Date(zonedInstant(date, minutes, timeZone)).toISOString();
    const window: Interval | undefined = openSpan && {
      startMs: zonedInstant(date, openSpan.fromMinutes, timeZone),
      endMs: zonedInstant(date, openSpan.toMinutes, timeZone),
    };
    return {
      date,
      open: window !== undefined,
      openFrom: openSpan ? iso(openSpan.fromMinutes) : null,
      openUntil: openSpan ? iso(openSpan.toMinutes) : null,
      categories: categoryIds.map((vehicleCategoryId) => {
        const pool = pools.get(vehicleCategoryId)!;
        if (!window)
          return {
            vehicleCategoryId,
            vehicles: pool.usableVehicleIds.length,
            bookableForWholeDay: 0,
            bookableAtSomeTime: 0,
            available: false,
          };
        const held = heldInterval(window, stationCooldowns(station, station, vehicleCategoryId));
        const wholeDay = poolRemaining(pool.usableVehicleIds, pool.holds, held).remaining;
        const someTime = mostFreeDuring(pool.usableVehicleIds, pool.holds, window);
        return {
          vehicleCategoryId,
          vehicles: pool.usableVehicleIds.length,
          bookableForWholeDay: wholeDay,
          bookableAtSomeTime: someTime,
          available: someTime > 0,
        };
      }),
    };
  });
}

/** What a drop-off slot search asks: a start, stations, a category and the span of returns to offer. */
export interface DropoffSlotQuery {
  tenant: string;
  branchId: number;
  endBranchId: number;
  vehicleCategoryId: number;
  vehicleId?: number | null;
  startMs: number;
  /** Offer returns up to this instant (bounded by the settings' longest booking). */
  untilMs: number;
  excludeBookingId?: number;
}

/** One possible return time at the end station. */
export interface DropoffSlot {
  endTime: string;
  available: boolean;
  conflicts: BookingConflict[];
}

/**
 * Return times at the end station for a booking starting at `startMs`, every `dropoffSlotMinutes` (on the
 * clock's grid) from the shortest booking on: each says whether a booking to then could be made now
 * (opening hours, the pool with cooldowns, the end station's capacity), from one load of pool and flows.
 */
export async function dropoffSlots(
  em: EntityManager,
  query: DropoffSlotQuery,
): Promise<{ slotMinutes: number; slots: DropoffSlot[] }> {
  const start = await bookingStationOf(em, query.branchId, query.vehicleCategoryId);
  const end = query.endBranchId === query.branchId ? start : await bookingStationOf(em, query.endBranchId);
  const settings = await bookingSettingsOf(em, query.tenant, query.branchId);
  const slotMs = Math.max(5, settings.dropoffSlotMinutes) * MINUTE_MS;
  const cooldowns = stationCooldowns(start, end, query.vehicleCategoryId);
  const firstMs = Math.ceil((query.startMs + settings.minDurationMinutes * MINUTE_MS) / slotMs) * slotMs;
  const lastMs = Math.min(query.untilMs, query.startMs + settings.maxDurationDays * DAY_MS);
  const pool = await loadPool(
    em,
    query.tenant,
    query,
    heldInterval({ startMs: query.startMs, endMs: lastMs }, cooldowns),
  );
  const oneWay = query.endBranchId !== query.branchId;
  const flows =
    oneWay && end.capacity != null ? await loadStationFlows(em, query.tenant, end.branch.id) : undefined;
  const slots: DropoffSlot[] = [];
  for (let endMs = firstMs; endMs <= lastMs && slots.length < 2000; endMs += slotMs) {
    const window = { startMs: query.startMs, endMs };
    const conflicts = openingConflicts(start, end, window);
    const inPool = poolConflict(pool, {
      window,
      held: heldInterval(window, cooldowns),
      vehicleId: query.vehicleId,
      excludeBookingId: query.excludeBookingId,
    });
    if (inPool) conflicts.push(inPool);
    const capacity = flows && capacityConflict(end, flows, endMs, query.excludeBookingId);
    if (capacity) conflicts.push(capacity);
    slots.push({ endTime: new Date(endMs).toISOString(), available: conflicts.length === 0, conflicts });
  }
  return { slotMinutes: slotMs / MINUTE_MS, slots };
}

/** A window asked of several categories or stations (no named vehicle). */
export interface WindowQuery {
  tenant: string;
  branchId: number;
  endBranchId: number;
  window: Interval;
  excludeBookingId?: number;
}

/** For each category, how many more bookings the window takes and its conflicts (empty: bookable). */
export async function categoryAvailability(
  em: EntityManager,
  query: WindowQuery,
  categoryIds: readonly number[],
  startStation?: BookingStation,
): Promise<Array<{ vehicleCategoryId: number; remaining: number; conflicts: BookingConflict[] }>> {
  const start = startStation ?? (await bookingStationOf(em, query.branchId));
  const end = query.endBranchId === query.branchId ? start : await bookingStationOf(em, query.endBranchId);
  const opening = openingConflicts(start, end, query.window);
  const oneWay = query.endBranchId !== query.branchId;
  const flows =
    oneWay && end.capacity != null ? await loadStationFlows(em, query.tenant, end.branch.id) : undefined;
  const capacity = flows && capacityConflict(end, flows, query.window.endMs, query.excludeBookingId);
  const answers = [];
  for (const vehicleCategoryId of categoryIds) {
    const held = heldInterval(query.window, stationCooldowns(start, end, vehicleCategoryId));
    const pool = await loadPool(em, query.tenant, { branchId: query.branchId, vehicleCategoryId }, held, {
      skipHoldsWithoutVehicles: true,
    });
    const others = pool.holds.filter((hold) => hold.bookingId !== query.excludeBookingId);
    const inPool = poolConflict(pool, {
      window: query.window,
      held,
      excludeBookingId: query.excludeBookingId,
    });
    answers.push({
      vehicleCategoryId,
      remaining: poolRemaining(pool.usableVehicleIds, others, held).remaining,
      conflicts: [...opening, ...(inPool ? [inPool] : []), ...(capacity ? [capacity] : [])],
    });
  }
  return answers;
}

/** One point of a station's capacity forecast. */
export interface ForecastPoint {
  at: string;
  /** Vehicles expected at the station (one-way bookings in and out applied), out of order ones included. */
  expectedVehicles: number;
  /** Spaces taken: expected vehicles, counting vehicles out of order now, which stay parked. */
  occupiedCapacity: number;
  /** Of those, vehicles out of order now. */
  outOfOrderVehicles: number;
  /** Capacity minus occupied; null for an unlimited station. */
  freeCapacity: number | null;
}

/**
 * The station's expected occupancy every `stepMinutes` over `span`: the vehicles there now, plus one-way
 * bookings returning, minus one-way bookings leaving (docs/bookings.md, "Expected vehicles").
 */
export async function capacityForecast(
  em: EntityManager,
  tenant: string,
  station: BookingStation,
  span: Interval,
  stepMinutes: number,
): Promise<ForecastPoint[]> {
  const flows = await loadStationFlows(em, tenant, station.branch.id);
  const operational = operationalServiceStates.map((state) => `'${state}'`).join(', ');
  const [row] = await em.execute<Array<{ count: string }>>(
    `select count(*) as count from vehicle
      where tenant_id = ? and branch_id = ? and virtual = false
        and service_state_v2 not in (${goneStatesSql}) and service_state_v2 not in (${operational})`,
    [tenant, station.branch.id],
  );
  const outOfOrder = Number(row?.count ?? 0);
  const points: ForecastPoint[] = [];
  for (let at = span.startMs; at <= span.endMs && points.length < 2000; at += stepMinutes * MINUTE_MS) {
    const occupied = expectedVehicles(flows.vehiclesNow, flows.flows, at).atMs;
    points.push({
      at: new Date(at).toISOString(),
      expectedVehicles: occupied - outOfOrder,
      occupiedCapacity: occupied,
      outOfOrderVehicles: outOfOrder,
      freeCapacity: station.capacity == null ? null : station.capacity - occupied,
    });
  }
  return points;
}

/** A conflict among a station's existing bookings (for operators to resolve). */
export interface StationConflict {
  conflictType: BookingConflict['conflictType'];
  errorCode: BookingConflict['errorCode'];
  at: string;
  bookingIds: number[];
  message: string;
}

interface StationBookingRow {
  id: number;
  branch_id: number;
  end_branch_id: number;
  vehicle_category_id: number;
  vehicle_id: number | null;
  start_time: Date;
  end_time: Date;
  held_from: Date;
  held_until: Date;
}

/**
 * What no longer fits among a station's holding bookings in `span` (configuration changed, vehicles went
 * out of order, outbound bookings were cancelled): arrivals over capacity (S100), pickups and returns the
 * opening hours no longer allow (S101), more vehicle-less bookings than vehicles of their category
 * (B302), delivered vehicles out of order or gone (B303).
 */
export async function stationConflicts(
  em: EntityManager,
  tenant: string,
  station: BookingStation,
  span: Interval,
): Promise<StationConflict[]> {
  const branchId = station.branch.id;
  const timeZone = station.branch.timeZoneId;
  const conflicts: StationConflict[] = [];
  const rows = await em.execute<StationBookingRow[]>(
    `select id, branch_id, end_branch_id, vehicle_category_id, vehicle_id, start_time, end_time, held_from, held_until
       from booking
      where tenant_id = ? and (branch_id = ? or end_branch_id = ?) and state in (${holdingStatesSql})
        and held_from < ? and held_until > ?
      order by start_time, id limit 5000`,
    [tenant, branchId, branchId, new Date(span.endMs), new Date(span.startMs)],
  );
  const ms = (date: Date) => new Date(date).getTime();
  for (const row of rows) {
    if (
      Number(row.branch_id) === branchId &&
      !isOpenAt(station.openingHours, timeZone, ms(row.start_time), 'pickup')
    )
      conflicts.push({
        conflictType: 'STATION_CLOSED',
        errorCode: 'S101',
        at: new Date(row.start_time).toISOString(),
        bookingIds: [Number(row.id)],
        message: `booking ${row.id} is picked up while the station is closed`,
      });
    if (
      Number(row.end_branch_id) === branchId &&
      !isOpenAt(station.openingHours, timeZone, ms(row.end_time), 'return')
    )
      conflicts.push({
        conflictType: 'STATION_CLOSED',
        errorCode: 'S101',
        at: new Date(row.end_time).toISOString(),
        bookingIds: [Number(row.id)],
        message: `booking ${row.id} is returned while the station is closed`,
      });
  }
  if (station.capacity != null) {
    const flows = await loadStationFlows(em, tenant, branchId);
    const arrivals = flows.flows.filter(
      (flow) => flow.delta > 0 && flow.atMs >= span.startMs && flow.atMs < span.endMs,
    );
    for (const arrival of arrivals) {
      const expected = expectedVehicles(flows.vehiclesNow, flows.flows, arrival.atMs).atMs;
      if (expected > station.capacity)
        conflicts.push({
          conflictType: 'STATION_CAPACITY_EXCEEDED',
          errorCode: 'S100',
          at: new Date(arrival.atMs).toISOString(),
          bookingIds: [arrival.bookingId],
          message: `${expected} vehicles expected for ${station.capacity} spaces when booking ${arrival.bookingId} returns`,
        });
    }
  }
  const outbound = rows.filter((row) => Number(row.branch_id) === branchId);
  const categoryIds = [...new Set(outbound.map((row) => Number(row.vehicle_category_id)))];
  for (const vehicleCategoryId of categoryIds) {
    const pool = await loadPool(em, tenant, { branchId, vehicleCategoryId }, span);
    const usable = new Set(pool.usableVehicleIds);
    const operational = await operationalVehicleIds(em, tenant, pool.usableVehicleIds);
    for (const hold of pool.holds) {
      if (hold.vehicleId !== null && (!usable.has(hold.vehicleId) || !operational.has(hold.vehicleId)))
        conflicts.push({
          conflictType: 'VEHICLE_UNAVAILABLE',
          errorCode: 'B303',
          at: new Date(hold.window.startMs).toISOString(),
          bookingIds: [hold.bookingId],
          message: `booking ${hold.bookingId} holds vehicle ${hold.vehicleId}, which is out of order or no longer at the station`,
        });
    }
    // Each vehicle-less hold must still find a vehicle once the others before it are served.
    const unassigned = pool.holds
      .filter((hold) => hold.vehicleId === null)
      .sort((a, b) => a.startMs - b.startMs);
    for (const hold of unassigned) {
      const { remaining } = poolRemaining(pool.usableVehicleIds, pool.holds, hold, hold.bookingId);
      if (remaining < 1)
        conflicts.push({
          conflictType: 'CATEGORY_UNAVAILABLE',
          errorCode: 'B302',
          at: new Date(hold.window.startMs).toISOString(),
          bookingIds: [hold.bookingId],
          message: `booking ${hold.bookingId} has no vehicle of category ${vehicleCategoryId} left at the station`,
        });
    }
  }
  return conflicts.sort((a, b) => a.at.localeCompare(b.at));
}

async function operationalVehicleIds(
  em: EntityManager,
  tenant: string,
  ids: readonly number[],
): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const operational = operationalServiceStates.map((state) => `'${state}'`).join(', ');
  const rows = await em.execute<Array<{ id: number }>>(
    `select id from vehicle where tenant_id = ? and id = any(?::int[]) and service_state_v2 in (${operational})`,
    [tenant, `{${ids.join(',')}}`],
  );
  return new Set(rows.map((row) => Number(row.id)));
}

/** Utilization of a station's category over a span: held vehicle-hours over available vehicle-hours. */
export interface CategoryUtilization {
  branchId: number;
  vehicleCategoryId: number;
  vehicles: number;
  bookings: number;
  heldHours: number;
  availableHours: number;
  utilization: number;
}

/** Utilization of every category with vehicles or bookings at the stations over `span` (held intervals clipped to it). */
export async function utilization(
  em: EntityManager,
  tenant: string,
  stations: readonly BookingStation[],
  span: Interval,
  vehicleCategoryId?: number,
): Promise<CategoryUtilization[]> {
  if (!stations.length) return [];
  const ids = `{${stations.map((station) => station.branch.id).join(',')}}`;
  const rows = await em.execute<
    Array<{
      branch_id: number;
      vehicle_category_id: number;
      vehicles: string;
      bookings: string;
      held_seconds: string;
    }>
  >(
    `with fleet as (
       select branch_id, category_id as vehicle_category_id, count(*) as vehicles from vehicle
        where tenant_id = ? and branch_id = any(?::int[]) and virtual = false
          and service_state_v2 not in (${goneStatesSql})
        group by branch_id, category_id),
     held as (
       select branch_id, vehicle_category_id, count(*) as bookings,
              sum(extract(epoch from least(held_until, ?::timestamptz) - greatest(held_from, ?::timestamptz))) as held_seconds
         from booking
        where tenant_id = ? and branch_id = any(?::int[]) and state in (${holdingStatesSql}, 'SUCCESSFUL')
          and held_from < ? and held_until > ?
        group by branch_id, vehicle_category_id)
     select coalesce(f.branch_id, h.branch_id) as branch_id,
            coalesce(f.vehicle_category_id, h.vehicle_category_id) as vehicle_category_id,
            coalesce(f.vehicles, 0) as vehicles, coalesce(h.bookings, 0) as bookings,
            coalesce(h.held_seconds, 0) as held_seconds
       from fleet f full join held h on f.branch_id = h.branch_id and f.vehicle_category_id = h.vehicle_category_id
      order by 1, 2`,
    [
      tenant,
      ids,
      new Date(span.endMs),
      new Date(span.startMs),
      tenant,
      ids,
      new Date(span.endMs),
      new Date(span.startMs),
    ],
  );
  const spanHours = (span.endMs - span.startMs) / 3_600_000;
  return rows
    .filter((row) => vehicleCategoryId === undefined || Number(row.vehicle_category_id) === vehicleCategoryId)
    .map((row) => {
      const vehicles = Number(row.vehicles);
      const heldHours = Math.round((Number(row.held_seconds) / 3600) * 100) / 100;
      const availableHours = Math.round(vehicles * spanHours * 100) / 100;
      return {
        branchId: Number(row.branch_id),
        vehicleCategoryId: Number(row.vehicle_category_id),
        vehicles,
        bookings: Number(row.bookings),
        heldHours,
        availableHours,
        utilization: availableHours > 0 ? Math.round((heldHours / availableHours) * 10_000) / 10_000 : 0,
      };
    });
}

/**
 * Vehicles of a station free over `span`: a vehicle whose holding booking (cooldowns included) overlaps
 * the span is left out, so a vehicle leaving on a booking is not offered while it is prepared or away.
 */
export async function freeStationVehicleIds(
  em: EntityManager,
  tenant: string,
  branchId: number,
  span: Interval | undefined,
  vehicleCategoryId?: number,
): Promise<number[]> {
  const rows = await em.execute<Array<{ id: number }>>(
    `select v.id from vehicle v
      where v.tenant_id = ? and v.branch_id = ? and v.virtual = false
        and v.service_state_v2 not in (${goneStatesSql}) and (?::int is null or v.category_id = ?::int)
        and (?::timestamptz is null or not exists (
          select 1 from booking b
           where b.tenant_id = v.tenant_id and b.vehicle_id = v.id and b.state in (${holdingStatesSql})
             and b.held_from < ?::timestamptz and b.held_until > ?::timestamptz))
      order by v.id`,
    [
      tenant,
      branchId,
      vehicleCategoryId ?? null,
      vehicleCategoryId ?? null,
      span ? new Date(span.startMs) : null,
      span ? new Date(span.endMs) : null,
      span ? new Date(span.startMs) : null,
    ],
  );
  return rows.map((row) => Number(row.id));
}

/** Branches an app may see: public and in service (as `appVisibleBranch` of the app's branch routes). */
const appVisibleStationBranch: FilterQuery<Branch> = {
  visibility: 'public',
  state: { $in: ['OPERATIONAL', 'MAINTENANCE', 'HIBERNATION'] },
};

/** Booking stations apps may see, optionally only those under one parent branch (a city). */
export async function appVisibleStations(
  em: EntityManager,
  parentBranchId?: number,
): Promise<BookingStation[]> {
  const branch: FilterQuery<Branch> =
    parentBranchId === undefined
      ? appVisibleStationBranch
      : { $and: [appVisibleStationBranch, { parent: parentBranchId }] };
  return em.find(
    BookingStation,
    { branch },
    { populate: ['branch'], orderBy: { branch: { name: 'asc' }, id: 'asc' }, limit: 500 },
  );
}
