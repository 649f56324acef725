// Collecting an operator's invoice: bill it (OPEN → BILLED, its payment workflow starts), refund it
// (a refund workflow; the refunding invoice is answered), set it paid externally (only COLLECTION
// invoices, F207), mark it as lost (IGNORE) or for collection (COLLECTION). Each state rule is the
// table of domain/finance.ts (`invoiceOperationRefusal`); payments move through the shared commands of
// api/shared/payment-commands.ts. Every operation records its INVOICE_* event. See docs/finance.md.
import { Type } from '@sinclair/typebox';
import { LockMode } from '@mikro-orm/core';
import { Invoice } from '../../../db/entities/Invoice.js';
import { Payment } from '../../../db/entities/Payment.js';
import { Decimal } from 'decimal.js';
import { recordEvent } from '../../../db/events.js';
import { booksOfInvoice } from '../../../db/finance-books.js';
import { formatAmount } from '../../../domain/money.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import {
  awaitsTransfer,
  transferInvoiceOperations,
  invoiceOperationRefusal,
  paymentTransition,
  type InvoiceOperation,
  type InvoiceState,
} from '../../../domain/finance.js';
import type { InvoiceEventType } from '../../../domain/invoice-events.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Str } from '../../kernel/schemas.js';
import { InvoiceSchema, invoiceDto } from '../../shared/invoice-representation.js';
import {
  billInvoice,
  billInvoiceErrors,
  closePayment,
  closePaymentErrors,
  refundErrors,
  startRefund,
} from '../../shared/payment-commands.js';
import { invoiceOf, InvoiceIdParams, onTheInvoice, tags } from './invoices.js';

/** The refusal of an operation on an invoice: the state table, and never on a refunding invoice. */
function refusalOf(invoice: Invoice, operation: InvoiceOperation): ErrorCode | undefined {
  // An invoice paid by transfer (BILLED with a due date, no payment) is settled or collected by hand.
  if (awaitsTransfer(invoice) && transferInvoiceOperations.includes(operation)) return undefined;
  const refusal = invoiceOperationRefusal(invoice.state, operation);
  if (refusal) return refusal;
  return invoice.refundedInvoice ? invoiceOperationRefusal('IS_REFUND', operation) : undefined;
}

function assertAllowed(invoice: Invoice, operation: InvoiceOperation): void {
  const refusal = refusalOf(invoice, operation);
  if (refusal) throw new DomainError(refusal, `the invoice is ${invoice.state}`);
}

/** The invoice's newest payment, if any. */
const latestPaymentOf = (ctx: RouteContext, invoiceId: number) =>
  ctx.em.findOne(
    Payment,
    { invoice: invoiceId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, refresh: true },
  );

/** The fields an invoice event carries. */
const eventOf = (
  invoice: Invoice,
  type: InvoiceEventType,
  actor: string,
  payload: Record<string, unknown>,
) => ({
  type,
  customerId: invoice.customer.id,
  rentalId: invoice.rental?.id ?? null,
  bookingId: invoice.booking?.id ?? null,
  adminSubject: actor,
  payload: { invoiceId: invoice.id, ...payload },
});

const answer = async (ctx: RouteContext, invoiceId: number) =>
  ok(await invoiceDto(ctx.em, await ctx.em.findOneOrFail(Invoice, invoiceId, { refresh: true })));

export const billInvoiceRoute = defineRoute({
  operationId: 'billInvoice',
  method: 'post',
  path: '/invoices/{invoiceId}/bill',
  interface: 'back',
  summary: 'Bill an OPEN invoice: BILLED, and its payment workflow starts (records INVOICE_BILLED)',
  description:
    "The customer's default balance credit at the business unit is applied first; a payment for what is left starts at once (`payment:{tenant}:{id}` in the Temporal UI). When the credit covers it all the invoice is PAID and no payment starts. I121 unless OPEN, I128 unless its total is positive.",
  tags,
  params: InvoiceIdParams,
  access: onTheInvoice('INVOICE_BILL'),
  responses: { 200: { description: 'The billed invoice with its payment', schema: InvoiceSchema } },
  errors: [...billInvoiceErrors],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    assertAllowed(invoice, 'BILL');
    // The bill writes its INVOICE_BILLED; the answer is the invoice as billed, its lines and payments.
    const billed = await billInvoice(ctx, invoice, ctx.actor);
    return ok(await invoiceDto(ctx.em, billed.invoice));
  },
});

