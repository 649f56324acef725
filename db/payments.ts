// Payments' rows: creating a payment, choosing the source an attempt charges, each attempt's row, and
// one writer of a payment's state that keeps its invoice, its events and (for settlements) its balance's
// ledger in step. The payment workflow's activities and the API's commands both write through here;
// billing an invoice into a payment is db/payment-billing-rows.ts.
import { wrap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Balance } from './entities/Balance.js';
import { Invoice } from './entities/Invoice.js';
import { Payment } from './entities/Payment.js';
import { PaymentAttempt } from './entities/PaymentAttempt.js';
import { PaymentSource } from './entities/PaymentSource.js';
import { appendBalanceUpdate } from './balance-ledger.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { eventRecorded, recordEvent, type EventFields } from './events.js';
import { preparedRows } from './prepared.js';
import type { PaymentOwner } from './payer-readiness.js';
import {
  invoiceStateForPayment,
  paymentTransitions,
  runningPaymentStates,
  type InvoiceState,
  type PaymentAttemptState,
  type PaymentChallenge,
  type PaymentPurpose,
  type PaymentState,
} from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';

/** Who pays: a customer, or a business account (its sources and balances are the group's). */
export type { PaymentOwner };

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
  const { earlier, nextId } = await earlierPaymentOrNextId(em, fields.idempotencyKey);
  if (earlier) return earlier;
  const payment = newPayment(em, nextId, fields);
  await em.flush();
  return payment;
}

/**
 * The payment a key made already, else a fresh id from the payment sequence: one round trip for both
 * (a key seen again burns an id, a gap like any rolled-back insert leaves).
 */
async function earlierPaymentOrNextId(
  em: EntityManager,
  idempotencyKey: string,
): Promise<{ earlier: Payment | null; nextId: number }> {
  const [row] = await preparedRows<{ earlier: number | null; next: number }>(
    em,
    `select (select id from payment where tenant_id = $1 and idempotency_key = $2) as earlier,
            nextval('payment_id_seq')::int as next`,
    [tenantIdOf(em), idempotencyKey],
  );
  const earlier = row!.earlier === null ? null : await em.findOneOrFail(Payment, row!.earlier);
  return { earlier, nextId: row!.next };
}

