// Customer identity for the app interface: sign-up, sign-in (password, e-mail code, phone code),
// refresh, sign-out, password reset and e-mail verification. Anonymous endpoints of `/v1/{tenant}/auth`
// that answer customer tokens (scope `front`, subject `customer:{id}`); see docs/customers.md.
import { Type, type Static } from '@sinclair/typebox';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer } from '../../../db/entities/Customer.js';
import { RefreshToken } from '../../../db/entities/RefreshToken.js';
import {
  acceptTerms,
  assertSignInAllowed,
  clearSignInFailures,
  consumeCode,
  createRefreshToken,
  currentTerms,
  issueCode,
  recordSignInFailure,
  revokeAllOf,
  revokeFamily,
} from '../../../db/identity.js';
import { DomainError } from '../../../domain/errors.js';
import { assertCalendarDate, normaliseName } from '../../../domain/customer.js';
import {
  assertPasswordRules,
  identityTimings,
  normaliseEmail,
  normalisePhoneNumber,
  throttleKey,
  type CodePurpose,
  type SignInMethod,
} from '../../../domain/identity.js';
import { hashPassword, verifyPassword } from '../../../platform/passwords.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Str, StringEnum } from '../../kernel/schemas.js';
import { signedRequest, type SignedEndpoint } from './signing.js';
import { CalendarDate } from '../../shared/customer-representation.js';

const Email = Str(254, {
  minLength: 3,
  format: 'email',
  description: 'E-mail address (compared case-insensitively).',
});
const Password = Str(128, { minLength: 1 });
const Code = Type.String({
  pattern: '^[0-9]{6}$',
  maxLength: 6,
  description: 'The 6-digit code that was sent.',
});
const Phone = Str(32, { minLength: 4, description: 'International format, e.g. +4915112345678.' });
const Name = Str(100, {
  minLength: 1,
  description:
    'Stored in Unicode NFC, trimmed. Nothing visible left: U130.5 (first name) / U130.6 (last name); bidirectional controls, zero-width or control characters anywhere: 0022.',
});
const AcceptTnc = Type.Boolean({
  description:
    'The customer accepts the terms and conditions that apply (those of `branchId`, else the tenant-wide ones). Required to create an account when terms exist.',
});
const TermsBranch = Id({
  description: 'Branch whose terms the customer accepts (default: tenant-wide terms).',
});

const CustomerSession = component(
  'CustomerSession',
  Type.Object(
    {
      access_token: Type.String({ description: 'Bearer token of scope `front` acting for the customer.' }),
      token_type: StringEnum(['Bearer']),
      expires_in: Int(1, 31_536_000),
      refresh_token: Type.String({ description: 'Opaque; exchange at `/customer/refresh` (single use).' }),
      refresh_expires_in: Int(1, 31_536_000 * 10),
      customerId: Id(),
      created: Type.Boolean({ description: 'Whether this call created the account.' }),
    },
    { additionalProperties: false },
  ),
);
type CustomerSession = Static<typeof CustomerSession>;

const CodeSent = component(
  'CodeSent',
  Type.Object(
    {
      expiresInSeconds: Int(1, 86_400 * 7),
      resendAfterSeconds: Int(0, 3600),
    },
    { additionalProperties: false, description: 'A code is on its way (if the address can receive one).' },
  ),
);

const SigningQuery = Type.Object({
  signature: Type.Optional(
    Str(200, { description: 'Request signature when the tenant requires signing (docs/customers.md).' }),
  ),
  timestamp: Type.Optional(
    Int(0, 99_999_999_999, { description: 'Unix seconds the signature was made at.' }),
  ),
  appId: Type.Optional(
    Str(100, { description: 'client_id of the app whose signing secret signed the request.' }),
  ),
});

/** What a request the tenant may require to be signed can answer about its signature. */
const signingErrors = ['SE100', 'SE101', 'SE102'] as const;

type Ctx = RouteContext<unknown, Static<typeof SigningQuery> | Record<string, never>, unknown, unknown>;

