// Operator endpoints of vouchers (the Finance table's voucher rows): the vouchers of a business unit with
// filters, a code's vouchers (by-code), the single-use constraint vouchers and their cancel. States are
// brought up to date before each read (PENDING → ACTIVE, → EXPIRED). Finance permissions BENEFITS_READ /
// BENEFITS_MANAGE on the business unit. Codes are created in vouchers-redeemable.ts. See docs/benefits.md.
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Voucher } from '../../../db/entities/Voucher.js';
import { VoucherCode } from '../../../db/entities/VoucherCode.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import {
  cancelConstraintVoucher,
  redeemableCodeOf,
  refreshVoucherStates,
  refreshVoucherStatesNow,
  vouchersOfConstraintCode,
} from '../../../db/vouchers.js';
import { benefitTypes, voucherStatuses } from '../../../domain/benefits.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  RedeemableCodeSchema,
  VoucherSchema,
  VoucherStatus,
  redeemableCodeDto,
  voucherDtos,
} from '../../shared/voucher-representation.js';

const tags = ['Vouchers'];

const unitOfQueryBranch = (ctx: RouteContext<unknown, { branchId: number }>) =>
  ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));

/** A finance permission on the business unit of the query's branchId. */
export const onTheQueryBranchUnit = (permission: 'BENEFITS_READ' | 'BENEFITS_MANAGE') => ({
  permission,
  businessUnitOf: 'the business unit of the query’s branchId',
  businessUnit: async (ctx: RouteContext<unknown, { branchId: number }>) => (await unitOfQueryBranch(ctx)).id,
});

const statusFilter = Type.Optional(
  Type.Array(VoucherStatus, { maxItems: voucherStatuses.length, uniqueItems: true }),
);

