import {
  ApplicationFailure,
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RentalActivities } from '../activities/rental.js';
import {
  operationRefusal,
  renewedReservationExpiry,
  terminalRentalStates,
  type RentalState,
} from '../domain/rental.js';
import { baseCode, catalogueEntry } from '../domain/errors.js';
import {
  awaitReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalStatusQuery,
  type RentalOperationRequest,
  type RentalWorkflowInput,
  type RentalWorkflowResult,
  type RentalWorkflowSnapshot,
} from './rental.messages.js';
import { EntityStateKey } from './search-attributes.js';

/** Business refusals raised by activities; retrying them cannot help. */
const nonRetryableTypes = ['R102', 'R103', 'R104', 'R201', 'U106', 'U131', 'V404', 'V410', 'V502', 'R404'];

const records = proxyActivities<RentalActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
    nonRetryableErrorTypes: nonRetryableTypes,
  },
});

// A vehicle that does not answer is retried with the same command id (the device deduplicates), then
// reported; the operator is waiting on the HTTP call, so attempts are few.
const vehicle = proxyActivities<RentalActivities>({
  startToCloseTimeout: '40 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 2,
    nonRetryableErrorTypes: nonRetryableTypes,
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

  async function command(name: string, requestedBy: string, failureCode?: string, timeoutSeconds?: number) {
    try {
      return await vehicle.sendVehicleCommand({
        ...common,
        vehicleId: input.vehicleId,
        command: name,
        requestedBy,
        timeoutMs: (timeoutSeconds ?? 0) * 1000 || undefined,
      });
    } catch (error) {
      throw vehicleFailure(failureCode, error);
    }
  }

  async function runOperation(request: RentalOperationRequest): Promise<RentalWorkflowSnapshot> {
    const at = new Date().toISOString();
    const base = {
      ...common,
      at,
      requestedBy: request.requestedBy,
      adminOverride: request.adminOverride ?? false,
    };
    switch (request.operationType) {
      case 'START': {
        const reply = await command('UNLOCK', request.requestedBy, 'R173', snapshot.startTimeoutSeconds);
        await records.recordRentalTransition({
          ...base,
          expectedStates: ['RESERVATION'],
          state: 'ACTIVE',
          activeMode: 'DRIVING',
          eventType: 'RENTAL_START',
          vehicle: reply.vehicle,
          started: true,
        });
        snapshot.activeMode = 'DRIVING';
        setState('ACTIVE');
        break;
      }
      case 'END': {
        const reply = await command('LOCK', request.requestedBy, 'R174');
        await records.recordRentalTransition({
          ...base,
          expectedStates: ['ACTIVE'],
          state: 'ENDED',
          activeMode: null,
          eventType: 'RENTAL_END',
          vehicle: reply.vehicle,
          ended: true,
          position: request.userPosition,
        });
        snapshot.activeMode = undefined;
        setState('ENDED');
        break;
      }
      case 'PARK':
      case 'DRIVE': {
        const parking = request.operationType === 'PARK';
        const reply = await command(parking ? 'LOCK' : 'UNLOCK', request.requestedBy);
        await records.recordRentalTransition({
          ...base,
          expectedStates: ['ACTIVE'],
          state: 'ACTIVE',
          activeMode: parking ? 'PARKING' : 'DRIVING',
          eventType: parking ? 'RENTAL_PARK' : 'RENTAL_DRIVE',
          vehicle: reply.vehicle,
        });
        snapshot.activeMode = parking ? 'PARKING' : 'DRIVING';
        break;
      }
      case 'RENEW_RESERVATION': {
        const expiry = renewedReservationExpiry(
          snapshot.reservedAtMs ?? Date.now(),
          snapshot.reservationExpiresAtMs ?? Date.now(),
          Date.now(),
          snapshot.reservationSettings!,
        );
        if (expiry === undefined) throw refusal('R203');
        await records.recordRentalTransition({
          ...base,
          expectedStates: ['RESERVATION'],
          state: 'RESERVATION',
          eventType: 'RENTAL_RENEW_RESERVATION',
          reservationExpiresAt: new Date(expiry).toISOString(),
        });
        snapshot.reservationExpiresAtMs = expiry;
        break;
      }
      case 'OPEN_TAILBOX': {
        const reply = await command('OPEN_TAILBOX', request.requestedBy);
        await records.recordRentalTransition({
          ...base,
          expectedStates: ['ACTIVE'],
          state: 'ACTIVE',
          eventType: 'RENTAL_OPEN_TAILBOX',
          vehicle: reply.vehicle,
        });
        break;
      }
    }
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
    cancelReservationUpdate,
    ({ requestedBy }) =>
      exclusively('CANCEL', async () => {
        await records.recordRentalTransition({
          ...common,
          at: new Date().toISOString(),
          requestedBy,
          adminOverride: false,
          expectedStates: ['RESERVATION'],
          state: 'CANCELLED',
          eventType: 'RENTAL_CANCEL_RESERVATION',
          ended: true,
        });
        setState('CANCELLED');
        return view();
      }),
    {
      validator: (_request) => {
        assertIdle();
        if (snapshot.state !== 'RESERVATION')
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
      });
      Object.assign(snapshot, {
        reservedAtMs: reservation.reservedAtMs,
        reservationExpiresAtMs: reservation.reservationExpiresAtMs,
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
        await exclusively('EXPIRE', async () => {
          await records.recordRentalTransition({
            ...common,
            at: new Date(deadline).toISOString(),
            requestedBy: 'system:reservation-timer',
            adminOverride: false,
            expectedStates: ['RESERVATION'],
            state: 'EXPIRED',
            eventType: 'RENTAL_RESERVATION_EXPIRED',
            ended: true,
          });
          setState('EXPIRED');
        });
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
  return { rentalId: input.rentalId, state: snapshot.state };
}
