// The app's subscriptions by plan code (spec 001): the catalogue of a branch (without branchId, the plans
// the caller subscribes to), a plan's detail, and the actions on the caller's subscription of a plan: buy,
// cancel (auto-renewal off), reactivate (on again) and renew (retry a failed renewal's payment now). The
// caller's own subscriptions only; another customer's are never found. See docs/subscriptions.md.
import { Type } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { UserSubscription } from '../../../db/entities/UserSubscription.js';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { planByCode, plansForBranch } from '../../../db/subscriptions.js';
import { DomainError } from '../../../domain/errors.js';
import { runningSubscriptionStates } from '../../../domain/subscription.js';
import {
  cancelAutoRenewalUpdate,
  reactivateSubscriptionUpdate,
  renewSubscriptionUpdate,
} from '../../../workflows/subscription.messages.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import { PurchaseHeaders, purchaseKeyOf } from '../../shared/purchase-charges.js';
import {
  buySubscription,
  buySubscriptionErrors,
  sendSubscriptionUpdate,
  subscriptionUpdateErrors,
} from '../../shared/subscription-commands.js';
import {
  SubscriptionCatalogItem,
  SubscriptionCode,
  UserSubscriptionSchema,
  catalogItemDto,
  userSubscriptionDtos,
} from '../../shared/subscription-representation.js';

const tags = ['Subscriptions'];

const CodeParams = Type.Object({ subscriptionCode: SubscriptionCode });

/** The caller's running subscription of the path's plan; SU101 for an unknown plan, SU104 when none runs. */
async function ownRunningSubscription(
  ctx: RouteContext<{ subscriptionCode: string }>,
): Promise<UserSubscription> {
  const customer = await ctx.customer();
  const plan = await planByCode(ctx.em, ctx.params.subscriptionCode);
  const row = await ctx.em.findOne(UserSubscription, {
    customer: customer.id,
    voucherableId: plan.id,
    state: { $in: [...runningSubscriptionStates] },
  });
  if (!row) throw new DomainError('SU104', `you do not subscribe to ${ctx.params.subscriptionCode}`);
  return row;
}

