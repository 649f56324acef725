// The signed-in customer's payment methods in the app, saved the way a real gateway saves them: the app
// starts a setup (`POST /payment-methods/setups`: the gateway's setup and its client secret), the client
// confirms it with the gateway (Stripe.js with a SetupIntent's client secret; the sandbox's
// `/sandbox-gateway/setups/{reference}/confirm` with a test token), and the gateway's verified webhook
// stores the source (api/shared/payment-setups.ts). Then the customer lists them, makes one the default and
// removes one (the same rule as the operator's `DELETE /payments`, db/payment-sources.ts). A business
// account's owner manages the account's methods with `userGroupId`; its members may not (A100), others
// learn nothing (UG404). Another customer's method or setup is not found (P405, PGS107).
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import type { Customer } from '../../../db/entities/Customer.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { PaymentSetup, paymentSetupStates } from '../../../db/entities/PaymentSetup.js';
import { PaymentSource } from '../../../db/entities/PaymentSource.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { startPaymentSetup } from '../../../db/payment-setups.js';
import { makeDefaultPaymentSource, removePaymentSource } from '../../../db/payment-sources.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { detachAtGateway } from '../../shared/payment-setups.js';

const tags = ['Payment methods'];

export const PaymentMethodSchema = component(
  'AppPaymentMethod',
  Type.Object(
    {
      id: Id(),
      type: StringEnum(['CARD', 'SEPA', 'PAYPAL'] as const),
      label: Type.String({ description: 'What the customer sees, e.g. `Visa •••• 4242`.' }),
      expiry: Nullable(Type.String({ description: '`YYYY-MM`, for cards.' })),
      isDefault: Type.Boolean({ description: 'The one charged first.' }),
      provider: Type.String({ description: 'The gateway holding it (`sandbox`, `stripe`).' }),
      businessUnitId: Id(),
      userGroupId: Nullable(Id({ description: "The business account's, or null for the customer's own." })),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const setupFields = {
  id: Id(),
  state: StringEnum(paymentSetupStates, {
    description:
      "PENDING until the gateway confirms it; SUCCEEDED: the payment method is stored (`paymentMethodId`); FAILED: the gateway refused it (`errorCode` PGS103, or PGS100 when it did not answer; the gateway's own `failureCode`).",
  }),
  gateway: Type.String({ description: '`sandbox` or `stripe`.' }),
  reference: Nullable(Type.String({ description: "The gateway's setup (`seti_…`)." })),
  businessUnitId: Id(),
  userGroupId: Nullable(Id()),
  paymentMethodId: Nullable(
    Id({ description: 'The stored payment method, once SUCCEEDED (null again if removed).' }),
  ),
  errorCode: Nullable(Type.String()),
  failureCode: Nullable(Type.String()),
  failureMessage: Nullable(Type.String()),
  createdAt: DateTime(),
  completedAt: Nullable(DateTime()),
};

export const PaymentSetupSchema = component(
  'AppPaymentMethodSetup',
  Type.Object(setupFields, { additionalProperties: false }),
);

export const StartedPaymentSetupSchema = component(
  'AppStartedPaymentMethodSetup',
  Type.Object(
    {
      ...setupFields,
      clientSecret: Type.String({
        description:
          "What the client confirms the setup with at the gateway (Stripe.js `confirmSetup`; the sandbox's confirmation). Shown once; never stored by fleetflow.",
      }),
      confirmUrl: Nullable(
        Type.String({
          description:
            'Sandbox only: where the client confirms the setup with a test token (`POST` with `clientSecret` and `token`).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

function toPaymentMethod(source: PaymentSource): Static<typeof PaymentMethodSchema> {
  return {
    id: source.id,
    type: source.type,
    label: source.label,
    expiry: source.expiry ?? null,
    isDefault: source.isDefault,
    provider: source.provider,
    businessUnitId: source.businessUnit.id,
    userGroupId: source.group?.id ?? null,
    createdAt: source.createdAt.toISOString(),
  };
}

async function toSetup(em: EntityManager, setup: PaymentSetup): Promise<Static<typeof PaymentSetupSchema>> {
  const source = await em.findOne(PaymentSource, { setup: setup.id }, { fields: ['id'] });
  return {
    id: setup.id,
    state: setup.state,
    gateway: setup.gateway,
    reference: setup.reference ?? null,
    businessUnitId: setup.businessUnit.id,
    userGroupId: setup.group?.id ?? null,
    paymentMethodId: source?.id ?? null,
    errorCode: setup.errorCode ?? null,
    failureCode: setup.failureCode ?? null,
    failureMessage: setup.failureMessage ?? null,
    createdAt: setup.createdAt.toISOString(),
    completedAt: setup.completedAt?.toISOString() ?? null,
  };
}

/** Whose methods: the caller's own, or with `userGroupId` a business account the caller owns. */
async function ownerOf(ctx: RouteContext, userGroupId: number | undefined) {
  const customer = await ctx.customer();
  if (userGroupId === undefined) return { customer, group: null };
  return { customer, group: await ownedGroup(ctx.em, customer, userGroupId) };
}

/** The business account if the customer owns it; A100 for its members, UG404 for everyone else. */
async function ownedGroup(em: EntityManager, customer: Customer, userGroupId: number): Promise<UserGroup> {
  const group = await em.findOne(UserGroup, userGroupId);
  if (group && group.owner?.id === customer.id) return group;
  if (group && (await em.count(GroupMembership, { group, customer, state: 'ACTIVE' })))
    throw new DomainError('A100', "only the business account's owner manages its payment methods");
  throw new DomainError('UG404', `business account ${userGroupId} not found`);
}

/** The payment method of the path if the caller may manage it: P405 for others' (A100 for an account's member). */
async function manageableSource(ctx: RouteContext<{ paymentMethodId: number }>): Promise<PaymentSource> {
  const customer = await ctx.customer();
  const source = await ctx.em.findOne(PaymentSource, ctx.params.paymentMethodId);
  if (source?.customer?.id === customer.id) return source;
  if (source?.group) {
    const group = await ctx.em.findOne(UserGroup, source.group.id);
    if (group?.owner?.id === customer.id) return source;
    if (group && (await ctx.em.count(GroupMembership, { group, customer, state: 'ACTIVE' })))
      throw new DomainError('A100', "only the business account's owner manages its payment methods");
  }
  throw new DomainError('P405', `payment method ${ctx.params.paymentMethodId} not found`);
}

/** The business unit a new method is registered with (its merchant account holds it). */
async function unitFor(
  ctx: RouteContext,
  customer: Customer,
  group: UserGroup | null,
  branchId: number | undefined,
): Promise<number> {
  if (branchId !== undefined) return (await businessUnitOfBranch(ctx.em, branchId)).id;
  if (group) return group.defaultBusinessUnit?.id ?? (await businessUnitOfBranch(ctx.em, group.branch.id)).id;
  if (customer.homeBusinessUnit) return customer.homeBusinessUnit.id;
  const units = await ctx.em.find(BusinessUnit, {}, { fields: ['id'], limit: 2, orderBy: { id: 'asc' } });
  if (units.length === 1) return units[0]!.id;
  throw new DomainError('PGS109', 'give branchId: the account has no home business unit');
}

const ownerQuery = Type.Object({
  userGroupId: Type.Optional(
    Id({ description: 'A business account the caller owns; without it, the caller’s own.' }),
  ),
});

export const listPaymentMethods = defineRoute({
  operationId: 'appListPaymentMethods',
  method: 'get',
  path: '/payment-methods',
  interface: 'front',
  summary: 'My payment methods (or those of a business account I own)',
  description: 'The default first, then oldest first. A member of the account who is not its owner: A100.',
  tags,
  query: ownerQuery,
  access: { customer: "the caller's own methods, or those of a business account the caller owns." },
  responses: { 200: { description: 'The payment methods', schema: Type.Array(PaymentMethodSchema) } },
  errors: ['A100', 'UG404'],
  async handler(ctx) {
    const { customer, group } = await ownerOf(ctx, ctx.query.userGroupId);
    const sources = await ctx.em.find(
      PaymentSource,
      group ? { group: group.id } : { customer: customer.id },
      { orderBy: { isDefault: 'desc', id: 'asc' } },
    );
    return ok(sources.map(toPaymentMethod));
  },
});

export const startPaymentMethodSetup = defineRoute({
  operationId: 'appStartPaymentMethodSetup',
  method: 'post',
  path: '/payment-methods/setups',
  interface: 'front',
  summary: 'Start adding a payment method (a gateway setup to confirm with its client secret)',
  description:
    "Creates the setup at the deployment's gateway (Stripe: a SetupIntent for off-session charges, the customer's Stripe customer created once) and answers its `clientSecret`. The client confirms it with the gateway — Stripe.js `confirmSetup`, or for the sandbox `POST confirmUrl` with a test token — and the gateway's webhook stores the method (`USER_PAYMENT_METHOD_ADD`; the first becomes the default and the customer's paymentState SOURCE_ADDED). Poll `GET /payment-methods/setups/{setupId}` for the outcome. The method is registered with the business unit of `branchId`, else the account's or the customer's home unit (PGS109 when there is none to choose). PGS103 when the gateway refuses to start it, PGS100 when it does not answer.",
  tags,
  body: Type.Object(
    {
      branchId: Type.Optional(Id({ description: 'The branch whose business unit charges the method.' })),
      userGroupId: Type.Optional(Id({ description: 'A business account the caller owns.' })),
    },
    { additionalProperties: false },
  ),
  bodyRequired: false,
  access: { customer: 'for the caller, or for a business account the caller owns.' },
  responses: {
    201: {
      description: 'The setup, waiting for the confirmation',
      schema: StartedPaymentSetupSchema,
      headers: { Location: { description: 'URL of the setup.', schema: Str(200) } },
    },
  },
  errors: ['A100', 'B404', 'UG404', 'PGS100', 'PGS103', 'PGS109'],
  async handler(ctx) {
    const { customer, group } = await ownerOf(ctx, ctx.body?.userGroupId);
    const businessUnitId = await unitFor(ctx, customer, group, ctx.body?.branchId);
    const gateway = ctx.services.paymentGateways.default;
    const started = await startPaymentSetup(ctx.services.orm, ctx.tenant, gateway, {
      customer,
      group,
      businessUnitId,
    });
    const setup = await ctx.em.findOneOrFail(PaymentSetup, started.setup.id);
    const sandbox = gateway.name === 'sandbox' && setup.reference;
    return created(
      {
        ...(await toSetup(ctx.em, setup)),
        clientSecret: started.clientSecret,
        confirmUrl: sandbox ? `${ctx.baseUrl}/sandbox-gateway/setups/${setup.reference}/confirm` : null,
      },
      { Location: `${ctx.baseUrl}/payment-methods/setups/${setup.id}` },
    );
  },
});

export const getPaymentMethodSetup = defineRoute({
  operationId: 'appGetPaymentMethodSetup',
  method: 'get',
  path: '/payment-methods/setups/{setupId}',
  interface: 'front',
  summary: 'A payment method setup I started: pending, saved or refused',
  tags,
  params: Type.Object({ setupId: Id() }),
  access: { customer: 'setups the caller started; others are PGS107.' },
  responses: { 200: { description: 'The setup', schema: PaymentSetupSchema } },
  errors: ['PGS107'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const setup = await ctx.em.findOne(PaymentSetup, { id: ctx.params.setupId, customer: customer.id });
    if (!setup) throw new DomainError('PGS107', `setup ${ctx.params.setupId} not found`);
    return ok(await toSetup(ctx.em, setup));
  },
});

const MethodParams = Type.Object({ paymentMethodId: Id() });

export const setDefaultPaymentMethod = defineRoute({
  operationId: 'appSetDefaultPaymentMethod',
  method: 'post',
  path: '/payment-methods/{paymentMethodId}/default',
  interface: 'front',
  summary: 'Make a payment method the default (records USER_PAYMENT_METHOD_CHANGED)',
  description: 'The others of the same owner stop being the default. Already the default: nothing changes.',
  tags,
  params: MethodParams,
  access: { customer: "the caller's own methods or a business account's the caller owns; others are P405." },
  responses: { 200: { description: 'The payment method', schema: PaymentMethodSchema } },
  errors: ['A100', 'P405'],
  async handler(ctx) {
    const source = await manageableSource(ctx);
    const customer = await ctx.customer();
    const updated = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      makeDefaultPaymentSource(tx, source.id, { adminSubject: null, customerId: customer.id }),
    );
    return ok(toPaymentMethod(updated));
  },
});

export const deletePaymentMethod = defineRoute({
  operationId: 'appDeletePaymentMethod',
  method: 'delete',
  path: '/payment-methods/{paymentMethodId}',
  interface: 'front',
  summary: 'Remove a payment method (records USER_PAYMENT_METHOD_REMOVED)',
  description:
    "The operator's `DELETE /payments` rule: P122 while a running payment charges it; when the default goes, the newest other method at the same business unit becomes the default; with the last one the paymentState goes back to NONE (INVOICING stays). The method is detached at its gateway first, so nothing can charge it again; PGS100 (nothing removed) when the gateway does not answer.",
  tags,
  params: MethodParams,
  access: { customer: "the caller's own methods or a business account's the caller owns; others are P405." },
  responses: { 204: { description: 'Removed' } },
  errors: ['A100', 'P405', 'P122', 'PGS100'],
  async handler(ctx) {
    const source = await manageableSource(ctx);
    const customer = await ctx.customer();
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      removePaymentSource(
        tx,
        source.id,
        { adminSubject: null, customerId: customer.id },
        detachAtGateway(ctx),
      ),
    );
    return noContent();
  },
});

export const paymentMethodRoutes = [
  listPaymentMethods,
  startPaymentMethodSetup,
  getPaymentMethodSetup,
  setDefaultPaymentMethod,
  deletePaymentMethod,
];
