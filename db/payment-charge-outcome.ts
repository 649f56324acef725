// An invoice payment's charge outcome on the hot path: the attempt, the payment and the invoice's mirror
// state written in one statement, and the outcome's invoice event in one more, without the unit of work.
// The locking path (a settlement, a manual retry, a retried activity) writes through recordPaymentState
// in db/payments.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertEvents } from './events.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { preparedRows } from './prepared.js';
import {
  paymentOutcomeEventType,
  paymentOutcomePayload,
  type AttemptOutcome,
  type PaymentOutcomeFigures,
} from './payments.js';
import {
  invoiceStateForPayment,
  paymentTransitions,
  type InvoiceState,
  type PaymentChallenge,
  type PaymentEvent,
  type PaymentState,
} from '../domain/finance.js';

/**
 * An invoice payment's row and its invoice's, as an attempt's outcome event names them: answered by the
 * one-statement outcome write, or read by {@link recordChargeOutcomeEvent}.
 */
export interface ChargeOutcomeEventSource extends PaymentOutcomeFigures {
  customerId: number | null;
  requestedBy: string;
  invoiceId: number;
  invoiceState: InvoiceState;
  rentalId: number | null;
  bookingId: number | null;
}

/** The columns of a {@link ChargeOutcomeEventSource}, as both statements select them. */
interface ChargeOutcomeEventRow {
  id: number;
  state: PaymentState;
  attempt_count: number;
  amount: string;
  currency: string;
  gateway_reference: string | null;
  failure_code: string | null;
  customer_id: number | null;
  requested_by: string;
  invoice_id: number;
  invoice_state: InvoiceState;
  rental_id: number | null;
  booking_id: number | null;
}

const eventSourceOf = (row: ChargeOutcomeEventRow): ChargeOutcomeEventSource => ({
  id: row.id,
  state: row.state,
  attemptCount: row.attempt_count,
  amount: row.amount,
  currency: row.currency,
  gatewayReference: row.gateway_reference,
  failureCode: row.failure_code,
  customerId: row.customer_id,
  requestedBy: row.requested_by,
  invoiceId: row.invoice_id,
  invoiceState: row.invoice_state,
  rentalId: row.rental_id,
  bookingId: row.booking_id,
});

/**
 * The invoice event of an attempt's outcome the one-statement path wrote (recordInvoiceChargeOutcome writes
 * no event), under the key the locking path's recordPaymentState uses (`{attemptKey}/outcome/payment-event`),
 * so either path writes it once; a retried activity that finds the outcome recorded calls it again.
 * `written`: the rows as the outcome statement answered them (else one statement reads them, and nothing
 * when the event was recorded); the event is one statement too, which skips a key recorded meanwhile.
 */
export async function recordChargeOutcomeEvent(
  em: EntityManager,
  paymentId: number,
  attemptKey: string,
  at: Date,
  requestedBy: string | null,
  written?: ChargeOutcomeEventSource,
): Promise<void> {
  const idempotencyKey = `${attemptKey}/outcome/payment-event`;
  const tenant = tenantIdOf(em);
  let source = written;
  if (!source) {
    const [row] = await preparedRows<ChargeOutcomeEventRow>(
      em,
      `select p.id, p.state, p.attempt_count, p.amount, p.currency, p.gateway_reference, p.failure_code,
              p.customer_id, p.requested_by, i.id as invoice_id, i.state as invoice_state, i.rental_id, i.booking_id
         from payment p join invoice i on i.tenant_id = p.tenant_id and i.id = p.invoice_id
        where p.tenant_id = $1 and p.id = $2 and p.purpose = 'INVOICE'
          and not exists (select 1 from event_key where tenant_id = $1 and idempotency_key = $3)`,
      [tenant, paymentId, idempotencyKey],
    );
    if (!row) return;
    source = eventSourceOf(row);
  }
  const type = paymentOutcomeEventType(source.state, false);
  if (!type) return;
  await insertEvents(
    em,
    tenant,
    [
      {
        type,
        createdAt: at,
        customerId: source.customerId,
        rentalId: source.rentalId,
        bookingId: source.bookingId,
        adminSubject: requestedBy ?? source.requestedBy,
        // An attempt's outcome follows its begin, which left the invoice IN_PAYMENT.
        payload: paymentOutcomePayload(
          source,
          source.invoiceId,
          invoiceStateForPayment('IN_PAYMENT'),
          source.invoiceState,
        ),
        idempotencyKey,
      },
    ],
    { outbox: 'always' },
  );
}

/** An attempt's gateway answer as the charge activity writes it (see {@link recordInvoiceChargeOutcome}). */
export interface ChargeOutcomeChange {
  paymentId: number;
  attempt: number;
  event: PaymentEvent;
  attemptOutcome: AttemptOutcome;
  /** A challenge keeps the attempt open (no finishedAt) until it is answered. */
  attemptStaysOpen: boolean;
  nextRetryAt: Date | null;
  challenge: PaymentChallenge | null;
  /** The charge's reference when it succeeded (the payment's and the invoice's payment reference). */
  gatewayReference: string | null;
  failure: { code: string; message: string } | null;
  at: Date;
}

