// Collecting invoices over HTTP against the real payment workflows and the sandbox gateway: bill (the
// payment starts and settles the invoice; a balance credit first; zero totals refused), refund (the
// refunding invoice, partial refunds adding up, more than paid refused), mark for collection, set paid
// externally (only COLLECTION invoices: F207), mark as lost, the state refusals of each, and the app's
// retry of its unpaid invoices (a waiting payment charged again, a failed one followed by a new one).
import { Decimal } from 'decimal.js';
import { Balance } from '../db/entities/Balance.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { appendBalanceUpdate } from '../db/balance-ledger.js';
import { inTenantTransaction } from '../db/orm.js';
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
const front = (path: string) => session.stack.front(path);

async function expectErrors(cases: [string, string, number, string, unknown?][], token?: string) {
  for (const [method, path, status, code, body] of cases)
    expectError(await call(method, path, { token, body }), status, code);
}

/** The invoice as the operator reads it, once `accept` says it is there. */
const invoiceWhen = (id: number, accept: (invoice: Reply['body']) => boolean, what: string) =>
  eventually(
    async () => {
      const reply = await call('GET', back(`/invoices/${id}`), { token: operator });
      return accept(reply.body) ? reply.body : undefined;
    },
    30_000,
    what,
  );

const paymentState = async (paymentId: number): Promise<PaymentState> =>
  (await session.em().findOneOrFail(Payment, paymentId, { refresh: true })).state;

/** An invoice of a new customer paying with `token`, billed over HTTP; the bill's answer. */
async function billedInvoice(token: string | undefined, grosses: string[] = ['20.00']) {
  const customerId = await testCustomer(session, { token });
  const invoiceId = await issueTestInvoice(session, {
    customerId,
    lines: grosses.map((gross) => ({ gross })),
  });
  const bill = await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator });
  expect(bill.status).toBe(200);
  return { customerId, invoiceId, bill: bill.body };
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  operator = session.operatorToken;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('bill', () => {
  test('OPEN → BILLED, the payment workflow charges the card and the invoice is PAID', async () => {
    const { invoiceId, bill } = await billedInvoice('tok_sandbox_visa');
    expect(bill).toMatchObject({ id: invoiceId, billedAt: expect.any(String) });
    expect(['BILLED', 'IN_PAYMENT', 'PAID']).toContain(bill.state);
    expect(bill.payments).toHaveLength(1);
    expect(bill.payments[0]).toMatchObject({ amount: '20.00', currency: 'EUR' });
    const paid = await invoiceWhen(
      invoiceId,
      (invoice) => invoice.state === 'PAID',
      'the invoice to be PAID',
    );
    expect(paid).toMatchObject({ settledAt: expect.any(String), paymentReference: expect.any(String) });
    expect(paid.payments[0]).toMatchObject({ state: 'PAID', paidAt: expect.any(String), attemptCount: 1 });
    const events = await session.em().find(Event, { type: 'INVOICE_BILLED' });
    expect(events.some((event) => event.payload?.invoiceId === invoiceId)).toBe(true);
    // The gateway's charge finds it in the list.
    const byCharge = await call(
      'GET',
      back(
        `/invoices?branchId=${session.seed.branchId}&chargeId=${encodeURIComponent(paid.paymentReference)}`,
      ),
      { token: operator },
    );
    expect(byCharge.body.map((invoice: { id: number }) => invoice.id)).toEqual([invoiceId]);
    const overview = await call('GET', back(`/invoices/${invoiceId}/overview`), { token: operator });
    expect(overview.body).toMatchObject({ paidGross: '20.00', refundedGross: '0.00' });
    expect(overview.body.allowedOperations).toEqual(['REFUND']);
    expect(overview.body.payments[0].attempts).toEqual([
      expect.objectContaining({ number: 1, state: 'SUCCEEDED', trigger: 'FIRST' }),
    ]);
    expect(overview.body.timeline.map((entry: { type: string }) => entry.type)).toContain('INVOICE_BILLED');
    expectError(await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator }), 409, 'I121');
  });

  test("the customer's default balance credit first: covered in full, PAID without a payment", async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    await inTenantTransaction(session.backend.orm, session.seed.tenant, async (tx) => {
      const balance = tx.create(Balance, {
        businessUnit: session.seed.businessUnitId,
        customer: customerId,
        name: 'Credit',
        currency: 'EUR',
        isDefault: true,
      });
      await tx.flush();
      await appendBalanceUpdate(tx, {
        balance,
        kind: 'MANUAL_CREDIT',
        amount: '30.00',
        description: 'Goodwill',
        createdBy: 'test',
        idempotencyKey: `credit-${customerId}`,
      });
      await tx.flush();
    });
    const invoiceId = await issueTestInvoice(session, { customerId, lines: [{ gross: '12.00' }] });
    const bill = await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator });
    expect(bill.body).toMatchObject({ state: 'PAID', payments: [], settledAt: expect.any(String) });
    const overview = await call('GET', back(`/invoices/${invoiceId}/overview`), { token: operator });
    expect(overview.body).toMatchObject({
      paidGross: '12.00',
      balanceUpdates: [expect.objectContaining({ kind: 'INVOICE', amount: '-12.00' })],
    });
  });

  test('a zero or negative total is not billed (I128); refunding invoices never (I121)', async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const zero = await issueTestInvoice(session, {
      customerId,
      lines: [{ gross: '5.00' }, { gross: '-5.00' }],
    });
    const negative = await issueTestInvoice(session, { customerId, lines: [{ gross: '-1.00' }] });
    expectError(await call('POST', back(`/invoices/${zero}/bill`), { token: operator }), 422, 'I128');
    expectError(await call('POST', back(`/invoices/${negative}/bill`), { token: operator }), 422, 'I128');
    const refunding = await issueTestInvoice(session, { customerId, lines: [{ gross: '-1.00' }] });
    await session
      .em()
      .nativeUpdate(Invoice, { id: refunding }, { state: 'IS_REFUND', refundedInvoice: zero });
    expectError(await call('POST', back(`/invoices/${refunding}/bill`), { token: operator }), 409, 'I121');
  });
});

