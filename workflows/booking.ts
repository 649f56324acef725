import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../activities/booking.js';
import {
  bookingTransitionRefusal,
  isTerminalBookingState,
  type BookingDeadlines,
  type BookingOperation,
  type BookingTimeline,
} from '../domain/booking.js';
import {
  awaitBookingUpdate,
  bookingApprovalUpdate,
  bookingStatusQuery,
  cancelBookingUpdate,
  checkInBookingUpdate,
  deliverBookingUpdate,
  extendBookingUpdate,
  pickupBookingUpdate,
  rentalEndedSignal,
  updateBookingUpdate,
  type BookingApprovalRequest,
  type BookingOperationName,
  type BookingRequested,
  type BookingWorkflowInput,
  type BookingWorkflowResult,
  type BookingWorkflowSnapshot,
  type CancelBookingRequest,
  type DeliverBookingRequest,
  type ExtendBookingRequest,
  type PickupBookingRequest,
  type RentalEnded,
  type UpdateBookingRequest,
} from './booking.messages.js';
import { rentalWorkflowStartOptions, RENTAL_WORKFLOW_TYPE } from './rental.messages.js';
import { EntityStateKey, VehicleIdKey } from './search-attributes.js';
import { EntityProcess } from './entity-process.js';
import { businessFailure, codedFailure, refusal } from './failures.js';

// Business refusals arrive as non-retryable ApplicationFailures (activities/support.ts); database faults
// retry with backoff.
const records = proxyActivities<BookingActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
});

/** How often the workflow looks for a free vehicle again when automatic delivery found none. */
const DELIVERY_RETRY_MS = 10 * 60_000;

/** One booking in its workflow: its snapshot, its steps and timer steps, and the validators of its updates. */
class BookingProcess extends EntityProcess<BookingOperationName, BookingWorkflowSnapshot> {
  private readonly common: { tenant: string; bookingId: number };
  /** Why the creation was refused: awaitBooking answers it. */
  private creationFailure: ApplicationFailure | undefined;
  /** The creation ran: awaitBooking may answer. */
  private created: boolean;
  /** Bumped by every recorded step: the timers wait for it to change. */
  private version = 0;

  constructor(private readonly input: BookingWorkflowInput) {
    super(
      input.resume ?? { bookingId: input.bookingId, state: 'PENDING', operationInProgress: 'CREATE' },
      'B313',
    );
    this.common = { tenant: input.tenant, bookingId: input.bookingId };
    this.created = Boolean(input.resume);
  }

  /** Whether the booking reached a state it never leaves (REJECTED: its creation was refused). */
  get ended(): boolean {
    return isTerminalBookingState(this.snapshot.state) || this.snapshot.state === 'REJECTED';
  }

  /** Who acts, now. */
  private acting(requestedBy: string) {
    return { ...this.common, requestedBy, at: new Date().toISOString() };
  }

  /** The acting system component; a timer's step happens at its deadline, whatever the worker's delay. */
  private system(what: string, atMs?: number) {
    return {
      ...this.acting(`system:booking-${what}`),
      ...(atMs === undefined ? {} : { at: new Date(atMs).toISOString() }),
    };
  }

  /** Takes a recorded step's timeline into the snapshot, keeping EntityState and VehicleId current. */
  private apply(timeline: BookingTimeline | null): void {
    if (!timeline) return;
    const stateChanged = timeline.state !== this.snapshot.state;
    const vehicleChanged = timeline.vehicleId !== this.snapshot.vehicleId;
    Object.assign(this.snapshot, timeline);
    this.version++;
    if (stateChanged) upsertSearchAttributes([{ key: EntityStateKey, value: timeline.state }]);
    if (vehicleChanged && timeline.vehicleId !== null)
      upsertSearchAttributes([{ key: VehicleIdKey, value: String(timeline.vehicleId) }]);
  }

  /** Runs an update's step exclusively and answers the snapshot after it. */
  private step(name: BookingOperationName, work: () => Promise<BookingTimeline | null>) {
    return this.exclusively(name, async () => {
      this.apply(await work());
      return this.view();
    });
  }

