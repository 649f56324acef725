// Refunds' rows: the checks of a refund request (what each line may still give back), the refunding
// invoice (state IS_REFUND, `refundedInvoice` set, negative amounts, one line per refunded line with
// `refundedLine`), and the outcome on both invoices. The refund workflow's activities write through here;
// the API runs the same checks before it starts a workflow.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from './entities/Balance.js';
import { BalanceUpdate } from './entities/BalanceUpdate.js';
import { Invoice } from './entities/Invoice.js';
import { InvoiceLine } from './entities/InvoiceLine.js';
import { Payment } from './entities/Payment.js';
import { Rental } from './entities/Rental.js';
import { Booking } from './entities/Booking.js';
import { recordInvoiceCreated } from './invoices.js';
import { appendBalanceUpdate } from './balance-ledger.js';
import { booksOfInvoice, paidPerLine, refundSplit, type InvoiceBooks } from './finance-books.js';
import { eventRecorded, recordEvent } from './events.js';
import { cancelRefundedPackage } from './voucher-packages.js';
import { returnRentalBenefits } from './vouchers.js';
import { DomainError } from '../domain/errors.js';
import { invoiceOperationRefusal, type RefundItem } from '../domain/finance.js';
import { formatAmount, minorDigitsOf } from '../domain/money.js';

/** A refund item checked against its line: the line and the amount as a decimal. */
export interface CheckedRefundItem {
  line: InvoiceLine;
  amount: Decimal;
}

/**
 * How much each line of an invoice gave back already: the lines of its refunding invoices whose refund
 * completed (settledAt set) or is still in progress, by refunded line id. Amounts are positive.
 */
export async function refundedPerLine(em: EntityManager, invoiceId: number): Promise<Map<number, Decimal>> {
  const rows = await em.execute<{ refunded_line_id: number; refunded: string }[]>(
    `select l.refunded_line_id, (-sum(l.gross))::text as refunded
       from invoice_line l join invoice r on r.id = l.invoice_id
      where r.refunded_invoice_id = ? and l.refunded_line_id is not null
        and (r.settled_at is not null or r.payment_reference = 'pending')
      group by l.refunded_line_id`,
    [invoiceId],
  );
  return new Map(rows.map((row) => [row.refunded_line_id, new Decimal(row.refunded)]));
}

/**
 * Checks a refund request against the invoice (the caller holds its row lock when the check must be
 * authoritative): the state allows a refund (I122), every item names a line of this invoice once (I405)
 * with a positive amount (I127) in the currency's digits (I131), and no line gives back more than it was
 * actually paid (its share of what the invoice was paid, after vouchers and discounts) less what earlier
 * refunds gave back (I127); in total never more than was paid (I127).
 */
export async function checkRefund(
  em: EntityManager,
  invoice: Invoice,
  items: readonly RefundItem[],
  books?: InvoiceBooks,
): Promise<CheckedRefundItem[]> {
  const refused = invoice.refundedInvoice ? 'I122' : invoiceOperationRefusal(invoice.state, 'REFUND');
  if (refused)
    throw new DomainError(
      refused,
      invoice.state === 'REFUND_IN_PROGRESS'
        ? 'another refund of this invoice is in progress: try again once it has ended'
        : `the invoice is ${invoice.state}`,
    );
  if (items.length === 0) throw new DomainError('I127', 'a refund needs at least one refund item');
  const lines = await em.find(InvoiceLine, { invoice: invoice.id });
  const byId = new Map(lines.map((line) => [line.id, line]));
  const refunded = await refundedPerLine(em, invoice.id);
  const paid = books ?? (await booksOfInvoice(em, invoice.id));
  const shares = paidPerLine(lines, paid.paid, invoice.currency);
  const seen = new Set<number>();
  const digits = minorDigitsOf(invoice.currency);
  const checked = items.map((item) => {
    const line = byId.get(item.lineItemId);
    if (!line)
      throw new DomainError('I405', `line item ${item.lineItemId} is not a line of invoice ${invoice.id}`);
    if (seen.has(line.id)) throw new DomainError('I405', `line item ${line.id} is named twice`);
    seen.add(line.id);
    let amount: Decimal;
    try {
      amount = new Decimal(item.amount);
    } catch {
      throw new DomainError('I127', `refund amount ${JSON.stringify(item.amount)} is not a decimal`);
    }
    if (!amount.isFinite() || amount.lte(0))
      throw new DomainError('I127', `refund amount ${item.amount} must be positive`);
    if (amount.decimalPlaces() > digits)
      throw new DomainError('I131', `refund amount ${item.amount} has more than ${digits} decimals`);
    const left = (shares.get(line.id) ?? new Decimal(0)).minus(refunded.get(line.id) ?? 0);
    if (amount.gt(left))
      throw new DomainError(
        'I127',
        `line item ${line.id} was paid ${formatAmount(shares.get(line.id) ?? '0', invoice.currency)} and can give back ${formatAmount(Decimal.max(left, 0), invoice.currency)} at most`,
      );
    return { line, amount };
  });
  const total = checked.reduce((sum, item) => sum.plus(item.amount), new Decimal(0));
  const left = new Decimal(paid.paid).minus(paid.committed);
  if (total.gt(left))
    throw new DomainError(
      'I127',
      `the invoice was paid ${formatAmount(paid.paid, invoice.currency)} and can give back ${formatAmount(Decimal.max(left, 0), invoice.currency)} at most`,
    );
  return checked;
}

