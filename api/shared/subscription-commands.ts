// The subscription commands both interfaces send: buy (the row, then its workflow, whose first step
// charges the purchase; the answer waits for the payment's first attempt), and the workflow's Updates
// (cancel auto-renewal, reactivate, renew, switch, revert a switch, cancel). Answers re-read the row, so
// they show what the workflow committed. See docs/subscriptions.md.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { Branch } from '../../db/entities/Branch.js';
import { UserSubscription } from '../../db/entities/UserSubscription.js';
import { UserSubscriptionPeriod } from '../../db/entities/UserSubscriptionPeriod.js';
import type { Voucherable } from '../../db/entities/Voucherable.js';
import { inTenantTransaction } from '../../db/orm.js';
import { assertPayerReady } from '../../db/payer-readiness.js';
import { createUserSubscription } from '../../db/subscriptions.js';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import { runningPaymentStates, type PaymentState } from '../../domain/finance.js';
import {
  subscriptionWorkflowId,
  subscriptionWorkflowStartOptions,
  SUBSCRIPTION_WORKFLOW_TYPE,
  type SubscriptionWorkflowSnapshot,
} from '../../workflows/subscription.messages.js';
import type { RouteContext } from '../kernel/route.js';
import { freshPayment, withdrawDeclinedCharge } from './purchase-charges.js';

/** The codes a purchase answers. */
export const buySubscriptionErrors = [
  'SU101',
  'SU103',
  'SU105',
  'SU110',
  'SU112',
  'SU113',
  'SU116',
  'SU117',
  'SU119',
  'P104',
] as const satisfies readonly ErrorCode[];

/** The codes of the workflow's Updates (the table's refusals, a step in progress, a finished workflow). */
export const subscriptionUpdateErrors = [
  'SU103',
  'SU104',
  'SU105',
  'SU107',
  'SU108',
  'SU118',
] as const satisfies readonly ErrorCode[];

/** How long a purchase's or a switch's answer waits for its payment's first attempt. */
export const SUBSCRIPTION_CHARGE_WAIT_MS = 10_000;

/** Payment states in which the first attempt has not answered yet (after PAID or FAILED the row follows at once). */
const undecided: readonly PaymentState[] = ['OPEN', 'IN_PAYMENT'];

/** The committed row, re-read. */
export function reloadSubscription(ctx: RouteContext, id: number): Promise<UserSubscription> {
  return ctx.em.findOneOrFail(UserSubscription, id, { refresh: true });
}

/**
 * Waits (at most SUBSCRIPTION_CHARGE_WAIT_MS) until the subscription's charge of `kind` decided its
 * first attempt: the period is paid or failed, or its payment waits (a decline awaiting its retry, a
 * 3-D Secure challenge for the customer). Answers the row then.
 */
