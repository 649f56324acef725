// The booking workflow's writes: each function changes the booking row (under a row lock), records its
// BOOKING_* event with the activity's idempotency key and answers the booking's timeline, inside the
// caller's transaction. A retried activity finds its event and answers the timeline without writing
// twice. Admission (can the window be held?) goes through `checkBookingAdmission`. See docs/bookings.md.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Booking } from './entities/Booking.js';
import { Branch } from './entities/Branch.js';
import { CostCenter } from './entities/CostCenter.js';
import { Customer } from './entities/Customer.js';
import { Event } from './entities/Event.js';
import { PaymentSource } from './entities/PaymentSource.js';
import { Rental } from './entities/Rental.js';
import { UserGroup } from './entities/UserGroup.js';
import { Vehicle } from './entities/Vehicle.js';
import { VehicleCategory } from './entities/VehicleCategory.js';
import { recordEvent, type EventFields } from './events.js';
import { settingOrDefaults } from './settings.js';
import {
  assertVehicleSuits,
  checkBookingAdmission,
  heldWindow,
  poolCapacity,
} from './booking-availability.js';
import {
  bookingPricingAt,
  cancellationFee,
  estimateBookingPrice,
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
  bookingOperationRefusal,
  bookingStateAfterRental,
  bookingWindowRefusal,
  defaultBookingSettings,
  pickupWindow,
  type BookingOperation,
  type BookingSettings,
} from '../domain/booking.js';
import { terminalRentalStates, type RentalState } from '../domain/rental.js';
import type { BookingChanges, BookingCreationInput, BookingTimeline } from '../domain/booking.js';

export type { BookingChanges, BookingCreationInput, BookingTimeline };

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
async function lockedBooking(em: EntityManager, bookingId: number): Promise<Booking> {
  const booking = await em.findOne(Booking, bookingId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!booking) throw new DomainError('B300', `booking ${bookingId} not found`);
  return booking;
}

/** Whether an earlier attempt of this activity already recorded its step. */
const alreadyRecorded = async (em: EntityManager, idempotencyKey: string) =>
  (await em.count(Event, { idempotencyKey })) > 0;

/** The fields every event of a booking carries. */
function about(booking: Booking, acting: Acting): Omit<EventFields, 'type'> {
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

/** Refuses an operation the booking's state does not allow (B304, B307, B312). */
function assertOperation(booking: Booking, operation: BookingOperation): void {
  const refusal = bookingOperationRefusal(operation, {
    state: booking.state,
    approvalState: booking.approvalState ?? null,
    hasVehicle: booking.vehicle != null,
    hasRental: booking.rental != null,
  });
  if (refusal) throw new DomainError(refusal.code, refusal.reason);
}

/** Flushes, turning a lost race on the vehicle exclusion constraint into B303. */
async function flushHold(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (isUniqueViolation(error) || (error as { code?: string })?.code === '23P01')
      throw new DomainError('B303', 'the vehicle is held by another booking in this window');
    throw error;
  }
}

/**
 * Creates the booking row: window rules (B301), station and category (B315), business context, the
 * pinned BOOKING pricing version with the estimated price, and admission under the station-category lock
 * (B302/B303/B309); BOOKED (PENDING approval for a request), or DELIVERED at once with a vehicle.
 */