/** Where a charge's outcome left the payment, as {@link recordInvoiceChargeOutcome} wrote it. */
export interface RecordedChargeOutcome {
  state: PaymentState;
  attemptCount: number;
  nextRetryAt: Date | null;
  challenge: PaymentChallenge | null;
  /** The rows its outcome event names ({@link recordChargeOutcomeEvent}). */
  event: ChargeOutcomeEventSource;
}

/**
 * The outcome of an invoice payment's PROCESSING attempt, written in ONE statement (no transaction, no
 * unit of work: it runs once per charge): the attempt finished, the payment's new state with the columns
 * `recordPaymentState` writes for it, and the invoice's mirror state, each only if the payment's state
 * allows the event and the attempt is still PROCESSING. An invoice payment's outcome causes no ledger
 * row; its invoice event is the caller's next statement, from the rows answered here (`event`, for
 * {@link recordChargeOutcomeEvent}). Null when nothing was written (the attempt was finished already,
 * the state does not allow it, or a settlement): the caller then takes the locking path, which answers
 * or refuses.
 */
export async function recordInvoiceChargeOutcome(
  em: EntityManager,
  change: ChargeOutcomeChange,
): Promise<RecordedChargeOutcome | null> {
  const { from, to } = paymentTransitions[change.event];
  const outcome = change.attemptOutcome;
  const waiting = to === 'THREE_DS_WAITING_FOR_USER' || to === 'PUSH_WAITING_FOR_USER';
  const paid = to === 'PAID';
  const now = new Date();
  const [row] = await preparedRows<
    ChargeOutcomeEventRow & {
      next_retry_at: Date | string | null;
      challenge: PaymentChallenge | string | null;
    }
  >(
    em,
    `with p as (
       update payment
          set state = $4,
              next_retry_at = $5,
              challenge = $6::jsonb,
              gateway_reference = coalesce($7, gateway_reference),
              failure_code = $8,
              failure_message = $9,
              paid_at = case when $10::boolean then coalesce(paid_at, $11) else paid_at end,
              updated_at = $12
        where tenant_id = $1 and id = $2 and purpose = 'INVOICE' and state = any($13::text[])
          and exists (select 1 from payment_attempt
                       where tenant_id = $1 and payment_id = $2 and number = $3 and state = 'PROCESSING')
        returning id, invoice_id, state, attempt_count, next_retry_at, challenge, gateway_reference, amount,
                  currency, failure_code, customer_id, requested_by
     ), a as (
       update payment_attempt
          set state = $14, gateway_reference = $15, decline_code = $16, decline_message = $17,
              retry_after_seconds = $18, finished_at = $19
        where tenant_id = $1 and payment_id = (select id from p) and number = $3
     ), i as (
       update invoice
          set state = $20,
              settled_at = case when $10::boolean then coalesce(settled_at, $11) else settled_at end,
              payment_reference = case when $10::boolean then coalesce((select gateway_reference from p), payment_reference)
                                       else payment_reference end,
              updated_at = $12
        where tenant_id = $1 and id = (select invoice_id from p)
        returning id, state, rental_id, booking_id
     )
     select p.id, p.state, p.attempt_count, p.next_retry_at, p.challenge, p.amount, p.currency, p.gateway_reference,
            p.failure_code, p.customer_id, p.requested_by, p.invoice_id, i.state as invoice_state, i.rental_id,
            i.booking_id
       from p left join i on true`,
    [
      tenantIdOf(em),
      change.paymentId,
      change.attempt,
      to,
      to === 'AWAITING_RETRY' ? change.nextRetryAt : null,
      waiting && change.challenge ? JSON.stringify(change.challenge) : null,
      change.gatewayReference,
      paid ? null : (change.failure?.code ?? null),
      paid ? null : (change.failure?.message.slice(0, 500) ?? null),
      paid,
      change.at,
      now,
      [...from],
      outcome.state,
      outcome.gatewayReference ?? null,
      outcome.declineCode ?? null,
      outcome.declineMessage?.slice(0, 500) ?? null,
      outcome.retryAfterSeconds ?? null,
      change.attemptStaysOpen ? null : outcome.at,
      invoiceStateForPayment(to),
    ],
  );
  if (!row) return null;
  return {
    state: row.state,
    attemptCount: row.attempt_count,
    nextRetryAt: row.next_retry_at === null ? null : new Date(row.next_retry_at),
    challenge:
      typeof row.challenge === 'string' ? (JSON.parse(row.challenge) as PaymentChallenge) : row.challenge,
    event: eventSourceOf(row),
  };
}
