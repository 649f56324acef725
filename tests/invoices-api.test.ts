// Invoices over HTTP (real PostgreSQL and Temporal, responses validated against the documents): the
// line-item money rules (net xor gross, the other side derived with the business unit's tax and
// rounding, totals the sums of the lines, a zero-minor-digit currency), the operator's list with the
// spec's filters and paging headers, one invoice, its line items and templates, title and description
// edits while OPEN, the overview and the report. Documents: invoice-documents-api.test.ts; the app's
// invoices, denials and hostile input: invoices-access-api.test.ts. Invoices are issued with
// `issueInvoice`, as ended rentals issue them.
import { Decimal } from 'decimal.js';
import { Balance } from '../db/entities/Balance.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { InvoiceLineTemplate } from '../db/entities/InvoiceLineTemplate.js';
import { appendBalanceUpdate } from '../db/balance-ledger.js';
import { inTenantTransaction } from '../db/orm.js';
import { isDomainError } from '../domain/errors.js';
import { deriveLinePrice, invoiceTotalsOf, lineUnitPrice } from '../domain/invoice-lines.js';
import { startSession, type Session } from './support/session.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { grantedClient, issueTestInvoice, otherBusinessUnit, rawCall } from './support/invoices.js';

let session: Session;
let operator: string;
let anna: number;
let ben: number;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const branchQuery = () => `branchId=${session.seed.branchId}`;

/** Each request answers this status and catalogue code. */
async function expectErrors(cases: [string, string, number, string, unknown?][], token?: string) {
  for (const [method, path, status, code, body] of cases)
    expectError(await call(method, path, { token, body }), status, code);
}

const sum = (values: string[]) => values.reduce((total, value) => total.plus(value), new Decimal(0));

/** Every total of an invoice is the sum of its lines. */
function expectTotalsOfLines(invoice: {
  totals: Record<string, string>;
  lines: Record<string, string>[];
  currency: string;
}) {
  for (const key of ['net', 'tax', 'gross'])
    expect(new Decimal(invoice.totals[key]!).equals(sum(invoice.lines.map((line) => line[key]!)))).toBe(true);
  for (const line of invoice.lines)
    expect(new Decimal(line.net!).plus(line.tax!).equals(line.gross!)).toBe(true);
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  operator = session.operatorToken;
  [anna, ben] = session.seed.customerIds as [number, number];
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('line amounts (pure, domain/invoice-lines.ts)', () => {
  const eur = { taxPercentage: '19.00', scale: 2, currency: 'EUR' };
  const yen = { taxPercentage: '10.00', scale: 0, currency: 'JPY' };

  test('net or gross: the other side derived with the tax, rounded once half-up', () => {
    expect(deriveLinePrice({ net: '10.00' }, eur)).toEqual({
      net: '10.00',
      tax: '1.90',
      gross: '11.90',
      taxPercentage: '19.00',
      basis: 'NET',
    });
    expect(deriveLinePrice({ gross: '11.90' }, eur)).toMatchObject({
      net: '10.00',
      tax: '1.90',
      basis: 'GROSS',
    });
    expect(deriveLinePrice({ gross: '0.01' }, eur)).toMatchObject({
      net: '0.01',
      tax: '0.00',
      gross: '0.01',
    });
    expect(deriveLinePrice({ gross: '-5.95' }, eur)).toMatchObject({ net: '-5.00', tax: '-0.95' });
    expect(deriveLinePrice({ net: '0.05' }, eur)).toMatchObject({ tax: '0.01', gross: '0.06' });
    expect(deriveLinePrice({ gross: '1000' }, yen)).toMatchObject({ net: '909', tax: '91', gross: '1000' });
    expect(deriveLinePrice({ net: '333' }, yen)).toMatchObject({ tax: '33', gross: '366' });
  });

  test('both, neither, too many decimals and non-decimal text are refused', () => {
    const code = (work: () => unknown) => {
      try {
        work();
        return 'accepted';
      } catch (error) {
        return isDomainError(error) ? error.code : String(error);
      }
    };
    expect(code(() => deriveLinePrice({ net: '1.00', gross: '1.19' }, eur))).toBe('I126');
    expect(code(() => deriveLinePrice({}, eur))).toBe('I126');
    expect(code(() => deriveLinePrice({ net: null, gross: null }, eur))).toBe('I126');
    expect(code(() => deriveLinePrice({ gross: '1.234' }, eur))).toBe('I131');
    expect(code(() => deriveLinePrice({ gross: '1.5' }, yen))).toBe('I131');
    expect(code(() => deriveLinePrice({ gross: '1.1' }, { ...eur, scale: 0 }))).toBe('I131');
    for (const text of ['0x1', '1e3', ' 1', '1,00', 'NaN', 'Infinity', '', '1.', '+1'])
      expect(code(() => deriveLinePrice({ gross: text }, eur))).toBe('0022');
  });

  test('every total is the sum of its lines, in EUR and JPY, for many amounts', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (const context of [eur, yen]) {
      const lines = Array.from({ length: 200 }, () => {
        const cents = (next() % 2_000_000) - 200_000;
        const text = context.currency === 'JPY' ? String(cents) : new Decimal(cents).div(100).toFixed(2);
        return deriveLinePrice(next() % 2 ? { net: text } : { gross: text }, context);
      });
      const totals = invoiceTotalsOf(lines, context.currency);
      for (const key of ['net', 'tax', 'gross'] as const)
        expect(new Decimal(totals[key]).equals(sum(lines.map((line) => line[key])))).toBe(true);
      expect(new Decimal(totals.net).plus(totals.tax).equals(totals.gross)).toBe(true);
      for (const line of lines) expect(new Decimal(line.net).plus(line.tax).equals(line.gross)).toBe(true);
    }
  });

  test('unit prices: the amount for one piece, else per unit to six decimals', () => {
    expect(lineUnitPrice('11.90', '1', 'EUR')).toBe('11.90');
    expect(lineUnitPrice('10.00', '3', 'EUR')).toBe('3.333333');
    expect(lineUnitPrice('1000', '4', 'JPY')).toBe('250');
  });
});

