// Billing an invoice into a payment (OPEN → BILLED): the customer's balance credit first, then a payment
// for what is left, or none for a payer invoiced by transfer; a payment's attempts and state: db/payments.ts.
// Written as rows (one locking read, the writes, the event), so the automatic bill after every rental's
// end loads no entity; callers that go on with the entities read them after the bill.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from './entities/Balance.js';
import { Invoice } from './entities/Invoice.js';
import { Payment } from './entities/Payment.js';
import { appendBalanceUpdate, balanceValue } from './balance-ledger.js';
import { insertEvents, type EventFields } from './events.js';
import { invoiceDueDateOf } from './dunning.js';
import { insertTenantRow, preparedRows, updateTenantRow } from './prepared.js';
import type { NewPayment } from './payments.js';
import { DomainError } from '../domain/errors.js';
import { invoiceOperationRefusal, type PaymentState } from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';
import type { InvoiceState } from '../domain/rental-pricing.js';

/** What billing an invoice wrote: the invoice, and the payment for what the balance credit left (or none). */
export interface BilledInvoice {
  invoice: Invoice;
  payment: Payment | null;
}

/** A payment as starting its workflow needs it (a Payment entity is one too). */
export interface PaymentToStart {
  id: number;
  state: PaymentState;
  businessUnit: { id: number };
  customer?: { id: number } | null;
}

/** What billing an invoice wrote, as rows: the invoice's new state and the payment (or none). */
export interface BilledInvoiceRows {
  invoiceId: number;
  state: InvoiceState;
  payment: PaymentToStart | null;
}

/** What a bill asks: who, under which key, through which gateway, when. */
export type BillRequest = Pick<
  NewPayment,
  'tenant' | 'requestedBy' | 'idempotencyKey' | 'gateway' | 'workflowIdOf'
> & {
  at: Date;
  /** More fields for the INVOICE_BILLED event's payload (an issue's id, a deposit booking). */
  eventPayload?: Record<string, unknown>;
};

/** The invoice's row under its lock, with everything the bill decides on. */
interface BillFacts {
  state: InvoiceState;
  refunded_invoice_id: number | null;
  number: string;
  currency: string;
  total_gross: string;
  business_unit_id: number;
  customer_id: number;
  user_group_id: number | null;
  rental_id: number | null;
  booking_id: number | null;
  /** The payment an earlier call with this key made, with what starting its workflow needs. */
  earlier_id: number | null;
  earlier_state: PaymentState | null;
  earlier_business_unit_id: number | null;
  earlier_customer_id: number | null;
  /** A fresh payment id (a key seen again burns one, a gap like any rolled-back insert leaves). */
  next_id: number;
  /** The owner's default balance at the invoice's business unit (not deleted), if any. */
  balance_id: number | null;
  balance_currency: string | null;
  /** The payer's paymentState: the business account's when one pays, else the customer's. */
  payment_state: string | null;
}

/**
 * One statement: the invoice row locked, the payment an earlier call with the key made, a fresh payment
 * id, the owner's default balance (the business account's when one pays, else the customer's) and the
 * payer's paymentState.
 */
const lockBillFacts = `
  select i.state, i.refunded_invoice_id, i.number, i.currency, i.total_gross::text as total_gross,
         i.business_unit_id, i.customer_id, i.user_group_id, i.rental_id, i.booking_id,
         p.id as earlier_id, p.state as earlier_state, p.business_unit_id as earlier_business_unit_id,
         p.customer_id as earlier_customer_id, nextval('payment_id_seq')::int as next_id,
         b.id as balance_id, b.currency as balance_currency,
         case when i.user_group_id is null
              then (select payment_state from customer where tenant_id = $1 and id = i.customer_id)
              else (select payment_state from user_group where tenant_id = $1 and id = i.user_group_id)
         end as payment_state
    from invoice i
    left join payment p on p.tenant_id = $1 and p.idempotency_key = $3
    left join lateral (
      select id, currency from balance
       where tenant_id = $1 and business_unit_id = i.business_unit_id and is_default and deleted_at is null
         and case when i.user_group_id is null then customer_id = i.customer_id
                  else user_group_id = i.user_group_id end
       order by id limit 1) b on true
   where i.tenant_id = $1 and i.id = $2
     for update of i`;

/**
 * Bills an OPEN invoice in the caller's transaction (it locks the invoice row): BILLED with `billedAt`,
 * the owner's default balance credit applied first (a negative INVOICE ledger row), and a payment (OPEN)
 * for what is left; when the credit covers it all the invoice is PAID and no payment is made, and a payer
 * invoiced by transfer gets its due date and no payment. I121 unless OPEN, I128 unless the total is
 * positive. Idempotent on `idempotencyKey`: a retry answers what the first call billed. Every bill, by
 * hand or automatic, is on the invoice's timeline once (INVOICE_BILLED, keyed by the invoice).
 */
