// The operator's invoices: the list of a branch's business unit with the spec's filters, one invoice, its
// title and description while OPEN, its overview (payments with attempts, refunds, ledger rows, what it
// allows, its timeline) and the business unit's report. Finance permissions are checked on the
// invoice's business unit (lists: the business unit behind `branchId`). Line items, collection and
// documents are in invoice-line-items.ts, invoice-collection.ts and invoice-documents.ts. See
// docs/finance.md, "Invoices".
import { Type } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Decimal } from 'decimal.js';
import { BalanceUpdate } from '../../../db/entities/BalanceUpdate.js';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { Payment } from '../../../db/entities/Payment.js';
import { booksOfInvoice } from '../../../db/finance-books.js';
import { editInvoiceText } from '../../../db/invoice-edits.js';
import {
  invoiceIdsOfBalance,
  invoiceIdsOfCharge,
  invoiceReportRows,
  invoiceTimeline,
  reportPeriods,
} from '../../../db/invoice-queries.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { DomainError } from '../../../domain/errors.js';
import {
  invoiceOperationRefusal,
  invoiceOperations,
  invoiceStates,
  unpaidInvoiceStates,
  type InvoiceOperation,
  type InvoiceState,
} from '../../../domain/finance.js';
import { formatAmount } from '../../../domain/money.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  InvoiceSchema,
  InvoiceState as InvoiceStateSchema,
  InvoiceType,
  invoiceDto,
  invoiceDtos,
} from '../../shared/invoice-representation.js';
import { PaymentSchema, paymentDtos } from '../../shared/payment-representation.js';

export const tags = ['Invoices'];

/** The invoice of the path, loaded once per request (access check and handler share it); I404 if unknown. */
export const invoiceOf = (ctx: RouteContext<{ invoiceId: number }>) =>
  ctx.once('invoice', async () => {
    const invoice = await ctx.em.findOne(Invoice, ctx.params.invoiceId);
    if (!invoice) throw new DomainError('I404', `invoice ${ctx.params.invoiceId} not found`);
    return invoice;
  });

/** Access to the invoice of the path: `permission` on its business unit. */
export const onTheInvoice = (permission: string) => ({
  permission,
  businessUnitOf: 'the invoice',
  businessUnit: async (ctx: RouteContext<{ invoiceId: number }>) => (await invoiceOf(ctx)).businessUnit.id,
});

