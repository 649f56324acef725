// Activities of the booking workflow: each opens one tenant transaction and runs one write of
// db/booking-creation.ts or db/booking-lifecycle.ts in it with the activity's idempotency key, and turns
// domain refusals into typed, non-retryable failures (asActivity). A fee invoiced by a cancellation or a
// no-show is billed automatically once its step committed.
import { inTenantTransaction, type EntityManager } from '../db/orm.js';
import { createBookingRecord, updateBookingRecord } from '../db/booking-creation.js';
import {
  cancelBookingRecord,
  checkInBooking,
  decideApproval,
  deliverVehicle,
  expireBookingRecord,
  extendBookingRecord,
  finishAfterRental,
  markBookingOverdue,
  preparePickup,
  type Acting,
  type PickupPlan,
} from '../db/booking-lifecycle.js';
import type {
  BookingChanges,
  BookingCreationInput,
  BookingTimeline,
  BookingTimerEnding,
} from '../domain/booking.js';
import type { ActivityDeps } from './deps.js';
import { activityIdempotencyKey, asActivity } from './support.js';
import { autoBillInvoiceOf } from './payment-billing.js';

/** Who acts and when, as the workflow sends it (the idempotency key is the activity's own). */
export type ActingInput = Omit<Acting, 'idempotencyKey'>;

/** Activities of the booking workflow. */
export function createBookingActivities(deps: ActivityDeps) {
  const { orm } = deps;
  /** One write in one tenant transaction under the activity's idempotency key. */
  const step = <T>(tenant: string, work: (em: EntityManager, key: string) => Promise<T>) => {
    const key = activityIdempotencyKey();
    return asActivity(() => inTenantTransaction(orm, tenant, (em) => work(em, key)));
  };
  /** After a step that may have invoiced a fee: bills it (`finance.invoice.autoBill`) once the step committed. */
  const billed = async (input: ActingInput, recorded: Promise<BookingTimeline>): Promise<BookingTimeline> => {
    const timeline = await recorded;
    await autoBillInvoiceOf(deps, input.tenant, { bookingId: input.bookingId }, activityIdempotencyKey());
    return timeline;
  };
  return {
    /** Records a new booking (admission, pricing, BOOKING_CREATED); idempotent per booking id. */
    recordBooking(
      input: Omit<BookingCreationInput, 'workflowId'> & { workflowId: string },
    ): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) => createBookingRecord(em, input, key));
    },
    /** Applies an update (re-admission excluding the booking itself). */
    updateBooking(
      input: ActingInput & { changes: BookingChanges; ignoreTimeConstraints: boolean },
    ): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) =>
        updateBookingRecord(em, { ...input, idempotencyKey: key }, input.changes),
      );
    },
    /** Approves or declines a request. */
    decideBookingApproval(
      input: ActingInput & { approved: boolean; rejectionReason?: string },
    ): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) => decideApproval(em, { ...input, idempotencyKey: key }, input));
    },
    /** Delivers the named vehicle, or (vehicleId absent) the first free one; null when none is free. */
    deliverBooking(input: ActingInput & { vehicleId?: number }): Promise<BookingTimeline | null> {
      return step(input.tenant, (em, key) =>
        deliverVehicle(em, { ...input, idempotencyKey: key }, input.vehicleId),
      );
    },
    /** Records the check-in. */
    checkInBooking(input: ActingInput): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) => checkInBooking(em, { ...input, idempotencyKey: key }));
    },
    /** Checks a pickup and allocates its rental id. */
    preparePickup(input: ActingInput & { rentalAuthOverride: boolean }): Promise<PickupPlan> {
      return step(input.tenant, (em, key) => preparePickup(em, { ...input, idempotencyKey: key }));
    },
    /** Cancels, invoicing the fee unless waived; the fee is billed once that committed. */
    cancelBooking(
      input: ActingInput & { waiveCancellationFee: boolean; reason?: string; enforceCancellable: boolean },
    ): Promise<BookingTimeline> {
      return billed(
        input,
        step(input.tenant, (em, key) => cancelBookingRecord(em, { ...input, idempotencyKey: key })),
      );
    },
    /** Ends the booking by a timer: EXPIRED (approval deadline, no-show) or ABORTED (no vehicle); a no-show fee is billed. */
    expireBooking(input: ActingInput & { reason: BookingTimerEnding }): Promise<BookingTimeline> {
      return billed(
        input,
        step(input.tenant, (em, key) => expireBookingRecord(em, { ...input, idempotencyKey: key })),
      );
    },
    /** Marks the booking's running rental overdue. */
    markBookingOverdue(input: ActingInput): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) => markBookingOverdue(em, { ...input, idempotencyKey: key }));
    },
    /** Ends the booking after its rental ended (SUCCESSFUL or ABORTED). */
    finishBookingAfterRental(input: ActingInput & { rentalId: number }): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) => finishAfterRental(em, { ...input, idempotencyKey: key }));
    },
    /** Extends the booking's end. */
    extendBooking(input: ActingInput & { endTime: string }): Promise<BookingTimeline> {
      return step(input.tenant, (em, key) => extendBookingRecord(em, { ...input, idempotencyKey: key }));
    },
  };
}

/** The activity interface the workflow proxies. */
export type BookingActivities = ReturnType<typeof createBookingActivities>;
