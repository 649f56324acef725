// The booking workflow's writes after its creation (approval, delivery, check-in, pickup, cancellation,
// the timers' endings, what its rental reports, extension), and what every booking write shares: each
// changes the booking row (under a row lock) as the transition table of domain/booking.ts allows and
// leads, records the row's BOOKING_* event with the activity's idempotency key and answers the booking's
// timeline, inside the caller's transaction (the activity opens it). A retried activity finds its event
// and answers the timeline without writing twice. Creation and updates: db/booking-creation.ts.
// See docs/bookings.md.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Booking } from './entities/Booking.js';
import { PaymentSource } from './entities/PaymentSource.js';
import { Rental } from './entities/Rental.js';
import { Vehicle } from './entities/Vehicle.js';
import { eventRecorded, recordEvent, recordedEvent, type EventFields } from './events.js';
import { settingOrDefaults } from './settings.js';
import { assertVehicleSuits, checkBookingAdmission, poolCapacity } from './booking-availability.js';
import {
  cancellationFee,
  bookingEstimateOwner,
  estimateBookingPriceFor,
  issueBookingInvoice,
  noShowFee,
  pinnedBookingPricing,
  setBookingPrice,
} from './booking-billing.js';
import { assertStartRequirements } from './rental-requirements.js';
import { isUniqueViolation } from './constraints.js';
import { DomainError, isDomainError } from '../domain/errors.js';
import {
  BOOKING_SETTINGS_KEY,
  bookingDeadlines,
  bookingStateAfter,
  bookingTransitionRefusal,
  bookingTransitions,
  bookingWindowRefusal,
  defaultBookingSettings,
  pickupWindow,
  type BookingFacts,
  type BookingSettings,
  type BookingTimeline,
  type BookingTimerEnding,
  type BookingTransition,
  type BookingTransitionName,
} from '../domain/booking.js';
import { terminalRentalStates, type RentalState } from '../domain/rental.js';

/** Who acts, when, and the activity's idempotency key. */
export interface Acting {
  tenant: string;
  bookingId: number;
  requestedBy: string;
  at: string;
  idempotencyKey: string;
}

/** The timeline settings of a booking's start station. */
export function bookingSettingsOf(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<BookingSettings> {
  return settingOrDefaults(em, tenant, BOOKING_SETTINGS_KEY, branchId, defaultBookingSettings);
}

/** The workflow's view of a booking row. */
export async function timelineOf(
  em: EntityManager,
  tenant: string,
  booking: Booking,
): Promise<BookingTimeline> {
  const settings = await bookingSettingsOf(em, tenant, booking.branch.id);
  const window = { startMs: booking.startTime.getTime(), endMs: booking.endTime.getTime() };
  return {
    state: booking.state,
    approvalState: booking.approvalState ?? null,
    vehicleId: booking.vehicle?.id ?? null,
    rentalId: booking.rental?.id ?? null,
    ...window,
    deadlines: bookingDeadlines(window, settings),
    overdueSinceMs: booking.overdueSince?.getTime() ?? null,
  };
}

/** The booking row locked for this transaction (B300 when the tenant has none). */
export async function lockedBooking(em: EntityManager, bookingId: number): Promise<Booking> {
  const booking = await em.findOne(Booking, bookingId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!booking) throw new DomainError('B300', `booking ${bookingId} not found`);
  return booking;
}

/** Whether an earlier attempt of this activity already recorded its step. */
export const alreadyRecorded = async (em: EntityManager, idempotencyKey: string) =>
  eventRecorded(em, idempotencyKey);

/** The fields every event of a booking carries. */
export function bookingEventFields(booking: Booking, acting: Acting): Omit<EventFields, 'type'> {
  return {
    createdAt: new Date(acting.at),
    bookingId: booking.id,
    branchId: booking.branch.id,
    vehicleId: booking.vehicle?.id ?? null,
    rentalId: booking.rental?.id ?? null,
    customerId: booking.customer.id,
    adminSubject: acting.requestedBy,
  };
}

/** What the transition table reads of a booking row. */
function factsOf(booking: Booking): BookingFacts {
  return {
    state: booking.state,
    approvalState: booking.approvalState ?? null,
    hasVehicle: booking.vehicle != null,
    hasRental: booking.rental != null,
  };
}

/** Refuses a transition the table does not allow from the booking's state (B304, B307, B312, B314). */
export function assertTransition(booking: Booking, name: BookingTransitionName): void {
  const refusal = bookingTransitionRefusal(name, factsOf(booking));
  if (refusal) throw new DomainError(refusal.code, refusal.reason);
}

/** Moves the booking along a row of the table (its approval state, then its state) and answers the row. */
function applyTransition(booking: Booking, name: BookingTransitionName): BookingTransition {
  const transition = bookingTransitions[name];
  if (transition.approvalTo) booking.approvalState = transition.approvalTo;
  booking.state = bookingStateAfter(name, factsOf(booking));
  return transition;
}

/** Flushes, turning a lost race on the vehicle exclusion constraint into B303. */
export async function flushHold(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (isUniqueViolation(error) || (error as { code?: string })?.code === '23P01')
      throw new DomainError('B303', 'the vehicle is held by another booking in this window');
    throw error;
  }
}