  /** The validators' check: one step at a time (B313), not ended (B304), then the transition table. */
  assertAllowed(operation: BookingOperation): void {
    const { snapshot } = this;
    this.assertIdle();
    if (this.ended) throw refusal('B304', `the booking is ${snapshot.state}`);
    const refused = bookingTransitionRefusal(operation, {
      state: snapshot.state as BookingTimeline['state'],
      approvalState: snapshot.approvalState ?? null,
      hasVehicle: snapshot.vehicleId != null,
      hasRental: snapshot.rentalId != null || snapshot.pickupRentalId != null,
    });
    if (refused) throw refusal(refused.code, refused.reason);
  }

  /** awaitBooking: answers once the booking was recorded, or its refusal. */
  async creation(): Promise<BookingWorkflowSnapshot> {
    await condition(() => this.created);
    if (this.creationFailure) throw this.creationFailure;
    return this.view();
  }

  /** updateBooking. */
  update(request: UpdateBookingRequest): Promise<BookingWorkflowSnapshot> {
    return this.step('UPDATE', () =>
      records.updateBooking({ ...this.acting(request.requestedBy), ...request }),
    );
  }

  /** bookingApproval. */
  decideApproval(request: BookingApprovalRequest): Promise<BookingWorkflowSnapshot> {
    return this.step('APPROVAL', () =>
      records.decideBookingApproval({
        ...this.acting(request.requestedBy),
        approved: request.approvalState === 'APPROVED',
        rejectionReason: request.rejectionReason,
      }),
    );
  }

  /** bookingApproval's validator: a declination names its reason (B308), then the table's APPROVE or DECLINE. */
  validateApproval(request: BookingApprovalRequest): void {
    if (request.approvalState === 'DECLINED' && !request.rejectionReason?.trim()) throw refusal('B308');
    this.assertAllowed(request.approvalState === 'APPROVED' ? 'APPROVE' : 'DECLINE');
  }

  /** deliverBooking. */
  deliver(request: DeliverBookingRequest): Promise<BookingWorkflowSnapshot> {
    return this.step('DELIVER', () =>
      records.deliverBooking({ ...this.acting(request.requestedBy), vehicleId: request.vehicleId }),
    );
  }

  /** checkInBooking. */
  checkIn(request: BookingRequested): Promise<BookingWorkflowSnapshot> {
    return this.step('CHECK_IN', () => records.checkInBooking(this.acting(request.requestedBy)));
  }

  /** pickupBooking: checks the pickup, then starts the rental workflow of the delivered vehicle as a child. */
  pickup(request: PickupBookingRequest): Promise<BookingWorkflowSnapshot> {
    const { snapshot, input } = this;
    return this.exclusively('PICKUP', async () => {
      const plan = await records.preparePickup({
        ...this.acting(request.requestedBy),
        rentalAuthOverride: request.rentalAuthOverride,
      });
      // Known before the child starts: its rentalEnded signal may arrive with the start's resolution.
      snapshot.pickupRentalId = plan.rentalId;
      snapshot.rentalEnded = undefined;
      // The rental outlives this run (continue-as-new) and reports its end with rentalEnded.
      await startChild(RENTAL_WORKFLOW_TYPE, {
        ...rentalWorkflowStartOptions(
          {
            tenant: input.tenant,
            rentalId: plan.rentalId,
            branchId: plan.branchId,
            vehicleId: plan.vehicleId,
            customerId: plan.customerId,
            requestedBy: request.requestedBy,
            startImmediately: true,
            userGroupId: plan.userGroupId,
            costCenterId: plan.costCenterId,
            reason: plan.reason,
            bookingId: input.bookingId,
          },
          workflowInfo().taskQueue,
        ),
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }).catch((error: unknown) => {
        snapshot.pickupRentalId = undefined;
        throw error;
      });
      this.version++;
      return this.view();
    });
  }

