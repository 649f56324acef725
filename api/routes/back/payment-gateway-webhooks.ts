// The payment gateways' webhook endpoints: one per adapter (`/payment-gateways/sandbox/webhooks`,
// `/payment-gateways/stripe/webhooks`), each verified by its adapter's signature scheme over the raw body
// (standardwebhooks for the sandbox, Stripe-Signature for Stripe) and applied once per event id.
import { Type } from '@sinclair/typebox';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Str, StringEnum } from '../../kernel/schemas.js';
import { processGatewayWebhook } from '../../shared/payment-webhooks.js';

const eventTypes = [
  'CHALLENGE_SUCCEEDED',
  'THREE_DS_FAILED',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
  'DISPUTE_OPENED',
  'SETUP_SUCCEEDED',
  'SETUP_FAILED',
  'IGNORED',
] as const;

/** What the endpoint did with a verified event. */
export const WebhookReceiptSchema = component(
  'PaymentGatewayWebhookReceipt',
  Type.Object(
    {
      eventId: Type.String({ description: "The gateway's event id." }),
      type: StringEnum(eventTypes, {
        description: "The event in finance's words (IGNORED: a type finance does not act on).",
      }),
      result: StringEnum(['APPLIED', 'DUPLICATE', 'IGNORED'] as const, {
        description:
          'APPLIED: the waiting payment was signalled, the dispute recorded, or the setup completed (the payment method stored, or its refusal); DUPLICATE: received before, not applied again; IGNORED: nothing in this tenant waits for it.',
      }),
    },
    { additionalProperties: false },
  ),
);

/** `POST /payment-gateways/{gateway}/webhooks`: a gateway's signed notification (3-D Secure answers, disputes, setups). */
export const receivePaymentGatewayWebhook = defineRoute({
  operationId: 'receivePaymentGatewayWebhook',
  method: 'post',
  path: '/payment-gateways/{gateway}/webhooks',
  interface: 'back',
  summary: 'Receive a payment gateway webhook',
  description:
    'Configure this URL at the gateway, one per adapter: `sandbox` (standardwebhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`, HMAC-SHA256 with SANDBOX_GATEWAY_WEBHOOK_SECRET) and `stripe` (`Stripe-Signature` with STRIPE_WEBHOOK_SECRET; its events `payment_intent.succeeded`, `payment_intent.payment_failed`, `charge.dispute.created`, `setup_intent.succeeded` and `setup_intent.setup_failed` are acted on). The signature is checked over the body exactly as sent and must be at most 5 minutes old. An event is applied once per tenant, gateway and event id; a redelivery answers 200 with result DUPLICATE.',
  tags: ['Payments'],
  params: Type.Object({ gateway: Str(32, { description: '`sandbox` or `stripe`.' }) }),
  headers: Type.Object({
    'webhook-id': Type.Optional(Str(256, { description: 'standardwebhooks message id (sandbox).' })),
    'webhook-timestamp': Type.Optional(Str(32, { description: 'standardwebhooks Unix seconds (sandbox).' })),
    'webhook-signature': Type.Optional(
      Str(2048, { description: 'standardwebhooks `v1,<base64>` signatures (sandbox).' }),
    ),
    'stripe-signature': Type.Optional(Str(2048, { description: 'Stripe `t=…,v1=…` signature (stripe).' })),
  }),
  body: Type.Object(
    { id: Str(256, { description: "The gateway's event id." }), type: Str(256) },
    {
      additionalProperties: true,
      description: "The gateway's event as it sends it (signed over its raw bytes).",
    },
  ),
  signedBody: 'the signature covers the raw bytes; the event is stored with NUL characters replaced.',
  access: {
    anonymous: "verified by the adapter's signature scheme over the raw body (a gateway holds no token).",
  },
  responses: { 200: { description: 'The event was verified and received', schema: WebhookReceiptSchema } },
  // PGS100: the gateway did not describe a saved payment method; it delivers the event again.
  errors: ['PGS100', 'PGS101', 'PGS102'],
  async handler(ctx) {
    const headers = {
      'webhook-id': ctx.headers['webhook-id'],
      'webhook-timestamp': ctx.headers['webhook-timestamp'],
      'webhook-signature': ctx.headers['webhook-signature'],
      'stripe-signature': ctx.headers['stripe-signature'],
    };
    return ok(await processGatewayWebhook(ctx, ctx.params.gateway, ctx.rawBody, headers));
  },
});

export const paymentGatewayWebhookRoutes = [receivePaymentGatewayWebhook];
