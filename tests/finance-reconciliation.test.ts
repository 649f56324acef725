// Books that reconcile (issue 34), over HTTP against the real payment and refund workflows and the sandbox
// gateway: refunds bounded by what was paid (per line after vouchers and discounts, and in total) and
// split between gateway and balance as it was paid; every money movement an event on its timeline with
// its real before and after states (automatic and manual billing, payment outcomes, refunds, collection,
// every ledger row); PAID_EXTERNALLY paid in full; and the reconciliation report, empty when the books
// agree and naming the records when they do not.
import { Decimal } from 'decimal.js';
import { Balance } from '../db/entities/Balance.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { appendBalanceUpdate } from '../db/balance-ledger.js';
import { Event } from '../db/entities/Event.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { reconciliationReport } from '../db/finance-reconciliation.js';
import { DEMO_TENANT } from '../db/seed.js';
import { seedDemoTenant } from '../composition/seed.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { eventually, issueTestInvoice, testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);

const invoiceWhen = (id: number, accept: (invoice: Reply['body']) => boolean, what: string) =>
  eventually(
    async () => {
      const reply = await call('GET', back(`/invoices/${id}`), { token: operator });
      return accept(reply.body) ? reply.body : undefined;
    },
    30_000,
    what,
  );

const linesOf = (invoiceId: number) =>
  session.em().find(InvoiceLine, { invoice: invoiceId }, { orderBy: { position: 'asc' } });

/** A default balance of the customer at the seed's unit with `credit`, through the operator API. */
async function creditedBalance(customerId: number, credit: string): Promise<number> {
  const created = await call('POST', back('/balances'), {
    token: operator,
    body: {
      userId: customerId,
      businessUnitId: session.seed.businessUnitId,
      name: 'Wallet',
      defaultBalance: true,
    },
  });
  expect(created.status).toBe(201);
  const update = await call('POST', back(`/balances/${created.body.id}/updates`), {
    token: operator,
    body: { amount: credit, description: 'Customer care credit' },
  });
  expect(update.status).toBe(201);
  return created.body.id;
}

/** An invoice of a new customer (card `token`, optional balance credit) billed over HTTP and settled. */
async function paidInvoice(grosses: string[], options: { token?: string; credit?: string } = {}) {
  const customerId = await testCustomer(session, { token: options.token ?? 'tok_sandbox_visa' });
  const balanceId = options.credit ? await creditedBalance(customerId, options.credit) : null;
  const invoiceId = await issueTestInvoice(session, {
    customerId,
    lines: grosses.map((gross) => ({ gross })),
  });
  const bill = await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator });
  expect(bill.status).toBe(200);
  await invoiceWhen(invoiceId, (invoice) => invoice.state === 'PAID', 'the invoice to be PAID');
  return { customerId, balanceId, invoiceId, lines: await linesOf(invoiceId) };
}

const refund = (invoiceId: number, items: { lineItemId: number; amount: string }[]) =>
  call('POST', back(`/invoices/${invoiceId}/refund`), {
    token: operator,
    body: { reason: 'Goodwill', items },
  });

async function refunded(invoiceId: number, items: { lineItemId: number; amount: string }[], state: string) {
  const reply = await refund(invoiceId, items);
  expect(reply.status).toBe(201);
  await invoiceWhen(invoiceId, (invoice) => invoice.state === state, `the refund to end ${state}`);
  return reply.body.id as number;
}

const overview = async (invoiceId: number) =>
  (await call('GET', back(`/invoices/${invoiceId}/overview`), { token: operator })).body;

const report = async () => {
  const reply = await call(
    'GET',
    back(`/finance/reconciliation?businessUnitId=${session.seed.businessUnitId}`),
    { token: operator },
  );
  expect(reply.status).toBe(200);
  return reply.body;
};

