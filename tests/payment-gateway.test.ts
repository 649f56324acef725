// The sandbox payment gateway against the real PostgreSQL (every test token, one charge per idempotency
// key, refunds within the charge, challenges and disputes as signed webhooks), and the webhook endpoint
// and challenge page over HTTP against the whole stack (signature checks, redeliveries, hostile bodies,
// a 3-D Secure payment completed on the challenge page, a dispute). The Stripe adapter has its own suite
// (payment-gateway-stripe.test.ts).
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { connectOrm } from '../composition/orm.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentWebhookEvent } from '../db/entities/PaymentWebhookEvent.js';
import { tenantEm } from '../db/orm.js';
import { loadConfig } from '../platform/config.js';
import {
  createPaymentGateways,
  sandboxOf,
  type ConfiguredPaymentGateways,
  type SqlRunner,
} from '../platform/payment-gateway/index.js';
import {
  GatewayUnavailableError,
  WebhookSignatureError,
  type ChargeRequest,
  type RefundRequest,
} from '../platform/payment-gateway/port.js';
import type { SandboxGateway } from '../platform/payment-gateway/sandbox-setups.js';
import { SandboxRefusal, sandboxTokens, type SandboxWebhook } from '../platform/payment-gateway/sandbox.js';
import { expectError } from './support/http.js';
import { billAndPay, openInvoice, payingCustomer, type FinanceBackend } from './support/payments.js';
import { startSession, type Session } from './support/session.js';

const secretOf = (text: string) => `whsec_${Buffer.from(text).toString('base64')}`;
const testSecret = secretOf('payment-gateway-test-secret');

const chargeRequest = (sourceToken: string, overrides: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `test:${randomUUID()}`,
  amount: '12.50',
  currency: 'EUR',
  sourceToken,
  description: 'Invoice T-1',
  metadata: { tenant: 'acme', paymentId: randomUUID(), attempt: '1' },
  ...overrides,
});

