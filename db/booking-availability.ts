// Whether a booking window can be held: the vehicle named, or one unit of the category's pool at the
// station. Creation, update, delivery and extension all pass through `checkBookingAdmission` inside their
// transaction; it serialises every decision about one (station, category) with a transaction-scoped
// advisory lock, so concurrent requests for the last vehicle decide one after the other and exactly one
// wins. The exclusion constraint `booking_vehicle_hold_excl` (migration `bookings`) is the backstop for
// a named vehicle.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BookingStation } from './entities/BookingStation.js';
import { Vehicle } from './entities/Vehicle.js';
import {
  expectedVehicles,
  freeCapacity,
  heldInterval,
  holdingBookingStates,
  isOpenAt,
  overlaps,
  poolRemaining,
  type BookingConflictType,
  type Interval,
  type PoolHold,
  type StationFlow,
} from '../domain/booking.js';
import type { ServiceStateV2 } from '../domain/vehicle.js';
import { DomainError } from '../domain/errors.js';

/** Service states of vehicles that never come back: they count for no booking. */
export const goneServiceStates: readonly ServiceStateV2[] = ['RETIRED', 'DEFLEETED', 'LOST', 'UNREPAIRABLE'];

const holdingStatesSql = holdingBookingStates.map((state) => `'${state}'`).join(', ');
/** An instant column as epoch milliseconds. */
const epochMs = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;
const goneStatesSql = goneServiceStates.map((state) => `'${state}'`).join(', ');

/** The booking station behind a branch (B315 when the branch is none, or does not offer the category). */
export async function bookingStationOf(
  em: EntityManager,
  branchId: number,
  vehicleCategoryId?: number,
): Promise<BookingStation> {
  const station = await em.findOne(BookingStation, { branch: branchId }, { populate: ['branch'] });
  if (!station) throw new DomainError('B315', `branch ${branchId} is not a booking station`);
  if (
    vehicleCategoryId !== undefined &&
    station.vehicleCategoryIds.length > 0 &&
    !station.vehicleCategoryIds.includes(vehicleCategoryId)
  )
    throw new DomainError('B315', `station ${branchId} does not offer vehicle category ${vehicleCategoryId}`);
  return station;
}

/** Cooldown minutes a booking of a category gets at its start and end stations. */
export function stationCooldowns(
  start: BookingStation,
  end: BookingStation,
  vehicleCategoryId: number,
): { startStationCooldownMinutes: number; endStationCooldownMinutes: number } {
  const startOverride = start.categoryCooldowns[String(vehicleCategoryId)];
  const endOverride = end.categoryCooldowns[String(vehicleCategoryId)];
  return {
    startStationCooldownMinutes: startOverride?.startCooldownMinutes ?? start.startCooldownMinutes,
    endStationCooldownMinutes: endOverride?.endCooldownMinutes ?? end.endCooldownMinutes,
  };
}

/** What a window asks to hold: at a station, of a category, optionally a named vehicle. */
export interface BookingCandidate {
  tenant: string;
  branchId: number;
  /** Return station (the start station for a round trip): its capacity and opening hours apply at endTime. */
  endBranchId: number;
  /** The booking window itself (pickup at startMs, return at endMs). */
  window: Interval;
  vehicleCategoryId: number;
  vehicleId?: number | null;
  /** The held interval: the window widened by the cooldowns. */
  held: Interval;
  /** On update: the booking itself, whose own hold does not count against it. */
  excludeBookingId?: number;
}

/** A pool of one category at one station over a held interval. */
export type PoolQuery = Pick<
  BookingCandidate,
  'tenant' | 'branchId' | 'vehicleCategoryId' | 'held' | 'excludeBookingId'
>;

/** Serialises admission decisions about one station and category until the transaction ends. */
export async function lockStationCategory(
  tx: EntityManager,
  tenant: string,
  branchId: number,
  vehicleCategoryId: number,
): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [
    `booking:${tenant}:${branchId}:${vehicleCategoryId}`,
  ]);
}

/** Vehicles of the station's category pool that no holding booking holds during `held`. */
export async function freeVehicleIds(em: EntityManager, candidate: PoolQuery): Promise<number[]> {
  const rows = await em.execute<Array<{ id: number }>>(
    `select v.id from vehicle v
      where v.tenant_id = ? and v.branch_id = ? and v.category_id = ? and v.virtual = false
        and v.service_state_v2 not in (${goneStatesSql})
        and not exists (
          select 1 from booking b
           where b.tenant_id = v.tenant_id and b.vehicle_id = v.id and b.state in (${holdingStatesSql})
             and b.held_from < ? and b.held_until > ? and b.id <> ?)
      order by v.id`,
    [
      candidate.tenant,
      candidate.branchId,
      candidate.vehicleCategoryId,
      new Date(candidate.held.endMs),
      new Date(candidate.held.startMs),
      candidate.excludeBookingId ?? -1,
    ],
  );
  return rows.map((row) => row.id);
}

