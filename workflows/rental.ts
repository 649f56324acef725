import {
  ApplicationFailure,
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RentalActivities } from '../activities/rental.js';
import {
  operationRefusal,
  rentalTransitions,
  renewedReservationExpiry,
  reservationPurchaseRefusal,
  terminalRentalStates,
  transitionRefusal,
  type RentalState,
  type RentalTransitionName,
} from '../domain/rental.js';
import { baseCode, catalogueEntry } from '../domain/errors.js';
import {
  awaitReservationUpdate,
  buyReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalStatusQuery,
  type RentalOperationRequest,
  type RentalWorkflowInput,
  type RentalWorkflowResult,
  type RentalWorkflowSnapshot,
} from './rental.messages.js';
import { EntityStateKey } from './search-attributes.js';
import { bookingWorkflowId, rentalEndedSignal } from './booking.messages.js';

// Business refusals arrive as non-retryable ApplicationFailures (activities/support.ts); everything else
// (database, broker, network) is an infrastructure fault and retries with backoff.
const records = proxyActivities<RentalActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
});

// A transition with its vehicle command: a vehicle that does not answer is asked once more with the same
// command id (the device deduplicates; the activity makes the second timeout final, as the operator is
// waiting), database faults retry. The activity heartbeats while it waits for the device: a worker that
// dies mid-command is noticed in seconds and the step resumes, with the same id, on another worker.
const vehicleSteps = proxyActivities<RentalActivities>({
  startToCloseTimeout: '40 seconds',
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 6,
  },
});

function refusal(code: string, message?: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({
    type: code,
    message: message ?? catalogueEntry(code).meaning,
    nonRetryable: true,
    details: details ? [details] : undefined,
  });
}

/** The ApplicationFailure behind an activity failure when it carries a catalogue code, so the code reaches the API unchanged. */
function businessFailure(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type && baseCode(cause.type) ? cause : undefined;
}

/** A vehicle-communication failure during an operation, reported with the operation's catalogue code. */
function vehicleFailure(operationCode: string | undefined, error: unknown): ApplicationFailure {
  const cause = businessFailure(error);
  const code = operationCode ?? cause?.type ?? 'V504';
  const reason = cause?.message ?? 'vehicle did not answer';
  return refusal(code, `${catalogueEntry(code).meaning}: ${reason}`, {
    vehicleErrorCode: cause?.type ?? 'V504',
  });
}