const noCache = { 'Cache-Control': 'no-store' };

/** Tokens for a customer: a 'front' access token and a new refresh-token family (or the given one, rotated). */
async function sessionFor(
  ctx: Ctx,
  em: EntityManager,
  customer: Customer,
  wasCreated: boolean,
  family?: string,
): Promise<CustomerSession> {
  if (customer.isBlocked) throw new DomainError('AUTH222');
  const ttl = ctx.services.refreshTokenTtlSeconds;
  const { token } = createRefreshToken(
    em,
    (value) => ctx.services.tokens.digest(value),
    customer,
    ttl,
    family,
  );
  await em.flush();
  return {
    access_token: await ctx.services.tokens.issue({
      tenant: ctx.tenant,
      subjectType: 'CUSTOMER',
      subjectId: String(customer.id),
      scope: 'front',
    }),
    token_type: 'Bearer',
    expires_in: ctx.services.tokenTtlSeconds,
    refresh_token: token,
    refresh_expires_in: ttl,
    customerId: customer.id,
    created: wasCreated,
  };
}

/** Counts a failure of one method and identifier, then throws the code of that failure. */
async function failAttempt(
  ctx: Ctx,
  method: SignInMethod | 'password-reset' | 'email-verification',
  identifier: string,
  error: DomainError,
): Promise<never> {
  await recordSignInFailure(ctx.services.orm, ctx.tenant, `${method}:${identifier}`, new Date());
  throw error;
}

/** Accepts the applicable terms when asked; a new account must accept them when there are any (U601). */
async function applyTerms(
  ctx: Ctx,
  em: EntityManager,
  customer: Customer,
  acceptTnc: boolean | undefined,
  branchId: number | undefined,
  creating: boolean,
): Promise<void> {
  const terms = await currentTerms(em, ctx.tenant, branchId);
  if (!terms) return;
  if (acceptTnc) await acceptTerms(em, customer, terms, `customer:${customer.id}`);
  else if (creating)
    throw new DomainError('U601', 'accept the terms and conditions (acceptTnc: true) to sign up');
}

/** Creates an account; a concurrent sign-up with the same e-mail or phone answers AUTH201 / AUTH206. */
async function createCustomer(
  em: EntityManager,
  fields: Partial<Customer> & Pick<Customer, 'email' | 'firstName' | 'lastName'>,
): Promise<Customer> {
  if (await em.count(Customer, { email: fields.email })) throw new DomainError('AUTH201');
  if (fields.phoneNumber && (await em.count(Customer, { phoneNumber: fields.phoneNumber })))
    throw new DomainError('AUTH206');
  const customer = em.create(Customer, fields);
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new DomainError('AUTH201');
    throw error;
  }
  return customer;
}

/** Sends a code of a purpose to an e-mail address; the cooldown answers AUTH225 (429). */
async function mailCode(
  ctx: Ctx,
  em: EntityManager,
  purpose: CodePurpose,
  email: string,
  subject: string,
  lead: string,
) {
  const { code } = await issueCode(
    em,
    (value) => ctx.services.tokens.digest(value),
    purpose,
    email,
    'AUTH225',
  );
  const minutes = Math.round(identityTimings.codeLifetimeSeconds[purpose] / 60);
  await ctx.services.mail.send({
    to: email,
    subject,
    text: `${lead}\n\n    ${code}\n\nThe code is valid for ${minutes} minutes. If you did not ask for it, ignore this message.`,
  });
  return {
    expiresInSeconds: identityTimings.codeLifetimeSeconds[purpose],
    resendAfterSeconds: identityTimings.resendCooldownSeconds,
  };
}