/** Holds of the category's bookings at the station that have no vehicle yet, overlapping `held`. */
export async function unassignedHolds(em: EntityManager, candidate: PoolQuery): Promise<Interval[]> {
  const rows = await em.execute<Array<{ held_from: Date; held_until: Date }>>(
    `select held_from, held_until from booking
      where tenant_id = ? and branch_id = ? and vehicle_category_id = ? and vehicle_id is null
        and state in (${holdingStatesSql}) and held_from < ? and held_until > ? and id <> ?`,
    [
      candidate.tenant,
      candidate.branchId,
      candidate.vehicleCategoryId,
      new Date(candidate.held.endMs),
      new Date(candidate.held.startMs),
      candidate.excludeBookingId ?? -1,
    ],
  );
  return rows.map((row) => ({
    startMs: new Date(row.held_from).getTime(),
    endMs: new Date(row.held_until).getTime(),
  }));
}

/** How many more bookings without a named vehicle the pool can take for `held`. */
export async function poolCapacity(
  em: EntityManager,
  candidate: PoolQuery,
): Promise<{ freeVehicleIds: number[]; remaining: number }> {
  const free = await freeVehicleIds(em, candidate);
  const unassigned = await unassignedHolds(em, candidate);
  return { freeVehicleIds: free, remaining: freeCapacity(free.length, candidate.held, unassigned) };
}

/**
 * Refuses a vehicle that cannot serve a booking at the station (B309): another station, another
 * category, virtual or gone for good.
 */
export function assertVehicleSuits(
  vehicle: Vehicle,
  booking: { branchId: number; vehicleCategoryId: number },
): void {
  const problem =
    vehicle.branch.id !== booking.branchId
      ? `vehicle ${vehicle.id} is not at station ${booking.branchId}`
      : vehicle.category.id !== booking.vehicleCategoryId
        ? `vehicle ${vehicle.id} is not of category ${booking.vehicleCategoryId}`
        : vehicle.virtual || goneServiceStates.includes(vehicle.serviceStateV2)
          ? `vehicle ${vehicle.id} is ${vehicle.virtual ? 'virtual' : vehicle.serviceStateV2}`
          : undefined;
  if (problem) throw new DomainError('B309', problem);
}

/** A conflict of a booking window: its kind (conflictType), the code admission answers with, and why. */
export interface BookingConflict {
  conflictType: BookingConflictType;
  errorCode: 'B302' | 'B303' | 'CD100' | 'S100' | 'S101';
  message: string;
}

/** One holding booking of a pool with both its held interval and its own window (cooldowns excluded). */
export interface LoadedHold extends PoolHold {
  window: Interval;
}

/** A pool loaded once: its usable vehicles and every holding booking touching `span`. */
export interface LoadedPool {
  usableVehicleIds: number[];
  holds: LoadedHold[];
}

/**
 * The pool of a category at a station over `span`: vehicles of the category at the station (not
 * virtual, not gone for good) and the holding bookings overlapping `span` that either have no vehicle yet
 * (bookings of the station and category) or hold one of those vehicles. `skipHoldsWithoutVehicles`: a
 * pool without vehicles answers no holds (searches, where nothing is bookable then anyway).
 */
export async function loadPool(
  em: EntityManager,
  tenant: string,
  pool: { branchId: number; vehicleCategoryId: number },
  span: Interval,
  { skipHoldsWithoutVehicles = false } = {},
): Promise<LoadedPool> {
  const vehicles = await em.execute<Array<{ id: number }>>(
    `select id from vehicle
      where tenant_id = ? and branch_id = ? and category_id = ? and virtual = false
        and service_state_v2 not in (${goneStatesSql})
      order by id`,
    [tenant, pool.branchId, pool.vehicleCategoryId],
  );
  if (skipHoldsWithoutVehicles && !vehicles.length) return { usableVehicleIds: [], holds: [] };
  const rows = await em.execute<
    Array<{
      id: number;
      vehicle_id: number | null;
      held_from: number;
      held_until: number;
      start_time: number;
      end_time: number;
    }>
  >(
    // Instants as epoch milliseconds (float8): thousands of rows parse as numbers, not dates.
    `select b.id, b.vehicle_id, ${epochMs('b.held_from')} as held_from, ${epochMs('b.held_until')} as held_until,
            ${epochMs('b.start_time')} as start_time, ${epochMs('b.end_time')} as end_time
       from booking b
      where b.tenant_id = ? and b.state in (${holdingStatesSql}) and b.held_from < ? and b.held_until > ?
        and ((b.vehicle_id is null and b.branch_id = ? and b.vehicle_category_id = ?)
          or b.vehicle_id in (select v.id from vehicle v
                               where v.tenant_id = ? and v.branch_id = ? and v.category_id = ?))`,
    [
      tenant,
      new Date(span.endMs),
      new Date(span.startMs),
      pool.branchId,
      pool.vehicleCategoryId,
      tenant,
      pool.branchId,
      pool.vehicleCategoryId,
    ],
  );
  return {
    usableVehicleIds: vehicles.map((row) => Number(row.id)),
    holds: rows.map((row) => ({
      bookingId: Number(row.id),
      vehicleId: row.vehicle_id === null ? null : Number(row.vehicle_id),
      startMs: Number(row.held_from),
      endMs: Number(row.held_until),
      window: { startMs: Number(row.start_time), endMs: Number(row.end_time) },
    })),
  };
}

