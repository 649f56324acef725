// Operator customer tools: search, details per branch, terms acceptance, memberships.
import { Type } from '@sinclair/typebox';
import { CreditRating } from '../../../db/entities/CreditRating.js';
import { Customer } from '../../../db/entities/Customer.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { PaymentSource } from '../../../db/entities/PaymentSource.js';
import { TermsAndConditions } from '../../../db/entities/TermsAndConditions.js';
import { acceptTerms, termsStateOf } from '../../../db/identity.js';
import { DomainError } from '../../../domain/errors.js';
import {
  licenseVerificationStates,
  paymentStates,
  assertCalendarDate,
  type TermsAcceptanceState,
} from '../../../domain/customer.js';
import { branchAncestry } from '../../../db/branches.js';
import { dunningBlockOf } from '../../../db/dunning.js';
import { authorizeOnBranchOrAnywhere } from '../../authorization.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  CalendarDate,
  addressOf,
  customerTextFilter,
  TermsAcceptanceStateSchema,
  CustomerSummary,
  toCustomerSummary,
} from '../../shared/customer-representation.js';

const VerificationState = component('VerificationState', StringEnum(licenseVerificationStates));
const CustomerDetails = component(
  'CustomerDetails',
  Type.Object(
    {
      ...CustomerSummary.properties,
      branchId: Id({ description: 'The branch the details (terms state) were computed for.' }),
      blockState: StringEnum(['BLOCKED', 'NOT_BLOCKED'] as const),
      paymentState: StringEnum(paymentStates),
      paymentSourceIsAvailable: Type.Boolean(),
      creditStatus: Nullable(
        StringEnum(['GOOD', 'MEDIUM', 'BAD', 'UNKNOWN'] as const, {
          description: 'Newest credit rating; null when never checked.',
        }),
      ),
      emailIsVerified: Type.Boolean(),
      phoneIsVerified: Type.Boolean(),
      licenseVerificationState: VerificationState,
      idVerificationState: VerificationState,
      manualVerificationState: VerificationState,
      customExternalVerificationState: VerificationState,
      signupFeeSettled: Type.Boolean({ description: 'No sign-up fee is charged yet: equals signupSettled.' }),
      termsAndConditionsAcceptanceState: TermsAcceptanceStateSchema,
      termsAndConditionsId: Nullable(Id({ description: 'The terms that apply to the branch.' })),
      blockedByUnpaidInvoices: Type.Boolean({
        description:
          "Whether an invoice of the customer's own is unpaid longer than the branch's finance.dunning grace period after billing: new rentals and bookings are refused (U134) until it is paid.",
      }),
      skipPreAuth: Type.Boolean(),
      drivingLicenseCategories: Type.Array(Type.String(), {
        description:
          'Licence categories recorded when the licence was verified (LICENSE_CATEGORY requirement).',
      }),
      tags: Type.Array(Type.String()),
      gender: Nullable(Type.String()),
      externalReference: Nullable(Type.String()),
      street: Nullable(Type.String()),
      houseNumber: Nullable(Type.String()),
      addressAddition: Nullable(Type.String()),
      postcode: Nullable(Type.String()),
      city: Nullable(Type.String()),
      country: Nullable(Type.String()),
      homeBusinessUnitId: Nullable(Id()),
      userGroupId: Nullable(
        Id({ description: 'The business account the customer belongs to (one at most).' }),
      ),
    },
    { additionalProperties: false },
  ),
);

const BranchQuery = Type.Object({
  branchId: Id({ description: 'Branch the caller acts in (permission scope; terms state of that branch).' }),
});

const CustomerParam = Type.Object({ customerId: Id() });

/** Loads a customer of the tenant or answers U106. */
async function customerOrFail(em: Parameters<typeof termsStateOf>[0], id: number): Promise<Customer> {
  const customer = await em.findOne(Customer, id);
  if (!customer) throw new DomainError('U106', `customer ${id} not found`);
  return customer;
}

