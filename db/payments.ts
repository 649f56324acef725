// Payments' rows: billing an invoice (OPEN → BILLED, the customer's balance credit first, then a payment
// for what is left), creating a payment, choosing the source an attempt charges, each attempt's row, and
// one writer of a payment's state that keeps its invoice, its events and (for settlements) its balance's
// ledger in step. The payment workflow's activities and the API's commands both write through here.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from './entities/Balance.js';
import { Event } from './entities/Event.js';
import { Invoice } from './entities/Invoice.js';
import { Payment } from './entities/Payment.js';
import { PaymentAttempt } from './entities/PaymentAttempt.js';
import { PaymentSource } from './entities/PaymentSource.js';
import { appendBalanceUpdate, balanceValue } from './balance-ledger.js';
import { recordEvent, type EventFields } from './events.js';
import { DomainError } from '../domain/errors.js';
import {
  invoiceOperationRefusal,
  invoiceStateForPayment,
  runningPaymentStates,
  type InvoiceState,
  type PaymentAttemptState,
  type PaymentChallenge,
  type PaymentPurpose,
  type PaymentState,
} from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';

/** Who pays: a customer, or a business account (its sources and balances are the group's). */
export interface PaymentOwner {
  customerId: number | null;
  userGroupId: number | null;
}

/** The owner of an invoice: the business account of a BUSINESS invoice, else its customer. */
export function ownerOfInvoice(invoice: Invoice): PaymentOwner {
  return invoice.userGroup
    ? { customerId: invoice.customer.id, userGroupId: invoice.userGroup.id }
    : { customerId: invoice.customer.id, userGroupId: null };
}

/** The owner of a balance. */
export function ownerOfBalance(balance: Balance): PaymentOwner {
  return { customerId: balance.customer?.id ?? null, userGroupId: balance.userGroup?.id ?? null };
}

/** Rows of the owner itself: the group's when a business account pays, else the customer's. */
function ownedBy(owner: PaymentOwner): { group: number } | { customer: number } | null {
  if (owner.userGroupId !== null) return { group: owner.userGroupId };
  if (owner.customerId !== null) return { customer: owner.customerId };
  return null;
}

/**
 * The source a payment charges now: the owner's default source, one registered with the payment's
 * business unit first (its merchant account holds it), else the newest at that unit, else the owner's
 * default anywhere; null when the owner has none. Read at each attempt, so a source added after a
 * decline is charged by the next one.
 */
export async function currentPaymentSource(
  em: EntityManager,
  owner: PaymentOwner,
  businessUnitId: number,
): Promise<PaymentSource | null> {
  const where = ownedBy(owner);
  if (!where) return null;
  const sources = await em.find(PaymentSource, where, { orderBy: { id: 'desc' } });
  const rank = (source: PaymentSource) =>
    (source.businessUnit.id === businessUnitId ? 2 : 0) + (source.isDefault ? 1 : 0);
  const usable = sources.filter((source) => source.businessUnit.id === businessUnitId || source.isDefault);
  usable.sort((a, b) => rank(b) - rank(a) || b.id - a.id);
  return usable[0] ?? null;
}

/** The owner's default balance at a business unit (not deleted), if any. */
export function defaultBalanceOf(
  em: EntityManager,
  owner: PaymentOwner,
  businessUnitId: number,
): Promise<Balance | null> {
  const where =
    owner.userGroupId !== null ? { userGroup: owner.userGroupId } : { customer: owner.customerId };
  return em.findOne(Balance, { ...where, businessUnit: businessUnitId, isDefault: true, deletedAt: null });
}

/** The payment of an invoice whose workflow still runs, if any (at most one: a partial unique index). */
export function runningPaymentOfInvoice(em: EntityManager, invoiceId: number): Promise<Payment | null> {
  return em.findOne(Payment, { invoice: invoiceId, state: { $in: [...runningPaymentStates] } });
}

/** The settlement of a balance whose workflow still runs, if any. */
export function runningPaymentOfBalance(em: EntityManager, balanceId: number): Promise<Payment | null> {
  return em.findOne(Payment, { balance: balanceId, state: { $in: [...runningPaymentStates] } });
}

/** What a new payment collects and for whom. */
export interface NewPayment {
  tenant: string;
  purpose: PaymentPurpose;
  businessUnitId: number;
  owner: PaymentOwner;
  invoiceId?: number | null;
  balanceId?: number | null;
  /** Decimal string, positive. */
  amount: string;
  currency: string;
  /** The adapter that charges it (`sandbox`, `stripe`). */
  gateway: string;
  requestedBy: string;
  /** The request's or activity's key: a retried creation finds the payment it made. */
  idempotencyKey: string;
  /** The workflow id of a payment id (`paymentWorkflowId` of workflows/payment.messages.ts). */
  workflowIdOf: (paymentId: number) => string;
}

