// What every purchase that bills shares (packages, subscriptions): the request's idempotency key (the
// `Idempotency-Key` header, or the body's `idempotencyKey` the house's other POSTs take), and the
// withdrawal of a purchase whose first charge was declined — its payment retries no more (WITHDRAWN:
// FAILED), its invoice is CLOSED and the balance credit it took given back (db/purchase-withdrawal.ts).
// Readiness before any write is db/payer-readiness.ts. See docs/finance.md.
import { Type } from '@sinclair/typebox';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { Payment } from '../../db/entities/Payment.js';
import { inTenantTransaction } from '../../db/orm.js';
import { withdrawDeclinedPurchase } from '../../db/purchase-withdrawal.js';
import { isDomainError } from '../../domain/errors.js';
import { paymentTransition, type PaymentState } from '../../domain/finance.js';
import type { RouteContext } from '../kernel/route.js';
import { Str } from '../kernel/schemas.js';
import { closePayment } from './payment-commands.js';

/** The header a purchase reads its key from. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The purchase routes' header parameters. */
export const PurchaseHeaders = Type.Object({
  [IDEMPOTENCY_KEY_HEADER]: Type.Optional(
    Str(100, {
      minLength: 1,
      description:
        'A retried request with the same key answers the first purchase and bills nothing again (one invoice).',
    }),
  ),
});

/** The request's key: the header, else the body's `idempotencyKey`; undefined when neither is given. */
export function purchaseKeyOf(
  ctx: { headers: Record<string, string | undefined> },
  bodyKey?: string,
): string | undefined {
  const header = ctx.headers[IDEMPOTENCY_KEY_HEADER]?.trim();
  return header ? header : bodyKey;
}

/** Payment states after a first attempt that the gateway declined (a soft decline retries no more). */
export const declinedPaymentStates: readonly PaymentState[] = [
  'AWAITING_RETRY',
  'FAILED',
  'THREE_DS_FAILED',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
];

/**
 * Withdraws a purchase's declined charge: a payment still running (awaiting its retry, or after a failed
 * challenge) is closed as WITHDRAWN by its workflow, then the invoice is CLOSED and the credit given
 * back. Answers whether the invoice is CLOSED (false: the payment was not declined, or moved on).
 */
export async function withdrawDeclinedCharge(
  ctx: RouteContext,
  payment: Payment,
  requestedBy: string,
): Promise<boolean> {
  if (!declinedPaymentStates.includes(payment.state) || !payment.invoice) return false;
  // The row may show the attempt's outcome a moment before the workflow has recorded it: its update
  // waits for that step (workflows/payment.ts), then closes the payment or refuses if it moved on.
  if (paymentTransition(payment.state, 'WITHDRAWN') !== undefined) {
    try {
      payment = await closePayment(ctx, payment, 'WITHDRAWN', requestedBy);
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError) && !isDomainError(error)) throw error;
      // The payment moved on meanwhile (an attempt began, or it was paid): then it stays.
      payment = await freshPayment(ctx, payment.id);
    }
  }
  if (payment.state !== 'FAILED') return false;
  const invoiceId = payment.invoice!.id;
  return inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
    withdrawDeclinedPurchase(tx, invoiceId, { requestedBy, at: new Date() }),
  );
}

/** The payment re-read. */
export const freshPayment = (ctx: RouteContext, id: number) =>
  ctx.em.findOneOrFail(Payment, id, { refresh: true });
