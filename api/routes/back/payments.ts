// The operator's payments: the list of a branch's business unit, one payment with its attempts (each
// with its own state), a manual retry (the payment workflow's retryPayment Update; P120 where the state
// does not allow one), and the removal of a customer's or business account's payment source (P122
// while a running payment charges it). Finance permissions are checked on the business unit of the
// payment or source (lists: behind `branchId`). See docs/finance.md, "Invoices".
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Payment } from '../../../db/entities/Payment.js';
import { PaymentSource } from '../../../db/entities/PaymentSource.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { removePaymentSource } from '../../../db/payment-sources.js';
import { DomainError } from '../../../domain/errors.js';
import { paymentPurposes, paymentStates } from '../../../domain/finance.js';
import { defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { Id, StringEnum } from '../../kernel/schemas.js';
import { PaymentSchema, PaymentState, paymentDtos } from '../../shared/payment-representation.js';
import { retryPayment, retryPaymentErrors } from '../../shared/payment-commands.js';
import { onTheBranchUnit, unitOfBranchQuery } from './invoices.js';
import { detachAtGateway } from '../../shared/payment-setups.js';

const tags = ['Payments'];

/** The payment of the path, loaded once per request; P404 if unknown. */
const paymentOf = (ctx: RouteContext<{ paymentId: number }>) =>
  ctx.once('payment', async () => {
    const payment = await ctx.em.findOne(Payment, ctx.params.paymentId);
    if (!payment) throw new DomainError('P404', `payment ${ctx.params.paymentId} not found`);
    return payment;
  });

/** Access to the payment of the path: `permission` on its business unit. */
const onThePayment = (permission: string) => ({
  permission,
  businessUnitOf: 'the payment',
  businessUnit: async (ctx: RouteContext<{ paymentId: number }>) => (await paymentOf(ctx)).businessUnit.id,
});

const PaymentIdParams = Type.Object({ paymentId: Id() });

export const listPayments = defineRoute({
  operationId: 'listPayments',
  method: 'get',
  path: '/payments',
  interface: 'back',
  summary: "Payments of a branch's business unit, newest first, each with its attempts",
  description:
    'Payments belong to business units: the list shows those of the business unit behind `branchId`. Filters combine (AND): `state` (repeatable), `purpose`, `invoiceId`, `balanceId`, `userId` (the customer), `userGroupId` (the business account).',
  tags,
  query: Type.Object({
    branchId: Id(),
    state: Type.Optional(
      Type.Array(PaymentState, { maxItems: paymentStates.length, description: 'Repeatable.' }),
    ),
    purpose: Type.Optional(StringEnum(paymentPurposes)),
    invoiceId: Type.Optional(Id()),
    balanceId: Type.Optional(Id()),
    userId: Type.Optional(Id()),
    userGroupId: Type.Optional(Id()),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: onTheBranchUnit('PAYMENT_READ'),
  responses: { 200: { description: 'One page of payments', schema: Type.Array(PaymentSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const { query, page, em } = ctx;
    const unit = await unitOfBranchQuery(ctx);
    const where: FilterQuery<Payment> = { businessUnit: unit.id };
    if (query.state?.length) where.state = { $in: query.state };
    if (query.purpose) where.purpose = query.purpose;
    if (query.invoiceId !== undefined) where.invoice = query.invoiceId;
    if (query.balanceId !== undefined) where.balance = query.balanceId;
    if (query.userId !== undefined) where.customer = query.userId;
    if (query.userGroupId !== undefined) where.userGroup = query.userGroupId;
    const [payments, total] = await em.findAndCount(Payment, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await paymentDtos(em, payments), { total });
  },
});

export const getPayment = defineRoute({
  operationId: 'getPayment',
  method: 'get',
  path: '/payments/{paymentId}',
  interface: 'back',
  summary: 'One payment with its attempts, each with its own state',
  description:
    'The payment runs as the workflow `workflowId` (`payment:{tenant}:{id}`, visible in the Temporal UI).',
  tags,
  params: PaymentIdParams,
  access: onThePayment('PAYMENT_READ'),
  responses: { 200: { description: 'The payment', schema: PaymentSchema } },
  errors: ['P404'],
  async handler(ctx) {
    return ok((await paymentDtos(ctx.em, [await paymentOf(ctx)]))[0]!);
  },
});

export const retryPaymentRoute = defineRoute({
  operationId: 'retryPayment',
  method: 'post',
  path: '/payments/{paymentId}/retry',
  interface: 'back',
  summary: 'Charge a payment again now (records INVOICE_RETRY_PAYMENT for an invoice)',
  description:
    'Allowed while AWAITING_RETRY and after a failed 3-D Secure or push challenge: the waiting workflow runs an attempt at once (trigger MANUAL) and the answer shows it. A FAILED payment of an invoice still unpaid is followed by a new payment of that invoice, which is answered. P120 in any other state (an attempt in flight, waiting for the customer, paid).',
  tags,
  params: PaymentIdParams,
  access: onThePayment('PAYMENT_RETRY'),
  responses: {
    200: { description: 'The payment after the attempt (or the new payment)', schema: PaymentSchema },
  },
  errors: ['P404', ...retryPaymentErrors],
  async handler(ctx) {
    const payment = await retryPayment(ctx, await paymentOf(ctx), ctx.actor);
    return ok((await paymentDtos(ctx.em, [payment]))[0]!);
  },
});

const SourceFields = {
  sourceId: Type.Optional(Id({ description: 'The payment source to remove.' })),
  userId: Type.Optional(Id({ description: 'Its customer (or userGroupId, not both).' })),
  userGroupId: Type.Optional(Id({ description: 'Its business account (or userId, not both).' })),
};

type SourceRequest = { sourceId?: number; userId?: number; userGroupId?: number };

/** The source named by the query and/or the body (a field given in both must agree). */
function sourceRequestOf(ctx: RouteContext<unknown, SourceRequest, SourceRequest | undefined>) {
  const pick = (name: keyof SourceRequest) => {
    const [inQuery, inBody] = [ctx.query[name], ctx.body?.[name]];
    if (inQuery !== undefined && inBody !== undefined && inQuery !== inBody)
      throw new DomainError('P123', `${name} differs between the query and the body`);
    return inQuery ?? inBody;
  };
  const [sourceId, userId, userGroupId] = [pick('sourceId'), pick('userId'), pick('userGroupId')];
  if (sourceId === undefined) throw new DomainError('P123', 'sourceId is required (query or body)');
  if ((userId === undefined) === (userGroupId === undefined))
    throw new DomainError('P123', 'give exactly one of userId and userGroupId');
  return { sourceId, owner: userId !== undefined ? { customer: userId } : { group: userGroupId! } };
}

/** The source of the request if it is the named customer's or account's; P405 otherwise. */
const sourceOf = (ctx: RouteContext<unknown, SourceRequest, SourceRequest | undefined>) =>
  ctx.once('payment-source', async () => {
    const { sourceId, owner } = sourceRequestOf(ctx);
    const source = await ctx.em.findOne(PaymentSource, { id: sourceId, ...owner });
    if (!source) throw new DomainError('P405', `payment source ${sourceId} not found for that owner`);
    return source;
  });

export const deletePaymentSource = defineRoute({
  operationId: 'deletePaymentSource',
  method: 'delete',
  path: '/payments',
  interface: 'back',
  summary: "Remove a customer's or business account's payment source (records USER_PAYMENT_METHOD_REMOVED)",
  description:
    '`sourceId` plus `userId` or `userGroupId`, in the query or the body as the caller supplies them (a field sent in both must agree; else P123). P405 when the owner has no such source; P122 while a running payment charges it. Finished payments keep their history without the source; when the default source goes, the owner’s newest other source at the same business unit becomes the default; with the owner’s last source its paymentState goes from SOURCE_ADDED back to NONE. The method is detached at its gateway first (PGS100, nothing removed, when the gateway does not answer). The app’s `DELETE /payment-methods/{id}` follows the same rule.',
  tags,
  query: Type.Object(SourceFields),
  body: Type.Object(SourceFields, { additionalProperties: false }),
  bodyRequired: false,
  access: {
    permission: 'PAYMENT_SOURCE_DELETE',
    businessUnitOf: 'the payment source',
    businessUnit: async (ctx) => (await sourceOf(ctx)).businessUnit.id,
  },
  responses: { 204: { description: 'Removed' } },
  errors: ['P123', 'P405', 'P122', 'PGS100'],
  async handler(ctx) {
    const found = await sourceOf(ctx);
    // The one removal rule of both interfaces (db/payment-sources.ts): P122, the default moving on, the
    // owner's paymentState, USER_PAYMENT_METHOD_REMOVED.
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      removePaymentSource(tx, found.id, { adminSubject: ctx.actor, customerId: null }, detachAtGateway(ctx)),
    );
    return noContent();
  },
});

export const paymentRoutes = [listPayments, getPayment, retryPaymentRoute, deletePaymentSource];