describe('refund', () => {
  let invoiceId: number;
  let lines: InvoiceLine[];
  beforeAll(async () => {
    ({ invoiceId } = await billedInvoice('tok_sandbox_visa', ['30.00', '10.00']));
    await invoiceWhen(invoiceId, (invoice) => invoice.state === 'PAID', 'the invoice to be PAID');
    lines = await session.em().find(InvoiceLine, { invoice: invoiceId }, { orderBy: { position: 'asc' } });
  });

  test('a partial refund: the refunding invoice (IS_REFUND) at once, the original ALLOWS_REFUND once the gateway answered', async () => {
    const reply = await call('POST', back(`/invoices/${invoiceId}/refund`), {
      token: operator,
      body: { reason: 'Vehicle was dirty', items: [{ lineItemId: lines[0]!.id, amount: '5.00' }] },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBe(`/v1/${session.seed.tenant}/back/invoices/${reply.body.id}`);
    expect(reply.body).toMatchObject({
      state: 'IS_REFUND',
      refundedInvoiceId: invoiceId,
      refundReason: 'Vehicle was dirty',
      totals: { gross: '-5.00' },
    });
    expect(reply.body.lines).toEqual([
      expect.objectContaining({ refundedLineId: lines[0]!.id, gross: '-5.00' }),
    ]);
    const refunded = await invoiceWhen(
      invoiceId,
      (invoice) => invoice.state === 'ALLOWS_REFUND',
      'the refund to finish',
    );
    expect(refunded.refundingInvoiceIds).toEqual([reply.body.id]);
    const events = await session.em().find(Event, { type: 'INVOICE_REFUND_REQUESTED' });
    expect(events.some((event) => event.payload?.refundInvoiceId === reply.body.id)).toBe(true);
  });

  test('partial refunds add up to REFUNDED; more than a line was paid is refused (I127)', async () => {
    expectError(
      await call('POST', back(`/invoices/${invoiceId}/refund`), {
        token: operator,
        body: { reason: 'Too much', items: [{ lineItemId: lines[0]!.id, amount: '25.01' }] },
      }),
      422,
      'I127',
    );
    const second = await call('POST', back(`/invoices/${invoiceId}/refund`), {
      token: operator,
      body: {
        reason: 'Rest',
        items: [
          { lineItemId: lines[0]!.id, amount: '25.00' },
          { lineItemId: lines[1]!.id, amount: '10.00' },
        ],
      },
    });
    expect(second.status).toBe(201);
    await invoiceWhen(
      invoiceId,
      (invoice) => invoice.state === 'REFUNDED' && invoice.refundingInvoiceIds.length === 2,
      'the second refund',
    );
    const overview = await call('GET', back(`/invoices/${invoiceId}/overview`), { token: operator });
    expect(overview.body).toMatchObject({ paidGross: '40.00', refundedGross: '40.00' });
    expect(overview.body.refunds.map((refund: { totals: { gross: string } }) => refund.totals.gross)).toEqual(
      ['-5.00', '-35.00'],
    );
    expectError(
      await call('POST', back(`/invoices/${invoiceId}/refund`), {
        token: operator,
        body: { reason: 'Again', items: [{ lineItemId: lines[1]!.id, amount: '0.01' }] },
      }),
      422,
      'I127',
    );
  });

  test('refusals: not paid (I122), a refunding invoice (I122), unknown line (I405), hostile items', async () => {
    const customerId = await testCustomer(session);
    const open = await issueTestInvoice(session, { customerId, lines: [{ gross: '3.00' }] });
    const openLine = (await session.em().findOneOrFail(InvoiceLine, { invoice: open })).id;
    const refunding = (
      await session.em().findOneOrFail(Invoice, { refundedInvoice: invoiceId }, { orderBy: { id: 'asc' } })
    ).id;
    const refund = (id: number) => back(`/invoices/${id}/refund`);
    await expectErrors(
      [
        [
          'POST',
          refund(open),
          409,
          'I122',
          { reason: 'x', items: [{ lineItemId: openLine, amount: '1.00' }] },
        ],
        [
          'POST',
          refund(refunding),
          409,
          'I122',
          { reason: 'x', items: [{ lineItemId: lines[0]!.id, amount: '1.00' }] },
        ],
        ['POST', refund(invoiceId), 400, '0022', { reason: 'x', items: [] }],
        ['POST', refund(invoiceId), 400, '0022', { items: [{ lineItemId: lines[0]!.id, amount: '1.00' }] }],
        [
          'POST',
          refund(invoiceId),
          400,
          '0022',
          { reason: 'x', items: [{ lineItemId: lines[0]!.id, amount: 1 }] },
        ],
        [
          'POST',
          refund(invoiceId),
          400,
          '0022',
          { reason: 'x', items: [{ lineItemId: lines[0]!.id, amount: '-1.00' }] },
        ],
        [
          'POST',
          refund(invoiceId),
          400,
          '0022',
          { reason: 'x', items: [{ lineItemId: lines[0]!.id, amount: '1e3' }] },
        ],
        [
          'POST',
          refund(invoiceId),
          400,
          '0022',
          { reason: 'x', items: [{ lineItemId: lines[0]!.id, amount: '0x1' }] },
        ],
        [
          'POST',
          refund(invoiceId),
          400,
          '0022',
          { reason: 'a\u0000', items: [{ lineItemId: lines[0]!.id, amount: '1.00' }] },
        ],
        [
          'POST',
          refund(invoiceId),
          400,
          '0022',
          { reason: 'x', items: [{ lineItemId: '1', amount: '1.00' }] },
        ],
      ],
      operator,
    );
    // A fresh paid invoice: an unknown line is I405.
    const { invoiceId: paid } = await billedInvoice('tok_sandbox_visa', ['4.00']);
    await invoiceWhen(paid, (invoice) => invoice.state === 'PAID', 'the invoice to be PAID');
    expectError(
      await call('POST', refund(paid), {
        token: operator,
        body: { reason: 'x', items: [{ lineItemId: openLine, amount: '1.00' }] },
      }),
      404,
      'I405',
    );
  });
});

describe('collection: mark for collection, set paid externally, mark as lost', () => {
  test('a hard decline: EXCEPTION_PAYING → COLLECTION (payment COLLECTIONS) → PAID_EXTERNALLY', async () => {
    const { invoiceId, bill, customerId } = await billedInvoice('tok_sandbox_stolen_card');
    const paymentId = bill.payments[0].id as number;
    await invoiceWhen(invoiceId, (invoice) => invoice.state === 'EXCEPTION_PAYING', 'the decline');
    expect(await paymentState(paymentId)).toBe('FAILED');
    await expectErrors(
      [
        ['POST', back(`/invoices/${invoiceId}/set-paid-externally`), 409, 'F207'],
        [
          'POST',
          back(`/invoices/${invoiceId}/refund`),
          409,
          'I122',
          { reason: 'x', items: [{ lineItemId: 1, amount: '1.00' }] },
        ],
      ],
      operator,
    );
    const collection = await call('POST', back(`/invoices/${invoiceId}/mark-for-collection`), {
      token: operator,
      body: { reason: 'Three reminders unanswered' },
    });
    expect(collection.status).toBe(200);
    expect(collection.body).toMatchObject({ state: 'COLLECTION', settledAt: null });
    expect(await paymentState(paymentId)).toBe('COLLECTIONS');
    const paidOutside = await call('POST', back(`/invoices/${invoiceId}/set-paid-externally`), {
      token: operator,
      body: { reference: 'BANK-TRANSFER-0042' },
    });
    expect(paidOutside.status).toBe(200);
    expect(paidOutside.body).toMatchObject({ state: 'PAID_EXTERNALLY', settledAt: expect.any(String) });
    expect(await paymentState(paymentId)).toBe('PAID');
    await expectErrors(
      [
        ['POST', back(`/invoices/${invoiceId}/set-paid-externally`), 409, 'F207'],
        ['POST', back(`/invoices/${invoiceId}/mark-as-lost`), 409, 'I123'],
        ['POST', back(`/invoices/${invoiceId}/mark-for-collection`), 409, 'I124'],
      ],
      operator,
    );
    const types = (await session.em().find(Event, { customerId }, { orderBy: { id: 'asc' } })).map(
      (event) => event.type,
    );
    expect(types).toEqual(
      expect.arrayContaining(['INVOICE_BILLED', 'INVOICE_MARKED_FOR_COLLECTION', 'INVOICE_PAID_EXTERNALLY']),
    );
  });

  test('a collection invoice without any payment is set paid externally too', async () => {
    const customerId = await testCustomer(session);
    const invoiceId = await issueTestInvoice(session, { customerId, lines: [{ gross: '9.00' }] });
    await session
      .em()
      .nativeUpdate(Invoice, { id: invoiceId }, { state: 'EXCEPTION_BILLING', billedAt: new Date() });
    const marked = await call('POST', back(`/invoices/${invoiceId}/mark-for-collection`), {
      token: operator,
    });
    expect(marked.body).toMatchObject({ state: 'COLLECTION', payments: [] });
    const paid = await call('POST', back(`/invoices/${invoiceId}/set-paid-externally`), { token: operator });
    expect(paid.body).toMatchObject({ state: 'PAID_EXTERNALLY' });
  });

  test('a failed payment given up: mark as lost → IGNORE (settled; the payment stays FAILED)', async () => {
    const { invoiceId, bill } = await billedInvoice('tok_sandbox_stolen_card');
    await invoiceWhen(invoiceId, (invoice) => invoice.state === 'EXCEPTION_PAYING', 'the decline');
    const lost = await call('POST', back(`/invoices/${invoiceId}/mark-as-lost`), {
      token: operator,
      body: { reason: 'Insolvent' },
    });
    expect(lost.status).toBe(200);
    expect(lost.body).toMatchObject({ state: 'IGNORE', settledAt: expect.any(String) });
    expect(await paymentState(bill.payments[0].id)).toBe('FAILED');
    const overview = await call('GET', back(`/invoices/${invoiceId}/overview`), { token: operator });
    expect(overview.body.allowedOperations).toEqual([]);
    expect(overview.body.timeline.map((entry: { type: string }) => entry.type)).toContain(
      'INVOICE_MARKED_AS_LOST',
    );
  });

  test('a payment waiting for a retry is stopped when its invoice goes to collection', async () => {
    const { invoiceId, bill } = await billedInvoice('tok_sandbox_insufficient_funds');
    const paymentId = bill.payments[0].id as number;
    await eventually(
      async () => ((await paymentState(paymentId)) === 'AWAITING_RETRY' ? true : undefined),
      30_000,
      'AWAITING_RETRY',
    );
    expect((await call('GET', back(`/invoices/${invoiceId}`), { token: operator })).body.state).toBe(
      'IN_PAYMENT',
    );
    const marked = await call('POST', back(`/invoices/${invoiceId}/mark-for-collection`), {
      token: operator,
    });
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ state: 'COLLECTION' });
    expect(await paymentState(paymentId)).toBe('COLLECTIONS');
  });

  test('state refusals on an OPEN invoice; hostile bodies', async () => {
    const customerId = await testCustomer(session);
    const open = await issueTestInvoice(session, { customerId, lines: [{ gross: '2.00' }] });
    await expectErrors(
      [
        ['POST', back(`/invoices/${open}/set-paid-externally`), 409, 'F207'],
        ['POST', back(`/invoices/${open}/mark-as-lost`), 409, 'I123'],
        ['POST', back(`/invoices/${open}/mark-for-collection`), 409, 'I124'],
        ['POST', back(`/invoices/${open}/mark-as-lost`), 400, '0022', { reason: '' }],
        ['POST', back(`/invoices/${open}/mark-as-lost`), 400, '0022', { reason: 'a\u0000b' }],
        ['POST', back(`/invoices/${open}/mark-for-collection`), 400, '0022', { state: 'COLLECTION' }],
        ['POST', back(`/invoices/${open}/set-paid-externally`), 400, '0022', { reference: 42 }],
      ],
      operator,
    );
  });
});

