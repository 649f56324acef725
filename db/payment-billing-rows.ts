// Billing an invoice into a payment (OPEN → BILLED): the customer's balance credit first, then a payment
// for what is left, or none for a payer invoiced by transfer; a payment's attempts and state: db/payments.ts.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Invoice } from './entities/Invoice.js';
import type { Payment } from './entities/Payment.js';
import { appendBalanceUpdate, balanceValue } from './balance-ledger.js';
import { insertEvents, type EventFields } from './events.js';
import { invoiceDueDateOf } from './dunning.js';
import { payerIsInvoiced } from './payer-readiness.js';
import {
  defaultBalanceOf,
  earlierPaymentOrNextId,
  newPayment,
  ownerOfInvoice,
  type NewPayment,
} from './payments.js';
import { DomainError } from '../domain/errors.js';
import { invoiceOperationRefusal } from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';

/** What billing an invoice wrote: the invoice, and the payment for what the balance credit left (or none). */
export interface BilledInvoice {
  invoice: Invoice;
  payment: Payment | null;
}

/**
 * Bills an OPEN invoice in the caller's transaction (it locks the invoice row): BILLED with `billedAt`,
 * the owner's default balance credit applied first (a negative INVOICE ledger row), and a payment
 * (OPEN) for what is left; when the credit covers it all the invoice is PAID and no payment is made.
 * I121 unless OPEN, I128 unless the total is positive. Idempotent on `idempotencyKey`: a retry answers
 * what the first call billed. `onBilled` adds the caller's rows (its event) to the same single flush.
 */
export async function billInvoiceRecord(
  em: EntityManager,
  invoiceId: number,
  request: Pick<NewPayment, 'tenant' | 'requestedBy' | 'idempotencyKey' | 'gateway' | 'workflowIdOf'> & {
    at: Date;
    onBilled?: (billed: BilledInvoice) => void;
    /** More fields for the INVOICE_BILLED event's payload (an issue's id, a deposit booking). */
    eventPayload?: Record<string, unknown>;
  },
): Promise<BilledInvoice> {
  const invoice = await em.findOne(Invoice, invoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!invoice) throw new DomainError('I404', `invoice ${invoiceId} not found`);
  const { earlier, nextId } = await earlierPaymentOrNextId(em, request.idempotencyKey);
  if (earlier) return { invoice, payment: earlier };
  if (invoice.state !== 'OPEN' || invoice.refundedInvoice)
    throw new DomainError(
      invoiceOperationRefusal(invoice.state, 'BILL') ?? 'I121',
      `the invoice is ${invoice.state}`,
    );
  const total = new Decimal(invoice.totalGross);
  if (total.lte(0)) throw new DomainError('I128', `the invoice's total is ${invoice.totalGross}`);
  const owner = ownerOfInvoice(invoice);
  let left = total;
  const from = invoice.state;
  const balance = await defaultBalanceOf(em, owner, invoice.businessUnit.id);
  if (balance && balance.currency === invoice.currency) {
    await em.lock(balance, LockMode.PESSIMISTIC_WRITE);
    const credit = Decimal.min(new Decimal(await balanceValue(em, balance.id)), total);
    if (credit.gt(0)) {
      await appendBalanceUpdate(em, {
        balance,
        kind: 'INVOICE',
        amount: formatAmount(credit.neg(), invoice.currency),
        description: `Invoice ${invoice.number}`,
        createdBy: request.requestedBy,
        idempotencyKey: `invoice:${invoice.id}:balance-credit`,
        invoiceId: invoice.id,
      });
      left = total.minus(credit);
    }
  }
  invoice.billedAt = request.at;
  let billed: BilledInvoice;
  if (left.lte(0)) {
    invoice.state = 'PAID';
    invoice.settledAt = request.at;
    billed = { invoice, payment: null };
  } else if (await payerIsInvoiced(em, owner)) {
    // Invoiced by transfer (paymentState INVOICING): BILLED with its due date and no payment, never a
    // card charge; the operator settles it (set-paid-externally: PAID_EXTERNALLY). db/payer-readiness.ts.
    invoice.state = 'BILLED';
    invoice.dueAt = await invoiceDueDateOf(em, request.tenant, invoice.id, request.at);
    billed = { invoice, payment: null };
  } else {
    invoice.state = 'BILLED';
    // Written with the invoice in one flush: the partial unique index refuses a second running payment.
    const payment = newPayment(em, nextId, {
      tenant: request.tenant,
      purpose: 'INVOICE',
      businessUnitId: invoice.businessUnit.id,
      owner,
      invoiceId: invoice.id,
      amount: left.toString(),
      currency: invoice.currency,
      gateway: request.gateway,
      requestedBy: request.requestedBy,
      idempotencyKey: request.idempotencyKey,
      workflowIdOf: request.workflowIdOf,
    });
    billed = { invoice, payment };
  }
  // Every bill, by hand or automatic, is on the invoice's timeline once (its key is the invoice's): one
  // statement in the caller's transaction, which skips the event when an earlier bill recorded the key.
  const billedEvent: EventFields = {
    type: 'INVOICE_BILLED',
    createdAt: request.at,
    customerId: invoice.customer.id,
    rentalId: invoice.rental?.id ?? null,
    bookingId: invoice.booking?.id ?? null,
    adminSubject: request.requestedBy,
    payload: {
      ...request.eventPayload,
      invoiceId: invoice.id,
      from,
      to: invoice.state,
      state: invoice.state,
      paymentId: billed.payment?.id ?? null,
      gross: invoice.totalGross,
      fromBalance: formatAmount(total.minus(left), invoice.currency),
      toPay: formatAmount(Decimal.max(left, 0), invoice.currency),
      currency: invoice.currency,
    },
    idempotencyKey: `invoice:${invoice.id}:billed`,
  };
  await insertEvents(em, request.tenant, [billedEvent], { outbox: 'always' });
  request.onBilled?.(billed);
  await em.flush();
  return billed;
}