export async function billInvoiceRows(
  em: EntityManager,
  invoiceId: number,
  request: BillRequest,
): Promise<BilledInvoiceRows> {
  const [facts] = await preparedRows<BillFacts>(em, lockBillFacts, [
    request.tenant,
    invoiceId,
    request.idempotencyKey,
  ]);
  if (!facts) throw new DomainError('I404', `invoice ${invoiceId} not found`);
  if (facts.earlier_id !== null)
    return {
      invoiceId,
      state: facts.state,
      payment: {
        id: facts.earlier_id,
        state: facts.earlier_state!,
        businessUnit: { id: facts.earlier_business_unit_id! },
        customer: facts.earlier_customer_id === null ? null : { id: facts.earlier_customer_id },
      },
    };
  if (facts.state !== 'OPEN' || facts.refunded_invoice_id !== null)
    throw new DomainError(
      invoiceOperationRefusal(facts.state, 'BILL') ?? 'I121',
      `the invoice is ${facts.state}`,
    );
  const total = new Decimal(facts.total_gross);
  if (total.lte(0)) throw new DomainError('I128', `the invoice's total is ${facts.total_gross}`);
  let left = total;
  if (facts.balance_id !== null && facts.balance_currency === facts.currency) {
    // The credit is written through the ledger's own module (db/balance-ledger.ts), under the balance's lock.
    const balance = await em.findOneOrFail(Balance, facts.balance_id, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    const credit = Decimal.min(new Decimal(await balanceValue(em, balance.id)), total);
    if (credit.gt(0)) {
      await appendBalanceUpdate(em, {
        balance,
        kind: 'INVOICE',
        amount: formatAmount(credit.neg(), facts.currency),
        description: `Invoice ${facts.number}`,
        createdBy: request.requestedBy,
        idempotencyKey: `invoice:${invoiceId}:balance-credit`,
        invoiceId,
      });
      left = total.minus(credit);
    }
  }
  let state: InvoiceState = 'BILLED';
  const changes: Record<string, unknown> = { billed_at: request.at };
  let payment: PaymentToStart | null = null;
  if (left.lte(0)) {
    state = 'PAID';
    changes.settled_at = request.at;
  } else if (facts.payment_state === 'INVOICING') {
    // Invoiced by transfer (paymentState INVOICING): BILLED with its due date and no payment, never a
    // card charge; the operator settles it (set-paid-externally: PAID_EXTERNALLY). db/payer-readiness.ts.
    changes.due_at = await invoiceDueDateOf(em, request.tenant, invoiceId, request.at);
  } else {
    // The partial unique index refuses a second running payment of the invoice.
    await insertTenantRow(em, 'payment', request.tenant, {
      id: facts.next_id,
      purpose: 'INVOICE',
      state: 'OPEN',
      business_unit_id: facts.business_unit_id,
      customer_id: facts.customer_id,
      user_group_id: facts.user_group_id,
      invoice_id: invoiceId,
      gateway: request.gateway,
      amount: formatAmount(left.toString(), facts.currency),
      currency: facts.currency,
      attempt_count: 0,
      workflow_id: request.workflowIdOf(facts.next_id),
      requested_by: request.requestedBy,
      idempotency_key: request.idempotencyKey,
    });
    payment = {
      id: facts.next_id,
      state: 'OPEN',
      businessUnit: { id: facts.business_unit_id },
      customer: { id: facts.customer_id },
    };
  }
  await updateTenantRow(em, 'invoice', request.tenant, invoiceId, { state, ...changes });
  const billedEvent: EventFields = {
    type: 'INVOICE_BILLED',
    createdAt: request.at,
    customerId: facts.customer_id,
    rentalId: facts.rental_id,
    bookingId: facts.booking_id,
    adminSubject: request.requestedBy,
    payload: {
      ...request.eventPayload,
      invoiceId,
      from: facts.state,
      to: state,
      state,
      paymentId: payment?.id ?? null,
      gross: facts.total_gross,
      fromBalance: formatAmount(total.minus(left), facts.currency),
      toPay: formatAmount(Decimal.max(left, 0), facts.currency),
      currency: facts.currency,
    },
    idempotencyKey: `invoice:${invoiceId}:billed`,
  };
  // One statement in the caller's transaction, which skips the event when an earlier bill recorded the key.
  await insertEvents(em, request.tenant, [billedEvent], { outbox: 'always' });
  return { invoiceId, state, payment };
}

/**
 * {@link billInvoiceRows} for callers that go on with the entities (the operator's bill, a subscription's
 * period): the invoice and the payment as the bill wrote them, read into `em` (a managed invoice is
 * refreshed). `onBilled` adds the caller's rows (its event) to one flush after the bill.
 */
export async function billInvoiceRecord(
  em: EntityManager,
  invoiceId: number,
  request: BillRequest & { onBilled?: (billed: BilledInvoice) => void },
): Promise<BilledInvoice> {
  const rows = await billInvoiceRows(em, invoiceId, request);
  const invoice = await em.findOneOrFail(Invoice, invoiceId, { refresh: true });
  const payment = rows.payment ? await em.findOneOrFail(Payment, rows.payment.id, { refresh: true }) : null;
  const billed = { invoice, payment };
  request.onBilled?.(billed);
  await em.flush();
  return billed;
}