const RefundRequest = component(
  'InvoiceRefundRequest',
  Type.Object(
    {
      reason: Str(500, { minLength: 1, description: 'Why; kept on the refunding invoice.' }),
      items: Type.Array(
        Type.Object(
          {
            lineItemId: Id({ description: 'A line of the invoice.' }),
            amount: Type.String({
              pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]+)?$',
              maxLength: 20,
              description:
                "Gross to give back for the line: positive, at most what the line was paid less what earlier refunds gave back. Decimal string in the currency's minor digits.",
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 500, description: 'Explicit refund items, each line at most once.' },
      ),
    },
    { additionalProperties: false },
  ),
);

export const refundInvoiceRoute = defineRoute({
  operationId: 'refundInvoice',
  method: 'post',
  path: '/invoices/{invoiceId}/refund',
  interface: 'back',
  summary:
    'Refund (part of) a paid invoice: the refunding invoice, then the refund workflow (records INVOICE_REFUND_REQUESTED)',
  description:
    'The invoice moves to REFUND_IN_PROGRESS and a refunding invoice (IS_REFUND, `refundedInvoiceId` set, one negative line per item) is answered once recorded; the refund workflow then calls the gateway and ends REFUNDED or EXCEPTION_REFUND. Partial refunds add up and never exceed what was paid (I127).',
  tags,
  params: InvoiceIdParams,
  body: RefundRequest,
  access: onTheInvoice('REFUND_CREATE'),
  responses: { 201: { description: 'The refunding invoice', schema: InvoiceSchema } },
  errors: [...refundErrors],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    assertAllowed(invoice, 'REFUND');
    const refund = await startRefund(ctx, invoice, {
      reason: ctx.body.reason,
      items: ctx.body.items,
      requestedBy: ctx.actor,
    });
    ctx.recordEvent(
      eventOf(invoice, 'INVOICE_REFUND_REQUESTED', ctx.actor, {
        refundInvoiceId: refund.id,
        reason: ctx.body.reason,
        items: ctx.body.items,
      }),
    );
    return created(await invoiceDto(ctx.em, refund), { Location: `${ctx.baseUrl}/invoices/${refund.id}` });
  },
});

const CollectionNote = Type.Object(
  { reason: Type.Optional(Str(500, { minLength: 1, description: 'Recorded with the event.' })) },
  { additionalProperties: false },
);

/**
 * The last step of a collection operation, under the invoice's row lock: the state is checked again
 * (unless the payment's closing already moved it), then written with its event.
 */
async function settleCollection(
  ctx: RouteContext,
  invoiceId: number,
  step: {
    operation: InvoiceOperation;
    state: InvoiceState;
    settled: boolean;
    event: InvoiceEventType;
    /** The payment closing already moved the invoice: skip the state check. */
    paymentClosed: boolean;
    payload: Record<string, unknown>;
    paymentReference?: string;
    /** The state the invoice was in before the operation (its payment's closing may have moved it). */
    from: InvoiceState;
  },
): Promise<void> {
  await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
    const invoice = await tx.findOneOrFail(Invoice, invoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!step.paymentClosed) assertAllowed(invoice, step.operation);
    const from = step.paymentClosed ? step.from : invoice.state;
    invoice.state = step.state;
    if (step.settled) invoice.settledAt ??= new Date();
    if (step.paymentReference) invoice.paymentReference ??= step.paymentReference;
    if (step.state === 'PAID_EXTERNALLY') {
      // What was paid outside fleetflow: what neither the gateway captured nor a balance paid.
      const books = await booksOfInvoice(tx, invoice.id);
      const outside = new Decimal(invoice.totalGross).minus(books.viaGateway).minus(books.fromBalance);
      invoice.paidExternallyGross = formatAmount(Decimal.max(outside, 0), invoice.currency);
      step.payload.paidExternallyGross = invoice.paidExternallyGross;
    }
    recordEvent(tx, eventOf(invoice, step.event, ctx.actor, { from, to: step.state, ...step.payload }));
    await tx.flush();
  });
}

