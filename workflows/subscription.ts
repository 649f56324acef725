// The user subscription workflow: one per subscription (`subscription:{tenant}:{id}`), from the purchase's
// payment through each period's renewal to EXPIRED or CANCELLED. Each period is charged through a finance
// payment (the payment workflow runs as this workflow's child), its benefits granted as vouchers, and the
// workflow sleeps to the period's end on the subscription calendar; it continues as new each period, so a
// ten-year subscription's history stays one period long. See docs/subscriptions.md.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  sleep,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type {
  ChargedPeriod,
  RecordStepInput,
  RecordedSubscription,
  SubscriptionActivities,
} from '../activities/subscription.js';
import type { PaymentState } from '../domain/finance.js';
import {
  endedSubscriptionStates,
  periodPrice,
  subscriptionRefusal,
  type SubscriptionChargeKind,
  type SubscriptionEvent,
  type SubscriptionTerms,
} from '../domain/subscription.js';
import { periodBoundary } from '../domain/subscription-calendar.js';
import {
  paymentWorkflowStartOptions,
  PAYMENT_WORKFLOW_TYPE,
  type PaymentWorkflowSnapshot,
} from './payment.messages.js';
import {
  cancelAutoRenewalUpdate,
  cancelSubscriptionUpdate,
  reactivateSubscriptionUpdate,
  renewSubscriptionUpdate,
  RENEWAL_SETTLE_MS,
  revertSwitchUpdate,
  subscriptionStatusQuery,
  switchSubscriptionUpdate,
  type CancelSubscriptionRequest,
  type PendingCharge,
  type SubscriptionCalendarState,
  type SubscriptionOperationName,
  type SubscriptionRequested,
  type SubscriptionWorkflowInput,
  type SubscriptionWorkflowSnapshot,
  type SwitchSubscriptionRequest,
} from './subscription.messages.js';
import { EntityStateKey } from './search-attributes.js';
import { EntityProcess } from './entity-process.js';
import { refusal } from './failures.js';

// Database steps: faults retry with backoff for as long as the database stays away; refusals do not.
const steps = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// The renew action asks the payment workflow for an attempt now and waits for it (the gateway's time).
const paymentCalls = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '3 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

type Snapshot = SubscriptionWorkflowSnapshot;

/** What a charge came to: paid, failed for good, or left unawaited because the subscription was cancelled. */
type ChargeOutcome = 'PAID' | 'FAILED' | 'CANCELLED';

/** The updates' events and the step each runs as. */
const updateSteps = {
  CANCEL_AUTO_RENEWAL: 'CANCEL_AUTO_RENEWAL',
  REACTIVATE: 'REACTIVATE',
  RETRY_RENEWAL: 'RENEW',
  SWITCH: 'SWITCH',
  REVERT_SWITCH: 'REVERT_SWITCH',
  CANCEL: 'CANCEL',
} as const satisfies Partial<Record<SubscriptionEvent, SubscriptionOperationName>>;
type UpdateEvent = keyof typeof updateSteps;

/** Updates allowed while a charge is awaited: a cancel, and the renew that retries the charge's payment. */
const duringCharge: readonly UpdateEvent[] = ['CANCEL', 'RETRY_RENEWAL'];

/** The calendar anchor of a calendar state. */
const anchorOf = (calendar: SubscriptionCalendarState) => ({
  atMs: calendar.anchorMs,
  timeZone: calendar.timeZone,
  interval: calendar.interval,
});

/** The end of period `n` on a calendar. */
const periodEndOn = (calendar: SubscriptionCalendarState, n: number) =>
  periodBoundary(anchorOf(calendar), n - calendar.anchorPeriod + 1);

/** One user subscription in its workflow: its snapshot, its steps and the charges it awaits. */
class SubscriptionProcess extends EntityProcess<SubscriptionOperationName, Snapshot> {
  /** Bumped by every recorded step and every settled payment: the waits watch it. */
  private version = 0;
  /** Set when a new period started in this run: the run continues as new. */
  periodStarted = false;

