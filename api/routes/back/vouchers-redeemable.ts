// Operator endpoints creating codes customers redeem (the Finance table's redeemable rows): a redeemable
// code (each customer once, all together at most maxRedeems), single-use constraint codes (one
// NOT_REDEEMED voucher per benefit each), the summary of a business unit's codes, and the deprecated
// `POST /vouchers` and `GET /vouchers/voucher-campaigns`, answering as their replacements. Finance
// permissions on the template's business unit. See docs/benefits.md.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { VoucherCode } from '../../../db/entities/VoucherCode.js';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { assertCodeFree, voucherableOrFail } from '../../../db/voucherables.js';
import { createConstraintCodes, generateCode } from '../../../db/vouchers.js';
import { DomainError } from '../../../domain/errors.js';
import { codeRedeemableTypes, geofenceTypes } from '../../../domain/voucherables.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, DateTime, Id, Int, Nullable, Str } from '../../kernel/schemas.js';
import { CodeInput } from '../../shared/voucherable-representation.js';
import {
  RedeemableCodeSchema,
  VoucherSchema,
  redeemableCodeDto,
  voucherDtos,
} from '../../shared/voucher-representation.js';
import { onTheQueryBranchUnit } from './vouchers.js';

const tags = ['Vouchers'];

/** The template the body names, loaded once; VA100. */
const templateOfBody = (ctx: RouteContext<unknown, unknown, { voucherableId: number }>) =>
  ctx.once('body-template', () => voucherableOrFail(ctx.em, ctx.body.voucherableId));

const onTheBodyTemplate = {
  permission: 'BENEFITS_MANAGE',
  businessUnitOf: 'the voucherable the body names',
  businessUnit: async (ctx: RouteContext<unknown, unknown, { voucherableId: number }>) =>
    (await templateOfBody(ctx)).businessUnitId,
};

/** Refuses codes for templates not redeemed by code: geofence ones (W126) and bought ones (VA111). */
function assertCodeType(template: Voucherable): void {
  if (geofenceTypes.includes(template.type))
    throw new DomainError('W126', 'a geofence promotion applies by position; it has no codes');
  if (!codeRedeemableTypes.includes(template.type) && template.type !== 'SignupReferral')
    throw new DomainError('VA111', `a ${template.type} is not redeemed by a code`);
}

/** Refuses a window that ends before it starts (T111) or has ended (W135). */
function assertWindow(from: Date | null, until: Date | null, now: Date): void {
  if (from && until && from >= until) throw new DomainError('T111', 'validFrom must come before validUntil');
  if (until && until <= now) throw new DomainError('W135', 'validUntil is in the past');
}

const NewRedeemableCode = Type.Object(
  {
    voucherableId: Id(),
    code: Type.Optional(Nullable(CodeInput)),
    maxRedeems: Type.Optional(Nullable(Int(1, 100_000_000))),
    validFrom: Type.Optional(Nullable(DateTime())),
    validUntil: Type.Optional(Nullable(DateTime())),
  },
  { additionalProperties: false },
);

const redeemableErrors = ['VA100', 'VA111', 'W126', 'T103', 'T111', 'W135'] as const;

async function createRedeemable(ctx: RouteContext<unknown, unknown, Static<typeof NewRedeemableCode>>) {
  const template = await templateOfBody(ctx);
  assertCodeType(template);
  const from = ctx.body.validFrom ? clampedInstant(ctx.body.validFrom) : null;
  const until = ctx.body.validUntil ? clampedInstant(ctx.body.validUntil) : null;
  assertWindow(from, until, new Date());
  const code = ctx.body.code ?? generateCode();
  await assertCodeFree(ctx.em, code, 'T103');
  const row = ctx.em.create(VoucherCode, {
    voucherable: template,
    businessUnitId: template.businessUnitId,
    code,
    maxRedeems: ctx.body.maxRedeems ?? null,
    validFrom: from,
    validUntil: until,
    createdBy: ctx.actor,
  });
  try {
    await ctx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('T103', `the code ${code} is taken`);
    throw error;
  }
  return created(redeemableCodeDto(row), {});
}

