// Activities of the payment workflow: one attempt's charge (the attempt row PROCESSING and the payment
// IN_PAYMENT committed before the gateway is called, the gateway's answer and the state it leads to
// committed after), and the record of the steps the workflow takes without the gateway (a challenge's
// answer or timeout, giving up, closing). Gateway network faults are retries of the same activity with
// the same idempotency key, never new attempts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import {
  attemptOf,
  beginAttempt,
  currentPaymentSource,
  finishAttempt,
  recordPaymentState,
  type AttemptOutcome,
  beginInvoiceAttempt,
  chargedPayment,
  type ChargedPayment,
} from '../db/payments.js';
import { recordChargeOutcomeEvent, recordInvoiceChargeOutcome } from '../db/payment-charge-outcome.js';
import { effectiveSettingOf } from '../db/settings.js';
import { preparedRows } from '../db/prepared.js';
import { catalogueEntry, DomainError, type ErrorCode } from '../domain/errors.js';
import {
  PAYMENT_RETRY_SETTING_KEY,
  paymentRetrySettingsOf,
  paymentTransition,
  paymentTransitions,
  retryDelayMs,
  type PaymentAttemptState,
  type PaymentChallenge,
  type PaymentEvent,
  type PaymentRetrySettings,
  type PaymentState,
} from '../domain/finance.js';
import type { ChargeOutcome } from '../platform/payment-gateway/port.js';
import type { ActivityDeps } from './deps.js';
import { activityIdempotencyKey, asActivity, withHeartbeat } from './support.js';

/** One attempt as the workflow asks for it; `at` is workflow time, so timers and rows agree. */
export interface ChargeAttemptInput {
  tenant: string;
  paymentId: number;
  /** 1 for the first attempt. */
  attempt: number;
  trigger: 'FIRST' | 'SCHEDULED' | 'MANUAL';
  /** `{workflowId}/{firstExecutionRunId}/attempt-{n}`: stable across activity retries and continue-as-new. */
  idempotencyKey: string;
  /** The retry settings read at the start; null on the first attempt, which reads them. */
  settings: PaymentRetrySettings | null;
  /** Who asks for this attempt; absent for the first one, which the payment's requester asked for. */
  requestedBy?: string;
  at: string;
}

/** Where an attempt left the payment. */
export interface ChargeAttemptResult {
  settings: PaymentRetrySettings;
  state: PaymentState;
  attemptCount: number;
  attemptState: PaymentAttemptState;
  nextRetryAtMs: number | null;
  challenge: PaymentChallenge | null;
  /** The gateway's reference of this attempt's charge (null when no source could be charged). */
  chargeReference: string | null;
}

/** A step the workflow records without calling the gateway. */
export interface PaymentStepInput {
  tenant: string;
  paymentId: number;
  event: PaymentEvent;
  requestedBy: string;
  at: string;
  /** The attempt the step ends (a challenge's answer or timeout), with its new state. */
  attempt?: { number: number; state: PaymentAttemptState };
  gatewayReference?: string | null;
  failureCode?: string | null;
  failureMessage?: string | null;
}

/** Where a recorded step left the payment. */
export interface PaymentStepResult {
  state: PaymentState;
  attemptCount: number;
}

/** The refusal of a step the payment's state does not allow (the workflow's validators refuse it first). */
function stepRefusal(event: PaymentEvent): ErrorCode {
  switch (event) {
    case 'COLLECTIONS':
      return 'I124';
    case 'PAID_EXTERNALLY':
      return 'F207';
    case 'MANUAL_RETRY':
    case 'CHARGE':
    case 'GIVE_UP':
      return 'P120';
    default:
      return 'P121';
  }
}

/**
 * `finance.payment.retry` for a payment, over its defaults: the row for its invoice's rental or booking
 * branch (else tenant-wide). Read outside any transaction, so the read cache serves the key's rows; the
 * branch is looked up only when some row exists to choose among.
 */
async function retrySettingsOf(
  em: EntityManager,
  tenant: string,
  paymentId: number,
): Promise<PaymentRetrySettings> {
  const row = await effectiveSettingOf(em, tenant, PAYMENT_RETRY_SETTING_KEY, async () => {
    const [found] = await preparedRows<{ branch_id: number | null }>(
      em,
      `select coalesce(r.branch_id, b.branch_id) as branch_id
         from payment p
         join invoice i on i.id = p.invoice_id and i.tenant_id = p.tenant_id
         left join rental r on r.id = i.rental_id and r.tenant_id = i.tenant_id
         left join booking b on b.id = i.booking_id and b.tenant_id = i.tenant_id
        where p.tenant_id = $1 and p.id = $2`,
      [tenant, paymentId],
    );
    return found?.branch_id ?? undefined;
  });
  return paymentRetrySettingsOf(row?.value);
}

