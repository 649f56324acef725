import {
  ActivityFailure,
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
import type { BookingTimeline } from '../domain/booking.js';
import { bookingOperationRefusal, isTerminalBookingState, type BookingOperation } from '../domain/booking.js';
import { baseCode, catalogueEntry } from '../domain/errors.js';
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
  type BookingOperationName,
  type BookingWorkflowInput,
  type BookingWorkflowResult,
  type BookingWorkflowSnapshot,
} from './booking.messages.js';
import { rentalWorkflowStartOptions, RENTAL_WORKFLOW_TYPE } from './rental.messages.js';
import { EntityStateKey, VehicleIdKey } from './search-attributes.js';

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

function refusal(code: string, message?: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: code,
    message: message ?? catalogueEntry(code).meaning,
    nonRetryable: true,
  });
}

/** The ApplicationFailure behind an activity failure when it carries a catalogue code. */
function businessFailure(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type && baseCode(cause.type) ? cause : undefined;
}

/**
 * One booking from creation to its end state: records it, runs approval, delivery, check-in, pickup
 * (which starts the rental workflow of the delivered vehicle) and cancellation as updates, and its
 * timers: approval deadline, automatic delivery, no-show, overdue return. See docs/bookings.md.
 */
export async function bookingWorkflow(input: BookingWorkflowInput): Promise<BookingWorkflowResult> {
  const snapshot: BookingWorkflowSnapshot = input.resume ?? {
    bookingId: input.bookingId,
    state: 'PENDING',
    operationInProgress: 'CREATE',
  };
  const common = { tenant: input.tenant, bookingId: input.bookingId };
  const view = (): BookingWorkflowSnapshot => ({ ...snapshot });
  let creationFailure: ApplicationFailure | undefined;
  let created = Boolean(input.resume);
  /** Bumped by every recorded step: the timers wait for it to change. */
  let version = 0;

  const acting = (requestedBy: string) => ({ ...common, requestedBy, at: new Date().toISOString() });

  function apply(timeline: BookingTimeline | null): void {
    if (!timeline) return;
    const stateChanged = timeline.state !== snapshot.state;
    const vehicleChanged = timeline.vehicleId !== snapshot.vehicleId;
    Object.assign(snapshot, timeline);
    version++;
    if (stateChanged) upsertSearchAttributes([{ key: EntityStateKey, value: timeline.state }]);
    if (vehicleChanged && timeline.vehicleId !== null)
      upsertSearchAttributes([{ key: VehicleIdKey, value: String(timeline.vehicleId) }]);
  }

  /** Runs one state-changing step at a time; the validators reject anything else meanwhile (B313). */
  async function exclusively<T>(name: BookingOperationName, step: () => Promise<T>): Promise<T> {
    snapshot.operationInProgress = name;
    try {
      return await step();
    } finally {
      snapshot.operationInProgress = undefined;
    }
  }

  const ended = () => isTerminalBookingState(snapshot.state) || snapshot.state === 'REJECTED';

  function assertAllowed(operation: BookingOperation | 'EXTEND'): void {
    if (snapshot.operationInProgress)
      throw refusal('B313', `${catalogueEntry('B313').meaning} (${snapshot.operationInProgress})`);
    if (ended()) throw refusal('B304', `the booking is ${snapshot.state}`);
    if (operation === 'EXTEND') return;
    const refused = bookingOperationRefusal(operation, {
      state: snapshot.state as BookingTimeline['state'],
      approvalState: snapshot.approvalState ?? null,
      hasVehicle: snapshot.vehicleId != null,
      hasRental: snapshot.rentalId != null || snapshot.pickupRentalId != null,
    });
    if (refused) throw refusal(refused.code, refused.reason);
  }

  setHandler(bookingStatusQuery, view);

  setHandler(awaitBookingUpdate, async () => {
    await condition(() => created);
    if (creationFailure) throw creationFailure;
    return view();
  });

  setHandler(
    updateBookingUpdate,
    (request) =>
      exclusively('UPDATE', async () => {
        apply(await records.updateBooking({ ...acting(request.requestedBy), ...request }));
        return view();
      }),
    { validator: (_request) => assertAllowed('UPDATE') },
  );

  setHandler(
    bookingApprovalUpdate,
    (request) =>
      exclusively('APPROVAL', async () => {
        apply(
          await records.decideBookingApproval({
            ...acting(request.requestedBy),
            approved: request.approvalState === 'APPROVED',
            rejectionReason: request.rejectionReason,
          }),
        );
        return view();
      }),
    {
      validator: (request) => {
        if (request.approvalState === 'DECLINED' && !request.rejectionReason?.trim()) throw refusal('B308');
        assertAllowed(request.approvalState === 'APPROVED' ? 'APPROVE' : 'DECLINE');
      },
    },
  );

  setHandler(
    deliverBookingUpdate,
    (request) =>
      exclusively('DELIVER', async () => {
        apply(await records.deliverBooking({ ...acting(request.requestedBy), vehicleId: request.vehicleId }));
        return view();
      }),
    { validator: (_request) => assertAllowed('DELIVER') },
  );

  setHandler(
    checkInBookingUpdate,
    (request) =>
      exclusively('CHECK_IN', async () => {
        apply(await records.checkInBooking(acting(request.requestedBy)));
        return view();
      }),
    { validator: (_request) => assertAllowed('CHECK_IN') },
  );

  setHandler(
    pickupBookingUpdate,
    (request) =>
      exclusively('PICKUP', async () => {
        const plan = await records.preparePickup({
          ...acting(request.requestedBy),
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
        version++;
        return view();
      }),
    { validator: (_request) => assertAllowed('PICKUP') },
  );

  setHandler(
    cancelBookingUpdate,
    (request) =>
      exclusively('CANCEL', async () => {
        apply(await records.cancelBooking({ ...acting(request.requestedBy), ...request }));
        return view();
      }),
    { validator: (_request) => assertAllowed('CANCEL') },
  );

  setHandler(
    extendBookingUpdate,
    (request) =>
      exclusively('EXTEND', async () => {
        apply(await records.extendBooking({ ...acting(request.requestedBy), endTime: request.endTime }));
        return view();
      }),
    { validator: (_request) => assertAllowed('EXTEND') },
  );

  setHandler(rentalEndedSignal, (ended) => {
    if (ended.rentalId !== snapshot.pickupRentalId) return;
    snapshot.rentalEnded = ended;
    version++;
  });

  if (!input.resume) {
    try {
      apply(
        await records.recordBooking({
          ...input.request,
          ...common,
          workflowId: workflowInfo().workflowId,
          at: new Date().toISOString(),
        }),
      );
    } catch (error) {
      creationFailure = businessFailure(error) ?? refusal('B302', 'the booking could not be recorded');
      snapshot.state = 'REJECTED';
      upsertSearchAttributes([{ key: EntityStateKey, value: 'REJECTED' }]);
    }
    snapshot.operationInProgress = undefined;
    created = true;
  }

  /** Waits until `atMs`, or until a step changed the booking, or a continue-as-new is due. */
  async function waitUntil(atMs: number | undefined): Promise<void> {
    const seen = version;
    const changed = () => version !== seen || workflowInfo().continueAsNewSuggested;
    if (atMs === undefined) await condition(changed);
    else if (atMs > Date.now()) await condition(changed, atMs - Date.now());
  }

  /** A timer's own step, exclusive like the updates. */
  const timerStep = (step: () => Promise<BookingTimeline | null>) =>
    exclusively('TIMER', async () => apply(await step()));

  /** The acting system component; a timer's step happens at its deadline, whatever the worker's delay. */
  const system = (what: string, atMs?: number) => ({
    ...acting(`system:booking-${what}`),
    ...(atMs === undefined ? {} : { at: new Date(atMs).toISOString() }),
  });

  while (!ended()) {
    if (snapshot.operationInProgress) {
      await condition(() => !snapshot.operationInProgress);
      continue;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof bookingWorkflow>({ ...input, resume: view() });
    }
    const deadlines = snapshot.deadlines!;
    const now = Date.now();
    if (snapshot.pickupRentalId !== undefined) {
      // Picked up: the rental runs; the booking ends with it.
      const rentalEnded = snapshot.rentalEnded;
      if (rentalEnded?.state === 'REJECTED') {
        // The reservation was refused: nothing was linked; the pickup may be tried again.
        snapshot.pickupRentalId = undefined;
        snapshot.rentalEnded = undefined;
        continue;
      }
      if (rentalEnded) {
        await timerStep(() =>
          records.finishBookingAfterRental({ ...system('rental-end'), rentalId: rentalEnded.rentalId }),
        );
        continue;
      }
      if (snapshot.overdueSinceMs == null && now >= deadlines.overdueAtMs) {
        await timerStep(() => records.markBookingOverdue(system('overdue-timer', deadlines.overdueAtMs)));
        continue;
      }
      await waitUntil(snapshot.overdueSinceMs == null ? deadlines.overdueAtMs : undefined);
      continue;
    }
    if (snapshot.approvalState === 'PENDING') {
      if (now < deadlines.approvalDeadlineMs) {
        await waitUntil(deadlines.approvalDeadlineMs);
        continue;
      }
      await timerStep(() =>
        records.expireBooking({
          ...system('approval-timer', deadlines.approvalDeadlineMs),
          reason: 'APPROVAL_DEADLINE',
        }),
      );
      continue;
    }
    if (snapshot.vehicleId == null) {
      if (now >= deadlines.noShowAtMs) {
        await timerStep(() =>
          records.expireBooking({ ...system('delivery-timer', deadlines.noShowAtMs), reason: 'NO_VEHICLE' }),
        );
        continue;
      }
      const next = Math.max(deadlines.autoDeliveryAtMs, snapshot.nextDeliveryAttemptMs ?? 0);
      if (now < next) {
        await waitUntil(Math.min(next, deadlines.noShowAtMs));
        continue;
      }
      let delivered = false;
      await exclusively('TIMER', async () => {
        const timeline = await records.deliverBooking(system('delivery-timer')).catch((error: unknown) => {
          if (businessFailure(error)) return null;
          throw error;
        });
        delivered = timeline !== null;
        apply(timeline);
      });
      if (!delivered) snapshot.nextDeliveryAttemptMs = Date.now() + DELIVERY_RETRY_MS;
      continue;
    }
    // Delivered: pickup until the pickup window closes, then a no-show.
    if (now < deadlines.noShowAtMs) {
      await waitUntil(deadlines.noShowAtMs);
      continue;
    }
    await timerStep(() =>
      records.expireBooking({ ...system('no-show-timer', deadlines.noShowAtMs), reason: 'NO_SHOW' }),
    );
  }
  await condition(allHandlersFinished);
  return { bookingId: input.bookingId, state: snapshot.state };
}