describe("the app's retry of its unpaid invoices", () => {
  test('a payment waiting for a retry is charged again now (RETRIED), and the invoice is paid', async () => {
    const { invoiceId, bill, customerId } = await billedInvoice('tok_sandbox_insufficient_funds_once');
    const paymentId = bill.payments[0].id as number;
    await eventually(
      async () => ((await paymentState(paymentId)) === 'AWAITING_RETRY' ? true : undefined),
      30_000,
      'AWAITING_RETRY',
    );
    const token = await session.customerToken(customerId);
    const unpaid = await call('GET', front('/invoices?unpaid=true'), { token });
    expect(unpaid.body.map((invoice: { id: number }) => invoice.id)).toEqual([invoiceId]);
    const retry = await call('POST', front('/invoices/retry'), { token });
    expect(retry.status).toBe(200);
    expect(retry.body.results).toEqual([
      expect.objectContaining({
        invoiceId,
        outcome: 'RETRIED',
        errorCode: null,
        payment: expect.objectContaining({ id: paymentId }),
      }),
    ]);
    await invoiceWhen(invoiceId, (invoice) => invoice.state === 'PAID', 'the retried payment');
    expect((await call('GET', front('/invoices?unpaid=true'), { token })).body).toEqual([]);
    const retried = await session.em().find(Event, { type: 'INVOICE_RETRY_PAYMENT', customerId });
    expect(retried.length).toBeGreaterThanOrEqual(1);
    // Nothing left to retry.
    expect((await call('POST', front('/invoices/retry'), { token })).body).toEqual({ results: [] });
  });

  test('a failed payment is followed by a new one (NEW_PAYMENT) once a working card is added', async () => {
    const { invoiceId, customerId, bill } = await billedInvoice('tok_sandbox_stolen_card');
    await invoiceWhen(invoiceId, (invoice) => invoice.state === 'EXCEPTION_PAYING', 'the decline');
    const em = session.em();
    await em.nativeUpdate(PaymentSource, { customer: customerId }, { isDefault: false });
    const old = await em.findOneOrFail(PaymentSource, { customer: customerId });
    em.create(PaymentSource, {
      customer: customerId,
      businessUnit: session.seed.businessUnitId,
      type: 'CARD',
      provider: 'sandbox',
      providerReference: 'tok_sandbox_visa',
      label: 'New card',
      isDefault: true,
    });
    await em.flush();
    expect(old.id).toBeGreaterThan(0);
    const token = await session.customerToken(customerId);
    const retry = await call('POST', front('/invoices/retry'), { token, body: { invoiceIds: [invoiceId] } });
    expect(retry.status).toBe(200);
    expect(retry.body.results[0]).toMatchObject({ invoiceId, outcome: 'NEW_PAYMENT', errorCode: null });
    expect(retry.body.results[0].payment.id).not.toBe(bill.payments[0].id);
    const paid = await invoiceWhen(invoiceId, (invoice) => invoice.state === 'PAID', 'the new payment');
    expect(paid.payments.map((payment: { state: string }) => payment.state)).toEqual(['PAID', 'FAILED']);
  });

  test("refusals per invoice (I125); another customer's invoice is not found (I404); no customer is 0001", async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const open = await issueTestInvoice(session, { customerId, lines: [{ gross: '2.00' }] });
    const otherCustomer = await testCustomer(session);
    const others = await issueTestInvoice(session, { customerId: otherCustomer, lines: [{ gross: '2.00' }] });
    const token = await session.customerToken(customerId);
    const refused = await call('POST', front('/invoices/retry'), { token, body: { invoiceIds: [open] } });
    expect(refused.body.results).toEqual([
      { invoiceId: open, outcome: 'REFUSED', errorCode: 'I125', invoiceState: 'OPEN', payment: null },
    ]);
    await expectErrors(
      [
        ['POST', front('/invoices/retry'), 404, 'I404', { invoiceIds: [others] }],
        ['POST', front('/invoices/retry'), 404, 'I404', { invoiceIds: [open, 2147483647] }],
        ['POST', front('/invoices/retry'), 400, '0022', { invoiceIds: [] }],
        ['POST', front('/invoices/retry'), 400, '0022', { invoiceIds: [open, open] }],
        ['POST', front('/invoices/retry'), 400, '0022', { invoiceIds: ['1'] }],
        ['POST', front('/invoices/retry'), 400, '0022', { invoiceIds: [0] }],
        ['POST', front('/invoices/retry'), 400, '0022', { invoiceIds: open }],
      ],
      token,
    );
    const rivalCustomer = session.rival.customerIds[0]!;
    const rivalToken = await session.customerToken(rivalCustomer, session.rival.tenant);
    expectError(
      await call('POST', `/v1/${session.rival.tenant}/front/invoices/retry`, {
        token: rivalToken,
        body: { invoiceIds: [open] },
      }),
      404,
      'I404',
    );
    expectError(await call('POST', front('/invoices/retry'), { token: session.appClientToken }), 401, '0001');
  });
});

