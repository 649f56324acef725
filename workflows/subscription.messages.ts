// Messages of the user subscription workflow, its id and its start options; the API, the activities and
// the tests import these without importing workflow code. See docs/subscriptions.md.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type {
  AutoRenewalState,
  SubscriptionTerms,
  SwitchMode,
  UserSubscriptionState,
} from '../domain/subscription.js';
import type { SubscriptionInterval } from '../domain/subscription-calendar.js';
import {
  BranchIdKey,
  BusinessUnitIdKey,
  CustomerIdKey,
  EntityStateKey,
  TenantIdKey,
} from './search-attributes.js';

/** The subscription workflow's type name: the API and the tests start subscriptions by it. */
export const SUBSCRIPTION_WORKFLOW_TYPE = 'subscriptionWorkflow';

/** `subscription:{tenant}:{userSubscriptionId}`: one workflow per user subscription, readable in the UI. */
export function subscriptionWorkflowId(tenant: string, userSubscriptionId: number): string {
  return `subscription:${tenant}:${userSubscriptionId}`;
}

/** What the workflow starts with: the subscription row exists (RENEWING, period 0) before it starts. */
export interface SubscriptionWorkflowInput {
  tenant: string;
  userSubscriptionId: number;
  customerId: number;
  branchId: number;
  businessUnitId: number;
  /** Who bought it (`customer:{id}`, or an operator buying on the customer's behalf). */
  requestedBy: string;
  /** Set when the workflow continues as new (each period): the state it carries into the new run. */
  resume?: SubscriptionWorkflowSnapshot;
}

/**
 * How every subscription workflow is started (API, tests, bench): its readable id, a duplicate-rejecting
 * policy and the search attributes ops filter by (tenant, branch, business unit, customer, state).
 */
export function subscriptionWorkflowStartOptions(input: SubscriptionWorkflowInput, taskQueue: string) {
  return {
    workflowId: subscriptionWorkflowId(input.tenant, input.userSubscriptionId),
    taskQueue,
    args: [input] as [SubscriptionWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: BranchIdKey, value: String(input.branchId) },
      { key: BusinessUnitIdKey, value: String(input.businessUnitId) },
      { key: CustomerIdKey, value: String(input.customerId) },
      { key: EntityStateKey, value: 'RENEWING' },
    ],
    memo: { requestedBy: input.requestedBy },
  };
}

/** A pending tier switch: the plan, how it takes effect, and the plan's terms (read when asked for). */
export interface PendingSwitch {
  voucherableId: number;
  mode: SwitchMode;
  terms: SubscriptionTerms;
}

/** The calendar the current terms run on. */
export interface SubscriptionCalendarState {
  anchorMs: number;
  /** The period that starts at `anchorMs`. */
  anchorPeriod: number;
  timeZone: string;
  interval: SubscriptionInterval;
}

/** A charge under way: its period row and its payment (null when free or paid by the balance). */
export interface PendingCharge {
  periodId: number;
  kind: 'PURCHASE' | 'RENEWAL' | 'SWITCH';
  number: number;
  startsAtMs: number;
  endsAtMs: number;
  paymentId: number | null;
  paymentWorkflowId: string | null;
}

/** The workflow's view of its subscription, kept equal to the row; returned by updates and the query. */
export interface SubscriptionWorkflowSnapshot {
  userSubscriptionId: number;
  state: UserSubscriptionState;
  autoRenewal: AutoRenewalState;
  terms: SubscriptionTerms;
  calendar: SubscriptionCalendarState;
  /** 0 until the purchase is paid. */
  currentPeriod: number;
  periodStartMs: number | null;
  /** validUntil: the end of the current period. */
  periodEndMs: number | null;
  switching: PendingSwitch | null;
  latestInvoiceId: number | null;
  /** The charge awaited (purchase, renewal, immediate switch), if any. */
  charge: PendingCharge | null;
  /** How many switches were asked for (each switch's charge has its own key). */
  switchCount: number;
  operationInProgress?: SubscriptionOperationName;
}

/** The step in progress, named in SU118 refusals. */
export type SubscriptionOperationName =
  | 'LOAD'
  | 'CHARGE'
  | 'RECORD'
  | 'CANCEL_AUTO_RENEWAL'
  | 'REACTIVATE'
  | 'RENEW'
  | 'SWITCH'
  | 'REVERT_SWITCH'
  | 'CANCEL';

/** Who asks: every update names the customer, operator or client acting. */
export interface SubscriptionRequested {
  requestedBy: string;
}

/** The app's POST /subscriptions/cancel/{code}: auto-renewal off; the period runs to its end. */
export const cancelAutoRenewalUpdate = defineUpdate<SubscriptionWorkflowSnapshot, [SubscriptionRequested]>(
  'cancelAutoRenewal',
);

/** The app's POST /subscriptions/reactivate/{code}: auto-renewal on again. */
export const reactivateSubscriptionUpdate = defineUpdate<
  SubscriptionWorkflowSnapshot,
  [SubscriptionRequested]
>('reactivateSubscription');

/** The app's POST /subscriptions/renew/{code}: retries a failed renewal's payment now. */
export const renewSubscriptionUpdate = defineUpdate<SubscriptionWorkflowSnapshot, [SubscriptionRequested]>(
  'renewSubscription',
);

/** A tier switch: to another plan of the same business unit, now or at the period's end. */
export interface SwitchSubscriptionRequest extends SubscriptionRequested {
  voucherableId: number;
  mode: SwitchMode;
}
export const switchSubscriptionUpdate = defineUpdate<
  SubscriptionWorkflowSnapshot,
  [SwitchSubscriptionRequest]
>('switchSubscription');

/** DELETE with a delayed switch pending: the switch is dropped, the current plan renews. */
export const revertSwitchUpdate = defineUpdate<SubscriptionWorkflowSnapshot, [SubscriptionRequested]>(
  'revertSwitch',
);

/** An operator's cancel, or the app's DELETE: CANCELLED now; cancelBenefits cancels its vouchers too. */
export interface CancelSubscriptionRequest extends SubscriptionRequested {
  cancelBenefits: boolean;
}
export const cancelSubscriptionUpdate = defineUpdate<
  SubscriptionWorkflowSnapshot,
  [CancelSubscriptionRequest]
>('cancelSubscription');

/** The subscription's state, period and pending switch or charge. */
export const subscriptionStatusQuery = defineQuery<SubscriptionWorkflowSnapshot>('subscriptionStatus');

/** How long a renewal's payment may take before the renewal counts as failed for now (autoRenewal FAILED). */
export const RENEWAL_SETTLE_MS = 60_000;