/** The business unit behind the `branchId` of the query (B404 for an unknown branch), loaded once. */
export const unitOfBranchQuery = (ctx: RouteContext<unknown, { branchId: number }>) =>
  ctx.once('branch-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));

/** Access to a business unit's finance records through the `branchId` of the query. */
export const onTheBranchUnit = (permission: string) => ({
  permission,
  businessUnitOf: 'the branch of query parameter branchId',
  businessUnit: async (ctx: RouteContext<unknown, { branchId: number }>) => (await unitOfBranchQuery(ctx)).id,
});

export const InvoiceIdParams = Type.Object({ invoiceId: Id() });

/** LIKE wildcards of a text taken literally, as a case-insensitive prefix. */
const prefixOf = (text: string) => `${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const listInvoices = defineRoute({
  operationId: 'listInvoices',
  method: 'get',
  path: '/invoices',
  interface: 'back',
  summary: "Invoices of a branch's business unit, newest first",
  description:
    "Invoices belong to business units: the list shows those of the business unit behind `branchId`. Filters combine (AND): `balanceId` (invoices its ledger rows name), `chargeId` (a gateway reference of a payment, a payment attempt or the invoice's payment reference), `invoiceId`, `guser.firstName` (the start of the customer's first name, case-insensitive), `invoiceType`, `state` (repeatable), `guserId`, `rentalId`, `bookingId`, and the issue window `issuedFrom`/`issuedTo`.",
  tags,
  query: Type.Object({
    branchId: Id(),
    balanceId: Type.Optional(Id()),
    chargeId: Type.Optional(Str(200, { minLength: 1, description: 'A gateway reference (charge id).' })),
    invoiceId: Type.Optional(Id()),
    'guser.firstName': Type.Optional(Str(100, { minLength: 1 })),
    invoiceType: Type.Optional(InvoiceType),
    state: Type.Optional(
      Type.Array(InvoiceStateSchema, { maxItems: invoiceStates.length, description: 'Repeatable.' }),
    ),
    guserId: Type.Optional(Id()),
    rentalId: Type.Optional(Id()),
    bookingId: Type.Optional(Id()),
    issuedFrom: Type.Optional(DateTime()),
    issuedTo: Type.Optional(DateTime()),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: onTheBranchUnit('INVOICE_READ'),
  responses: { 200: { description: 'One page of invoices', schema: Type.Array(InvoiceSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const { query, page, em, tenant } = ctx;
    const unit = await unitOfBranchQuery(ctx);
    const and: FilterQuery<Invoice>[] = [{ businessUnit: unit.id }];
    if (query.invoiceId !== undefined) and.push({ id: query.invoiceId });
    if (query.invoiceType) and.push({ type: query.invoiceType });
    if (query.state?.length) and.push({ state: { $in: query.state } });
    if (query.guserId !== undefined) and.push({ customer: query.guserId });
    if (query.rentalId !== undefined) and.push({ rental: query.rentalId });
    if (query.bookingId !== undefined) and.push({ booking: query.bookingId });
    if (query['guser.firstName']?.trim())
      and.push({ customer: { firstName: { $ilike: prefixOf(query['guser.firstName']) } } });
    if (query.issuedFrom) and.push({ issuedAt: { $gte: clampedInstant(query.issuedFrom) } });
    if (query.issuedTo) and.push({ issuedAt: { $lt: clampedInstant(query.issuedTo) } });
    if (query.chargeId !== undefined)
      and.push({ id: { $in: await invoiceIdsOfCharge(em, tenant, query.chargeId) } });
    if (query.balanceId !== undefined)
      and.push({ id: { $in: await invoiceIdsOfBalance(em, tenant, query.balanceId) } });
    const [invoices, total] = await em.findAndCount(
      Invoice,
      { $and: and },
      { orderBy: { issuedAt: 'desc', id: 'desc' }, limit: page.size, offset: page.offset },
    );
    return ok(await invoiceDtos(em, invoices), { total });
  },
});

export const getInvoice = defineRoute({
  operationId: 'getInvoice',
  method: 'get',
  path: '/invoices/{invoiceId}',
  interface: 'back',
  summary: 'One invoice with its line items and payments',
  tags,
  params: InvoiceIdParams,
  access: onTheInvoice('INVOICE_READ'),
  responses: { 200: { description: 'The invoice', schema: InvoiceSchema } },
  errors: ['I404'],
  async handler(ctx) {
    return ok(await invoiceDto(ctx.em, await invoiceOf(ctx)));
  },
});

const InvoiceTextChange = component(
  'InvoiceTextChange',
  Type.Object(
    {
      title: Type.Optional(
        Str(200, {
          minLength: 1,
          description: 'Required on every invoice: changed, never removed (null is 0022).',
        }),
      ),
      description: Type.Optional(Type.Union([Str(1000), Type.Null()], { description: 'null removes it.' })),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const updateInvoice = defineRoute({
  operationId: 'updateInvoice',
  method: 'patch',
  path: '/invoices/{invoiceId}',
  interface: 'back',
  summary: 'Change the title or description of an OPEN invoice (records INVOICE_UPDATED)',
  tags,
  params: InvoiceIdParams,
  body: InvoiceTextChange,
  access: onTheInvoice('INVOICE_UPDATE'),
  responses: { 200: { description: 'The invoice', schema: InvoiceSchema } },
  errors: ['I404', 'I120'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      editInvoiceText(tx, invoice.id, ctx.body, { actor: ctx.actor }),
    );
    return ok(await invoiceDto(ctx.em, await ctx.em.findOneOrFail(Invoice, invoice.id, { refresh: true })));
  },
});

const invoiceOperationNames = Object.keys(invoiceOperations) as InvoiceOperation[];

const Money = (description: string) => Type.String({ description: `${description} Decimal string.` });

const InvoiceOverview = component(
  'InvoiceOverview',
  Type.Object(
    {
      invoice: InvoiceSchema,
      allowedOperations: Type.Array(StringEnum(invoiceOperationNames), {
        description: 'What the invoice allows in its state (EDIT covers title, description and line items).',
      }),
      payments: Type.Array(PaymentSchema, { description: 'Newest first, each with its attempts.' }),
      refunds: Type.Array(InvoiceSchema, {
        description: 'The invoices refunding it (IS_REFUND), oldest first.',
      }),
      paidGross: Money(
        'What it was paid: captured through the gateway, plus the balance credit it was billed against, plus what was paid externally.',
      ),
      refundedGross: Money('What its settled refunds gave back (positive).'),
      balanceUpdates: Type.Array(
        Type.Object(
          {
            id: Id(),
            balanceId: Id(),
            kind: Type.String(),
            amount: Money('Signed: negative is charged to the balance.'),
            description: Type.String(),
            createdAt: DateTime(),
          },
          { additionalProperties: false },
        ),
      ),
      timeline: Type.Array(
        Type.Object(
          {
            type: Type.String(),
            createdAt: DateTime(),
            adminSubject: Nullable(Type.String()),
            payload: Nullable(Type.Record(Type.String(), Type.Unknown())),
          },
          { additionalProperties: false },
        ),
        { description: 'Its INVOICE_* events, oldest first.' },
      ),
    },
    { additionalProperties: false },
  ),
);

export const invoiceOverview = defineRoute({
  operationId: 'getInvoiceOverview',
  method: 'get',
  path: '/invoices/{invoiceId}/overview',
  interface: 'back',
  summary: 'Everything about one invoice: payments and attempts, refunds, balance rows, operations, timeline',
  description:
    'The invoice state alone does not prove a payment: the overview shows each payment with its attempts and what was collected and given back.',
  tags,
  params: InvoiceIdParams,
  access: onTheInvoice('INVOICE_READ'),
  responses: { 200: { description: 'The overview', schema: InvoiceOverview } },
  errors: ['I404'],
  async handler(ctx) {
    const { em, tenant } = ctx;
    const invoice = await invoiceOf(ctx);
    const [payments, refunds, ledger, timeline] = await Promise.all([
      em.find(Payment, { invoice: invoice.id }, { orderBy: { createdAt: 'desc', id: 'desc' } }),
      em.find(Invoice, { refundedInvoice: invoice.id }, { orderBy: { id: 'asc' } }),
      em.find(BalanceUpdate, { invoice: invoice.id }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
      invoiceTimeline(em, tenant, invoice.id),
    ]);
    const money = (value: string | Decimal) => formatAmount(value, invoice.currency);
    // One meaning everywhere (db/finance-books.ts): paid = captured through the gateway + taken from the
    // balance + paid externally; refunded = what settled refunds gave back.
    const books = invoice.refundedInvoice ? null : await booksOfInvoice(em, invoice.id);
    const paid = new Decimal(books?.paid ?? 0);
    const refunded = books
      ? new Decimal(books.refunded)
      : new Decimal(invoice.settledAt ? invoice.totalGross : 0).abs();
    return ok({
      invoice: await invoiceDto(em, invoice),
      allowedOperations: invoiceOperationNames.filter(
        (operation) => !invoice.refundedInvoice && !invoiceOperationRefusal(invoice.state, operation),
      ),
      payments: await paymentDtos(em, payments),
      refunds: await invoiceDtos(em, refunds),
      paidGross: money(paid),
      refundedGross: money(refunded),
      balanceUpdates: ledger.map((row) => ({
        id: row.id,
        balanceId: row.balance.id,
        kind: row.kind,
        amount: money(row.amount),
        description: row.description,
        createdAt: row.createdAt.toISOString(),
      })),
      timeline: timeline.map((row) => ({
        type: row.type,
        createdAt: row.createdAt.toISOString(),
        adminSubject: row.adminSubject,
        payload: row.payload,
      })),
    });
  },
});

const ReportSums = {
  currency: Type.String(),
  count: Type.Integer(),
  net: Money('Net.'),
  tax: Money('Tax.'),
  gross: Money('Gross.'),
};

const InvoiceReport = component(
  'InvoiceReport',
  Type.Object(
    {
      businessUnitId: Id(),
      from: DateTime(),
      to: DateTime(),
      period: StringEnum(reportPeriods),
      timeZoneId: Type.String({
        description: "The business unit's: periods are its calendar days, weeks, months.",
      }),
      currencies: Type.Array(
        Type.Object(
          {
            ...ReportSums,
            openGross: Money('OPEN (not billed yet).'),
            outstandingGross: Money('Billed and unpaid (the dunning states, COLLECTION included).'),
            paidGross: Money('Paid, paid externally, or paid and since (partly) refunded.'),
            lostGross: Money('Marked as lost (IGNORE).'),
            refundCount: Type.Integer(),
            refundedGross: Money(
              'What settled refunds gave back (positive); a running or failed refund gives nothing yet.',
            ),
          },
          { additionalProperties: false },
        ),
        { description: 'Per currency: invoices (refunding invoices apart) and refunds.' },
      ),
      byState: Type.Array(
        Type.Object({ state: StringEnum(invoiceStates), ...ReportSums }, { additionalProperties: false }),
      ),
      byPeriod: Type.Array(
        Type.Object(
          {
            periodStart: Type.String({ format: 'date', description: 'First day of the period.' }),
            ...ReportSums,
          },
          { additionalProperties: false },
        ),
        { description: 'Invoices (refunding invoices apart) by the period they were issued in.' },
      ),
    },
    { additionalProperties: false },
  ),
);

const paidStates: readonly InvoiceState[] = [
  'PAID',
  'PAID_EXTERNALLY',
  'ALLOWS_REFUND',
  'REFUND_IN_PROGRESS',
  'REFUNDED',
  'EXCEPTION_REFUND',
  'DISPUTED',
];

/** Longest window of a report per period, so a report has at most a few hundred rows per currency. */
const longestWindowDays: Record<(typeof reportPeriods)[number], number> = {
  DAY: 366,
  WEEK: 5 * 366,
  MONTH: 20 * 366,
  YEAR: 100 * 366,
};
const DAY_MS = 86_400_000;

export const invoiceReports = defineRoute({
  operationId: 'getInvoiceReports',
  method: 'get',
  path: '/invoices/reports',
  interface: 'back',
  summary: "Totals of a branch's business unit's invoices by state, currency and period",
  description:
    "Invoices issued in [`from`, `to`) (default: the 365 days before now) of the business unit behind `branchId`, summed exactly: per currency (invoiced, open, outstanding, paid, lost, refunded), per state and currency, and per `period` (DAY, WEEK from Monday, MONTH (default), YEAR of the business unit's calendar) and currency. Refunding invoices count only as refunds. A window is at most 366 days by DAY, 5 years by WEEK, 20 by MONTH, 100 by YEAR (else I133).",
  tags,
  query: Type.Object({
    branchId: Id(),
    from: Type.Optional(DateTime()),
    to: Type.Optional(DateTime()),
    period: Type.Optional(StringEnum(reportPeriods, { default: 'MONTH' })),
  }),
  access: onTheBranchUnit('INVOICE_READ'),
  responses: { 200: { description: 'The report', schema: InvoiceReport } },
  errors: ['B404', 'I133'],
  async handler(ctx) {
    const { query, em, tenant } = ctx;
    const unit: BusinessUnit = await unitOfBranchQuery(ctx);
    const to = query.to ? clampedInstant(query.to) : new Date();
    const from = query.from ? clampedInstant(query.from) : new Date(to.getTime() - 365 * DAY_MS);
    const period = query.period ?? 'MONTH';
    if (!(from < to)) throw new DomainError('I133', '`from` must be before `to`');
    if (to.getTime() - from.getTime() > longestWindowDays[period] * DAY_MS)
      throw new DomainError('I133', `a report by ${period} covers at most ${longestWindowDays[period]} days`);
    const rows = await invoiceReportRows(em, tenant, {
      businessUnitId: unit.id,
      from,
      to,
      period,
      timeZoneId: unit.timeZoneId,
    });
    const currencies = [...new Set(rows.byState.map((row) => row.currency))].sort();
    const sumOf = (currency: string, keep: (state: InvoiceState) => boolean, pick: 'net' | 'tax' | 'gross') =>
      rows.byState
        .filter((row) => row.currency === currency && keep(row.state))
        .reduce((sum, row) => sum.plus(row[pick]), new Decimal(0));
    const invoiced = (state: InvoiceState) => state !== 'IS_REFUND';
    const amount = (value: Decimal, currency: string) => formatAmount(value, currency);
    return ok({
      businessUnitId: unit.id,
      from: from.toISOString(),
      to: to.toISOString(),
      period,
      timeZoneId: unit.timeZoneId,
      currencies: currencies.map((currency) => ({
        currency,
        count: rows.byState
          .filter((row) => row.currency === currency && invoiced(row.state))
          .reduce((sum, row) => sum + row.count, 0),
        net: amount(sumOf(currency, invoiced, 'net'), currency),
        tax: amount(sumOf(currency, invoiced, 'tax'), currency),
        gross: amount(sumOf(currency, invoiced, 'gross'), currency),
        openGross: amount(
          sumOf(currency, (state) => state === 'OPEN', 'gross'),
          currency,
        ),
        outstandingGross: amount(
          sumOf(
            currency,
            (state) => (unpaidInvoiceStates as readonly InvoiceState[]).includes(state),
            'gross',
          ),
          currency,
        ),
        paidGross: amount(
          sumOf(currency, (state) => paidStates.includes(state), 'gross'),
          currency,
        ),
        lostGross: amount(
          sumOf(currency, (state) => state === 'IGNORE', 'gross'),
          currency,
        ),
        refundCount: rows.byState
          .filter((row) => row.currency === currency && row.state === 'IS_REFUND')
          .reduce((sum, row) => sum + row.count, 0),
        refundedGross: amount(
          new Decimal(rows.refunded.find((row) => row.currency === currency)?.gross ?? 0),
          currency,
        ),
      })),
      byState: rows.byState.map((row) => ({
        state: row.state,
        currency: row.currency,
        count: row.count,
        net: amount(new Decimal(row.net), row.currency),
        tax: amount(new Decimal(row.tax), row.currency),
        gross: amount(new Decimal(row.gross), row.currency),
      })),
      byPeriod: rows.byPeriod.map((row) => ({
        periodStart: row.periodStart,
        currency: row.currency,
        count: row.count,
        net: amount(new Decimal(row.net), row.currency),
        tax: amount(new Decimal(row.tax), row.currency),
        gross: amount(new Decimal(row.gross), row.currency),
      })),
    });
  },
});

export const invoiceRoutes = [listInvoices, getInvoice, updateInvoice, invoiceOverview, invoiceReports];