/**
 * Creates a payment (state OPEN) with its id from the sequence, so its workflow id is known at once, or
 * returns the one a retry of the same creation made; flushed, so the partial unique indexes (one
 * running payment per invoice and per balance) refuse a second one here. The caller starts its workflow
 * after the transaction commits.
 */
export async function createPayment(em: EntityManager, fields: NewPayment): Promise<Payment> {
  const existing = await em.findOne(Payment, { idempotencyKey: fields.idempotencyKey });
  if (existing) return existing;
  const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('payment_id_seq')::int as id`);
  const payment = em.create(Payment, {
    id,
    purpose: fields.purpose,
    state: 'OPEN',
    businessUnit: fields.businessUnitId,
    customer: fields.owner.customerId,
    userGroup: fields.owner.userGroupId,
    invoice: fields.invoiceId ?? null,
    balance: fields.balanceId ?? null,
    gateway: fields.gateway,
    amount: formatAmount(fields.amount, fields.currency),
    currency: fields.currency,
    workflowId: fields.workflowIdOf(id),
    requestedBy: fields.requestedBy,
    idempotencyKey: fields.idempotencyKey,
  });
  await em.flush();
  return payment;
}

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
 * what the first call billed.
 */
export async function billInvoiceRecord(
  em: EntityManager,
  invoiceId: number,
  request: Pick<NewPayment, 'tenant' | 'requestedBy' | 'idempotencyKey' | 'gateway' | 'workflowIdOf'> & {
    at: Date;
  },
): Promise<BilledInvoice> {
  const invoice = await em.findOne(Invoice, invoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!invoice) throw new DomainError('I404', `invoice ${invoiceId} not found`);
  const earlier = await em.findOne(Payment, { idempotencyKey: request.idempotencyKey });
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
  if (left.lte(0)) {
    invoice.state = 'PAID';
    invoice.settledAt = request.at;
    await em.flush();
    return { invoice, payment: null };
  }
  invoice.state = 'BILLED';
  await em.flush();
  const payment = await createPayment(em, {
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
  return { invoice, payment };
}

// ---------------------------------------------------------------------------------------------------
// Attempts

/** The attempt row of a payment's attempt `number`, if it was begun. */
export function attemptOf(
  em: EntityManager,
  paymentId: number,
  number: number,
): Promise<PaymentAttempt | null> {
  return em.findOne(PaymentAttempt, { payment: paymentId, number });
}

/**
 * Inserts attempt `number` as PROCESSING before the gateway is called (unique per payment and number,
 * and on its key): a retried activity finds the row it inserted.
 */
export async function beginAttempt(
  em: EntityManager,
  payment: Payment,
  fields: { number: number; trigger: PaymentAttempt['trigger']; idempotencyKey: string; at: Date },
): Promise<PaymentAttempt> {
  const existing = await attemptOf(em, payment.id, fields.number);
  if (existing) return existing;
  const attempt = em.create(PaymentAttempt, {
    payment,
    number: fields.number,
    trigger: fields.trigger,
    idempotencyKey: fields.idempotencyKey,
    startedAt: fields.at,
  });
  await em.flush();
  return attempt;
}

/** What an attempt ended as (or became later: a challenge's answer). */
export interface AttemptOutcome {
  state: PaymentAttemptState;
  gatewayReference?: string | null;
  declineCode?: string | null;
  declineMessage?: string | null;
  retryAfterSeconds?: number | null;
  at: Date;
}

/** Writes an attempt's outcome (idempotent: the same outcome twice writes the same columns). */
export function finishAttempt(attempt: PaymentAttempt, outcome: AttemptOutcome): void {
  attempt.state = outcome.state;
  if (outcome.gatewayReference !== undefined) attempt.gatewayReference = outcome.gatewayReference;
  if (outcome.declineCode !== undefined) attempt.declineCode = outcome.declineCode;
  if (outcome.declineMessage !== undefined)
    attempt.declineMessage = outcome.declineMessage?.slice(0, 500) ?? null;
  if (outcome.retryAfterSeconds !== undefined) attempt.retryAfterSeconds = outcome.retryAfterSeconds;
  attempt.finishedAt = outcome.at;
}

// ---------------------------------------------------------------------------------------------------
// The payment's state, with its invoice, events and ledger

/** A payment's new state and what goes with it. */
export interface PaymentStateChange {
  state: PaymentState;
  at: Date;
  attemptCount?: number;
  nextRetryAt?: Date | null;
  challenge?: PaymentChallenge | null;
  gatewayReference?: string | null;
  failureCode?: string | null;
  failureMessage?: string | null;
  /** Who caused it (events name them). */
  requestedBy: string;
  /** PAID_EXTERNALLY closes the invoice as PAID_EXTERNALLY rather than PAID. */
  paidExternally?: boolean;
  /** A manual retry: the invoice's timeline gets INVOICE_RETRY_PAYMENT. */
  manualRetry?: boolean;
  /** The key of the step writing it: each event and ledger row it causes is written once. */
  idempotencyKey: string;
}

/** Records an event once per key (a retried step finds the one it wrote). */
async function recordEventOnce(
  em: EntityManager,
  fields: EventFields & { idempotencyKey: string },
): Promise<void> {
  if (await em.count(Event, { idempotencyKey: fields.idempotencyKey })) return;
  recordEvent(em, fields);
}

/**
 * Writes a payment's state in the caller's transaction with what follows from it: the invoice's mirror
 * state (`invoiceStateForPayment`; settledAt and the payment reference when PAID), INVOICE_RETRY_PAYMENT
 * on a manual retry, and for a settlement its SETTLEMENT ledger row and BALANCE_SETTLEMENT_SUCCESSFUL /
 * _FAILED. Idempotent: writing the same change again changes nothing.
 */
export async function recordPaymentState(
  em: EntityManager,
  payment: Payment,
  change: PaymentStateChange,
): Promise<void> {
  payment.state = change.state;
  if (change.attemptCount !== undefined) payment.attemptCount = change.attemptCount;
  payment.nextRetryAt = change.state === 'AWAITING_RETRY' ? (change.nextRetryAt ?? null) : null;
  payment.challenge =
    change.state === 'THREE_DS_WAITING_FOR_USER' || change.state === 'PUSH_WAITING_FOR_USER'
      ? (change.challenge ?? payment.challenge ?? null)
      : null;
  if (change.gatewayReference !== undefined && change.gatewayReference !== null)
    payment.gatewayReference = change.gatewayReference;
  if (change.failureCode !== undefined) payment.failureCode = change.failureCode;
  if (change.failureMessage !== undefined)
    payment.failureMessage = change.failureMessage?.slice(0, 500) ?? null;
  if (change.state === 'PAID') {
    payment.paidAt ??= change.at;
    payment.failureCode = null;
    payment.failureMessage = null;
  }
  const events: (EventFields & { idempotencyKey: string })[] = [];
  const common = {
    createdAt: change.at,
    customerId: payment.customer?.id ?? null,
    adminSubject: change.requestedBy,
  };
  if (payment.purpose === 'INVOICE' && payment.invoice) {
    const invoice = await em.findOneOrFail(Invoice, payment.invoice.id);
    const invoiceState: InvoiceState =
      change.state === 'PAID' && change.paidExternally
        ? 'PAID_EXTERNALLY'
        : invoiceStateForPayment(change.state);
    invoice.state = invoiceState;
    if (change.state === 'PAID') {
      invoice.settledAt ??= change.at;
      if (payment.gatewayReference) invoice.paymentReference = payment.gatewayReference;
    }
    if (change.manualRetry)
      events.push({
        ...common,
        type: 'INVOICE_RETRY_PAYMENT',
        rentalId: invoice.rental?.id ?? null,
        bookingId: invoice.booking?.id ?? null,
        payload: { invoiceId: invoice.id, paymentId: payment.id, attempt: payment.attemptCount },
        idempotencyKey: `${change.idempotencyKey}/retry-event`,
      });
  }
  if (payment.purpose === 'BALANCE_SETTLEMENT' && payment.balance) {
    const balance = await em.findOneOrFail(Balance, payment.balance.id);
    if (change.state === 'PAID') {
      await appendBalanceUpdate(em, {
        balance,
        kind: 'SETTLEMENT',
        amount: payment.amount,
        description: `Settlement by payment ${payment.id}`,
        createdBy: change.requestedBy,
        idempotencyKey: `payment:${payment.id}:settlement`,
        paymentId: payment.id,
      });
      events.push({
        ...common,
        type: 'BALANCE_SETTLEMENT_SUCCESSFUL',
        payload: {
          balanceId: balance.id,
          paymentId: payment.id,
          amount: payment.amount,
          currency: payment.currency,
        },
        idempotencyKey: `payment:${payment.id}:settlement-event`,
      });
    } else if (change.state === 'FAILED') {
      events.push({
        ...common,
        type: 'BALANCE_SETTLEMENT_FAILED',
        payload: {
          balanceId: balance.id,
          paymentId: payment.id,
          amount: payment.amount,
          currency: payment.currency,
          failureCode: payment.failureCode ?? null,
        },
        idempotencyKey: `payment:${payment.id}:settlement-event`,
      });
    }
  }
  for (const event of events) await recordEventOnce(em, event);
  await em.flush();
}

/** Whether the payment's workflow still runs (its state is one the workflow moves on from). */
export function isRunningPaymentState(state: PaymentState): boolean {
  return (runningPaymentStates as readonly PaymentState[]).includes(state);
}
