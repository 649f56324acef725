// The one path every payment gateway webhook takes, posted by the gateway (the webhook endpoint) or made
// in-process by the sandbox's challenge page: the adapter verifies the signature over the raw body, the
// event is kept once per tenant, gateway and id, and then applied — a challenge's answer signals the
// payment workflow waiting for it, a dispute marks the payment and its invoice DISPUTED. The row, the
// dispute's writes and the signal share one transaction: a failed signal rolls the row back, so the
// gateway's redelivery tries again (the workflow ignores an answer it does not wait for). A setup's
// outcome (SETUP_SUCCEEDED, SETUP_FAILED) stores or refuses the payment method it saved.
import { WorkflowNotFoundError } from '@temporalio/client';
import { inTenantTransaction, type EntityManager } from '../../db/orm.js';
import {
  attemptOfCharge,
  attemptStatesAwaitingChallenge,
  paymentOfCharge,
  recordDispute,
  recordWebhookEvent,
} from '../../db/payment-webhooks.js';
import { DomainError } from '../../domain/errors.js';
import { WebhookSignatureError, type GatewayEvent } from '../../platform/payment-gateway/port.js';
import {
  challengeResolvedSignal,
  paymentWorkflowId,
  type ChallengeResolved,
} from '../../workflows/payment.messages.js';
import type { RouteContext } from '../kernel/route.js';
import { applySetupEvent } from './payment-setups.js';

/** What became of a webhook: applied, a redelivery of one received before, or nothing to do. */
export type WebhookResult = 'APPLIED' | 'DUPLICATE' | 'IGNORED';

export interface WebhookProcessing {
  eventId: string;
  type: GatewayEvent['type'];
  result: WebhookResult;
}

/** The headers the adapters' signature schemes read (standardwebhooks, Stripe-Signature). */
export const webhookSignatureHeaders = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'stripe-signature',
] as const;

/** Verifies a webhook with the named adapter (PGS102 unknown adapter, PGS101 bad signature) and applies it once. */
export async function processGatewayWebhook(
  ctx: RouteContext,
  gatewayName: string,
  rawBody: Buffer | undefined,
  headers: Record<string, string | string[] | undefined>,
): Promise<WebhookProcessing> {
  const adapter = ctx.services.paymentGateways.byName(gatewayName);
  if (!adapter) throw new DomainError('PGS102', `no payment gateway "${gatewayName}" runs here`);
  let event: GatewayEvent;
  try {
    event = adapter.verifyWebhook(rawBody ?? Buffer.alloc(0), headers);
  } catch (fault) {
    if (fault instanceof WebhookSignatureError) throw new DomainError('PGS101', fault.message);
    throw fault;
  }
  return applyGatewayEvent(ctx, adapter.name, event);
}

async function applyGatewayEvent(
  ctx: RouteContext,
  gateway: string,
  event: GatewayEvent,
): Promise<WebhookProcessing> {
  const answer = (result: WebhookResult): WebhookProcessing => ({
    eventId: event.id,
    type: event.type,
    result,
  });
  // One gateway account may serve several tenants' endpoints: another tenant's event is not this one's.
  if (event.metadata.tenant !== undefined && event.metadata.tenant !== ctx.tenant) return answer('IGNORED');
  // A setup's outcome stores the saved payment method (api/shared/payment-setups.ts).
  if (event.setup || event.type === 'SETUP_SUCCEEDED' || event.type === 'SETUP_FAILED')
    return answer(await applySetupEvent(ctx, gateway, event));
  return inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
    if (!(await recordWebhookEvent(tx, ctx.tenant, gateway, event))) return answer('DUPLICATE');
    if (event.type === 'IGNORED' || event.chargeReference === null) return answer('IGNORED');
    if (event.type === 'DISPUTE_OPENED')
      return answer(await applyDispute(tx, gateway, event, event.chargeReference));
    return answer(await signalChallenge(ctx, tx, gateway, event, event.chargeReference));
  });
}

/** A challenge's answer to the payment workflow whose attempt waits for it. */
async function signalChallenge(
  ctx: RouteContext,
  tx: EntityManager,
  gateway: string,
  event: GatewayEvent,
  chargeReference: string,
): Promise<WebhookResult> {
  const attempt = await attemptOfCharge(tx, gateway, chargeReference);
  if (!attempt || !attemptStatesAwaitingChallenge.includes(attempt.state)) return 'IGNORED';
  // A gateway that cannot tell which kind of challenge failed (Stripe's payment_intent.payment_failed)
  // reports THREE_DS_FAILED: for an attempt waiting for a push, the bank refused it.
  const failed = event.type as Exclude<
    GatewayEvent['type'],
    'CHALLENGE_SUCCEEDED' | 'DISPUTE_OPENED' | 'IGNORED' | 'SETUP_SUCCEEDED' | 'SETUP_FAILED'
  >;
  const outcome: ChallengeResolved['outcome'] =
    event.type === 'CHALLENGE_SUCCEEDED'
      ? 'SUCCEEDED'
      : failed === 'THREE_DS_FAILED' && attempt.state === 'PUSH_REQUIRED'
        ? 'PUSH_BANK_REFUSED'
        : failed;
  try {
    await ctx.services.temporal.workflow
      .getHandle(paymentWorkflowId(ctx.tenant, attempt.payment.id))
      .signal(challengeResolvedSignal, { outcome, eventId: event.id, chargeReference });
  } catch (fault) {
    // The payment's workflow has ended (the wait timed out): the answer comes too late to change it.
    if (fault instanceof WorkflowNotFoundError) return 'IGNORED';
    throw fault;
  }
  return 'APPLIED';
}

async function applyDispute(
  tx: EntityManager,
  gateway: string,
  event: GatewayEvent,
  chargeReference: string,
): Promise<WebhookResult> {
  const payment = await paymentOfCharge(tx, gateway, chargeReference);
  if (!payment) return 'IGNORED';
  const data = (event.payload.data ?? {}) as Record<string, unknown>;
  const nested = (data.object ?? {}) as Record<string, unknown>;
  const reason =
    [data.reason, nested.reason].find((value): value is string => typeof value === 'string') ?? null;
  const applied = await recordDispute(tx, payment, {
    gateway,
    eventId: event.id,
    chargeReference,
    reason,
    at: new Date(),
  });
  return applied ? 'APPLIED' : 'IGNORED';
}
