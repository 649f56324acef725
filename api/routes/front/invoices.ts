// The app's invoices: the signed-in customer's own invoices with the spec's filters (unpaid, invoiced
// only, refunds, below a threshold, by rental or booking), and the retry of their unpaid retryable
// invoices' payments. Another customer's invoice is not found (I404). The spec's `/front/invoices` is
// this interface's `/invoices` (its app paths are written with and without the `/front` prefix, as
// `/front/branches/{id}/intersectable`). See docs/finance.md, "Invoices".
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Invoice } from '../../../db/entities/Invoice.js';
import { Payment } from '../../../db/entities/Payment.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import { invoiceOperations, unpaidInvoiceStates, type InvoiceState } from '../../../domain/finance.js';
import { toDomainError } from '../../errors.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id, Nullable, StringEnum } from '../../kernel/schemas.js';
import {
  InvoiceSchema,
  InvoiceState as InvoiceStateSchema,
  invoiceDtos,
} from '../../shared/invoice-representation.js';
import { InvoicePaymentSummary, toInvoicePaymentSummary } from '../../shared/payment-representation.js';
import { retryPayment } from '../../shared/payment-commands.js';

const tags = ['Invoices'];

const refundFilters = ['INCLUDE', 'EXCLUDE', 'ONLY'] as const;

