// The Stripe adapter against a real stripe-mock process (provisioned from the Go module proxy into the
// cache, started here on free ports): PaymentIntents created and confirmed with the attempt's idempotency
// key, refunds, Stripe-signed webhooks (constructEvent), and connection faults as GatewayUnavailableError.
// stripe-mock answers from fixtures, so PaymentIntent states come from fixture variants; declines and
// outages, which stripe-mock cannot produce, come from a small server answering Stripe's documented error
// bodies. Last, the whole stack with Stripe configured: a payment charged through stripe-mock, then a
// dispute posted to the Stripe webhook endpoint.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { tenantEm } from '../db/orm.js';
import { createPaymentGateways } from '../platform/payment-gateway/index.js';
import {
  GatewayUnavailableError,
  WebhookSignatureError,
  type ChargeRequest,
  type RefundRequest,
} from '../platform/payment-gateway/port.js';
import { StripeGateway, stripeDeclineKind } from '../platform/payment-gateway/stripe.js';
import { loadConfig } from '../platform/config.js';
import { freePort } from '../platform/net.js';
import { ensureStripeMock, startStripeMock, type StripeMockServer } from '../platform/stripe-mock.js';
import { expectError } from './support/http.js';
import { billAndPay, openInvoice, payingCustomer, financeOf } from './support/payments.js';
import { startSession, type Session } from './support/session.js';

const secretKey = 'sk_test_fleetflow';
const webhookSecret = 'whsec_fleetflow_stripe_test';
const stripe = new Stripe(secretKey);

const chargeRequest = (overrides: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `payment:acme:1/run/attempt-${Math.random().toString(36).slice(2)}`,
  amount: '12.50',
  currency: 'EUR',
  sourceToken: 'pm_card_visa',
  description: 'Invoice T-1',
  metadata: { tenant: 'acme', paymentId: '1', attempt: '1' },
  ...overrides,
});

const refundRequest = (overrides: Partial<RefundRequest> = {}): RefundRequest => ({
  idempotencyKey: `refund:acme:1/run/refund-${Math.random().toString(36).slice(2)}`,
  chargeReference: 'pi_123',
  amount: '5.00',
  currency: 'EUR',
  reason: 'Broken vehicle',
  metadata: { tenant: 'acme', invoiceId: '7' },
  ...overrides,
});

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: URLSearchParams;
}

/** An HTTP server on a free port; `handle` answers each request with its collected body. */
async function server(handle: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void) {
  const instance = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(instance.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => instance.close(() => resolve())),
  };
}

/** Forwards to stripe-mock and records what the SDK sent (the wire: headers and form body). */
async function recordingProxy(target: string) {
  const requests: Recorded[] = [];
  const proxy = await server((req, body, res) => {
    requests.push({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: new URLSearchParams(body.toString()),
    });
    const forwarded = http.request(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.end(body);
  });
  return { ...proxy, requests };
}

/** Answers every request with Stripe's documented error body (what stripe-mock cannot produce). */
async function stripeErrorServer(
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return server((_req, _body, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_test', ...headers });
    res.end(JSON.stringify({ error }));
  });
}

const adapter = (apiBase: string, options: { timeoutMs?: number } = {}) =>
  new StripeGateway({ secretKey, apiBase, webhookSecret, returnUrl: 'https://fleet.example', ...options });

const signed = (
  event: Record<string, unknown>,
  options: { secret?: string; timestamp?: number; spaces?: boolean } = {},
) => {
  const payload = JSON.stringify(event, null, options.spaces ? 2 : undefined);
  const header = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? webhookSecret,
    ...(options.timestamp ? { timestamp: options.timestamp } : {}),
  });
  return { payload, header };
};

const stripeEvent = (type: string, object: Record<string, unknown>) => ({
  id: `evt_${Math.random().toString(36).slice(2)}`,
  object: 'event',
  api_version: '2025-01-27.acacia',
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
  data: { object },
});