/** One rental from reservation to its end: owns every transition, the reservation timer and the vehicle commands. */
export async function rentalWorkflow(input: RentalWorkflowInput): Promise<RentalWorkflowResult> {
  const snapshot: RentalWorkflowSnapshot = input.resume ?? {
    rentalId: input.rentalId,
    state: 'PENDING',
    disallowedOperations: [],
    hasTailbox: false,
  };
  let reservationFailure: ApplicationFailure | undefined;
  const common = { tenant: input.tenant, rentalId: input.rentalId };
  const view = (): RentalWorkflowSnapshot => ({ ...snapshot });

  const setState = (state: RentalWorkflowSnapshot['state']) => {
    snapshot.state = state;
    upsertSearchAttributes([{ key: EntityStateKey, value: state }]);
  };

  /**
   * Runs one row of the transition table in one activity: the vehicle command (if the row has one), then
   * the recorded transition. A vehicle failure is reported with the operation's code and recorded as
   * RENTAL_OPERATION_FAILED; other refusals pass through unchanged.
   */
  async function transition(
    name: RentalTransitionName,
    request: { requestedBy: string; adminOverride?: boolean; userPosition?: { lat: number; lng: number } },
    at = new Date(),
    reservationExpiresAtMs?: number,
  ): Promise<void> {
    const row = rentalTransitions[name];
    let recorded;
    try {
      recorded = await vehicleSteps.performRentalTransition({
        ...common,
        transition: name,
        at: at.toISOString(),
        requestedBy: request.requestedBy,
        adminOverride: request.adminOverride ?? false,
        position: request.userPosition,
        reservationExpiresAt:
          reservationExpiresAtMs === undefined ? undefined : new Date(reservationExpiresAtMs).toISOString(),
        freeReservationExpiresAt:
          snapshot.freeReservationExpiresAtMs === undefined
            ? undefined
            : new Date(snapshot.freeReservationExpiresAtMs).toISOString(),
        vehicleId: input.vehicleId,
        vehicleCommand: row.vehicleCommand,
        commandTimeoutMs:
          name === 'START' && snapshot.startTimeoutSeconds ? snapshot.startTimeoutSeconds * 1000 : undefined,
      });
    } catch (error) {
      const cause = businessFailure(error);
      if (!row.vehicleCommand || (cause && !cause.type!.startsWith('V'))) throw cause ?? error;
      const failure = vehicleFailure(row.vehicleFailureCode, error);
      await records.recordOperationFailure({
        ...common,
        operation: name,
        code: failure.type ?? 'V504',
        message: failure.message,
        at: new Date().toISOString(),
        requestedBy: request.requestedBy,
      });
      throw failure;
    }
    if (row.activeMode !== undefined) snapshot.activeMode = row.activeMode ?? undefined;
    if (reservationExpiresAtMs !== undefined) snapshot.reservationExpiresAtMs = reservationExpiresAtMs;
    if (recorded.state !== snapshot.state) setState(recorded.state);
  }

  async function runOperation(request: RentalOperationRequest): Promise<RentalWorkflowSnapshot> {
    let expiry: number | undefined;
    let freeExpiry: number | undefined;
    if (request.operationType === 'RENEW_RESERVATION') {
      freeExpiry = renewedReservationExpiry(
        snapshot.reservedAtMs ?? Date.now(),
        snapshot.freeReservationExpiresAtMs ?? Date.now(),
        Date.now(),
        snapshot.reservationSettings!,
        snapshot.allowanceMinutes ?? snapshot.reservationSettings!.reservationMaxMinutes,
      );
      if (freeExpiry === undefined) throw refusal('R203');
      expiry = freeExpiry + (snapshot.paidReservationMinutes ?? 0) * 60_000;
    }
    await transition(request.operationType, request, new Date(), expiry);
    if (freeExpiry !== undefined) snapshot.freeReservationExpiresAtMs = freeExpiry;
    return view();
  }

  /** Runs one state-changing step at a time; the validators reject anything else meanwhile (R202). */
  async function exclusively<T>(
    name: RentalWorkflowSnapshot['operationInProgress'],
    step: () => Promise<T>,
  ): Promise<T> {
    snapshot.operationInProgress = name;
    try {
      return await step();
    } finally {
      snapshot.operationInProgress = undefined;
    }
  }

  function assertIdle(): void {
    if (snapshot.operationInProgress)
      throw refusal('R202', `${catalogueEntry('R202').meaning} (${snapshot.operationInProgress})`);
  }

  setHandler(rentalStatusQuery, view);

  let initialStepsDone = Boolean(input.resume);
  setHandler(awaitReservationUpdate, async () => {
    await condition(() => initialStepsDone);
    if (reservationFailure) throw reservationFailure;
    return view();
  });

  setHandler(
    rentalOperationUpdate,
    (request) => exclusively(request.operationType, () => runOperation(request)),
    {
      validator: (request) => {
        assertIdle();
        if (snapshot.state === 'PENDING' || snapshot.state === 'REJECTED') throw refusal('R201');
        const refused = operationRefusal(
          request.operationType,
          snapshot.state,
          snapshot.activeMode,
          snapshot.disallowedOperations,
        );
        if (refused)
          throw refusal(
            refused,
            `${catalogueEntry(refused).meaning}: ${request.operationType} in ${snapshot.state}`,
          );
        if (request.operationType === 'OPEN_TAILBOX' && !snapshot.hasTailbox)
          throw refusal('R204', 'this vehicle has no tailbox');
      },
    },
  );

  setHandler(
    buyReservationUpdate,
    ({ minutes, requestedBy }) =>
      exclusively('BUY_RESERVATION', async () => {
        const expiry = snapshot.reservationExpiresAtMs! + minutes * 60_000;
        await records.recordReservationPurchase({
          ...common,
          minutes,
          reservationExpiresAt: new Date(expiry).toISOString(),
          at: new Date().toISOString(),
          requestedBy,
        });
        snapshot.paidReservationMinutes = (snapshot.paidReservationMinutes ?? 0) + minutes;
        snapshot.reservationExpiresAtMs = expiry;
        return view();
      }),
    {
      validator: ({ minutes }) => {
        assertIdle();
        if (snapshot.state !== 'RESERVATION')
          throw refusal(
            'R205',
            `reservation minutes are sold only in RESERVATION; the rental is ${snapshot.state}`,
          );
        const refused = reservationPurchaseRefusal(
          minutes,
          snapshot.paidReservationMinutes ?? 0,
          snapshot.reservationSettings!,
        );
        if (refused) throw refusal('R205', refused);
      },
    },
  );

  setHandler(
    cancelReservationUpdate,
    ({ requestedBy }) =>
      exclusively('CANCEL', async () => {
        await transition('CANCEL', { requestedBy });
        return view();
      }),
    {
      validator: (_request) => {
        assertIdle();
        if (
          snapshot.state === 'PENDING' ||
          snapshot.state === 'REJECTED' ||
          transitionRefusal('CANCEL', snapshot.state, snapshot.activeMode)
        )
          throw refusal('R201', `only a reservation can be cancelled; the rental is ${snapshot.state}`);
      },
    },
  );

  if (!input.resume) {
    try {
      const reservation = await records.reserveRental({
        ...common,
        branchId: input.branchId,
        vehicleId: input.vehicleId,
        customerId: input.customerId,
        requestedBy: input.requestedBy,
        at: new Date().toISOString(),
        userGroupId: input.userGroupId,
        costCenterId: input.costCenterId,
        reason: input.reason,
        bookingId: input.bookingId,
      });
      Object.assign(snapshot, {
        reservedAtMs: reservation.reservedAtMs,
        reservationExpiresAtMs: reservation.reservationExpiresAtMs,
        freeReservationExpiresAtMs: reservation.reservationExpiresAtMs,
        allowanceMinutes: reservation.allowanceMinutes,
        paidReservationMinutes: 0,
        reservationSettings: reservation.settings,
        disallowedOperations: reservation.disallowedOperations,
        hasTailbox: reservation.hasTailbox,
        startTimeoutSeconds: reservation.startTimeoutSeconds,
      });
      setState('RESERVATION');
    } catch (error) {
      reservationFailure = businessFailure(error) ?? refusal('R170', 'the reservation could not be recorded');
      setState('REJECTED');
      initialStepsDone = true;
      await condition(allHandlersFinished);
      await notifyBooking(input, 'REJECTED');
      return { rentalId: input.rentalId, state: 'REJECTED' };
    }
    if (input.startImmediately) {
      // A failed immediate start leaves a valid reservation: the caller sees RESERVATION and may retry START.
      await exclusively('START', () =>
        runOperation({ operationType: 'START', requestedBy: input.requestedBy }),
      ).catch(() => undefined);
    }
    initialStepsDone = true;
  }

  while (!terminalRentalStates.includes(snapshot.state as RentalState)) {
    if (snapshot.state === 'RESERVATION') {
      const deadline = snapshot.reservationExpiresAtMs!;
      const remaining = deadline - Date.now();
      if (remaining > 0) {
        await condition(
          () => snapshot.state !== 'RESERVATION' || snapshot.reservationExpiresAtMs !== deadline,
          remaining,
        );
      } else if (snapshot.operationInProgress) {
        await condition(() => !snapshot.operationInProgress);
      } else {
        await exclusively('EXPIRE', () =>
          transition('EXPIRE', { requestedBy: 'system:reservation-timer' }, new Date(deadline)),
        );
      }
    } else {
      await condition(
        () =>
          terminalRentalStates.includes(snapshot.state as RentalState) ||
          (workflowInfo().continueAsNewSuggested && !snapshot.operationInProgress),
      );
      if (!terminalRentalStates.includes(snapshot.state as RentalState)) {
        // Rentals can last days: keep the history short; updates in flight finish first.
        await condition(allHandlersFinished);
        await continueAsNew<typeof rentalWorkflow>({ ...input, resume: view() });
      }
    }
  }
  await condition(allHandlersFinished);
  await notifyBooking(input, snapshot.state);
  return { rentalId: input.rentalId, state: snapshot.state };
}

/** Tells the booking whose pickup started this rental how it ended (bookings only; best effort). */
async function notifyBooking(
  input: RentalWorkflowInput,
  state: RentalWorkflowSnapshot['state'],
): Promise<void> {
  if (input.bookingId === undefined || state === 'PENDING') return;
  await getExternalWorkflowHandle(bookingWorkflowId(input.tenant, input.bookingId))
    .signal(rentalEndedSignal, { rentalId: input.rentalId, state })
    .catch(() => undefined);
}
