// Issue invoices (the spec: "create and bill a charge on an issue", paths not shown): an OPEN invoice of
// the business unit behind the issue's branch, addressed to the issue's affected customer (F202 without
// one), with line items as finance adds them; and its bill through finance's billInvoice, so a payment
// workflow charges it, optionally against the issue's deposit (F204). The answer of the bill waits for
// the payment's first attempt and surfaces a gateway failure as F205. Finance permissions on the business
// unit. See docs/issues.md.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Customer } from '../../../db/entities/Customer.js';
import { CostCenter } from '../../../db/entities/CostCenter.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { IssueInvoice } from '../../../db/entities/IssueInvoice.js';
import { Payment } from '../../../db/entities/Payment.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import { addInvoiceLine } from '../../../db/invoice-edits.js';
import { nextInvoiceNumber, recordInvoiceCreated } from '../../../db/invoices.js';
import { bookAgainstDeposit, releaseDepositBooking } from '../../../db/issues.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import type { PaymentState } from '../../../domain/finance.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Str } from '../../kernel/schemas.js';
import { InvoiceSchema, invoiceDto, invoiceDtos } from '../../shared/invoice-representation.js';
import { billInvoice, billInvoiceErrors } from '../../shared/payment-commands.js';
import { NewLineItem } from './invoice-line-items.js';
import { IssueIdParams, issueById, issueUnit, onTheIssueUnit } from './issue-representation.js';

const tags = ['Issues', 'Invoices'];

/** How long the bill's answer waits for the payment's first attempt before answering what it sees. */
export const ISSUE_BILL_WAIT_MS = 10_000;

export const listIssueInvoices = defineRoute({
  operationId: 'listIssueInvoices',
  method: 'get',
  path: '/issues/{issueId}/invoices',
  interface: 'back',
  summary: 'The invoices charged on an issue, oldest first',
  tags,
  params: IssueIdParams,
  access: onTheIssueUnit('INVOICE_READ'),
  responses: { 200: { description: 'The invoices', schema: Type.Array(InvoiceSchema) } },
  errors: ['F404'],
  async handler(ctx) {
    const issue = await issueById(ctx);
    const links = await ctx.em.find(IssueInvoice, { issue: issue.id }, { orderBy: { id: 'asc' } });
    const invoices = await ctx.em.find(
      Invoice,
      { id: { $in: links.map((link) => link.invoice.id) } },
      { orderBy: { id: 'asc' } },
    );
    return ok(await invoiceDtos(ctx.em, invoices));
  },
});

export const createIssueInvoice = defineRoute({
  operationId: 'createIssueInvoice',
  method: 'post',
  path: '/issues/{issueId}/invoices',
  interface: 'back',
  summary: 'Charge an issue: an OPEN invoice with line items for the affected customer',
  description:
    "The invoice is the business unit's behind the issue's branch (numbered in its sequence), addressed to the issue's customer (F202 without one); BUSINESS with the issue's business account and cost center when it names one, else REGULAR. Each line as `POST /invoices/{invoiceId}/line-items` takes it (net xor gross, I126; a template of the business unit, I406). It stays OPEN (editable like any invoice) until billed with `POST /issues/{issueId}/invoices/{invoiceId}/bill`.",
  tags,
  params: IssueIdParams,
  body: Type.Object(
    {
      title: Type.Optional(Str(200, { minLength: 1, description: 'Default: "Issue {id}: {issue title}".' })),
      description: Type.Optional(Str(1000)),
      lines: Type.Array(NewLineItem, { minItems: 1, maxItems: 50 }),
    },
    { additionalProperties: false },
  ),
  access: onTheIssueUnit('INVOICE_UPDATE'),
  responses: { 201: { description: 'The OPEN invoice', schema: InvoiceSchema } },
  errors: ['F404', 'F202', 'I126', 'I131', 'I406'],
  async handler(ctx) {
    const issue = await issueById(ctx);
    const unit = await issueUnit(ctx);
    const customerId = issue.customerId;
    if (customerId == null)
      throw new DomainError('F202', `issue ${issue.id} names no affected customer (guserId)`);
    const invoiceId = await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
      const at = new Date();
      const invoice = tx.create(Invoice, {
        number: await nextInvoiceNumber(tx, ctx.tenant, await tx.findOneOrFail(BusinessUnit, unit.id), at),
        type: issue.userGroupId != null ? 'BUSINESS' : 'REGULAR',
        state: 'OPEN',
        businessUnit: tx.getReference(BusinessUnit, unit.id),
        customer: tx.getReference(Customer, customerId),
        userGroup: issue.userGroupId != null ? tx.getReference(UserGroup, issue.userGroupId) : null,
        costCenter: issue.costCenterId != null ? tx.getReference(CostCenter, issue.costCenterId) : null,
        title: ctx.body.title ?? `Issue ${issue.id}: ${issue.title}`.slice(0, 200),
        description: ctx.body.description ?? null,
        currency: unit.currency,
        totalNet: '0',
        totalTax: '0',
        totalGross: '0',
        issuedAt: at,
        idempotencyKey: `issue:${issue.id}:invoice:${randomUUID()}`,
      });
      tx.create(IssueInvoice, { issue: issue.id, invoice, createdBy: ctx.actor });
      await tx.flush();
      for (const line of ctx.body.lines) await addInvoiceLine(tx, invoice.id, line, { actor: ctx.actor });
      // Its totals as the lines made them, for the INVOICE_CREATED webhook.
      await tx.refresh(invoice);
      recordInvoiceCreated(tx, invoice, {
        branchId: issue.branchId,
        rentalIds: issue.rentalId != null ? [issue.rentalId] : [],
        bookingId: issue.bookingId ?? null,
        idempotencyKey: `${invoice.idempotencyKey}:INVOICE_CREATED`,
      });
      await tx.flush();
      return invoice.id;
    });
    const invoice = await ctx.em.findOneOrFail(Invoice, invoiceId, { refresh: true });
    return created(await invoiceDto(ctx.em, invoice), { Location: `${ctx.baseUrl}/invoices/${invoiceId}` });
  },
});

