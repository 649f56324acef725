// The sandbox gateway's payment-method setups (`seti_sandbox_…`, like Stripe's SetupIntent), which complete
// sandbox.ts's charges into SandboxGateway: created with a client secret, confirmed with a test token.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  SavedMethodRefusedError,
  type PaymentGateway,
  type SavedPaymentMethod,
  type SetupNotice,
  type SetupRequest,
  type SetupStarted,
} from './port.js';
import { currencyCode } from './minor-units.js';
import {
  columns,
  jsonText,
  SandboxChargeGateway,
  sandboxId,
  SandboxRefusal,
  sandboxTokens,
  type OperationBook,
  type OperationRow,
  type SandboxWebhook,
} from './sandbox.js';

/** The test tokens a sandbox setup saves: `tok_sandbox_` and lower-case letters, digits, underscores. */
export const sandboxTokenPattern = /^tok_sandbox_[a-z0-9_]{1,60}$/;

/** How a saved sandbox card shows (its test card's brand and last digits); others show as `Card •••• 0000`. */
const sandboxCards: Readonly<Record<string, { brand: string; last4: string }>> = {
  [sandboxTokens.visa]: { brand: 'Visa', last4: '4242' },
  tok_sandbox_mastercard: { brand: 'Mastercard', last4: '5454' },
  [sandboxTokens.insufficientFunds]: { brand: 'Visa', last4: '9995' },
  [sandboxTokens.insufficientFundsOnce]: { brand: 'Visa', last4: '0341' },
  [sandboxTokens.retryAfter]: { brand: 'Visa', last4: '0119' },
  [sandboxTokens.stolenCard]: { brand: 'Visa', last4: '9979' },
  [sandboxTokens.threeDs]: { brand: 'Visa', last4: '3155' },
  [sandboxTokens.push]: { brand: 'Visa', last4: '3220' },
  [sandboxTokens.timeout]: { brand: 'Visa', last4: '0077' },
};

/** What confirming a sandbox setup did: saved (or refused) at once with its webhook, or a challenge first. */
export type SandboxSetupConfirmation =
  | { status: 'SUCCEEDED' | 'FAILED'; webhook: SandboxWebhook; failureCode: string | null }
  | { status: 'REQUIRES_ACTION'; challenge: { type: 'THREE_DS' | 'PUSH'; url: string | null } };

/** The default adapter (`sandbox`): a card network's test mode over the application's PostgreSQL. */
export class SandboxGateway extends SandboxChargeGateway implements PaymentGateway {
  /**
   * Starts a setup (`seti_sandbox_…`) with its client secret; the same key answers the same setup. The
   * sandbox keeps no customers, so `gatewayCustomer` stays null.
   */
  async createSetup(request: SetupRequest): Promise<SetupStarted> {
    const currency = currencyCode(request.currency);
    if (currency === null)
      return { status: 'REFUSED', code: 'invalid_currency', message: 'The currency is not valid.' };
    const reference = sandboxId('seti');
    const clientSecret = `${reference}_secret_${randomBytes(16).toString('hex')}`;
    const book: OperationBook = {
      request: { metadata: request.metadata, description: request.description },
      setup: { clientSecret },
    };
    const { row } = await this.claimKey(
      request.idempotencyKey,
      'SETUP',
      reference,
      '',
      '0',
      currency,
      book,
      'REQUIRES_PAYMENT_METHOD',
    );
    const secret = row.outcome?.setup?.clientSecret;
    if (row.kind !== 'SETUP' || !secret) {
      return {
        status: 'REFUSED',
        code: 'idempotency_key_reused',
        message: 'This idempotency key was used for a different request.',
      };
    }
    return { status: 'STARTED', reference: row.reference, clientSecret: secret, gatewayCustomer: null };
  }