export const appListInvoices = defineRoute({
  operationId: 'appListInvoices',
  method: 'get',
  path: '/invoices',
  interface: 'front',
  summary: 'My invoices, newest first (the spec’s `/invoices` and `/front/invoices`)',
  description:
    'Filters combine (AND). `unpaid=true`: billed and not paid yet (BILLED, IN_PAYMENT, the EXCEPTION_ states, a failed or waiting challenge, COLLECTION). `invoicedOnly=true`: no OPEN invoices (an ended rental’s invoice before it is billed). `refunds`: INCLUDE (default) the refunding invoices, EXCLUDE them, or ONLY them. `belowThreshold`: only invoices whose gross total is below this amount (small invoices). `rentalId`, `bookingId`: the invoices (and refunds) of that rental or booking.',
  tags,
  query: Type.Object({
    unpaid: Type.Optional(Type.Boolean()),
    invoicedOnly: Type.Optional(Type.Boolean()),
    refunds: Type.Optional(StringEnum(refundFilters, { default: 'INCLUDE' })),
    belowThreshold: Type.Optional(
      Type.String({
        pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$',
        maxLength: 20,
        description: 'Decimal string, in the invoice currency.',
      }),
    ),
    rentalId: Type.Optional(Id()),
    bookingId: Type.Optional(Id()),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "only the caller's own invoices." },
  responses: { 200: { description: 'One page of invoices', schema: Type.Array(InvoiceSchema) } },
  errors: [],
  async handler(ctx) {
    const { query, page, em } = ctx;
    const customer = await ctx.customer();
    const and: FilterQuery<Invoice>[] = [{ customer: customer.id }];
    if (query.unpaid) and.push({ state: { $in: [...unpaidInvoiceStates] } });
    if (query.invoicedOnly) and.push({ state: { $ne: 'OPEN' } });
    if (query.refunds === 'EXCLUDE') and.push({ refundedInvoice: null });
    if (query.refunds === 'ONLY') and.push({ refundedInvoice: { $ne: null } });
    if (query.belowThreshold !== undefined) and.push({ totalGross: { $lt: query.belowThreshold } });
    if (query.rentalId !== undefined) and.push({ rental: query.rentalId });
    if (query.bookingId !== undefined) and.push({ booking: query.bookingId });
    const [invoices, total] = await em.findAndCount(
      Invoice,
      { $and: and },
      { orderBy: { issuedAt: 'desc', id: 'desc' }, limit: page.size, offset: page.offset },
    );
    return ok(await invoiceDtos(em, invoices), { total });
  },
});

const retryOutcomes = ['RETRIED', 'NEW_PAYMENT', 'REFUSED'] as const;

const RetryResult = component(
  'AppInvoiceRetryResult',
  Type.Object(
    {
      results: Type.Array(
        Type.Object(
          {
            invoiceId: Id(),
            outcome: StringEnum(retryOutcomes, {
              description:
                'RETRIED: its waiting payment was charged again now; NEW_PAYMENT: its payment had failed, a new one started; REFUSED: see errorCode.',
            }),
            errorCode: Nullable(Type.String({ description: 'Why it was refused (I125, P120, …).' })),
            invoiceState: InvoiceStateSchema,
            payment: Nullable(InvoicePaymentSummary),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const retryableStates = invoiceOperations.RETRY_PAYMENT.from;

export const appRetryInvoices = defineRoute({
  operationId: 'appRetryInvoices',
  method: 'post',
  path: '/invoices/retry',
  interface: 'front',
  summary: 'Pay my unpaid invoices again now (records INVOICE_RETRY_PAYMENT for each)',
  description:
    'Without `invoiceIds`, every own invoice whose payment can be retried (IN_PAYMENT, EXCEPTION_PAYING, THREE_DS_FAILED, PUSH_BANK_REFUSED), oldest first; with them, those invoices (another customer’s is I404). For each: a payment waiting for a retry or after a failed challenge is charged again at once; a failed payment is followed by a new payment; otherwise the invoice is REFUSED with the code saying why (I125 not retryable in its state or no payment, P120 an attempt in flight).',
  tags,
  body: Type.Object(
    {
      invoiceIds: Type.Optional(
        Type.Array(Id(), {
          minItems: 1,
          maxItems: 50,
          uniqueItems: true,
          description: 'Only these invoices.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  bodyRequired: false,
  access: { customer: "only the caller's own invoices." },
  responses: { 200: { description: 'What happened to each invoice', schema: RetryResult } },
  errors: ['I404'],
  async handler(ctx) {
    const { em } = ctx;
    const customer = await ctx.customer();
    const ids = ctx.body?.invoiceIds;
    const invoices = await em.find(
      Invoice,
      ids
        ? { customer: customer.id, id: { $in: ids } }
        : { customer: customer.id, state: { $in: [...retryableStates] }, refundedInvoice: null },
      { orderBy: { issuedAt: 'asc', id: 'asc' }, limit: 50 },
    );
    if (ids && invoices.length !== ids.length) {
      const missing = ids.find((id) => !invoices.some((invoice) => invoice.id === id));
      throw new DomainError('I404', `invoice ${missing} not found`);
    }
    const results = [];
    for (const invoice of invoices) {
      const refused = (errorCode: ErrorCode | string, payment: Payment | null) => ({
        invoiceId: invoice.id,
        outcome: 'REFUSED' as const,
        errorCode,
        invoiceState: invoice.state,
        payment: payment ? toInvoicePaymentSummary(payment) : null,
      });
      const payment = await em.findOne(
        Payment,
        { invoice: invoice.id },
        { orderBy: { createdAt: 'desc', id: 'desc' } },
      );
      if (
        !(retryableStates as readonly InvoiceState[]).includes(invoice.state) ||
        invoice.refundedInvoice ||
        !payment
      ) {
        results.push(refused('I125', payment));
        continue;
      }
      try {
        const retried = await retryPayment(ctx, payment, ctx.actor);
        const current = await em.findOneOrFail(Invoice, invoice.id, { refresh: true });
        results.push({
          invoiceId: invoice.id,
          outcome: retried.id === payment.id ? ('RETRIED' as const) : ('NEW_PAYMENT' as const),
          errorCode: null,
          invoiceState: current.state,
          payment: toInvoicePaymentSummary(retried),
        });
      } catch (error) {
        const refusal = toDomainError(error);
        // Only refusals are reported per invoice; a fault fails the request.
        if (refusal.code === '0099') throw error;
        results.push(refused(refusal.code, await em.findOne(Payment, payment.id, { refresh: true })));
      }
    }
    return ok({ results });
  },
});

export const appInvoiceRoutes = [appListInvoices, appRetryInvoices];
