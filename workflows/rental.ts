import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  proxyLocalActivities,
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
import { catalogueEntry } from '../domain/errors.js';
import {
  awaitReservationUpdate,
  buyReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalStatusQuery,
  RENTAL_STEPS_VERSION,
  type BuyReservationRequest,
  type RentalOperationRequest,
  type RentalWorkflowInput,
  type RentalWorkflowResult,
  type RentalWorkflowSnapshot,
} from './rental.messages.js';
import { EntityStateKey } from './search-attributes.js';
import { bookingWorkflowId, rentalEndedSignal } from './booking.messages.js';
import { EntityProcess } from './entity-process.js';
import { businessFailure, codedFailure, refusal } from './failures.js';

// Business refusals arrive as non-retryable ApplicationFailures (activities/support.ts); everything else
// (database, broker, network) is an infrastructure fault and retries with backoff.
const recordOptions = {
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
} as const;
const remoteRecords = proxyActivities<RentalActivities>(recordOptions);

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

// The steps that only touch PostgreSQL (the reservation, bought minutes, a failed operation's record; the
// bill after END only in histories from before patch ended-rental-bill-after-answer-task) as local
// activities: run by the worker inside the workflow task that asked for them, so each costs no activity
// task round trip through the server and no extra workflow task, and its result is one marker in the
// history instead of three events and a new task. Same timeouts and retries; a worker that dies mid-step
// is noticed when the workflow task times out and the step runs again, under the same idempotency key, on
// the next worker. Not the vehicle steps: a local activity holds its workflow task open, and queries and
// Updates wait for it, while a vehicle may take 15 s to answer and a second operation must be refused at
// once (R202). Histories recorded before the patch replay with the activities as they were.
const localRecords = proxyLocalActivities<RentalActivities>(recordOptions);

/**
 * How a run takes its steps. A run stamped with `RENTAL_STEPS_VERSION` (every run started since, and every
 * continued one) takes them as they are now and asks no `patched()`: a patch records a marker and upserts
 * `TemporalChangeVersion`, a visibility write on the server, in every run that asks it. A run started before
 * the stamp decides by its patch markers, as recorded, in the order the patches were added.
 */
class RentalSteps {
  private readonly stamped: boolean;

  constructor(input: RentalWorkflowInput) {
    this.stamped = (input.stepsVersion ?? 0) >= 1;
  }

  /**
   * Whether an ending step bills its invoice itself (in a transaction after its own, after its answer)
   * and starts the payment without waiting for it, so the run has no bill activity after the answer. An
   * unstamped run's new executions record this marker, and only this one: it implies `current`.
   */
  billsInStep(): boolean {
    return this.stamped || patched('rental-steps-2026-12-billed-in-step');
  }

  /**
   * Whether this run takes the rental's steps as they are now: the PostgreSQL-only steps as local
   * activities, an ending step billed after its answer (by an activity in the next task, or since
   * `billsInStep` in the step itself). Unstamped runs started before it replay through the patches that
   * introduced its parts.
   */
  current(): boolean {
    return this.billsInStep() || patched('rental-steps-2026-12');
  }

  /** The PostgreSQL-only steps as this run takes them: local once the patch is in, else as before. */
  records(): typeof remoteRecords {
    return this.current() || patched('rental-records-as-local-activities') ? localRecords : remoteRecords;
  }

  /** Whether an ending step leaves its invoice to billEndedRental, after the operation answered. */
  billsAfterAnswer(): boolean {
    return this.current() || patched('ended-rental-billed-after-answer');
  }

  /** How billEndedRental runs, in runs that have it: an activity in the task after the answer's. */
  billAfterAnswer(): typeof remoteRecords {
    return this.current() || patched('ended-rental-bill-after-answer-task') ? remoteRecords : this.records();
  }

  /** Whether a refused reservation waits for awaitReservation before its run ends. */
  refusalWaitsForItsAnswer(): boolean {
    return this.stamped || patched('refused-reservation-waits-for-its-answer');
  }
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

type RentalStepName = NonNullable<RentalWorkflowSnapshot['operationInProgress']>;

/** Who asks for a transition, and what END's override and force-end position add. */
interface TransitionRequest {
  requestedBy: string;
  adminOverride?: boolean;
  userPosition?: { lat: number; lng: number };
}

/** One rental in its workflow: its snapshot, its steps and the validators of its updates. */
class RentalProcess extends EntityProcess<RentalStepName, RentalWorkflowSnapshot> {
  private readonly common: { tenant: string; rentalId: number };
  /** Why the reservation was refused: awaitReservation answers it. */
  private reservationFailure: ApplicationFailure | undefined;
  /** The reservation (and an immediate start) ran: awaitReservation may answer. */
  private initialStepsDone: boolean;
  /** awaitReservation was asked (and answered): a refused rental may end. */
  reservationAnswered = false;
  /** The ending transition left its invoice to billEndedRental, after the operation answered. */
  billingDue = false;
  /** How this run takes its steps: by its stamp, or by its patch markers. */
  readonly steps: RentalSteps;