  /** cancelBooking. */
  cancel(request: CancelBookingRequest): Promise<BookingWorkflowSnapshot> {
    return this.step('CANCEL', () =>
      records.cancelBooking({ ...this.acting(request.requestedBy), ...request }),
    );
  }

  /** extendBooking. */
  extend(request: ExtendBookingRequest): Promise<BookingWorkflowSnapshot> {
    return this.step('EXTEND', () =>
      records.extendBooking({ ...this.acting(request.requestedBy), endTime: request.endTime }),
    );
  }

  /** rentalEnded: the rental of this booking's pickup reports its end (other rentals are ignored). */
  rentalEnded(ended: RentalEnded): void {
    if (ended.rentalId !== this.snapshot.pickupRentalId) return;
    this.snapshot.rentalEnded = ended;
    this.version++;
  }

  /** Records the new booking; a refusal makes it REJECTED (no row exists) and awaitBooking answers it. */
  async record(): Promise<void> {
    try {
      this.apply(
        await records.recordBooking({
          ...this.input.request,
          ...this.common,
          workflowId: workflowInfo().workflowId,
          at: new Date().toISOString(),
        }),
      );
    } catch (error) {
      this.creationFailure = codedFailure(error, 'B302', 'the booking could not be recorded');
      this.snapshot.state = 'REJECTED';
      upsertSearchAttributes([{ key: EntityStateKey, value: 'REJECTED' }]);
    }
    this.snapshot.operationInProgress = undefined;
    this.created = true;
  }

  /** Waits until `atMs`, or until a step changed the booking, or a continue-as-new is due. */
  private async waitUntil(atMs: number | undefined): Promise<void> {
    const seen = this.version;
    const changed = () => this.version !== seen || workflowInfo().continueAsNewSuggested;
    if (atMs === undefined) await condition(changed);
    else if (atMs > Date.now()) await condition(changed, atMs - Date.now());
  }

  /** A timer's own step, exclusive like the updates. */
  private timerStep(work: () => Promise<BookingTimeline | null>): Promise<void> {
    return this.exclusively('TIMER', async () => this.apply(await work()));
  }

  /** Picked up: the booking follows its rental (its end, or overdue past the end plus the grace period). */
  async followRental(deadlines: BookingDeadlines, now: number): Promise<void> {
    const { snapshot } = this;
    const rentalEnded = snapshot.rentalEnded;
    if (rentalEnded?.state === 'REJECTED') {
      // The reservation was refused: nothing was linked; the pickup may be tried again.
      snapshot.pickupRentalId = undefined;
      snapshot.rentalEnded = undefined;
      return;
    }
    if (rentalEnded) {
      await this.timerStep(() =>
        records.finishBookingAfterRental({ ...this.system('rental-end'), rentalId: rentalEnded.rentalId }),
      );
      return;
    }
    if (snapshot.overdueSinceMs == null && now >= deadlines.overdueAtMs) {
      await this.timerStep(() =>
        records.markBookingOverdue(this.system('overdue-timer', deadlines.overdueAtMs)),
      );
      return;
    }
    await this.waitUntil(snapshot.overdueSinceMs == null ? deadlines.overdueAtMs : undefined);
  }

  /** A request awaiting approval: expires at its approval deadline. */
  async awaitApproval(deadlines: BookingDeadlines, now: number): Promise<void> {
    if (now < deadlines.approvalDeadlineMs) {
      await this.waitUntil(deadlines.approvalDeadlineMs);
      return;
    }
    await this.timerStep(() =>
      records.expireBooking({
        ...this.system('approval-timer', deadlines.approvalDeadlineMs),
        reason: 'APPROVAL_DEADLINE',
      }),
    );
  }

