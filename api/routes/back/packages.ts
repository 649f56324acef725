// The operator's legacy `/packages` (deprecated, the "Pricing and benefits" D row): the packages of a
// branch's business unit, answering as `GET /voucherables?type=Package`. Packages are voucherables of type
// Package (created, changed and activated through `/voucherables`).
import { Type } from '@sinclair/typebox';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import { VoucherableSchema, voucherableDto } from '../../shared/voucherable-representation.js';

export const listPackagesDeprecated = defineRoute({
  operationId: 'listPackagesDeprecated',
  method: 'get',
  path: '/packages',
  interface: 'back',
  summary: "The packages of a branch's business unit (deprecated)",
  description: 'Answers as `GET /voucherables?branchId={branchId}&type=Package`.',
  tags: ['Voucherables'],
  query: Type.Object({ branchId: Id() }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the business unit of the query’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId))).id,
  },
  deprecated: { replacement: 'listVoucherables' },
  responses: { 200: { description: 'The packages', schema: Type.Array(VoucherableSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));
    const [rows, total] = await ctx.em.findAndCount(
      Voucherable,
      { businessUnitId: unit.id, type: 'Package', deletedAt: null },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(rows.map(voucherableDto), { total });
  },
});

export const legacyPackageRoutes = [listPackagesDeprecated];
