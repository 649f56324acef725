// The Stripe adapter, through the official SDK: a charge is one PaymentIntent created and confirmed at once
// with the payment source as its payment method and the attempt's idempotency key; a refund is a Refund
// of that PaymentIntent with the refund's key. Declines are sorted into soft (retry later) and hard (stop)
// by `stripeDeclineKind`; what Stripe did not answer (connection faults, 5xx, rate limits, a rejected API
// key) is a GatewayUnavailableError, retried with the same key. Webhooks are verified with the SDK's
// `webhooks.constructEvent` (Stripe-Signature, HMAC-SHA256, 5 minutes' tolerance). Saving a payment method
// is a SetupIntent for a Stripe customer (created once per owner): the app confirms it with Stripe.js and
// its client secret, and setup_intent.succeeded / setup_intent.setup_failed announce the outcome.
import Stripe from 'stripe';
import {
  GatewayUnavailableError,
  SavedMethodRefusedError,
  WebhookSignatureError,
  type ChargeOutcome,
  type ChargeRequest,
  type GatewayEvent,
  type PaymentGateway,
  type RefundOutcome,
  type RefundRequest,
  type SavedPaymentMethod,
  type SetupNotice,
  type SetupRequest,
  type SetupStarted,
} from './port.js';
import { currencyCode, toMinorUnits } from './minor-units.js';

export interface StripeGatewayOptions {
  secretKey: string;
  /** Base URL of the API (`http://127.0.0.1:12111` for stripe-mock); api.stripe.com when absent. */
  apiBase?: string;
  /** Signing secret of the webhook endpoint (`whsec_…`); without it every webhook is refused. */
  webhookSecret?: string;
  /** Where Stripe sends the customer back after a 3-D Secure page (the app's public URL). */
  returnUrl?: string;
  /** Per-request timeout (default 20 s); a timeout is a GatewayUnavailableError. */
  timeoutMs?: number;
}

/**
 * Declines a later retry can overcome (the issuer's temporary refusals): a soft decline waits for the
 * retry schedule. Every code in `hardDeclineCodes` stops the payment at once. A code in neither list
 * follows Stripe's `advice_code` (`do_not_try_again` and `confirm_card_data` are hard) and is soft
 * otherwise, as Stripe's Smart Retries treat unknown issuer declines.
 */
export const softDeclineCodes: ReadonlySet<string> = new Set([
  'insufficient_funds',
  'approve_with_id',
  'authentication_required',
  'call_issuer',
  'card_velocity_exceeded',
  'do_not_honor',
  'generic_decline',
  'issuer_not_available',
  'no_action_taken',
  'offline_pin_required',
  'online_or_offline_pin_required',
  'processing_error',
  'reenter_transaction',
  'try_again_later',
  'withdrawal_count_limit_exceeded',
  'requires_payment_method',
]);

/** Declines that no retry can overcome: the card is gone, refused for good, or the request is wrong. */
export const hardDeclineCodes: ReadonlySet<string> = new Set([
  'stolen_card',
  'lost_card',
  'pickup_card',
  'fraudulent',
  'merchant_blacklist',
  'restricted_card',
  'security_violation',
  'revocation_of_all_authorizations',
  'revocation_of_authorization',
  'stop_payment_order',
  'do_not_try_again',
  'transaction_not_allowed',
  'service_not_allowed',
  'not_permitted',
  'invalid_account',
  'account_closed',
  'new_account_information_available',
  'card_not_supported',
  'currency_not_supported',
  'duplicate_transaction',
  'expired_card',
  'incorrect_number',
  'invalid_number',
  'incorrect_cvc',
  'invalid_cvc',
  'incorrect_pin',
  'invalid_pin',
  'incorrect_zip',
  'invalid_expiry_month',
  'invalid_expiry_year',
  'invalid_amount',
  'amount_too_large',
  'amount_too_small',
  'testmode_decline',
  'live_mode_test_card',
  'payment_intent_authentication_failure',
  'resource_missing',
  'idempotency_key_reused',
  'canceled',
]);

/** Whether a Stripe decline (decline_code, else error code) is soft or hard; see the two lists. */
export function stripeDeclineKind(code: string, adviceCode?: string | null): 'SOFT' | 'HARD' {
  if (softDeclineCodes.has(code)) return 'SOFT';
  if (hardDeclineCodes.has(code)) return 'HARD';
  if (adviceCode === 'do_not_try_again' || adviceCode === 'confirm_card_data') return 'HARD';
  return 'SOFT';
}

