// The user subscription workflow's activities: read the subscription, charge a period (invoice, bill,
// payment row; the workflow starts the payment's workflow as its child), read a payment's state (the
// fallback when the payment's workflow was started by someone else), write one step of the transition
// table, and retry a failed renewal's payment. Each is idempotent on its step key; business refusals are
// non-retryable failures typed with their catalogue code (asActivity).
import { WorkflowNotFoundError } from '@temporalio/client';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { UserSubscription } from '../db/entities/UserSubscription.js';
import {
  applySubscriptionStep,
  chargePeriod,
  paymentStateOf,
  planById,
  termsOfPlan,
  type ChargedPeriod,
  type SubscriptionStep,
} from '../db/subscriptions.js';
import { DomainError } from '../domain/errors.js';
import type { PaymentState } from '../domain/finance.js';
import type { SubscriptionChargeKind, SubscriptionTerms } from '../domain/subscription.js';
import { paymentWorkflowId, retryPaymentUpdate } from '../workflows/payment.messages.js';
import type { SubscriptionWorkflowSnapshot } from '../workflows/subscription.messages.js';
import type { ActivityDeps } from './deps.js';
import { activityIdempotencyKey, asActivity } from './support.js';

/** What every activity names. */
interface Tenanted {
  tenant: string;
  userSubscriptionId: number;
}

/** chargeSubscriptionPeriod's input: the period the workflow computed and what it costs. */
export interface ChargePeriodInput extends Tenanted {
  kind: SubscriptionChargeKind;
  number: number;
  terms: SubscriptionTerms;
  price: string;
  startsAtMs: number;
  endsAtMs: number;
  requestedBy: string;
  /** The step's key, from the workflow (workflow id, period, kind, switch count): stable across runs. */
  key: string;
  at: string;
}

/** recordSubscriptionStep's input: one row of the transition table (dates as epoch ms). */
export interface RecordStepInput extends Tenanted {
  event: SubscriptionStep['event'];
  at: string;
  requestedBy: string;
  periodId?: number | null;
  calendar?: { anchorMs: number; anchorPeriod: number } | null;
  switchTo?: SubscriptionStep['switchTo'];
  cancelBenefits?: boolean;
}

/** The row as the workflow's snapshot mirrors it (the parts a step may change). */
export type RecordedSubscription = Pick<
  SubscriptionWorkflowSnapshot,
  | 'state'
  | 'autoRenewal'
  | 'terms'
  | 'calendar'
  | 'currentPeriod'
  | 'periodStartMs'
  | 'periodEndMs'
  | 'latestInvoiceId'
> & { switchingTarget: { voucherableId: number; mode: 'IMMEDIATE' | 'DELAYED' } | null };

/** The snapshot fields of a subscription row. */
export function recordedView(row: UserSubscription): RecordedSubscription {
  return {
    state: row.state,
    autoRenewal: row.autoRenewal,
    terms: {
      voucherableId: row.voucherableId,
      interval: row.interval,
      price: row.price,
      initialPrice: row.initialPrice ?? null,
      initialIterations: row.initialIterations ?? null,
      currency: row.currency,
    },
    calendar: {
      anchorMs: row.anchorAt.getTime(),
      anchorPeriod: row.anchorPeriod,
      timeZone: row.timeZoneId,
      interval: row.interval,
    },
    currentPeriod: row.currentPeriod,
    periodStartMs: row.periodStartedAt?.getTime() ?? null,
    periodEndMs: row.validUntil?.getTime() ?? null,
    latestInvoiceId: row.latestInvoice?.id ?? null,
    switchingTarget:
      row.switchingTargetVoucherableId != null && row.switchMode
        ? { voucherableId: row.switchingTargetVoucherableId, mode: row.switchMode }
        : null,
  };
}

/** The terms a plan sells at (a switch's target), read when the switch is asked for. */
export interface PlanTermsInput {
  tenant: string;
  voucherableId: number;
}