/** What the refund's first step recorded. */
export interface RecordedRefund {
  refundInvoiceId: number;
  /** Decimal string: what goes back through the gateway (the charge's part). */
  gatewayAmount: string;
  /** Decimal string: what goes back to the balance whose credit paid part of the invoice. */
  balanceAmount: string;
  /** The gateway and charge to refund, when the invoice was charged through one. */
  gateway: string | null;
  chargeReference: string | null;
  currency: string;
}

/** The refund's request as the workflow sends it. */
export interface RefundRecordRequest {
  tenant: string;
  refundInvoiceId: number;
  invoiceId: number;
  reason: string;
  items: readonly RefundItem[];
  requestedBy: string;
  at: Date;
  idempotencyKey: string;
}

/** Splits a line's gross by its tax percentage into net and tax, in the currency's digits. */
function splitGross(gross: Decimal, taxPercentage: string, currency: string) {
  const net = gross.div(new Decimal(1).plus(new Decimal(taxPercentage).div(100)));
  const netText = formatAmount(net, currency);
  return {
    net: netText,
    tax: formatAmount(gross.minus(netText), currency),
    gross: formatAmount(gross, currency),
  };
}

/**
 * The refund's first step, in one transaction: locks the original invoice `for update` (so two refunds
 * are checked one after the other and never add up past it), checks the request (`checkRefund`), creates
 * the refunding invoice with the id the API allocated (IS_REFUND, negative amounts, the reason, one line
 * per item with `refundedLine`) and moves the original to REFUND_IN_PROGRESS. It also works out how the
 * money goes back: through the gateway up to what the invoice's payment charged less what earlier
 * refunds gave back there, the rest to the balance whose credit paid it. Idempotent: a retry finds the
 * refunding invoice it created.
 */