  constructor(private readonly input: SubscriptionWorkflowInput) {
    super(
      input.resume ?? {
        userSubscriptionId: input.userSubscriptionId,
        state: 'RENEWING',
        autoRenewal: 'ACTIVE',
        terms: {
          voucherableId: 0,
          interval: 'MONTHLY',
          price: '0',
          initialPrice: null,
          initialIterations: null,
          currency: 'EUR',
        },
        calendar: { anchorMs: 0, anchorPeriod: 1, timeZone: 'UTC', interval: 'MONTHLY' },
        currentPeriod: 0,
        periodStartMs: null,
        periodEndMs: null,
        switching: null,
        latestInvoiceId: null,
        charge: null,
        switchCount: 0,
      },
      'SU118',
    );
  }

  /** Whether the subscription reached a state the workflow ends in. */
  get ended(): boolean {
    return endedSubscriptionStates.includes(this.snapshot.state);
  }

  /** Takes the recorded row into the snapshot and keeps EntityState current. */
  private apply(recorded: RecordedSubscription): void {
    const changed = recorded.state !== this.snapshot.state;
    const { switchingTarget, ...rest } = recorded;
    Object.assign(this.snapshot, rest);
    if (!switchingTarget) this.snapshot.switching = null;
    this.version++;
    if (changed) upsertSearchAttributes([{ key: EntityStateKey, value: recorded.state }]);
  }

  /** Writes one step of the transition table and takes the row it left. */
  private async record(
    event: SubscriptionEvent,
    requestedBy: string,
    extra: Partial<Pick<RecordStepInput, 'periodId' | 'calendar' | 'switchTo' | 'cancelBenefits'>> = {},
  ): Promise<RecordedSubscription> {
    const recorded = await steps.recordSubscriptionStep({
      tenant: this.input.tenant,
      userSubscriptionId: this.input.userSubscriptionId,
      event,
      at: new Date().toISOString(),
      requestedBy,
      ...extra,
    });
    this.apply(recorded);
    return recorded;
  }

  /** The first run: the row as the purchase wrote it. */
  load(): Promise<void> {
    return this.exclusively('LOAD', async () => {
      this.apply(
        await steps.loadSubscription({
          tenant: this.input.tenant,
          userSubscriptionId: this.input.userSubscriptionId,
        }),
      );
    });
  }

  /**
   * An update's validator (and its handler's check once its turn came): SU118 while a charge is awaited
   * (but for cancel and renew), then the table. A step in progress is waited for, not refused.
   */
  validate(event: UpdateEvent): void {
    const { snapshot } = this;
    if (snapshot.charge && !duringCharge.includes(event))
      throw refusal('SU118', `a charge of period ${snapshot.charge.number} is under way`);
    const refused = subscriptionRefusal(event, {
      state: snapshot.state,
      autoRenewal: snapshot.autoRenewal,
      switchMode: snapshot.switching?.mode ?? null,
    });
    if (refused) throw refusal(refused.code, refused.reason);
    if (event === 'RETRY_RENEWAL' && !snapshot.charge?.paymentId)
      throw refusal('SU105', 'no renewal payment is waiting to be retried');
  }

  /** Runs an update's step once no other step runs, checking the table again first. */
  private async inTurn<T>(event: UpdateEvent, step: () => Promise<T>): Promise<T> {
    while (this.snapshot.operationInProgress) await condition(() => !this.snapshot.operationInProgress);
    this.validate(event);
    return this.exclusively(updateSteps[event], step);
  }

  /** cancelAutoRenewal, reactivate, revertSwitch: one recorded step. */
  simpleStep(
    event: 'CANCEL_AUTO_RENEWAL' | 'REACTIVATE' | 'REVERT_SWITCH',
    request: SubscriptionRequested,
  ): Promise<Snapshot> {
    return this.inTurn(event, async () => {
      await this.record(event, request.requestedBy);
      return this.view();
    });
  }