export const appListSubscriptions = defineRoute({
  operationId: 'appListSubscriptions',
  method: 'get',
  path: '/subscriptions',
  interface: 'front',
  summary: 'The subscription catalogue of a branch; without branchId, the plans I subscribe to',
  description:
    'With `branchId`: the ACTIVE plans shown in the app (`showInUserApp`) that are sold at the branch (its business unit, and its applicable branches when the plan names some). Without it: the plans of my running subscriptions.',
  tags,
  query: Type.Object({ branchId: Type.Optional(Id()) }),
  access: { customer: 'the catalogue is public to customers; without branchId only the caller’s own plans.' },
  responses: { 200: { description: 'The plans', schema: Type.Array(SubscriptionCatalogItem) } },
  errors: ['B404'],
  async handler(ctx) {
    const customer = await ctx.customer();
    if (ctx.query.branchId !== undefined) {
      const branch = await ctx.em.findOne(Branch, ctx.query.branchId);
      if (!branch) throw new DomainError('B404', `branch ${ctx.query.branchId} not found`);
      return ok(
        (await plansForBranch(ctx.em, branch)).filter((plan) => plan.showInUserApp).map(catalogItemDto),
      );
    }
    const own = await ctx.em.find(UserSubscription, {
      customer: customer.id,
      state: { $in: [...runningSubscriptionStates] },
    });
    const ids = [...new Set(own.map((row) => row.voucherableId))];
    const plans =
      ids.length === 0
        ? []
        : await ctx.em.find(Voucherable, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
    return ok(plans.map(catalogItemDto));
  },
});

export const appGetSubscription = defineRoute({
  operationId: 'appGetSubscription',
  method: 'get',
  path: '/subscriptions/{subscriptionCode}',
  interface: 'front',
  summary: 'One plan of the catalogue',
  description: 'An ACTIVE plan, or one the caller subscribes to; SU101 otherwise.',
  tags,
  params: CodeParams,
  access: { customer: 'active plans, and inactive ones only to their subscribers.' },
  responses: { 200: { description: 'The plan', schema: SubscriptionCatalogItem } },
  errors: ['SU101'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const plan = await planByCode(ctx.em, ctx.params.subscriptionCode);
    if (plan.status !== 'ACTIVE') {
      const own = await ctx.em.count(UserSubscription, { customer: customer.id, voucherableId: plan.id });
      if (own === 0) throw new DomainError('SU101', `subscription ${ctx.params.subscriptionCode} not found`);
    }
    return ok(catalogItemDto(plan));
  },
});

export const appBuySubscription = defineRoute({
  operationId: 'appBuySubscription',
  method: 'post',
  path: '/subscriptions/buy/{subscriptionCode}',
  interface: 'front',
  summary: 'Buy a plan: charged to my default payment source, then renewing at each interval',
  description:
    "The first period costs `initialPrice` when the plan has one (for `initialIterations` periods), else `price`; the default balance's credit is used first. The answer waits up to 10 s for the payment's first attempt: paid, the subscription is RENEWING with period 1 and its vouchers; a 3-D Secure challenge answers it with period 0 (the invoice `latestInvoiceId` awaits the customer); a refused charge is SU119 (the subscription EXPIRED with autoRenewal FAILED: it never started; its invoice CLOSED, the balance credit given back; a soft decline is not retried). Readiness comes first: P104 without a payment method (nothing is written). With an `Idempotency-Key` header a repeated request answers the first purchase (one invoice). `branchId` (required) is where the subscription is used: SU113 when the plan is not sold there. SU103 when I already subscribe to the plan, SU117 at the most running subscriptions.",
  tags,
  params: CodeParams,
  headers: PurchaseHeaders,
  body: Type.Object({ branchId: Id() }, { additionalProperties: false }),
  access: { customer: 'buys for the caller only.' },
  responses: { 201: { description: 'My subscription', schema: UserSubscriptionSchema } },
  errors: ['B404', ...buySubscriptionErrors],
  async handler(ctx) {
    const customer = await ctx.customer();
    const branch = await ctx.em.findOne(Branch, ctx.body.branchId);
    if (!branch) throw new DomainError('B404', `branch ${ctx.body.branchId} not found`);
    const plan = await planByCode(ctx.em, ctx.params.subscriptionCode);
    const row = await buySubscription(ctx, {
      customerId: customer.id,
      plan,
      branch,
      createdBy: `customer:${customer.id}`,
      idempotencyKey: purchaseKeyOf(ctx),
    });
    return created((await userSubscriptionDtos(ctx.em, [row]))[0]!, {
      Location: `${ctx.baseUrl}/user-subscriptions/${row.id}`,
    });
  },
});

/** The three actions on the caller's subscription of a plan, declared alike. */
function planAction(
  name: 'cancel' | 'reactivate' | 'renew',
  operationId: string,
  summary: string,
  description: string,
  send: (ctx: RouteContext<{ subscriptionCode: string }>, row: UserSubscription) => Promise<UserSubscription>,
) {
  return defineRoute({
    operationId,
    method: 'post',
    path: `/subscriptions/${name}/{subscriptionCode}`,
    interface: 'front',
    summary,
    description,
    tags,
    params: CodeParams,
    access: { customer: 'the caller’s own subscription of the plan only.' },
    responses: { 200: { description: 'My subscription', schema: UserSubscriptionSchema } },
    errors: ['SU101', 'P120', ...subscriptionUpdateErrors],
    async handler(ctx) {
      const row = await send(ctx, await ownRunningSubscription(ctx));
      return ok((await userSubscriptionDtos(ctx.em, [row]))[0]!);
    },
  });
}

const requestedBy = async (ctx: RouteContext) => ({ requestedBy: `customer:${(await ctx.customer()).id}` });

export const appCancelSubscription = planAction(
  'cancel',
  'appCancelSubscription',
  'Cancel auto-renewal: the subscription runs to the end of its period, then EXPIRED',
  'autoRenewal ACTIVE → INACTIVE; the current period and its vouchers stay. SU108 when auto-renewal is already off; SU105 while a renewal payment failed (renew or wait); SU118 while a charge is under way.',
  async (ctx, row) => sendSubscriptionUpdate(ctx, row, cancelAutoRenewalUpdate, await requestedBy(ctx)),
);

export const appReactivateSubscription = planAction(
  'reactivate',
  'appReactivateSubscription',
  'Reactivate auto-renewal before the period ends',
  'autoRenewal INACTIVE → ACTIVE. SU103 when it renews already; SU104 once expired.',
  async (ctx, row) => sendSubscriptionUpdate(ctx, row, reactivateSubscriptionUpdate, await requestedBy(ctx)),
);

export const appRenewSubscription = planAction(
  'renew',
  'appRenewSubscription',
  'Renew now: retry the failed renewal payment',
  'Allowed while autoRenewal is FAILED (the renewal payment was declined and waits for its retry): the payment is attempted now; paid, the next period starts (RENEWING, autoRenewal ACTIVE). SU103 when auto-renewal works, SU108 when it is off, P120 when the payment cannot be retried now (an attempt runs).',
  async (ctx, row) => sendSubscriptionUpdate(ctx, row, renewSubscriptionUpdate, await requestedBy(ctx)),
);

export const appSubscriptionRoutes = [
  appListSubscriptions,
  appGetSubscription,
  appBuySubscription,
  appCancelSubscription,
  appReactivateSubscription,
  appRenewSubscription,
];
