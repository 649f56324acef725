// The operator granting a customer-care template to a customer or a business account (the Customers
// table's `POST /customers/{userId}/apply-vouchers` and `/groups/{groupId}/apply-vouchers`): every voucher
// of the template is created at once (a Value one credits the owner's balance), once per idempotency key.
// Custom expiry, value and free minutes are accepted (spec). Finance permission BENEFITS_MANAGE on the
// template's business unit. See docs/benefits.md.
import { Type, type Static } from '@sinclair/typebox';
import { Customer } from '../../../db/entities/Customer.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import { Voucher } from '../../../db/entities/Voucher.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { voucherableOrFail } from '../../../db/voucherables.js';
import { grantVouchersTo, type VoucherOwner } from '../../../db/voucher-grants.js';
import { Decimal } from 'decimal.js';
import { DomainError } from '../../../domain/errors.js';
import { minorDigitsOf } from '../../../domain/money.js';
import { created, defineRoute, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, DateTime, Id, Int, Nullable, Str } from '../../kernel/schemas.js';
import { VoucherSchema, voucherDtos } from '../../shared/voucher-representation.js';
import { DecimalInput } from '../../shared/voucherable-representation.js';

const tags = ['Vouchers', 'Customers'];

const ApplyBody = Type.Object(
  {
    voucherableId: Type.Optional(Id({ description: 'The customer-care template (W143 when missing).' })),
    validUntil: Type.Optional(
      Nullable(DateTime({ description: 'Custom expiry; else the template’s validity.' })),
    ),
    customValue: Type.Optional(Nullable(DecimalInput('Custom value of a Value benefit.'))),
    customFreeMinutes: Type.Optional(Nullable(Int(1, 1_000_000))),
    idempotencyKey: Type.Optional(
      Str(100, {
        minLength: 1,
        description:
          'A repeated request with the same key grants nothing more and answers the same vouchers.',
      }),
    ),
  },
  { additionalProperties: false },
);
type ApplyBodyType = Static<typeof ApplyBody>;

/** The template the body names (W143 without one, VA100 unknown), loaded once. */
const templateOfBody = (ctx: RouteContext<unknown, unknown, ApplyBodyType>) =>
  ctx.once('apply-template', async () => {
    if (ctx.body.voucherableId === undefined)
      throw new DomainError('W143', 'name the customer-care voucherable to apply (voucherableId)');
    return voucherableOrFail(ctx.em, ctx.body.voucherableId);
  });

const access = {
  permission: 'BENEFITS_MANAGE',
  businessUnitOf: 'the voucherable the body names',
  businessUnit: async (ctx: RouteContext<unknown, unknown, ApplyBodyType>) =>
    (await templateOfBody(ctx)).businessUnitId,
};

const errors = ['W143', 'VA100', 'VA109', 'VA111', 'W130', 'W135'] as const;

/** Grants the template to the owner once per key; answers its vouchers. */
async function apply(
  ctx: RouteContext<unknown, unknown, ApplyBodyType>,
  owner: VoucherOwner,
  ownerKey: string,
) {
  const template = await templateOfBody(ctx);
  if (template.type !== 'CustomerCare')
    throw new DomainError(
      'VA111',
      `apply-vouchers grants CustomerCare templates; this is a ${template.type}`,
    );
  if (template.status !== 'ACTIVE')
    throw new DomainError('W130', `the template "${template.name}" is not active`);
  const now = new Date();
  const validUntil = ctx.body.validUntil ? clampedInstant(ctx.body.validUntil) : null;
  if (validUntil && validUntil <= now) throw new DomainError('W135', 'validUntil is in the past');
  const customValue = ctx.body.customValue ?? null;
  if (
    customValue !== null &&
    (new Decimal(customValue).lte(0) ||
      new Decimal(customValue).decimalPlaces() > minorDigitsOf(template.currency))
  )
    throw new DomainError('VA109', `customValue is a positive amount in ${template.currency}`);
  const reference = `apply:${ownerKey}:${ctx.body.idempotencyKey ?? ctx.traceId}`;
  const vouchers = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
    grantVouchersTo(tx, {
      voucherableId: template.id,
      owner,
      source: { kind: 'OPERATOR', reference },
      validFrom: now,
      validUntil,
      createdBy: ctx.actor,
      customValue,
      customFreeMinutes: ctx.body.customFreeMinutes ?? null,
    }),
  );
  const fresh = await ctx.em.find(
    Voucher,
    { id: { $in: vouchers.map((voucher) => voucher.id) } },
    { orderBy: { benefitIndex: 'asc' } },
  );
  return created(await voucherDtos(ctx.em, fresh), {});
}

export const applyVouchersToCustomer = defineRoute({
  operationId: 'applyVouchersToCustomer',
  method: 'post',
  path: '/customers/{userId}/apply-vouchers',
  interface: 'back',
  summary: 'Grant every voucher of a customer-care template to a customer',
  description:
    'One voucher per benefit; a Value benefit is credited to the customer’s default balance at the template’s business unit at once (that voucher is then USED_UP). The template must be an ACTIVE CustomerCare one (VA111, W130). Custom expiry, value and free minutes override the template’s.',
  tags,
  params: Type.Object({ userId: Id() }),
  body: ApplyBody,
  access,
  responses: { 201: { description: 'The vouchers', schema: Type.Array(VoucherSchema) } },
  errors: ['U106', ...errors],
  async handler(ctx) {
    const customer = await ctx.em.findOne(Customer, ctx.params.userId, { fields: ['id'] });
    if (!customer) throw new DomainError('U106', `customer ${ctx.params.userId} not found`);
    return apply(ctx, { customerId: customer.id }, `customer:${customer.id}`);
  },
});

export const applyVouchersToGroup = defineRoute({
  operationId: 'applyVouchersToGroup',
  method: 'post',
  path: '/groups/{groupId}/apply-vouchers',
  interface: 'back',
  summary: 'Grant every voucher of a customer-care template to a business account',
  description: 'As for a customer; the vouchers and any credit belong to the business account.',
  tags,
  params: Type.Object({ groupId: Id() }),
  body: ApplyBody,
  access,
  responses: { 201: { description: 'The vouchers', schema: Type.Array(VoucherSchema) } },
  errors: ['UG404', ...errors],
  async handler(ctx) {
    const group = await ctx.em.findOne(UserGroup, ctx.params.groupId, { fields: ['id'] });
    if (!group) throw new DomainError('UG404', `business account ${ctx.params.groupId} not found`);
    return apply(ctx, { userGroupId: group.id }, `group:${group.id}`);
  },
});

export const applyVoucherRoutes = [applyVouchersToCustomer, applyVouchersToGroup];