const refundRequest = (
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

/** Polls until `probe` returns a value (not undefined), or fails after `timeoutMs`. */
async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the sandbox gateway', () => {
  let orm: MikroORM;
  let sql: SqlRunner;
  let gateways: ConfiguredPaymentGateways;
  let sandbox: SandboxGateway;

  beforeAll(async () => {
    orm = await connectOrm(process.env.DATABASE_URL!, { pool: { min: 0, max: 8 } });
    sql = async <Row>(text: string, params: readonly unknown[] = []) =>
      (await orm.em.getConnection().execute(text, [...params])) as Row[];
    gateways = createPaymentGateways({
      sql,
      sandboxWebhookSecret: testSecret,
      sandboxTimeoutMs: 400,
      publicBaseUrl: 'https://fleet.example/',
    });
    sandbox = gateways.sandbox;
  });
  afterAll(async () => orm.close());

  const rowsOf = (key: string) =>
    sql<{ kind: string; status: string; reference: string; amount_minor: string }>(
      'select kind, status, reference, amount_minor::text as amount_minor from sandbox_gateway_operation where idempotency_key = ?',
      [key],
    );

  test('is the default without a Stripe key, and found by name', () => {
    expect(gateways.default).toBe(sandbox);
    expect(gateways.byName('sandbox')).toBe(sandbox);
    expect(gateways.byName('stripe')).toBeUndefined();
    expect(gateways.stripe).toBeUndefined();
  });

  describe('tokens', () => {
    test('tok_sandbox_visa and any unknown token succeed', async () => {
      for (const token of [sandboxTokens.visa, 'tok_sandbox_mastercard', 'pm_anything']) {
        const outcome = await sandbox.charge(chargeRequest(token));
        expect(outcome).toEqual({
          status: 'SUCCEEDED',
          reference: expect.stringMatching(/^ch_sandbox_[0-9a-f]{32}$/),
        });
      }
    });

    test('insufficient funds, retry-after and a stolen card decline; 3-D Secure and push ask for a challenge', async () => {
      expect(await sandbox.charge(chargeRequest(sandboxTokens.insufficientFunds))).toEqual({
        status: 'SOFT_DECLINED',
        reference: expect.stringMatching(/^ch_sandbox_/),
        declineCode: 'insufficient_funds',
        message: expect.any(String),
      });
      expect(await sandbox.charge(chargeRequest(sandboxTokens.retryAfter))).toMatchObject({
        status: 'SOFT_DECLINED',
        retryAfterSeconds: 3600,
      });
      expect(await sandbox.charge(chargeRequest(sandboxTokens.stolenCard))).toMatchObject({
        status: 'HARD_DECLINED',
        declineCode: 'stolen_card',
      });
      const threeDs = await sandbox.charge(chargeRequest(sandboxTokens.threeDs));
      expect(threeDs).toEqual({
        status: 'CHALLENGE',
        reference: expect.stringMatching(/^ch_sandbox_/),
        challenge: {
          type: 'THREE_DS',
          url: `https://fleet.example/v1/acme/front/sandbox-gateway/challenges/${threeDs.reference}`,
        },
      });
      expect(await sandbox.charge(chargeRequest(sandboxTokens.push))).toMatchObject({
        status: 'CHALLENGE',
        challenge: { type: 'PUSH', url: null },
      });
    });

    test('insufficient funds once: the first charge of a payment and amount declines, the next succeeds', async () => {
      const metadata = { tenant: 'acme', paymentId: randomUUID(), attempt: '1' };
      const first = await sandbox.charge(chargeRequest(sandboxTokens.insufficientFundsOnce, { metadata }));
      expect(first).toMatchObject({ status: 'SOFT_DECLINED', declineCode: 'insufficient_funds' });
      const retry = await sandbox.charge(
        chargeRequest(sandboxTokens.insufficientFundsOnce, { metadata: { ...metadata, attempt: '2' } }),
      );
      expect(retry.status).toBe('SUCCEEDED');
      // Another payment, or another amount, is a first charge again.
      const other = await sandbox.charge(chargeRequest(sandboxTokens.insufficientFundsOnce));
      expect(other.status).toBe('SOFT_DECLINED');
      const otherAmount = await sandbox.charge(
        chargeRequest(sandboxTokens.insufficientFundsOnce, { metadata, amount: '13.00' }),
      );
      expect(otherAmount.status).toBe('SOFT_DECLINED');
    });

    test('timeout: the first call books the charge and fails after the delay; its retry answers SUCCEEDED', async () => {
      const request = chargeRequest(sandboxTokens.timeout);
      const started = Date.now();
      await expect(sandbox.charge(request)).rejects.toBeInstanceOf(GatewayUnavailableError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(390);
      const [booked] = await rowsOf(request.idempotencyKey);
      expect(booked).toMatchObject({ kind: 'CHARGE', status: 'SUCCEEDED', amount_minor: '1250' });
      const retried = await sandbox.charge(request);
      expect(retried).toEqual({ status: 'SUCCEEDED', reference: booked!.reference });
      expect(await rowsOf(request.idempotencyKey)).toHaveLength(1);
    });
  });

  describe('idempotency', () => {
    test('the same key twice is one row and one charge; at once too', async () => {
      const request = chargeRequest(sandboxTokens.visa);
      const first = await sandbox.charge(request);
      const again = await sandbox.charge(request);
      expect(again).toEqual(first);
      const concurrent = chargeRequest(sandboxTokens.insufficientFundsOnce);
      const answers = await Promise.all(Array.from({ length: 6 }, () => sandbox.charge(concurrent)));
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      expect(answers[0]!.status).toBe('SOFT_DECLINED');
      expect(await rowsOf(request.idempotencyKey)).toHaveLength(1);
      expect(await rowsOf(concurrent.idempotencyKey)).toHaveLength(1);
    });

    test('a key reused for another amount or source is refused without a second charge', async () => {
      const request = chargeRequest(sandboxTokens.visa);
      const first = await sandbox.charge(request);
      expect(await sandbox.charge({ ...request, amount: '99.00' })).toMatchObject({
        status: 'HARD_DECLINED',
        reference: first.reference,
        declineCode: 'idempotency_key_reused',
      });
      expect(await sandbox.charge({ ...request, sourceToken: sandboxTokens.stolenCard })).toMatchObject({
        declineCode: 'idempotency_key_reused',
      });
      expect(
        await sandbox.refund(
          refundRequest(first.reference, '1.00', { idempotencyKey: request.idempotencyKey }),
        ),
      ).toMatchObject({
        status: 'FAILED',
        code: 'idempotency_key_reused',
      });
      expect(await rowsOf(request.idempotencyKey)).toEqual([
        expect.objectContaining({ status: 'SUCCEEDED', amount_minor: '1250' }),
      ]);
    });

    test("a row a crashed call left PROCESSING is completed by the retry, with the token's answer", async () => {
      const key = `test:crashed:${randomUUID()}`;
      const reference = `ch_sandbox_${randomUUID().replaceAll('-', '')}`;
      await sql(
        `insert into sandbox_gateway_operation (idempotency_key, kind, reference, source_token, amount_minor, currency, status, outcome, created_at)
         values (?, 'CHARGE', ?, ?, 1250, 'EUR', 'PROCESSING', ?::jsonb, now())`,
        [
          key,
          reference,
          sandboxTokens.timeout,
          JSON.stringify({ request: { metadata: { tenant: 'acme' } } }),
        ],
      );
      // The timeout token's retry neither waits nor fails: the charge was booked by the crashed call.
      const started = Date.now();
      const outcome = await sandbox.charge(chargeRequest(sandboxTokens.timeout, { idempotencyKey: key }));
      expect(outcome).toEqual({ status: 'SUCCEEDED', reference });
      expect(Date.now() - started).toBeLessThan(390);
      expect(await rowsOf(key)).toEqual([expect.objectContaining({ status: 'SUCCEEDED', reference })]);
    });

    test('amounts the currency cannot carry are declined, never rounded', async () => {
      for (const amount of [
        '12.505',
        '0',
        '0.00',
        '-1.00',
        '1e3',
        '0x10',
        ' 1.00',
        '1,00',
        '',
        '12345678901234567.00',
      ])
        expect(await sandbox.charge(chargeRequest(sandboxTokens.visa, { amount }))).toMatchObject({
          status: 'HARD_DECLINED',
          declineCode: 'invalid_amount',
        });
      expect(await sandbox.charge(chargeRequest(sandboxTokens.visa, { currency: 'E\u0000R' }))).toMatchObject(
        {
          declineCode: 'invalid_amount',
        },
      );
      const yen = chargeRequest(sandboxTokens.visa, { amount: '150', currency: 'jpy' });
      expect((await sandbox.charge(yen)).status).toBe('SUCCEEDED');
      expect(await rowsOf(yen.idempotencyKey)).toEqual([expect.objectContaining({ amount_minor: '150' })]);
      expect(
        await sandbox.charge(chargeRequest(sandboxTokens.visa, { amount: '1.5', currency: 'JPY' })),
      ).toMatchObject({
        declineCode: 'invalid_amount',
      });
    });

    test('metadata with NUL characters is kept (as U+FFFD)', async () => {
      const request = chargeRequest(sandboxTokens.visa, {
        metadata: { tenant: 'acme', note: 'a\u0000b' },
        description: 'x\u0000y',
      });
      expect((await sandbox.charge(request)).status).toBe('SUCCEEDED');
    });
  });

  describe('refunds', () => {
    test('partial refunds add up to the charge and never beyond it; a retry with its key refunds once', async () => {
      const charge = await sandbox.charge(chargeRequest(sandboxTokens.visa));
      const first = refundRequest(charge.reference, '5.00');
      const refunded = await sandbox.refund(first);
      expect(refunded).toEqual({
        status: 'SUCCEEDED',
        reference: expect.stringMatching(/^re_sandbox_[0-9a-f]{32}$/),
      });
      expect(await sandbox.refund(first)).toEqual(refunded);
      expect(await sandbox.refund(refundRequest(charge.reference, '7.51'))).toEqual({
        status: 'FAILED',
        reference: null,
        code: 'amount_too_large',
        message: expect.any(String),
      });
      expect((await sandbox.refund(refundRequest(charge.reference, '7.50'))).status).toBe('SUCCEEDED');
      expect(await sandbox.refund(refundRequest(charge.reference, '0.01'))).toMatchObject({
        code: 'amount_too_large',
      });
      expect(await rowsOf(first.idempotencyKey)).toHaveLength(1);
    });

    test('a refund over the charged amount is refused at once', async () => {
      const charge = await sandbox.charge(chargeRequest(sandboxTokens.visa));
      expect(await sandbox.refund(refundRequest(charge.reference, '12.51'))).toMatchObject({
        status: 'FAILED',
        code: 'amount_too_large',
      });
      expect((await sandbox.refund(refundRequest(charge.reference, '12.50'))).status).toBe('SUCCEEDED');
    });

    test('refunds at once never exceed the charge together', async () => {
      const charge = await sandbox.charge(chargeRequest(sandboxTokens.visa, { amount: '10.00' }));
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => sandbox.refund(refundRequest(charge.reference, '3.00'))),
      );
      expect(answers.filter((answer) => answer.status === 'SUCCEEDED')).toHaveLength(3);
      expect(
        answers.filter((answer) => answer.status === 'FAILED' && answer.code === 'amount_too_large'),
      ).toHaveLength(3);
    });

    test('refunds of unknown, declined or other-currency charges fail; `sandbox:fail` makes the bank refuse', async () => {
      expect(await sandbox.refund(refundRequest('ch_sandbox_unknown', '1.00'))).toMatchObject({
        status: 'FAILED',
        code: 'charge_not_found',
      });
      const declined = await sandbox.charge(chargeRequest(sandboxTokens.stolenCard));
      expect(await sandbox.refund(refundRequest(declined.reference, '1.00'))).toMatchObject({
        code: 'charge_not_succeeded',
      });
      const challenged = await sandbox.charge(chargeRequest(sandboxTokens.threeDs));
      expect(await sandbox.refund(refundRequest(challenged.reference, '1.00'))).toMatchObject({
        code: 'charge_not_succeeded',
      });
      const paid = await sandbox.charge(chargeRequest(sandboxTokens.visa));
      expect(await sandbox.refund(refundRequest(paid.reference, '1.00', { currency: 'CHF' }))).toMatchObject({
        code: 'currency_mismatch',
      });
      expect(await sandbox.refund(refundRequest(paid.reference, '1.001'))).toMatchObject({
        code: 'invalid_amount',
      });
      const refused = await sandbox.refund(
        refundRequest(paid.reference, '1.00', { reason: 'test sandbox:fail' }),
      );
      expect(refused).toEqual({
        status: 'FAILED',
        reference: expect.stringMatching(/^re_sandbox_/),
        code: 'refund_declined',
        message: expect.any(String),
      });
      // The refused refund took nothing from the charge.
      expect((await sandbox.refund(refundRequest(paid.reference, '12.50'))).status).toBe('SUCCEEDED');
    });
  });

  describe('challenges and disputes', () => {
    test('a 3-D Secure challenge answered once becomes a signed webhook; the same answer again is the same event', async () => {
      const request = chargeRequest(sandboxTokens.threeDs);
      const charge = await sandbox.charge(request);
      expect(await sandbox.challenge(charge.reference)).toEqual({
        reference: charge.reference,
        kind: 'CHARGE',
        type: 'THREE_DS',
        state: 'WAITING',
        amount: '12.50',
        currency: 'EUR',
        description: 'Invoice T-1',
        metadata: request.metadata,
        outcomes: ['SUCCEEDED', 'THREE_DS_FAILED'],
      });
      await expect(sandbox.resolveChallenge(charge.reference, 'PUSH_BANK_REFUSED')).rejects.toMatchObject({
        reason: 'OUTCOME_NOT_ALLOWED',
      });
      const webhook = await sandbox.resolveChallenge(charge.reference, 'SUCCEEDED');
      const event = sandbox.verifyWebhook(webhook.body, webhook.headers);
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_sandbox_/),
        type: 'CHALLENGE_SUCCEEDED',
        chargeReference: charge.reference,
        metadata: request.metadata,
        payload: expect.objectContaining({ id: webhook.headers['webhook-id'] }),
      });
      const again = await sandbox.resolveChallenge(charge.reference, 'SUCCEEDED');
      expect(again.headers['webhook-id']).toBe(webhook.headers['webhook-id']);
      await expect(sandbox.resolveChallenge(charge.reference, 'THREE_DS_FAILED')).rejects.toMatchObject({
        reason: 'NOT_WAITING',
      });
      expect((await sandbox.challenge(charge.reference))?.state).toBe('SUCCEEDED');
      // The charge's retry answers what the charge answered (like Stripe's idempotent replay); the
      // completed charge can be refunded.
      expect(await sandbox.charge(request)).toEqual(charge);
      expect((await sandbox.refund(refundRequest(charge.reference, '12.50'))).status).toBe('SUCCEEDED');
    });

    test('push challenges end as cancelled or refused', async () => {
      for (const outcome of ['PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED'] as const) {
        const charge = await sandbox.charge(chargeRequest(sandboxTokens.push));
        await expect(sandbox.resolveChallenge(charge.reference, 'THREE_DS_FAILED')).rejects.toBeInstanceOf(
          SandboxRefusal,
        );
        const webhook = await sandbox.resolveChallenge(charge.reference, outcome);
        expect(sandbox.verifyWebhook(webhook.body, webhook.headers).type).toBe(outcome);
        expect(await sandbox.refund(refundRequest(charge.reference, '1.00'))).toMatchObject({
          code: 'charge_not_succeeded',
        });
      }
    });

    test('unknown references are refused', async () => {
      await expect(sandbox.resolveChallenge('ch_sandbox_nope', 'SUCCEEDED')).rejects.toMatchObject({
        reason: 'UNKNOWN_CHARGE',
      });
      const plain = await sandbox.charge(chargeRequest(sandboxTokens.visa));
      await expect(sandbox.resolveChallenge(plain.reference, 'SUCCEEDED')).rejects.toMatchObject({
        reason: 'UNKNOWN_CHARGE',
      });
      await expect(sandbox.openDispute("ch_sandbox_x' or 1=1 --")).rejects.toMatchObject({
        reason: 'UNKNOWN_CHARGE',
      });
      expect(await sandbox.challenge('ch_sandbox_\u0000')).toBeUndefined();
    });

    test('a dispute is a signed DISPUTE_OPENED webhook, once; the charge can no longer be refunded', async () => {
      const charge = await sandbox.charge(chargeRequest(sandboxTokens.visa));
      const webhook = await sandbox.openDispute(charge.reference, 'product_not_received');
      expect(sandbox.verifyWebhook(webhook.body, webhook.headers)).toMatchObject({
        type: 'DISPUTE_OPENED',
        chargeReference: charge.reference,
        payload: { data: expect.objectContaining({ reason: 'product_not_received', amount: '12.50' }) },
      });
      expect((await sandbox.openDispute(charge.reference)).headers['webhook-id']).toBe(
        webhook.headers['webhook-id'],
      );
      expect(await sandbox.refund(refundRequest(charge.reference, '1.00'))).toMatchObject({
        code: 'charge_disputed',
      });
      const declined = await sandbox.charge(chargeRequest(sandboxTokens.insufficientFunds));
      await expect(sandbox.openDispute(declined.reference)).rejects.toMatchObject({
        reason: 'NOT_DISPUTABLE',
      });
    });
  });

  describe('setups (saving a payment method)', () => {
    const setupRequest = (key = `payment-setup:acme:${randomUUID()}`) => ({
      idempotencyKey: key,
      gatewayCustomer: null,
      description: 'Customer 1, tenant acme',
      currency: 'EUR',
      metadata: { tenant: 'acme', setupId: '1' },
    });
    const startedSetup = async (key?: string) => {
      const started = await sandbox.createSetup(setupRequest(key));
      if (started.status !== 'STARTED') throw new Error(`setup refused: ${started.message}`);
      return started;
    };

    test('a setup is created once per key, with a client secret, and saved by its confirmation', async () => {
      const key = `payment-setup:acme:${randomUUID()}`;
      const setup = await startedSetup(key);
      expect(setup).toEqual({
        status: 'STARTED',
        reference: expect.stringMatching(/^seti_sandbox_[0-9a-f]{32}$/),
        clientSecret: expect.stringMatching(/^seti_sandbox_[0-9a-f]{32}_secret_[0-9a-f]{32}$/),
        gatewayCustomer: null,
      });
      expect(await sandbox.createSetup(setupRequest(key))).toEqual(setup);
      expect(await rowsOf(key)).toEqual([
        expect.objectContaining({ kind: 'SETUP', status: 'REQUIRES_PAYMENT_METHOD', amount_minor: '0' }),
      ]);
      await expect(sandbox.confirmSetup(setup.reference, 'wrong', sandboxTokens.visa)).rejects.toMatchObject({
        reason: 'UNKNOWN_SETUP',
      });
      await expect(
        sandbox.confirmSetup(setup.reference, setup.clientSecret, sandboxTokens.visa, 'other-tenant'),
      ).rejects.toMatchObject({ reason: 'UNKNOWN_SETUP' });
      const confirmed = await sandbox.confirmSetup(setup.reference, setup.clientSecret, sandboxTokens.visa);
      expect(confirmed).toMatchObject({ status: 'SUCCEEDED', failureCode: null });
      if (confirmed.status === 'REQUIRES_ACTION') throw new Error('no challenge expected');
      const event = sandbox.verifyWebhook(confirmed.webhook.body, confirmed.webhook.headers);
      expect(event).toMatchObject({
        type: 'SETUP_SUCCEEDED',
        chargeReference: null,
        metadata: { tenant: 'acme', setupId: '1' },
        setup: { reference: setup.reference, paymentMethod: sandboxTokens.visa, failureCode: null },
      });
      expect(await sandbox.savedPaymentMethod(event.setup!)).toEqual({
        sourceToken: sandboxTokens.visa,
        type: 'CARD',
        label: 'Visa •••• 4242',
        expiry: expect.stringMatching(/^\d{4}-12$/),
      });
      // The same confirmation again is the same event; another token is refused.
      const again = await sandbox.confirmSetup(setup.reference, setup.clientSecret, sandboxTokens.visa);
      if (again.status === 'REQUIRES_ACTION') throw new Error('no challenge expected');
      expect(again.webhook.headers['webhook-id']).toBe(confirmed.webhook.headers['webhook-id']);
      await expect(
        sandbox.confirmSetup(setup.reference, setup.clientSecret, sandboxTokens.push),
      ).rejects.toMatchObject({ reason: 'NOT_WAITING' });
      await expect(
        sandbox.charge(chargeRequest(sandboxTokens.visa, { idempotencyKey: key })),
      ).resolves.toMatchObject({
        status: 'HARD_DECLINED',
        declineCode: 'idempotency_key_reused',
      });
    });

    test('a hard-declining card or a non-token is refused; 3-D Secure asks for a challenge first', async () => {
      for (const token of [sandboxTokens.stolenCard, 'pm_card_visa']) {
        const setup = await startedSetup();
        const refused = await sandbox.confirmSetup(setup.reference, setup.clientSecret, token);
        expect(refused).toMatchObject({ status: 'FAILED', failureCode: expect.any(String) });
        if (refused.status === 'REQUIRES_ACTION') throw new Error('no challenge expected');
        expect(sandbox.verifyWebhook(refused.webhook.body, refused.webhook.headers)).toMatchObject({
          type: 'SETUP_FAILED',
          setup: { reference: setup.reference, paymentMethod: null, failureCode: refused.failureCode },
        });
      }
      const setup = await startedSetup();
      const challenged = await sandbox.confirmSetup(
        setup.reference,
        setup.clientSecret,
        sandboxTokens.threeDs,
      );
      expect(challenged).toEqual({
        status: 'REQUIRES_ACTION',
        challenge: {
          type: 'THREE_DS',
          url: `https://fleet.example/v1/acme/front/sandbox-gateway/challenges/${setup.reference}`,
        },
      });
      expect(await sandbox.challenge(setup.reference)).toMatchObject({
        kind: 'SETUP',
        state: 'WAITING',
        amount: '0.00',
        currency: 'EUR',
      });
      const webhook = await sandbox.resolveChallenge(setup.reference, 'THREE_DS_FAILED');
      expect(sandbox.verifyWebhook(webhook.body, webhook.headers)).toMatchObject({
        type: 'SETUP_FAILED',
        setup: { reference: setup.reference, failureCode: 'three_ds_failed' },
      });
      expect(
        await sandbox.confirmSetup(setup.reference, setup.clientSecret, sandboxTokens.threeDs),
      ).toMatchObject({
        status: 'FAILED',
        failureCode: 'three_ds_failed',
      });
    });
  });

  describe('webhook signatures', () => {
    let webhook: SandboxWebhook;
    beforeAll(async () => {
      webhook = await sandbox.openDispute(
        (await sandbox.charge(chargeRequest(sandboxTokens.visa))).reference,
      );
    });

    test('a good signature verifies; a tampered body, an old or future timestamp, another secret or a missing header do not', () => {
      expect(sandbox.verifyWebhook(webhook.body, webhook.headers).type).toBe('DISPUTE_OPENED');
      const tampered = Buffer.from(webhook.body.toString().replace('12.50', '99.99'));
      expect(() => sandbox.verifyWebhook(tampered, webhook.headers)).toThrow(WebhookSignatureError);
      const id = webhook.headers['webhook-id'];
      for (const at of [new Date(Date.now() - 10 * 60_000), new Date(Date.now() + 10 * 60_000)]) {
        const signature = new Webhook(testSecret).sign(id, at, webhook.body);
        const headers = {
          ...webhook.headers,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signature,
        };
        expect(() => sandbox.verifyWebhook(webhook.body, headers)).toThrow(/too (old|new)/);
      }
      const foreign = new Webhook(secretOf('another secret')).sign(id, new Date(), webhook.body);
      expect(() =>
        sandbox.verifyWebhook(webhook.body, { ...webhook.headers, 'webhook-signature': foreign }),
      ).toThrow(WebhookSignatureError);
      expect(() =>
        sandbox.verifyWebhook(webhook.body, { ...webhook.headers, 'webhook-id': 'evt_other' }),
      ).toThrow(WebhookSignatureError);
      expect(() =>
        sandbox.verifyWebhook(webhook.body, { ...webhook.headers, 'webhook-signature': undefined }),
      ).toThrow(WebhookSignatureError);
      expect(() =>
        sandbox.verifyWebhook(webhook.body, { ...webhook.headers, 'webhook-id': [id, id] }),
      ).toThrow(WebhookSignatureError);
    });

    test('a signed body that is not an event is refused too', () => {
      const now = new Date();
      for (const body of ['[1,2]', 'not json', '{"id":"evt_x"}']) {
        const raw = Buffer.from(body);
        const headers = {
          'webhook-id': 'evt_other',
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Webhook(testSecret).sign('evt_other', now, raw),
        };
        expect(() => sandbox.verifyWebhook(raw, headers)).toThrow(WebhookSignatureError);
      }
    });
  });
});