describe('reading invoices', () => {
  let first: number;
  let second: number;
  let bens: number;
  beforeAll(async () => {
    first = await issueTestInvoice(session, {
      customerId: anna,
      lines: [{ gross: '12.60' }, { net: '3.00' }],
    });
    second = await issueTestInvoice(session, {
      customerId: anna,
      lines: [{ gross: '5.00' }],
      title: 'Second',
    });
    bens = await issueTestInvoice(session, { customerId: ben, lines: [{ gross: '7.77' }] });
  });

  test('one invoice: lines, totals the sums of the lines, no payments yet', async () => {
    const reply = await call('GET', back(`/invoices/${first}`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: first,
      state: 'OPEN',
      type: 'REGULAR',
      guserId: anna,
      businessUnitId: session.seed.businessUnitId,
      currency: 'EUR',
      totals: { net: '13.59', tax: '2.58', gross: '16.17' },
      billedAt: null,
      settledAt: null,
      refundReason: null,
      payments: [],
      refundingInvoiceIds: [],
    });
    expect(reply.body.number).toMatch(/^BER-\d{4}-\d{6}$/);
    expect(reply.body.lines.map((line: { position: number }) => line.position)).toEqual([1, 2]);
    expect(reply.body.lines[0]).toMatchObject({ templateId: null, refundedLineId: null, gross: '12.60' });
    expectTotalsOfLines(reply.body);
  });

  test('the list: the branch’s business unit, newest first, paged with X-Total-* headers', async () => {
    const page = await call('GET', back(`/invoices?${branchQuery()}&size=2&page=0`), { token: operator });
    expect(page.status).toBe(200);
    expect(page.body.map((invoice: { id: number }) => invoice.id)).toEqual([bens, second]);
    expect(Number(page.headers.get('X-Total-Count'))).toBeGreaterThanOrEqual(3);
    expect(page.headers.get('X-Page-Size')).toBe('2');
    expect(page.headers.get('X-Page-Number')).toBe('0');
    expect(Number(page.headers.get('X-Total-Pages'))).toBeGreaterThanOrEqual(2);
    // The city branch belongs to the same business unit: the same invoices.
    const city = await call('GET', back(`/invoices?branchId=${session.seed.cityBranchId}&size=100`), {
      token: operator,
    });
    expect(city.body.map((invoice: { id: number }) => invoice.id)).toEqual(
      expect.arrayContaining([first, second, bens]),
    );
  });

  test('filters: invoiceId, guser.firstName, invoiceType, state, guserId, balanceId, chargeId, issue window', async () => {
    const ids = async (query: string) => {
      const reply = await call('GET', back(`/invoices?${branchQuery()}&size=100&${query}`), {
        token: operator,
      });
      expect(reply.status).toBe(200);
      return reply.body.map((invoice: { id: number }) => invoice.id).sort((a: number, b: number) => a - b);
    };
    expect(await ids(`invoiceId=${first}`)).toEqual([first]);
    expect(await ids('guser.firstName=BE')).toEqual(expect.arrayContaining([bens]));
    expect(await ids('guser.firstName=BE')).not.toContain(first);
    expect(await ids('guser.firstName=%25')).toEqual([]);
    expect(await ids('invoiceType=BUSINESS')).not.toContain(first);
    expect(await ids(`invoiceType=REGULAR&guserId=${anna}`)).toEqual(expect.arrayContaining([first, second]));
    expect(await ids(`state=OPEN&state=PAID&invoiceId=${second}`)).toEqual([second]);
    expect(await ids(`state=PAID&invoiceId=${second}`)).toEqual([]);
    expect(await ids(`issuedFrom=2000-01-01T00:00:00Z&issuedTo=2000-01-02T00:00:00Z`)).toEqual([]);

    // balanceId: the invoices a balance's ledger rows name.
    const balanceId = await inTenantTransaction(session.backend.orm, session.seed.tenant, async (tx) => {
      const balance = tx.create(Balance, {
        businessUnit: session.seed.businessUnitId,
        customer: anna,
        name: 'Test balance',
        currency: 'EUR',
      });
      await tx.flush();
      await appendBalanceUpdate(tx, {
        balance,
        kind: 'INVOICE',
        amount: '-5.00',
        description: 'Invoice',
        createdBy: 'test',
        idempotencyKey: `test-balance-row-${second}`,
        invoiceId: second,
      });
      await tx.flush();
      return balance.id;
    });
    expect(await ids(`balanceId=${balanceId}`)).toEqual([second]);
    expect(await ids('balanceId=2147483647')).toEqual([]);

    // chargeId: the invoice whose payment reference (or payment, or attempt) carries it.
    await session.em().nativeUpdate(Invoice, { id: first }, { paymentReference: 'ch_test_reference_1' });
    expect(await ids('chargeId=ch_test_reference_1')).toEqual([first]);
    expect(await ids('chargeId=%27%20or%201%3D1--')).toEqual([]);
  });

  test('line items: in order; a rental or booking filter the invoice does not bill lists none', async () => {
    const lines = await call('GET', back(`/invoices/${first}/line-items`), { token: operator });
    expect(lines.status).toBe(200);
    expect(lines.body.map((line: { position: number }) => line.position)).toEqual([1, 2]);
    const none = await call('GET', back(`/invoices/${first}/line-items?rentalId=1&bookingId=2`), {
      token: operator,
    });
    expect(none.body).toEqual([]);
  });

  test('line-item templates of the invoice’s business unit and of a branch’s', async () => {
    const em = session.em();
    const other = await otherBusinessUnit(session, { currency: 'CHF', taxPercentage: '8.10', scale: 2 });
    const unit = session.seed.businessUnitId;
    em.create(InvoiceLineTemplate, {
      businessUnit: unit,
      code: 'AA_KEY',
      description: 'Lost key',
      net: '50',
    });
    em.create(InvoiceLineTemplate, {
      businessUnit: unit,
      code: 'AA_OLD',
      description: 'Old fee',
      gross: '1.00',
      enabled: false,
    });
    em.create(InvoiceLineTemplate, {
      businessUnit: other.unitId,
      code: 'AA_ZURICH',
      description: 'Other',
      gross: '9',
    });
    await em.flush();
    const enabled = await em.find(InvoiceLineTemplate, { businessUnit: unit, enabled: true });
    const codes = (reply: Reply) => reply.body.map((template: { code: string }) => template.code);
    const ofInvoice = await call('GET', back(`/invoices/${first}/line-item-templates`), { token: operator });
    expect(ofInvoice.status).toBe(200);
    expect(codes(ofInvoice)).toEqual(enabled.map((template) => template.code).sort());
    expect(codes(ofInvoice)[0]).toBe('AA_KEY');
    expect(ofInvoice.body[0]).toMatchObject({ net: '50.00', gross: null, currency: 'EUR', enabled: true });
    const ofBranch = await call(
      'GET',
      back(`/invoices/line-item-templates?${branchQuery()}&includeDisabled=true`),
      {
        token: operator,
      },
    );
    expect(codes(ofBranch).slice(0, 2)).toEqual(['AA_KEY', 'AA_OLD']);
    expect(codes(ofBranch)).not.toContain('AA_ZURICH');
    expect(codes(ofBranch)).toHaveLength(enabled.length + 1);
  });
});

