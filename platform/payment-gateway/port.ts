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

/**
 * The start of saving a payment method for later charges (Stripe: a SetupIntent). The client confirms it
 * with the gateway using `clientSecret` (card details never reach fleetflow); the gateway then announces
 * the outcome as a SETUP_SUCCEEDED or SETUP_FAILED webhook. `idempotencyKey`: the same key, the same setup.
 */
export interface SetupRequest {
  idempotencyKey: string;
  /** The gateway's customer the method is saved for (an earlier setup's), or null to create one. */
  gatewayCustomer: string | null;
  /** Who the owner is, for the gateway's dashboard (never used to decide anything). */
  description: string;
  /** The business unit's currency (the sandbox shows it on its 3-D Secure page). */
  currency: string;
  /** Carried to the gateway and back in webhooks: tenant, setupId. */
  metadata: Record<string, string>;
}

/** What starting a setup ended as: the gateway's setup and its client secret, or its refusal. */
export type SetupStarted =
  | { status: 'STARTED'; reference: string; clientSecret: string; gatewayCustomer: string | null }
  | { status: 'REFUSED'; code: string; message: string };

/** A setup's outcome as a webhook announces it. */
export interface SetupNotice {
  /** The gateway's setup (as `SetupStarted.reference`). */
  reference: string;
  /** The saved method's id at the gateway, when it succeeded. */
  paymentMethod: string | null;
  gatewayCustomer: string | null;
  /** Why it failed (the gateway's decline or error code), when it failed. */
  failureCode: string | null;
  failureMessage: string | null;
}

/** A saved payment method as a payment source stores it. */
export interface SavedPaymentMethod {
  /** What a charge names (`ChargeRequest.sourceToken`): Stripe `cus_…/pm_…`, a sandbox test token. */
  sourceToken: string;
  type: 'CARD' | 'SEPA' | 'PAYPAL';
  /** What people see: `Visa •••• 4242`. */
  label: string;
  /** `YYYY-MM`, for cards. */
  expiry: string | null;
}

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
    | 'SETUP_SUCCEEDED' // a payment method was saved (setup confirmed, 3-D Secure completed)
    | 'SETUP_FAILED' // the gateway refused to save it
    | 'IGNORED'; // an event type finance does not act on
  /** The charge it is about (as `ChargeOutcome.reference`), when it is about one. */
  chargeReference: string | null;
  metadata: Record<string, string>;
  payload: Record<string, unknown>;
  /** The setup it is about (SETUP_SUCCEEDED, SETUP_FAILED). */
  setup?: SetupNotice;
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

/** The gateway refuses to describe a saved method (it does not exist, or cannot be charged again). */
export class SavedMethodRefusedError extends Error {
  override readonly name = 'SavedMethodRefusedError';
  constructor(
    readonly code: string,
    message: string,
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
  /** Starts saving a payment method for the owner (Stripe: a customer, once, and a SetupIntent). */
  createSetup(request: SetupRequest): Promise<SetupStarted>;
  /**
   * The method a succeeded setup saved, read from the gateway (brand, last digits, expiry); throws
   * SavedMethodRefusedError when the gateway will not describe it, GatewayUnavailableError when it does not answer.
   */
  savedPaymentMethod(setup: SetupNotice): Promise<SavedPaymentMethod>;
  /**
   * Detaches a saved method from its owner at the gateway when the owner removes it, so nothing can
   * charge it again; one the gateway no longer holds is detached already. GatewayUnavailableError when
   * the gateway does not answer or refuses.
   */
  detachPaymentMethod(sourceToken: string): Promise<void>;
  /** Verifies a webhook's signature over the raw body and translates it; throws WebhookSignatureError. */
  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): GatewayEvent;
}

/** The adapters a deployment runs: the default for new payments, and each by name for existing ones. */
export interface PaymentGateways {
  readonly default: PaymentGateway;
  byName(name: string): PaymentGateway | undefined;
}
