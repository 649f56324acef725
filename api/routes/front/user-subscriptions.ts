// The app's own user subscriptions (spec 001): list and detail, DELETE (reverts a pending delayed switch,
// else cancels the subscription now, its vouchers kept to their period's end), and switching tier now
// or at the period's end. Another customer's subscription is not found (USU100). See
// docs/subscriptions.md.
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { UserSubscription } from '../../../db/entities/UserSubscription.js';
import { planByCode } from '../../../db/subscriptions.js';
import { DomainError } from '../../../domain/errors.js';
import { userSubscriptionStates } from '../../../domain/subscription.js';
import {
  cancelSubscriptionUpdate,
  revertSwitchUpdate,
  switchSubscriptionUpdate,
} from '../../../workflows/subscription.messages.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import {
  afterSwitch,
  sendSubscriptionUpdate,
  subscriptionUpdateErrors,
} from '../../shared/subscription-commands.js';
import {
  SubscriptionCode,
  UserSubscriptionSchema,
  UserSubscriptionState,
  userSubscriptionDtos,
} from '../../shared/subscription-representation.js';

const tags = ['Subscriptions'];

const IdParams = Type.Object({ userSubscriptionId: Id() });

/** The caller's subscription of the path; USU100 when unknown or another customer's. */
async function ownSubscription(ctx: RouteContext<{ userSubscriptionId: number }>): Promise<UserSubscription> {
  const customer = await ctx.customer();
  const row = await ctx.em.findOne(UserSubscription, {
    id: ctx.params.userSubscriptionId,
    customer: customer.id,
  });
  if (!row) throw new DomainError('USU100', `user subscription ${ctx.params.userSubscriptionId} not found`);
  return row;
}

export const appListUserSubscriptions = defineRoute({
  operationId: 'appListUserSubscriptions',
  method: 'get',
  path: '/user-subscriptions',
  interface: 'front',
  summary: 'My subscriptions, newest first',
  description: '`state` (repeatable) filters. Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    state: Type.Optional(
      Type.Array(UserSubscriptionState, {
        maxItems: userSubscriptionStates.length,
        description: 'Repeatable.',
      }),
    ),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "only the caller's own subscriptions." },
  responses: {
    200: { description: 'One page of my subscriptions', schema: Type.Array(UserSubscriptionSchema) },
  },
  errors: [],
  async handler(ctx) {
    const customer = await ctx.customer();
    const where: FilterQuery<UserSubscription> = { customer: customer.id };
    if (ctx.query.state?.length) where.state = { $in: ctx.query.state };
    const [rows, total] = await ctx.em.findAndCount(UserSubscription, where, {
      orderBy: { id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(await userSubscriptionDtos(ctx.em, rows), { total });
  },
});

export const appGetUserSubscription = defineRoute({
  operationId: 'appGetUserSubscription',
  method: 'get',
  path: '/user-subscriptions/{userSubscriptionId}',
  interface: 'front',
  summary: 'One of my subscriptions',
  tags,
  params: IdParams,
  access: { customer: "only the caller's own subscriptions." },
  responses: { 200: { description: 'My subscription', schema: UserSubscriptionSchema } },
  errors: ['USU100'],
  async handler(ctx) {
    return ok((await userSubscriptionDtos(ctx.em, [await ownSubscription(ctx)]))[0]!);
  },
});

export const appDeleteUserSubscription = defineRoute({
  operationId: 'appDeleteUserSubscription',
  method: 'delete',
  path: '/user-subscriptions/{userSubscriptionId}',
  interface: 'front',
  summary: 'Revert a pending switch, or cancel the subscription',
  description:
    'With a delayed switch pending (SWITCHING): the switch is dropped and the current plan renews as before (RENEWING). Otherwise the subscription is CANCELLED now: no further renewal; the current period’s vouchers stay usable until it ends. SU118 while an immediate switch is being charged; SU107/SU104 once cancelled/expired.',
  tags,
  params: IdParams,
  access: { customer: "only the caller's own subscriptions." },
  responses: { 200: { description: 'My subscription afterwards', schema: UserSubscriptionSchema } },
  errors: ['USU100', ...subscriptionUpdateErrors],
  async handler(ctx) {
    const row = await ownSubscription(ctx);
    const customer = await ctx.customer();
    const requestedBy = `customer:${customer.id}`;
    if (row.state === 'SWITCHING' && row.switchMode !== 'DELAYED')
      throw new DomainError('SU118', 'an immediate switch is being charged');
    const after =
      row.state === 'SWITCHING'
        ? await sendSubscriptionUpdate(ctx, row, revertSwitchUpdate, { requestedBy })
        : await sendSubscriptionUpdate(ctx, row, cancelSubscriptionUpdate, {
            requestedBy,
            cancelBenefits: false,
          });
    return ok((await userSubscriptionDtos(ctx.em, [after]))[0]!);
  },
});

export const appSwitchUserSubscription = defineRoute({
  operationId: 'appSwitchUserSubscription',
  method: 'post',
  path: '/user-subscriptions/{userSubscriptionId}/switch',
  interface: 'front',
  summary: 'Switch to another plan, now or at the end of the period',
  description:
    'The target (`subscriptionCode`) must be an ACTIVE plan sold where the subscription was bought, in its currency (SU101, SU105, SU113, SU111; SU103 for the same plan). `immediate=false` (default): SWITCHING with `switchingTarget` until the period ends, when the target is charged and takes over (SWITCHED); DELETE reverts it meanwhile. `immediate=true`: the target is charged now on a calendar starting now; paid, the current period’s vouchers are cancelled, the target’s granted and the subscription is SWITCHED (the answer waits up to 10 s); a failed charge leaves the current plan (RENEWING). No refund of the unused part of the current period.',
  tags,
  params: IdParams,
  body: Type.Object(
    { subscriptionCode: SubscriptionCode, immediate: Type.Optional(Type.Boolean({ default: false })) },
    { additionalProperties: false },
  ),
  access: { customer: "only the caller's own subscriptions." },
  responses: { 200: { description: 'My subscription', schema: UserSubscriptionSchema } },
  errors: ['USU100', 'SU101', 'SU111', 'SU113', 'SU116', 'SU112', 'SU110', ...subscriptionUpdateErrors],
  async handler(ctx) {
    const row = await ownSubscription(ctx);
    const customer = await ctx.customer();
    const plan = await planByCode(ctx.em, ctx.body.subscriptionCode);
    const immediate = ctx.body.immediate ?? false;
    let after = await sendSubscriptionUpdate(ctx, row, switchSubscriptionUpdate, {
      requestedBy: `customer:${customer.id}`,
      voucherableId: plan.id,
      mode: immediate ? 'IMMEDIATE' : 'DELAYED',
    });
    if (immediate) after = await afterSwitch(ctx, row.id);
    return ok((await userSubscriptionDtos(ctx.em, [after]))[0]!);
  },
});

export const appUserSubscriptionRoutes = [
  appListUserSubscriptions,
  appGetUserSubscription,
  appDeleteUserSubscription,
  appSwitchUserSubscription,
];