export async function recordRefund(em: EntityManager, request: RefundRecordRequest): Promise<RecordedRefund> {
  const invoice = await em.findOne(Invoice, request.invoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!invoice) throw new DomainError('I404', `invoice ${request.invoiceId} not found`);
  const payment = await em.findOne(
    Payment,
    { invoice: invoice.id, state: { $in: ['PAID', 'DISPUTED'] }, gatewayReference: { $ne: null } },
    { orderBy: { id: 'desc' } },
  );
  const existing = await em.findOne(Invoice, request.refundInvoiceId);
  let refund: Invoice;
  if (existing) {
    refund = existing;
  } else {
    const books = await booksOfInvoice(em, invoice.id);
    const checked = await checkRefund(em, invoice, request.items, books);
    const currency = invoice.currency;
    const lines = checked.map(({ line, amount }) => {
      const full = amount.eq(line.gross);
      const parts = full
        ? { net: line.net, tax: line.tax, gross: line.gross }
        : splitGross(amount, line.taxPercentage, currency);
      return { line, ...parts };
    });
    const sum = (pick: (l: (typeof lines)[number]) => string) =>
      lines.reduce((acc, l) => acc.plus(pick(l)), new Decimal(0));
    const total = sum((l) => l.gross);
    // How the money goes back, fixed now under the row lock: the gateway first, then the balance, then
    // outside fleetflow, each up to what it took less what earlier refunds gave back through it.
    const split = refundSplit(books, total);
    if (!split)
      throw new DomainError(
        'I127',
        `the invoice was paid ${formatAmount(books.paid, currency)} and can give back less than ${formatAmount(total, currency)}`,
      );
    refund = em.create(Invoice, {
      id: request.refundInvoiceId,
      number: `${invoice.number}-R${request.refundInvoiceId}`,
      type: invoice.type,
      state: 'IS_REFUND',
      businessUnit: invoice.businessUnit,
      customer: invoice.customer,
      rental: invoice.rental ?? null,
      booking: invoice.booking ?? null,
      userGroup: invoice.userGroup ?? null,
      costCenter: invoice.costCenter ?? null,
      refundedInvoice: invoice,
      title: `Refund of ${invoice.number}`,
      description: request.reason,
      refundReason: request.reason,
      currency,
      totalNet: formatAmount(sum((l) => l.net).neg(), currency),
      totalTax: formatAmount(sum((l) => l.tax).neg(), currency),
      totalGross: formatAmount(total.neg(), currency),
      pricingBundleVersion: invoice.pricingBundleVersion ?? null,
      // 'pending' until the money went back: earlier-refund sums count it, so two refunds never overlap.
      paymentReference: 'pending',
      refundViaGateway: formatAmount(split.viaGateway, currency),
      refundToBalance: formatAmount(split.toBalance, currency),
      refundExternally: formatAmount(split.externally, currency),
      issuedAt: request.at,
      idempotencyKey: request.idempotencyKey,
    });
    lines.forEach((l, index) =>
      em.create(InvoiceLine, {
        invoice: refund,
        position: index + 1,
        code: l.line.code,
        group: l.line.group,
        phase: l.line.phase ?? null,
        description: `Refund: ${l.line.description}`.slice(0, 500),
        // A whole line gives back its quantity at its price; a part of it, one piece of that amount.
        ...(new Decimal(l.gross).eq(l.line.gross)
          ? {
              quantity: l.line.quantity,
              unit: l.line.unit,
              unitPrice: new Decimal(l.line.unitPrice).neg().toString(),
            }
          : {
              quantity: REFUND_PART_QUANTITY,
              unit: REFUND_PART_UNIT,
              unitPrice: formatAmount(new Decimal(l.gross).neg(), currency),
            }),
        net: formatAmount(new Decimal(l.net).neg(), currency),
        tax: formatAmount(new Decimal(l.tax).neg(), currency),
        gross: formatAmount(new Decimal(l.gross).neg(), currency),
        taxPercentage: l.line.taxPercentage,
        refundedLine: l.line,
      }),
    );
    invoice.state = 'REFUND_IN_PROGRESS';
    await em.flush();
    // The credit note is an invoice too: its INVOICE_CREATED names the invoice it refunds.
    const rental = invoice.rental ? await em.findOne(Rental, invoice.rental.id) : null;
    const booking = invoice.booking ? await em.findOne(Booking, invoice.booking.id) : null;
    recordInvoiceCreated(em, refund, {
      branchId: rental?.branch.id ?? booking?.branch.id ?? null,
      rentalIds: rental ? [rental.id] : [],
      bookingId: booking?.id ?? null,
      idempotencyKey: `${request.idempotencyKey}:INVOICE_CREATED`,
    });
    await em.flush();
  }
  return {
    refundInvoiceId: request.refundInvoiceId,
    gatewayAmount: formatAmount(refund.refundViaGateway ?? '0', invoice.currency),
    balanceAmount: formatAmount(refund.refundToBalance ?? '0', invoice.currency),
    gateway: payment?.gatewayReference ? payment.gateway : null,
    chargeReference: payment?.gatewayReference ?? null,
    currency: invoice.currency,
  };
}

/** A part of a line given back is one piece of that amount (the unit and quantity every line uses). */
const REFUND_PART_UNIT = 'PIECE';
const REFUND_PART_QUANTITY = '1.000';

/** How a refund ended, as its last step records it. */
export interface RefundOutcomeRecord {
  tenant: string;
  refundInvoiceId: number;
  succeeded: boolean;
  /** The gateway's refund id (or null when nothing went through the gateway). */
  reference: string | null;
  failureMessage?: string | null;
  /** What goes back to the balance (with a succeeded refund). */
  balanceAmount: string;
  requestedBy: string;
  at: Date;
}

