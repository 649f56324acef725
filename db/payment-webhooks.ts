// The rows a verified payment gateway webhook writes: the event itself, kept once per tenant, gateway and
// event id (a redelivery is acknowledged, not applied twice), the attempt or payment a charge reference
// names, and a dispute (the payment and its invoice DISPUTED, with an event). The API's webhook path
// (api/shared/payment-webhooks.ts) runs these in one transaction with the workflow signal.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Payment } from './entities/Payment.js';
import { PaymentAttempt } from './entities/PaymentAttempt.js';
import { recordEvent } from './events.js';
import { recordPaymentState } from './payments.js';
import { paymentTransition, type PaymentAttemptState } from '../domain/finance.js';

/** A verified event as the webhook table keeps it. */
export interface ReceivedWebhook {
  id: string;
  type: string;
  payload: Record<string, unknown>;
}

/**
 * Inserts the event unless this tenant already received it from this gateway; true when it is new. In
 * the caller's transaction: a concurrent redelivery waits on the unique key, then finds the row.
 */
export async function recordWebhookEvent(
  tx: EntityManager,
  tenant: string,
  gateway: string,
  event: ReceivedWebhook,
): Promise<boolean> {
  const rows = await tx.execute<Array<{ id: number }>>(
    `insert into payment_webhook_event (tenant_id, gateway, event_id, type, payload, received_at)
     values (?, ?, ?, ?, ?::jsonb, now())
     on conflict (tenant_id, gateway, event_id) do nothing
     returning id`,
    [tenant, gateway, withoutNul(event.id), withoutNul(event.type), jsonbText(event.payload)],
  );
  return rows.length > 0;
}

/** Attempt states in which a challenge's answer is still awaited (PROCESSING: the charge's answer is not booked yet). */
export const attemptStatesAwaitingChallenge: readonly PaymentAttemptState[] = [
  'PROCESSING',
  'THREE_DS_REQUIRED',
  'PUSH_REQUIRED',
];

/** The attempt that made a charge of this gateway, with its payment; null when the tenant has none. */
export function attemptOfCharge(
  em: EntityManager,
  gateway: string,
  chargeReference: string,
): Promise<PaymentAttempt | null> {
  return em.findOne(
    PaymentAttempt,
    { gatewayReference: chargeReference, payment: { gateway } },
    { populate: ['payment'], orderBy: { id: 'desc' } },
  );
}

/** The payment a charge of this gateway paid: its succeeded attempt's, else the payment's own reference. */
export async function paymentOfCharge(
  em: EntityManager,
  gateway: string,
  chargeReference: string,
): Promise<Payment | null> {
  const attempt = await attemptOfCharge(em, gateway, chargeReference);
  if (attempt) return attempt.payment;
  return em.findOne(Payment, { gateway, gatewayReference: chargeReference });
}

/** What a gateway said about a dispute. */
export interface DisputeNotice {
  gateway: string;
  eventId: string;
  chargeReference: string;
  reason: string | null;
  at: Date;
}

/**
 * Marks a paid payment DISPUTED (a chargeback) with its invoice (DISPUTED) and records INVOICE_DISPUTED
 * (or BALANCE_SETTLEMENT_DISPUTED for a settlement), in the caller's transaction. False, writing nothing,
 * when the payment's state does not allow it (not PAID, or disputed already).
 */
export async function recordDispute(
  tx: EntityManager,
  payment: Payment,
  notice: DisputeNotice,
): Promise<boolean> {
  if (paymentTransition(payment.state, 'DISPUTED') === undefined) return false;
  const requestedBy = `gateway:${notice.gateway}`;
  const idempotencyKey = `webhook:${notice.gateway}:${notice.eventId}`;
  recordEvent(tx, {
    type: payment.invoice ? 'INVOICE_DISPUTED' : 'BALANCE_SETTLEMENT_DISPUTED',
    createdAt: notice.at,
    customerId: payment.customer?.id ?? null,
    adminSubject: requestedBy,
    payload: {
      ...(payment.invoice ? { invoiceId: payment.invoice.id } : {}),
      ...(payment.balance ? { balanceId: payment.balance.id } : {}),
      paymentId: payment.id,
      gateway: notice.gateway,
      eventId: notice.eventId,
      chargeReference: notice.chargeReference,
      reason: notice.reason,
      amount: payment.amount,
      currency: payment.currency,
    },
    idempotencyKey: `${idempotencyKey}/event`,
  });
  await recordPaymentState(tx, payment, { state: 'DISPUTED', at: notice.at, requestedBy, idempotencyKey });
  return true;
}

/** Text PostgreSQL can store: U+0000 replaced. */
function withoutNul(text: string): string {
  return text.replaceAll('\u0000', '\ufffd');
}

/** JSON for a jsonb value: PostgreSQL's jsonb cannot hold U+0000, so it is replaced. */
function jsonbText(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');
}
