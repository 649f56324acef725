// The payment workflow: one per payment (`payment:{tenant}:{paymentId}`), from its first attempt to PAID,
// FAILED or COLLECTIONS. Attempts follow the retry schedule of `finance.payment.retry` (a gateway's
// Retry-After wins), manual retries wake it early, 3-D Secure and push challenges wait for the customer
// (answered by the gateway's webhook through challengeResolved) up to a timeout. See docs/finance.md.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  ChargeAttemptInput,
  ChargeAttemptResult,
  PaymentActivities,
  PaymentStepInput,
} from '../activities/payments.js';
import {
  DAY_MS,
  manualRetryRefusal,
  paymentCloseRefusal,
  paymentTransition,
  type PaymentAttemptState,
  type PaymentEvent,
  type PaymentRetrySettings,
  type PaymentState,
} from '../domain/finance.js';
import {
  challengeResolvedSignal,
  closePaymentUpdate,
  FIRST_CHARGE_LOCAL_MS,
  paymentStatusQuery,
  retryPaymentUpdate,
  type ChallengeResolved,
  type ClosePaymentRequest,
  type PaymentRequested,
  type PaymentStepName,
  type PaymentWorkflowInput,
  type PaymentWorkflowSnapshot,
} from './payment.messages.js';
import { EntityStateKey } from './search-attributes.js';
import { EntityProcess } from './entity-process.js';
import { refusal } from './failures.js';

// One attempt's charge: the gateway may take long (a slow network, the sandbox's timeout token), so the
// activity heartbeats and a dead worker is noticed within seconds; network faults retry the same
// activity with the same key (never a new attempt) for as long as the gateway stays away.
const charges = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// A stamped run's first charge, inside the run's first workflow task (for a payment the worker started,
// the task the start handed back): no activity task through the server and no second workflow task when
// the gateway answers at once, as it almost always does. Tried once and bounded: a charge that fails or
// outlasts FIRST_CHARGE_LOCAL_MS is taken over by `charges`, with the same key, so the gateway books it
// once and the attempt is recorded once whichever answer is written first.
const firstCharges = proxyLocalActivities<PaymentActivities>({
  startToCloseTimeout: FIRST_CHARGE_LOCAL_MS,
  retry: { maximumAttempts: 1 },
});

