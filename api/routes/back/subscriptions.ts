// The legacy operator `/subscriptions` (spec 000 "D | /packages, /subscriptions | legacy"): the plans of a
// branch's business unit, answered as `GET /voucherables?type=Subscription` answers them (same query, same
// representation, same permission) and documented as deprecated. See docs/subscriptions.md.
import { Type } from '@sinclair/typebox';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import {
  VoucherableSchema,
  VoucherableStatus,
  voucherableDto,
} from '../../shared/voucherable-representation.js';

export const listSubscriptionsDeprecated = defineRoute({
  operationId: 'listSubscriptionsDeprecated',
  method: 'get',
  path: '/subscriptions',
  interface: 'back',
  summary: "Subscription plans of a branch's business unit (deprecated)",
  description:
    'Answers as `GET /voucherables?type=Subscription&branchId=…` does: the voucherables of type Subscription of the business unit behind `branchId`, newest first, filtered by `status`, paged with the X-Total-* headers.',
  tags: ['Voucherables'],
  query: Type.Object({
    branchId: Id({ description: 'Lists the plans of its business unit.' }),
    status: Type.Optional(VoucherableStatus),
  }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the business unit of the query’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId))).id,
  },
  deprecated: { replacement: 'GET /voucherables?type=Subscription' },
  responses: { 200: { description: 'The plans', schema: Type.Array(VoucherableSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));
    const [rows, total] = await ctx.em.findAndCount(
      Voucherable,
      {
        businessUnitId: unit.id,
        type: 'Subscription',
        deletedAt: null,
        ...(ctx.query.status ? { status: ctx.query.status } : {}),
      },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(rows.map(voucherableDto), { total });
  },
});

export const deprecatedSubscriptionRoutes = [listSubscriptionsDeprecated];