  /** switchSubscription: SWITCHING with its target (the activity checks the plan: SU101, SU105, SU113, SU111, SU103). */
  switchTier(request: SwitchSubscriptionRequest): Promise<Snapshot> {
    return this.inTurn('SWITCH', async () => {
      const recorded = await this.record('SWITCH', request.requestedBy, {
        switchTo: { voucherableId: request.voucherableId, mode: request.mode },
      });
      const terms = await steps.subscriptionPlanTerms({
        tenant: this.input.tenant,
        voucherableId: request.voucherableId,
      });
      this.snapshot.switching = {
        voucherableId: recorded.switchingTarget!.voucherableId,
        mode: request.mode,
        terms,
      };
      this.snapshot.switchCount++;
      return this.view();
    });
  }

  /** renewSubscription: the waiting renewal payment is attempted now (its outcome arrives as usual). */
  renewNow(request: SubscriptionRequested): Promise<Snapshot> {
    return this.inTurn('RETRY_RENEWAL', async () => {
      await paymentCalls.retrySubscriptionPayment({
        tenant: this.input.tenant,
        paymentId: this.snapshot.charge!.paymentId!,
        requestedBy: request.requestedBy,
      });
      await this.record('RETRY_RENEWAL', request.requestedBy);
      return this.view();
    });
  }

  /** cancelSubscription: CANCELLED now (and its vouchers with cancelBenefits); the workflow ends. */
  async cancel(request: CancelSubscriptionRequest): Promise<Snapshot> {
    return this.inTurn('CANCEL', async () => {
      await this.record('CANCEL', request.requestedBy, { cancelBenefits: request.cancelBenefits });
      this.snapshot.charge = null;
      return this.view();
    });
  }