export const createRedeemableCode = defineRoute({
  operationId: 'createRedeemableCode',
  method: 'post',
  path: '/vouchers/redeemable',
  interface: 'back',
  summary: 'Create a redeemable code of a template',
  description:
    'Each customer redeems it once (W105), all together at most `maxRedeems` times (W124), between validFrom and validUntil (W133); redeeming grants every benefit of the template. Without `code` one is generated. The code is unique among every code customers type (T103).',
  tags,
  body: NewRedeemableCode,
  access: onTheBodyTemplate,
  responses: { 201: { description: 'The code', schema: RedeemableCodeSchema } },
  errors: [...redeemableErrors],
  handler: (ctx) => createRedeemable(ctx),
});

export const createVoucherDeprecated = defineRoute({
  operationId: 'createVoucherDeprecated',
  method: 'post',
  path: '/vouchers',
  interface: 'back',
  summary: 'Create a redeemable code (deprecated)',
  description: 'Answers as `POST /vouchers/redeemable`.',
  tags,
  body: NewRedeemableCode,
  access: onTheBodyTemplate,
  deprecated: { replacement: 'createRedeemableCode' },
  responses: { 201: { description: 'The code', schema: RedeemableCodeSchema } },
  errors: [...redeemableErrors],
  handler: (ctx) => createRedeemable(ctx),
});

const ConstraintCodes = Type.Object(
  {
    code: Type.String(),
    vouchers: Type.Array(VoucherSchema, { description: 'One NOT_REDEEMED voucher per benefit.' }),
  },
  { additionalProperties: false },
);

export const createConstraintCodesRoute = defineRoute({
  operationId: 'createConstraintCodes',
  method: 'post',
  path: '/vouchers/redeemable/constraint',
  interface: 'back',
  summary: 'Create single-use codes of a template',
  description:
    'Each code holds one NOT_REDEEMED voucher per benefit of the template; the first customer redeeming it gets them (ACTIVE from then, for their validity period). Codes are generated: `prefix` and twelve characters of Crockford base 32.',
  tags,
  body: Type.Object(
    {
      voucherableId: Id(),
      count: Int(1, 1000),
      prefix: Type.Optional(Str(16, { pattern: '^[A-Za-z0-9]{0,16}$' })),
      validUntil: Type.Optional(Nullable(DateTime())),
    },
    { additionalProperties: false },
  ),
  access: onTheBodyTemplate,
  responses: { 201: { description: 'The codes', schema: Type.Array(ConstraintCodes) } },
  errors: ['VA100', 'VA111', 'W126', 'W135'],
  async handler(ctx) {
    const template = await templateOfBody(ctx);
    assertCodeType(template);
    const until = ctx.body.validUntil ? clampedInstant(ctx.body.validUntil) : null;
    assertWindow(null, until, new Date());
    const codes = await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) =>
      createConstraintCodes(tx, await tx.findOneOrFail(Voucherable, template.id), {
        count: ctx.body.count,
        prefix: ctx.body.prefix,
        validUntil: until,
        createdBy: ctx.actor,
      }),
    );
    // One representation pass over every code's vouchers (two reads, not two per code), split back by code.
    const dtos = await voucherDtos(
      ctx.em,
      codes.flatMap((entry) => entry.vouchers),
    );
    let next = 0;
    const answer = codes.map((entry) => {
      const vouchers = dtos.slice(next, next + entry.vouchers.length);
      next += entry.vouchers.length;
      return { code: entry.code, vouchers };
    });
    return created(answer, {});
  },
});