export const setInvoicePaidExternally = defineRoute({
  operationId: 'setInvoicePaidExternally',
  method: 'post',
  path: '/invoices/{invoiceId}/set-paid-externally',
  interface: 'back',
  summary:
    'Record that a COLLECTION invoice was paid outside the gateway: PAID_EXTERNALLY (records INVOICE_PAID_EXTERNALLY)',
  description:
    "Only invoices in COLLECTION, or BILLED invoices waiting for a transfer (a payer invoiced by transfer: paymentState INVOICING, `dueAt` set, no payment) (F207). Its payment, if one is still open, is closed as paid (PAID); the customer's dunning block lifts at once.",
  tags,
  params: InvoiceIdParams,
  body: Type.Object(
    {
      ...CollectionNote.properties,
      reference: Type.Optional(
        Str(200, {
          minLength: 1,
          description: "The external payment's reference (bank transfer, collection agency).",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  bodyRequired: false,
  access: onTheInvoice('INVOICE_COLLECT'),
  responses: { 200: { description: 'The invoice', schema: InvoiceSchema } },
  errors: ['I404', ...closePaymentErrors],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    assertAllowed(invoice, 'SET_PAID_EXTERNALLY');
    const payment = await latestPaymentOf(ctx, invoice.id);
    const closing = payment !== null && paymentTransition(payment.state, 'PAID_EXTERNALLY') !== undefined;
    if (closing) await closePayment(ctx, payment, 'PAID_EXTERNALLY', ctx.actor);
    await settleCollection(ctx, invoice.id, {
      operation: 'SET_PAID_EXTERNALLY',
      state: 'PAID_EXTERNALLY',
      settled: true,
      event: 'INVOICE_PAID_EXTERNALLY',
      from: invoice.state,
      paymentClosed: closing,
      payload: {
        paymentId: payment?.id ?? null,
        reason: ctx.body?.reason ?? null,
        reference: ctx.body?.reference ?? null,
      },
      paymentReference: ctx.body?.reference,
    });
    return answer(ctx, invoice.id);
  },
});

export const markInvoiceAsLost = defineRoute({
  operationId: 'markInvoiceAsLost',
  method: 'post',
  path: '/invoices/{invoiceId}/mark-as-lost',
  interface: 'back',
  summary: 'Give up an invoice whose collection failed: IGNORE (records INVOICE_MARKED_AS_LOST)',
  description:
    'From EXCEPTION_PAYING, EXCEPTION_BILLING, EXCEPTION_SEPA, COLLECTION, THREE_DS_FAILED or PUSH_BANK_REFUSED (else I123). The invoice becomes IGNORE (settled, no longer unpaid: it blocks nothing); a payment still waiting for a retry is stopped (its state becomes COLLECTIONS).',
  tags,
  params: InvoiceIdParams,
  body: CollectionNote,
  bodyRequired: false,
  access: onTheInvoice('INVOICE_COLLECT'),
  responses: { 200: { description: 'The invoice', schema: InvoiceSchema } },
  errors: ['I404', 'I123', ...closePaymentErrors],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    assertAllowed(invoice, 'MARK_AS_LOST');
    const payment = await latestPaymentOf(ctx, invoice.id);
    // A payment still running (a failed challenge waits for a retry) is stopped first.
    const running =
      payment !== null &&
      paymentTransition(payment.state, 'COLLECTIONS') !== undefined &&
      payment.state !== 'FAILED';
    if (running) await closePayment(ctx, payment, 'COLLECTIONS', ctx.actor);
    await settleCollection(ctx, invoice.id, {
      operation: 'MARK_AS_LOST',
      state: 'IGNORE',
      settled: true,
      event: 'INVOICE_MARKED_AS_LOST',
      from: invoice.state,
      paymentClosed: running,
      payload: { paymentId: payment?.id ?? null, reason: ctx.body?.reason ?? null },
    });
    return answer(ctx, invoice.id);
  },
});

export const markInvoiceForCollection = defineRoute({
  operationId: 'markInvoiceForCollection',
  method: 'post',
  path: '/invoices/{invoiceId}/mark-for-collection',
  interface: 'back',
  summary: 'Hand an unpaid invoice to collection: COLLECTION (records INVOICE_MARKED_FOR_COLLECTION)',
  description:
    'From EXCEPTION_PAYING, EXCEPTION_BILLING, EXCEPTION_SEPA, IN_PAYMENT, THREE_DS_FAILED or PUSH_BANK_REFUSED (else I124). Its payment stops retrying and becomes COLLECTIONS; an attempt in flight refuses it (I124: try again once it answered). A COLLECTION invoice can then be set paid externally or marked as lost.',
  tags,
  params: InvoiceIdParams,
  body: CollectionNote,
  bodyRequired: false,
  access: onTheInvoice('INVOICE_COLLECT'),
  responses: { 200: { description: 'The invoice', schema: InvoiceSchema } },
  errors: ['I404', ...closePaymentErrors],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    assertAllowed(invoice, 'MARK_FOR_COLLECTION');
    const payment = await latestPaymentOf(ctx, invoice.id);
    const closing = payment !== null && paymentTransition(payment.state, 'COLLECTIONS') !== undefined;
    if (payment && !closing)
      throw new DomainError('I124', `the payment is ${payment.state}: try again once its attempt answered`);
    if (closing) await closePayment(ctx, payment, 'COLLECTIONS', ctx.actor);
    await settleCollection(ctx, invoice.id, {
      operation: 'MARK_FOR_COLLECTION',
      state: 'COLLECTION',
      settled: false,
      event: 'INVOICE_MARKED_FOR_COLLECTION',
      from: invoice.state,
      paymentClosed: closing,
      payload: { paymentId: payment?.id ?? null, reason: ctx.body?.reason ?? null },
    });
    return answer(ctx, invoice.id);
  },
});

export const invoiceCollectionRoutes = [
  billInvoiceRoute,
  refundInvoiceRoute,
  setInvoicePaidExternally,
  markInvoiceAsLost,
  markInvoiceForCollection,
];
