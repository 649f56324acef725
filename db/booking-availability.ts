// Whether a booking window can be held: the vehicle named, or one unit of the category's pool at the
// station. Creation, update, delivery and extension all pass through `checkBookingAdmission` inside their
// transaction; it serialises every decision about one (station, category) with a transaction-scoped
// advisory lock, so concurrent requests for the last vehicle decide one after the other and exactly one
// wins. The exclusion constraint `booking_vehicle_hold_excl` (migration `bookings`) is the backstop for
// a named vehicle.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BookingStation, Vehicle } from './entities/index.js';
import { freeCapacity, heldInterval, holdingBookingStates, type Interval } from '../domain/booking.js';
import type { ServiceStateV2 } from '../domain/vehicle.js';
import { DomainError } from '../domain/errors.js';

/** Service states of vehicles that never come back: they count for no booking. */
export const goneServiceStates: readonly ServiceStateV2[] = ['RETIRED', 'DEFLEETED', 'LOST', 'UNREPAIRABLE'];

const holdingStatesSql = holdingBookingStates.map((state) => `'${state}'`).join(', ');
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

/**
 * Checks, under the station-category lock, that the candidate can be held: a named vehicle must suit the
 * booking and be free for the held interval (B303), otherwise the pool must keep a free vehicle once the
 * other unassigned bookings are served (B302). Call it inside the transaction that writes the booking.
 */
export async function checkBookingAdmission(tx: EntityManager, candidate: BookingCandidate): Promise<void> {
  await lockStationCategory(tx, candidate.tenant, candidate.branchId, candidate.vehicleCategoryId);
  if (candidate.vehicleId !== undefined && candidate.vehicleId !== null) {
    const vehicle = await tx.findOne(Vehicle, candidate.vehicleId);
    if (!vehicle) throw new DomainError('V404', `vehicle ${candidate.vehicleId} not found`);
    assertVehicleSuits(vehicle, candidate);
    const free = await freeVehicleIds(tx, candidate);
    if (!free.includes(vehicle.id))
      throw new DomainError('B303', `vehicle ${vehicle.id} is held by another booking in this window`);
    return;
  }
  const { remaining } = await poolCapacity(tx, candidate);
  if (remaining < 1)
    throw new DomainError('B302', 'no vehicle of this category is free at the station for this window');
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