describe('editing an OPEN invoice', () => {
  let invoiceId: number;
  let cleaning: number;
  beforeAll(async () => {
    invoiceId = await issueTestInvoice(session, {
      customerId: anna,
      lines: [{ gross: '10.00' }, { gross: '2.50' }],
    });
    const em = session.em();
    const where = { code: 'CLEANING', businessUnit: session.seed.businessUnitId };
    if (!(await em.count(InvoiceLineTemplate, where)))
      em.create(InvoiceLineTemplate, { ...where, description: 'Cleaning fee', gross: '25.00' });
    await em.flush();
    cleaning = (await em.findOneOrFail(InvoiceLineTemplate, where)).id;
  });

  test('title and description (INVOICE_UPDATED); null removes the description', async () => {
    const reply = await call('PATCH', back(`/invoices/${invoiceId}`), {
      token: operator,
      body: { title: 'Rental of 2 March', description: 'Corrected by customer care' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      title: 'Rental of 2 March',
      description: 'Corrected by customer care',
    });
    const cleared = await call('PATCH', back(`/invoices/${invoiceId}`), {
      token: operator,
      body: { description: null },
    });
    expect(cleared.body).toMatchObject({ title: 'Rental of 2 March', description: null });
    expect(
      await session.em().count(Event, { type: 'INVOICE_UPDATED', customerId: anna }),
    ).toBeGreaterThanOrEqual(2);
  });

  test('add lines by gross, by net, from a template (overridable), with a quantity', async () => {
    const byGross = await call('POST', back(`/invoices/${invoiceId}/line-items`), {
      token: operator,
      body: { description: 'Parking fine', gross: '29.75', code: 'FINE', group: 'PENALTY' },
    });
    expect(byGross.status).toBe(201);
    expect(byGross.body.lineItem).toMatchObject({
      net: '25.00',
      tax: '4.75',
      gross: '29.75',
      code: 'FINE',
      group: 'PENALTY',
      position: 3,
      unit: 'PIECE',
    });
    expectTotalsOfLines(byGross.body.invoice);
    const byNet = await call('POST', back(`/invoices/${invoiceId}/line-items`), {
      token: operator,
      body: { description: 'Three helmets', net: '10.00', quantity: '3' },
    });
    expect(byNet.body.lineItem).toMatchObject({
      net: '10.00',
      tax: '1.90',
      gross: '11.90',
      quantity: '3.000',
      unitPrice: '3.333333',
      group: 'ADJUSTMENT',
      code: 'MANUAL',
    });
    const fromTemplate = await call('POST', back(`/invoices/${invoiceId}/line-items`), {
      token: operator,
      body: { templateId: cleaning },
    });
    expect(fromTemplate.body.lineItem).toMatchObject({
      code: 'CLEANING',
      description: 'Cleaning fee',
      gross: '25.00',
      net: '21.01',
      templateId: cleaning,
    });
    const overridden = await call('POST', back(`/invoices/${invoiceId}/line-items`), {
      token: operator,
      body: { templateId: cleaning, gross: '12.50', description: 'Half cleaning fee' },
    });
    expect(overridden.body.lineItem).toMatchObject({
      gross: '12.50',
      description: 'Half cleaning fee',
      templateId: cleaning,
    });
    expectTotalsOfLines(overridden.body.invoice);
    expect(overridden.body.invoice.totals.gross).toBe('91.65');
    expect(
      await session.em().count(Event, { type: 'INVOICE_LINE_ITEM_ADDED', customerId: anna }),
    ).toBeGreaterThanOrEqual(4);
  });

  test('change one line by net or by gross: the other side derived, totals the sums of the lines', async () => {
    const lines = await session
      .em()
      .find(InvoiceLine, { invoice: invoiceId }, { orderBy: { position: 'asc' } });
    const byNet = await call('PATCH', back(`/invoices/${invoiceId}/line-item/${lines[0]!.id}`), {
      token: operator,
      body: { net: '100.00', description: 'Corrected trip' },
    });
    expect(byNet.status).toBe(200);
    expect(byNet.body.lineItem).toMatchObject({
      id: lines[0]!.id,
      net: '100.00',
      tax: '19.00',
      gross: '119.00',
      description: 'Corrected trip',
      position: 1,
    });
    expectTotalsOfLines(byNet.body.invoice);
    const byGross = await call('PATCH', back(`/invoices/${invoiceId}/line-item/${lines[1]!.id}`), {
      token: operator,
      body: { gross: '-1.19' },
    });
    expect(byGross.body.lineItem).toMatchObject({ net: '-1.00', tax: '-0.19', gross: '-1.19' });
    expectTotalsOfLines(byGross.body.invoice);
    const stored = await session.em().findOneOrFail(Invoice, invoiceId, { refresh: true });
    expect(stored.totalGross).toBe(byGross.body.invoice.totals.gross);
  });

  test('remove a line: positions stay 1…n, totals follow', async () => {
    const before = await call('GET', back(`/invoices/${invoiceId}`), { token: operator });
    const second = before.body.lines[1];
    const removed = await call('DELETE', back(`/invoices/${invoiceId}/line-items/${second.id}`), {
      token: operator,
    });
    expect(removed.status).toBe(204);
    const after = await call('GET', back(`/invoices/${invoiceId}`), { token: operator });
    expect(after.body.lines.map((line: { position: number }) => line.position)).toEqual(
      before.body.lines.slice(1).map((_: unknown, index: number) => index + 1),
    );
    expect(after.body.lines.map((line: { id: number }) => line.id)).not.toContain(second.id);
    expectTotalsOfLines(after.body);
    expectError(
      await call('DELETE', back(`/invoices/${invoiceId}/line-items/${second.id}`), { token: operator }),
      404,
      'I405',
    );
  });

  test('refusals: both or neither price (I126), finer than the currency (I131), unknown line or template (I405, I406)', async () => {
    const lines = await session
      .em()
      .find(InvoiceLine, { invoice: invoiceId }, { orderBy: { position: 'asc' } });
    const other = await issueTestInvoice(session, { customerId: ben, lines: [{ gross: '1.00' }] });
    const othersLine = (await session.em().findOneOrFail(InvoiceLine, { invoice: other })).id;
    const otherUnit = await otherBusinessUnit(session, { currency: 'EUR', taxPercentage: '20.00', scale: 2 });
    const em = session.em();
    const foreign = em.create(InvoiceLineTemplate, {
      businessUnit: otherUnit.unitId,
      code: 'X',
      description: 'Foreign',
      gross: '1.00',
    });
    const disabled = em.create(InvoiceLineTemplate, {
      businessUnit: session.seed.businessUnitId,
      code: 'Y',
      description: 'Disabled',
      gross: '1.00',
      enabled: false,
    });
    await em.flush();
    const line = (id: number) => back(`/invoices/${invoiceId}/line-item/${id}`);
    const add = back(`/invoices/${invoiceId}/line-items`);
    await expectErrors(
      [
        ['PATCH', line(lines[0]!.id), 422, 'I126', { net: '1.00', gross: '1.19' }],
        ['PATCH', line(lines[0]!.id), 422, 'I126', { description: 'only text' }],
        ['PATCH', line(lines[0]!.id), 422, 'I131', { gross: '1.234' }],
        ['PATCH', line(othersLine), 404, 'I405', { gross: '1.00' }],
        ['PATCH', line(2147483647), 404, 'I405', { gross: '1.00' }],
        ['POST', add, 422, 'I126', { description: 'both', net: '1.00', gross: '1.19' }],
        ['POST', add, 422, 'I126', { description: 'neither' }],
        ['POST', add, 400, '0022', { gross: '1.00' }],
        ['POST', add, 404, 'I406', { templateId: foreign.id }],
        ['POST', add, 404, 'I406', { templateId: disabled.id }],
        ['POST', add, 404, 'I406', { templateId: 2147483647 }],
        ['DELETE', back(`/invoices/${invoiceId}/line-items/${othersLine}`), 404, 'I405'],
      ],
      operator,
    );
  });

  test('once billed, nothing is editable (I120)', async () => {
    const billed = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '3.00' }] });
    const lineId = (await session.em().findOneOrFail(InvoiceLine, { invoice: billed })).id;
    await session.em().nativeUpdate(Invoice, { id: billed }, { state: 'BILLED', billedAt: new Date() });
    await expectErrors(
      [
        ['PATCH', back(`/invoices/${billed}`), 409, 'I120', { title: 'Late' }],
        ['POST', back(`/invoices/${billed}/line-items`), 409, 'I120', { description: 'x', gross: '1.00' }],
        ['PATCH', back(`/invoices/${billed}/line-item/${lineId}`), 409, 'I120', { gross: '1.00' }],
        ['DELETE', back(`/invoices/${billed}/line-items/${lineId}`), 409, 'I120'],
      ],
      operator,
    );
    const overview = await call('GET', back(`/invoices/${billed}/overview`), { token: operator });
    expect(overview.body.allowedOperations).not.toContain('EDIT');
  });

  test('concurrent line additions all land, with distinct positions and totals of every line', async () => {
    const target = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '1.00' }] });
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        call('POST', back(`/invoices/${target}/line-items`), {
          token: operator,
          body: { description: `Extra ${index}`, gross: `${index + 1}.00` },
        }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const after = await call('GET', back(`/invoices/${target}`), { token: operator });
    expect(after.body.lines.map((line: { position: number }) => line.position)).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);
    expect(after.body.totals.gross).toBe('22.00');
    expectTotalsOfLines(after.body);
  });
});