  /**
   * Charges period `n`: the charge activity, then its payment's workflow as a child, awaited until it
   * ends (PAID or FAILED), the subscription is cancelled meanwhile, or, with `onSlow`, the settle time
   * passed first (onSlow runs once and the wait goes on).
   */
  private async charge(
    kind: SubscriptionChargeKind,
    n: number,
    terms: SubscriptionTerms,
    calendar: SubscriptionCalendarState,
    startsAtMs: number,
    onSlow?: () => Promise<void>,
  ): Promise<{ outcome: ChargeOutcome; periodId: number }> {
    const info = workflowInfo();
    const endsAtMs = periodEndOn(calendar, n);
    const key = `${info.workflowId}/period-${n}/${kind}${kind === 'SWITCH' ? `-${this.snapshot.switchCount}` : ''}`;
    const charged: ChargedPeriod = await this.exclusively('CHARGE', () =>
      steps.chargeSubscriptionPeriod({
        tenant: this.input.tenant,
        userSubscriptionId: this.input.userSubscriptionId,
        kind,
        number: n,
        terms,
        price: periodPrice(terms, n, calendar.anchorPeriod),
        startsAtMs,
        endsAtMs,
        requestedBy: kind === 'PURCHASE' ? this.input.requestedBy : 'system:subscription',
        key,
        at: new Date().toISOString(),
      }),
    );
    if (charged.invoiceId !== null) this.snapshot.latestInvoiceId = charged.invoiceId;
    if (charged.state === 'PAID' || !charged.payment) return { outcome: 'PAID', periodId: charged.periodId };
    const payment = charged.payment;
    const pending: PendingCharge = {
      periodId: charged.periodId,
      kind,
      number: n,
      startsAtMs,
      endsAtMs,
      paymentId: payment.id,
      paymentWorkflowId: payment.workflowId,
    };
    this.snapshot.charge = pending;
    let settled: PaymentState | undefined;
    const settle = (state: PaymentState) => {
      settled = state;
      this.version++;
    };
    try {
      const child = await startChild(PAYMENT_WORKFLOW_TYPE, {
        ...paymentWorkflowStartOptions(
          {
            tenant: this.input.tenant,
            paymentId: payment.id,
            businessUnitId: payment.businessUnitId,
            customerId: payment.customerId,
          },
          info.taskQueue,
        ),
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
      void child.result().then(
        (result) => settle((result as PaymentWorkflowSnapshot).state),
        () => settle('FAILED'),
      );
    } catch (error) {
      // The payment starter (workers/payment-starter.ts) was first: its state is read until it ends.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      void this.pollPayment(payment.id).then(settle);
    }
    const slowAtMs = Date.now() + RENEWAL_SETTLE_MS;
    let slowHandled = !onSlow;
    while (settled === undefined && !this.ended) {
      if (!slowHandled) {
        const done = await condition(
          () => settled !== undefined || this.ended,
          Math.max(1, slowAtMs - Date.now()),
        );
        if (!done) {
          slowHandled = true;
          await onSlow!();
        }
      } else await condition(() => settled !== undefined || this.ended);
    }
    this.snapshot.charge = null;
    if (this.ended) return { outcome: 'CANCELLED', periodId: charged.periodId };
    return { outcome: settled === 'PAID' ? 'PAID' : 'FAILED', periodId: charged.periodId };
  }

  /** A payment's state every minute until it ends (a payment this workflow could not start as its child). */
  private async pollPayment(paymentId: number): Promise<PaymentState> {
    for (;;) {
      const state = await steps.subscriptionPaymentState({ tenant: this.input.tenant, paymentId });
      if (['PAID', 'FAILED', 'COLLECTIONS', 'DISPUTED'].includes(state)) return state;
      await sleep('1 minute');
    }
  }

  /** Period 1: the purchase's charge; paid, its benefits; failed, the subscription never starts (EXPIRED). */
  async purchase(): Promise<void> {
    const { calendar, terms } = this.snapshot;
    const { outcome, periodId } = await this.charge('PURCHASE', 1, terms, calendar, calendar.anchorMs);
    if (outcome === 'CANCELLED') return;
    await this.exclusively('RECORD', () =>
      this.record(outcome === 'PAID' ? 'FIRST_PERIOD' : 'PURCHASE_FAILED', this.input.requestedBy, {
        periodId,
      }),
    );
    this.periodStarted = outcome === 'PAID';
  }

  /**
   * The period ended: with auto-renewal on, the next period is charged (on the switch's target plan when a
   * delayed switch waits, on a calendar anchored at this end); a payment unsettled after the settle time
   * sets auto-renewal FAILED until it succeeds (RENEWED) or fails for good (EXPIRED). Without
   * auto-renewal, EXPIRED.
   */
  async periodEnded(): Promise<void> {
    const { snapshot } = this;
    if (snapshot.autoRenewal !== 'ACTIVE') {
      await this.exclusively('RECORD', () => this.record('EXPIRE', 'system:subscription-calendar'));
      return;
    }
    const n = snapshot.currentPeriod + 1;
    const startsAtMs = snapshot.periodEndMs!;
    const target = snapshot.switching?.mode === 'DELAYED' ? snapshot.switching : null;
    const calendar: SubscriptionCalendarState = target
      ? {
          anchorMs: startsAtMs,
          anchorPeriod: n,
          timeZone: snapshot.calendar.timeZone,
          interval: target.terms.interval,
        }
      : snapshot.calendar;
    const { outcome, periodId } = await this.charge(
      'RENEWAL',
      n,
      target ? target.terms : snapshot.terms,
      calendar,
      startsAtMs,
      () =>
        this.exclusively(
          'RECORD',
          async () => void (await this.record('RENEWAL_FAILED', 'system:subscription-renewal')),
        ),
    );
    if (outcome === 'CANCELLED') return;
    if (outcome === 'FAILED') {
      // A payment problem, not a cancellation: auto-renewal FAILED, and the subscription ends with its period.
      await this.exclusively('RECORD', async () => {
        if (this.snapshot.autoRenewal !== 'FAILED')
          await this.record('RENEWAL_FAILED', 'system:subscription-renewal');
        await this.record('EXPIRE', 'system:subscription-renewal', { periodId });
      });
      return;
    }
    const switched = snapshot.state === 'SWITCHING' && target !== null;
    await this.exclusively('RECORD', () =>
      this.record(switched ? 'SWITCHED' : 'RENEWED', 'system:subscription-renewal', {
        periodId,
        calendar: target ? { anchorMs: calendar.anchorMs, anchorPeriod: calendar.anchorPeriod } : null,
      }),
    );
    this.periodStarted = true;
  }

  /** An immediate switch: the target plan charged now on a calendar from now; paid, SWITCHED; else back. */
  async switchNow(): Promise<void> {
    const { snapshot } = this;
    const target = snapshot.switching!;
    const n = snapshot.currentPeriod + 1;
    const nowMs = Date.now();
    const calendar: SubscriptionCalendarState = {
      anchorMs: nowMs,
      anchorPeriod: n,
      timeZone: snapshot.calendar.timeZone,
      interval: target.terms.interval,
    };
    const { outcome, periodId } = await this.charge('SWITCH', n, target.terms, calendar, nowMs);
    if (outcome === 'CANCELLED') return;
    await this.exclusively('RECORD', () =>
      this.record(outcome === 'PAID' ? 'SWITCHED' : 'SWITCH_FAILED', 'system:subscription-switch', {
        periodId,
        calendar: outcome === 'PAID' ? { anchorMs: calendar.anchorMs, anchorPeriod: n } : null,
      }),
    );
    this.periodStarted = outcome === 'PAID';
  }

  /** Waits until `atMs` or until something changed. */
  async waitUntil(atMs: number): Promise<void> {
    const seen = this.version;
    await condition(() => this.version !== seen, Math.max(1, atMs - Date.now()));
  }
}

/**
 * One user subscription from its purchase to EXPIRED or CANCELLED: the purchase's payment, then at each
 * period's end the renewal's (or the end), tier switches now or at the period's end, auto-renewal off
 * and on, a manual renew of a failed renewal, and cancel; continues as new after each new period.
 */
export async function subscriptionWorkflow(
  input: SubscriptionWorkflowInput,
): Promise<SubscriptionWorkflowSnapshot> {
  const subscription = new SubscriptionProcess(input);
  const { snapshot } = subscription;
  setHandler(subscriptionStatusQuery, () => subscription.view());
  setHandler(cancelAutoRenewalUpdate, (request) => subscription.simpleStep('CANCEL_AUTO_RENEWAL', request), {
    validator: (_request) => subscription.validate('CANCEL_AUTO_RENEWAL'),
  });
  setHandler(reactivateSubscriptionUpdate, (request) => subscription.simpleStep('REACTIVATE', request), {
    validator: (_request) => subscription.validate('REACTIVATE'),
  });
  setHandler(revertSwitchUpdate, (request) => subscription.simpleStep('REVERT_SWITCH', request), {
    validator: (_request) => subscription.validate('REVERT_SWITCH'),
  });
  setHandler(renewSubscriptionUpdate, (request) => subscription.renewNow(request), {
    validator: (_request) => subscription.validate('RETRY_RENEWAL'),
  });
  setHandler(switchSubscriptionUpdate, (request) => subscription.switchTier(request), {
    validator: (_request) => subscription.validate('SWITCH'),
  });
  setHandler(cancelSubscriptionUpdate, (request) => subscription.cancel(request), {
    validator: (_request) => subscription.validate('CANCEL'),
  });

  if (!input.resume) await subscription.load();
  if (!subscription.ended && snapshot.currentPeriod === 0) await subscription.purchase();
  while (!subscription.ended && !subscription.periodStarted) {
    if (snapshot.operationInProgress) {
      await condition(() => !snapshot.operationInProgress);
      continue;
    }
    if (snapshot.switching?.mode === 'IMMEDIATE') await subscription.switchNow();
    else if (Date.now() >= snapshot.periodEndMs!) await subscription.periodEnded();
    else await subscription.waitUntil(snapshot.periodEndMs!);
  }
  await condition(() => allHandlersFinished() && !snapshot.operationInProgress);
  if (!subscription.ended)
    await continueAsNew<typeof subscriptionWorkflow>({ ...input, resume: subscription.view() });
  return subscription.view();
}