export const listVouchers = defineRoute({
  operationId: 'listVouchers',
  method: 'get',
  path: '/vouchers',
  interface: 'back',
  summary: "The vouchers of a branch's business unit, newest first",
  description:
    'Filters combine: `guserId`, `userGroupId`, `voucherableId`, `status` (repeatable), `benefitType`, `constraint` (only single-use code vouchers). Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    branchId: Id(),
    guserId: Type.Optional(Id()),
    userGroupId: Type.Optional(Id()),
    voucherableId: Type.Optional(Id()),
    status: statusFilter,
    benefitType: Type.Optional(StringEnum(benefitTypes)),
    constraint: Type.Optional(Type.Boolean()),
  }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: onTheQueryBranchUnit('BENEFITS_READ'),
  responses: { 200: { description: 'The vouchers', schema: Type.Array(VoucherSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await unitOfQueryBranch(ctx);
    const { query } = ctx;
    await refreshVoucherStatesNow(ctx.services.orm, ctx.tenant, { businessUnitId: unit.id });
    const where: FilterQuery<Voucher> = {
      businessUnitId: unit.id,
      ...(query.guserId ? { customerId: query.guserId } : {}),
      ...(query.userGroupId ? { userGroupId: query.userGroupId } : {}),
      ...(query.voucherableId ? { voucherable: query.voucherableId } : {}),
      ...(query.status?.length ? { status: { $in: query.status } } : {}),
      ...(query.benefitType ? { benefitType: query.benefitType } : {}),
      ...(query.constraint === true
        ? { code: { $ne: null } }
        : query.constraint === false
          ? { code: null }
          : {}),
    };
    const [rows, total] = await ctx.em.findAndCount(Voucher, where, {
      orderBy: { id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(await voucherDtos(ctx.em, rows), { total });
  },
});

export const listConstraintVouchers = defineRoute({
  operationId: 'listConstraintVouchers',
  method: 'get',
  path: '/vouchers/constraint-vouchers',
  interface: 'back',
  summary: "The single-use code vouchers of a branch's business unit, newest first",
  description: 'One row per benefit of each code; filters `voucherableId`, `status` (repeatable). Paged.',
  tags,
  query: Type.Object({ branchId: Id(), voucherableId: Type.Optional(Id()), status: statusFilter }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: onTheQueryBranchUnit('BENEFITS_READ'),
  responses: { 200: { description: 'The constraint vouchers', schema: Type.Array(VoucherSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await unitOfQueryBranch(ctx);
    await refreshVoucherStatesNow(ctx.services.orm, ctx.tenant, { businessUnitId: unit.id });
    const [rows, total] = await ctx.em.findAndCount(
      Voucher,
      {
        businessUnitId: unit.id,
        code: { $ne: null },
        ...(ctx.query.voucherableId ? { voucherable: ctx.query.voucherableId } : {}),
        ...(ctx.query.status?.length ? { status: { $in: ctx.query.status } } : {}),
      },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(await voucherDtos(ctx.em, rows), { total });
  },
});

const ConstraintParams = Type.Object({ voucherId: Id() });

const constraintVoucherOf = (ctx: RouteContext<{ voucherId: number }>) =>
  ctx.once('constraint-voucher', async () => {
    const voucher = await ctx.em.findOne(Voucher, { id: ctx.params.voucherId, code: { $ne: null } });
    if (!voucher) throw new DomainError('CV100', `constraint voucher ${ctx.params.voucherId} not found`);
    return voucher;
  });

export const cancelConstraintVoucherRoute = defineRoute({
  operationId: 'cancelConstraintVoucher',
  method: 'post',
  path: '/vouchers/constraint-vouchers/{voucherId}/cancel',
  interface: 'back',
  summary: 'Cancel a single-use code voucher (with every voucher of its code)',
  description:
    'NOT_REDEEMED, PENDING and ACTIVE vouchers of the code become CANCELED; credit already written to a wallet stays. W105 when the code was used up, W130 when it expired or was canceled.',
  tags,
  params: ConstraintParams,
  access: {
    permission: 'BENEFITS_MANAGE',
    businessUnitOf: 'the voucher',
    businessUnit: async (ctx) => (await constraintVoucherOf(ctx)).businessUnitId,
  },
  responses: { 200: { description: 'The vouchers of the code', schema: Type.Array(VoucherSchema) } },
  errors: ['CV100', 'W105', 'W130'],
  async handler(ctx) {
    await constraintVoucherOf(ctx);
    const vouchers = await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
      await refreshVoucherStates(tx, { voucherIds: [ctx.params.voucherId] });
      return cancelConstraintVoucher(tx, ctx.params.voucherId, ctx.actor);
    });
    return ok(
      await voucherDtos(
        ctx.em,
        await ctx.em.find(
          Voucher,
          { id: { $in: vouchers.map((v) => v.id) } },
          { orderBy: { benefitIndex: 'asc' }, refresh: true },
        ),
      ),
    );
  },
});

const ByCodeSchema = Type.Object(
  {
    code: Type.String(),
    kind: StringEnum(['CONSTRAINT', 'REDEEMABLE'] as const),
    voucherableId: Id(),
    redeemableCode: Nullable(RedeemableCodeSchema),
    vouchers: Type.Array(VoucherSchema, {
      description: 'The code’s vouchers (single-use) or those it granted (redeemable).',
    }),
  },
  { additionalProperties: false },
);

/** What a code is: a single-use code's vouchers or a redeemable code (W101 when neither). */
const codeOfPath = (ctx: RouteContext<{ code: string }>) =>
  ctx.once('code', async () => {
    const constraint = await vouchersOfConstraintCode(ctx.em, ctx.params.code);
    if (constraint.length > 0)
      return {
        kind: 'CONSTRAINT' as const,
        unitId: constraint[0]!.businessUnitId,
        constraint,
        redeemable: null,
      };
    const redeemable = await redeemableCodeOf(ctx.em, ctx.params.code);
    if (redeemable)
      return { kind: 'REDEEMABLE' as const, unitId: redeemable.businessUnitId, constraint: [], redeemable };
    throw new DomainError('W101', `no voucher code ${ctx.params.code}`);
  });

export const getVouchersByCode = defineRoute({
  operationId: 'getVouchersByCode',
  method: 'get',
  path: '/vouchers/by-code/{code}',
  interface: 'back',
  summary: 'A voucher code: its single-use vouchers, or the redeemable code with the vouchers it granted',
  tags,
  params: Type.Object({ code: Str(64, { minLength: 1 }) }),
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the code',
    businessUnit: async (ctx) => (await codeOfPath(ctx)).unitId,
  },
  responses: { 200: { description: 'The code', schema: ByCodeSchema } },
  errors: ['W101'],
  async handler(ctx) {
    const found = await codeOfPath(ctx);
    if (found.kind === 'CONSTRAINT') {
      await refreshVoucherStatesNow(ctx.services.orm, ctx.tenant, {
        voucherIds: found.constraint.map((voucher) => voucher.id),
      });
      const vouchers = await ctx.em.find(
        Voucher,
        { id: { $in: found.constraint.map((voucher) => voucher.id) } },
        { orderBy: { benefitIndex: 'asc' }, refresh: true },
      );
      return ok({
        code: vouchers[0]!.code!,
        kind: found.kind,
        voucherableId: vouchers[0]!.voucherable.id,
        redeemableCode: null,
        vouchers: await voucherDtos(ctx.em, vouchers),
      });
    }
    const code = found.redeemable as VoucherCode;
    const vouchers = await ctx.em.find(
      Voucher,
      { sourceKind: 'CODE', sourceReference: { $like: `code:${code.id}:%` } },
      { orderBy: { id: 'asc' }, limit: 500 },
    );
    return ok({
      code: code.code,
      kind: found.kind,
      voucherableId: code.voucherable.id,
      redeemableCode: redeemableCodeDto(code),
      vouchers: await voucherDtos(ctx.em, vouchers),
    });
  },
});

export const voucherRoutes = [
  listVouchers,
  listConstraintVouchers,
  cancelConstraintVoucherRoute,
  getVouchersByCode,
];