/** A new payment (OPEN) with the id given, in the unit of work (written by the caller's flush). */
function newPayment(em: EntityManager, id: number, fields: NewPayment): Payment {
  return em.create(Payment, {
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
 * and on its key): a retried activity finds the row it inserted. `existing` is the caller's lookup of
 * the same attempt under the payment's lock, when it made one (undefined: looked up here).
 */
export async function beginAttempt(
  em: EntityManager,
  payment: Payment,
  fields: { number: number; trigger: PaymentAttempt['trigger']; idempotencyKey: string; at: Date },
  existing?: PaymentAttempt | null,
): Promise<PaymentAttempt> {
  const found = existing === undefined ? await attemptOf(em, payment.id, fields.number) : existing;
  if (found) return found;
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

/** What a charge needs of its payment, as {@link beginInvoiceAttempt} or the locking path reads it. */
export interface ChargedPayment {
  id: number;
  gateway: string;
  amount: string;
  currency: string;
  workflowId: string;
  balanceId: number | null;
}

/** What a charge needs of a payment entity. */
export function chargedPayment(payment: Payment): ChargedPayment {
  return {
    id: payment.id,
    gateway: payment.gateway,
    amount: payment.amount,
    currency: payment.currency,
    workflowId: payment.workflowId,
    balanceId: payment.balance?.id ?? null,
  };
}

/** An invoice payment's attempt begun in one statement: what to charge, with which source. */
export interface BegunInvoiceAttempt {
  payment: ChargedPayment;
  sourceToken: string | null;
  invoiceNumber: string | null;
}

/**
 * The common first step of a charge in ONE statement (no transaction, no unit of work: it runs once per
 * attempt): an invoice payment whose state allows CHARGE and whose attempt `number` was not begun yet
 * moves to IN_PAYMENT with its attempt count and the source chosen as {@link currentPaymentSource}
 * chooses it, the invoice's mirror state follows, and the attempt is inserted as PROCESSING. Null when
 * nothing was written (a settlement, an attempt begun by an earlier try of the activity, or a state that
 * does not allow it): the caller then takes the locking path, which answers or refuses. Two concurrent
 * tries collide on the attempt's unique key and the loser's activity retry takes the locking path.
 */
export async function beginInvoiceAttempt(
  em: EntityManager,
  fields: {
    paymentId: number;
    number: number;
    trigger: 'FIRST' | 'SCHEDULED';
    idempotencyKey: string;
    at: Date;
  },
): Promise<BegunInvoiceAttempt | null> {
  const [row] = await preparedRows<{
    id: number;
    gateway: string;
    amount: string;
    currency: string;
    workflow_id: string;
    source_token: string | null;
    invoice_number: string | null;
  }>(
    em,
    `with p as (
       select id, business_unit_id, customer_id, user_group_id
         from payment
        where tenant_id = $1 and id = $2 and purpose = 'INVOICE' and state = any($4::text[])
          and not exists (select 1 from payment_attempt
                           where tenant_id = $1 and payment_id = $2 and number = $3)
          for update
     ), s as (
       select ps.id, ps.provider_reference
         from payment_source ps, p
        where ps.tenant_id = $1
          and (case when p.user_group_id is not null then ps.group_id = p.user_group_id
                    else ps.customer_id = p.customer_id end)
          and (ps.business_unit_id = p.business_unit_id or ps.is_default)
        order by (case when ps.business_unit_id = p.business_unit_id then 2 else 0 end
                  + case when ps.is_default then 1 else 0 end) desc, ps.id desc
        limit 1
     ), u as (
       update payment
          set state = 'IN_PAYMENT', attempt_count = $3, payment_source_id = (select id from s),
              next_retry_at = null, challenge = null, updated_at = $7
        where tenant_id = $1 and id = (select id from p)
        returning id, invoice_id, gateway, amount, currency, workflow_id
     ), i as (
       update invoice set state = $8, updated_at = $7
        where tenant_id = $1 and id = (select invoice_id from u)
        returning number
     ), a as (
       insert into payment_attempt (tenant_id, payment_id, number, trigger, idempotency_key, started_at)
       select $1, id, $3, $5, $6, $9 from u
       returning id
     )
     select u.id, u.gateway, u.amount::text as amount, u.currency, u.workflow_id,
            (select provider_reference from s) as source_token, (select number from i) as invoice_number
       from u, a`,
    [
      tenantIdOf(em),
      fields.paymentId,
      fields.number,
      [...paymentTransitions.CHARGE.from],
      fields.trigger,
      fields.idempotencyKey,
      new Date(),
      invoiceStateForPayment('IN_PAYMENT'),
      fields.at,
    ],
  );
  if (!row) return null;
  return {
    payment: {
      id: row.id,
      gateway: row.gateway,
      amount: row.amount,
      currency: row.currency,
      workflowId: row.workflow_id,
      balanceId: null,
    },
    sourceToken: row.source_token,
    invoiceNumber: row.invoice_number,
  };
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
export async function recordEventOnce(
  em: EntityManager,
  fields: EventFields & { idempotencyKey: string },
): Promise<void> {
  if (await eventRecorded(em, fields.idempotencyKey)) return;
  recordEvent(em, fields);
}

/**
 * Writes a payment's state in the caller's transaction with what follows from it: the invoice's mirror
 * state (`invoiceStateForPayment`; settledAt and the payment reference when PAID), INVOICE_RETRY_PAYMENT
 * on a manual retry, and for a settlement its SETTLEMENT ledger row and BALANCE_SETTLEMENT_SUCCESSFUL /
 * _FAILED. Idempotent: writing the same change again changes nothing. Answers the invoice's number
 * (null for a settlement), which a charge's description names.
 */
export async function recordPaymentState(
  em: EntityManager,
  payment: Payment,
  change: PaymentStateChange,
): Promise<{ invoiceNumber: string | null }> {
  let invoiceNumber: string | null = null;
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
    const invoiceState: InvoiceState =
      change.state === 'PAID' && change.paidExternally
        ? 'PAID_EXTERNALLY'
        : invoiceStateForPayment(change.state);
    const invoice = await mirrorOnInvoice(em, payment, invoiceState, change);
    invoiceNumber = invoice.number;
    const type = paymentOutcomeEventType(change.state, change.paidExternally === true);
    if (type)
      events.push({
        ...common,
        type,
        rentalId: invoice.rentalId,
        bookingId: invoice.bookingId,
        payload: paymentOutcomePayload(payment, payment.invoice.id, invoice.from, invoiceState),
        idempotencyKey: `${change.idempotencyKey}/payment-event`,
      });
    if (change.manualRetry)
      events.push({
        ...common,
        type: 'INVOICE_RETRY_PAYMENT',
        rentalId: invoice.rentalId,
        bookingId: invoice.bookingId,
        payload: { invoiceId: payment.invoice.id, paymentId: payment.id, attempt: payment.attemptCount },
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
  return { invoiceNumber };
}

/**
 * The invoice's mirror of its payment's state (settledAt and the payment reference when PAID), written
 * with one UPDATE rather than loaded into the unit of work: it runs twice per charge. An invoice this
 * EntityManager holds gets the same values, so its own flush never writes an older state back.
 */
async function mirrorOnInvoice(
  em: EntityManager,
  payment: Payment,
  state: InvoiceState,
  change: PaymentStateChange,
): Promise<{ number: string; rentalId: number | null; bookingId: number | null; from: InvoiceState }> {
  const invoiceId = payment.invoice!.id;
  const paid = change.state === 'PAID';
  const updatedAt = new Date();
  const reference = paid ? (payment.gatewayReference ?? null) : null;
  const [row] = await preparedRows<{
    number: string;
    rental_id: number | null;
    booking_id: number | null;
    old_state: InvoiceState;
  }>(
    em,
    `update invoice i
        set state = $3,
            settled_at = case when $4::boolean then coalesce(i.settled_at, $5) else i.settled_at end,
            payment_reference = coalesce($6, i.payment_reference),
            updated_at = $7
       from (select state as old_state from invoice where tenant_id = $1 and id = $2) o
      where i.tenant_id = $1 and i.id = $2
      returning i.number, i.rental_id, i.booking_id, o.old_state`,
    [tenantIdOf(em), invoiceId, state, paid, change.at, reference, updatedAt],
  );
  if (!row) throw new Error(`invoice ${invoiceId} of payment ${payment.id} not found`);
  const held = em.getUnitOfWork().getById(Invoice, invoiceId);
  if (held && wrap(held).isInitialized()) {
    held.state = state;
    if (paid) held.settledAt ??= change.at;
    if (reference) held.paymentReference = reference;
    held.updatedAt = updatedAt;
  }
  return { number: row.number, rentalId: row.rental_id, bookingId: row.booking_id, from: row.old_state };
}

/** The invoice event a payment state reached records (none for IN_PAYMENT, OPEN, and paid externally). */
export function paymentOutcomeEventType(state: PaymentState, paidExternally: boolean): string | null {
  switch (state) {
    case 'PAID':
      return paidExternally ? null : 'INVOICE_PAYMENT_SUCCEEDED';
    case 'AWAITING_RETRY':
    case 'FAILED':
    case 'THREE_DS_FAILED':
    case 'PUSH_CANCELLED_BY_USER':
    case 'PUSH_BANK_REFUSED':
      return 'INVOICE_PAYMENT_DECLINED';
    case 'THREE_DS_WAITING_FOR_USER':
    case 'PUSH_WAITING_FOR_USER':
      return 'INVOICE_PAYMENT_CHALLENGED';
    default:
      return null;
  }
}

/** What an outcome event's payload says of its payment: the entity, or its row as a statement wrote it. */
export type PaymentOutcomeFigures = Pick<
  Payment,
  'id' | 'attemptCount' | 'state' | 'amount' | 'currency' | 'gatewayReference' | 'failureCode'
>;

/** The payload of a payment's outcome event on its invoice's timeline. */
export function paymentOutcomePayload(
  payment: PaymentOutcomeFigures,
  invoiceId: number,
  from: InvoiceState,
  to: InvoiceState,
) {
  return {
    invoiceId,
    paymentId: payment.id,
    attempt: payment.attemptCount,
    from,
    to,
    paymentState: payment.state,
    amount: payment.amount,
    currency: payment.currency,
    gatewayReference: payment.gatewayReference ?? null,
    failureCode: payment.failureCode ?? null,
  };
}

/** Whether the payment's workflow still runs (its state is one the workflow moves on from). */
export function isRunningPaymentState(state: PaymentState): boolean {
  return (runningPaymentStates as readonly PaymentState[]).includes(state);
}
