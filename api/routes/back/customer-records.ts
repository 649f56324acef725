// Operator views of a customer's records: payment sources (finance-scoped), credit ratings, and the
// synchronous JSON export of customers.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from '../../../db/entities/Branch.js';
import { CreditRating } from '../../../db/entities/CreditRating.js';
import { Customer } from '../../../db/entities/Customer.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { PaymentSource } from '../../../db/entities/PaymentSource.js';
import { groupOrFail } from '../../../db/groups.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { effectiveSetting } from '../../../db/settings.js';
import { ConfiguredCreditCheckProvider, CREDIT_CHECK_SETTING_KEY } from '../../../platform/credit-check.js';
import { component, DateTime, Id, Int, Nullable, StringEnum } from '../../kernel/schemas.js';
import { CustomerSummary, toCustomerSummary } from '../../shared/customer-representation.js';

const PaymentSourceSchema = component(
  'PaymentSource',
  Type.Object(
    {
      id: Id(),
      type: StringEnum(['CARD', 'SEPA', 'PAYPAL'] as const),
      provider: Type.String(),
      providerReference: Type.String(),
      label: Type.String(),
      expiry: Nullable(Type.String()),
      isDefault: Type.Boolean(),
      businessUnitId: Id(),
      guserId: Nullable(Id()),
      userGroupId: Nullable(Id()),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

function toPaymentSource(source: PaymentSource): Static<typeof PaymentSourceSchema> {
  return {
    id: source.id,
    type: source.type,
    provider: source.provider,
    providerReference: source.providerReference,
    label: source.label,
    expiry: source.expiry ?? null,
    isDefault: source.isDefault,
    businessUnitId: source.businessUnit.id,
    guserId: source.customer?.id ?? null,
    userGroupId: source.group?.id ?? null,
    createdAt: source.createdAt.toISOString(),
  };
}

/** The sources the caller may see: those of business units where it holds PAYMENT_READ. */
async function visibleSources(ctx: RouteContext, sources: PaymentSource[]): Promise<PaymentSource[]> {
  const units = [...new Set(sources.map((source) => source.businessUnit.id))];
  const allowed = new Set<number>();
  for (const unit of units)
    if (await ctx.holds({ permission: 'PAYMENT_READ', businessUnitId: unit })) allowed.add(unit);
  return sources.filter((source) => allowed.has(source.businessUnit.id));
}

async function businessUnitOfBranch(em: EntityManager, branchId: number): Promise<number> {
  const branch = await em.findOne(Branch, branchId, { fields: ['businessUnit'] });
  if (!branch) throw new DomainError('B404', `branch ${branchId} not found`);
  return branch.businessUnit.id;
}

/** `GET /customers/{customerId}/payment-sources?branchId`: only sources of business units the caller may see. */
export const customerPaymentSources = defineRoute({
  operationId: 'getCustomerPaymentSources',
  method: 'get',
  path: '/customers/{customerId}/payment-sources',
  interface: 'back',
  summary: 'Payment sources of a customer',
  description:
    'Lists only the sources registered with business units on which the caller holds PAYMENT_READ.',
  tags: ['Customers'],
  params: Type.Object({ customerId: Id() }),
  query: Type.Object({ branchId: Id() }),
  access: {
    permission: 'PAYMENT_READ',
    businessUnitOf: 'the `branchId` query parameter',
    businessUnit: (ctx) => businessUnitOfBranch(ctx.em, ctx.query.branchId),
  },
  responses: { 200: { description: 'Sources', schema: Type.Array(PaymentSourceSchema) } },
  errors: ['U106', 'B404'],
  async handler(ctx) {
    if (!(await ctx.em.count(Customer, ctx.params.customerId))) throw new DomainError('U106');
    const sources = await ctx.em.find(
      PaymentSource,
      { customer: ctx.params.customerId },
      { orderBy: { id: 'asc' } },
    );
    return ok((await visibleSources(ctx, sources)).map(toPaymentSource));
  },
});

/** `GET /groups/{userGroupId}/payment-sources`: the business account's sources the caller may see. */
export const groupPaymentSources = defineRoute({
  operationId: 'getUserGroupPaymentSources',
  method: 'get',
  path: '/groups/{userGroupId}/payment-sources',
  interface: 'back',
  summary: 'Payment sources of a business account',
  description:
    'Lists only the sources registered with business units on which the caller holds PAYMENT_READ.',
  tags: ['Groups'],
  params: Type.Object({ userGroupId: Id() }),
  access: {
    permission: 'PAYMENT_READ',
    businessUnitOf: "the account's branch",
    businessUnit: async (ctx) => {
      const group = await ctx.once('group', () => groupOrFail(ctx.em, ctx.params.userGroupId));
      return businessUnitOfBranch(ctx.em, group.branch.id);
    },
  },
  responses: { 200: { description: 'Sources', schema: Type.Array(PaymentSourceSchema) } },
  errors: ['UG404'],
  async handler(ctx) {
    const sources = await ctx.em.find(
      PaymentSource,
      { group: ctx.params.userGroupId },
      { orderBy: { id: 'asc' } },
    );
    return ok((await visibleSources(ctx, sources)).map(toPaymentSource));
  },
});

const CreditRatingSchema = component(
  'CreditRating',
  Type.Object(
    {
      id: Id(),
      provider: Type.String(),
      status: StringEnum(['GOOD', 'MEDIUM', 'BAD', 'UNKNOWN'] as const),
      score: Nullable(Type.Integer()),
      providerReference: Nullable(Type.String()),
      checkedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** `GET /customers/{accountId}/ratings?branchId`: credit checks of a customer, newest first. */
export const customerRatings = defineRoute({
  operationId: 'getCustomerCreditRatings',
  method: 'get',
  path: '/customers/{accountId}/ratings',
  interface: 'back',
  summary: 'Credit ratings of a customer',
  tags: ['Customers'],
  params: Type.Object({ accountId: Id() }),
  query: Type.Object({ branchId: Id() }),
  access: {
    permission: 'CUSTOMER_READ',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Ratings', schema: Type.Array(CreditRatingSchema) } },
  errors: ['U106'],
  async handler({ em, params }) {
    if (!(await em.count(Customer, params.accountId))) throw new DomainError('U106');
    const ratings = await em.find(
      CreditRating,
      { customer: params.accountId },
      { orderBy: { checkedAt: 'desc', id: 'desc' } },
    );
    return ok(ratings.map(toCreditRating));
  },
});

const toCreditRating = (rating: CreditRating) => ({
  id: rating.id,
  provider: rating.provider,
  status: rating.status,
  score: rating.score ?? null,
  providerReference: rating.providerReference ?? null,
  checkedAt: rating.checkedAt.toISOString(),
});

/**
 * `POST /customers/{accountId}/ratings?branchId`: runs a credit check of the customer through the tenant's
 * credit agency (the `CreditCheckProvider` port; default adapter: setting `customers.creditCheck`) and
 * records it; the newest rating is the customer's creditStatus.
 */
export const checkCustomerCredit = defineRoute({
  operationId: 'checkCustomerCredit',
  method: 'post',
  path: '/customers/{accountId}/ratings',
  interface: 'back',
  summary: 'Run a credit check of a customer',
  tags: ['Customers'],
  params: Type.Object({ accountId: Id() }),
  query: Type.Object({ branchId: Id() }),
  access: {
    permission: 'CUSTOMER_WRITE',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 201: { description: 'The recorded rating', schema: CreditRatingSchema } },
  errors: ['U106'],
  async handler(ctx) {
    const customer = await ctx.em.findOne(Customer, ctx.params.accountId);
    if (!customer) throw new DomainError('U106');
    const setting = await effectiveSetting(ctx.em, ctx.tenant, CREDIT_CHECK_SETTING_KEY, ctx.query.branchId);
    const agency = new ConfiguredCreditCheckProvider(setting?.value ?? {});
    const result = await agency.check({
      customerId: customer.id,
      firstName: customer.firstName,
      lastName: customer.lastName,
      birthdate: customer.birthDate ?? null,
      country: customer.country ?? null,
    });
    const rating = ctx.em.create(CreditRating, {
      customer,
      provider: agency.name,
      status: result.status,
      score: result.score ?? null,
      providerReference: result.providerReference ?? null,
      checkedAt: new Date(),
    });
    await ctx.em.flush();
    return created(toCreditRating(rating));
  },
});

const CustomerExportRow = component(
  'CustomerExportRow',
  Type.Object(
    {
      ...CustomerSummary.properties,
      emailIsVerified: Type.Boolean(),
      phoneIsVerified: Type.Boolean(),
      licenseVerificationState: Type.String(),
      idVerificationState: Type.String(),
      manualVerificationState: Type.String(),
      paymentState: Type.String(),
      userGroupId: Nullable(Id()),
      city: Nullable(Type.String()),
      country: Nullable(Type.String()),
    },
    { additionalProperties: false },
  ),
);

/** `GET /customers/export?branchId[&afterId&limit]`: the synchronous JSON export, in id order with a cursor. */
export const exportCustomers = defineRoute({
  operationId: 'exportCustomers',
  method: 'get',
  path: '/customers/export',
  interface: 'back',
  summary: 'Export customers (synchronous JSON)',
  description:
    'Up to `limit` customers (default 1000, at most 10,000) after `afterId`, in id order; pass the last id as `afterId` for the next part. Scheduled CSV exports are a different feature.',
  tags: ['Customers'],
  query: Type.Object({
    branchId: Id(),
    afterId: Type.Optional(Int(0, 2147483647)),
    limit: Type.Optional(Int(1, 10_000, { default: 1000 })),
  }),
  access: {
    permission: 'CUSTOMER_EXPORT',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Customers', schema: Type.Array(CustomerExportRow) } },
  errors: [],
  async handler({ em, query }) {
    const customers = await em.find(
      Customer,
      { id: { $gt: query.afterId ?? 0 } },
      { orderBy: { id: 'asc' }, limit: query.limit ?? 1000 },
    );
    const memberships = customers.length
      ? await em.find(GroupMembership, { customer: { $in: customers.map((c) => c.id) }, state: 'ACTIVE' })
      : [];
    const groupOf = new Map(memberships.map((m) => [m.customer.id, m.group.id]));
    return ok(
      customers.map((customer) => ({
        ...toCustomerSummary(customer),
        emailIsVerified: customer.emailIsVerified,
        phoneIsVerified: customer.phoneIsVerified,
        licenseVerificationState: customer.licenseVerificationState,
        idVerificationState: customer.idVerificationState,
        manualVerificationState: customer.manualVerificationState,
        paymentState: customer.paymentState,
        userGroupId: groupOf.get(customer.id) ?? null,
        city: customer.city ?? null,
        country: customer.country ?? null,
      })),
    );
  },
});

export const customerRecordRoutes = [
  customerPaymentSources,
  groupPaymentSources,
  customerRatings,
  checkCustomerCredit,
  exportCustomers,
];