  constructor(private readonly input: RentalWorkflowInput) {
    super(
      input.resume ?? {
        rentalId: input.rentalId,
        state: 'PENDING',
        disallowedOperations: [],
        hasTailbox: false,
      },
      'R202',
    );
    this.common = { tenant: input.tenant, rentalId: input.rentalId };
    this.initialStepsDone = Boolean(input.resume);
    this.steps = new RentalSteps(input);
  }

  /** What billEndedRental bills. */
  get billingInput(): { tenant: string; rentalId: number } {
    return this.common;
  }

  /** Whether the rental reached a state it never leaves. */
  get ended(): boolean {
    return terminalRentalStates.includes(this.snapshot.state as RentalState);
  }

  /**
   * Takes a new state and keeps EntityState current. A visibility write is what an upsert costs the
   * server, so a run since patch rental-steps-2026-12-billed-in-step upserts only a value the attribute
   * does not hold yet (a new run starts as RESERVATION); runs from before upsert every change, as recorded.
   */
  private setState(state: RentalWorkflowSnapshot['state']): void {
    this.snapshot.state = state;
    if (this.steps.billsInStep() && workflowInfo().typedSearchAttributes.get(EntityStateKey) === state)
      return;
    upsertSearchAttributes([{ key: EntityStateKey, value: state }]);
  }

