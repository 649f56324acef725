// The payment gateways' webhook endpoint and the sandbox's challenge page over HTTP against the whole
// stack: signature checks, redeliveries, hostile bodies, a 3-D Secure payment completed on the challenge
// page, a push refused in the bank app, a dispute. The gateway itself: payment-gateway.test.ts.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentWebhookEvent } from '../db/entities/PaymentWebhookEvent.js';
import { tenantEm } from '../db/orm.js';
import { loadConfig } from '../platform/config.js';
import { sandboxOf } from '../platform/payment-gateway/index.js';
import type { SandboxGateway } from '../platform/payment-gateway/sandbox-setups.js';
import { sandboxTokens } from '../platform/payment-gateway/sandbox.js';
import { expectError } from './support/http.js';
import {
  billAndPay,
  openInvoice,
  payingCustomer,
  type FinanceBackend,
  financeOf,
} from './support/payments.js';
import { startSession, type Session } from './support/session.js';
import { eventually } from './support/invoices.js';
import { chargeRequest, secretOf } from './support/sandbox-gateway.js';

describe('webhooks and the challenge page over HTTP', () => {
  let session: Session;
  let sandbox: SandboxGateway;
  let finance: FinanceBackend;
  const sandboxSecret = loadConfig().sandboxWebhookSecret;

  beforeAll(async () => {
    session = await startSession({ rival: true });
    sandbox = sandboxOf(session.backend.paymentGateways)!;
    const { backend } = session;
    finance = financeOf(backend, session.seed.tenant);
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
      30_000,
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
    const attempt = await eventually(
      async () => {
        const [row] = await session.backend.orm.em
          .getConnection()
          .execute<Array<{ gateway_reference: string | null }>>(
            'select gateway_reference from payment_attempt where payment_id = ? order by number desc limit 1',
            [started.id],
          );
        return row?.gateway_reference ?? undefined;
      },
      30_000,
      'the attempt reference',
    );
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