describe('webhooks and the challenge page over HTTP', () => {
  let session: Session;
  let sandbox: SandboxGateway;
  let finance: FinanceBackend;
  const sandboxSecret = loadConfig().sandboxWebhookSecret;

  beforeAll(async () => {
    session = await startSession({ rival: true });
    sandbox = sandboxOf(session.backend.paymentGateways)!;
    const { backend } = session;
    finance = {
      orm: backend.orm,
      tenant: session.seed.tenant,
      client: backend.client,
      taskQueue: backend.taskQueue,
      paymentGateways: backend.paymentGateways,
    };
  });
  afterAll(async () => session?.stop());

  const webhookPath = (gateway = 'sandbox', tenant?: string) =>
    `/v1/${tenant ?? session.seed.tenant}/back/payment-gateways/${gateway}/webhooks`;
  const post = (webhook: { body: Buffer | string; headers: Record<string, string> }, path = webhookPath()) =>
    session.stack.call('POST', path, { rawBody: webhook.body.toString(), headers: webhook.headers });
  const tenantCharge = (token: string) =>
    sandbox.charge(
      chargeRequest(token, {
        metadata: { tenant: session.seed.tenant, paymentId: randomUUID(), attempt: '1' },
      }),
    );

  const paymentOf = (id: number) =>
    tenantEm(session.backend.orm, session.seed.tenant).findOneOrFail(Payment, id);
  const paymentIn = (id: number, states: string[]) =>
    eventually(
      async () => {
        const payment = await paymentOf(id);
        return states.includes(payment.state) ? payment : undefined;
      },
      `payment ${id} in ${states.join('/')}`,
    );

  test('a verified event nothing waits for is received and ignored; its redelivery is a duplicate', async () => {
    const charge = await tenantCharge(sandboxTokens.threeDs);
    const webhook = await sandbox.resolveChallenge(charge.reference, 'SUCCEEDED');
    const first = await post(webhook);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      eventId: webhook.headers['webhook-id'],
      type: 'CHALLENGE_SUCCEEDED',
      result: 'IGNORED',
    });
    expect((await post(webhook)).body.result).toBe('DUPLICATE');
    const stored = await tenantEm(session.backend.orm, session.seed.tenant).find(PaymentWebhookEvent, {
      eventId: webhook.headers['webhook-id'],
    });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ gateway: 'sandbox', type: 'CHALLENGE_SUCCEEDED' });
  });

  test('signatures are checked over the raw body: tampered, old, foreign or unsigned webhooks answer PGS101', async () => {
    const webhook = await sandbox.openDispute((await tenantCharge(sandboxTokens.visa)).reference);
    const id = webhook.headers['webhook-id'];
    // The same JSON re-serialised is other bytes: refused, since the signature covers the bytes.
    const reformatted = JSON.stringify(JSON.parse(webhook.body.toString()), null, 2);
    expectError(await post({ body: reformatted, headers: webhook.headers }), 400, 'PGS101');
    expectError(
      await post({ body: webhook.body.toString().replace('"12.50"', '"0.01"'), headers: webhook.headers }),
      400,
      'PGS101',
    );
    const old = new Date(Date.now() - 6 * 60_000);
    expectError(
      await post({
        body: webhook.body,
        headers: {
          ...webhook.headers,
          'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
          'webhook-signature': new Webhook(sandboxSecret).sign(id, old, webhook.body),
        },
      }),
      400,
      'PGS101',
    );
    const foreign = new Webhook(secretOf('not the sandbox secret')).sign(id, new Date(), webhook.body);
    expectError(
      await post({ body: webhook.body, headers: { ...webhook.headers, 'webhook-signature': foreign } }),
      400,
      'PGS101',
    );
    expectError(
      await post({ body: webhook.body, headers: { 'content-type': 'application/json' } }),
      400,
      'PGS101',
    );
    expectError(
      await post({ body: webhook.body, headers: { ...webhook.headers, 'webhook-timestamp': 'yesterday' } }),
      400,
      'PGS101',
    );
    // Nothing was recorded for any of them; the genuine webhook still applies.
    expect((await post(webhook)).body.result).toBe('IGNORED');
  });

  test('unknown adapters and hostile bodies get catalogue errors', async () => {
    const webhook = await sandbox.openDispute((await tenantCharge(sandboxTokens.visa)).reference);
    expectError(await post(webhook, webhookPath('paypal')), 404, 'PGS102');
    expectError(await post(webhook, webhookPath('stripe')), 404, 'PGS102');
    expectError(await post(webhook, webhookPath('SANDBOX')), 404, 'PGS102');
    expectError(await post(webhook, webhookPath('x'.repeat(33))), 400, '0022');
    expectError(await post(webhook, webhookPath('sandbox', 'no-such-tenant')), 404, 'AUTH051');
    // Methods the path lacks: 405 without asking for a token the path never takes.
    expectError(await session.stack.call('GET', webhookPath()), 405, '0021');
    expectError(await session.stack.call('PUT', webhookPath(), { body: {} }), 405, '0021');
    const headers = { ...webhook.headers };
    expectError(await post({ body: '{"id": "evt_1", "type": ', headers }), 400, 'AUTH001');
    expectError(
      await post({ body: 'webhook-id=1', headers: { ...headers, 'content-type': 'text/plain' } }),
      415,
      '0023',
    );
    expectError(await post({ body: '[{"id":"evt_1","type":"x"}]', headers }), 400, '0022');
    expectError(await post({ body: '{"type":"DISPUTE_OPENED"}', headers }), 400, '0022');
    expectError(await post({ body: '{"id":"evt_\\u0000","type":"DISPUTE_OPENED"}', headers }), 400, '0022');
    expectError(await post({ body: '{"id":1,"type":"DISPUTE_OPENED"}', headers }), 400, '0022');
    expectError(
      await post({
        body: JSON.stringify({ id: 'evt_big', type: 'x', padding: 'x'.repeat(300_000) }),
        headers,
      }),
      413,
      '0024',
    );
    expectError(
      await post({
        body: webhook.body,
        headers: { ...headers, 'webhook-signature': 'v1,' + 'A'.repeat(3000) },
      }),
      400,
      '0022',
    );
    // A NUL inserted into a signed body breaks its signature; a genuinely signed one is kept without it.
    expectError(
      await post({ body: webhook.body.toString().replace('"data":{', '"data":{"x":"\\u0000",'), headers }),
      400,
      'PGS101',
    );
    const now = new Date();
    const nulBody = Buffer.from(
      '{"id":"evt_sandbox_nul","type":"DISPUTE_OPENED","data":{"note":"a\\u0000b","\\u0000":1}}',
    );
    const nulReply = await post({
      body: nulBody,
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_sandbox_nul',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(sandboxSecret).sign('evt_sandbox_nul', now, nulBody),
      },
    });
    expect(nulReply.body).toEqual({ eventId: 'evt_sandbox_nul', type: 'DISPUTE_OPENED', result: 'IGNORED' });
    const [kept] = await tenantEm(session.backend.orm, session.seed.tenant).find(PaymentWebhookEvent, {
      eventId: 'evt_sandbox_nul',
    });
    expect(kept!.payload).toEqual({
      id: 'evt_sandbox_nul',
      type: 'DISPUTE_OPENED',
      data: { note: 'a\ufffdb', '\ufffd': 1 },
    });
  });

  test('a 3-D Secure payment completed on the challenge page is paid', async () => {
    const customer = await payingCustomer(finance, session.seed.customerIds[0]!, sandboxTokens.threeDs);
    const invoice = await openInvoice(finance, customer, ['19.90']);
    const started = await billAndPay(finance, invoice.id);
    const waiting = await paymentIn(started.id, ['THREE_DS_WAITING_FOR_USER']);
    const url = new URL(waiting.challenge!.url!);
    expect(url.pathname).toMatch(
      new RegExp(`^/v1/${session.seed.tenant}/front/sandbox-gateway/challenges/ch_sandbox_[0-9a-f]{32}$`),
    );
    const page = await session.stack.call('GET', url.pathname);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      reference: url.pathname.split('/').pop(),
      kind: 'CHARGE',
      type: 'THREE_DS',
      state: 'WAITING',
      amount: '19.90',
      currency: invoice.currency,
      description: expect.any(String),
      outcomes: ['SUCCEEDED', 'THREE_DS_FAILED'],
    });
    expectError(
      await session.stack.call('POST', url.pathname, { body: { outcome: 'PUSH_BANK_REFUSED' } }),
      422,
      'PGS105',
    );
    const answered = await session.stack.call('POST', url.pathname, { body: { outcome: 'SUCCEEDED' } });
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({
      challenge: { ...page.body, state: 'SUCCEEDED' },
      webhook: { eventId: expect.stringMatching(/^evt_sandbox_/), result: 'APPLIED' },
    });
    const paid = await paymentIn(started.id, ['PAID']);
    expect(paid.gatewayReference).toBe(page.body.reference);
    // The same answer again changes nothing; another answer is refused.
    const again = await session.stack.call('POST', url.pathname, { body: { outcome: 'SUCCEEDED' } });
    expect(again.body.webhook).toEqual({ eventId: answered.body.webhook.eventId, result: 'DUPLICATE' });
    expectError(
      await session.stack.call('POST', url.pathname, { body: { outcome: 'THREE_DS_FAILED' } }),
      409,
      'PGS104',
    );
    // Another tenant's path does not find the challenge.
    expectError(
      await session.stack.call('GET', url.pathname.replace(session.seed.tenant, session.rival.tenant)),
      404,
      'PGS404',
    );
  });

  test('a push refused in the bank app reaches the waiting payment', async () => {
    const customer = await payingCustomer(finance, session.seed.customerIds[0]!, sandboxTokens.push);
    const invoice = await openInvoice(finance, customer, ['5.00']);
    const started = await billAndPay(finance, invoice.id);
    await paymentIn(started.id, ['PUSH_WAITING_FOR_USER']);
    const attempt = await eventually(async () => {
      const [row] = await session.backend.orm.em
        .getConnection()
        .execute<Array<{ gateway_reference: string | null }>>(
          'select gateway_reference from payment_attempt where payment_id = ? order by number desc limit 1',
          [started.id],
        );
      return row?.gateway_reference ?? undefined;
    }, 'the attempt reference');
    const path = `/v1/${session.seed.tenant}/front/sandbox-gateway/challenges/${attempt}`;
    const answered = await session.stack.call('POST', path, { body: { outcome: 'PUSH_BANK_REFUSED' } });
    expect(answered.body.webhook.result).toBe('APPLIED');
    await paymentIn(started.id, ['PUSH_BANK_REFUSED']);
  });

  test('the challenge page refuses unknown references and hostile input', async () => {
    const base = `/v1/${session.seed.tenant}/front/sandbox-gateway/challenges`;
    expectError(await session.stack.call('GET', `${base}/ch_sandbox_${'0'.repeat(32)}`), 404, 'PGS404');
    expectError(await session.stack.call('GET', `${base}/anything`), 404, 'PGS404');
    expectError(await session.stack.call('GET', `${base}/${'x'.repeat(101)}`), 400, '0022');
    expectError(await session.stack.call('DELETE', `${base}/anything`), 405, '0021');
    expectError(await session.stack.call('GET', `${base}/ch_sandbox_%00`), 400, '0022');
    const plain = await tenantCharge(sandboxTokens.visa);
    expectError(await session.stack.call('GET', `${base}/${plain.reference}`), 404, 'PGS404');
    const challenged = await tenantCharge(sandboxTokens.threeDs);
    for (const body of [{ outcome: 'succeeded' }, { outcome: 1 }, {}, { outcome: 'SUCCEEDED', extra: true }])
      expectError(await session.stack.call('POST', `${base}/${challenged.reference}`, { body }), 400, '0022');
    expectError(
      await session.stack.call(
        'GET',
        `/v1/no-such-tenant/front/sandbox-gateway/challenges/${challenged.reference}`,
      ),
      404,
      'AUTH051',
    );
  });

  test('a dispute marks the paid payment and its invoice DISPUTED once, however often it is delivered', async () => {
    const customer = await payingCustomer(finance, session.seed.customerIds[0]!, sandboxTokens.visa);
    const invoice = await openInvoice(finance, customer, ['30.00']);
    const started = await billAndPay(finance, invoice.id);
    const paid = await paymentIn(started.id, ['PAID']);
    const webhook = await sandbox.openDispute(paid.gatewayReference!, 'fraudulent');
    const deliveries = await Promise.all([post(webhook), post(webhook), post(webhook)]);
    expect(deliveries.map((reply) => reply.body.result).sort()).toEqual([
      'APPLIED',
      'DUPLICATE',
      'DUPLICATE',
    ]);
    const em = tenantEm(session.backend.orm, session.seed.tenant);
    expect((await em.findOneOrFail(Payment, started.id)).state).toBe('DISPUTED');
    expect((await em.findOneOrFail(Invoice, invoice.id)).state).toBe('DISPUTED');
    const events = await em.find(Event, { type: 'INVOICE_DISPUTED' });
    expect(events.filter((event) => event.payload?.invoiceId === invoice.id)).toEqual([
      expect.objectContaining({
        customerId: customer.id,
        payload: expect.objectContaining({
          paymentId: started.id,
          reason: 'fraudulent',
          chargeReference: paid.gatewayReference,
        }),
      }),
    ]);
    // The rival tenant's endpoint does not apply this tenant's event.
    const rival = await post(webhook, webhookPath('sandbox', session.rival.tenant));
    expect(rival.body.result).toBe('IGNORED');
  });
});