beforeAll(async () => {
  session = await startSession();
  operator = session.operatorToken;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('refunds bounded by what was paid', () => {
  test('card and balance: refunds add up to what was paid, split as it was paid; a third is I127', async () => {
    // 40.00 = 9.00 from the balance + 31.00 by card.
    const { invoiceId, balanceId, lines } = await paidInvoice(['30.00', '10.00'], { credit: '9.00' });
    expect(await overview(invoiceId)).toMatchObject({ paidGross: '40.00', refundedGross: '0.00' });
    const first = await refunded(invoiceId, [{ lineItemId: lines[0]!.id, amount: '4.00' }], 'ALLOWS_REFUND');
    // Line 1 was paid 30.00: 4.00 given back, 26.00 left.
    expectError(await refund(invoiceId, [{ lineItemId: lines[0]!.id, amount: '26.01' }]), 422, 'I127');
    const second = await refunded(
      invoiceId,
      [
        { lineItemId: lines[0]!.id, amount: '26.00' },
        { lineItemId: lines[1]!.id, amount: '10.00' },
      ],
      'REFUNDED',
    );
    expectError(await refund(invoiceId, [{ lineItemId: lines[1]!.id, amount: '0.01' }]), 422, 'I127');
    const view = await overview(invoiceId);
    expect(view).toMatchObject({ paidGross: '40.00', refundedGross: '40.00' });
    // The card gave back its 31.00, the balance its 9.00.
    const credits = await session.em().find(BalanceUpdate, { balance: balanceId!, kind: 'REFUND' });
    expect(credits.map((row) => row.amount)).toEqual(['9.00']);
    const refundedEvents = view.timeline.filter(
      (entry: { type: string }) => entry.type === 'INVOICE_REFUNDED',
    );
    expect(refundedEvents.map((entry: { payload: Record<string, unknown> }) => entry.payload)).toEqual([
      expect.objectContaining({
        refundInvoiceId: first,
        viaGateway: '4.00',
        toBalance: '0.00',
        from: 'REFUND_IN_PROGRESS',
        to: 'ALLOWS_REFUND',
      }),
      expect.objectContaining({
        refundInvoiceId: second,
        viaGateway: '27.00',
        toBalance: '9.00',
        to: 'REFUNDED',
      }),
    ]);
    expect((await report()).discrepancies).toEqual([]);
  });

  test('a line is refunded at most what it was paid after a discount; in total at most what was paid', async () => {
    // 1.50 + 0.50 list price, -1.38 voucher: paid 0.62, shared 0.47 / 0.15 by the lines' list prices.
    const { invoiceId, lines } = await paidInvoice(['1.50', '0.50', '-1.38']);
    expect(await overview(invoiceId)).toMatchObject({ paidGross: '0.62' });
    expectError(await refund(invoiceId, [{ lineItemId: lines[0]!.id, amount: '1.50' }]), 422, 'I127');
    expectError(await refund(invoiceId, [{ lineItemId: lines[0]!.id, amount: '0.48' }]), 422, 'I127');
    expectError(await refund(invoiceId, [{ lineItemId: lines[2]!.id, amount: '0.01' }]), 422, 'I127');
    await refunded(invoiceId, [{ lineItemId: lines[0]!.id, amount: '0.47' }], 'ALLOWS_REFUND');
    await refunded(invoiceId, [{ lineItemId: lines[1]!.id, amount: '0.15' }], 'REFUNDED');
    expect(await overview(invoiceId)).toMatchObject({ paidGross: '0.62', refundedGross: '0.62' });
    expect((await report()).discrepancies).toEqual([]);
  });

  test('one rule, one code: a line named twice is I405; more decimals than the currency I131', async () => {
    const { invoiceId, lines } = await paidInvoice(['12.00']);
    expectError(
      await refund(invoiceId, [
        { lineItemId: lines[0]!.id, amount: '1.00' },
        { lineItemId: lines[0]!.id, amount: '2.00' },
      ]),
      404,
      'I405',
    );
    expectError(await refund(invoiceId, [{ lineItemId: lines[0]!.id, amount: '1.001' }]), 422, 'I131');
    expectError(await refund(invoiceId, [{ lineItemId: lines[0]!.id, amount: '1.0000001' }]), 422, 'I131');
    // Line items: more decimals is I131 in every form; a quantity of zero is refused by the schema.
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const open = await issueTestInvoice(session, { customerId, lines: [{ gross: '1.00' }] });
    const add = (body: Record<string, unknown>) =>
      call('POST', back(`/invoices/${open}/line-items`), { token: operator, body });
    expectError(await add({ description: 'Fee', gross: '1.234' }), 422, 'I131');
    expectError(await add({ description: 'Fee', gross: '1.2345678' }), 422, 'I131');
    expectError(await add({ description: 'Fee', gross: '1.00', quantity: '0' }), 400, '0022');
    expectError(await add({ description: 'Fee', gross: '1.00', quantity: '0.000' }), 400, '0022');
    const three = await add({ description: 'Three helmets', gross: '10.00', quantity: '3' });
    expect(three.status).toBe(201);
    const added = (await linesOf(open)).find((line) => line.description === 'Three helmets')!;
    expect(added).toMatchObject({ quantity: '3.000', unit: 'PIECE' });
    expect(new Decimal(added.quantity).times(added.unitPrice).toFixed(2)).toBe('10.00');
    // A part of a line is one PIECE of that amount, its quantity written as every line's.
    const refundId = await refunded(
      invoiceId,
      [{ lineItemId: lines[0]!.id, amount: '2.50' }],
      'ALLOWS_REFUND',
    );
    const [part] = await linesOf(refundId);
    expect(part).toMatchObject({ unit: 'PIECE', quantity: '1.000', gross: '-2.50' });
  });
});

describe('every money movement on its timeline', () => {
  test('a bill, the payment, the balance rows: INVOICE_CREATED, INVOICE_BILLED, INVOICE_PAYMENT_SUCCEEDED, BALANCE_UPDATED', async () => {
    const { invoiceId, balanceId } = await paidInvoice(['20.00'], { credit: '5.00' });
    // The charge's outcome is written in one statement and its event right after it.
    const view = await eventually(
      async () => {
        const read = await overview(invoiceId);
        return read.timeline.some((entry: { type: string }) => entry.type === 'INVOICE_PAYMENT_SUCCEEDED')
          ? read
          : undefined;
      },
      30_000,
      'the payment event',
    );
    const types = view.timeline.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(
      expect.arrayContaining(['INVOICE_CREATED', 'INVOICE_BILLED', 'INVOICE_PAYMENT_SUCCEEDED']),
    );
    expect(types.filter((type: string) => type === 'INVOICE_BILLED')).toHaveLength(1);
    const billed = view.timeline.find((entry: { type: string }) => entry.type === 'INVOICE_BILLED');
    expect(billed.payload).toMatchObject({ from: 'OPEN', to: 'BILLED', fromBalance: '5.00', toPay: '15.00' });
    const paid = view.timeline.find((entry: { type: string }) => entry.type === 'INVOICE_PAYMENT_SUCCEEDED');
    expect(paid.payload).toMatchObject({ from: 'IN_PAYMENT', to: 'PAID', amount: '15.00' });
    const events = await call('GET', back(`/balances/${balanceId}/events`), { token: operator });
    const updates = events.body.filter((event: { type: string }) => event.type === 'BALANCE_UPDATED');
    expect(updates.map((event: { payload: Record<string, unknown> }) => event.payload)).toEqual([
      expect.objectContaining({
        kind: 'MANUAL_CREDIT',
        amount: '5.00',
        valueBefore: '0.00',
        valueAfter: '5.00',
      }),
      expect.objectContaining({
        kind: 'INVOICE',
        amount: '-5.00',
        valueBefore: '5.00',
        valueAfter: '0.00',
        invoiceId,
      }),
    ]);
    expect(events.body.map((event: { type: string }) => event.type)).toContain('BALANCE_DEPLETED');
  });

  test('collection: each event names the state it left; PAID_EXTERNALLY is paid in full', async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_stolen_card' });
    const invoiceId = await issueTestInvoice(session, { customerId, lines: [{ gross: '5.60' }] });
    expect((await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator })).status).toBe(200);
    await invoiceWhen(invoiceId, (invoice) => invoice.state === 'EXCEPTION_PAYING', 'the charge to fail');
    const marked = await call('POST', back(`/invoices/${invoiceId}/mark-for-collection`), {
      token: operator,
    });
    expect(marked.body.state).toBe('COLLECTION');
    const settled = await call('POST', back(`/invoices/${invoiceId}/set-paid-externally`), {
      token: operator,
      body: { reference: 'bank-transfer-1' },
    });
    expect(settled.body.state).toBe('PAID_EXTERNALLY');
    const view = await overview(invoiceId);
    expect(view).toMatchObject({ paidGross: '5.60' });
    const payloadOf = (type: string) =>
      view.timeline.find((entry: { type: string }) => entry.type === type)?.payload;
    expect(payloadOf('INVOICE_PAYMENT_DECLINED')).toMatchObject({
      from: 'IN_PAYMENT',
      to: 'EXCEPTION_PAYING',
    });
    expect(payloadOf('INVOICE_MARKED_FOR_COLLECTION')).toMatchObject({
      from: 'EXCEPTION_PAYING',
      to: 'COLLECTION',
    });
    expect(payloadOf('INVOICE_PAID_EXTERNALLY')).toMatchObject({
      from: 'COLLECTION',
      to: 'PAID_EXTERNALLY',
      paidExternallyGross: '5.60',
    });
    // Refunded outside fleetflow, as it was paid.
    const [line] = await linesOf(invoiceId);
    await refunded(invoiceId, [{ lineItemId: line!.id, amount: '5.60' }], 'REFUNDED');
    expect(await overview(invoiceId)).toMatchObject({ paidGross: '5.60', refundedGross: '5.60' });
    expect((await report()).discrepancies).toEqual([]);
  });
});

