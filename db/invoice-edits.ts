// Edits of an OPEN invoice, each in the caller's transaction under the invoice's row lock (a bill of the
// same invoice waits, and an edit after a bill is refused with I120): title and description, and its
// line items (add, possibly from a template; change one's amount by net or gross; remove one). After a
// line change the totals are the sums of the lines again, and positions stay 1, 2, 3, …
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { Invoice } from './entities/Invoice.js';
import { InvoiceLine } from './entities/InvoiceLine.js';
import { InvoiceLineTemplate } from './entities/InvoiceLineTemplate.js';
import { recordEvent } from './events.js';
import { DomainError } from '../domain/errors.js';
import { invoiceOperationRefusal } from '../domain/finance.js';
import type { InvoiceEventType } from '../domain/invoice-events.js';
import {
  deriveLinePrice,
  invoiceTotalsOf,
  formatQuantity,
  lineUnitPrice,
  type LineAmountInput,
  type LineTaxContext,
} from '../domain/invoice-lines.js';
import type { PriceLineGroup } from '../domain/pricing.js';

/** Who edits, for the events. */
export interface InvoiceEditor {
  actor: string;
}

/** The invoice locked for an edit: I404 when it does not exist, I120 unless OPEN (refunding invoices never are). */
export async function lockInvoiceForEdit(em: EntityManager, invoiceId: number): Promise<Invoice> {
  const invoice = await em.findOne(Invoice, invoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!invoice) throw new DomainError('I404', `invoice ${invoiceId} not found`);
  const refusal = invoice.refundedInvoice ? 'I120' : invoiceOperationRefusal(invoice.state, 'EDIT');
  if (refusal) throw new DomainError(refusal, `the invoice is ${invoice.state}`);
  return invoice;
}

/** The rounding of an invoice's lines: its business unit's tax percentage and scale, its own currency. */
export async function taxContextOf(em: EntityManager, invoice: Invoice): Promise<LineTaxContext> {
  const unit = await em.findOneOrFail(BusinessUnit, invoice.businessUnit.id);
  return { taxPercentage: unit.taxPercentage, scale: unit.scale, currency: invoice.currency };
}

function invoiceEvent(
  em: EntityManager,
  invoice: Invoice,
  editor: InvoiceEditor,
  type: InvoiceEventType,
  payload: Record<string, unknown>,
) {
  recordEvent(em, {
    type,
    customerId: invoice.customer.id,
    rentalId: invoice.rental?.id ?? null,
    bookingId: invoice.booking?.id ?? null,
    adminSubject: editor.actor,
    payload: { invoiceId: invoice.id, ...payload },
  });
}

/** Title and description of an OPEN invoice (INVOICE_UPDATED). */
export async function editInvoiceText(
  em: EntityManager,
  invoiceId: number,
  change: { title?: string; description?: string | null },
  editor: InvoiceEditor,
): Promise<Invoice> {
  const invoice = await lockInvoiceForEdit(em, invoiceId);
  const before = { title: invoice.title, description: invoice.description ?? null };
  if (change.title !== undefined) invoice.title = change.title;
  if (change.description !== undefined) invoice.description = change.description;
  invoiceEvent(em, invoice, editor, 'INVOICE_UPDATED', {
    before,
    after: { title: invoice.title, description: invoice.description ?? null },
  });
  await em.flush();
  return invoice;
}

/**
 * Recomputes an invoice's totals as the sums of its lines (flushing first, so the lines written in this
 * transaction count) and renumbers the positions 1…n in their order; returns the lines.
 */
export async function settleInvoiceLines(em: EntityManager, invoice: Invoice): Promise<InvoiceLine[]> {
  await em.flush();
  // Two steps: out of the way first, then 1…n, so the unique (invoice, position) never collides midway.
  await em.execute(`update invoice_line set position = position + 1000000 where invoice_id = ?`, [
    invoice.id,
  ]);
  await em.execute(
    `update invoice_line l set position = r.n
       from (select id, row_number() over (order by position, id) as n from invoice_line where invoice_id = ?) r
      where l.id = r.id`,
    [invoice.id],
  );
  const lines = await em.find(
    InvoiceLine,
    { invoice: invoice.id },
    { orderBy: { position: 'asc' }, refresh: true },
  );
  const totals = invoiceTotalsOf(lines, invoice.currency);
  invoice.totalNet = totals.net;
  invoice.totalTax = totals.tax;
  invoice.totalGross = totals.gross;
  await em.flush();
  return lines;
}

/** A new line: from a template (its amount unless one is sent) or from net xor gross and a description. */
export interface NewInvoiceLine extends LineAmountInput {
  templateId?: number;
  code?: string;
  description?: string;
  group?: PriceLineGroup;
  quantity?: string;
}

/**
 * Adds a line to an OPEN invoice (INVOICE_LINE_ITEM_ADDED): its amount from net xor gross (I126), the
 * other side derived with the business unit's tax; a template (I406 unless an enabled one of the
 * invoice's business unit) gives code, description and amount, each overridable.
 */
