// The operator's user subscriptions (the "Pricing and benefits" rows): the list of a branch's business
// unit (filters, paged), one subscription, cancel (`cancelBenefits=true` also cancels the vouchers it
// granted), and buying a plan on a customer's behalf (spec 001's versioning: "operator can buy on behalf
// of a user"; designed here). Finance permissions USER_SUBSCRIPTION_READ / USER_SUBSCRIPTION_MANAGE on the
// business unit. See docs/subscriptions.md.
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Branch } from '../../../db/entities/Branch.js';
import { Customer } from '../../../db/entities/Customer.js';
import { UserSubscription } from '../../../db/entities/UserSubscription.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { planByCode, planById } from '../../../db/subscriptions.js';
import { DomainError } from '../../../domain/errors.js';
import { userSubscriptionStates } from '../../../domain/subscription.js';
import { cancelSubscriptionUpdate } from '../../../workflows/subscription.messages.js';
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
  AutoRenewalState,
  SubscriptionCode,
  UserSubscriptionSchema,
  UserSubscriptionState,
  userSubscriptionDtos,
} from '../../shared/subscription-representation.js';

const tags = ['User subscriptions'];

const IdParams = Type.Object({ userSubscriptionId: Id() });

/** The subscription of the path, loaded once per request; USU100 when unknown. */
const subscriptionOfPath = (ctx: RouteContext<{ userSubscriptionId: number }>) =>
  ctx.once('user-subscription', async () => {
    const row = await ctx.em.findOne(UserSubscription, ctx.params.userSubscriptionId);
    if (!row) throw new DomainError('USU100', `user subscription ${ctx.params.userSubscriptionId} not found`);
    return row;
  });

/** A finance permission on the business unit that bills the path's subscription. */
const onTheSubscription = (permission: 'USER_SUBSCRIPTION_READ' | 'USER_SUBSCRIPTION_MANAGE') => ({
  permission,
  businessUnitOf: 'the user subscription',
  businessUnit: async (ctx: RouteContext<{ userSubscriptionId: number }>) =>
    (await subscriptionOfPath(ctx)).businessUnit.id,
});