  /**
   * No vehicle yet: delivers one automatically from the auto-delivery time on (again every
   * DELIVERY_RETRY_MS while none is free); aborts when the pickup window closed without one.
   */
  async deliverInTime(deadlines: BookingDeadlines, now: number): Promise<void> {
    const { snapshot } = this;
    if (now >= deadlines.noShowAtMs) {
      await this.timerStep(() =>
        records.expireBooking({
          ...this.system('delivery-timer', deadlines.noShowAtMs),
          reason: 'NO_VEHICLE',
        }),
      );
      return;
    }
    const next = Math.max(deadlines.autoDeliveryAtMs, snapshot.nextDeliveryAttemptMs ?? 0);
    if (now < next) {
      await this.waitUntil(Math.min(next, deadlines.noShowAtMs));
      return;
    }
    let delivered = false;
    await this.exclusively('TIMER', async () => {
      const timeline = await records.deliverBooking(this.system('delivery-timer')).catch((error: unknown) => {
        if (businessFailure(error)) return null;
        throw error;
      });
      delivered = timeline !== null;
      this.apply(timeline);
    });
    if (!delivered) snapshot.nextDeliveryAttemptMs = Date.now() + DELIVERY_RETRY_MS;
  }

  /** Delivered: pickup until the pickup window closes, then a no-show. */
  async awaitPickup(deadlines: BookingDeadlines, now: number): Promise<void> {
    if (now < deadlines.noShowAtMs) {
      await this.waitUntil(deadlines.noShowAtMs);
      return;
    }
    await this.timerStep(() =>
      records.expireBooking({ ...this.system('no-show-timer', deadlines.noShowAtMs), reason: 'NO_SHOW' }),
    );
  }
}

/**
 * One booking from creation to its end state: records it, runs approval, delivery, check-in, pickup
 * (which starts the rental workflow of the delivered vehicle) and cancellation as updates, and its
 * timers: approval deadline, automatic delivery, no-show, overdue return. See docs/bookings.md.
 */
export async function bookingWorkflow(input: BookingWorkflowInput): Promise<BookingWorkflowResult> {
  const booking = new BookingProcess(input);
  const { snapshot } = booking;

  setHandler(bookingStatusQuery, () => booking.view());
  setHandler(awaitBookingUpdate, () => booking.creation());
  setHandler(updateBookingUpdate, (request) => booking.update(request), {
    validator: (_request) => booking.assertAllowed('UPDATE'),
  });
  setHandler(bookingApprovalUpdate, (request) => booking.decideApproval(request), {
    validator: (request) => booking.validateApproval(request),
  });
  setHandler(deliverBookingUpdate, (request) => booking.deliver(request), {
    validator: (_request) => booking.assertAllowed('DELIVER'),
  });
  setHandler(checkInBookingUpdate, (request) => booking.checkIn(request), {
    validator: (_request) => booking.assertAllowed('CHECK_IN'),
  });
  setHandler(pickupBookingUpdate, (request) => booking.pickup(request), {
    validator: (_request) => booking.assertAllowed('PICKUP'),
  });
  setHandler(cancelBookingUpdate, (request) => booking.cancel(request), {
    validator: (_request) => booking.assertAllowed('CANCEL'),
  });
  setHandler(extendBookingUpdate, (request) => booking.extend(request), {
    validator: (_request) => booking.assertAllowed('EXTEND'),
  });
  setHandler(rentalEndedSignal, (ended) => booking.rentalEnded(ended));

  if (!input.resume) await booking.record();

  while (!booking.ended) {
    if (snapshot.operationInProgress) {
      await condition(() => !snapshot.operationInProgress);
      continue;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof bookingWorkflow>({ ...input, resume: booking.view() });
    }
    const deadlines = snapshot.deadlines!;
    const now = Date.now();
    if (snapshot.pickupRentalId !== undefined) await booking.followRental(deadlines, now);
    else if (snapshot.approvalState === 'PENDING') await booking.awaitApproval(deadlines, now);
    else if (snapshot.vehicleId == null) await booking.deliverInTime(deadlines, now);
    else await booking.awaitPickup(deadlines, now);
  }
  await condition(allHandlersFinished);
  return { bookingId: input.bookingId, state: snapshot.state };
}