describe('the Stripe adapter against stripe-mock', () => {
  let workDir: string;
  const mocks: StripeMockServer[] = [];
  let plain: StripeMockServer;
  let succeeding: StripeMockServer;
  let challenging: StripeMockServer;

  beforeAll(async () => {
    const installation = await ensureStripeMock(loadConfig());
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-stripe-mock-'));
    const fixtures = JSON.parse(await fs.readFile(installation.fixtures!, 'utf8')) as {
      resources: Record<string, Record<string, unknown>>;
    };
    const variant = async (name: string, intent: Record<string, unknown>) => {
      const file = path.join(workDir, `${name}.json`);
      const resources = {
        ...fixtures.resources,
        payment_intent: { ...fixtures.resources.payment_intent, ...intent },
      };
      await fs.writeFile(file, JSON.stringify({ ...fixtures, resources }));
      return file;
    };
    const [succeededFixtures, actionFixtures] = await Promise.all([
      variant('succeeded', { status: 'succeeded', last_payment_error: null, next_action: null }),
      variant('requires-action', {
        status: 'requires_action',
        last_payment_error: null,
        next_action: {
          type: 'redirect_to_url',
          redirect_to_url: {
            url: 'https://hooks.stripe.com/3d_secure_2/authenticate/test',
            return_url: 'https://fleet.example',
          },
        },
      }),
    ]);
    [plain, succeeding, challenging] = await Promise.all([
      startStripeMock(installation),
      startStripeMock(installation, { fixtures: succeededFixtures }),
      startStripeMock(installation, { fixtures: actionFixtures }),
    ]);
    mocks.push(plain, succeeding, challenging);
  }, 600_000);
  afterAll(async () => {
    await Promise.all(mocks.map((mock) => mock.stop()));
    if (workDir) await fs.rm(workDir, { recursive: true, force: true });
  });

  test("a charge is one confirmed PaymentIntent in minor units, sent with the attempt's idempotency key", async () => {
    const proxy = await recordingProxy(succeeding.url);
    try {
      const request = chargeRequest({ amount: '1234.50', sourceToken: 'cus_Abc123/pm_card_visa' });
      const outcome = await adapter(proxy.url).charge(request);
      expect(outcome).toEqual({ status: 'SUCCEEDED', reference: expect.stringMatching(/^pi_/) });
      const [sent] = proxy.requests;
      expect(sent).toMatchObject({ method: 'POST', url: '/v1/payment_intents' });
      expect(sent!.headers['idempotency-key']).toBe(request.idempotencyKey);
      expect(sent!.headers.authorization).toBe(`Bearer ${secretKey}`);
      expect(Object.fromEntries(sent!.body)).toMatchObject({
        amount: '123450',
        currency: 'eur',
        payment_method: 'pm_card_visa',
        customer: 'cus_Abc123',
        confirm: 'true',
        return_url: 'https://fleet.example',
        'metadata[tenant]': 'acme',
        'metadata[paymentId]': '1',
        description: 'Invoice T-1',
      });
      // Zero-decimal currencies are sent as they are.
      await adapter(proxy.url).charge(chargeRequest({ amount: '150', currency: 'JPY' }));
      expect(proxy.requests[1]!.body.get('amount')).toBe('150');
      expect(proxy.requests[1]!.body.get('currency')).toBe('jpy');
    } finally {
      await proxy.close();
    }
  });

  test('requires_action is a 3-D Secure challenge with the redirect URL; requires_payment_method a soft decline', async () => {
    expect(await adapter(challenging.url).charge(chargeRequest())).toEqual({
      status: 'CHALLENGE',
      reference: expect.stringMatching(/^pi_/),
      challenge: { type: 'THREE_DS', url: 'https://hooks.stripe.com/3d_secure_2/authenticate/test' },
    });
    // stripe-mock's own fixture: a PaymentIntent left requiring a payment method, without a decline code.
    expect(await adapter(plain.url).charge(chargeRequest())).toMatchObject({
      status: 'SOFT_DECLINED',
      reference: expect.stringMatching(/^pi_/),
      declineCode: 'requires_payment_method',
    });
  });

  test('amounts Stripe cannot take are declined before any call', async () => {
    for (const amount of ['12.345', '0', '-5', '1e2', '99999999999999999'])
      expect(await adapter('http://127.0.0.1:1').charge(chargeRequest({ amount }))).toMatchObject({
        status: 'HARD_DECLINED',
        declineCode: 'invalid_amount',
      });
  });

  test("a refund is a Refund of the PaymentIntent with the refund's key", async () => {
    const proxy = await recordingProxy(plain.url);
    try {
      const request = refundRequest({ amount: '7.25', chargeReference: 'pi_3Abc' });
      expect(await adapter(proxy.url).refund(request)).toEqual({
        status: 'SUCCEEDED',
        reference: expect.stringMatching(/^re_/),
      });
      const [sent] = proxy.requests;
      expect(sent).toMatchObject({ method: 'POST', url: '/v1/refunds' });
      expect(sent!.headers['idempotency-key']).toBe(request.idempotencyKey);
      expect(Object.fromEntries(sent!.body)).toMatchObject({
        payment_intent: 'pi_3Abc',
        amount: '725',
        reason: 'requested_by_customer',
        'metadata[reason]': 'Broken vehicle',
        'metadata[invoiceId]': '7',
      });
      expect(await adapter(proxy.url).refund(refundRequest({ amount: '1.001' }))).toMatchObject({
        status: 'FAILED',
        code: 'invalid_amount',
      });
    } finally {
      await proxy.close();
    }
  });

  test('card declines are sorted into soft and hard; refusals of refunds are FAILED', async () => {
    const declined = (declineCode: string) =>
      stripeErrorServer(402, {
        type: 'card_error',
        code: 'card_declined',
        decline_code: declineCode,
        message: 'Your card was declined.',
        payment_intent: { id: 'pi_declined', object: 'payment_intent', status: 'requires_payment_method' },
      });
    for (const [code, kind] of [
      ['insufficient_funds', 'SOFT_DECLINED'],
      ['stolen_card', 'HARD_DECLINED'],
      ['fraudulent', 'HARD_DECLINED'],
      ['generic_decline', 'SOFT_DECLINED'],
    ] as const) {
      const stub = await declined(code);
      try {
        expect(await adapter(stub.url).charge(chargeRequest())).toEqual({
          status: kind,
          reference: 'pi_declined',
          declineCode: code,
          message: 'Your card was declined.',
        });
      } finally {
        await stub.close();
      }
    }
    const refused = await stripeErrorServer(400, {
      type: 'invalid_request_error',
      code: 'charge_already_refunded',
      message: 'Charge ch_1 has already been refunded.',
    });
    try {
      expect(await adapter(refused.url).refund(refundRequest())).toEqual({
        status: 'FAILED',
        reference: null,
        code: 'charge_already_refunded',
        message: 'Charge ch_1 has already been refunded.',
      });
    } finally {
      await refused.close();
    }
    expect(stripeDeclineKind('expired_card')).toBe('HARD');
    expect(stripeDeclineKind('issuer_not_available')).toBe('SOFT');
    expect(stripeDeclineKind('a_new_code')).toBe('SOFT');
    expect(stripeDeclineKind('a_new_code', 'do_not_try_again')).toBe('HARD');
  });

  test('a removed method is detached from its customer; a token naming none, or one Stripe no longer holds, is done already', async () => {
    await expect(adapter(plain.url).detachPaymentMethod('cus_123/pm_123')).resolves.toBeUndefined();
    const closed = `http://127.0.0.1:${await freePort()}`;
    // Nothing to detach: no call is made.
    await expect(adapter(closed).detachPaymentMethod('tok_visa')).resolves.toBeUndefined();
    await expect(adapter(closed).detachPaymentMethod('cus_1/pm_1')).rejects.toBeInstanceOf(
      GatewayUnavailableError,
    );
    const gone = await stripeErrorServer(404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: "No such PaymentMethod: 'pm_1'",
    });
    const refused = await stripeErrorServer(400, {
      type: 'invalid_request_error',
      code: 'parameter_invalid_empty',
      message: 'The payment method cannot be detached.',
    });
    try {
      await expect(adapter(gone.url).detachPaymentMethod('cus_1/pm_1')).resolves.toBeUndefined();
      // A refusal keeps the source (the removal answers PGS100): nothing may stay chargeable unseen.
      await expect(adapter(refused.url).detachPaymentMethod('pm_1')).rejects.toBeInstanceOf(
        GatewayUnavailableError,
      );
    } finally {
      await gone.close();
      await refused.close();
    }
  });

  test('connection refused, 5xx, rate limits and timeouts are GatewayUnavailableError, with Retry-After', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(adapter(closed).charge(chargeRequest())).rejects.toBeInstanceOf(GatewayUnavailableError);
    await expect(adapter(closed).refund(refundRequest())).rejects.toBeInstanceOf(GatewayUnavailableError);
    const busy = await stripeErrorServer(
      503,
      { type: 'api_error', message: 'Stripe is down' },
      { 'retry-after': '30' },
    );
    const limited = await stripeErrorServer(
      429,
      { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' },
      { 'retry-after': '2' },
    );
    const silent = await server(() => undefined);
    try {
      await expect(adapter(busy.url).charge(chargeRequest())).rejects.toMatchObject({
        name: 'GatewayUnavailableError',
        retryAfterSeconds: 30,
      });
      await expect(adapter(limited.url).refund(refundRequest())).rejects.toMatchObject({
        name: 'GatewayUnavailableError',
        retryAfterSeconds: 2,
      });
      await expect(adapter(silent.url, { timeoutMs: 300 }).charge(chargeRequest())).rejects.toBeInstanceOf(
        GatewayUnavailableError,
      );
    } finally {
      await Promise.all([busy.close(), limited.close(), silent.close()]);
    }
  });

  test('webhooks are verified with constructEvent and translated', () => {
    const stripeAdapter = adapter(plain.url);
    const verify = (event: Record<string, unknown>, options?: Parameters<typeof signed>[1]) => {
      const { payload, header } = signed(event, options);
      return stripeAdapter.verifyWebhook(Buffer.from(payload), { 'stripe-signature': header });
    };
    const intent = {
      id: 'pi_waiting',
      object: 'payment_intent',
      metadata: { tenant: 'acme', paymentId: '9' },
    };
    expect(verify(stripeEvent('payment_intent.succeeded', intent))).toMatchObject({
      type: 'CHALLENGE_SUCCEEDED',
      chargeReference: 'pi_waiting',
      metadata: { tenant: 'acme', paymentId: '9' },
    });
    expect(verify(stripeEvent('payment_intent.payment_failed', intent), { spaces: true })).toMatchObject({
      type: 'THREE_DS_FAILED',
      chargeReference: 'pi_waiting',
    });
    const dispute = {
      id: 'dp_1',
      object: 'dispute',
      charge: 'ch_1',
      payment_intent: 'pi_paid',
      reason: 'fraudulent',
      metadata: {},
    };
    expect(verify(stripeEvent('charge.dispute.created', dispute))).toMatchObject({
      type: 'DISPUTE_OPENED',
      chargeReference: 'pi_paid',
    });
    expect(verify(stripeEvent('customer.created', { id: 'cus_1', object: 'customer' }))).toMatchObject({
      type: 'IGNORED',
      chargeReference: null,
    });
    expect(() => verify(stripeEvent('payment_intent.succeeded', intent), { secret: 'whsec_other' })).toThrow(
      WebhookSignatureError,
    );
    expect(() =>
      verify(stripeEvent('payment_intent.succeeded', intent), {
        timestamp: Math.floor(Date.now() / 1000) - 600,
      }),
    ).toThrow(WebhookSignatureError);
    const { payload, header } = signed(stripeEvent('payment_intent.succeeded', intent));
    expect(() =>
      stripeAdapter.verifyWebhook(Buffer.from(payload.replace('pi_waiting', 'pi_other')), {
        'stripe-signature': header,
      }),
    ).toThrow(WebhookSignatureError);
    expect(() => stripeAdapter.verifyWebhook(Buffer.from(payload), {})).toThrow(WebhookSignatureError);
    const withoutSecret = new StripeGateway({ secretKey, apiBase: plain.url });
    expect(() => withoutSecret.verifyWebhook(Buffer.from(payload), { 'stripe-signature': header })).toThrow(
      /no signing secret/,
    );
  });

  test("a setup creates the owner's Stripe customer once, then a SetupIntent, each with its key", async () => {
    const proxy = await recordingProxy(plain.url);
    try {
      const request = {
        idempotencyKey: 'payment-setup:acme:7',
        gatewayCustomer: null,
        description: 'Customer 3, tenant acme',
        currency: 'EUR',
        metadata: { tenant: 'acme', setupId: '7' },
      };
      const started = await adapter(proxy.url).createSetup(request);
      expect(started).toEqual({
        status: 'STARTED',
        reference: expect.stringMatching(/^seti_/),
        clientSecret: expect.stringMatching(/^seti_\w+_secret_/),
        gatewayCustomer: expect.stringMatching(/^cus_/),
      });
      const [customer, intent] = proxy.requests;
      expect(customer).toMatchObject({ method: 'POST', url: '/v1/customers' });
      expect(customer!.headers['idempotency-key']).toBe('payment-setup:acme:7/customer');
      expect(intent).toMatchObject({ method: 'POST', url: '/v1/setup_intents' });
      expect(intent!.headers['idempotency-key']).toBe('payment-setup:acme:7');
      expect(Object.fromEntries(intent!.body)).toMatchObject({
        customer: started.status === 'STARTED' ? started.gatewayCustomer : '',
        usage: 'off_session',
        'metadata[tenant]': 'acme',
        'metadata[setupId]': '7',
      });
      // The owner's next setup reuses its Stripe customer.
      proxy.requests.length = 0;
      await adapter(proxy.url).createSetup({
        ...request,
        idempotencyKey: 'payment-setup:acme:8',
        gatewayCustomer: 'cus_known',
      });
      expect(proxy.requests.map((sent) => sent.url)).toEqual(['/v1/setup_intents']);
      expect(proxy.requests[0]!.body.get('customer')).toBe('cus_known');
      // The saved card read back: brand, last digits, expiry, and the token a charge names.
      expect(
        await adapter(proxy.url).savedPaymentMethod({
          reference: 'seti_1',
          paymentMethod: 'pm_card_visa',
          gatewayCustomer: 'cus_known',
          failureCode: null,
          failureMessage: null,
        }),
      ).toEqual({
        sourceToken: 'cus_known/pm_card_visa',
        type: 'CARD',
        label: 'Visa •••• 4242',
        expiry: expect.stringMatching(/^\d{4}-\d{2}$/),
      });
    } finally {
      await proxy.close();
    }
    const refusing = await stripeErrorServer(400, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: 'No such customer',
    });
    try {
      expect(
        await adapter(refusing.url).createSetup({
          idempotencyKey: 'payment-setup:acme:9',
          gatewayCustomer: 'cus_gone',
          description: 'x',
          currency: 'EUR',
          metadata: {},
        }),
      ).toEqual({ status: 'REFUSED', code: 'resource_missing', message: 'No such customer' });
      await expect(
        adapter(refusing.url).savedPaymentMethod({
          reference: 'seti_1',
          paymentMethod: 'pm_gone',
          gatewayCustomer: null,
          failureCode: null,
          failureMessage: null,
        }),
      ).rejects.toMatchObject({ name: 'SavedMethodRefusedError', code: 'resource_missing' });
    } finally {
      await refusing.close();
    }
  });

  test('setup_intent.succeeded and setup_intent.setup_failed are the setup events', () => {
    const stripeAdapter = adapter(plain.url);
    const verify = (event: Record<string, unknown>) => {
      const { payload, header } = signed(event);
      return stripeAdapter.verifyWebhook(Buffer.from(payload), { 'stripe-signature': header });
    };
    const intent = {
      id: 'seti_1',
      object: 'setup_intent',
      customer: 'cus_1',
      payment_method: 'pm_1',
      last_setup_error: null,
      metadata: { tenant: 'acme', setupId: '7' },
    };
    expect(verify(stripeEvent('setup_intent.succeeded', intent))).toMatchObject({
      type: 'SETUP_SUCCEEDED',
      chargeReference: null,
      metadata: { tenant: 'acme', setupId: '7' },
      setup: { reference: 'seti_1', paymentMethod: 'pm_1', gatewayCustomer: 'cus_1', failureCode: null },
    });
    expect(
      verify(
        stripeEvent('setup_intent.setup_failed', {
          ...intent,
          payment_method: null,
          last_setup_error: { code: 'card_declined', decline_code: 'stolen_card', message: 'Declined.' },
        }),
      ),
    ).toMatchObject({
      type: 'SETUP_FAILED',
      setup: {
        reference: 'seti_1',
        paymentMethod: null,
        failureCode: 'stolen_card',
        failureMessage: 'Declined.',
      },
    });
  });

  test('with a secret key Stripe is the default and the sandbox stays reachable by name', () => {
    const gateways = createPaymentGateways({
      sql: () => Promise.reject(new Error('unused')),
      sandboxWebhookSecret: 'whsec_' + Buffer.from('x').toString('base64'),
      sandboxTimeoutMs: 1,
      publicBaseUrl: 'https://fleet.example',
      stripeSecretKey: secretKey,
      stripeApiBase: plain.url,
    });
    expect(gateways.default.name).toBe('stripe');
    expect(gateways.byName('stripe')).toBe(gateways.stripe);
    expect(gateways.byName('sandbox')).toBe(gateways.sandbox);
  });

  describe('the whole stack with Stripe configured', () => {
    let session: Session;
    const saved = { ...process.env };

    beforeAll(async () => {
      Object.assign(process.env, {
        STRIPE_SECRET_KEY: secretKey,
        STRIPE_API_BASE: succeeding.url,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
      });
      session = await startSession();
    });
    afterAll(async () => {
      for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_API_BASE', 'STRIPE_WEBHOOK_SECRET'])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      await session?.stop();
    });

    test('a payment charged through Stripe, then disputed by a Stripe-signed webhook', async () => {
      const { backend, seed } = session;
      const finance = financeOf(backend, seed.tenant);
      const customer = await payingCustomer(finance, seed.customerIds[0]!, 'pm_card_visa');
      const invoice = await openInvoice(finance, customer, ['42.00']);
      const started = await billAndPay(finance, invoice.id);
      expect(started.gateway).toBe('stripe');
      const em = () => tenantEm(backend.orm, seed.tenant);
      let paid: Payment | undefined;
      for (let waited = 0; waited < 30_000 && paid?.state !== 'PAID'; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        paid = await em().findOneOrFail(Payment, started.id);
      }
      expect(paid).toMatchObject({ state: 'PAID', gatewayReference: expect.stringMatching(/^pi_/) });
      const path = `/v1/${seed.tenant}/back/payment-gateways/stripe/webhooks`;
      const dispute = stripeEvent('charge.dispute.created', {
        id: 'dp_1',
        object: 'dispute',
        charge: 'ch_1',
        payment_intent: paid!.gatewayReference,
        reason: 'fraudulent',
        metadata: {},
      });
      // Pretty-printed, as a raw body the server must not re-serialise before checking the signature.
      const { payload, header } = signed(dispute, { spaces: true });
      const post = (signature: string, body = payload) =>
        session.stack.call('POST', path, { rawBody: body, headers: { 'stripe-signature': signature } });
      expectError(await post(signed(dispute, { secret: 'whsec_wrong' }).header), 400, 'PGS101');
      expectError(await post(header, payload.replace('fraudulent', 'duplicate')), 400, 'PGS101');
      const applied = await post(header);
      expect(applied.body).toEqual({ eventId: dispute.id, type: 'DISPUTE_OPENED', result: 'APPLIED' });
      expect((await post(header)).body.result).toBe('DUPLICATE');
      expect((await em().findOneOrFail(Payment, started.id)).state).toBe('DISPUTED');
      expect((await em().findOneOrFail(Invoice, invoice.id)).state).toBe('DISPUTED');
      // The sandbox's endpoint still runs beside Stripe's.
      expectError(
        await session.stack.call('POST', path.replace('stripe', 'sandbox'), {
          rawBody: payload,
          headers: { 'stripe-signature': header },
        }),
        400,
        'PGS101',
      );
    });
  });
});