/** Stripe metadata: at most 50 keys of 40 characters, values of 500. */
function stripeMetadata(metadata: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(metadata)
      .slice(0, 49)
      .map(([key, value]) => [key.slice(0, 40), value.slice(0, 500)]),
  );
}

/** `cus_…/pm_…` names a customer's saved payment method; any other token is the payment method alone. */
function paymentMethodOf(sourceToken: string): { payment_method: string; customer?: string } {
  const match = /^(cus_[A-Za-z0-9]+)\/(.+)$/.exec(sourceToken);
  return match ? { customer: match[1], payment_method: match[2]! } : { payment_method: sourceToken };
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), when Stripe sent one. */
export function retryAfterSeconds(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  const value = headers?.['retry-after'] ?? headers?.['Retry-After'];
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The adapter for Stripe (`stripe`): PaymentIntents and Refunds with idempotency keys. */
export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  constructor(private readonly options: StripeGatewayOptions) {
    const base = options.apiBase ? new URL(options.apiBase) : undefined;
    this.stripe = new Stripe(options.secretKey, {
      // Temporal's activity retries own the retrying (same key, visible in history); the SDK tries once.
      maxNetworkRetries: 0,
      timeout: options.timeoutMs ?? 20_000,
      ...(base
        ? {
            host: base.hostname,
            port: base.port || (base.protocol === 'http:' ? 80 : 443),
            protocol: base.protocol === 'http:' ? ('http' as const) : ('https' as const),
          }
        : {}),
    });
  }

  /** Creates and confirms a PaymentIntent for the source; `requires_action` is a 3-D Secure challenge. */
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const currency = currencyCode(request.currency);
    const minor = currency === null ? null : toMinorUnits(request.amount, currency);
    if (currency === null || minor === null || !Number.isSafeInteger(Number(minor))) {
      return {
        status: 'HARD_DECLINED',
        reference: 'none',
        declineCode: 'invalid_amount',
        message: 'The amount or currency is not valid.',
      };
    }
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: Number(minor),
          currency: currency.toLowerCase(),
          ...paymentMethodOf(request.sourceToken),
          confirm: true,
          // 3-D Secure redirects the customer to the issuer's page and back to the app.
          ...(this.options.returnUrl
            ? {
                return_url: this.options.returnUrl,
                automatic_payment_methods: { enabled: true, allow_redirects: 'always' as const },
              }
            : { automatic_payment_methods: { enabled: true, allow_redirects: 'never' as const } }),
          description: request.description.slice(0, 1000),
          metadata: stripeMetadata(request.metadata),
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return chargeOutcomeOf(intent);
    } catch (fault) {
      return this.chargeFault(fault);
    }
  }

  /** Refunds (part of) the PaymentIntent; Stripe refuses more than its unrefunded amount. */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const currency = currencyCode(request.currency);
    const minor = currency === null ? null : toMinorUnits(request.amount, currency);
    if (currency === null || minor === null || !Number.isSafeInteger(Number(minor))) {
      return {
        status: 'FAILED',
        reference: null,
        code: 'invalid_amount',
        message: 'The amount or currency is not valid.',
      };
    }
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: request.chargeReference,
          amount: Number(minor),
          reason: 'requested_by_customer',
          metadata: stripeMetadata({ ...request.metadata, reason: request.reason }),
        },
        { idempotencyKey: request.idempotencyKey },
      );
      // `pending` is a refund Stripe accepted and settles later (card refunds succeed at once).
      if (refund.status === 'failed' || refund.status === 'canceled') {
        return {
          status: 'FAILED',
          reference: refund.id,
          code: refund.failure_reason ?? refund.status,
          message: `Stripe refund ${refund.status}`,
        };
      }
      return { status: 'SUCCEEDED', reference: refund.id };
    } catch (fault) {
      this.throwIfUnavailable(fault);
      if (fault instanceof Stripe.errors.StripeError) {
        return { status: 'FAILED', reference: null, code: fault.code ?? fault.type, message: fault.message };
      }
      throw fault;
    }
  }

  /**
   * Creates the owner's Stripe customer when it has none yet (keyed `<key>/customer`), then a SetupIntent
   * for off-session charges on it (keyed `<key>`); Stripe's refusal of the request is REFUSED.
   */
  async createSetup(request: SetupRequest): Promise<SetupStarted> {
    try {
      const customer =
        request.gatewayCustomer ??
        (
          await this.stripe.customers.create(
            { description: request.description.slice(0, 350), metadata: stripeMetadata(request.metadata) },
            { idempotencyKey: `${request.idempotencyKey}/customer` },
          )
        ).id;
      const intent = await this.stripe.setupIntents.create(
        {
          customer,
          usage: 'off_session',
          automatic_payment_methods: { enabled: true },
          metadata: stripeMetadata(request.metadata),
        },
        { idempotencyKey: request.idempotencyKey },
      );
      if (!intent.client_secret)
        return { status: 'REFUSED', code: 'no_client_secret', message: 'Stripe sent no client secret.' };
      return {
        status: 'STARTED',
        reference: intent.id,
        clientSecret: intent.client_secret,
        gatewayCustomer: customer,
      };
    } catch (fault) {
      this.throwIfUnavailable(fault);
      if (fault instanceof Stripe.errors.StripeError)
        return { status: 'REFUSED', code: fault.code ?? fault.type, message: fault.message };
      throw fault;
    }
  }

  /** The saved PaymentMethod read back from Stripe: a card's brand, last digits and expiry, a SEPA IBAN's end. */
  async savedPaymentMethod(setup: SetupNotice): Promise<SavedPaymentMethod> {
    if (!setup.paymentMethod) throw new Error(`stripe: setup ${setup.reference} names no payment method`);
    let method: Stripe.PaymentMethod;
    try {
      method = await this.stripe.paymentMethods.retrieve(setup.paymentMethod);
    } catch (fault) {
      this.throwIfUnavailable(fault);
      if (fault instanceof Stripe.errors.StripeError)
        throw new SavedMethodRefusedError(fault.code ?? fault.type, fault.message);
      throw fault;
    }
    const customer =
      setup.gatewayCustomer ??
      (typeof method.customer === 'string' ? method.customer : (method.customer?.id ?? null));
    const sourceToken = customer ? `${customer}/${method.id}` : method.id;
    if (method.type === 'sepa_debit') {
      return {
        sourceToken,
        type: 'SEPA',
        label: `${method.sepa_debit?.country ?? 'IBAN'} •••• ${method.sepa_debit?.last4 ?? '????'}`,
        expiry: null,
      };
    }
    if (method.type === 'paypal') {
      return {
        sourceToken,
        type: 'PAYPAL',
        label: `PayPal ${method.paypal?.payer_email ?? ''}`.trim(),
        expiry: null,
      };
    }
    const card = method.card;
    const brand = card?.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : 'Card';
    const expiry =
      card?.exp_year && card.exp_month ? `${card.exp_year}-${String(card.exp_month).padStart(2, '0')}` : null;
    return { sourceToken, type: 'CARD', label: `${brand} •••• ${card?.last4 ?? '????'}`, expiry };
  }

  /** Verifies Stripe-Signature over the raw body and translates the events finance acts on. */
  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): GatewayEvent {
    const signature = headers['stripe-signature'];
    if (!this.options.webhookSecret)
      throw new WebhookSignatureError('stripe webhook: no signing secret configured');
    if (typeof signature !== 'string')
      throw new WebhookSignatureError('stripe webhook: Stripe-Signature missing or repeated');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.options.webhookSecret);
    } catch (fault) {
      throw new WebhookSignatureError(
        `stripe webhook: ${fault instanceof Error ? fault.message : 'not verified'}`,
      );
    }
    return gatewayEventOf(event);
  }

  private chargeFault(fault: unknown): ChargeOutcome {
    this.throwIfUnavailable(fault);
    if (!(fault instanceof Stripe.errors.StripeError)) throw fault;
    const reference = fault.payment_intent?.id ?? fault.charge ?? fault.requestId ?? 'none';
    const code =
      fault instanceof Stripe.errors.StripeIdempotencyError
        ? 'idempotency_key_reused'
        : (fault.decline_code ?? fault.code ?? fault.type);
    const message = fault.message;
    if (stripeDeclineKind(code, fault.advice_code) === 'HARD')
      return { status: 'HARD_DECLINED', reference, declineCode: code, message };
    const retryAfter = retryAfterSeconds(fault.headers);
    return {
      status: 'SOFT_DECLINED',
      reference,
      declineCode: code,
      message,
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    };
  }

  /** Throws GatewayUnavailableError when Stripe did not decide (network, 5xx, 429, 409 lock, credentials). */
  /**
   * Detaches the PaymentMethod of a saved source (`cus_…/pm_…` or `pm_…`) from its customer. A source
   * that names no PaymentMethod (an operator-entered token) holds nothing to detach; one Stripe no longer
   * knows, or that is attached to no customer, is detached already.
   */
  async detachPaymentMethod(sourceToken: string): Promise<void> {
    const method = sourceToken.split('/').pop() ?? '';
    if (!method.startsWith('pm_')) return;
    try {
      await this.stripe.paymentMethods.detach(method);
    } catch (fault) {
      this.throwIfUnavailable(fault);
      if (!(fault instanceof Stripe.errors.StripeError)) throw fault;
      if (fault.code === 'resource_missing' || fault.code === 'payment_method_unexpected_state') return;
      throw new GatewayUnavailableError(`stripe: detaching ${method} was refused: ${fault.message}`);
    }
  }

  private throwIfUnavailable(fault: unknown): void {
    const errors = Stripe.errors;
    if (
      fault instanceof errors.StripeConnectionError ||
      fault instanceof errors.StripeAPIError ||
      fault instanceof errors.StripeRateLimitError ||
      fault instanceof errors.StripeAuthenticationError ||
      fault instanceof errors.StripePermissionError ||
      (fault instanceof errors.StripeError &&
        ((fault.statusCode ?? 0) >= 500 || fault.code === 'lock_timeout'))
    ) {
      const error = fault as InstanceType<typeof errors.StripeError>;
      throw new GatewayUnavailableError(
        `stripe: ${error.type}: ${error.message}`,
        retryAfterSeconds(error.headers),
      );
    }
  }
}