const SummaryRow = Type.Object(
  {
    voucherableId: Id(),
    name: Type.String(),
    type: Type.String(),
    status: Type.String(),
    redeemableCodes: Type.Integer({ minimum: 0 }),
    redeemableRedeemCount: Type.Integer({ minimum: 0, description: 'Redemptions of its redeemable codes.' }),
    constraintCodes: Type.Integer({ minimum: 0 }),
    constraintCodesRedeemed: Type.Integer({ minimum: 0 }),
    constraintCodesOpen: Type.Integer({ minimum: 0, description: 'Codes still NOT_REDEEMED.' }),
    constraintCodesCanceled: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

const summaryQuery = Type.Object({ branchId: Id(), voucherableId: Type.Optional(Id()) });

async function summary(ctx: RouteContext<unknown, Static<typeof summaryQuery>>) {
  const unit = await ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));
  const rows = await ctx.em.execute<
    {
      id: number;
      name: string;
      type: string;
      status: string;
      redeemable_codes: string;
      redeemable_redeem_count: string;
      constraint_codes: string;
      constraint_redeemed: string;
      constraint_open: string;
      constraint_canceled: string;
    }[]
  >(
    `select t.id, t.name, t.type, t.status,
            (select count(*) from voucher_code c where c.tenant_id = t.tenant_id and c.voucherable_id = t.id) as redeemable_codes,
            (select coalesce(sum(c.redeem_count), 0) from voucher_code c where c.tenant_id = t.tenant_id and c.voucherable_id = t.id) as redeemable_redeem_count,
            (select count(distinct v.code) from voucher v where v.tenant_id = t.tenant_id and v.voucherable_id = t.id and v.code is not null) as constraint_codes,
            (select count(distinct v.code) from voucher v where v.tenant_id = t.tenant_id and v.voucherable_id = t.id and v.code is not null and v.customer_id is not null) as constraint_redeemed,
            (select count(distinct v.code) from voucher v where v.tenant_id = t.tenant_id and v.voucherable_id = t.id and v.code is not null and v.status = 'NOT_REDEEMED') as constraint_open,
            (select count(distinct v.code) from voucher v where v.tenant_id = t.tenant_id and v.voucherable_id = t.id and v.code is not null and v.status = 'CANCELED') as constraint_canceled
       from voucherable t
      where t.tenant_id = ? and t.business_unit_id = ? and t.deleted_at is null and (?::int is null or t.id = ?::int)
        and (exists (select 1 from voucher_code c where c.tenant_id = t.tenant_id and c.voucherable_id = t.id)
             or exists (select 1 from voucher v where v.tenant_id = t.tenant_id and v.voucherable_id = t.id and v.code is not null))
      order by t.id desc limit 1000`,
    [ctx.tenant, unit.id, ctx.query.voucherableId ?? null, ctx.query.voucherableId ?? null],
  );
  return ok(
    rows.map((row) => ({
      voucherableId: row.id,
      name: row.name,
      type: row.type,
      status: row.status,
      redeemableCodes: Number(row.redeemable_codes),
      redeemableRedeemCount: Number(row.redeemable_redeem_count),
      constraintCodes: Number(row.constraint_codes),
      constraintCodesRedeemed: Number(row.constraint_redeemed),
      constraintCodesOpen: Number(row.constraint_open),
      constraintCodesCanceled: Number(row.constraint_canceled),
    })),
  );
}

export const redeemableSummary = defineRoute({
  operationId: 'getRedeemableSummary',
  method: 'get',
  path: '/vouchers/redeemable/summary',
  interface: 'back',
  summary: "Per template of a branch's business unit: its codes and how many were redeemed",
  tags,
  query: summaryQuery,
  access: onTheQueryBranchUnit('BENEFITS_READ'),
  responses: { 200: { description: 'One row per template with codes', schema: Type.Array(SummaryRow) } },
  errors: ['B404'],
  handler: (ctx) => summary(ctx),
});

export const voucherCampaignsDeprecated = defineRoute({
  operationId: 'listVoucherCampaignsDeprecated',
  method: 'get',
  path: '/vouchers/voucher-campaigns',
  interface: 'back',
  summary: 'Voucher campaigns (deprecated)',
  description: 'Answers as `GET /vouchers/redeemable/summary`.',
  tags,
  query: summaryQuery,
  access: onTheQueryBranchUnit('BENEFITS_READ'),
  deprecated: { replacement: 'getRedeemableSummary' },
  responses: { 200: { description: 'One row per template with codes', schema: Type.Array(SummaryRow) } },
  errors: ['B404'],
  handler: (ctx) => summary(ctx),
});

export const redeemableRoutes = [
  createRedeemableCode,
  createVoucherDeprecated,
  createConstraintCodesRoute,
  redeemableSummary,
  voucherCampaignsDeprecated,
];