describe('overview and report', () => {
  test('the overview: operations the state allows, payments, refunds, ledger rows, the timeline', async () => {
    const invoiceId = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '4.00' }] });
    await call('PATCH', back(`/invoices/${invoiceId}`), {
      token: operator,
      body: { title: 'Overview test' },
    });
    const reply = await call('GET', back(`/invoices/${invoiceId}/overview`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      invoice: { id: invoiceId, title: 'Overview test' },
      allowedOperations: ['EDIT', 'BILL'],
      payments: [],
      refunds: [],
      paidGross: '0.00',
      refundedGross: '0.00',
      balanceUpdates: [],
    });
    // Its INVOICE_CREATED first (the issue), then the edit.
    expect(reply.body.timeline.map((entry: { type: string }) => entry.type)).toEqual([
      'INVOICE_CREATED',
      'INVOICE_UPDATED',
    ]);
    expect(reply.body.timeline[1]).toMatchObject({
      adminSubject: expect.any(String),
      payload: { invoiceId },
    });
  });

  test('the report: per currency, state and month; every total is the sum of its parts', async () => {
    const reply = await call('GET', back(`/invoices/reports?${branchQuery()}`), { token: operator });
    expect(reply.status).toBe(200);
    const { currencies, byState, byPeriod } = reply.body;
    expect(reply.body).toMatchObject({
      businessUnitId: session.seed.businessUnitId,
      period: 'MONTH',
      timeZoneId: 'Europe/Berlin',
    });
    const eur = currencies.find((row: { currency: string }) => row.currency === 'EUR');
    const stored = await session
      .em()
      .find(Invoice, { businessUnit: session.seed.businessUnitId, refundedInvoice: null });
    expect(eur.count).toBe(stored.length);
    expect(new Decimal(eur.gross).equals(sum(stored.map((invoice) => invoice.totalGross)))).toBe(true);
    const states = byState.filter(
      (row: { currency: string; state: string }) => row.currency === 'EUR' && row.state !== 'IS_REFUND',
    );
    for (const key of ['net', 'tax', 'gross'])
      expect(new Decimal(eur[key]).equals(sum(states.map((row: Record<string, string>) => row[key]!)))).toBe(
        true,
      );
    const periods = byPeriod.filter((row: { currency: string }) => row.currency === 'EUR');
    expect(new Decimal(eur.gross).equals(sum(periods.map((row: { gross: string }) => row.gross)))).toBe(true);
    expect(periods.at(-1).periodStart).toMatch(/^\d{4}-\d{2}-01$/);
    expect(
      new Decimal(eur.openGross).equals(
        sum(stored.filter((i) => i.state === 'OPEN').map((i) => i.totalGross)),
      ),
    ).toBe(true);
    expect(new Decimal(eur.net).plus(eur.tax).equals(eur.gross)).toBe(true);

    const days = await call(
      'GET',
      back(
        `/invoices/reports?${branchQuery()}&period=DAY&from=${new Date(Date.now() - 86_400_000).toISOString()}`,
      ),
      {
        token: operator,
      },
    );
    expect(days.body.byPeriod.length).toBeGreaterThan(0);
    await expectErrors(
      [
        [
          'GET',
          back(`/invoices/reports?${branchQuery()}&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`),
          422,
          'I133',
        ],
        [
          'GET',
          back(
            `/invoices/reports?${branchQuery()}&period=DAY&from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`,
          ),
          422,
          'I133',
        ],
        ['GET', back(`/invoices/reports?${branchQuery()}&from=2026-02-30T00:00:00Z`), 400, '0022'],
        ['GET', back(`/invoices/reports?${branchQuery()}&period=HOUR`), 400, '0022'],
      ],
      operator,
    );
  });
});