/** A confirmed PaymentIntent in the port's words. */
export function chargeOutcomeOf(intent: Stripe.PaymentIntent): ChargeOutcome {
  const reference = intent.id;
  switch (intent.status) {
    case 'succeeded':
      return { status: 'SUCCEEDED', reference };
    case 'requires_action': {
      const url = intent.next_action?.redirect_to_url?.url ?? null;
      return { status: 'CHALLENGE', reference, challenge: { type: 'THREE_DS', url } };
    }
    case 'processing':
      // The bank decides later (the outcome arrives as payment_intent.succeeded / payment_failed): the
      // payment waits as for a push approval.
      return { status: 'CHALLENGE', reference, challenge: { type: 'PUSH', url: null } };
    case 'canceled':
      return {
        status: 'HARD_DECLINED',
        reference,
        declineCode: 'canceled',
        message: 'The PaymentIntent was canceled.',
      };
    default: {
      // requires_payment_method after a confirm: the attempt failed (last_payment_error says why).
      const error = intent.last_payment_error;
      const code = error?.decline_code ?? error?.code ?? 'requires_payment_method';
      const message = error?.message ?? `The PaymentIntent is ${intent.status}.`;
      return stripeDeclineKind(code, error?.advice_code) === 'HARD'
        ? { status: 'HARD_DECLINED', reference, declineCode: code, message }
        : { status: 'SOFT_DECLINED', reference, declineCode: code, message };
    }
  }
}

