// The app's vouchers (`/vouchers` rows of the app interface): the signed-in customer's own vouchers with
// filters, and redeeming a code — a single-use code, a redeemable code, a promotion's or reward's code or
// another customer's referral code — answering every voucher it created (`POST /vouchers/redeem-code`);
// the deprecated `POST /vouchers/redeem` answers only the first. Customers see only their own vouchers.
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Voucher } from '../../../db/entities/Voucher.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { settlePackagePurchases } from '../../../db/voucher-packages.js';
import { redeemCode, redeemErrors } from '../../../db/voucher-redemption.js';
import { applicableVouchers, refreshVoucherStatesNow } from '../../../db/vouchers.js';
import { voucherableTypes } from '../../../domain/benefits.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Str, StringEnum } from '../../kernel/schemas.js';
import {
  AppVoucherType,
  VoucherSchema,
  appVoucherTypes,
  voucherDtos,
} from '../../shared/voucher-representation.js';

const tags = ['Vouchers'];
const access = { customer: "the caller's own vouchers; codes are redeemed for the caller." };

export const listMyVouchers = defineRoute({
  operationId: 'listMyVouchers',
  method: 'get',
  path: '/vouchers',
  interface: 'front',
  summary: "The customer's vouchers, newest first",
  description:
    '`active=true` with `branchId`: only ACTIVE vouchers usable at that branch now (targeted before broader). `constraint=true`: only single-use code vouchers. `types` filters by template type, `voucherType` by the app type (package, subscription, reward, promotion, single-use). Paged.',
  tags,
  query: Type.Object({
    branchId: Type.Optional(Id()),
    active: Type.Optional(Type.Boolean()),
    constraint: Type.Optional(Type.Boolean()),
    types: Type.Optional(
      Type.Array(StringEnum(voucherableTypes), { maxItems: voucherableTypes.length, uniqueItems: true }),
    ),
    voucherType: Type.Optional(
      Type.Array(AppVoucherType, { maxItems: appVoucherTypes.length, uniqueItems: true }),
    ),
  }),
  paged: { defaultSize: 100, maxSize: 500 },
  access,
  responses: { 200: { description: 'The vouchers', schema: Type.Array(VoucherSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const { query } = ctx;
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      settlePackagePurchases(tx, { customerId: customer.id }),
    );
    await refreshVoucherStatesNow(ctx.services.orm, ctx.tenant, { customerId: customer.id });
    let rows: Voucher[];
    if (query.active && query.branchId) {
      rows = await applicableVouchers(ctx.em, {
        customerId: customer.id,
        branchId: query.branchId,
        at: new Date(),
      });
    } else {
      const where: FilterQuery<Voucher> = {
        customerId: customer.id,
        ...(query.active ? { status: 'ACTIVE' } : {}),
        ...(query.constraint === true ? { code: { $ne: null } } : {}),
      };
      rows = await ctx.em.find(Voucher, where, { orderBy: { id: 'desc' }, limit: 5000 });
    }
    if (query.constraint) rows = rows.filter((voucher) => voucher.code != null);
    let dtos = await voucherDtos(ctx.em, rows);
    if (query.types?.length) dtos = dtos.filter((dto) => query.types!.includes(dto.voucherableType));
    if (query.voucherType?.length) dtos = dtos.filter((dto) => query.voucherType!.includes(dto.voucherType));
    const page = dtos.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
    return ok(page, { total: dtos.length });
  },
});

const CodeQuery = Type.Object({ code: Str(64, { minLength: 1, pattern: '^\\s*[A-Za-z0-9_-]{1,64}\\s*$' }) });

/** Redeems the query's code in one transaction; answers the vouchers it created, fresh. */
async function redeem(ctx: RouteContext<unknown, { code: string }>) {
  const customer = await ctx.customer();
  const created = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
    redeemCode(tx, customer.id, ctx.query.code),
  );
  const vouchers = await ctx.em.find(
    Voucher,
    { id: { $in: created.map((voucher) => voucher.id) } },
    { orderBy: { benefitIndex: 'asc' } },
  );
  return voucherDtos(ctx.em, vouchers);
}

export const redeemVoucherCode = defineRoute({
  operationId: 'redeemVoucherCode',
  method: 'post',
  path: '/vouchers/redeem-code',
  interface: 'front',
  summary: 'Redeem a code; answers every voucher it created',
  description:
    'A single-use code, a redeemable code, a promotion’s or reward’s own code, or another customer’s referral code (W120–W125, W131, W136). A geofence promotion applies by position and cannot be redeemed (W126). A Value benefit is credited to the wallet at once.',
  tags,
  query: CodeQuery,
  access,
  responses: { 200: { description: 'The vouchers created', schema: Type.Array(VoucherSchema) } },
  errors: [...redeemErrors],
  async handler(ctx) {
    return ok(await redeem(ctx));
  },
});

export const redeemVoucherDeprecated = defineRoute({
  operationId: 'redeemVoucherDeprecated',
  method: 'post',
  path: '/vouchers/redeem',
  interface: 'front',
  summary: 'Redeem a code (deprecated: answers only the first voucher created)',
  tags,
  query: CodeQuery,
  access,
  deprecated: { replacement: 'redeemVoucherCode' },
  responses: { 200: { description: 'The first voucher created', schema: VoucherSchema } },
  errors: [...redeemErrors],
  async handler(ctx) {
    const vouchers = await redeem(ctx);
    if (vouchers.length === 0) throw new DomainError('W101', 'the code created no voucher');
    return ok(vouchers[0]!);
  },
});

export const myVoucherRoutes = [listMyVouchers, redeemVoucherCode, redeemVoucherDeprecated];