export const listUserSubscriptions = defineRoute({
  operationId: 'listUserSubscriptions',
  method: 'get',
  path: '/user-subscriptions',
  interface: 'back',
  summary: "User subscriptions billed by a branch's business unit, newest first",
  description:
    'Filters combine (AND): `userId` (the customer), `voucherableId` (the plan), `state` (repeatable), `autoRenewal`, and `validUntilFrom`/`validUntilTo` (the current period’s end). Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    branchId: Id({ description: 'Lists the subscriptions its business unit bills.' }),
    userId: Type.Optional(Id()),
    voucherableId: Type.Optional(Id()),
    state: Type.Optional(
      Type.Array(UserSubscriptionState, {
        maxItems: userSubscriptionStates.length,
        description: 'Repeatable.',
      }),
    ),
    autoRenewal: Type.Optional(AutoRenewalState),
    validUntilFrom: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
    validUntilTo: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: {
    permission: 'USER_SUBSCRIPTION_READ',
    businessUnitOf: 'the business unit of the query’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId))).id,
  },
  responses: {
    200: { description: 'One page of user subscriptions', schema: Type.Array(UserSubscriptionSchema) },
  },
  errors: ['B404', '0022'],
  async handler(ctx) {
    const { query, page, em } = ctx;
    const unit = await ctx.once('query-unit', () => businessUnitOfBranch(em, query.branchId));
    const where: FilterQuery<UserSubscription> = { businessUnit: unit.id };
    if (query.userId !== undefined) where.customer = query.userId;
    if (query.voucherableId !== undefined) where.voucherableId = query.voucherableId;
    if (query.state?.length) where.state = { $in: query.state };
    if (query.autoRenewal) where.autoRenewal = query.autoRenewal;
    const window: Record<string, Date> = {};
    for (const [name, operator] of [
      ['validUntilFrom', '$gte'],
      ['validUntilTo', '$lt'],
    ] as const) {
      const text = query[name];
      if (text === undefined) continue;
      const at = new Date(text);
      if (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1970 || at.getUTCFullYear() > 9999)
        throw new DomainError('0022', `${name} is not a date-time between 1970 and 9999`);
      window[operator] = at;
    }
    if (Object.keys(window).length > 0) where.validUntil = window;
    const [rows, total] = await em.findAndCount(UserSubscription, where, {
      orderBy: { id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await userSubscriptionDtos(em, rows), { total });
  },
});

export const getUserSubscription = defineRoute({
  operationId: 'getUserSubscription',
  method: 'get',
  path: '/user-subscriptions/{userSubscriptionId}',
  interface: 'back',
  summary: 'One user subscription',
  tags,
  params: IdParams,
  access: onTheSubscription('USER_SUBSCRIPTION_READ'),
  responses: { 200: { description: 'The user subscription', schema: UserSubscriptionSchema } },
  errors: ['USU100'],
  async handler(ctx) {
    return ok((await userSubscriptionDtos(ctx.em, [await subscriptionOfPath(ctx)]))[0]!);
  },
});

export const cancelUserSubscription = defineRoute({
  operationId: 'cancelUserSubscription',
  method: 'post',
  path: '/user-subscriptions/{userSubscriptionId}/cancel',
  interface: 'back',
  summary: 'Cancel a user subscription now (CANCELLED)',
  description:
    'The subscription ends now: no further renewal. Its vouchers stay usable until their period ends, unless `cancelBenefits=true`, which cancels every NOT_REDEEMED, PENDING and ACTIVE voucher the subscription granted (credit already in the wallet stays). SU107 when it was cancelled, SU104 when it expired; a renewal payment still retrying is left to finance.',
  tags,
  params: IdParams,
  query: Type.Object({ cancelBenefits: Type.Optional(Type.Boolean({ default: false })) }),
  access: onTheSubscription('USER_SUBSCRIPTION_MANAGE'),
  responses: { 200: { description: 'The cancelled subscription', schema: UserSubscriptionSchema } },
  errors: ['USU100', ...subscriptionUpdateErrors],
  async handler(ctx) {
    const row = await sendSubscriptionUpdate(ctx, await subscriptionOfPath(ctx), cancelSubscriptionUpdate, {
      requestedBy: ctx.actor,
      cancelBenefits: ctx.query.cancelBenefits ?? false,
    });
    return ok((await userSubscriptionDtos(ctx.em, [row]))[0]!);
  },
});

export const buyUserSubscription = defineRoute({
  operationId: 'buyUserSubscription',
  method: 'post',
  path: '/user-subscriptions',
  interface: 'back',
  summary: "Buy a subscription on a customer's behalf",
  description:
    "The plan (`voucherableId` or `subscriptionCode`, a voucherable of type Subscription) is bought for the customer `userId` at `branchId` as the app's buy does: charged to the customer's default payment source (the balance's credit first) through a payment workflow; the answer waits up to 10 s for the payment's first attempt. P104 before anything is written when the customer has no payment method; SU119 when the gateway refused the charge (the subscription EXPIRED, never started; its invoice CLOSED, credit given back). An `Idempotency-Key` header makes a retried request answer the first purchase. The operator is recorded as the buyer. Needs USER_SUBSCRIPTION_MANAGE on the business unit of the branch.",
  tags,
  headers: PurchaseHeaders,
  body: Type.Object(
    {
      userId: Id({ description: 'The customer.' }),
      branchId: Id({
        description:
          'Where the subscription is used; its business unit bills it (SU113 when the plan is not sold there).',
      }),
      voucherableId: Type.Optional(Id({ description: 'The plan (or subscriptionCode).' })),
      subscriptionCode: Type.Optional(SubscriptionCode),
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'USER_SUBSCRIPTION_MANAGE',
    businessUnitOf: 'the business unit of the body’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('body-unit', () => businessUnitOfBranch(ctx.em, ctx.body.branchId))).id,
  },
  responses: { 201: { description: 'The subscription', schema: UserSubscriptionSchema } },
  errors: ['B404', 'U106', '0022', ...buySubscriptionErrors],
  async handler(ctx) {
    const { body, em } = ctx;
    if ((body.voucherableId === undefined) === (body.subscriptionCode === undefined))
      throw new DomainError('0022', 'name the plan with voucherableId or subscriptionCode (one of them)');
    const customer = await em.findOne(Customer, body.userId);
    if (!customer) throw new DomainError('U106', `customer ${body.userId} not found`);
    const branch = await em.findOneOrFail(Branch, body.branchId);
    const plan =
      body.voucherableId !== undefined
        ? await planById(em, body.voucherableId)
        : await planByCode(em, body.subscriptionCode!);
    const row = await buySubscription(ctx, {
      customerId: customer.id,
      plan,
      branch,
      createdBy: ctx.actor,
      idempotencyKey: purchaseKeyOf(ctx),
    });
    return created((await userSubscriptionDtos(em, [row]))[0]!, {
      Location: `${ctx.baseUrl}/user-subscriptions/${row.id}`,
    });
  },
});

export const userSubscriptionRoutes = [
  listUserSubscriptions,
  getUserSubscription,
  cancelUserSubscription,
  buyUserSubscription,
];