describe('manual credits', () => {
  test("bounded by the tenant's limit (J116); a reversal restores exactly what was there", async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const balanceId = await creditedBalance(customerId, '1.00');
    await inTenantTransaction(session.backend.orm, session.seed.tenant, async (tx) => {
      const balance = await tx.findOneOrFail(Balance, balanceId);
      await appendBalanceUpdate(tx, {
        balance,
        kind: 'VOUCHER',
        amount: '2.50',
        description: 'Voucher credit',
        createdBy: 'test',
        idempotencyKey: `test:voucher:${balanceId}`,
      });
    });
    const post = (amount: string) =>
      call('POST', back(`/balances/${balanceId}/updates`), {
        token: operator,
        body: { amount, description: 'Customer care' },
      });
    expectError(await post('9999999999.99'), 422, 'J116');
    expectError(await post('-1000.01'), 422, 'J116');
    const read = async () => (await call('GET', back(`/balances/${balanceId}`), { token: operator })).body;
    expect(await read()).toMatchObject({ value: '3.50', remainingVouchersGrossValue: '2.50' });
    expect((await post('1000.00')).status).toBe(201);
    expect((await post('-1000.00')).status).toBe(201);
    expect(await read()).toMatchObject({ value: '3.50', remainingVouchersGrossValue: '2.50' });
  });
});

