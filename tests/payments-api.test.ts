// Payments over HTTP against the real payment workflows and the sandbox gateway: the list of a branch's
// business unit with its filters and paging headers, one payment with each attempt's own state, the
// manual retry (a waiting payment charged again; P120 where the state forbids it), the removal of a
// payment source (P405, P122 while a running payment charges it, the default moving on), and the
// denials and hostile input of each route.
import { Event } from '../db/entities/Event.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import type { PaymentState } from '../domain/finance.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import {
  eventually,
  grantedClient,
  issueTestInvoice,
  otherBusinessUnit,
  testCustomer,
} from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const branchQuery = () => `branchId=${session.seed.branchId}`;

async function expectErrors(cases: [string, string, number, string, unknown?][], token?: string) {
  for (const [method, path, status, code, body] of cases)
    expectError(await call(method, path, { token, body }), status, code);
}

const paymentState = async (paymentId: number): Promise<PaymentState> =>
  (await session.em().findOneOrFail(Payment, paymentId, { refresh: true })).state;

const waitForPayment = (paymentId: number, state: PaymentState) =>
  eventually(
    async () => ((await paymentState(paymentId)) === state ? true : undefined),
    30_000,
    `payment ${state}`,
  );

/** A new customer paying with `token`, an invoice billed over HTTP; its first payment's id. */
async function billed(token: string, gross = '15.00') {
  const customerId = await testCustomer(session, { token });
  const invoiceId = await issueTestInvoice(session, { customerId, lines: [{ gross }] });
  const bill = await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator });
  expect(bill.status).toBe(200);
  return { customerId, invoiceId, paymentId: bill.body.payments[0].id as number };
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  operator = session.operatorToken;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('reading payments', () => {
  let paid: Awaited<ReturnType<typeof billed>>;
  let declined: Awaited<ReturnType<typeof billed>>;
  beforeAll(async () => {
    paid = await billed('tok_sandbox_visa');
    declined = await billed('tok_sandbox_stolen_card');
    await waitForPayment(paid.paymentId, 'PAID');
    await waitForPayment(declined.paymentId, 'FAILED');
  });

  test('one payment with its attempts, each with its own state', async () => {
    const reply = await call('GET', back(`/payments/${declined.paymentId}`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: declined.paymentId,
      purpose: 'INVOICE',
      state: 'FAILED',
      invoiceId: declined.invoiceId,
      guserId: declined.customerId,
      businessUnitId: session.seed.businessUnitId,
      amount: '15.00',
      currency: 'EUR',
      attemptCount: 1,
      workflowId: `payment:${session.seed.tenant}:${declined.paymentId}`,
      balanceId: null,
    });
    expect(reply.body.attempts).toEqual([
      expect.objectContaining({
        number: 1,
        state: 'HARD_DECLINED',
        trigger: 'FIRST',
        declineCode: 'stolen_card',
      }),
    ]);
    const ok = await call('GET', back(`/payments/${paid.paymentId}`), { token: operator });
    expect(ok.body).toMatchObject({
      state: 'PAID',
      paidAt: expect.any(String),
      gatewayReference: expect.any(String),
    });
    expect(ok.body.attempts[0]).toMatchObject({ state: 'SUCCEEDED', finishedAt: expect.any(String) });
  });

  test('the list: the branch’s business unit, newest first, filters, X-Total-* headers', async () => {
    const ids = async (query: string) => {
      const reply = await call('GET', back(`/payments?${branchQuery()}&size=100&${query}`), {
        token: operator,
      });
      expect(reply.status).toBe(200);
      return reply.body.map((payment: { id: number }) => payment.id) as number[];
    };
    const all = await ids('');
    expect(all.indexOf(declined.paymentId)).toBeLessThan(all.indexOf(paid.paymentId));
    expect(await ids('state=FAILED')).toContain(declined.paymentId);
    expect(await ids('state=FAILED')).not.toContain(paid.paymentId);
    expect(await ids(`invoiceId=${paid.invoiceId}`)).toEqual([paid.paymentId]);
    expect(await ids(`userId=${declined.customerId}`)).toEqual([declined.paymentId]);
    expect(await ids('purpose=BALANCE_SETTLEMENT&userId=' + declined.customerId)).toEqual([]);
    expect(await ids('userGroupId=2147483647')).toEqual([]);
    const page = await call('GET', back(`/payments?${branchQuery()}&size=1`), { token: operator });
    expect(page.body).toHaveLength(1);
    expect(Number(page.headers.get('X-Total-Count'))).toBe(all.length);
    expect(page.headers.get('X-Total-Pages')).toBe(String(all.length));
  });
});