export async function createBookingRecord(
  em: EntityManager,
  input: BookingCreationInput,
  idempotencyKey: string,
): Promise<BookingTimeline> {
  const existing = await em.findOne(Booking, input.bookingId);
  if (existing) return timelineOf(em, input.tenant, existing);
  const at = new Date(input.at);
  const customer = await em.findOne(Customer, input.customerId);
  if (!customer) throw new DomainError('U106', `customer ${input.customerId} not found`);
  if (customer.isBlocked) throw new DomainError('U131');
  const category = await em.findOne(VehicleCategory, input.vehicleCategoryId);
  if (!category) throw new DomainError('VC404', `vehicle category ${input.vehicleCategoryId} not found`);
  const branch = await em.findOne(Branch, input.branchId);
  if (!branch) throw new DomainError('B404', `branch ${input.branchId} not found`);
  const endBranchId = input.endBranchId ?? input.branchId;
  const endBranch = endBranchId === branch.id ? branch : await em.findOne(Branch, endBranchId);
  if (!endBranch) throw new DomainError('B404', `branch ${endBranchId} not found`);
  const window = { startMs: Date.parse(input.startTime), endMs: Date.parse(input.endTime) };
  const settings = await bookingSettingsOf(em, input.tenant, branch.id);
  const refused = bookingWindowRefusal(window, at.getTime(), settings, {
    ignoreTimeConstraints: input.ignoreTimeConstraints,
  });
  if (refused) throw new DomainError(refused.code, refused.reason);
  const { held, cooldowns } = await heldWindow(em, {
    ...window,
    branchId: branch.id,
    endBranchId,
    vehicleCategoryId: category.id,
  });
  const pricing = await bookingPricingAt(em, input.tenant, {
    branchId: branch.id,
    vehicleCategoryId: category.id,
    at,
    pricingBundleId: input.pricingBundleId,
  });
  const additions = [...new Set(input.additions ?? [])];
  const price = estimateBookingPrice(pricing, window, additions);
  const userGroup = input.userGroupId === undefined ? null : await em.findOne(UserGroup, input.userGroupId);
  if (input.userGroupId !== undefined && !userGroup)
    throw new DomainError('UG404', `business account ${input.userGroupId} not found`);
  const costCenter =
    input.costCenterId === undefined ? null : await em.findOne(CostCenter, input.costCenterId);
  await checkBookingAdmission(em, {
    tenant: input.tenant,
    branchId: branch.id,
    endBranchId,
    window,
    vehicleCategoryId: category.id,
    vehicleId: input.vehicleId ?? null,
    held,
  });
  const vehicle = input.vehicleId === undefined ? null : await em.findOneOrFail(Vehicle, input.vehicleId);
  const pending = input.bookingRequest === true;
  const booking = em.create(Booking, {
    id: input.bookingId,
    workflowId: input.workflowId,
    state: vehicle && !pending ? 'DELIVERED' : 'BOOKED',
    type: input.type,
    rentalType: userGroup ? 'BUSINESS' : input.rentalType,
    approvalState: pending ? 'PENDING' : null,
    customer,
    branch,
    endBranch,
    vehicleCategory: category,
    vehicle,
    startTime: new Date(window.startMs),
    endTime: new Date(window.endMs),
    startStationCooldown: cooldowns.startStationCooldownMinutes,
    endStationCooldown: cooldowns.endStationCooldownMinutes,
    heldFrom: new Date(held.startMs),
    heldUntil: new Date(held.endMs),
    startPosition: input.startPosition ?? null,
    startPositionRadius: input.startPositionRadius ?? null,
    additions,
    pricingBundleVersion: pricing.version,
    userGroup,
    costCenter,
    reason: input.reason ?? null,
    notes: input.notes ?? null,
    externalReference: input.externalReference ?? null,
    annotations: input.annotations ?? [],
    createdBy: input.requestedBy,
  });
  setBookingPrice(booking, price);
  const acting = { ...input, idempotencyKey };
  recordEvent(em, {
    type: 'BOOKING_CREATED',
    ...about(booking, acting),
    description: pending ? 'booking request awaiting approval' : 'booking created',
    payload: {
      startTime: input.startTime,
      endTime: input.endTime,
      vehicleCategoryId: category.id,
      endBranchId,
      additions,
      pricingBundleVersionId: pricing.version.id,
      estimatedPrice: price.price.total,
    },
    idempotencyKey,
  });
  if (vehicle && !pending)
    recordEvent(em, {
      type: 'BOOKING_DELIVERED',
      ...about(booking, acting),
      description: `vehicle ${vehicle.code} delivered at creation`,
      idempotencyKey: `${idempotencyKey}/delivered`,
    });
  await flushHold(em);
  return timelineOf(em, input.tenant, booking);
}