/** A station's vehicles now and its one-way flows (holding bookings only): what capacity checks need. */
export interface LoadedStationFlows {
  vehiclesNow: number;
  flows: StationFlow[];
}

/**
 * The vehicles at a station now (every category, out of order included: they take a space; gone ones
 * not) and the one-way holding bookings arriving (+1 at their end) or leaving (−1 at their start).
 */
export async function loadStationFlows(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<LoadedStationFlows> {
  const [count] = await em.execute<Array<{ count: string }>>(
    `select count(*) as count from vehicle
      where tenant_id = ? and branch_id = ? and virtual = false and service_state_v2 not in (${goneStatesSql})`,
    [tenant, branchId],
  );
  const rows = await em.execute<Array<{ id: number; at: Date; delta: number }>>(
    `select id, end_time as at, 1 as delta from booking
      where tenant_id = ? and end_branch_id = ? and branch_id <> ? and state in (${holdingStatesSql})
     union all
     select id, start_time as at, -1 as delta from booking
      where tenant_id = ? and branch_id = ? and end_branch_id <> ? and state in (${holdingStatesSql})`,
    [tenant, branchId, branchId, tenant, branchId, branchId],
  );
  return {
    vehiclesNow: Number(count?.count ?? 0),
    flows: rows.map((row) => ({
      bookingId: Number(row.id),
      atMs: new Date(row.at).getTime(),
      delta: Number(row.delta) > 0 ? 1 : -1,
    })),
  };
}

/** The capacity conflict of a one-way return at `endMs` (S100), if any. */
export function capacityConflict(
  end: BookingStation,
  flows: LoadedStationFlows,
  endMs: number,
  excludeBookingId?: number,
): BookingConflict | undefined {
  if (end.capacity === null || end.capacity === undefined) return undefined;
  const expected = expectedVehicles(flows.vehiclesNow, flows.flows, endMs, excludeBookingId);
  if (expected.peakAfter + 1 <= end.capacity) return undefined;
  return {
    conflictType: 'STATION_CAPACITY_EXCEEDED',
    errorCode: 'S100',
    message: `station ${end.branch.id} expects ${expected.peakAfter} of ${end.capacity} spaces taken from the return on; no space is left`,
  };
}

/** Opening-hours conflicts of a window (S101): pickup at the start station, return at the end station. */
export function openingConflicts(
  start: BookingStation,
  end: BookingStation,
  window: Interval,
): BookingConflict[] {
  const conflicts: BookingConflict[] = [];
  if (!isOpenAt(start.openingHours, start.branch.timeZoneId, window.startMs, 'pickup'))
    conflicts.push({
      conflictType: 'STATION_CLOSED',
      errorCode: 'S101',
      message: `station ${start.branch.id} is closed at the pickup time (${start.branch.timeZoneId})`,
    });
  if (!isOpenAt(end.openingHours, end.branch.timeZoneId, window.endMs, 'return'))
    conflicts.push({
      conflictType: 'STATION_CLOSED',
      errorCode: 'S101',
      message: `station ${end.branch.id} is closed at the return time (${end.branch.timeZoneId})`,
    });
  return conflicts;
}

/**
 * The pool conflict of a candidate, if any: its named vehicle held by another booking (B303), or no
 * vehicle left in the pool (B302); COOLDOWN_OVERLAP (CD100) instead when the windows themselves are
 * apart and only a cooldown collides.
 */
export function poolConflict(
  pool: LoadedPool,
  candidate: Pick<BookingCandidate, 'window' | 'held' | 'vehicleId' | 'excludeBookingId'>,
): BookingConflict | undefined {
  const others = pool.holds.filter((hold) => hold.bookingId !== candidate.excludeBookingId);
  const cooldownOnly = (windowFits: boolean): BookingConflict => ({
    conflictType: 'COOLDOWN_OVERLAP',
    errorCode: 'CD100',
    message: `the window ${windowFits ? 'is free, but its' : 'and its'} cooldowns overlap another booking's hold`,
  });
  if (candidate.vehicleId !== undefined && candidate.vehicleId !== null) {
    const holding = others.filter(
      (hold) => hold.vehicleId === candidate.vehicleId && overlaps(hold, candidate.held),
    );
    if (!holding.length) return undefined;
    if (holding.some((hold) => overlaps(hold.window, candidate.window)))
      return {
        conflictType: 'VEHICLE_UNAVAILABLE',
        errorCode: 'B303',
        message: `vehicle ${candidate.vehicleId} is held by another booking in this window`,
      };
    return cooldownOnly(true);
  }
  if (poolRemaining(pool.usableVehicleIds, others, candidate.held).remaining >= 1) return undefined;
  const rawHolds = others.map((hold) => ({ ...hold, ...hold.window }));
  if (poolRemaining(pool.usableVehicleIds, rawHolds, candidate.window).remaining >= 1)
    return cooldownOnly(true);
  return {
    conflictType: 'CATEGORY_UNAVAILABLE',
    errorCode: 'B302',
    message: 'no vehicle of this category is free at the station for this window',
  };
}

/** Whether a booking moves a vehicle from one station to another (the return station's capacity applies). */
const isOneWay = (candidate: Pick<BookingCandidate, 'branchId' | 'endBranchId'>) =>
  candidate.branchId !== candidate.endBranchId;

/**
 * Every conflict of a candidate window (validate answers them all; admission refuses with the first):
 * opening hours at pickup and return (S101), the vehicle or the pool (B303/B302/CD100) and the return
 * station's capacity (S100). Refusals that are no conflict (an unknown station B315, a vehicle that
 * does not suit B309, an unknown vehicle V404) are thrown.
 */
export async function bookingConflicts(
  em: EntityManager,
  candidate: BookingCandidate,
): Promise<BookingConflict[]> {
  const start = await bookingStationOf(em, candidate.branchId, candidate.vehicleCategoryId);
  const end = isOneWay(candidate) ? await bookingStationOf(em, candidate.endBranchId) : start;
  if (candidate.vehicleId !== undefined && candidate.vehicleId !== null) {
    const vehicle = await em.findOne(Vehicle, candidate.vehicleId);
    if (!vehicle) throw new DomainError('V404', `vehicle ${candidate.vehicleId} not found`);
    assertVehicleSuits(vehicle, candidate);
  }
  const conflicts = openingConflicts(start, end, candidate.window);
  const pool = await loadPool(em, candidate.tenant, candidate, candidate.held);
  const inPool = poolConflict(pool, candidate);
  if (inPool) conflicts.push(inPool);
  if (isOneWay(candidate) && end.capacity !== null && end.capacity !== undefined) {
    const flows = await loadStationFlows(em, candidate.tenant, end.branch.id);
    const capacity = capacityConflict(end, flows, candidate.window.endMs, candidate.excludeBookingId);
    if (capacity) conflicts.push(capacity);
  }
  return conflicts;
}

/** Advisory-lock keys of an admission decision, in the one order every decision takes them (no deadlocks). */
export function admissionLockKeys(candidate: BookingCandidate): string[] {
  const keys = [`booking:${candidate.tenant}:${candidate.branchId}:${candidate.vehicleCategoryId}`];
  if (isOneWay(candidate)) keys.push(`booking-station:${candidate.tenant}:${candidate.endBranchId}`);
  return keys.sort();
}

/**
 * Checks, under the station-category lock (and the return station's lock for a one-way booking, keys
 * taken in sorted order), that the candidate can be held: the stations are open at pickup and return
 * (S101), a named vehicle suits the booking and is free for the held interval (B303, or CD100 when only
 * cooldowns collide), otherwise the pool keeps a free vehicle once the other unassigned bookings are
 * served (B302 / CD100), and the return station has a space when the vehicle arrives (S100). Call it
 * inside the transaction that writes the booking.
 */
export async function checkBookingAdmission(tx: EntityManager, candidate: BookingCandidate): Promise<void> {
  for (const key of admissionLockKeys(candidate))
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [key]);
  const [first] = await bookingConflicts(tx, candidate);
  if (first) throw new DomainError(first.errorCode, first.message, { conflictType: first.conflictType });
}

/** The held interval of a window at two stations for a category. */
export async function heldWindow(
  em: EntityManager,
  window: Interval & { branchId: number; endBranchId: number; vehicleCategoryId: number },
): Promise<{
  held: Interval;
  cooldowns: { startStationCooldownMinutes: number; endStationCooldownMinutes: number };
  start: BookingStation;
  end: BookingStation;
}> {
  const start = await bookingStationOf(em, window.branchId, window.vehicleCategoryId);
  const end = window.endBranchId === window.branchId ? start : await bookingStationOf(em, window.endBranchId);
  const cooldowns = stationCooldowns(start, end, window.vehicleCategoryId);
  return { held: heldInterval(window, cooldowns), cooldowns, start, end };
}