async function afterFirstAttempt(ctx: RouteContext, id: number, settled: (row: UserSubscription) => boolean) {
  const until = Date.now() + SUBSCRIPTION_CHARGE_WAIT_MS;
  for (;;) {
    const row = await reloadSubscription(ctx, id);
    if (settled(row) || Date.now() >= until) return row;
    const period = await ctx.em.findOne(
      UserSubscriptionPeriod,
      { userSubscription: id },
      { orderBy: { id: 'desc' }, populate: ['payment'], refresh: true },
    );
    if (
      period &&
      period.state === 'CHARGING' &&
      period.payment &&
      (runningPaymentStates as readonly PaymentState[]).includes(period.payment.state) &&
      !undecided.includes(period.payment.state)
    )
      return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a purchase asks for (the app's buy, the operator's buy on a customer's behalf). */
export interface SubscriptionPurchase {
  customerId: number;
  plan: Voucherable;
  branch: Branch;
  createdBy: string;
  /** The request's idempotency key (`Idempotency-Key`): a retried purchase answers the first one. */
  idempotencyKey?: string;
}

/** The payment of a subscription's newest period, if it has one. */
async function latestPeriodPayment(ctx: RouteContext, id: number) {
  const period = await ctx.em.findOne(
    UserSubscriptionPeriod,
    { userSubscription: id },
    { orderBy: { id: 'desc' }, populate: ['payment'], refresh: true },
  );
  return period?.payment ? freshPayment(ctx, period.payment.id) : null;
}

/**
 * Buys a plan for a customer: the row (RENEWING, period 0), then its workflow, which charges the first
 * period; answers once the payment's first attempt decided (SU119 when the gateway refused it, the
 * subscription then EXPIRED with auto-renewal FAILED). A 3-D Secure challenge answers the subscription
 * as it is (period 0, its `latestInvoiceId` shows the invoice whose payment waits for the customer).
 */
export async function buySubscription(
  ctx: RouteContext,
  purchase: SubscriptionPurchase,
): Promise<UserSubscription> {
  const idempotencyKey = `buy:${purchase.customerId}:${purchase.plan.id}:${purchase.idempotencyKey ?? ctx.traceId}`;
  // Readiness before anything is written: a subscription renews, so it needs a payment method (or
  // INVOICING); a retried purchase answers what the first one did.
  if (!(await ctx.em.findOne(UserSubscription, { idempotencyKey })))
    await assertPayerReady(ctx.em, { customerId: purchase.customerId, userGroupId: null });
  const { subscription } = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
    createUserSubscription(tx, {
      customerId: purchase.customerId,
      plan: purchase.plan,
      branch: purchase.branch,
      createdBy: purchase.createdBy,
      idempotencyKey,
      at: new Date(),
      workflowIdOf: (id) => subscriptionWorkflowId(ctx.tenant, id),
    }),
  );
  try {
    await ctx.services.temporal.workflow.start(
      SUBSCRIPTION_WORKFLOW_TYPE,
      subscriptionWorkflowStartOptions(
        {
          tenant: ctx.tenant,
          userSubscriptionId: subscription.id,
          customerId: purchase.customerId,
          branchId: purchase.branch.id,
          businessUnitId: subscription.businessUnit.id,
          requestedBy: purchase.createdBy,
        },
        ctx.services.taskQueue,
      ),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  let row = await afterFirstAttempt(
    ctx,
    subscription.id,
    (r) => r.currentPeriod > 0 || r.state !== 'RENEWING',
  );
  if (row.currentPeriod === 0) {
    // A declined first charge leaves nothing half-done: the payment retries no more (WITHDRAWN), so the
    // workflow records PURCHASE_FAILED (EXPIRED, autoRenewal FAILED: it never started); the invoice is
    // CLOSED and the balance credit it took given back.
    const payment = await latestPeriodPayment(ctx, row.id);
    if (payment && (await withdrawDeclinedCharge(ctx, payment, purchase.createdBy)))
      row = await afterFirstAttempt(ctx, row.id, (r) => r.state !== 'RENEWING');
  }
  if (row.state === 'EXPIRED')
    throw new DomainError(
      'SU119',
      `the payment of subscription ${row.id} failed; the subscription did not start`,
    );
  return row;
}

/** The refusal of a command to a subscription that no longer runs, from its row. */
function endedRefusal(row: UserSubscription): DomainError | null {
  if (row.state === 'CANCELLED') return new DomainError('SU107', `user subscription ${row.id} was cancelled`);
  if (row.state === 'EXPIRED') return new DomainError('SU104', `user subscription ${row.id} expired`);
  return null;
}

/**
 * Sends one of the workflow's Updates and answers the row the workflow left (its validator's refusal,
 * a table refusal, passes through with its code; a finished subscription answers SU107 or SU104).
 */
export async function sendSubscriptionUpdate<Arg>(
  ctx: RouteContext,
  row: UserSubscription,
  update: UpdateDefinition<SubscriptionWorkflowSnapshot, [Arg]>,
  arg: Arg,
): Promise<UserSubscription> {
  const ended = endedRefusal(row);
  if (ended) throw ended;
  await ctx.services.temporal.workflow.getHandle(row.workflowId).executeUpdate(update, { args: [arg] });
  return reloadSubscription(ctx, row.id);
}

/** After an immediate switch was asked for: waits for its charge's first attempt and answers the row. */
export function afterSwitch(ctx: RouteContext, id: number): Promise<UserSubscription> {
  return afterFirstAttempt(ctx, id, (row) => row.state !== 'SWITCHING');
}
