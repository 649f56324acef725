// The signed-in customer's own account in the app: profile and terms and conditions.
import { Type, type Static } from '@sinclair/typebox';
import { TermsAndConditions } from '../../../db/entities/TermsAndConditions.js';
import { type Customer } from '../../../db/entities/Customer.js';
import { acceptTerms, termsStateOf } from '../../../db/identity.js';
import { DomainError } from '../../../domain/errors.js';
import { assertCalendarDate, normaliseName } from '../../../domain/customer.js';
import { referralCodeOf } from '../../../domain/balances.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';
import { addressOf, CalendarDate, TermsAcceptanceStateSchema } from '../../shared/customer-representation.js';
import { TermsSchema, toTerms } from '../../shared/terms-representation.js';

const MyAccount = component(
  'MyAccount',
  Type.Object(
    {
      id: Id(),
      email: Type.String(),
      emailIsVerified: Type.Boolean(),
      firstName: Type.String(),
      lastName: Type.String(),
      phoneNumber: Nullable(Type.String()),
      phoneIsVerified: Type.Boolean(),
      birthDate: Nullable(Type.String({ format: 'date' })),
      street: Nullable(Type.String()),
      houseNumber: Nullable(Type.String()),
      addressAddition: Nullable(Type.String()),
      postcode: Nullable(Type.String()),
      city: Nullable(Type.String()),
      country: Nullable(Type.String()),
      signupSettled: Type.Boolean(),
      licenseVerificationState: Type.String(),
      idVerificationState: Type.String(),
      manualVerificationState: Type.String(),
      referralCode: Type.String({
        description:
          'What other customers enter to share a balance with this customer (`POST /balances/{balanceId}/users`).',
      }),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The customer's view of their own account. */
function toMyAccount(customer: Customer): Static<typeof MyAccount> {
  return {
    id: customer.id,
    email: customer.email,
    emailIsVerified: customer.emailIsVerified,
    firstName: customer.firstName,
    lastName: customer.lastName,
    phoneNumber: customer.phoneNumber ?? null,
    phoneIsVerified: customer.phoneIsVerified,
    birthDate: customer.birthDate ?? null,
    ...addressOf(customer),
    signupSettled: customer.signupSettled,
    licenseVerificationState: customer.licenseVerificationState,
    idVerificationState: customer.idVerificationState,
    manualVerificationState: customer.manualVerificationState,
    referralCode: referralCodeOf(customer.id),
    createdAt: customer.createdAt.toISOString(),
  };
}

/** `GET /account`: the signed-in customer. */
export const getMyAccount = defineRoute({
  operationId: 'getMyAccount',
  method: 'get',
  path: '/account',
  interface: 'front',
  summary: "The signed-in customer's account",
  tags: ['Account'],
  access: { customer: "answers the caller's own account." },
  responses: { 200: { description: 'The account', schema: MyAccount } },
  errors: [],
  async handler(ctx) {
    return ok(toMyAccount(await ctx.customer()));
  },
});

const Text = (max: number) => Type.Optional(Nullable(Str(max)));

/** `PATCH /account`: profile fields the customer may change themselves (not e-mail or phone: those are sign-in identities). */
export const updateMyAccount = defineRoute({
  operationId: 'updateMyAccount',
  method: 'patch',
  path: '/account',
  interface: 'front',
  summary: "Update the signed-in customer's profile",
  description:
    'Names, birth date and address. A complete profile (names, birth date, street, postcode, city, country) settles the sign-up. Names are stored in Unicode NFC, trimmed: nothing visible left is U130.5 / U130.6, a bidirectional control, zero-width or control character anywhere 0022.',
  tags: ['Account'],
  body: component(
    'MyAccountUpdate',
    Type.Object(
      {
        firstName: Type.Optional(Str(100, { minLength: 1 })),
        lastName: Type.Optional(Str(100, { minLength: 1 })),
        birthDate: Type.Optional(Nullable(CalendarDate())),
        street: Text(200),
        houseNumber: Text(32),
        addressAddition: Text(200),
        postcode: Text(32),
        city: Text(100),
        country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', maxLength: 2 }))),
      },
      { additionalProperties: false },
    ),
  ),
  access: { customer: "changes the caller's own account only." },
  responses: { 200: { description: 'The account', schema: MyAccount } },
  errors: ['U130'],
  async handler(ctx) {
    const customer = await ctx.customer();
    assertCalendarDate(ctx.body.birthDate, 'birthDate');
    const { firstName, lastName } = ctx.body;
    Object.assign(customer, ctx.body, {
      ...(firstName === undefined ? {} : { firstName: normaliseName(firstName, 'firstName') }),
      ...(lastName === undefined ? {} : { lastName: normaliseName(lastName, 'lastName') }),
    });
    customer.signupSettled = Boolean(
      customer.firstName &&
      customer.lastName &&
      customer.birthDate &&
      customer.street &&
      customer.postcode &&
      customer.city &&
      customer.country,
    );
    ctx.recordEvent({
      type: 'USER_PROFILE_DATA_CHANGED',
      customerId: customer.id,
      payload: { fields: Object.keys(ctx.body) },
    });
    return ok(toMyAccount(customer));
  },
});

const CurrentTerms = component(
  'CurrentTermsAndConditions',
  Type.Object(
    {
      termsAndConditions: Nullable(TermsSchema),
      termsAndConditionsAcceptanceState: TermsAcceptanceStateSchema,
    },
    { additionalProperties: false },
  ),
);

/** `GET /terms-and-conditions?branchId`: the terms that apply and whether the caller accepted them. */
export const getMyTerms = defineRoute({
  operationId: 'getCurrentTermsAndConditions',
  method: 'get',
  path: '/terms-and-conditions',
  interface: 'front',
  summary: "Terms that apply to a branch, and the caller's acceptance state",
  description:
    'NOT_ACCEPTED is what U601 reports, OUTDATED what U602 reports: show the terms and accept them.',
  tags: ['Account'],
  query: Type.Object({ branchId: Type.Optional(Id({ description: 'Default: the tenant-wide terms.' })) }),
  access: { customer: 'answers for the caller only.' },
  responses: { 200: { description: 'Terms and state', schema: CurrentTerms } },
  errors: ['B404'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const { terms, state } = await termsStateOf(ctx.em, ctx.tenant, customer.id, ctx.query.branchId);
    return ok({
      termsAndConditions: terms ? toTerms(terms) : null,
      termsAndConditionsAcceptanceState: state,
    });
  },
});

/** `POST /terms-and-conditions/{id}/accept`: the caller accepts a version that applies to a branch. */
export const acceptMyTerms = defineRoute({
  operationId: 'acceptTermsAndConditions',
  method: 'post',
  path: '/terms-and-conditions/{termsAndConditionsId}/accept',
  interface: 'front',
  summary: 'Accept a terms and conditions version',
  tags: ['Account'],
  params: Type.Object({ termsAndConditionsId: Id() }),
  access: { customer: "records the caller's own acceptance." },
  responses: { 200: { description: 'Accepted', schema: CurrentTerms } },
  errors: ['U604'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const terms = await ctx.em.findOne(TermsAndConditions, ctx.params.termsAndConditionsId);
    if (!terms) throw new DomainError('U604');
    await acceptTerms(ctx.em, customer, terms, `customer:${customer.id}`);
    await ctx.em.flush();
    ctx.recordEvent({
      type: 'USER_TERMS_AND_CONDITIONS_ACCEPTED',
      customerId: customer.id,
      payload: { termsAndConditionsId: terms.id, version: terms.version },
    });
    const { state } = await termsStateOf(ctx.em, ctx.tenant, customer.id, terms.branch?.id);
    return ok({ termsAndConditions: toTerms(terms), termsAndConditionsAcceptanceState: state });
  },
});

export const accountRoutes = [getMyAccount, updateMyAccount, getMyTerms, acceptMyTerms];