/** What a create-or-sign-in code flow differs in: its code, its identity field and its codes. */
interface CodeSignIn {
  method: 'email-code' | 'phone-code';
  purpose: CodePurpose;
  /** Normalised e-mail or phone number: the code's target and the account's identity. */
  target: string;
  code: string;
  expired: 'AUTH122' | 'AUTH103';
  mismatch: 'AUTH119' | 'AUTH102';
  /** The existing account of the target. */
  find: (em: EntityManager) => Promise<Customer | null>;
  /** Fields of a new account (the caller checks what it needs beyond names). */
  newAccount: () => Partial<Customer> & Pick<Customer, 'email'>;
  /** Marks the target verified on an existing account. */
  verified: (customer: Customer) => void;
  names: { firstName?: string; lastName?: string; acceptTnc?: boolean; branchId?: number };
}

/**
 * A code signs in the account of its target, or creates it (create-or-sign-in): three wrong codes block
 * (RL100), an expired code has its own code, a new account needs names (U130.5/.6) and the terms.
 */
async function signInWithCode(ctx: Ctx, flow: CodeSignIn): Promise<CustomerSession> {
  const key = throttleKey(flow.method, flow.target);
  await assertSignInAllowed(ctx.em, key);
  const digest = (value: string) => ctx.services.tokens.digest(value);
  const outcome = await consumeCode(ctx.em, digest, flow.purpose, flow.target, flow.code);
  if (outcome === 'expired') throw new DomainError(flow.expired);
  if (outcome !== 'ok') return failAttempt(ctx, flow.method, flow.target, new DomainError(flow.mismatch));
  return ctx.em.transactional(async (tx) => {
    await clearSignInFailures(tx, key);
    let customer = await flow.find(tx);
    const creating = !customer;
    if (!customer) {
      const fields = flow.newAccount();
      const firstName = normaliseName(flow.names.firstName, 'firstName');
      const lastName = normaliseName(flow.names.lastName, 'lastName');
      customer = await createCustomer(tx, { ...fields, firstName, lastName });
    } else flow.verified(customer);
    await applyTerms(ctx, tx, customer, flow.names.acceptTnc, flow.names.branchId, creating);
    return sessionFor(ctx, tx, customer, creating);
  });
}

const mailFailure = (code: 'A219' | 'A209' | 'A201') => (error: unknown) => {
  if (error instanceof DomainError) throw error;
  throw new DomainError(code, 'the e-mail could not be sent; try again', undefined, { cause: error });
};

const signed = (endpoint: SignedEndpoint, value: (ctx: Ctx) => string) => (ctx: Ctx) =>
  signedRequest(ctx, endpoint, value(ctx));

// --- sign-up and password sign-in -------------------------------------------------------------------

const SignUp = component(
  'CustomerSignUp',
  Type.Object(
    {
      email: Email,
      password: Password,
      firstName: Name,
      lastName: Name,
      phoneNumber: Type.Optional(Phone),
      birthDate: Type.Optional(CalendarDate()),
      acceptTnc: Type.Optional(AcceptTnc),
      branchId: Type.Optional(TermsBranch),
    },
    { additionalProperties: false },
  ),
);