describe('denials', () => {
  test("another business unit's finance operator cannot bill, refund or collect (AUTH002); another tenant gets I404", async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const invoiceId = await issueTestInvoice(session, { customerId, lines: [{ gross: '2.00' }] });
    const other = await otherBusinessUnit(session, { currency: 'EUR', taxPercentage: '19.00', scale: 2 });
    const otherFinance = await grantedClient(session, { role: 'Finance', businessUnitId: other.unitId });
    const routes: [string, unknown?][] = [
      ['bill'],
      ['refund', { reason: 'x', items: [{ lineItemId: 1, amount: '1.00' }] }],
      ['set-paid-externally'],
      ['mark-as-lost'],
      ['mark-for-collection'],
    ];
    for (const [operation, body] of routes) {
      expectError(
        await call('POST', back(`/invoices/${invoiceId}/${operation}`), { token: otherFinance, body }),
        403,
        'AUTH002',
      );
      expectError(
        await call('POST', `/v1/${session.rival.tenant}/back/invoices/${invoiceId}/${operation}`, {
          token: session.rivalOperatorToken,
          body,
        }),
        404,
        'I404',
      );
      for (const value of ['0x1', '1e3', '0', '%00'])
        expectError(
          await call('POST', back(`/invoices/${value}/${operation}`), { token: operator, body }),
          400,
          '0022',
        );
    }
    expect((await session.em().findOneOrFail(Invoice, invoiceId, { refresh: true })).state).toBe('OPEN');
    expect(
      new Decimal((await session.em().findOneOrFail(Invoice, invoiceId)).totalGross).equals('2.00'),
    ).toBe(true);
  });
});
