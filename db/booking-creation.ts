// A booking's admission writes: its creation and the updates that change what it holds (window,
// category, return station), both admitted under the station-category lock (`checkBookingAdmission`),
// with its pricing pinned and its price estimated. Same contract as db/booking-lifecycle.ts: inside the
// caller's transaction, one BOOKING_* event per step under the activity's idempotency key, the
// booking's timeline as the answer. See docs/bookings.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Booking } from './entities/Booking.js';
import { Branch } from './entities/Branch.js';
import { CostCenter } from './entities/CostCenter.js';
import { Customer } from './entities/Customer.js';
import { UserGroup } from './entities/UserGroup.js';
import { Vehicle } from './entities/Vehicle.js';
import { VehicleCategory } from './entities/VehicleCategory.js';
import { recordEvent } from './events.js';
import { assertNoDunningBlock } from './dunning.js';
import { assertPayerReady } from './payer-readiness.js';
import { checkBookingAdmission, heldWindow } from './booking-availability.js';
import {
  bookingPricingAt,
  bookingEstimateOwner,
  estimateBookingPriceFor,
  pinnedBookingPricing,
  setBookingPrice,
} from './booking-billing.js';
import {
  alreadyRecorded,
  assertTransition,
  bookingEventFields,
  bookingSettingsOf,
  flushHold,
  lockedBooking,
  timelineOf,
  type Acting,
} from './booking-lifecycle.js';
import { DomainError } from '../domain/errors.js';
import {
  bookingStateAfter,
  bookingTransitions,
  bookingWindowRefusal,
  type BookingChanges,
  type BookingCreationInput,
  type BookingTimeline,
} from '../domain/booking.js';

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
  // Dunning: no new booking while an invoice of the customer is unpaid past its grace period.
  await assertNoDunningBlock(em, input.tenant, customer.id, input.branchId, at);
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
  const userGroup = input.userGroupId === undefined ? null : await em.findOne(UserGroup, input.userGroupId);
  if (input.userGroupId !== undefined && !userGroup)
    throw new DomainError('UG404', `business account ${input.userGroupId} not found`);
  // The customer's (and the account's) applicable vouchers, read only: the estimate the final price meets.
  const price = await estimateBookingPriceFor(em, pricing, window, additions, {
    customerId: customer.id,
    userGroupId: userGroup?.id ?? null,
    branchId: branch.id,
    vehicleCategoryId: category.id,
  });
  // Readiness before anything is written: a booking that bills (its price, a cancellation or no-show
  // fee) needs a payer who can pay (P104: db/payer-readiness.ts).
  const cancellationFeeAmount = pricing.priced.rules.booking?.cancellation.fee ?? '0';
  if ([price.price.total, cancellationFeeAmount, settings.noShowFee].some((a) => new Decimal(a).gt(0)))
    await assertPayerReady(em, { customerId: customer.id, userGroupId: userGroup?.id ?? null });
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
  const approvalState = pending ? 'PENDING' : null;
  const booking = em.create(Booking, {
    id: input.bookingId,
    workflowId: input.workflowId,
    state: bookingStateAfter('CREATE', { approvalState, hasVehicle: vehicle !== null }),
    type: input.type,
    rentalType: userGroup ? 'BUSINESS' : input.rentalType,
    approvalState,
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
    type: bookingTransitions.CREATE.event,
    ...bookingEventFields(booking, acting),
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
      type: bookingTransitions.DELIVER.event,
      ...bookingEventFields(booking, acting),
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
  assertTransition(booking, 'UPDATE');
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
      await estimateBookingPriceFor(
        em,
        await pinnedBookingPricing(em, booking),
        window,
        booking.additions,
        bookingEstimateOwner(booking),
      ),
    );
  recordEvent(em, {
    type: bookingTransitions.UPDATE.event,
    ...bookingEventFields(booking, acting),
    description: described.length ? described.join('; ') : 'booking details updated',
    payload: { changes: { ...changes } },
    idempotencyKey: acting.idempotencyKey,
  });
  if (categoryChanged)
    recordEvent(em, {
      type: 'BOOKING_CATEGORY_CHANGED',
      ...bookingEventFields(booking, acting),
      payload: { vehicleCategoryId: categoryId },
      idempotencyKey: `${acting.idempotencyKey}/category`,
    });
  if (windowChanged)
    recordEvent(em, {
      type: 'BOOKING_TIMESLOT',
      ...bookingEventFields(booking, acting),
      payload: { startTime: booking.startTime.toISOString(), endTime: booking.endTime.toISOString() },
      idempotencyKey: `${acting.idempotencyKey}/timeslot`,
    });
  await flushHold(em);
  return timelineOf(em, acting.tenant, booking);
}