/**
 * The refund's last step, in one transaction: a succeeded refund settles the refunding invoice
 * (settledAt, the gateway's reference), credits the balance's part (a REFUND ledger row) and moves the
 * original to REFUNDED when its lines gave back everything, else to ALLOWS_REFUND (paid, partly
 * refunded, refundable further); a failed one leaves the refunding invoice unsettled (its reference
 * `failed`, not counted by later checks) and the original EXCEPTION_REFUND (refundable again).
 * Idempotent.
 */
export async function recordRefundOutcome(
  em: EntityManager,
  outcome: RefundOutcomeRecord,
): Promise<'REFUNDED' | 'EXCEPTION_REFUND'> {
  const refund = await em.findOneOrFail(Invoice, outcome.refundInvoiceId);
  const original = await em.findOneOrFail(Invoice, refund.refundedInvoice!.id, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
  });
  const from = original.state;
  const event = (type: string, payload: Record<string, unknown>) =>
    recordRefundEvent(em, original, refund, outcome, type, { from, ...payload });
  if (!outcome.succeeded) {
    if (refund.settledAt) return 'REFUNDED';
    refund.paymentReference = 'failed';
    refund.description =
      `${refund.refundReason ?? ''} — refund failed: ${outcome.failureMessage ?? 'refused by the gateway'}`.slice(
        0,
        1000,
      );
    original.state = 'EXCEPTION_REFUND';
    await event('INVOICE_REFUND_FAILED', {
      to: original.state,
      failure: outcome.failureMessage ?? null,
    });
    await em.flush();
    return 'EXCEPTION_REFUND';
  }
  if (!refund.settledAt) {
    refund.settledAt = outcome.at;
    refund.paymentReference = outcome.reference ?? 'outside-gateway';
    const toBalance = new Decimal(refund.refundToBalance ?? outcome.balanceAmount);
    if (toBalance.gt(0)) {
      const credit = await em.findOne(BalanceUpdate, { invoice: original.id, kind: 'INVOICE' });
      const balance = credit ? await em.findOne(Balance, credit.balance.id) : null;
      if (balance)
        await appendBalanceUpdate(em, {
          balance,
          kind: 'REFUND',
          amount: formatAmount(toBalance, original.currency),
          description: `Refund ${refund.number}`,
          createdBy: outcome.requestedBy,
          idempotencyKey: `refund:${refund.id}:balance`,
          invoiceId: original.id,
        });
    }
    await em.flush();
  }
  const books = await booksOfInvoice(em, original.id);
  original.state = new Decimal(books.refunded).gte(books.paid) ? 'REFUNDED' : 'ALLOWS_REFUND';
  if (original.state === 'REFUNDED') original.settledAt = outcome.at;
  await event('INVOICE_REFUNDED', {
    to: original.state,
    gross: formatAmount(new Decimal(refund.totalGross).neg(), original.currency),
    viaGateway: formatAmount(refund.refundViaGateway ?? '0', original.currency),
    toBalance: formatAmount(refund.refundToBalance ?? '0', original.currency),
    externally: formatAmount(refund.refundExternally ?? '0', original.currency),
    reference: refund.paymentReference,
    refundedGross: formatAmount(books.refunded, original.currency),
    paidGross: formatAmount(books.paid, original.currency),
  });
  await em.flush();
  if (original.state === 'REFUNDED') {
    // A package refunded in full takes back the vouchers it granted (docs/benefits.md, "Packages"); a
    // rental refunded in full gives its vouchers back what they gave its price ("Refunds").
    await cancelRefundedPackage(em, original.id);
    if (original.rental) await returnRentalBenefits(em, original.rental.id, outcome.at);
  }
  return 'REFUNDED';
}

/** The refund's outcome on the original invoice's timeline, once per refunding invoice. */
async function recordRefundEvent(
  em: EntityManager,
  original: Invoice,
  refund: Invoice,
  outcome: RefundOutcomeRecord,
  type: string,
  payload: Record<string, unknown>,
): Promise<void> {
  const idempotencyKey = `refund:${refund.id}:${type}`;
  if (await eventRecorded(em, idempotencyKey)) return;
  recordEvent(em, {
    type,
    createdAt: outcome.at,
    customerId: original.customer.id,
    rentalId: original.rental?.id ?? null,
    bookingId: original.booking?.id ?? null,
    adminSubject: outcome.requestedBy,
    payload: { invoiceId: original.id, refundInvoiceId: refund.id, currency: original.currency, ...payload },
    idempotencyKey,
  });
}