describe('manual retry', () => {
  test('AWAITING_RETRY: charged again at once (a MANUAL attempt) and PAID', async () => {
    const { paymentId, invoiceId } = await billed('tok_sandbox_insufficient_funds_once');
    await waitForPayment(paymentId, 'AWAITING_RETRY');
    const waiting = await call('GET', back(`/payments/${paymentId}`), { token: operator });
    expect(waiting.body).toMatchObject({ state: 'AWAITING_RETRY', nextRetryAt: expect.any(String) });
    expect(waiting.body.attempts).toEqual([
      expect.objectContaining({ state: 'SOFT_DECLINED', declineCode: 'insufficient_funds' }),
    ]);
    const retry = await call('POST', back(`/payments/${paymentId}/retry`), { token: operator });
    expect(retry.status).toBe(200);
    await waitForPayment(paymentId, 'PAID');
    const after = await call('GET', back(`/payments/${paymentId}`), { token: operator });
    expect(
      after.body.attempts.map((attempt: { state: string; trigger: string }) => [
        attempt.state,
        attempt.trigger,
      ]),
    ).toEqual([
      ['SOFT_DECLINED', 'FIRST'],
      ['SUCCEEDED', 'MANUAL'],
    ]);
    const events = await session.em().find(Event, { type: 'INVOICE_RETRY_PAYMENT' });
    expect(events.some((event) => event.payload?.invoiceId === invoiceId)).toBe(true);
    expectError(await call('POST', back(`/payments/${paymentId}/retry`), { token: operator }), 409, 'P120');
  });

  test('waiting for the customer’s 3-D Secure: P120', async () => {
    const { paymentId } = await billed('tok_sandbox_3ds');
    await waitForPayment(paymentId, 'THREE_DS_WAITING_FOR_USER');
    const waiting = await call('GET', back(`/payments/${paymentId}`), { token: operator });
    expect(waiting.body.challenge).toMatchObject({
      type: 'THREE_DS',
      url: expect.any(String),
      expiresAt: expect.any(String),
    });
    expectError(await call('POST', back(`/payments/${paymentId}/retry`), { token: operator }), 409, 'P120');
  });
});

describe('removing a payment source', () => {
  test('P122 while a running payment charges it; then removed, the default moves on, USER_PAYMENT_METHOD_REMOVED', async () => {
    const { paymentId, customerId } = await billed('tok_sandbox_insufficient_funds');
    await waitForPayment(paymentId, 'AWAITING_RETRY');
    const em = session.em();
    const charged = await em.findOneOrFail(PaymentSource, { customer: customerId });
    const spare = em.create(PaymentSource, {
      customer: customerId,
      businessUnit: session.seed.businessUnitId,
      type: 'CARD',
      provider: 'sandbox',
      providerReference: 'tok_sandbox_visa',
      label: 'Spare',
      isDefault: false,
    });
    await em.flush();
    expect((await em.findOneOrFail(Payment, paymentId)).paymentSource?.id).toBe(charged.id);
    expectError(
      await call('DELETE', back(`/payments?sourceId=${charged.id}&userId=${customerId}`), {
        token: operator,
      }),
      409,
      'P122',
    );
    // Stop the payment (its invoice goes to collection); then the source can go.
    const invoiceId = (await em.findOneOrFail(Payment, paymentId)).invoice!.id;
    expect(
      (await call('POST', back(`/invoices/${invoiceId}/mark-for-collection`), { token: operator })).status,
    ).toBe(200);
    const removed = await call('DELETE', back('/payments'), {
      token: operator,
      body: { sourceId: charged.id, userId: customerId },
    });
    expect(removed.status).toBe(204);
    expect(await session.em().count(PaymentSource, { id: charged.id })).toBe(0);
    expect((await session.em().findOneOrFail(PaymentSource, spare.id)).isDefault).toBe(true);
    expect(
      (await session.em().findOneOrFail(Payment, paymentId, { refresh: true })).paymentSource,
    ).toBeNull();
    const event = await session
      .em()
      .findOneOrFail(Event, { type: 'USER_PAYMENT_METHOD_REMOVED', customerId });
    expect(event.payload).toMatchObject({ paymentSourceId: charged.id, label: charged.label });
    expectError(
      await call('DELETE', back(`/payments?sourceId=${charged.id}&userId=${customerId}`), {
        token: operator,
      }),
      404,
      'P405',
    );
  });

  test("a business account's source; query and body together must agree; exactly one owner", async () => {
    const em = session.em();
    const group = await em.findOneOrFail(UserGroup, {}, { orderBy: { id: 'asc' } });
    const source = em.create(PaymentSource, {
      group,
      businessUnit: session.seed.businessUnitId,
      type: 'SEPA',
      provider: 'sandbox',
      providerReference: 'tok_sandbox_visa',
      label: 'DE89 •••• 3000',
    });
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    await em.flush();
    const customersSource = (await em.findOneOrFail(PaymentSource, { customer: customerId })).id;
    await expectErrors(
      [
        ['DELETE', back(`/payments?sourceId=${source.id}&userId=${customerId}`), 404, 'P405'],
        ['DELETE', back(`/payments?sourceId=${customersSource}&userGroupId=${group.id}`), 404, 'P405'],
        ['DELETE', back(`/payments?sourceId=${source.id}`), 422, 'P123'],
        [
          'DELETE',
          back(`/payments?sourceId=${source.id}&userId=${customerId}&userGroupId=${group.id}`),
          422,
          'P123',
        ],
        ['DELETE', back(`/payments?userGroupId=${group.id}`), 422, 'P123'],
        [
          'DELETE',
          back(`/payments?sourceId=${source.id}`),
          422,
          'P123',
          { sourceId: source.id + 1, userGroupId: group.id },
        ],
        ['DELETE', back('/payments'), 400, '0022', { sourceId: `${source.id}`, userGroupId: group.id }],
        [
          'DELETE',
          back('/payments'),
          400,
          '0022',
          { sourceId: source.id, userGroupId: group.id, force: true },
        ],
        ['DELETE', back(`/payments?sourceId=0x1&userGroupId=${group.id}`), 400, '0022'],
        ['DELETE', back(`/payments?sourceId=1e3&userGroupId=${group.id}`), 400, '0022'],
        ['DELETE', back(`/payments?sourceId=%00&userGroupId=${group.id}`), 400, '0022'],
        ['DELETE', back('/payments?sourceId=2147483647&userId=2147483647'), 404, 'P405'],
      ],
      operator,
    );
    const removed = await call('DELETE', back(`/payments?sourceId=${source.id}`), {
      token: operator,
      body: { userGroupId: group.id, sourceId: source.id },
    });
    expect(removed.status).toBe(204);
    expect(await session.em().count(PaymentSource, { id: source.id })).toBe(0);
  });
});