/**
 * A verified Stripe event in the port's words. payment_intent.succeeded and payment_intent.payment_failed
 * answer a waiting challenge (the webhook path applies them only to an attempt that waits for one);
 * charge.dispute.created opens a dispute; other events are acknowledged and ignored.
 */
export function gatewayEventOf(event: Stripe.Event): GatewayEvent {
  const payload = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = event.data.object;
      return {
        id: event.id,
        type: event.type === 'payment_intent.succeeded' ? 'CHALLENGE_SUCCEEDED' : 'THREE_DS_FAILED',
        chargeReference: intent.id,
        metadata: { ...intent.metadata },
        payload,
      };
    }
    case 'charge.dispute.created': {
      const dispute = event.data.object;
      const intent = dispute.payment_intent;
      const charge = dispute.charge;
      return {
        id: event.id,
        type: 'DISPUTE_OPENED',
        chargeReference:
          (typeof intent === 'string' ? intent : intent?.id) ??
          (typeof charge === 'string' ? charge : charge.id),
        metadata: { ...dispute.metadata },
        payload,
      };
    }
    case 'setup_intent.succeeded':
    case 'setup_intent.setup_failed': {
      const intent = event.data.object;
      const id = (value: string | { id: string } | null) =>
        typeof value === 'string' ? value : (value?.id ?? null);
      const error = intent.last_setup_error;
      const succeeded = event.type === 'setup_intent.succeeded';
      return {
        id: event.id,
        type: succeeded ? 'SETUP_SUCCEEDED' : 'SETUP_FAILED',
        chargeReference: null,
        metadata: { ...intent.metadata },
        payload,
        setup: {
          reference: intent.id,
          paymentMethod: id(intent.payment_method),
          gatewayCustomer: id(intent.customer),
          failureCode: succeeded ? null : (error?.decline_code ?? error?.code ?? 'setup_failed'),
          failureMessage: succeeded ? null : (error?.message ?? 'Stripe could not save the payment method.'),
        },
      };
    }
    default:
      return { id: event.id, type: 'IGNORED', chargeReference: null, metadata: {}, payload };
  }
}