export async function addInvoiceLine(
  em: EntityManager,
  invoiceId: number,
  input: NewInvoiceLine,
  editor: InvoiceEditor,
): Promise<{ invoice: Invoice; line: InvoiceLine }> {
  const invoice = await lockInvoiceForEdit(em, invoiceId);
  let template: InvoiceLineTemplate | null = null;
  if (input.templateId !== undefined) {
    template = await em.findOne(InvoiceLineTemplate, {
      id: input.templateId,
      businessUnit: invoice.businessUnit.id,
      enabled: true,
    });
    if (!template) throw new DomainError('I406', `line-item template ${input.templateId} not found`);
  }
  const sent = input.net !== undefined || input.gross !== undefined;
  const amounts: LineAmountInput =
    sent || !template ? input : template.net != null ? { net: template.net } : { gross: template.gross };
  const price = deriveLinePrice(amounts, await taxContextOf(em, invoice));
  const description = input.description ?? template?.description;
  if (!description) throw new DomainError('0022', 'a line item without a template needs a description');
  const quantity = formatQuantity(input.quantity ?? '1');
  const last = await em.findOne(InvoiceLine, { invoice: invoice.id }, { orderBy: { position: 'desc' } });
  const line = em.create(InvoiceLine, {
    invoice,
    position: (last?.position ?? 0) + 1,
    code: input.code ?? template?.code ?? 'MANUAL',
    group: input.group ?? 'ADJUSTMENT',
    phase: null,
    description,
    quantity,
    unit: 'PIECE',
    unitPrice: lineUnitPrice(price.basis === 'NET' ? price.net : price.gross, quantity, invoice.currency),
    net: price.net,
    tax: price.tax,
    gross: price.gross,
    taxPercentage: price.taxPercentage,
    template,
  });
  await settleInvoiceLines(em, invoice);
  invoiceEvent(em, invoice, editor, 'INVOICE_LINE_ITEM_ADDED', {
    lineItemId: line.id,
    templateId: template?.id ?? null,
    net: price.net,
    gross: price.gross,
  });
  await em.flush();
  return { invoice, line };
}

/** The line of an invoice, I405 when the invoice has no such line. */
async function lineOf(em: EntityManager, invoice: Invoice, lineItemId: number): Promise<InvoiceLine> {
  const line = await em.findOne(InvoiceLine, { id: lineItemId, invoice: invoice.id });
  if (!line) throw new DomainError('I405', `line item ${lineItemId} is not a line of invoice ${invoice.id}`);
  return line;
}

/**
 * Changes one line's amount (net xor gross, I126; the other side derived with the business unit's tax,
 * the unit price kept per unit of its quantity) and optionally its description or quantity
 * (INVOICE_LINE_ITEM_UPDATED); the invoice's totals follow.
 */
export async function updateInvoiceLine(
  em: EntityManager,
  invoiceId: number,
  lineItemId: number,
  input: LineAmountInput & { description?: string; quantity?: string },
  editor: InvoiceEditor,
): Promise<{ invoice: Invoice; line: InvoiceLine }> {
  const invoice = await lockInvoiceForEdit(em, invoiceId);
  const line = await lineOf(em, invoice, lineItemId);
  const price = deriveLinePrice(input, await taxContextOf(em, invoice));
  const before = {
    net: line.net,
    tax: line.tax,
    gross: line.gross,
    description: line.description,
    quantity: line.quantity,
  };
  if (input.description !== undefined) line.description = input.description;
  if (input.quantity !== undefined) line.quantity = formatQuantity(input.quantity);
  line.net = price.net;
  line.tax = price.tax;
  line.gross = price.gross;
  line.taxPercentage = price.taxPercentage;
  line.unitPrice = lineUnitPrice(
    price.basis === 'NET' ? price.net : price.gross,
    line.quantity,
    invoice.currency,
  );
  await settleInvoiceLines(em, invoice);
  invoiceEvent(em, invoice, editor, 'INVOICE_LINE_ITEM_UPDATED', {
    lineItemId: line.id,
    before,
    after: {
      net: line.net,
      tax: line.tax,
      gross: line.gross,
      description: line.description,
      quantity: line.quantity,
    },
  });
  await em.flush();
  return { invoice, line };
}

/** Removes one line of an OPEN invoice (INVOICE_LINE_ITEM_REMOVED); totals and positions follow. */
export async function removeInvoiceLine(
  em: EntityManager,
  invoiceId: number,
  lineItemId: number,
  editor: InvoiceEditor,
): Promise<Invoice> {
  const invoice = await lockInvoiceForEdit(em, invoiceId);
  const line = await lineOf(em, invoice, lineItemId);
  const removed = {
    lineItemId: line.id,
    code: line.code,
    description: line.description,
    net: line.net,
    gross: line.gross,
  };
  em.remove(line);
  await settleInvoiceLines(em, invoice);
  invoiceEvent(em, invoice, editor, 'INVOICE_LINE_ITEM_REMOVED', removed);
  await em.flush();
  return invoice;
}