/** The payment after its first attempt: re-read until it leaves OPEN and IN_PAYMENT, at most `ISSUE_BILL_WAIT_MS`. */
async function afterFirstAttempt(ctx: RouteContext, paymentId: number): Promise<Payment> {
  const waiting: readonly PaymentState[] = ['OPEN', 'IN_PAYMENT'];
  const until = Date.now() + ISSUE_BILL_WAIT_MS;
  for (;;) {
    const payment = await ctx.em.findOneOrFail(Payment, paymentId, { refresh: true });
    if (!waiting.includes(payment.state) || Date.now() >= until) return payment;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const billIssueInvoice = defineRoute({
  operationId: 'billIssueInvoice',
  method: 'post',
  path: '/issues/{issueId}/invoices/{invoiceId}/bill',
  interface: 'back',
  summary: "Bill an issue's invoice: BILLED, and its payment workflow charges the customer",
  description:
    "Finance's bill (as `POST /invoices/{invoiceId}/bill`: the default balance credit first, then a payment whose workflow starts at once; I121 unless OPEN, I128 unless the total is positive), for an invoice of this issue only (F203). With `chargeAgainstDeposit=true` the invoice's gross is first booked against the issue's deposit, which must be ACTIVE, in the invoice's currency and have that much left (F204; see docs/issues.md). The answer waits up to 10 s for the payment's first attempt: a charge the gateway refused outright (the payment FAILED) is F205; a soft decline or a challenge answers the invoice as it is (IN_PAYMENT, THREE_DS_WAITING_FOR_USER, …).",
  tags,
  params: Type.Object({ issueId: Id(), invoiceId: Id() }),
  query: Type.Object({
    chargeAgainstDeposit: Type.Optional(Type.Boolean({ default: false })),
  }),
  access: onTheIssueUnit('INVOICE_BILL'),
  responses: { 200: { description: 'The billed invoice with its payment', schema: InvoiceSchema } },
  errors: ['F404', 'F203', 'F204', 'F205', ...billInvoiceErrors],
  async handler(ctx) {
    const issue = await issueById(ctx);
    const link = await ctx.em.findOne(IssueInvoice, { issue: issue.id, invoice: ctx.params.invoiceId });
    if (!link)
      throw new DomainError('F203', `invoice ${ctx.params.invoiceId} is not an invoice of issue ${issue.id}`);
    const invoice = await ctx.em.findOneOrFail(Invoice, link.invoice.id);
    if (ctx.query.chargeAgainstDeposit)
      await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
        bookAgainstDeposit(tx, ctx.tenant, link.id, issue.depositId ?? null),
      );
    let billed: Awaited<ReturnType<typeof billInvoice>>;
    try {
      billed = await billInvoice(ctx, invoice, ctx.actor, undefined, {
        issueId: issue.id,
        chargeAgainstDeposit: ctx.query.chargeAgainstDeposit ?? false,
      });
    } catch (error) {
      if (ctx.query.chargeAgainstDeposit)
        await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) => releaseDepositBooking(tx, link.id));
      throw error;
    }
    if (billed.payment) {
      const payment = await afterFirstAttempt(ctx, billed.payment.id);
      if (payment.state === 'FAILED')
        throw new DomainError(
          'F205',
          `the charge of invoice ${invoice.id} failed at the gateway (${payment.failureCode ?? 'declined'}${payment.failureMessage ? `: ${payment.failureMessage}` : ''}); the payment is FAILED, the invoice EXCEPTION_PAYING`,
        );
    }
    return ok(await invoiceDto(ctx.em, await ctx.em.findOneOrFail(Invoice, invoice.id, { refresh: true })));
  },
});

export const issueInvoiceRoutes = [listIssueInvoices, createIssueInvoice, billIssueInvoice];