/**
 * Applies an update: window, category (drops a delivered vehicle and resets the additions), return
 * station, additions, pricing bundle (a change of category or bundle without a bundle named falls back
 * to the default with a note), business and free-text fields. A change of window, category or return
 * station is admitted again, excluding the booking's own hold.
 */
export async function updateBookingRecord(
  em: EntityManager,
  acting: Acting & { ignoreTimeConstraints: boolean },
  changes: BookingChanges,
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertOperation(booking, 'UPDATE');
  const at = new Date(acting.at);
  const window = {
    startMs: changes.startTime ? Date.parse(changes.startTime) : booking.startTime.getTime(),
    endMs: changes.endTime ? Date.parse(changes.endTime) : booking.endTime.getTime(),
  };
  const windowChanged =
    window.startMs !== booking.startTime.getTime() || window.endMs !== booking.endTime.getTime();
  const categoryId = changes.vehicleCategoryId ?? booking.vehicleCategory.id;
  const categoryChanged = categoryId !== booking.vehicleCategory.id;
  const endBranchId = changes.endBranchId ?? booking.endBranch.id;
  const endBranchChanged = endBranchId !== booking.endBranch.id;
  const described: string[] = [];
  if (categoryChanged) {
    const category = await em.findOne(VehicleCategory, categoryId);
    if (!category) throw new DomainError('VC404', `vehicle category ${categoryId} not found`);
    booking.vehicleCategory = category;
    booking.additions = [];
    if (booking.vehicle) {
      booking.vehicle = null;
      booking.state = booking.approvalState === 'APPROVED' ? 'APPROVED' : 'BOOKED';
    }
    described.push(`category ${categoryId} (additions reset)`);
  }
  if (endBranchChanged) {
    const endBranch = await em.findOne(Branch, endBranchId);
    if (!endBranch) throw new DomainError('B404', `branch ${endBranchId} not found`);
    booking.endBranch = endBranch;
    described.push(`return station ${endBranchId}`);
  }
  if (windowChanged || categoryChanged || endBranchChanged) {
    const settings = await bookingSettingsOf(em, acting.tenant, booking.branch.id);
    const refused = bookingWindowRefusal(window, at.getTime(), settings, {
      // Only a new start is held to the lead time and advance limit; a running window keeps its start.
      ignoreTimeConstraints: acting.ignoreTimeConstraints || window.startMs === booking.startTime.getTime(),
    });
    if (refused) throw new DomainError(refused.code, refused.reason);
    const { held, cooldowns } = await heldWindow(em, {
      ...window,
      branchId: booking.branch.id,
      endBranchId,
      vehicleCategoryId: categoryId,
    });
    await checkBookingAdmission(em, {
      tenant: acting.tenant,
      branchId: booking.branch.id,
      endBranchId,
      window,
      vehicleCategoryId: categoryId,
      vehicleId: booking.vehicle?.id ?? null,
      held,
      excludeBookingId: booking.id,
    });
    booking.startTime = new Date(window.startMs);
    booking.endTime = new Date(window.endMs);
    booking.startStationCooldown = cooldowns.startStationCooldownMinutes;
    booking.endStationCooldown = cooldowns.endStationCooldownMinutes;
    booking.heldFrom = new Date(held.startMs);
    booking.heldUntil = new Date(held.endMs);
    if (windowChanged) described.push(`window ${changes.startTime ?? ''}–${changes.endTime ?? ''}`);
  }
  if (categoryChanged || changes.pricingBundleId !== undefined) {
    const pricing = await bookingPricingAt(em, acting.tenant, {
      branchId: booking.branch.id,
      vehicleCategoryId: categoryId,
      at,
      pricingBundleId: changes.pricingBundleId,
    });
    if (changes.pricingBundleId == null) {
      const note = `pricing reset to the default bundle "${pricing.bundle.name}" on ${acting.at}`;
      booking.annotations = [...booking.annotations, note].slice(-50);
      described.push(note);
    }
    booking.pricingBundleVersion = pricing.version;
  }
  if (changes.additions !== undefined) booking.additions = [...new Set(changes.additions)];
  if (changes.costCenterId !== undefined)
    booking.costCenter =
      changes.costCenterId === null ? null : em.getReference(CostCenter, changes.costCenterId);
  if (changes.costCenterId != null) {
    const costCenter = await em.findOne(CostCenter, {
      id: changes.costCenterId,
      group: booking.userGroup?.id ?? -1,
    });
    if (!costCenter)
      throw new DomainError('R191', `cost center ${changes.costCenterId} is not the account's`);
  }
  for (const field of ['reason', 'notes', 'externalReference', 'ratingDescription'] as const)
    if (changes[field] !== undefined) booking[field] = changes[field];
  if (changes.annotations !== undefined) booking.annotations = changes.annotations;
  if (booking.pricingBundleVersion)
    setBookingPrice(
      booking,
      estimateBookingPrice(await pinnedBookingPricing(em, booking), window, booking.additions),
    );
  recordEvent(em, {
    type: 'BOOKING_UPDATED',
    ...about(booking, acting),
    description: described.length ? described.join('; ') : 'booking details updated',
    payload: { changes: { ...changes } },
    idempotencyKey: acting.idempotencyKey,
  });
  if (categoryChanged)
    recordEvent(em, {
      type: 'BOOKING_CATEGORY_CHANGED',
      ...about(booking, acting),
      payload: { vehicleCategoryId: categoryId },
      idempotencyKey: `${acting.idempotencyKey}/category`,
    });
  if (windowChanged)
    recordEvent(em, {
      type: 'BOOKING_TIMESLOT',
      ...about(booking, acting),
      payload: { startTime: booking.startTime.toISOString(), endTime: booking.endTime.toISOString() },
      idempotencyKey: `${acting.idempotencyKey}/timeslot`,
    });
  await flushHold(em);
  return timelineOf(em, acting.tenant, booking);
}

