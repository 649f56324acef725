// Messages of the payment workflow, its id and its start options; the API, the billing activities and
// the tests import these without importing workflow code.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { PaymentChallenge, PaymentRetrySettings, PaymentState } from '../domain/finance.js';
import { BusinessUnitIdKey, CustomerIdKey, EntityStateKey, TenantIdKey } from './search-attributes.js';

/** The payment workflow's type name. */
export const PAYMENT_WORKFLOW_TYPE = 'paymentWorkflow';

/** `payment:{tenant}:{paymentId}`: one workflow per payment, readable in the Temporal UI. */
export function paymentWorkflowId(tenant: string, paymentId: number): string {
  return `payment:${tenant}:${paymentId}`;
}

/** What the payment workflow starts with: the payment row exists (state OPEN) before it starts. */
export interface PaymentWorkflowInput {
  tenant: string;
  paymentId: number;
  businessUnitId: number;
  customerId: number | null;
  /** What started the first attempt: FIRST (billing, settlement) or MANUAL (a retry of a FAILED payment). */
  firstTrigger?: 'FIRST' | 'MANUAL';
  /** Set when the workflow continues as new. */
  resume?: PaymentWorkflowSnapshot;
  /** Set when the workflow continues as new: what its loop needs beyond the snapshot. */
  carry?: PaymentWorkflowCarry;
  /**
   * The version of the payment's steps the run was started with (`PAYMENT_STEPS_VERSION`, stamped by
   * `paymentWorkflowStartOptions`); runs started before it have none.
   */
  stepsVersion?: number;
}

/**
 * The payment's steps as a run started now takes them: since 1, the first attempt's charge runs as a
 * local activity inside the run's first workflow task, and as an activity only when it outlasts
 * `FIRST_CHARGE_LOCAL_MS`. Runs started before it (no stamp) charge in an activity, as recorded. A stamp
 * instead of `patched()`: a patch records a marker and upserts `TemporalChangeVersion` in every run.
 */
export const PAYMENT_STEPS_VERSION = 1;

/**
 * How long the first charge may hold the payment's first workflow task as a local activity: meanwhile the
 * status query and an operator's close wait for it. A slower gateway answers to the same charge retried as
 * an activity (the same idempotency key), and the close is then refused at once while it runs (I124).
 */
export const FIRST_CHARGE_LOCAL_MS = 2_000;

/** What a payment's loop carries into a new run besides the snapshot. */
export interface PaymentWorkflowCarry {
  /** `finance.payment.retry`, read once when the payment started. */
  settings: PaymentRetrySettings;
  /** A failed challenge: until when (epoch ms) a manual retry is awaited before the payment FAILS. */
  retryWindowEndsMs: number | null;
  /** The gateway's reference of the charge whose challenge is awaited (signals about others are ignored). */
  chargeReference: string | null;
}

/**
 * How every payment workflow is started: its readable id, a duplicate-rejecting policy, its input stamped
 * with the steps' version and the search attributes ops filter by (tenant, customer, business unit, state).
 */
export function paymentWorkflowStartOptions(input: PaymentWorkflowInput, taskQueue: string) {
  return {
    workflowId: paymentWorkflowId(input.tenant, input.paymentId),
    taskQueue,
    args: [{ ...input, stepsVersion: PAYMENT_STEPS_VERSION }] as [PaymentWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: BusinessUnitIdKey, value: String(input.businessUnitId) },
      { key: CustomerIdKey, value: input.customerId === null ? 'none' : String(input.customerId) },
      { key: EntityStateKey, value: 'OPEN' },
    ],
  };
}

/** A payment workflow's steps: one runs at a time, and the status query names it while it runs. */
export type PaymentStepName = 'ATTEMPT' | 'RETRY' | 'CLOSE' | 'CHALLENGE' | 'GIVE_UP';

/** The workflow's view of its payment; returned by updates and the status query. */
export interface PaymentWorkflowSnapshot {
  paymentId: number;
  state: PaymentState;
  attemptCount: number;
  /** AWAITING_RETRY: epoch ms of the next automatic attempt. */
  nextRetryAtMs: number | null;
  challenge: PaymentChallenge | null;
  /** The step running now (its validators refuse other operations meanwhile), absent when idle. */
  operationInProgress?: PaymentStepName;
}

/** Who asks: an operator, the customer or `system`. */
export interface PaymentRequested {
  requestedBy: string;
}

/** Starts an attempt now (AWAITING_RETRY, or after a failed challenge); refused with P120 otherwise. */
export const retryPaymentUpdate = defineUpdate<PaymentWorkflowSnapshot, [PaymentRequested]>('retryPayment');

/** Ends collection: the invoice went to collections (COLLECTIONS) or was paid outside the gateway (PAID). */
export interface ClosePaymentRequest extends PaymentRequested {
  /** WITHDRAWN: a purchase gives up its declined first charge (no retries; api/shared/purchase-charges.ts). */
  event: 'COLLECTIONS' | 'PAID_EXTERNALLY' | 'WITHDRAWN';
}
export const closePaymentUpdate = defineUpdate<PaymentWorkflowSnapshot, [ClosePaymentRequest]>(
  'closePayment',
);

/** A gateway webhook's answer to a 3-D Secure or push challenge (verified by the adapter first). */
export interface ChallengeResolved {
  outcome: 'SUCCEEDED' | 'THREE_DS_FAILED' | 'PUSH_CANCELLED_BY_USER' | 'PUSH_BANK_REFUSED';
  /** The gateway's event id, recorded with the attempt. */
  eventId: string;
  chargeReference: string;
}
export const challengeResolvedSignal = defineSignal<[ChallengeResolved]>('challengeResolved');

/** The payment's current state, attempts and waits. */
export const paymentStatusQuery = defineQuery<PaymentWorkflowSnapshot>('paymentStatus');
