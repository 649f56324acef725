// The sandbox payment gateway: the default adapter, behaving like a card network's test mode. The payment
// source's token selects the behaviour (tok_sandbox_visa succeeds, tok_sandbox_insufficient_funds soft
// declines, tok_sandbox_stolen_card hard declines, tok_sandbox_3ds and tok_sandbox_push ask for a
// challenge, tok_sandbox_timeout answers only to a retry; docs/finance.md "Payment gateways" lists them).
// It keeps its book, standing for the card network's side, in table sandbox_gateway_operation: one row
// per idempotency key, so a call retried with its key is answered from the row and performed once.
// Challenges and disputes reach finance as standardwebhooks-signed webhooks, like any gateway's.
// Saving a payment method is a setup (`seti_sandbox_…`, like Stripe's SetupIntent), announced as a signed
// SETUP_SUCCEEDED or SETUP_FAILED webhook; sandbox-setups.ts completes this class with it into SandboxGateway.
import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  GatewayUnavailableError,
  WebhookSignatureError,
  type ChargeOutcome,
  type ChargeRequest,
  type GatewayEvent,
  type RefundOutcome,
  type RefundRequest,
} from './port.js';
import { currencyCode, fromMinorUnits, toMinorUnits } from './minor-units.js';
import type { SqlRunner } from './sql-runner.js';

/** The tokens the sandbox understands; any other token charges as `tok_sandbox_visa`. */
export const sandboxTokens = {
  visa: 'tok_sandbox_visa',
  insufficientFunds: 'tok_sandbox_insufficient_funds',
  insufficientFundsOnce: 'tok_sandbox_insufficient_funds_once',
  retryAfter: 'tok_sandbox_retry_after',
  stolenCard: 'tok_sandbox_stolen_card',
  threeDs: 'tok_sandbox_3ds',
  push: 'tok_sandbox_push',
  timeout: 'tok_sandbox_timeout',
} as const;

/** A refund whose reason contains this answers FAILED (the bank refused to return the money). */
export const sandboxRefundFailureMarker = 'sandbox:fail';

/** How a customer answers a sandbox challenge (the challenge page's buttons). */
export type SandboxChallengeOutcome =
  'SUCCEEDED' | 'THREE_DS_FAILED' | 'PUSH_CANCELLED_BY_USER' | 'PUSH_BANK_REFUSED';

/** The answers each kind of challenge allows. */
export const sandboxChallengeOutcomes: Readonly<
  Record<'THREE_DS' | 'PUSH', readonly SandboxChallengeOutcome[]>