/** `GET /customers`: search; customers are tenant-wide, so CUSTOMER_READ on the branch given, or on any, is enough. */
export const searchCustomers = defineRoute({
  operationId: 'searchCustomers',
  method: 'get',
  path: '/customers',
  interface: 'back',
  summary: 'Search customers',
  description:
    'Filters combine (AND): exact `email` (case-insensitive), `birthDateFrom`/`birthDateTo` (inclusive), `signupSettled`, and `searchText` (prefix of first name, last name, e-mail or phone). Customers belong to the tenant, not to a branch, so the list is the same with or without `branchId`: with it, the caller needs CUSTOMER_READ on that branch; without it, CUSTOMER_READ on some branch of the tenant. Sorted by id.',
  tags: ['Customers'],
  query: Type.Object({
    branchId: Type.Optional(
      Id({ description: 'Branch the caller acts in (permission scope); optional, the list is tenant-wide.' }),
    ),
    email: Type.Optional(Str(254, { minLength: 1 })),
    birthDateFrom: Type.Optional(CalendarDate()),
    birthDateTo: Type.Optional(CalendarDate()),
    signupSettled: Type.Optional(Type.Boolean()),
    searchText: Type.Optional(Str(100, { minLength: 1 })),
  }),
  paged: { defaultSize: 20 },
  rateLimit: 'search',
  access: {
    anyCaller:
      'the handler requires CUSTOMER_READ on `branchId` when given, else on some branch of the tenant.',
  },
  responses: { 200: { description: 'Matching customers', schema: Type.Array(CustomerSummary) } },
  errors: ['AUTH002', 'B404'],
  async handler(ctx) {
    const { em, query, page } = ctx;
    await authorizeOnBranchOrAnywhere(ctx, 'CUSTOMER_READ', query.branchId);
    assertCalendarDate(query.birthDateFrom, 'birthDateFrom');
    assertCalendarDate(query.birthDateTo, 'birthDateTo');
    const where: Record<string, unknown> = {};
    if (query.email !== undefined) where.email = query.email.trim().toLowerCase();
    if (query.signupSettled !== undefined) where.signupSettled = query.signupSettled;
    if (query.birthDateFrom !== undefined || query.birthDateTo !== undefined)
      where.birthDate = {
        ...(query.birthDateFrom !== undefined ? { $gte: query.birthDateFrom } : {}),
        ...(query.birthDateTo !== undefined ? { $lte: query.birthDateTo } : {}),
      };
    if (query.searchText !== undefined) Object.assign(where, customerTextFilter(query.searchText));
    const [rows, total] = await em.findAndCount(Customer, where, {
      orderBy: { id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(toCustomerSummary), { total });
  },
});

/** `GET /customers/{customerId}/details?branchId`: every signal of a customer, terms state for the branch. */
export const customerDetails = defineRoute({
  operationId: 'getCustomerDetails',
  method: 'get',
  path: '/customers/{customerId}/details',
  interface: 'back',
  summary: 'Customer details, with the terms acceptance state of a branch',
  tags: ['Customers'],
  params: CustomerParam,
  query: BranchQuery,
  access: {
    permission: 'CUSTOMER_READ',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'The customer', schema: CustomerDetails } },
  errors: ['U106'],
  async handler({ em, tenant, params, query }) {
    const customer = await customerOrFail(em, params.customerId);
    const [{ terms, state }, membership, sources, rating, dunning] = await Promise.all([
      termsStateOf(em, tenant, customer.id, query.branchId),
      em.findOne(GroupMembership, { customer, state: 'ACTIVE' }),
      em.count(PaymentSource, { customer }),
      em.findOne(CreditRating, { customer }, { orderBy: { checkedAt: 'desc', id: 'desc' } }),
      dunningBlockOf(em, tenant, customer.id, query.branchId, new Date()),
    ]);
    return ok({
      ...toCustomerSummary(customer),
      branchId: query.branchId,
      blockState: customer.isBlocked ? 'BLOCKED' : 'NOT_BLOCKED',
      paymentState: customer.paymentState,
      paymentSourceIsAvailable: sources > 0,
      creditStatus: rating?.status ?? null,
      emailIsVerified: customer.emailIsVerified,
      phoneIsVerified: customer.phoneIsVerified,
      licenseVerificationState: customer.licenseVerificationState,
      idVerificationState: customer.idVerificationState,
      manualVerificationState: customer.manualVerificationState,
      customExternalVerificationState: customer.customExternalVerificationState,
      signupFeeSettled: customer.signupSettled,
      termsAndConditionsAcceptanceState: state,
      termsAndConditionsId: terms?.id ?? null,
      blockedByUnpaidInvoices: dunning !== null,
      skipPreAuth: customer.skipPreAuth,
      drivingLicenseCategories: customer.drivingLicenseCategories ?? [],
      tags: customer.tags,
      gender: customer.gender ?? null,
      externalReference: customer.externalReference ?? null,
      ...addressOf(customer),
      homeBusinessUnitId: customer.homeBusinessUnit?.id ?? null,
      userGroupId: membership?.group.id ?? null,
    });
  },
});

const TermsAcceptanceResult = component(
  'TermsAcceptanceResult',
  Type.Object(
    {
      termsAndConditionsId: Id(),
      version: Type.Integer(),
      termsAndConditionsAcceptanceState: TermsAcceptanceStateSchema,
    },
    { additionalProperties: false },
  ),
);

/** `POST /customers/{customerId}/accept-terms-and-conditions?branchId[&tacId]`: records acceptance for a customer. */
export const acceptCustomerTerms = defineRoute({
  operationId: 'acceptCustomerTermsAndConditions',
  method: 'post',
  path: '/customers/{customerId}/accept-terms-and-conditions',
  interface: 'back',
  summary: 'Record that a customer accepted terms and conditions',
  description:
    "Without `tacId`, the terms that currently apply to the branch; with `tacId`, that version, which must apply to the branch (its own, an ancestor's or tenant-wide terms).",
  tags: ['Customers'],
  params: CustomerParam,
  query: Type.Object({ ...BranchQuery.properties, tacId: Type.Optional(Id()) }),
  access: {
    permission: 'CUSTOMER_WRITE',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Accepted', schema: TermsAcceptanceResult } },
  errors: ['U106', 'U604'],
  async handler({ em, tenant, params, query, actor, recordEvent }) {
    const customer = await customerOrFail(em, params.customerId);
    let terms: TermsAndConditions | undefined;
    if (query.tacId !== undefined) {
      const chain = await branchAncestry(em, tenant, query.branchId);
      terms = (await em.findOne(TermsAndConditions, query.tacId)) ?? undefined;
      if (!terms || (terms.branch && !chain.includes(terms.branch.id)))
        throw new DomainError('U604', `terms ${query.tacId} do not apply to branch ${query.branchId}`);
    } else {
      terms = (await termsStateOf(em, tenant, customer.id, query.branchId)).terms;
      if (!terms) throw new DomainError('U604', `no terms apply to branch ${query.branchId}`);
    }
    await acceptTerms(em, customer, terms, actor);
    await em.flush();
    recordEvent({
      type: 'USER_TERMS_AND_CONDITIONS_ACCEPTED',
      customerId: customer.id,
      branchId: query.branchId,
      payload: { termsAndConditionsId: terms.id, version: terms.version },
    });
    const { state } = await termsStateOf(em, tenant, customer.id, query.branchId);
    return ok({
      termsAndConditionsId: terms.id,
      version: terms.version,
      termsAndConditionsAcceptanceState: state as TermsAcceptanceState,
    });
  },
});

export const customerRoutes = [searchCustomers, customerDetails, acceptCustomerTerms];