/** Approves (APPROVED, or DELIVERED when a vehicle is named already) or declines (DECLINED) a request. */
export async function decideApproval(
  em: EntityManager,
  acting: Acting,
  decision: { approved: boolean; rejectionReason?: string },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertOperation(booking, decision.approved ? 'APPROVE' : 'DECLINE');
  if (decision.approved) {
    booking.approvalState = 'APPROVED';
    booking.state = booking.vehicle ? 'DELIVERED' : 'APPROVED';
  } else {
    if (!decision.rejectionReason?.trim()) throw new DomainError('B308');
    booking.approvalState = 'DECLINED';
    booking.state = 'DECLINED';
    booking.rejectionReason = decision.rejectionReason.trim();
  }
  recordEvent(em, {
    type: 'BOOKING_APPROVAL',
    ...about(booking, acting),
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
  assertOperation(booking, 'DELIVER');
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
  booking.state = 'DELIVERED';
  recordEvent(em, {
    type: 'BOOKING_DELIVERED',
    ...about(booking, acting),
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
  assertOperation(booking, 'CHECK_IN');
  await assertPickupWindow(em, acting.tenant, booking, Date.parse(acting.at));
  booking.checkedInAt = new Date(acting.at);
  recordEvent(em, {
    type: 'BOOKING_CHECKED_IN',
    ...about(booking, acting),
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
  const recorded = await em.findOne(Event, { idempotencyKey: acting.idempotencyKey });
  if (recorded) return plan(Number(recorded.payload?.rentalId));
  assertOperation(booking, 'PICKUP');
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
    });
  const [{ id: rentalId }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  recordEvent(em, {
    type: 'BOOKING_PICKUP',
    ...about(booking, acting),
    description: acting.rentalAuthOverride ? 'pickup with rental authorisation override' : 'pickup',
    payload: { rentalId, additions: booking.additions, rentalAuthOverride: acting.rentalAuthOverride },
    idempotencyKey: acting.idempotencyKey,
  });
  await em.flush();
  return plan(rentalId);
}

/**
 * Called by the reservation of a booking's rental (activities/rental.ts), in its transaction: links the
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
  assertOperation(booking, 'CANCEL');
  const at = new Date(acting.at);
  const fee = booking.pricingBundleVersion ? await cancellationFee(em, booking, at.getTime()) : null;
  if (fee && !fee.cancellable && acting.enforceCancellable) throw new DomainError('B306');
  booking.state = 'CANCELED';
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
    type: 'BOOKING_CANCELED',
    ...about(booking, acting),
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
  acting: Acting & { reason: 'APPROVAL_DEADLINE' | 'NO_SHOW' | 'NO_VEHICLE' },
): Promise<BookingTimeline> {
  const booking = await lockedBooking(em, acting.bookingId);
  if (await alreadyRecorded(em, acting.idempotencyKey)) return timelineOf(em, acting.tenant, booking);
  assertOperation(booking, 'CANCEL');
  const at = new Date(acting.at);
  booking.state = acting.reason === 'NO_VEHICLE' ? 'ABORTED' : 'EXPIRED';
  if (acting.reason === 'APPROVAL_DEADLINE') booking.approvalState = 'DECLINED';
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
    type: booking.state === 'ABORTED' ? 'BOOKING_ABORTED' : 'BOOKING_EXPIRED',
    ...about(booking, acting),
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
      type: 'BOOKING_OVERDUE',
      ...about(booking, acting),
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
  booking.state = bookingStateAfterRental(started);
  if (started) booking.returnedAt = rental.endedAt ?? new Date(acting.at);
  // A one-way trip leaves the vehicle at the return station: it joins that station's pool and capacity
  // (the expected-vehicles rule of docs/bookings.md counts it there from the booking's end on).
  if (started && booking.endBranch.id !== booking.branch.id && booking.vehicle)
    await em.nativeUpdate(Vehicle, { id: booking.vehicle.id }, { branch: booking.endBranch.id });
  recordEvent(em, {
    type: started ? 'BOOKING_SUCCESSFUL' : 'BOOKING_ABORTED',
    ...about(booking, acting),
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
 * Extends the booking to a later end (also while its rental runs): B314 when the new end is not later,
 * breaks the window rules, or the vehicle or pool is not free for the longer hold.
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
      estimateBookingPrice(await pinnedBookingPricing(em, booking), window, booking.additions),
    );
  }
  recordEvent(em, {
    type: 'BOOKING_TIMESLOT',
    ...about(booking, acting),
    description: `extended to ${booking.endTime.toISOString()}`,
    payload: { endTime: booking.endTime.toISOString(), extension: true },
    idempotencyKey: acting.idempotencyKey,
  });
  await flushHold(em);
  return timelineOf(em, acting.tenant, booking);
}

/** Refuses an extension to `endMs` (B314 with the reason); run it in a transaction (it takes the pool lock). */
export async function assertExtendable(
  em: EntityManager,
  tenant: string,
  booking: Booking,
  endMs: number,
  nowMs: number,
): Promise<void> {
  const refuse = (reason: string) => {
    throw new DomainError('B314', reason);
  };
  if (['SUCCESSFUL', 'CANCELED', 'ABORTED', 'EXPIRED', 'DECLINED'].includes(booking.state))
    refuse(`the booking is ${booking.state}`);
  if (!Number.isSafeInteger(endMs) || endMs <= booking.endTime.getTime())
    refuse('the new end must be later than the current end');
  if (endMs <= nowMs) refuse('the new end must be in the future');
  const settings = await bookingSettingsOf(em, tenant, booking.branch.id);
  const refused = bookingWindowRefusal({ startMs: booking.startTime.getTime(), endMs }, nowMs, settings, {
    ignoreTimeConstraints: true,
  });
  if (refused) refuse(refused.reason);
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