// Steps without the gateway: database writes; faults retry, business refusals do not.
const records = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** How long a withdrawal waits for the step it met (the declined attempt's) before it is refused. */
const WITHDRAWAL_WAIT = '10 seconds';

/** States the workflow never leaves: it ends there. */
const endStates: readonly PaymentState[] = ['PAID', 'FAILED', 'COLLECTIONS', 'DISPUTED'];

/** States of a challenge the customer failed: a manual retry is awaited for the retry window. */
const challengeFailedStates: readonly PaymentState[] = [
  'THREE_DS_FAILED',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
];

/** The attempt state and payment event of a challenge's answer. */
const challengeAnswers: Record<
  ChallengeResolved['outcome'],
  { event: PaymentEvent; attempt: PaymentAttemptState }
> = {
  SUCCEEDED: { event: 'SUCCEEDED', attempt: 'SUCCEEDED' },
  THREE_DS_FAILED: { event: 'THREE_DS_FAILED', attempt: 'THREE_DS_FAILED' },
  PUSH_CANCELLED_BY_USER: { event: 'PUSH_CANCELLED_BY_USER', attempt: 'PUSH_CANCELLED_BY_USER' },
  PUSH_BANK_REFUSED: { event: 'PUSH_BANK_REFUSED', attempt: 'PUSH_BANK_REFUSED' },
};

/**
 * The first charge as a local activity; what it could not finish (a slow gateway, a fault), the charge
 * activity takes over with the same key. A refusal the activity would not retry is the attempt's answer.
 */
async function chargeFirst(request: ChargeAttemptInput): Promise<ChargeAttemptResult> {
  try {
    return await firstCharges.chargePaymentAttempt(request);
  } catch (error) {
    if (
      error instanceof ActivityFailure &&
      error.cause instanceof ApplicationFailure &&
      error.cause.nonRetryable
    )
      throw error;
    return charges.chargePaymentAttempt(request);
  }
}

/** One payment in its workflow: its snapshot, its attempts and the waits between them. */
class PaymentProcess extends EntityProcess<PaymentStepName, PaymentWorkflowSnapshot> {
  /** `finance.payment.retry`, read by the first attempt. */
  private settings: PaymentRetrySettings | null;
  /** After a failed challenge: when the wait for a manual retry ends. */
  private retryWindowEndsMs: number | null;
  /** The charge whose challenge is awaited. */
  private chargeReference: string | null;
  /** Challenge answers received and not yet applied. */
  private answers: ChallengeResolved[] = [];
  /** Bumped by every recorded step and every answer: the waits watch it. */
  private version = 0;

  constructor(private readonly input: PaymentWorkflowInput) {
    super(
      input.resume ?? {
        paymentId: input.paymentId,
        state: 'OPEN',
        attemptCount: 0,
        nextRetryAtMs: null,
        challenge: null,
      },
      'P120',
    );
    this.settings = input.carry?.settings ?? null;
    this.retryWindowEndsMs = input.carry?.retryWindowEndsMs ?? null;
    this.chargeReference = input.carry?.chargeReference ?? null;
  }

  /** Whether the payment reached a state the workflow ends in. */
  get ended(): boolean {
    return endStates.includes(this.snapshot.state);
  }

  /** What a new run carries besides the snapshot. */
  carry() {
    return {
      settings: this.settings!,
      retryWindowEndsMs: this.retryWindowEndsMs,
      chargeReference: this.chargeReference,
    };
  }

  /** Whether a challenge answer waits to be applied (a continue-as-new waits for it). */
  get answering(): boolean {
    return this.answers.length > 0;
  }

  /** Takes a new state into the snapshot and keeps EntityState current. */
  private moveTo(state: PaymentState, changes: Partial<PaymentWorkflowSnapshot> = {}): void {
    const changed = state !== this.snapshot.state;
    Object.assign(this.snapshot, { nextRetryAtMs: null, challenge: null }, changes, { state });
    this.version++;
    if (changed) upsertSearchAttributes([{ key: EntityStateKey, value: state }]);
  }

  /**
   * One attempt: the charge (the run's first, in a stamped run, as a local activity), then the state it
   * led to.
   */
  private async attempt(
    trigger: 'FIRST' | 'SCHEDULED' | 'MANUAL',
    requestedBy?: string,
    firstOfRun = false,
  ): Promise<void> {
    const number = this.snapshot.attemptCount + 1;
    const info = workflowInfo();
    const request: ChargeAttemptInput = {
      tenant: this.input.tenant,
      paymentId: this.input.paymentId,
      attempt: number,
      trigger,
      idempotencyKey: `${info.workflowId}/${info.firstExecutionRunId}/attempt-${number}`,
      settings: this.settings,
      requestedBy,
      at: new Date().toISOString(),
    };
    const result: ChargeAttemptResult =
      firstOfRun && (this.input.stepsVersion ?? 0) >= 1
        ? await chargeFirst(request)
        : await charges.chargePaymentAttempt(request);
    this.settings = result.settings;
    this.chargeReference = result.chargeReference;
    this.retryWindowEndsMs = null;
    this.moveTo(result.state, {
      attemptCount: result.attemptCount,
      nextRetryAtMs: result.nextRetryAtMs,
      challenge: result.challenge,
    });
  }

  /** A step recorded without the gateway, then taken into the snapshot. */
  private async record(
    step: Omit<PaymentStepInput, 'tenant' | 'paymentId' | 'at'>,
    atMs?: number,
  ): Promise<void> {
    const result = await records.recordPaymentStep({
      ...step,
      tenant: this.input.tenant,
      paymentId: this.input.paymentId,
      at: new Date(atMs ?? Date.now()).toISOString(),
    });
    this.moveTo(result.state, { attemptCount: result.attemptCount });
  }

  /** The first attempt (billing, a settlement, or a manual retry of a FAILED payment). */
  first(): Promise<void> {
    // The payment's requester asked for it (the activity names them).
    return this.exclusively('ATTEMPT', () =>
      this.attempt(this.input.firstTrigger ?? 'FIRST', undefined, true),
    );
  }

  /** retryPayment's validator: P120 unless the table allows a manual retry now, and not during a step. */
  validateRetry(): void {
    this.assertIdle();
    const refused = manualRetryRefusal(this.snapshot.state);
    if (refused) throw refusal(refused, `the payment is ${this.snapshot.state}`);
  }

  /** retryPayment: an attempt now; answers where it left the payment. */
  retry(request: PaymentRequested): Promise<PaymentWorkflowSnapshot> {
    return this.exclusively('RETRY', async () => {
      await this.attempt('MANUAL', request.requestedBy);
      return this.view();
    });
  }

  /**
   * closePayment's validator: the table's COLLECTIONS, PAID_EXTERNALLY or WITHDRAWN (I124, F207, P120
   * otherwise: `paymentCloseRefusal`), refused while a step runs. A withdrawal is taken while a step runs:
   * it comes right after a declined attempt, whose outcome the row shows a moment before this workflow
   * has recorded it, and waits for it.
   */
  validateClose(request: ClosePaymentRequest): void {
    if (this.snapshot.operationInProgress && request.event === 'WITHDRAWN') return;
    const refused = this.closeRefusal(request);
    if (refused) throw refused;
  }

  /** Why a close is refused now (busy, or not a transition of the table), or undefined. */
  private closeRefusal(request: ClosePaymentRequest) {
    const code = paymentCloseRefusal(request.event);
    if (this.snapshot.operationInProgress)
      return refusal(code, `the payment is busy (${this.snapshot.operationInProgress})`);
    if (!paymentTransition(this.snapshot.state, request.event))
      return refusal(code, `the payment is ${this.snapshot.state}`);
    return undefined;
  }

  /**
   * closePayment: COLLECTIONS, PAID (externally) or WITHDRAWN; the workflow ends. A withdrawal taken during
   * a step waits for it (at most WITHDRAWAL_WAIT), then is checked against the state the step left.
   */
  async close(request: ClosePaymentRequest): Promise<PaymentWorkflowSnapshot> {
    if (this.snapshot.operationInProgress) {
      await condition(() => !this.snapshot.operationInProgress, WITHDRAWAL_WAIT);
      const refused = this.closeRefusal(request);
      if (refused) throw refused;
    }
    return this.exclusively('CLOSE', async () => {
      await this.record({ event: request.event, requestedBy: request.requestedBy });
      return this.view();
    });
  }

  /** challengeResolved: kept until the loop applies it to the attempt it is about. */
  challengeResolved(answer: ChallengeResolved): void {
    this.answers.push(answer);
    this.version++;
  }

  /** Waits until `atMs`, or until something changed, or a continue-as-new is due. */
  private async waitUntil(atMs: number | null): Promise<void> {
    const seen = this.version;
    const changed = () => this.version !== seen || workflowInfo().continueAsNewSuggested;
    if (atMs === null) await condition(changed);
    else if (atMs > Date.now()) await condition(changed, atMs - Date.now());
  }

  /** AWAITING_RETRY: the next scheduled attempt at its time (a manual retry may come first). */
  async awaitRetry(): Promise<void> {
    // No challenge is awaited: answers (a late redelivery) have nothing to apply to.
    this.answers = [];
    const at = this.snapshot.nextRetryAtMs!;
    if (Date.now() < at) return this.waitUntil(at);
    await this.exclusively('ATTEMPT', () => this.attempt('SCHEDULED', 'system:payment-retry'));
  }

  /** Waiting for the customer: the challenge's answer, or its timeout. */
  async awaitChallenge(): Promise<void> {
    const { snapshot } = this;
    const threeDs = snapshot.state === 'THREE_DS_WAITING_FOR_USER';
    // Answers about other charges (an earlier attempt's, a redelivery) are dropped.
    const answer = this.answers.find(
      (a) => this.chargeReference === null || a.chargeReference === this.chargeReference,
    );
    this.answers = [];
    if (answer) {
      const { event, attempt } = challengeAnswers[answer.outcome];
      // A push answer to a 3-D Secure wait (or the reverse) is read as the failure of the wait's own kind.
      const applied = paymentTransition(snapshot.state, event)
        ? { event, attempt }
        : challengeAnswers[threeDs ? 'THREE_DS_FAILED' : 'PUSH_CANCELLED_BY_USER'];
      await this.exclusively('CHALLENGE', async () => {
        await this.record({
          event: applied.event,
          requestedBy: `gateway:${answer.eventId}`,
          attempt: { number: snapshot.attemptCount, state: applied.attempt },
          gatewayReference: applied.event === 'SUCCEEDED' ? answer.chargeReference : undefined,
          failureCode: applied.event === 'SUCCEEDED' ? null : applied.event,
          failureMessage:
            applied.event === 'SUCCEEDED' ? null : 'the customer did not complete the challenge',
        });
        this.startRetryWindow();
      });
      return;
    }
    const expiresAtMs = Date.parse(snapshot.challenge!.expiresAt);
    if (Date.now() < expiresAtMs) return this.waitUntil(expiresAtMs);
    await this.exclusively('CHALLENGE', async () => {
      await this.record(
        {
          event: threeDs ? 'THREE_DS_FAILED' : 'PUSH_CANCELLED_BY_USER',
          requestedBy: 'system:challenge-timer',
          attempt: { number: snapshot.attemptCount, state: 'CHALLENGE_EXPIRED' },
          failureCode: 'CHALLENGE_EXPIRED',
          failureMessage: 'the customer did not answer the challenge in time',
        },
        expiresAtMs,
      );
      this.startRetryWindow();
    });
  }

  /** After a failed challenge, the customer has the retry window to retry by hand. */
  private startRetryWindow(): void {
    if (challengeFailedStates.includes(this.snapshot.state))
      this.retryWindowEndsMs = Date.now() + this.settings!.challengeRetryWindowDays * DAY_MS;
  }

  /** A failed challenge: waits for a manual retry until the window ends, then FAILED. */
  async awaitManualRetry(): Promise<void> {
    this.answers = [];
    const endsMs = this.retryWindowEndsMs ?? Date.now();
    if (Date.now() < endsMs) return this.waitUntil(endsMs);
    await this.exclusively('GIVE_UP', () =>
      this.record({ event: 'GIVE_UP', requestedBy: 'system:payment-retry-window' }, endsMs),
    );
  }
}

/**
 * One payment from its first attempt to PAID, FAILED or COLLECTIONS: retries on the schedule, manual
 * retries (retryPayment), challenges answered by webhooks (challengeResolved) or timing out, closing by
 * an operator (closePayment). Each state change is written by an activity; see docs/finance.md.
 */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentWorkflowSnapshot> {
  const payment = new PaymentProcess(input);
  const { snapshot } = payment;

  setHandler(paymentStatusQuery, () => payment.view());
  setHandler(retryPaymentUpdate, (request) => payment.retry(request), {
    validator: (_request) => payment.validateRetry(),
  });
  setHandler(closePaymentUpdate, (request) => payment.close(request), {
    validator: (request) => payment.validateClose(request),
  });
  setHandler(challengeResolvedSignal, (answer) => payment.challengeResolved(answer));

  if (!input.resume) await payment.first();

  while (!payment.ended) {
    if (snapshot.operationInProgress) {
      await condition(() => !snapshot.operationInProgress);
      continue;
    }
    if (workflowInfo().continueAsNewSuggested && !payment.answering) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof paymentWorkflow>({
        ...input,
        resume: payment.view(),
        carry: payment.carry(),
      });
    }
    const { state } = snapshot;
    if (state === 'AWAITING_RETRY') await payment.awaitRetry();
    else if (state === 'THREE_DS_WAITING_FOR_USER' || state === 'PUSH_WAITING_FOR_USER')
      await payment.awaitChallenge();
    else if (challengeFailedStates.includes(state)) await payment.awaitManualRetry();
    else await condition(() => snapshot.state !== state || payment.ended);
  }
  await condition(allHandlersFinished);
  return payment.view();
}