describe('a currency without minor digits (JPY)', () => {
  test('lines, totals, reports and CSV in whole yen; fractions refused (I131)', async () => {
    const yen = await otherBusinessUnit(session, { currency: 'JPY', taxPercentage: '10.00', scale: 0 });
    const finance = await grantedClient(session, { role: 'Finance', businessUnitId: yen.unitId });
    const invoiceId = await issueTestInvoice(session, {
      customerId: anna,
      branchId: yen.branchId,
      lines: [{ gross: '1000' }, { gross: '333' }, { net: '95' }],
    });
    const invoice = await call('GET', back(`/invoices/${invoiceId}`), { token: finance });
    expect(invoice.status).toBe(200);
    expect(invoice.body).toMatchObject({
      currency: 'JPY',
      totals: { net: '1307', tax: '131', gross: '1438' },
    });
    expectTotalsOfLines(invoice.body);
    const added = await call('POST', back(`/invoices/${invoiceId}/line-items`), {
      token: finance,
      body: { description: 'Helmet', net: '100' },
    });
    expect(added.body.lineItem).toMatchObject({
      net: '100',
      tax: '10',
      gross: '110',
      taxPercentage: '10.00',
    });
    expectTotalsOfLines(added.body.invoice);
    expectError(
      await call('POST', back(`/invoices/${invoiceId}/line-items`), {
        token: finance,
        body: { description: 'x', gross: '1.5' },
      }),
      422,
      'I131',
    );
    const report = await call('GET', back(`/invoices/reports?branchId=${yen.branchId}`), { token: finance });
    expect(report.body.currencies).toEqual([
      expect.objectContaining({ currency: 'JPY', count: 1, gross: '1548', tax: '141', net: '1407' }),
    ]);
    const csv = await rawCall(session, back(`/invoices/${invoiceId}/download?format=CSV`), {
      token: finance,
    });
    const rows = csv.bytes.toString('utf8').trim().split('\r\n');
    expect(rows.at(-1)).toMatch(/,1407,141,1548$/);
    // The demo operator holds finance on the BER business unit only.
    expectError(await call('GET', back(`/invoices/${invoiceId}`), { token: operator }), 403, 'AUTH002');
  });
});