describe('the reconciliation report', () => {
  test("the demo tenant's books reconcile: every business unit, the whole seeded year", async () => {
    await seedDemoTenant(session.backend.orm.em);
    const em = tenantEm(session.backend.orm, DEMO_TENANT);
    const units = await em.execute<{ id: number }[]>('select id from business_unit where tenant_id = ?', [
      DEMO_TENANT,
    ]);
    expect(units.length).toBeGreaterThan(0);
    const to = new Date(Date.now() + 60_000);
    const from = new Date(to.getTime() - 365 * 86_400_000);
    for (const unit of units) {
      const report = await reconciliationReport(em, DEMO_TENANT, { businessUnitId: unit.id, from, to });
      expect(report.discrepancies).toEqual([]);
    }
    const [checked] = units;
    const report = await reconciliationReport(em, DEMO_TENANT, { businessUnitId: checked!.id, from, to });
    expect(report.checked.invoices).toBeGreaterThan(5);
    expect(report.checked.ledgerRows).toBeGreaterThan(4);
  });

  test('names a ledger row written without its event, and its balance', async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const balanceId = await creditedBalance(customerId, '3.00');
    const rowId = await inTenantTransaction(session.backend.orm, session.seed.tenant, async (tx) => {
      const row = tx.create(BalanceUpdate, {
        balance: balanceId,
        kind: 'INVOICE',
        amount: '-1.00',
        description: 'Booked by hand, no invoice, no event',
        createdBy: 'test',
        idempotencyKey: `test:unbooked:${customerId}`,
      });
      await tx.flush();
      return row.id;
    });
    const { discrepancies } = await report();
    expect(discrepancies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: 'BALANCE_LEDGER', records: { balanceId, balanceUpdateId: rowId } }),
        expect.objectContaining({ check: 'LEDGER_LINK', records: { balanceId, balanceUpdateId: rowId } }),
      ]),
    );
    expect(await session.em().count(Event, { type: 'BALANCE_UPDATED' })).toBeGreaterThan(0);
  });

  test('finance permission on the unit, a period of at most 366 days (I133)', async () => {
    const unit = session.seed.businessUnitId;
    expectError(
      await call(
        'GET',
        back(
          `/finance/reconciliation?businessUnitId=${unit}&from=2026-01-01T00:00:00Z&to=2025-01-01T00:00:00Z`,
        ),
        {
          token: operator,
        },
      ),
      422,
      'I133',
    );
    expectError(
      await call(
        'GET',
        back(
          `/finance/reconciliation?businessUnitId=${unit}&from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`,
        ),
        {
          token: operator,
        },
      ),
      422,
      'I133',
    );
    expect((await call('GET', back(`/finance/reconciliation?businessUnitId=${unit}`))).status).toBe(401);
  });
});