describe('denials and hostile input', () => {
  let paymentId: number;
  let customerId: number;
  let sourceId: number;
  beforeAll(async () => {
    ({ paymentId, customerId } = await billed('tok_sandbox_visa'));
    await waitForPayment(paymentId, 'PAID');
    sourceId = (await session.em().findOneOrFail(PaymentSource, { customer: customerId })).id;
  });

  test("another business unit's finance operator and a branch administrator: AUTH002", async () => {
    const other = await otherBusinessUnit(session, { currency: 'EUR', taxPercentage: '19.00', scale: 2 });
    const otherFinance = await grantedClient(session, { role: 'Finance', businessUnitId: other.unitId });
    const branchAdmin = await grantedClient(session, {
      role: 'Administrator',
      branchId: session.seed.cityBranchId,
    });
    for (const token of [otherFinance, branchAdmin])
      await expectErrors(
        [
          ['GET', back(`/payments?${branchQuery()}`), 403, 'AUTH002'],
          ['GET', back(`/payments/${paymentId}`), 403, 'AUTH002'],
          ['POST', back(`/payments/${paymentId}/retry`), 403, 'AUTH002'],
          ['DELETE', back(`/payments?sourceId=${sourceId}&userId=${customerId}`), 403, 'AUTH002'],
        ],
        token,
      );
    const own = await call('GET', back(`/payments?branchId=${other.branchId}`), { token: otherFinance });
    expect(own.body).toEqual([]);
    expect(await session.em().count(PaymentSource, { id: sourceId })).toBe(1);
  });

  test("another tenant's ids are not found", async () => {
    const rival = (path: string) => `/v1/${session.rival.tenant}/back${path}`;
    await expectErrors(
      [
        ['GET', rival(`/payments/${paymentId}`), 404, 'P404'],
        ['POST', rival(`/payments/${paymentId}/retry`), 404, 'P404'],
        ['DELETE', rival(`/payments?sourceId=${sourceId}&userId=${customerId}`), 404, 'P405'],
        ['GET', rival(`/payments?${branchQuery()}`), 404, 'B404'],
      ],
      session.rivalOperatorToken,
    );
    await expectErrors(
      [
        ['GET', back('/payments/2147483647'), 404, 'P404'],
        ['POST', back('/payments/2147483647/retry'), 404, 'P404'],
        ['GET', back('/payments?branchId=2147483647'), 404, 'B404'],
      ],
      operator,
    );
  });

  test('hostile paths and queries: 0022', async () => {
    for (const value of ['abc', '0', '-1', '0x1', '1e3', '1.5', '99999999999', '%00', '+1', '01'])
      await expectErrors(
        [
          ['GET', back(`/payments/${value}`), 400, '0022'],
          ['POST', back(`/payments/${value}/retry`), 400, '0022'],
          ['GET', back(`/payments?branchId=${value}`), 400, '0022'],
        ],
        operator,
      );
    await expectErrors(
      [
        ['GET', back('/payments'), 400, '0022'],
        ['GET', back(`/payments?${branchQuery()}&state=LOST`), 400, '0022'],
        ['GET', back(`/payments?${branchQuery()}&purpose=GIFT`), 400, '0022'],
        ['GET', back(`/payments?${branchQuery()}&userId=0x1`), 400, '0022'],
        ['GET', back(`/payments?${branchQuery()}&size=101`), 400, '0022'],
      ],
      operator,
    );
    expectError(await call('GET', back(`/payments/${paymentId}`)), 401, 'JWT006');
  });
});