/** The user subscription workflow's activities. */
export function createSubscriptionActivities(deps: ActivityDeps) {
  return {
    /** The subscription row as the workflow starts from it (USU100 when it does not exist). */
    loadSubscription(input: Tenanted): Promise<RecordedSubscription> {
      return asActivity(async () => {
        const row = await tenantEm(deps.orm, input.tenant).findOne(
          UserSubscription,
          input.userSubscriptionId,
        );
        if (!row) throw new DomainError('USU100', `user subscription ${input.userSubscriptionId} not found`);
        return recordedView(row);
      });
    },

    /** Charges one period: invoice, bill, payment row (its workflow is the subscription workflow's child). */
    chargeSubscriptionPeriod(input: ChargePeriodInput): Promise<ChargedPeriod> {
      return asActivity(() =>
        inTenantTransaction(deps.orm, input.tenant, (tx) =>
          chargePeriod(tx, {
            userSubscriptionId: input.userSubscriptionId,
            kind: input.kind,
            number: input.number,
            terms: input.terms,
            price: input.price,
            startsAt: new Date(input.startsAtMs),
            endsAt: new Date(input.endsAtMs),
            requestedBy: input.requestedBy,
            idempotencyKey: input.key,
            gateway: deps.paymentGateways.default.name,
            workflowIdOfPayment: (id) => paymentWorkflowId(input.tenant, id),
            at: new Date(input.at),
          }),
        ),
      );
    },

    /** The terms a plan sells at (a switch's target): SU101, SU116, SU112, SU110 when unusable. */
    subscriptionPlanTerms(input: PlanTermsInput): Promise<SubscriptionTerms> {
      return asActivity(async () =>
        termsOfPlan(await planById(tenantEm(deps.orm, input.tenant), input.voucherableId)),
      );
    },

    /** A payment's state, read while its workflow runs outside this subscription's children. */
    subscriptionPaymentState(input: { tenant: string; paymentId: number }): Promise<PaymentState> {
      return asActivity(() => paymentStateOf(tenantEm(deps.orm, input.tenant), input.paymentId));
    },

    /** Writes one step of the transition table (once per activity key) and answers the row. */
    recordSubscriptionStep(input: RecordStepInput): Promise<RecordedSubscription> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(async () => {
        const row = await inTenantTransaction(deps.orm, input.tenant, (tx) =>
          applySubscriptionStep(tx, {
            userSubscriptionId: input.userSubscriptionId,
            event: input.event,
            at: new Date(input.at),
            requestedBy: input.requestedBy,
            idempotencyKey,
            periodId: input.periodId ?? null,
            calendar: input.calendar
              ? { anchorAt: new Date(input.calendar.anchorMs), anchorPeriod: input.calendar.anchorPeriod }
              : null,
            switchTo: input.switchTo ?? null,
            cancelBenefits: input.cancelBenefits,
          }),
        );
        return recordedView(row);
      });
    },

    /**
     * The app's renew: the failed renewal's payment is retried now (the payment workflow's retryPayment
     * Update: P120 when its state allows none, e.g. while an attempt runs).
     */
    retrySubscriptionPayment(input: {
      tenant: string;
      paymentId: number;
      requestedBy: string;
    }): Promise<void> {
      return asActivity(async () => {
        try {
          await deps.temporal.client.workflow
            .getHandle(paymentWorkflowId(input.tenant, input.paymentId))
            .executeUpdate(retryPaymentUpdate, { args: [{ requestedBy: input.requestedBy }] });
        } catch (error) {
          if (error instanceof WorkflowNotFoundError)
            throw new DomainError('P120', `payment ${input.paymentId} no longer runs`);
          const cause = (error as { cause?: { type?: string; message?: string } }).cause;
          if (cause?.type === 'P120') throw new DomainError('P120', cause.message);
          throw error;
        }
      });
    },
  };
}

/** What a charge wrote (the workflow reads it). */
export type { ChargedPeriod };

/** The activities' type, for the workflow's proxies. */
export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