/** What an attempt's gateway answer means for the payment, by the table and the retry schedule. */
export function afterCharge(
  outcome: ChargeOutcome,
  attempt: number,
  settings: PaymentRetrySettings,
  atMs: number,
): {
  event: PaymentEvent;
  attempt: AttemptOutcome;
  nextRetryAtMs: number | null;
  challenge: PaymentChallenge | null;
  failure: { code: string; message: string } | null;
} {
  const at = new Date(atMs);
  switch (outcome.status) {
    case 'SUCCEEDED':
      return {
        event: 'SUCCEEDED',
        attempt: { state: 'SUCCEEDED', gatewayReference: outcome.reference, at },
        nextRetryAtMs: null,
        challenge: null,
        failure: null,
      };
    case 'SOFT_DECLINED': {
      const delay = retryDelayMs(settings, attempt, outcome.retryAfterSeconds ?? null);
      return {
        event: delay === undefined ? 'FINAL_DECLINE' : 'SOFT_DECLINED',
        attempt: {
          state: 'SOFT_DECLINED',
          gatewayReference: outcome.reference,
          declineCode: outcome.declineCode,
          declineMessage: outcome.message,
          retryAfterSeconds: outcome.retryAfterSeconds ?? null,
          at,
        },
        nextRetryAtMs: delay === undefined ? null : atMs + delay,
        challenge: null,
        failure: { code: outcome.declineCode, message: outcome.message },
      };
    }
    case 'HARD_DECLINED':
      return {
        event: 'FINAL_DECLINE',
        attempt: {
          state: 'HARD_DECLINED',
          gatewayReference: outcome.reference,
          declineCode: outcome.declineCode,
          declineMessage: outcome.message,
          at,
        },
        nextRetryAtMs: null,
        challenge: null,
        failure: { code: outcome.declineCode, message: outcome.message },
      };
    case 'CHALLENGE': {
      const threeDs = outcome.challenge.type === 'THREE_DS';
      return {
        event: threeDs ? 'THREE_DS_REQUIRED' : 'PUSH_REQUIRED',
        // The attempt stays open (no finishedAt) until the customer answers or the wait ends.
        attempt: {
          state: threeDs ? 'THREE_DS_REQUIRED' : 'PUSH_REQUIRED',
          gatewayReference: outcome.reference,
          at,
        },
        nextRetryAtMs: null,
        challenge: {
          type: outcome.challenge.type,
          url: outcome.challenge.url,
          expiresAt: new Date(atMs + settings.challengeTimeoutMinutes * 60_000).toISOString(),
        },
        failure: null,
      };
    }
  }
}

