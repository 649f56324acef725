// The payment gateway port: what finance asks of a card network or payment provider. Two adapters
// implement it (sandbox.ts, the default; stripe.ts, when STRIPE_SECRET_KEY is set). Amounts cross the
// port as decimal strings in major units with the currency (never binary floating point); each adapter
// converts to its own representation (minor units for Stripe).

/** A charge of one payment attempt. `idempotencyKey` is the attempt's key: the same key, the same charge. */
export interface ChargeRequest {
  idempotencyKey: string;
  /** Decimal string in major units, e.g. `12.50`. */
  amount: string;
  currency: string;
  /** The stored payment source's provider reference (token). */
  sourceToken: string;
  description: string;
  /** Carried to the gateway and back in webhooks: tenant, paymentId, attempt. */
  metadata: Record<string, string>;
}

/** What a charge ended as. */
export type ChargeOutcome =
  | { status: 'SUCCEEDED'; reference: string }
  | {
      status: 'SOFT_DECLINED';
      reference: string;
      declineCode: string;
      message: string;
      /** The gateway's Retry-After, which wins over the retry schedule. */
      retryAfterSeconds?: number;
    }
  | { status: 'HARD_DECLINED'; reference: string; declineCode: string; message: string }
  | {
      status: 'CHALLENGE';
      reference: string;
      challenge: { type: 'THREE_DS' | 'PUSH'; url: string | null };
    };

/** A refund of (part of) a succeeded charge. */
export interface RefundRequest {
  idempotencyKey: string;
  chargeReference: string;
  amount: string;
  currency: string;
  reason: string;
  metadata: Record<string, string>;
}

export type RefundOutcome =
  | { status: 'SUCCEEDED'; reference: string }
  | { status: 'FAILED'; reference: string | null; code: string; message: string };

/** A verified webhook, in the port's words. */
export interface GatewayEvent {
  /** The gateway's event id: a redelivery carries the same one. */
  id: string;
  type:
    | 'CHALLENGE_SUCCEEDED' // 3-D Secure completed or push approved: the charge succeeded
    | 'THREE_DS_FAILED'
    | 'PUSH_CANCELLED_BY_USER'
    | 'PUSH_BANK_REFUSED'
    | 'DISPUTE_OPENED'
    | 'IGNORED'; // an event type finance does not act on
  /** The charge it is about (as `ChargeOutcome.reference`), when it is about one. */
  chargeReference: string | null;
  metadata: Record<string, string>;
  payload: Record<string, unknown>;
}

/** The gateway did not answer (network fault, 5xx, timeout): retry the same call with the same key. */
export class GatewayUnavailableError extends Error {
  override readonly name = 'GatewayUnavailableError';
  constructor(
    message: string,
    /** The gateway's Retry-After (a rate limit, a 503), when it sent one: wait at least this long. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A webhook whose signature does not verify. */
export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
}

/** One adapter. Every call is idempotent on its key; network faults throw GatewayUnavailableError. */
export interface PaymentGateway {
  /** `sandbox` or `stripe`: stored on each payment, and the webhook path segment. */
  readonly name: string;
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /** Verifies a webhook's signature over the raw body and translates it; throws WebhookSignatureError. */
  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): GatewayEvent;
}

/** The adapters a deployment runs: the default for new payments, and each by name for existing ones. */
export interface PaymentGateways {
  readonly default: PaymentGateway;
  byName(name: string): PaymentGateway | undefined;
}