  /**
   * Runs one row of the transition table in one activity: the vehicle command (if the row has one), then
   * the recorded transition. A vehicle failure is reported with the operation's code and recorded as
   * RENTAL_OPERATION_FAILED; other refusals pass through unchanged.
   */
  private async transition(
    name: RentalTransitionName,
    request: TransitionRequest,
    at = new Date(),
    reservationExpiresAtMs?: number,
  ): Promise<void> {
    const { snapshot, common, input } = this;
    const row = rentalTransitions[name];
    // An ending step bills its invoice itself and starts the payment without waiting for it; in runs from
    // before, the invoice was billed after the operation answered (billEndedRental).
    const billedInStep = row.ends === true && this.steps.billsInStep();
    const billsAfterAnswer = row.ends === true && !billedInStep && this.steps.billsAfterAnswer();
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
        ...(billsAfterAnswer ? { billsAfterAnswer } : {}),
        ...(billedInStep ? { billsInStep: true } : {}),
      });
    } catch (error) {
      const cause = businessFailure(error);
      if (!row.vehicleCommand || (cause && !cause.type!.startsWith('V'))) throw cause ?? error;
      const failure = vehicleFailure(row.vehicleFailureCode, error);
      await this.steps.records().recordOperationFailure({
        ...common,
        operation: name,
        code: failure.type ?? 'V504',
        message: failure.message,
        at: new Date().toISOString(),
        requestedBy: request.requestedBy,
      });
      throw failure;
    }
    if (billsAfterAnswer) this.billingDue = true;
    if (row.activeMode !== undefined) snapshot.activeMode = row.activeMode ?? undefined;
    if (reservationExpiresAtMs !== undefined) snapshot.reservationExpiresAtMs = reservationExpiresAtMs;
    if (recorded.state !== snapshot.state) this.setState(recorded.state);
  }

  /** Runs an operation of POST /operation; RENEW_RESERVATION first computes the renewed expiry (R203). */
  private async runOperation(request: RentalOperationRequest): Promise<RentalWorkflowSnapshot> {
    const { snapshot } = this;
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
    await this.transition(request.operationType, request, new Date(), expiry);
    if (freeExpiry !== undefined) snapshot.freeReservationExpiresAtMs = freeExpiry;
    return this.view();
  }

  /** awaitReservation: answers once the reservation was made, or its refusal. */
  async reservation(): Promise<RentalWorkflowSnapshot> {
    await condition(() => this.initialStepsDone);
    this.reservationAnswered = true;
    if (this.reservationFailure) throw this.reservationFailure;
    return this.view();
  }

  /** rentalOperation: one operation, exclusive. */
  operate(request: RentalOperationRequest): Promise<RentalWorkflowSnapshot> {
    return this.exclusively(request.operationType, () => this.runOperation(request));
  }

  /** rentalOperation's validator: the transition table, the disallowed operations and the tailbox. */
  validateOperation(request: RentalOperationRequest): void {
    const { snapshot } = this;
    this.assertIdle();
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
  }

  /** buyReservation: records the bought minutes and moves the expiry. */
  buyReservation({ minutes, requestedBy }: BuyReservationRequest): Promise<RentalWorkflowSnapshot> {
    const { snapshot } = this;
    return this.exclusively('BUY_RESERVATION', async () => {
      const expiry = snapshot.reservationExpiresAtMs! + minutes * 60_000;
      await this.steps.records().recordReservationPurchase({
        ...this.common,
        minutes,
        reservationExpiresAt: new Date(expiry).toISOString(),
        at: new Date().toISOString(),
        requestedBy,
      });
      snapshot.paidReservationMinutes = (snapshot.paidReservationMinutes ?? 0) + minutes;
      snapshot.reservationExpiresAtMs = expiry;
      return this.view();
    });
  }

  /** buyReservation's validator: only in RESERVATION, within the setting's maximum (R205). */
  validateReservationPurchase({ minutes }: BuyReservationRequest): void {
    const { snapshot } = this;
    this.assertIdle();
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
  }

  /** cancelReservation: the CANCEL row. */
  cancelReservation({ requestedBy }: { requestedBy: string }): Promise<RentalWorkflowSnapshot> {
    return this.exclusively('CANCEL', async () => {
      await this.transition('CANCEL', { requestedBy });
      return this.view();
    });
  }

  /** cancelReservation's validator: only a reservation (R201). */
  validateCancellation(): void {
    const { snapshot } = this;
    this.assertIdle();
    if (
      snapshot.state === 'PENDING' ||
      snapshot.state === 'REJECTED' ||
      transitionRefusal('CANCEL', snapshot.state, snapshot.activeMode)
    )
      throw refusal('R201', `only a reservation can be cancelled; the rental is ${snapshot.state}`);
  }

  /** Makes the reservation (RESERVATION); false when it was refused (REJECTED, awaitReservation answers why). */
  async reserve(): Promise<boolean> {
    const { input } = this;
    try {
      const reservation = await this.steps.records().reserveRental({
        ...this.common,
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
      Object.assign(this.snapshot, {
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
      this.setState('RESERVATION');
      return true;
    } catch (error) {
      this.reservationFailure = codedFailure(error, 'R170', 'the reservation could not be recorded');
      this.setState('REJECTED');
      this.initialStepsDone = true;
      return false;
    }
  }

  /** Starts at once when the creation asked for it, then lets awaitReservation answer. */
  async startIfAsked(): Promise<void> {
    if (this.input.startImmediately) {
      // A failed immediate start leaves a valid reservation: the caller sees RESERVATION and may retry START.
      await this.exclusively('START', () =>
        this.runOperation({ operationType: 'START', requestedBy: this.input.requestedBy }),
      ).catch(() => undefined);
    }
    this.initialStepsDone = true;
  }

  /** The reservation timer's step: EXPIRE at the deadline it waited for. */
  expire(deadline: number): Promise<void> {
    return this.exclusively('EXPIRE', () =>
      this.transition('EXPIRE', { requestedBy: 'system:reservation-timer' }, new Date(deadline)),
    );
  }
}

/** One rental from reservation to its end: owns every transition, the reservation timer and the vehicle commands. */
export async function rentalWorkflow(input: RentalWorkflowInput): Promise<RentalWorkflowResult> {
  const rental = new RentalProcess(input);
  const { snapshot } = rental;

  setHandler(rentalStatusQuery, () => rental.view());
  setHandler(awaitReservationUpdate, () => rental.reservation());
  setHandler(rentalOperationUpdate, (request) => rental.operate(request), {
    validator: (request) => rental.validateOperation(request),
  });
  setHandler(buyReservationUpdate, (request) => rental.buyReservation(request), {
    validator: (request) => rental.validateReservationPurchase(request),
  });
  setHandler(cancelReservationUpdate, (request) => rental.cancelReservation(request), {
    validator: (_request) => rental.validateCancellation(),
  });

  if (!input.resume) {
    if (!(await rental.reserve())) {
      // The API asks awaitReservation right after the start: a refusal that ended the workflow first would
      // reach it as "no longer running" (R201) instead of its own code. Wait for the question a while.
      if (rental.steps.refusalWaitsForItsAnswer())
        await condition(() => rental.reservationAnswered, '30 seconds');
      await condition(allHandlersFinished);
      await notifyBooking(input, 'REJECTED');
      return { rentalId: input.rentalId, state: 'REJECTED' };
    }
    await rental.startIfAsked();
  }

  while (!rental.ended) {
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
        await rental.expire(deadline);
      }
    } else {
      await condition(
        () => rental.ended || (workflowInfo().continueAsNewSuggested && !snapshot.operationInProgress),
      );
      if (!rental.ended) {
        // Rentals can last days: keep the history short; updates in flight finish first.
        await condition(allHandlersFinished);
        // The next run is a new one: it takes the steps as they are now, stamped.
        await continueAsNew<typeof rentalWorkflow>({
          ...input,
          stepsVersion: RENTAL_STEPS_VERSION,
          resume: rental.view(),
        });
      }
    }
  }
  await condition(allHandlersFinished);
  // END has answered the rider; its invoice is billed and its payment started now, in an activity: the
  // answer leaves with the workflow task that completed the Update, and a local activity here would hold
  // that task, and the rider's answer with it, until the bill and the payment's start were done.
  if (rental.billingDue) {
    await rental.steps.billAfterAnswer().billEndedRental(rental.billingInput);
  }
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