/** Activities of the payment workflow. */
export function createPaymentActivities({ orm, paymentGateways }: ActivityDeps) {
  /** The charge's first transaction: the attempt row and IN_PAYMENT; the source to charge and the amount. */
  async function begin(input: ChargeAttemptInput) {
    return inTenantTransaction(orm, input.tenant, async (em) => {
      const payment = await em.findOne(Payment, input.paymentId, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!payment) throw new DomainError('P404', `payment ${input.paymentId} not found`);
      const existing = await attemptOf(em, payment.id, input.attempt);
      if (existing && existing.state !== 'PROCESSING')
        // An earlier try of this activity recorded the outcome: answer it again.
        return { payment, attempt: existing, finished: true as const };
      let sourceToken: string | null;
      let invoiceNumber: string | null;
      if (!existing) {
        // A new payment's first attempt (FIRST, or MANUAL for a retried FAILED payment) starts from OPEN.
        const event: PaymentEvent =
          input.trigger === 'MANUAL' && payment.state !== 'OPEN' ? 'MANUAL_RETRY' : 'CHARGE';
        if (!paymentTransition(payment.state, event))
          throw new DomainError('P120', `the payment is ${payment.state}`);
        // The source is chosen once per attempt: a retry of this activity charges the same one.
        const source = await currentPaymentSource(
          em,
          { customerId: payment.customer?.id ?? null, userGroupId: payment.userGroup?.id ?? null },
          payment.businessUnit.id,
        );
        payment.paymentSource = source;
        sourceToken = source?.providerReference ?? null;
        ({ invoiceNumber } = await recordPaymentState(em, payment, {
          state: 'IN_PAYMENT',
          attemptCount: input.attempt,
          at: new Date(input.at),
          requestedBy: input.requestedBy ?? payment.requestedBy,
          manualRetry: input.trigger === 'MANUAL',
          idempotencyKey: input.idempotencyKey,
        }));
      } else {
        // A retry of this activity after the attempt was begun: the source and invoice it charged.
        const source = payment.paymentSource
          ? await em.findOne(PaymentSource, payment.paymentSource.id)
          : null;
        const invoice = payment.invoice ? await em.findOne(Invoice, payment.invoice.id) : null;
        sourceToken = source?.providerReference ?? null;
        invoiceNumber = invoice?.number ?? null;
      }
      await beginAttempt(
        em,
        payment,
        {
          number: input.attempt,
          trigger: input.trigger,
          idempotencyKey: input.idempotencyKey,
          at: new Date(input.at),
        },
        existing,
      );
      return { charged: chargedPayment(payment), finished: false as const, sourceToken, invoiceNumber };
    });
  }

  /** The charge's gateway call (idempotent on the attempt's key), or a soft P104 decline without a source. */
  async function charge(
    input: ChargeAttemptInput,
    payment: ChargedPayment,
    sourceToken: string | null,
    invoiceNumber: string | null,
  ): Promise<ChargeOutcome> {
    if (sourceToken === null)
      return {
        status: 'SOFT_DECLINED',
        reference: '',
        declineCode: 'P104',
        message: catalogueEntry('P104').meaning,
      };
    const gateway = paymentGateways.byName(payment.gateway);
    // A deployment without this payment's adapter cannot charge it now: retried until it has it again.
    if (!gateway) throw new Error(`payment gateway ${payment.gateway} is not configured`);
    return gateway.charge({
      idempotencyKey: input.idempotencyKey,
      amount: payment.amount,
      currency: payment.currency,
      sourceToken,
      description:
        invoiceNumber !== null
          ? `Invoice ${invoiceNumber}`
          : `Balance settlement ${payment.balanceId ?? ''}`.trim(),
      metadata: {
        tenant: input.tenant,
        paymentId: String(payment.id),
        attempt: String(input.attempt),
        workflowId: payment.workflowId,
      },
    });
  }

  /** The answer of a finished attempt, as recorded. */
  function recordedResult(
    payment: Payment,
    settings: PaymentRetrySettings,
    attemptState: PaymentAttemptState,
    chargeReference: string | null,
  ): ChargeAttemptResult {
    return {
      settings,
      state: payment.state,
      attemptCount: payment.attemptCount,
      attemptState,
      nextRetryAtMs: payment.nextRetryAt ? payment.nextRetryAt.getTime() : null,
      challenge: payment.challenge ?? null,
      chargeReference,
    };
  }

  return {
    /**
     * One attempt of a payment: the attempt row (PROCESSING) and IN_PAYMENT committed first, then the
     * gateway called with the attempt's key while heartbeating (a network fault retries this activity with
     * the same key: the gateway answers the charge it made), then the answer and the state it leads to
     * (PAID, AWAITING_RETRY with the next retry, FAILED, or waiting for the customer's challenge)
     * committed with the invoice's state and events. A retry after the answer was recorded answers it again.
     */
    async chargePaymentAttempt(input: ChargeAttemptInput): Promise<ChargeAttemptResult> {
      return withHeartbeat(() =>
        asActivity(async () => {
          const settings =
            input.settings ??
            (await retrySettingsOf(tenantEm(orm, input.tenant), input.tenant, input.paymentId));
          // The common case, an invoice payment's new attempt, in one statement; otherwise (a manual retry
          // with its event, a settlement, or a retry of this activity) the locking transaction.
          const fast =
            input.trigger === 'MANUAL'
              ? null
              : await beginInvoiceAttempt(tenantEm(orm, input.tenant), {
                  paymentId: input.paymentId,
                  number: input.attempt,
                  trigger: input.trigger,
                  idempotencyKey: input.idempotencyKey,
                  at: new Date(input.at),
                });
          const begun = fast
            ? {
                charged: fast.payment,
                sourceToken: fast.sourceToken,
                invoiceNumber: fast.invoiceNumber,
                finished: false as const,
              }
            : await begin(input);
          if (begun.finished)
            return recordedResult(
              begun.payment,
              settings,
              begun.attempt.state,
              begun.attempt.gatewayReference ?? null,
            );
          const outcome = await charge(input, begun.charged, begun.sourceToken, begun.invoiceNumber);
          const atMs = Date.parse(input.at);
          const next = afterCharge(outcome, input.attempt, settings, atMs);
          const reference = outcome.reference || null;
          // The common case, an invoice's attempt still PROCESSING, in one statement; otherwise (a settlement,
          // or a retry of this activity finding the outcome recorded) the locking path below answers.
          const written = await recordInvoiceChargeOutcome(tenantEm(orm, input.tenant), {
            paymentId: input.paymentId,
            attempt: input.attempt,
            event: next.event,
            attemptOutcome: { ...next.attempt, gatewayReference: reference },
            attemptStaysOpen: outcome.status === 'CHALLENGE',
            nextRetryAt: next.nextRetryAtMs === null ? null : new Date(next.nextRetryAtMs),
            challenge: next.challenge,
            gatewayReference: outcome.status === 'SUCCEEDED' ? reference : null,
            failure: next.failure,
            at: new Date(atMs),
          });
          if (written)
            await recordChargeOutcomeEvent(
              tenantEm(orm, input.tenant),
              input.paymentId,
              input.idempotencyKey,
              new Date(atMs),
              input.requestedBy ?? null,
              written.event,
            );
          if (written)
            return {
              settings,
              state: written.state,
              attemptCount: written.attemptCount,
              attemptState: next.attempt.state,
              nextRetryAtMs: written.nextRetryAt ? written.nextRetryAt.getTime() : null,
              challenge: written.challenge,
              chargeReference: reference,
            };
          return inTenantTransaction(orm, input.tenant, async (em) => {
            const payment = await em.findOneOrFail(Payment, input.paymentId, {
              lockMode: LockMode.PESSIMISTIC_WRITE,
            });
            const attempt = (await attemptOf(em, payment.id, input.attempt))!;
            if (attempt.state === 'PROCESSING') {
              const state = paymentTransition(payment.state, next.event);
              if (!state) throw new DomainError('P120', `the payment is ${payment.state}`);
              finishAttempt(attempt, { ...next.attempt, gatewayReference: reference });
              // A challenge keeps the attempt open until it is answered.
              if (outcome.status === 'CHALLENGE') attempt.finishedAt = null;
              await recordPaymentState(em, payment, {
                state,
                at: new Date(atMs),
                nextRetryAt: next.nextRetryAtMs === null ? null : new Date(next.nextRetryAtMs),
                challenge: next.challenge,
                gatewayReference: outcome.status === 'SUCCEEDED' ? outcome.reference : undefined,
                failureCode: next.failure?.code ?? null,
                failureMessage: next.failure?.message ?? null,
                requestedBy: input.requestedBy ?? payment.requestedBy,
                idempotencyKey: `${input.idempotencyKey}/outcome`,
              });
            } else if (payment.purpose === 'INVOICE') {
              // The outcome was written by the one-statement path; its event may not have been.
              await recordChargeOutcomeEvent(
                em,
                payment.id,
                input.idempotencyKey,
                new Date(atMs),
                input.requestedBy ?? null,
              );
            }
            return recordedResult(payment, settings, attempt.state, reference);
          });
        }),
      );
    },

    /**
     * Records a step of the payment taken without the gateway: a challenge's answer (PAID or a failed
     * challenge) or its timeout, giving up after the retry window, collections or paid externally; with
     * the attempt it ends, the invoice's state and events. Idempotent: a retry finds the step recorded.
     */
    async recordPaymentStep(input: PaymentStepInput): Promise<PaymentStepResult> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const payment = await em.findOne(Payment, input.paymentId, {
            lockMode: LockMode.PESSIMISTIC_WRITE,
          });
          if (!payment) throw new DomainError('P404', `payment ${input.paymentId} not found`);
          const at = new Date(input.at);
          const next = paymentTransition(payment.state, input.event);
          if (!next) {
            // Recorded already by an earlier try of this activity.
            if (payment.state === paymentTransitions[input.event].to)
              return { state: payment.state, attemptCount: payment.attemptCount };
            throw new DomainError(stepRefusal(input.event), `the payment is ${payment.state}`);
          }
          if (input.attempt) {
            const attempt = await attemptOf(em, payment.id, input.attempt.number);
            if (attempt) finishAttempt(attempt, { state: input.attempt.state, at });
          }
          await recordPaymentState(em, payment, {
            state: next,
            at,
            gatewayReference: input.gatewayReference,
            failureCode: input.failureCode,
            failureMessage: input.failureMessage,
            requestedBy: input.requestedBy,
            paidExternally: input.event === 'PAID_EXTERNALLY',
            idempotencyKey,
          });
          return { state: payment.state, attemptCount: payment.attemptCount };
        }),
      );
    },
  };
}

/** The activity interface the payment workflow proxies. */
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