/** `POST /auth/customer/sign-up`: a new customer with e-mail and password; signs them in at once. */
export const customerSignUp = defineRoute({
  operationId: 'customerSignUp',
  method: 'post',
  path: '/customer/sign-up',
  interface: 'auth',
  summary: 'Create a customer account (e-mail and password) and sign in',
  description:
    "Sends an e-mail verification code to the address. When the tenant requires request signing, `signature`, `timestamp` and `appId` sign the body's `email` (SE100.1).",
  tags: ['Customer authentication'],
  query: SigningQuery,
  body: SignUp,
  access: { anonymous: 'this is where customers create their account.' },
  responses: {
    201: {
      description: 'Account created; tokens',
      schema: CustomerSession,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH201', 'AUTH206', 'AUTH107', 'U101', 'U130', 'U601', 'B404', 'A209', ...signingErrors],
  async handler(ctx) {
    const { body } = ctx;
    await signed('SIGN_UP', () => body.email)(ctx);
    assertPasswordRules(body.password);
    assertCalendarDate(body.birthDate, 'birthDate');
    const firstName = normaliseName(body.firstName, 'firstName');
    const lastName = normaliseName(body.lastName, 'lastName');
    const email = normaliseEmail(body.email);
    const phoneNumber = body.phoneNumber === undefined ? null : normalisePhoneNumber(body.phoneNumber);
    const passwordHash = await hashPassword(body.password);
    const session = await ctx.em.transactional(async (tx) => {
      const customer = await createCustomer(tx, {
        email,
        firstName,
        lastName,
        phoneNumber,
        birthDate: body.birthDate ?? null,
        passwordHash,
      });
      await applyTerms(ctx, tx, customer, body.acceptTnc, body.branchId, true);
      await mailCode(
        ctx,
        tx,
        'EMAIL_VERIFICATION',
        email,
        'Confirm your e-mail address',
        'Welcome! Confirm your e-mail address with this code:',
      ).catch(mailFailure('A209'));
      return sessionFor(ctx, tx, customer, true);
    });
    return { ...created(session, noCache) };
  },
});

/** `POST /auth/customer/sign-in`: e-mail and password. */
export const customerSignIn = defineRoute({
  operationId: 'customerSignIn',
  method: 'post',
  path: '/customer/sign-in',
  interface: 'auth',
  summary: 'Sign in with e-mail and password',
  description: `Three failed attempts for one e-mail block further attempts for ${identityTimings.blockSeconds} s (RL100). Unknown e-mail and wrong password answer alike (AUTH101), in the same time.`,
  tags: ['Customer authentication'],
  body: component(
    'CustomerSignIn',
    Type.Object(
      {
        email: Email,
        password: Password,
        acceptTnc: Type.Optional(AcceptTnc),
        branchId: Type.Optional(TermsBranch),
      },
      { additionalProperties: false },
    ),
  ),
  access: { anonymous: 'this is where customers obtain their tokens.' },
  responses: {
    200: {
      description: 'Signed in; tokens',
      schema: CustomerSession,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH101', 'AUTH222', 'RL100', 'B404'],
  async handler(ctx) {
    const email = normaliseEmail(ctx.body.email);
    const key = throttleKey('password', email);
    await assertSignInAllowed(ctx.em, key);
    const customer = await ctx.em.findOne(Customer, { email }, { populate: ['passwordHash'] });
    if (!(await verifyPassword(ctx.body.password, customer?.passwordHash)) || !customer)
      return failAttempt(ctx, 'password', email, new DomainError('AUTH101'));
    await clearSignInFailures(ctx.em, key);
    if (ctx.body.acceptTnc) await applyTerms(ctx, ctx.em, customer, true, ctx.body.branchId, false);
    return ok(await sessionFor(ctx, ctx.em, customer, false), { headers: noCache });
  },
});

// --- e-mail code ------------------------------------------------------------------------------------

/** `POST /auth/customer/email-code`: sends a sign-in code by e-mail (also to new addresses: create-or-sign-in). */
export const requestEmailCode = defineRoute({
  operationId: 'requestCustomerEmailCode',
  method: 'post',
  path: '/customer/email-code',
  interface: 'auth',
  summary: 'Send an e-mail sign-in code (create-or-sign-in)',
  description: `Answers 202 for every address (no probing). A second request within ${identityTimings.resendCooldownSeconds} s answers 429 (AUTH225). Signed value: the body's \`email\` (SE100.4).`,
  tags: ['Customer authentication'],
  query: SigningQuery,
  body: component('CustomerEmailCodeRequest', Type.Object({ email: Email }, { additionalProperties: false })),
  access: { anonymous: 'customers ask for a code before they have an account or token.' },
  responses: { 202: { description: 'Code sent', schema: CodeSent } },
  errors: ['AUTH225', 'A219', ...signingErrors],
  async handler(ctx) {
    await signed('EMAIL_CODE', () => ctx.body.email)(ctx);
    const email = normaliseEmail(ctx.body.email);
    const sent = await ctx.em.transactional((tx) =>
      mailCode(ctx, tx, 'EMAIL_SIGN_IN', email, 'Your sign-in code', 'Sign in with this code:').catch(
        mailFailure('A219'),
      ),
    );
    return { status: 202 as const, body: sent };
  },
});

const NewAccountFields = {
  firstName: Type.Optional(Name),
  lastName: Type.Optional(Name),
  acceptTnc: Type.Optional(AcceptTnc),
  branchId: Type.Optional(TermsBranch),
};

/** `POST /auth/customer/email-code/sign-in`: the code signs in, or creates the account when the address is new. */
export const emailCodeSignIn = defineRoute({
  operationId: 'customerEmailCodeSignIn',
  method: 'post',
  path: '/customer/email-code/sign-in',
  interface: 'auth',
  summary: 'Sign in (or sign up) with an e-mail code',
  description:
    'A new address needs `firstName`, `lastName` (U130.5 / U130.6) and `acceptTnc` when terms exist (U601). The e-mail counts as verified. Three wrong codes block for 120 s (RL100).',
  tags: ['Customer authentication'],
  body: component(
    'CustomerEmailCodeSignIn',
    Type.Object({ email: Email, code: Code, ...NewAccountFields }, { additionalProperties: false }),
  ),
  access: { anonymous: 'the code is the credential.' },
  responses: {
    200: {
      description: 'Signed in (or signed up); tokens',
      schema: CustomerSession,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH119', 'AUTH122', 'AUTH222', 'RL100', 'U130', 'U601', 'B404'],
  async handler(ctx) {
    const { body } = ctx;
    const email = normaliseEmail(body.email);
    const session = await signInWithCode(ctx, {
      method: 'email-code',
      purpose: 'EMAIL_SIGN_IN',
      target: email,
      code: body.code,
      expired: 'AUTH122',
      mismatch: 'AUTH119',
      find: (em) => em.findOne(Customer, { email }),
      newAccount: () => ({ email, emailIsVerified: true }),
      verified: (customer) => void (customer.emailIsVerified = true),
      names: body,
    });
    return ok(session, { headers: noCache });
  },
});

// --- phone code -------------------------------------------------------------------------------------

/** `POST /auth/customer/phone-code`: sends a sign-in code by SMS. */
export const requestPhoneCode = defineRoute({
  operationId: 'requestCustomerPhoneCode',
  method: 'post',
  path: '/customer/phone-code',
  interface: 'auth',
  summary: 'Send an SMS sign-in code (create-or-sign-in)',
  description: `A second request within ${identityTimings.resendCooldownSeconds} s answers 429 (AUTH203, the previous code is still valid). Signed value: the body's \`phoneNumber\` (SE100.2).`,
  tags: ['Customer authentication'],
  query: SigningQuery,
  body: component(
    'CustomerPhoneCodeRequest',
    Type.Object({ phoneNumber: Phone }, { additionalProperties: false }),
  ),
  access: { anonymous: 'customers ask for a code before they have an account or token.' },
  responses: { 202: { description: 'Code sent', schema: CodeSent } },
  errors: ['AUTH107', 'AUTH203', 'A211', ...signingErrors],
  async handler(ctx) {
    await signed('PHONE_CODE', () => ctx.body.phoneNumber)(ctx);
    const phoneNumber = normalisePhoneNumber(ctx.body.phoneNumber);
    const sent = await ctx.em.transactional(async (tx) => {
      const { code } = await issueCode(
        tx,
        (value) => ctx.services.tokens.digest(value),
        'PHONE_SIGN_IN',
        phoneNumber,
        'AUTH203',
      );
      await ctx.services.sms
        .send({ to: phoneNumber, text: `Your sign-in code: ${code}` })
        .catch((error: unknown) => {
          throw new DomainError('A211', 'the SMS could not be sent; try again', undefined, { cause: error });
        });
      return {
        expiresInSeconds: identityTimings.codeLifetimeSeconds.PHONE_SIGN_IN,
        resendAfterSeconds: identityTimings.resendCooldownSeconds,
      };
    });
    return { status: 202 as const, body: sent };
  },
});

/** `POST /auth/customer/phone-code/sign-in`: the SMS code signs in, or creates the account for a new number. */
export const phoneCodeSignIn = defineRoute({
  operationId: 'customerPhoneCodeSignIn',
  method: 'post',
  path: '/customer/phone-code/sign-in',
  interface: 'auth',
  summary: 'Sign in (or sign up) with an SMS code',
  description:
    'A new number needs `email` (U130.3), `firstName`, `lastName` and `acceptTnc` when terms exist. The phone number counts as verified. Three wrong codes block for 120 s (RL100).',
  tags: ['Customer authentication'],
  body: component(
    'CustomerPhoneCodeSignIn',
    Type.Object(
      { phoneNumber: Phone, code: Code, email: Type.Optional(Email), ...NewAccountFields },
      { additionalProperties: false },
    ),
  ),
  access: { anonymous: 'the code is the credential.' },
  responses: {
    200: {
      description: 'Signed in (or signed up); tokens',
      schema: CustomerSession,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH102', 'AUTH103', 'AUTH107', 'AUTH201', 'AUTH222', 'RL100', 'U130', 'U601', 'B404'],
  async handler(ctx) {
    const { body } = ctx;
    const phoneNumber = normalisePhoneNumber(body.phoneNumber);
    const session = await signInWithCode(ctx, {
      method: 'phone-code',
      purpose: 'PHONE_SIGN_IN',
      target: phoneNumber,
      code: body.code,
      expired: 'AUTH103',
      mismatch: 'AUTH102',
      find: (em) => em.findOne(Customer, { phoneNumber }),
      newAccount: () => {
        if (!body.email) throw new DomainError('U130.3');
        return { email: normaliseEmail(body.email), phoneNumber, phoneIsVerified: true };
      },
      verified: (customer) => void (customer.phoneIsVerified = true),
      names: body,
    });
    return ok(session, { headers: noCache });
  },
});

// --- refresh and sign-out ---------------------------------------------------------------------------

const RefreshBody = component(
  'CustomerRefresh',
  Type.Object({ refresh_token: Str(200, { minLength: 1 }) }, { additionalProperties: false }),
);

/** `POST /auth/customer/refresh`: a rotated refresh token and a new access token. */
export const refreshCustomerSession = defineRoute({
  operationId: 'refreshCustomerSession',
  method: 'post',
  path: '/customer/refresh',
  interface: 'auth',
  summary: 'Exchange a refresh token for new tokens',
  description:
    'Refresh tokens are single use: each call answers a new one. An expired, revoked or unknown token answers AUTH104 (sign in again); presenting an already used token also revokes every token of that sign-in.',
  tags: ['Customer authentication'],
  body: RefreshBody,
  access: { anonymous: 'the refresh token is the credential.' },
  responses: {
    200: {
      description: 'New tokens',
      schema: CustomerSession,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH104', 'AUTH222'],
  async handler(ctx) {
    const now = new Date();
    const session = await ctx.em.transactional(async (tx) => {
      const row = await tx.findOne(
        RefreshToken,
        { tokenDigest: ctx.services.tokens.digest(ctx.body.refresh_token) },
        { populate: ['customer'] },
      );
      if (!row) throw new DomainError('AUTH104');
      if (row.revokedAt) {
        await revokeFamily(tx, row.family, now);
        return undefined;
      }
      if (row.expiresAt.getTime() <= now.getTime()) throw new DomainError('AUTH104');
      row.revokedAt = now;
      return sessionFor(ctx, tx, row.customer, false, row.family);
    });
    // The family is revoked (committed) before answering that reuse is refused.
    if (!session) throw new DomainError('AUTH104', 'this refresh token was already used; sign in again');
    return ok(session, { headers: noCache });
  },
});

/** `POST /auth/customer/sign-out`: revokes the refresh token and every token rotated from the same sign-in. */
export const customerSignOut = defineRoute({
  operationId: 'customerSignOut',
  method: 'post',
  path: '/customer/sign-out',
  interface: 'auth',
  summary: 'Sign out (revoke the refresh token)',
  description:
    'Idempotent: an unknown or already revoked token also answers 204. Access tokens stay valid until they expire (minutes).',
  tags: ['Customer authentication'],
  body: RefreshBody,
  access: { anonymous: 'the refresh token is the credential.' },
  responses: { 204: { description: 'Signed out' } },
  errors: [],
  async handler(ctx) {
    const row = await ctx.em.findOne(RefreshToken, {
      tokenDigest: ctx.services.tokens.digest(ctx.body.refresh_token),
    });
    if (row) await revokeFamily(ctx.em, row.family);
    return noContent();
  },
});

// --- password reset and e-mail verification ---------------------------------------------------------

const EmailParam = Type.Object({ email: Email });

/** `POST /auth/customer/password-reset/{email}`: mails a reset code when an account with a password exists. */
export const requestPasswordReset = defineRoute({
  operationId: 'requestCustomerPasswordReset',
  method: 'post',
  path: '/customer/password-reset/{email}',
  interface: 'auth',
  summary: 'Send a password-reset code by e-mail',
  description:
    'Answers 202 whether or not the address has an account (no probing). Signed value: the `email` path value (SE100.3).',
  tags: ['Customer authentication'],
  params: EmailParam,
  query: SigningQuery,
  access: { anonymous: 'customers who forgot their password have no token.' },
  responses: { 202: { description: 'Code sent (if the address has an account)', schema: CodeSent } },
  errors: ['AUTH225', 'A219', ...signingErrors],
  async handler(ctx) {
    await signed('PASSWORD_RESET', () => ctx.params.email)(ctx);
    const email = normaliseEmail(ctx.params.email);
    const customer = await ctx.em.findOne(Customer, { email });
    const sent = customer
      ? await ctx.em.transactional((tx) =>
          mailCode(
            ctx,
            tx,
            'PASSWORD_RESET',
            email,
            'Reset your password',
            'Reset your password with this code:',
          ).catch(mailFailure('A219')),
        )
      : codeSentAnswer('PASSWORD_RESET');
    if (customer) ctx.recordEvent({ type: 'USER_PASSWORD_RESET_EMAIL', customerId: customer.id });
    return { status: 202 as const, body: sent };
  },
});

const codeSentAnswer = (purpose: CodePurpose) => ({
  expiresInSeconds: identityTimings.codeLifetimeSeconds[purpose],
  resendAfterSeconds: identityTimings.resendCooldownSeconds,
});

/** `POST /auth/customer/password-reset`: a new password with the mailed code; signs out every device. */
export const confirmPasswordReset = defineRoute({
  operationId: 'confirmCustomerPasswordReset',
  method: 'post',
  path: '/customer/password-reset',
  interface: 'auth',
  summary: 'Set a new password with a reset code',
  description: 'Revokes every refresh token of the customer. Three wrong codes block for 120 s (RL100).',
  tags: ['Customer authentication'],
  body: component(
    'CustomerPasswordReset',
    Type.Object({ email: Email, code: Code, password: Password }, { additionalProperties: false }),
  ),
  access: { anonymous: 'the mailed code is the credential.' },
  responses: { 204: { description: 'Password changed' } },
  errors: ['AUTH105', 'AUTH106', 'U101', 'RL100'],
  async handler(ctx) {
    const { body } = ctx;
    const email = normaliseEmail(body.email);
    const key = `password-reset:${email}`;
    await assertSignInAllowed(ctx.em, key);
    assertPasswordRules(body.password);
    const outcome = await consumeCode(
      ctx.em,
      (value) => ctx.services.tokens.digest(value),
      'PASSWORD_RESET',
      email,
      body.code,
    );
    if (outcome === 'expired') throw new DomainError('AUTH106');
    const customer = outcome === 'ok' ? await ctx.em.findOne(Customer, { email }) : null;
    if (!customer) return failAttempt(ctx, 'password-reset', email, new DomainError('AUTH105'));
    customer.passwordHash = await hashPassword(body.password);
    await revokeAllOf(ctx.em, customer.id);
    await clearSignInFailures(ctx.em, key);
    await clearSignInFailures(ctx.em, throttleKey('password', email));
    ctx.recordEvent({ type: 'USER_PASSWORD_CHANGED', customerId: customer.id });
    return noContent();
  },
});

/** `POST /auth/customer/email-verification/{email}`: mails a new e-mail verification code. */
export const resendEmailVerification = defineRoute({
  operationId: 'resendCustomerEmailVerification',
  method: 'post',
  path: '/customer/email-verification/{email}',
  interface: 'auth',
  summary: 'Send a new e-mail verification code',
  description:
    'Answers 202 for every address (no probing); only unverified accounts get a message. Signed value: the `email` path value (SE100.3).',
  tags: ['Customer authentication'],
  params: EmailParam,
  query: SigningQuery,
  access: { anonymous: 'verification links are opened from mail apps without a token.' },
  responses: { 202: { description: 'Code sent (if the address awaits verification)', schema: CodeSent } },
  errors: ['AUTH225', 'A209', ...signingErrors],
  async handler(ctx) {
    await signed('EMAIL_VERIFICATION', () => ctx.params.email)(ctx);
    const email = normaliseEmail(ctx.params.email);
    const customer = await ctx.em.findOne(Customer, { email });
    const sent =
      customer && !customer.emailIsVerified
        ? await ctx.em.transactional((tx) =>
            mailCode(
              ctx,
              tx,
              'EMAIL_VERIFICATION',
              email,
              'Confirm your e-mail address',
              'Confirm your e-mail address with this code:',
            ).catch(mailFailure('A209')),
          )
        : codeSentAnswer('EMAIL_VERIFICATION');
    return { status: 202 as const, body: sent };
  },
});

/** `POST /auth/customer/email-verification`: confirms the address with the mailed code. */
export const verifyEmail = defineRoute({
  operationId: 'verifyCustomerEmail',
  method: 'post',
  path: '/customer/email-verification',
  interface: 'auth',
  summary: 'Confirm an e-mail address with its code',
  tags: ['Customer authentication'],
  body: component(
    'CustomerEmailVerification',
    Type.Object({ email: Email, code: Code }, { additionalProperties: false }),
  ),
  access: { anonymous: 'the mailed code is the credential.' },
  responses: { 204: { description: 'E-mail verified' } },
  errors: ['AUTH119', 'AUTH122', 'RL100'],
  async handler(ctx) {
    const email = normaliseEmail(ctx.body.email);
    const key = `email-verification:${email}`;
    await assertSignInAllowed(ctx.em, key);
    const outcome = await consumeCode(
      ctx.em,
      (value) => ctx.services.tokens.digest(value),
      'EMAIL_VERIFICATION',
      email,
      ctx.body.code,
    );
    if (outcome === 'expired') throw new DomainError('AUTH122');
    const customer = outcome === 'ok' ? await ctx.em.findOne(Customer, { email }) : null;
    if (!customer) return failAttempt(ctx, 'email-verification', email, new DomainError('AUTH119'));
    customer.emailIsVerified = true;
    await clearSignInFailures(ctx.em, key);
    ctx.recordEvent({ type: 'USER_EMAIL_VERIFIED', customerId: customer.id });
    return noContent();
  },
});

export const customerAuthRoutes = [
  customerSignUp,
  customerSignIn,
  requestEmailCode,
  emailCodeSignIn,
  requestPhoneCode,
  phoneCodeSignIn,
  refreshCustomerSession,
  customerSignOut,
  requestPasswordReset,
  confirmPasswordReset,
  resendEmailVerification,
  verifyEmail,
];