/** Approves (APPROVED, or DELIVERED when a vehicle is named already) or declines (DECLINED) a request. */
export async function decideApproval(
  em: EntityManager,
  acting: Acting,
  decision: { approved: boolean; rejectionReason?: string },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  const name = decision.approved ? 'APPROVE' : 'DECLINE';
  assertTransition(booking, name);
  if (!decision.approved) {
    if (!decision.rejectionReason?.trim()) throw new DomainError('B308');
    booking.rejectionReason = decision.rejectionReason.trim();
  }
  const transition = applyTransition(booking, name);
  recordEvent(em, {
    type: transition.event,
    ...bookingEventFields(booking, acting),
    description: decision.approved ? 'approved' : `declined: ${booking.rejectionReason}`,
    payload: { approvalState: booking.approvalState },
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return timelineOf(em, acting.tenant, booking);
}

/**
 * Delivers a vehicle: the named one (B309 when it does not suit, B303 when another booking holds it), or
 * with `vehicleId` absent the first free vehicle of the pool (null when none is free: the workflow
 * retries). Re-delivering another vehicle replaces the first.
 */
export async function deliverVehicle(
  em: EntityManager,
  acting: Acting,
  vehicleId: number | undefined,
): Promise<BookingTimeline | null> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertTransition(booking, 'DELIVER');
  const candidate = {
    tenant: acting.tenant,
    branchId: booking.branch.id,
    endBranchId: booking.endBranch.id,
    window: { startMs: booking.startTime.getTime(), endMs: booking.endTime.getTime() },
    vehicleCategoryId: booking.vehicleCategory.id,
    held: { startMs: booking.heldFrom.getTime(), endMs: booking.heldUntil.getTime() },
    excludeBookingId: booking.id,
  };
  let chosen = vehicleId;
  if (chosen === undefined) {
    const pool = await poolCapacity(em, candidate);
    chosen = pool.freeVehicleIds[0];
    if (chosen === undefined) return null;
  }
  await checkBookingAdmission(em, { ...candidate, vehicleId: chosen });
  const vehicle = await em.findOneOrFail(Vehicle, chosen);
  booking.vehicle = vehicle;
  const transition = applyTransition(booking, 'DELIVER');
  recordEvent(em, {
    type: transition.event,
    ...bookingEventFields(booking, acting),
    description: `vehicle ${vehicle.code} delivered${vehicleId === undefined ? ' automatically' : ''}`,
    payload: { vehicleId: vehicle.id, automatic: vehicleId === undefined },
    idempotencyKey: acting.idempotencyKey,
  });
  await flushHold(em);
  return timelineOf(em, acting.tenant, booking);
}

/** Refuses a check-in or pickup outside the pickup window (B305). */
async function assertPickupWindow(em: EntityManager, tenant: string, booking: Booking, atMs: number) {
  const settings = await bookingSettingsOf(em, tenant, booking.branch.id);
  const window = pickupWindow(booking.startTime.getTime(), settings);
  if (atMs < window.startMs || atMs >= window.endMs)
    throw new DomainError(
      'B305',
      `pickup is possible from ${new Date(window.startMs).toISOString()} to ${new Date(window.endMs).toISOString()}`,
    );
}

/** Records the customer's check-in at the station (inside the pickup window). */
export async function checkInBooking(em: EntityManager, acting: Acting): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertTransition(booking, 'CHECK_IN');
  await assertPickupWindow(em, acting.tenant, booking, Date.parse(acting.at));
  booking.checkedInAt = new Date(acting.at);
  recordEvent(em, {
    type: bookingTransitions.CHECK_IN.event,
    ...bookingEventFields(booking, acting),
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return timelineOf(em, acting.tenant, booking);
}

/** What the booking workflow needs to start the rental of a pickup. */
export interface PickupPlan {
  rentalId: number;
  vehicleId: number;
  branchId: number;
  customerId: number;
  userGroupId?: number;
  costCenterId?: number;
  reason?: string;
}

/**
 * Checks a pickup (state, no rental yet, window B305, configuration unchanged B310, payment ready B311,
 * start requirements unless `rentalAuthOverride`) and allocates the rental id, recorded on BOOKING_PICKUP
 * so a retry answers the same id.
 */
export async function preparePickup(
  em: EntityManager,
  acting: Acting & { rentalAuthOverride: boolean },
): Promise<PickupPlan> {
  const booking = await lockedBooking(em, acting.bookingId);
  const plan = (rentalId: number): PickupPlan => ({
    rentalId,
    vehicleId: booking.vehicle!.id,
    branchId: booking.branch.id,
    customerId: booking.customer.id,
    userGroupId: booking.userGroup?.id,
    costCenterId: booking.costCenter?.id,
    reason: booking.reason ?? undefined,
  });
  const recorded = await recordedEvent(em, acting.idempotencyKey);
  if (recorded) return plan(Number(recorded.payload?.rentalId));
  assertTransition(booking, 'PICKUP');
  const at = new Date(acting.at);
  await assertPickupWindow(em, acting.tenant, booking, at.getTime());
  const vehicle = await em.findOneOrFail(Vehicle, booking.vehicle!.id);
  try {
    assertVehicleSuits(vehicle, {
      branchId: booking.branch.id,
      vehicleCategoryId: booking.vehicleCategory.id,
    });
  } catch (error) {
    if (isDomainError(error)) throw new DomainError('B310', error.message);
    throw error;
  }
  if (booking.rentalType !== 'BUSINESS' && !booking.userGroup) {
    const sources = await em.count(PaymentSource, { customer: booking.customer.id });
    if (sources === 0) throw new DomainError('B311');
  }
  if (!acting.rentalAuthOverride)
    await assertStartRequirements(em, acting.tenant, {
      customerId: booking.customer.id,
      branchId: booking.branch.id,
      vehicleCategoryId: booking.vehicleCategory.id,
      userGroupId: booking.userGroup?.id,
      at,
      bookingStartTime: booking.startTime,
      bookingEndTime: booking.endTime,
      // A booking made before an invoice went unpaid is picked up: dunning refuses new ones only.
      checkUnpaidInvoices: false,
    });
  const [{ id: rentalId }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  recordEvent(em, {
    type: bookingTransitions.PICKUP.event,
    ...bookingEventFields(booking, acting),
    description: acting.rentalAuthOverride ? 'pickup with rental authorisation override' : 'pickup',
    payload: { rentalId, additions: booking.additions, rentalAuthOverride: acting.rentalAuthOverride },
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return plan(rentalId);
}

/**
 * Called by the reservation of a booking's rental (db/rental-reservation.ts), in its transaction: links the
 * rental to the booking and answers the booking's pinned pricing version, which the rental keeps.
 */
export async function linkBookingRental(
  em: EntityManager,
  bookingId: number,
  rental: { id: number; reservedAt: Date },
): Promise<void> {
  const booking = await lockedBooking(em, bookingId);
  if (booking.rental && booking.rental.id !== rental.id) throw new DomainError('B312');
  booking.rental = em.getReference(Rental, rental.id);
  booking.pickedUpAt = rental.reservedAt;
}

/** The pinned pricing version of the booking a rental is picked up from (B300 when none). */
export async function bookingPricingVersionOf(em: EntityManager, bookingId: number) {
  const booking = await em.findOne(Booking, bookingId, { populate: ['pricingBundleVersion'] });
  if (!booking) throw new DomainError('B300', `booking ${bookingId} not found`);
  if (!booking.pricingBundleVersion) throw new DomainError('ODP104');
  return booking.pricingBundleVersion;
}

/**
 * Cancels: B306 when the pricing forbids it and the caller must respect that (the app), the fee of the
 * pinned version (zero before the free-cancellation deadline) as the booking's invoice unless waived.
 */
export async function cancelBookingRecord(
  em: EntityManager,
  acting: Acting & { waiveCancellationFee: boolean; reason?: string; enforceCancellable: boolean },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertTransition(booking, 'CANCEL');
  const at = new Date(acting.at);
  const fee = booking.pricingBundleVersion ? await cancellationFee(em, booking, at.getTime()) : null;
  if (fee && !fee.cancellable && acting.enforceCancellable) throw new DomainError('B306');
  const transition = applyTransition(booking, 'CANCEL');
  booking.canceledAt = at;
  booking.cancellationReason = acting.reason?.trim() || null;
  booking.cancellationFeeWaived = acting.waiveCancellationFee;
  const invoice =
    fee && !acting.waiveCancellationFee
      ? await issueBookingInvoice(em, booking, fee.price, {
          at,
          idempotencyKey: acting.idempotencyKey,
          title: `Cancellation of booking ${booking.id}`,
        })
      : null;
  recordEvent(em, {
    type: transition.event,
    ...bookingEventFields(booking, acting),
    description: booking.cancellationReason ?? 'cancelled',
    payload: {
      fee: fee?.price.price.total ?? '0',
      waived: acting.waiveCancellationFee,
      invoiced: invoice !== null,
    },
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return timelineOf(em, acting.tenant, booking);
}

/**
 * Ends a booking the workflow's timers ended: EXPIRED (approval deadline, or no-show with the branch's
 * `noShowFee` invoiced) or ABORTED (no vehicle could be delivered before the pickup window closed).
 */
export async function expireBookingRecord(
  em: EntityManager,
  acting: Acting & { reason: BookingTimerEnding },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertTransition(booking, acting.reason);
  const at = new Date(acting.at);
  const transition = applyTransition(booking, acting.reason);
  let fee = '0';
  if (acting.reason === 'NO_SHOW' && booking.pricingBundleVersion) {
    const settings = await bookingSettingsOf(em, acting.tenant, booking.branch.id);
    const price = await noShowFee(em, booking, settings.noShowFee);
    fee = price.price.total;
    await issueBookingInvoice(em, booking, price, {
      at,
      idempotencyKey: acting.idempotencyKey,
      title: `No-show of booking ${booking.id}`,
    });
  }
  recordEvent(em, {
    type: transition.event,
    ...bookingEventFields(booking, acting),
    description: {
      APPROVAL_DEADLINE: 'the request was not approved before its approval deadline',
      NO_SHOW: 'not picked up within the pickup window (no-show)',
      NO_VEHICLE: 'no vehicle could be delivered before the pickup window closed',
    }[acting.reason],
    payload: { reason: acting.reason, fee },
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return timelineOf(em, acting.tenant, booking);
}

/** Marks the running booking overdue (its rental runs past endTime plus the grace period). */
export async function markBookingOverdue(em: EntityManager, acting: Acting): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  if (!booking.overdueSince && !booking.returnedAt) {
    booking.overdueSince = new Date(acting.at);
    recordEvent(em, {
      type: bookingTransitions.OVERDUE.event,
      ...bookingEventFields(booking, acting),
      description: 'the vehicle was not returned by the end of the booking',
      idempotencyKey: acting.idempotencyKey,
    });
  }
  await em.flush();
  return timelineOf(em, acting.tenant, booking);
}

/**
 * Ends the booking once its rental ended: SUCCESSFUL when the rental started (returnedAt = its end),
 * ABORTED when it never did. A rental the reservation refused was never linked: the booking stays
 * DELIVERED and the pickup may be tried again.
 */
export async function finishAfterRental(
  em: EntityManager,
  acting: Acting & { rentalId: number },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  const rental = await em.findOne(Rental, acting.rentalId);
  if (!rental || booking.rental?.id !== rental.id) return timelineOf(em, acting.tenant, booking);
  if (!terminalRentalStates.includes(rental.state as RentalState))
    return timelineOf(em, acting.tenant, booking);
  const started = rental.startedAt != null;
  const transition = applyTransition(booking, started ? 'RENTAL_ENDED' : 'RENTAL_NEVER_STARTED');
  if (started) booking.returnedAt = rental.endedAt ?? new Date(acting.at);
  // A one-way trip leaves the vehicle at the return station: it joins that station's pool and capacity
  // (the expected-vehicles rule of docs/bookings.md counts it there from the booking's end on).
  if (started && booking.endBranch.id !== booking.branch.id && booking.vehicle)
    await em.nativeUpdate(Vehicle, { id: booking.vehicle.id }, { branch: booking.endBranch.id });
  recordEvent(em, {
    type: transition.event,
    ...bookingEventFields(booking, acting),
    description: started
      ? `rental ${rental.id} ended`
      : `rental ${rental.id} never started (${rental.state})`,
    payload: { rentalId: rental.id, rentalState: rental.state },
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return timelineOf(em, acting.tenant, booking);
}

/**
 * Extends the booking to a later end (also while its rental runs): B301 when the new end is not later or
 * breaks the window rules (the duration limit), B314 when the vehicle or pool is not free for the longer
 * hold.
 */
export async function extendBookingRecord(
  em: EntityManager,
  acting: Acting & { endTime: string },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  await assertExtendable(em, acting.tenant, booking, Date.parse(acting.endTime), Date.parse(acting.at));
  const window = { startMs: booking.startTime.getTime(), endMs: Date.parse(acting.endTime) };
  booking.endTime = new Date(window.endMs);
  booking.heldUntil = new Date(window.endMs + booking.endStationCooldown * 60_000);
  if (booking.overdueSince && booking.overdueSince.getTime() < window.endMs) booking.overdueSince = null;
  if (booking.pricingBundleVersion) {
    setBookingPrice(
      booking,
      await estimateBookingPriceFor(
        em,
        await pinnedBookingPricing(em, booking),
        window,
        booking.additions,
        bookingEstimateOwner(booking),
      ),
    );
  }
  recordEvent(em, {
    type: bookingTransitions.EXTEND.event,
    ...bookingEventFields(booking, acting),
    description: `extended to ${booking.endTime.toISOString()}`,
    payload: { endTime: booking.endTime.toISOString(), extension: true },
    idempotencyKey: acting.idempotencyKey,
  });
  await flushHold(em);
  return timelineOf(em, acting.tenant, booking);
}

/** Refuses an extension to `endMs` (B301 for the window rules, B314 for the hold, with the reason); run it in a transaction (it takes the pool lock). */
export async function assertExtendable(
  em: EntityManager,
  tenant: string,
  booking: Booking,
  endMs: number,
  nowMs: number,
): Promise<void> {
  // One code per rule: the window's rules (order, duration) are B301 as on create and update; the hold
  // (another booking, the pool, the station's capacity) is B314.
  const refuseWindow = (reason: string) => {
    throw new DomainError('B301', reason);
  };
  const refuse = (reason: string) => {
    throw new DomainError('B314', reason);
  };
  const refused = bookingTransitionRefusal('EXTEND', factsOf(booking));
  if (refused) throw new DomainError(refused.code, refused.reason);
  if (!Number.isSafeInteger(endMs) || endMs <= booking.endTime.getTime())
    refuseWindow('the new end must be later than the current end');
  if (endMs <= nowMs) refuseWindow('the new end must be in the future');
  const settings = await bookingSettingsOf(em, tenant, booking.branch.id);
  const windowRefused = bookingWindowRefusal(
    { startMs: booking.startTime.getTime(), endMs },
    nowMs,
    settings,
    { ignoreTimeConstraints: true },
  );
  if (windowRefused) refuseWindow(windowRefused.reason);
  try {
    await checkBookingAdmission(em, {
      tenant,
      branchId: booking.branch.id,
      endBranchId: booking.endBranch.id,
      window: { startMs: booking.startTime.getTime(), endMs },
      vehicleCategoryId: booking.vehicleCategory.id,
      vehicleId: booking.vehicle?.id ?? null,
      held: { startMs: booking.heldFrom.getTime(), endMs: endMs + booking.endStationCooldown * 60_000 },
      excludeBookingId: booking.id,
    });
  } catch (error) {
    if (isDomainError(error)) refuse(`${error.code}: ${error.message}`);
    throw error;
  }
}