> = {
  THREE_DS: ['SUCCEEDED', 'THREE_DS_FAILED'],
  PUSH: ['SUCCEEDED', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED'],
};

/** Event types of the sandbox's webhooks (the port's names; CHALLENGE_SUCCEEDED means the charge succeeded). */
const sandboxEventTypes = [
  'CHALLENGE_SUCCEEDED',
  'THREE_DS_FAILED',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
  'DISPUTE_OPENED',
  'SETUP_SUCCEEDED',
  'SETUP_FAILED',
] as const;
type SandboxEventType = (typeof sandboxEventTypes)[number];

/** A webhook as the sandbox would POST it: the raw body and its standardwebhooks headers. */
export interface SandboxWebhook {
  body: Buffer;
  headers: {
    'webhook-id': string;
    'webhook-timestamp': string;
    'webhook-signature': string;
    'content-type': string;
  };
}

/** A sandbox charge's challenge as the challenge page shows it. */
export interface SandboxChallenge {
  reference: string;
  /** A charge's challenge, or a setup's (saving a card: nothing is charged, the amount is zero). */
  kind: 'CHARGE' | 'SETUP';
  type: 'THREE_DS' | 'PUSH';
  /** WAITING until answered, then the answer. */
  state: 'WAITING' | SandboxChallengeOutcome;
  amount: string;
  currency: string;
  description: string;
  /** The charge's metadata (tenant, paymentId, attempt). */
  metadata: Record<string, string>;
  outcomes: readonly SandboxChallengeOutcome[];
}

/** Why the sandbox refused an operator's or customer's action on a charge (not a charge or refund answer). */
export class SandboxRefusal extends Error {
  override readonly name = 'SandboxRefusal';
  constructor(
    readonly reason:
      'UNKNOWN_CHARGE' | 'UNKNOWN_SETUP' | 'NOT_WAITING' | 'OUTCOME_NOT_ALLOWED' | 'NOT_DISPUTABLE',
    message: string,
  ) {
    super(message);
  }
}

export interface SandboxGatewayOptions {
  sql: SqlRunner;
  /** standardwebhooks secret (`whsec_` + base64) the sandbox signs its webhooks with. */
  webhookSecret: string;
  /** How long the `timeout` token keeps a first call waiting before failing it. */
  timeoutMs: number;
  /** Where the app is reachable: 3-D Secure challenge URLs point at its sandbox challenge page. */
  publicBaseUrl: string;
}

/** A row of sandbox_gateway_operation as the adapter reads it. */
export interface OperationRow {
  id: number;
  idempotency_key: string;
  kind: 'CHARGE' | 'REFUND' | 'SETUP';
  reference: string;
  source_token: string;
  amount_minor: string;
  currency: string;
  status: string;
  outcome: OperationBook | null;
}

/** What the adapter keeps in a row's `outcome` column. */
export interface OperationBook {
  /** The request's details the row's columns do not hold. */
  request: {
    metadata: Record<string, string>;
    description?: string;
    reason?: string;
    chargeReference?: string;
  };
  /** The answer given, and given again to a retry with the same key. */
  answer?: ChargeOutcome | RefundOutcome;
  /** A challenge asked for, and its resolution once the customer answered. */
  challenge?: {
    type: 'THREE_DS' | 'PUSH';
    resolution?: { outcome: SandboxChallengeOutcome; eventId: string; at: string };
  };
  /** Refunds taken from this charge: refund reference → minor units (their sum never exceeds the charge). */
  refunds?: Record<string, string>;
  dispute?: { eventId: string; reason: string; at: string };
  /** A setup's secret, and once confirmed its token and the webhook announcing the outcome. */
  setup?: {
    clientSecret: string;
    token?: string;
    eventId?: string;
    failure?: { code: string; message: string };
  };
}

/** The columns of sandbox_gateway_operation the adapter selects, as OperationRow holds them. */
export const columns =
  'id, idempotency_key, kind, reference, source_token, amount_minor::text as amount_minor, currency, status, outcome';

/** An unguessable id with the sandbox's prefix (`ch_sandbox_…`, `re_sandbox_…`, `evt_sandbox_…`). */
export const sandboxId = (prefix: 'ch' | 're' | 'evt' | 'seti' | 'pmd') =>
  `${prefix}_sandbox_${randomBytes(16).toString('hex')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The sandbox's charges, refunds, webhooks, challenges and disputes; SandboxGateway (sandbox-setups.ts)
 * adds the payment-method setups and is the adapter (`sandbox`) the deployment runs.
 */
export abstract class SandboxChargeGateway {
  readonly name = 'sandbox';
  private readonly signer: Webhook;

  constructor(protected readonly options: SandboxGatewayOptions) {
    this.signer = new Webhook(options.webhookSecret);
  }

  /** Charges the token's way; a retry with the same key answers what the first call answered. */
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const currency = currencyCode(request.currency);
    const minor = currency === null ? null : toMinorUnits(request.amount, currency);
    const reference = sandboxId('ch');
    if (currency === null || minor === null) {
      return {
        status: 'HARD_DECLINED',
        reference,
        declineCode: 'invalid_amount',
        message: 'The amount or currency is not valid.',
      };
    }
    if (request.sourceToken.length === 0 || request.sourceToken.length > 200) {
      return {
        status: 'HARD_DECLINED',
        reference,
        declineCode: 'invalid_source',
        message: 'The payment source is not valid.',
      };
    }
    const book: OperationBook = { request: { metadata: request.metadata, description: request.description } };
    // Most tokens decide at once: the row is booked with its answer in the one INSERT that claims the key.
    const decided = this.decideByToken(request.sourceToken, reference, request.metadata);
    if (decided) {
      book.answer = decided;
      if (decided.status === 'CHALLENGE') book.challenge = { type: decided.challenge.type };
    }
    const { row, inserted } = await this.claimKey(
      request.idempotencyKey,
      'CHARGE',
      reference,
      request.sourceToken,
      minor,
      currency,
      book,
      decided?.status,
    );
    if (
      row.kind !== 'CHARGE' ||
      row.source_token !== request.sourceToken ||
      row.amount_minor !== minor ||
      row.currency !== currency
    ) {
      return {
        status: 'HARD_DECLINED',
        reference: row.reference,
        declineCode: 'idempotency_key_reused',
        message: 'This idempotency key was used for a different request.',
      };
    }
    const answered = answerOf(row);
    const answer =
      row.status !== 'PROCESSING' && answered ? (answered as ChargeOutcome) : await this.completeCharge(row);
    if (inserted && row.source_token === sandboxTokens.timeout) {
      // The charge is booked; the answer is lost on the way back, as with a network fault.
      await sleep(this.options.timeoutMs);
      throw new GatewayUnavailableError(
        `sandbox gateway: no answer within ${this.options.timeoutMs} ms (${sandboxTokens.timeout})`,
      );
    }
    return answer;
  }

  /** Refunds part or all of a succeeded sandbox charge; the charge's refunds never add up to more than it. */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const currency = currencyCode(request.currency);
    const minor = currency === null ? null : toMinorUnits(request.amount, currency);
    if (currency === null || minor === null) {
      return {
        status: 'FAILED',
        reference: null,
        code: 'invalid_amount',
        message: 'The amount or currency is not valid.',
      };
    }
    const [charge] = await this.options.sql<OperationRow>(
      `select ${columns} from sandbox_gateway_operation where reference = ? and kind = 'CHARGE'`,
      [request.chargeReference],
    );
    const book: OperationBook = {
      request: {
        metadata: request.metadata,
        reason: request.reason,
        chargeReference: request.chargeReference,
      },
    };
    const { row } = await this.claimKey(
      request.idempotencyKey,
      'REFUND',
      sandboxId('re'),
      charge?.source_token ?? '',
      minor,
      currency,
      book,
    );
    if (
      row.kind !== 'REFUND' ||
      row.amount_minor !== minor ||
      row.currency !== currency ||
      row.outcome?.request?.chargeReference !== request.chargeReference
    ) {
      return {
        status: 'FAILED',
        reference: null,
        code: 'idempotency_key_reused',
        message: 'This idempotency key was used for a different request.',
      };
    }
    const answered = answerOf(row);
    if (row.status !== 'PROCESSING' && answered) return answered as RefundOutcome;
    return this.completeRefund(row);
  }

  /** Verifies a sandbox webhook (standardwebhooks: HMAC-SHA256 over id, timestamp and raw body; 5 minutes' tolerance). */
  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): GatewayEvent {
    const wanted: Record<string, string> = {};
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const value = headers[name];
      if (typeof value !== 'string')
        throw new WebhookSignatureError(`sandbox webhook: header ${name} missing or repeated`);
      wanted[name] = value;
    }
    try {
      this.signer.verify(rawBody, wanted, { jsonParse: false });
    } catch (fault) {
      if (fault instanceof WebhookVerificationError)
        throw new WebhookSignatureError(`sandbox webhook: ${fault.message}`);
      throw new WebhookSignatureError('sandbox webhook: the signature could not be checked');
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new WebhookSignatureError('sandbox webhook: the signed body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new WebhookSignatureError('sandbox webhook: the signed body is not an event');
    }
    const event = body as {
      id?: unknown;
      type?: unknown;
      data?: {
        chargeReference?: unknown;
        metadata?: unknown;
        setupReference?: unknown;
        paymentMethod?: unknown;
        failureCode?: unknown;
        failureMessage?: unknown;
      };
    };
    if (event.id !== wanted['webhook-id'])
      throw new WebhookSignatureError('sandbox webhook: the body is not the signed message');
    const type = sandboxEventTypes.includes(event.type as SandboxEventType)
      ? (event.type as SandboxEventType)
      : 'IGNORED';
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const setupReference = text(event.data?.setupReference);
    return {
      id: event.id,
      type,
      chargeReference: text(event.data?.chargeReference),
      metadata: stringRecord(event.data?.metadata),
      payload: body as Record<string, unknown>,
      ...((type === 'SETUP_SUCCEEDED' || type === 'SETUP_FAILED') && setupReference
        ? {
            setup: {
              reference: setupReference,
              paymentMethod: text(event.data?.paymentMethod),
              gatewayCustomer: null,
              failureCode: text(event.data?.failureCode),
              failureMessage: text(event.data?.failureMessage),
            },
          }
        : {}),
    };
  }

  /** A sandbox charge's challenge (the challenge page); undefined for an unknown reference or a charge without one. */
  async challenge(reference: string): Promise<SandboxChallenge | undefined> {
    const row = await this.challengedRow(reference);
    const challenge = row?.outcome?.challenge;
    if (!row || !challenge) return undefined;
    return {
      reference: row.reference,
      kind: row.kind === 'SETUP' ? 'SETUP' : 'CHARGE',
      type: challenge.type,
      state: challenge.resolution?.outcome ?? 'WAITING',
      amount: fromMinorUnits(row.amount_minor, row.currency),
      currency: row.currency,
      description: row.kind === 'SETUP' ? 'Save a payment method' : (row.outcome?.request?.description ?? ''),
      metadata: row.outcome?.request?.metadata ?? {},
      outcomes: sandboxChallengeOutcomes[challenge.type],
    };
  }

  /**
   * The customer's answer to a 3-D Secure or push challenge: books it (a succeeded challenge makes the
   * charge succeeded) and returns the signed webhook announcing it, which the caller feeds to the webhook
   * path as if the gateway had posted it. Answering again the same way returns the same event; another
   * answer is refused (NOT_WAITING).
   */
  async resolveChallenge(reference: string, outcome: SandboxChallengeOutcome): Promise<SandboxWebhook> {
    const row = await this.challengedRow(reference);
    const challenge = row?.outcome?.challenge;
    if (!row || !challenge) throw new SandboxRefusal('UNKNOWN_CHARGE', `no sandbox challenge ${reference}`);
    if (!sandboxChallengeOutcomes[challenge.type].includes(outcome)) {
      throw new SandboxRefusal(
        'OUTCOME_NOT_ALLOWED',
        `a ${challenge.type} challenge cannot end as ${outcome}`,
      );
    }
    const resolution = { outcome, eventId: sandboxId('evt'), at: new Date().toISOString() };
    const [updated] = await this.options.sql<OperationRow>(
      `update sandbox_gateway_operation
          set status = ?, completed_at = now(),
              outcome = jsonb_set(outcome, '{challenge,resolution}', ?::jsonb)
        where id = ? and status = 'CHALLENGE'
        returning ${columns}`,
      [outcome, JSON.stringify(resolution), row.id],
    );
    const current = updated ?? (await this.challengedRow(reference));
    const stored = current?.outcome?.challenge?.resolution;
    if (!current || !stored || stored.outcome !== outcome) {
      throw new SandboxRefusal('NOT_WAITING', `the challenge of ${reference} was answered already`);
    }
    if (current.kind === 'SETUP') {
      // A setup's challenge: a completed one saves the card, any other answer refuses it.
      return this.setupWebhook(
        stored.eventId,
        current,
        outcome === 'SUCCEEDED'
          ? null
          : { code: outcome.toLowerCase(), message: `The ${challenge.type} challenge ended ${outcome}.` },
      );
    }
    const type: SandboxEventType = outcome === 'SUCCEEDED' ? 'CHALLENGE_SUCCEEDED' : outcome;
    return this.webhook(stored.eventId, type, current, {
      challengeType: challenge.type,
      answeredAt: stored.at,
    });
  }

  /**
   * Opens a dispute (chargeback) on a succeeded sandbox charge, as a cardholder's bank would, for tests
   * and operators: the charge can no longer be refunded, and the returned DISPUTE_OPENED webhook is fed
   * to the webhook path. Opening it again returns the same event.
   */
  async openDispute(chargeReference: string, reason = 'fraudulent'): Promise<SandboxWebhook> {
    const row = await this.chargeRow(chargeReference);
    if (!row) throw new SandboxRefusal('UNKNOWN_CHARGE', `no sandbox charge ${chargeReference}`);
    const dispute = { eventId: sandboxId('evt'), reason, at: new Date().toISOString() };
    const [updated] = await this.options.sql<OperationRow>(
      `update sandbox_gateway_operation
          set status = 'DISPUTED', outcome = jsonb_set(coalesce(outcome, '{}'::jsonb), '{dispute}', ?::jsonb)
        where id = ? and status = 'SUCCEEDED'
        returning ${columns}`,
      [JSON.stringify(dispute), row.id],
    );
    const current = updated ?? (await this.chargeRow(chargeReference));
    const stored = current?.outcome?.dispute;
    if (!current || !stored) {
      throw new SandboxRefusal(
        'NOT_DISPUTABLE',
        `sandbox charge ${chargeReference} has not succeeded (${row.status})`,
      );
    }
    return this.webhook(stored.eventId, 'DISPUTE_OPENED', current, {
      reason: stored.reason,
      openedAt: stored.at,
    });
  }

  /** Inserts the key's row unless it exists (a retry), and returns the row the key owns. */
  protected async claimKey(
    key: string,
    kind: 'CHARGE' | 'REFUND' | 'SETUP',
    reference: string,
    sourceToken: string,
    minor: string,
    currency: string,
    book: OperationBook,
    /** The answer's status when `book` holds the answer already (booked at once), else PROCESSING. */
    status: string = 'PROCESSING',
  ): Promise<{ row: OperationRow; inserted: boolean }> {
    if (key.length === 0 || key.length > 300)
      throw new Error(`sandbox gateway: idempotency key of ${key.length} characters`);
    const completed = !['PROCESSING', 'CHALLENGE', 'REQUIRES_PAYMENT_METHOD'].includes(status);
    const [inserted] = await this.options.sql<OperationRow>(
      `insert into sandbox_gateway_operation
         (idempotency_key, kind, reference, source_token, amount_minor, currency, status, outcome, created_at, completed_at)
       values (?, ?, ?, ?, ?::bigint, ?, ?, ?::jsonb, now(), case when ? then now() else null end)
       on conflict (idempotency_key) do nothing
       returning ${columns}`,
      [key, kind, reference, sourceToken, minor, currency, status, jsonText(book), completed],
    );
    if (inserted) return { row: inserted, inserted: true };
    const [existing] = await this.options.sql<OperationRow>(
      `select ${columns} from sandbox_gateway_operation where idempotency_key = ?`,
      [key],
    );
    if (!existing) throw new Error(`sandbox gateway: the row of key ${key} vanished`);
    return { row: existing, inserted: false };
  }

  /** Decides a PROCESSING charge from its token (also a row a crashed call left) and books the answer once. */
  private async completeCharge(row: OperationRow): Promise<ChargeOutcome> {
    const answer = await this.decideCharge(row);
    const challenge = answer.status === 'CHALLENGE' ? { type: answer.challenge.type } : undefined;
    return (await this.storeAnswer(row, answer.status, answer, challenge)) as ChargeOutcome;
  }

  private async decideCharge(row: OperationRow): Promise<ChargeOutcome> {
    const reference = row.reference;
    const metadata = row.outcome?.request?.metadata ?? {};
    const decided = this.decideByToken(row.source_token, reference, metadata);
    if (decided) return decided;
    // tok_sandbox_insufficient_funds_once: declines the first charge of a payment, then succeeds.
    const [earlier] = await this.options.sql(
      `select 1 from sandbox_gateway_operation
        where kind = 'CHARGE' and source_token = ? and amount_minor = ?::bigint and currency = ? and id < ?
          and (outcome->'request'->'metadata'->>'paymentId') is not distinct from ?
          and (outcome->'request'->'metadata'->>'tenant') is not distinct from ?
        limit 1`,
      [
        row.source_token,
        row.amount_minor,
        row.currency,
        row.id,
        metadata.paymentId ?? null,
        metadata.tenant ?? null,
      ],
    );
    return earlier
      ? { status: 'SUCCEEDED', reference }
      : {
          status: 'SOFT_DECLINED',
          reference,
          declineCode: 'insufficient_funds',
          message: 'Your card has insufficient funds.',
        };
  }

  /** A charge's answer decided by its token alone; undefined for the token that reads the book first. */
  protected decideByToken(
    token: string,
    reference: string,
    metadata: Record<string, string>,
  ): ChargeOutcome | undefined {
    switch (token) {
      case sandboxTokens.insufficientFunds:
        return {
          status: 'SOFT_DECLINED',
          reference,
          declineCode: 'insufficient_funds',
          message: 'Your card has insufficient funds.',
        };
      case sandboxTokens.insufficientFundsOnce:
        return undefined;
      case sandboxTokens.retryAfter:
        return {
          status: 'SOFT_DECLINED',
          reference,
          declineCode: 'try_again_later',
          message: 'The card issuer asks to try again later.',
          retryAfterSeconds: 3600,
        };
      case sandboxTokens.stolenCard:
        return {
          status: 'HARD_DECLINED',
          reference,
          declineCode: 'stolen_card',
          message: 'Your card was declined.',
        };
      case sandboxTokens.threeDs:
        return {
          status: 'CHALLENGE',
          reference,
          challenge: { type: 'THREE_DS', url: this.challengeUrl(metadata, reference) },
        };
      case sandboxTokens.push:
        return { status: 'CHALLENGE', reference, challenge: { type: 'PUSH', url: null } };
      default:
        // tok_sandbox_visa, tok_sandbox_timeout (booked before its answer is lost) and any other token.
        return { status: 'SUCCEEDED', reference };
    }
  }

  /** The app's sandbox challenge page for this charge (api/routes/front/sandbox-gateway-challenges.ts). */
  protected challengeUrl(metadata: Record<string, string>, reference: string): string {
    const base = this.options.publicBaseUrl.replace(/\/+$/, '');
    const tenant = encodeURIComponent(metadata.tenant ?? '-');
    return `${base}/v1/${tenant}/front/sandbox-gateway/challenges/${reference}`;
  }

  /** Refunds a PROCESSING refund row against its charge (also a row a crashed call left), booked once. */
  private async completeRefund(row: OperationRow): Promise<RefundOutcome> {
    const request = row.outcome?.request ?? { metadata: {} };
    const chargeReference = request.chargeReference ?? '';
    let answer: RefundOutcome;
    if ((request.reason ?? '').includes(sandboxRefundFailureMarker)) {
      answer = {
        status: 'FAILED',
        reference: row.reference,
        code: 'refund_declined',
        message: 'The card issuer refused the refund.',
      };
    } else {
      // One conditional update takes the refund from the charge: PostgreSQL re-checks the condition on the
      // row's newest version, so two refunds at once never exceed the charged amount together.
      const [taken] = await this.options.sql(
        `update sandbox_gateway_operation
            set outcome = jsonb_set(coalesce(outcome, '{}'::jsonb), '{refunds}', coalesce(outcome->'refunds', '{}'::jsonb) || jsonb_build_object(?::text, ?::text))
          where kind = 'CHARGE' and reference = ? and status = 'SUCCEEDED' and currency = ?
            and (outcome->'refunds'->>?::text) is null
            and (select coalesce(sum(value::bigint), 0) from jsonb_each_text(coalesce(outcome->'refunds', '{}'::jsonb))) + ?::bigint <= amount_minor
          returning id`,
        [row.reference, row.amount_minor, chargeReference, row.currency, row.reference, row.amount_minor],
      );
      const charge = taken ? undefined : await this.chargeRow(chargeReference);
      if (taken || charge?.outcome?.refunds?.[row.reference] !== undefined) {
        answer = { status: 'SUCCEEDED', reference: row.reference };
      } else {
        answer = refundRefusal(charge, row);
      }
    }
    return (await this.storeAnswer(row, answer.status, answer)) as RefundOutcome;
  }

  /** Books a PROCESSING row's answer; when another call booked it first, returns that call's answer. */
  private async storeAnswer(
    row: OperationRow,
    status: string,
    answer: ChargeOutcome | RefundOutcome,
    challenge?: OperationBook['challenge'],
  ): Promise<ChargeOutcome | RefundOutcome> {
    const [stored] = await this.options.sql<OperationRow>(
      `update sandbox_gateway_operation
          set status = ?, completed_at = case when ? then now() else null end,
              outcome = outcome || ?::jsonb
        where id = ? and status = 'PROCESSING'
        returning ${columns}`,
      [status, status !== 'CHALLENGE', jsonText(challenge ? { answer, challenge } : { answer }), row.id],
    );
    if (stored) return answer;
    const [current] = await this.options.sql<OperationRow>(
      `select ${columns} from sandbox_gateway_operation where id = ?`,
      [row.id],
    );
    const answered = current && answerOf(current);
    if (!answered) throw new Error(`sandbox gateway: operation ${row.id} has no answer`);
    return answered;
  }

  /** A charge or setup that may carry a challenge. */
  private challengedRow(reference: string): Promise<OperationRow | undefined> {
    return reference.startsWith('seti_') ? this.setupRow(reference) : this.chargeRow(reference);
  }

  protected async setupRow(reference: string): Promise<OperationRow | undefined> {
    if (!/^seti_sandbox_[A-Za-z0-9_-]{1,51}$/.test(reference)) return undefined;
    const [row] = await this.options.sql<OperationRow>(
      `select ${columns} from sandbox_gateway_operation where reference = ? and kind = 'SETUP'`,
      [reference],
    );
    return row;
  }

  /** A webhook about a setup's outcome (the saved token, or why it was refused), signed now. */
  protected setupWebhook(
    eventId: string,
    setup: OperationRow,
    failure: { code: string; message: string } | null,
  ): SandboxWebhook {
    const type: SandboxEventType = failure ? 'SETUP_FAILED' : 'SETUP_SUCCEEDED';
    const body = Buffer.from(
      JSON.stringify({
        id: eventId,
        type,
        data: {
          setupReference: setup.reference,
          paymentMethod: failure ? null : setup.source_token,
          failureCode: failure?.code ?? null,
          failureMessage: failure?.message ?? null,
          metadata: setup.outcome?.request?.metadata ?? {},
        },
      }),
    );
    return this.signed(eventId, body);
  }

  private signed(eventId: string, body: Buffer): SandboxWebhook {
    const now = new Date();
    return {
      body,
      headers: {
        'webhook-id': eventId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': this.signer.sign(eventId, now, body),
        'content-type': 'application/json',
      },
    };
  }

  private async chargeRow(reference: string): Promise<OperationRow | undefined> {
    if (!/^ch_sandbox_[A-Za-z0-9_-]{1,53}$/.test(reference)) return undefined;
    const [row] = await this.options.sql<OperationRow>(
      `select ${columns} from sandbox_gateway_operation where reference = ? and kind = 'CHARGE'`,
      [reference],
    );
    return row;
  }

  /** A webhook about a charge, signed now with the sandbox's secret. */
  private webhook(
    eventId: string,
    type: SandboxEventType,
    charge: OperationRow,
    details: Record<string, string>,
  ): SandboxWebhook {
    const body = Buffer.from(
      JSON.stringify({
        id: eventId,
        type,
        data: {
          chargeReference: charge.reference,
          amount: fromMinorUnits(charge.amount_minor, charge.currency),
          currency: charge.currency,
          metadata: charge.outcome?.request?.metadata ?? {},
          ...details,
        },
      }),
    );
    const now = new Date();
    return {
      body,
      headers: {
        'webhook-id': eventId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': this.signer.sign(eventId, now, body),
        'content-type': 'application/json',
      },
    };
  }
}

/** The answer a row gives again; rows written by hand (the demo seed) may hold it as the whole `outcome`. */
function answerOf(row: OperationRow): ChargeOutcome | RefundOutcome | undefined {
  const outcome = row.outcome as (OperationBook & { status?: string }) | null;
  if (outcome?.answer) return outcome.answer;
  return typeof outcome?.status === 'string'
    ? (outcome as unknown as ChargeOutcome | RefundOutcome)
    : undefined;
}

/** Why a refund could not be taken from its charge, in Stripe's words where Stripe has them. */
function refundRefusal(charge: OperationRow | undefined, refund: OperationRow): RefundOutcome {
  if (!charge)
    return { status: 'FAILED', reference: null, code: 'charge_not_found', message: 'No such charge.' };
  if (charge.status === 'DISPUTED') {
    return { status: 'FAILED', reference: null, code: 'charge_disputed', message: 'The charge is disputed.' };
  }
  if (charge.status !== 'SUCCEEDED') {
    return {
      status: 'FAILED',
      reference: null,
      code: 'charge_not_succeeded',
      message: `The charge is ${charge.status}, not succeeded.`,
    };
  }
  if (charge.currency !== refund.currency) {
    return {
      status: 'FAILED',
      reference: null,
      code: 'currency_mismatch',
      message: `The charge is in ${charge.currency}.`,
    };
  }
  return {
    status: 'FAILED',
    reference: null,
    code: 'amount_too_large',
    message: 'The refund is greater than what remains unrefunded on the charge.',
  };
}

/** JSON for a jsonb parameter: PostgreSQL's jsonb cannot hold U+0000, so it is replaced. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
