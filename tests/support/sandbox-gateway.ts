// Requests the sandbox gateway's suites share (payment-gateway.test.ts, the gateway itself;
// payment-gateway-webhooks.test.ts, its webhooks and challenge page over HTTP).
import { randomUUID } from 'node:crypto';
import type { ChargeRequest, RefundRequest } from '../../platform/payment-gateway/port.js';

/** A Standard Webhooks secret (`whsec_…`) made from a text. */
export const secretOf = (text: string) => `whsec_${Buffer.from(text).toString('base64')}`;
/** The secret the gateway suites sign their test webhooks with. */
export const testSecret = secretOf('payment-gateway-test-secret');

/** A charge of 12.50 EUR from `sourceToken` under a fresh idempotency key. */
export const chargeRequest = (
  sourceToken: string,
  overrides: Partial<ChargeRequest> = {},
): ChargeRequest => ({
  idempotencyKey: `test:${randomUUID()}`,
  amount: '12.50',
  currency: 'EUR',
  sourceToken,
  description: 'Invoice T-1',
  metadata: { tenant: 'acme', paymentId: randomUUID(), attempt: '1' },
  ...overrides,
});

/** A refund of `amount` of a charge under a fresh idempotency key. */
export const refundRequest = (
  chargeReference: string,
  amount: string,
  overrides: Partial<RefundRequest> = {},
): RefundRequest => ({
  idempotencyKey: `test-refund:${randomUUID()}`,
  chargeReference,
  amount,
  currency: 'EUR',
  reason: 'Customer complaint',
  metadata: { tenant: 'acme' },
  ...overrides,
});