  /**
   * The client's confirmation of a setup with a test token (what Stripe.js's confirmCardSetup does with
   * card details): a token whose charges hard-decline is refused, `tok_sandbox_3ds` and `tok_sandbox_push`
   * ask for a challenge first (answered on the challenge page), any other token is saved. Returns the
   * signed webhook announcing the outcome, which the caller feeds to the webhook path as if the sandbox had
   * posted it. Confirming again with the same token answers the same; another token is refused (NOT_WAITING).
   */
  async confirmSetup(
    reference: string,
    clientSecret: string,
    token: string,
    /** The tenant confirming it: another tenant's setup is unknown to it. */
    tenant?: string,
  ): Promise<SandboxSetupConfirmation> {
    const row = await this.setupRow(reference);
    const secret = row?.outcome?.setup?.clientSecret;
    const metadata = row?.outcome?.request?.metadata ?? {};
    if (
      !row ||
      !secret ||
      !sameSecret(secret, clientSecret) ||
      (tenant !== undefined && metadata.tenant !== tenant)
    )
      throw new SandboxRefusal('UNKNOWN_SETUP', `no sandbox setup ${reference} with that client secret`);
    const decided = sandboxTokenPattern.test(token)
      ? this.decideByToken(token, row.reference, metadata)
      : ({
          status: 'HARD_DECLINED',
          reference: row.reference,
          declineCode: 'invalid_source',
          message: 'The payment source is not valid.',
        } as const);
    const failure =
      decided?.status === 'HARD_DECLINED'
        ? { code: decided.declineCode, message: decided.message }
        : undefined;
    const challenge = decided?.status === 'CHALLENGE' ? { type: decided.challenge.type } : undefined;
    const status = failure ? 'FAILED' : challenge ? 'CHALLENGE' : 'SUCCEEDED';
    const setup = {
      clientSecret: secret,
      token,
      ...(challenge ? {} : { eventId: sandboxId('evt') }),
      ...(failure ? { failure } : {}),
    };
    const [updated] = await this.options.sql<OperationRow>(
      `update sandbox_gateway_operation
          set status = ?, source_token = ?, completed_at = case when ? then now() else null end,
              outcome = outcome || ?::jsonb
        where id = ? and status = 'REQUIRES_PAYMENT_METHOD'
        returning ${columns}`,
      [
        status,
        token,
        status !== 'CHALLENGE',
        jsonText({ setup, ...(challenge ? { challenge } : {}) }),
        row.id,
      ],
    );
    const current = updated ?? (await this.setupRow(reference));
    if (!current || current.outcome?.setup?.token !== token)
      throw new SandboxRefusal('NOT_WAITING', `the setup ${reference} was confirmed already`);
    const book = current.outcome;
    if (book?.challenge && !book.challenge.resolution) {
      return {
        status: 'REQUIRES_ACTION',
        challenge: {
          type: book.challenge.type,
          url: book.challenge.type === 'THREE_DS' ? this.challengeUrl(metadata, current.reference) : null,
        },
      };
    }
    const resolution = book?.challenge?.resolution;
    const eventId = resolution?.eventId ?? book?.setup?.eventId;
    if (!eventId) throw new Error(`sandbox gateway: setup ${reference} has no outcome`);
    const refusal =
      book?.setup?.failure ??
      (resolution && resolution.outcome !== 'SUCCEEDED'
        ? { code: resolution.outcome.toLowerCase(), message: `The challenge ended ${resolution.outcome}.` }
        : null);
    return {
      status: refusal ? 'FAILED' : 'SUCCEEDED',
      failureCode: refusal?.code ?? null,
      webhook: this.setupWebhook(eventId, current, refusal),
    };
  }

  /** The card a sandbox setup saved: its test token, shown as its test card. */
  /**
   * Detaching a saved method: its tokens are test cards every customer may use, so the sandbox records
   * what the removal sent (an operation of kind DETACH, as Stripe keeps the detach in its log) and the
   * token charges as it always does.
   */
  async detachPaymentMethod(sourceToken: string): Promise<void> {
    await this.options.sql(
      `insert into sandbox_gateway_operation
         (idempotency_key, kind, reference, source_token, amount_minor, currency, status, outcome, created_at, completed_at)
       values (?, 'DETACH', ?, ?, 0, 'XXX', 'SUCCEEDED', null, now(), now())`,
      [`detach:${randomUUID()}`, sandboxId('pmd'), sourceToken.slice(0, 200)],
    );
  }

  savedPaymentMethod(setup: SetupNotice): Promise<SavedPaymentMethod> {
    const token = setup.paymentMethod;
    if (!token || !sandboxTokenPattern.test(token))
      return Promise.reject(
        new SavedMethodRefusedError('resource_missing', `sandbox setup ${setup.reference} saved no token`),
      );
    const card = sandboxCards[token] ?? { brand: 'Card', last4: '0000' };
    return Promise.resolve({
      sourceToken: token,
      type: 'CARD',
      label: `${card.brand} •••• ${card.last4}`,
      expiry: `${new Date().getUTCFullYear() + 4}-12`,
    });
  }
}

/** Whether a client secret is the setup's (compared in constant time). */
function sameSecret(expected: string, given: string): boolean {
  const [a, b] = [Buffer.from(expected), Buffer.from(given)];
  return a.length === b.length && timingSafeEqual(a, b);
}
