// The sandbox payment gateway against the real PostgreSQL: every test token, one charge per idempotency
// key, refunds within the charge, challenges and disputes as signed webhooks. Its webhook endpoint and
// challenge page over HTTP: payment-gateway-webhooks.test.ts; the Stripe adapter:
// payment-gateway-stripe.test.ts.
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { connectOrm } from '../composition/orm.js';
import {
  createPaymentGateways,
  type ConfiguredPaymentGateways,
  type SqlRunner,
} from '../platform/payment-gateway/index.js';
import { GatewayUnavailableError, WebhookSignatureError } from '../platform/payment-gateway/port.js';
import type { SandboxGateway } from '../platform/payment-gateway/sandbox-setups.js';
import { SandboxRefusal, sandboxTokens, type SandboxWebhook } from '../platform/payment-gateway/sandbox.js';
import { chargeRequest, refundRequest, secretOf, testSecret } from './support/sandbox-gateway.js';

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
