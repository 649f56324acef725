// Who sees which invoices, over HTTP (real PostgreSQL and Temporal, responses validated against the
// documents): the app's own invoices with their filters (unpaid, invoicedOnly, refunds, belowThreshold,
// rental), the customer checks (0001, AUTH222), and for every operator invoice route the denials (another
// business unit's finance operator, a branch administrator, another tenant's ids) and hostile input
// (wrong types, hex and exponent numbers, NUL bytes, impossible dates, both prices).
import { Customer } from '../db/entities/Customer.js';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { unpaidInvoiceStates } from '../domain/finance.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { grantedClient, issueTestInvoice, otherBusinessUnit, testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let anna: number;
let ben: number;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);
const branchQuery = () => `branchId=${session.seed.branchId}`;

/** Each request answers this status and catalogue code. */
async function expectErrors(cases: [string, string, number, string, unknown?][], token?: string) {
  for (const [method, path, status, code, body] of cases)
    expectError(await call(method, path, { token, body }), status, code);
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  operator = session.operatorToken;
  [anna, ben] = session.seed.customerIds as [number, number];
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe("the app's invoices", () => {
  let annaToken: string;
  let own: number;
  let small: number;
  let refund: number;
  let bens: number;
  beforeAll(async () => {
    annaToken = await session.customerToken(anna);
    own = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '40.00' }] });
    small = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '0.80' }] });
    refund = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '-5.00' }] });
    bens = await issueTestInvoice(session, { customerId: ben, lines: [{ gross: '3.00' }] });
    const em = session.em();
    await em.nativeUpdate(Invoice, { id: own }, { state: 'EXCEPTION_PAYING', billedAt: new Date() });
    await em.nativeUpdate(
      Invoice,
      { id: small },
      { state: 'PAID', billedAt: new Date(), settledAt: new Date() },
    );
    await em.nativeUpdate(
      Invoice,
      { id: refund },
      { state: 'IS_REFUND', refundedInvoice: small, refundReason: 'Goodwill' },
    );
  });

  const ids = async (query: string, token = annaToken) => {
    const reply = await call('GET', front(`/invoices?size=100${query}`), { token });
    expect(reply.status).toBe(200);
    return reply.body.map((invoice: { id: number }) => invoice.id) as number[];
  };

  test('only my own invoices, newest first, paged', async () => {
    const mine = await ids('');
    expect(mine).toEqual(expect.arrayContaining([own, small, refund]));
    expect(mine).not.toContain(bens);
    const page = await call('GET', front('/invoices?size=1'), { token: annaToken });
    expect(page.body).toHaveLength(1);
    expect(Number(page.headers.get('X-Total-Count'))).toBe(mine.length);
    expect(await ids('', await session.customerToken(ben))).toContain(bens);
  });

  test('filters: unpaid, invoicedOnly, refunds, belowThreshold, rentalId', async () => {
    const unpaid = await ids('&unpaid=true');
    expect(unpaid).toContain(own);
    expect(unpaid).not.toContain(small);
    expect(unpaid).not.toContain(refund);
    const stored = await session.em().find(Invoice, { id: { $in: unpaid } });
    for (const invoice of stored) expect(unpaidInvoiceStates).toContain(invoice.state);
    const invoiced = await ids('&invoicedOnly=true');
    expect(invoiced).toEqual(expect.arrayContaining([own, small, refund]));
    const stillOpen = await session.em().find(Invoice, { customer: anna, state: 'OPEN' });
    for (const invoice of stillOpen) expect(invoiced).not.toContain(invoice.id);
    expect(await ids('&refunds=ONLY')).toEqual([refund]);
    expect(await ids('&refunds=EXCLUDE')).not.toContain(refund);
    const below = await ids('&belowThreshold=1.00');
    expect(below).toEqual(expect.arrayContaining([small, refund]));
    expect(below).not.toContain(own);
    expect(await ids('&rentalId=2147483647')).toEqual([]);
    expect(await ids('&unpaid=true&invoicedOnly=true&refunds=EXCLUDE')).toEqual(unpaid);
  });

  test('an app client without a customer is 0001; a blocked customer AUTH222; hostile filters 0022', async () => {
    expectError(await call('GET', front('/invoices'), { token: session.appClientToken }), 401, '0001');
    const blocked = await testCustomer(session);
    await session.em().nativeUpdate(Customer, { id: blocked }, { isBlocked: true });
    const blockedToken = await session.customerToken(blocked);
    expectError(await call('GET', front('/invoices'), { token: blockedToken }), 403, 'AUTH222');
    expectError(await call('POST', front('/invoices/retry'), { token: blockedToken }), 403, 'AUTH222');
    expectError(await call('GET', back('/invoices?branchId=1'), { token: annaToken }), 403, '0005');
    for (const query of [
      'unpaid=yes',
      'belowThreshold=1e3',
      'belowThreshold=0x1',
      'belowThreshold=-1',
      'refunds=ALL',
      'rentalId=0x1',
      'rentalId=1e3',
      'size=0',
      'size=101',
      'page=-1',
      'unknown=1',
      'rentalId=%00',
    ])
      expectError(await call('GET', front(`/invoices?${query}`), { token: annaToken }), 400, '0022');
  });
});

describe('denials and hostile input', () => {
  let invoiceId: number;
  let lineId: number;
  beforeAll(async () => {
    invoiceId = await issueTestInvoice(session, { customerId: anna, lines: [{ gross: '6.00' }] });
    lineId = (await session.em().findOneOrFail(InvoiceLine, { invoice: invoiceId })).id;
  });

  /** Every invoice route of this suite, with a valid body. */
  const routes = (id: number | string, line: number | string = lineId): [string, string, unknown?][] => [
    ['GET', `/invoices/${id}`],
    ['PATCH', `/invoices/${id}`, { title: 'x' }],
    ['GET', `/invoices/${id}/line-items`],
    ['POST', `/invoices/${id}/line-items`, { description: 'x', gross: '1.00' }],
    ['PATCH', `/invoices/${id}/line-item/${line}`, { gross: '1.00' }],
    ['DELETE', `/invoices/${id}/line-items/${line}`],
    ['GET', `/invoices/${id}/overview`],
    ['GET', `/invoices/${id}/line-item-templates`],
    ['GET', `/invoices/${id}/download?format=CSV`],
    ['POST', `/invoices/${id}/resend`, { mailMessage: 'x' }],
  ];

  test("another business unit's finance operator and a branch administrator are refused (AUTH002)", async () => {
    const other = await otherBusinessUnit(session, { currency: 'EUR', taxPercentage: '19.00', scale: 2 });
    const otherFinance = await grantedClient(session, { role: 'Finance', businessUnitId: other.unitId });
    const branchAdmin = await grantedClient(session, {
      role: 'Administrator',
      branchId: session.seed.cityBranchId,
    });
    for (const token of [otherFinance, branchAdmin]) {
      for (const [method, path, body] of routes(invoiceId))
        expectError(await call(method, back(path), { token, body }), 403, 'AUTH002');
      for (const path of ['/invoices', '/invoices/reports', '/invoices/line-item-templates'])
        expectError(await call('GET', back(`${path}?${branchQuery()}`), { token }), 403, 'AUTH002');
    }
    // Their own business unit's list is theirs (and empty).
    const own = await call('GET', back(`/invoices?branchId=${other.branchId}`), { token: otherFinance });
    expect(own.status).toBe(200);
    expect(own.body).toEqual([]);
  });

  test("another tenant's ids are not found; unknown ids and branches too", async () => {
    const rivalBack = (path: string) => `/v1/${session.rival.tenant}/back${path}`;
    for (const [method, path, body] of routes(invoiceId))
      expectError(
        await call(method, rivalBack(path), { token: session.rivalOperatorToken, body }),
        404,
        'I404',
      );
    for (const [method, path, body] of routes(2147483647))
      expectError(await call(method, back(path), { token: operator, body }), 404, 'I404');
    for (const path of ['/invoices', '/invoices/reports', '/invoices/line-item-templates'])
      expectError(await call('GET', back(`${path}?branchId=2147483647`), { token: operator }), 404, 'B404');
    expectError(
      await call('GET', rivalBack(`/invoices?branchId=${session.seed.branchId}`), {
        token: session.rivalOperatorToken,
      }),
      404,
      'B404',
    );
  });

  test('hostile path values: 0022 before any handler runs', async () => {
    for (const value of [
      'abc',
      '0',
      '-1',
      '0x1',
      '1e3',
      '1.5',
      '99999999999',
      '%00',
      '1%00',
      "1'--",
      '+1',
      '01',
    ])
      for (const [method, path, body] of [...routes(value), ...routes(invoiceId, value).slice(4, 6)])
        expectError(await call(method, back(path), { token: operator, body }), 400, '0022');
  });

  test('hostile queries and bodies: wrong types, hex, exponents, NUL, impossible dates, both prices', async () => {
    const list = (query: string) => back(`/invoices?${branchQuery()}&${query}`);
    const patch = back(`/invoices/${invoiceId}`);
    const add = back(`/invoices/${invoiceId}/line-items`);
    const line = back(`/invoices/${invoiceId}/line-item/${lineId}`);
    await expectErrors(
      [
        ['GET', back('/invoices'), 400, '0022'],
        ['GET', back('/invoices?branchId=0x1'), 400, '0022'],
        ['GET', back('/invoices?branchId=1e3'), 400, '0022'],
        ['GET', list('invoiceId=1.0'), 400, '0022'],
        ['GET', list('balanceId=-1'), 400, '0022'],
        ['GET', list('invoiceType=PRIVATE'), 400, '0022'],
        ['GET', list('state=LOST'), 400, '0022'],
        ['GET', list('guser.firstName=a%00b'), 400, '0022'],
        ['GET', list('chargeId=%00'), 400, '0022'],
        ['GET', list('issuedFrom=2026-02-30T00:00:00Z'), 400, '0022'],
        ['GET', list('issuedFrom=yesterday'), 400, '0022'],
        ['GET', list('size=1000'), 400, '0022'],
        ['GET', list('sort=id'), 400, '0022'],
        ['GET', back(`/invoices/${invoiceId}/line-items?rentalId=0x1`), 400, '0022'],
        ['PATCH', patch, 400, '0022', {}],
        ['PATCH', patch, 400, '0022', { title: '' }],
        ['PATCH', patch, 400, '0022', { title: 42 }],
        ['PATCH', patch, 400, '0022', { title: 'a\u0000b' }],
        ['PATCH', patch, 400, '0022', { title: 'x'.repeat(201) }],
        ['PATCH', patch, 400, '0022', { state: 'PAID' }],
        ['PATCH', patch, 400, '0022', ['title']],
        ['POST', add, 400, '0022', { description: 'x', gross: 1.5 }],
        ['POST', add, 400, '0022', { description: 'x', gross: '0x1' }],
        ['POST', add, 400, '0022', { description: 'x', gross: '1e3' }],
        ['POST', add, 400, '0022', { description: 'x', gross: 'NaN' }],
        ['POST', add, 400, '0022', { description: 'x', gross: '1'.repeat(13) }],
        ['POST', add, 400, '0022', { description: 'a\u0000b', gross: '1.00' }],
        ['POST', add, 400, '0022', { description: 'x', gross: '1.00', quantity: '-1' }],
        ['POST', add, 400, '0022', { description: 'x', gross: '1.00', code: 'bad code' }],
        ['POST', add, 400, '0022', { description: 'x', gross: '1.00', templateId: '1' }],
        ['POST', add, 400, '0022', { description: 'x', gross: null }],
        ['POST', add, 422, 'I126', { description: 'x', net: '1.00', gross: '1.19' }],
        ['PATCH', line, 422, 'I126', { net: '-0.00', gross: '0.00' }],
        ['PATCH', line, 400, '0022', { net: '1.00', tax: '0.19' }],
        ['POST', back(`/invoices/${invoiceId}/resend`), 400, '0022', { mailMessage: 'a\u0000' }],
        ['POST', back(`/invoices/${invoiceId}/resend`), 400, '0022', { mailMessage: 'x'.repeat(2001) }],
        ['GET', back(`/invoices/reports?${branchQuery()}&to=2026-13-01T00:00:00Z`), 400, '0022'],
      ],
      operator,
    );
    const raw = await call('POST', add, { token: operator, rawBody: '{"description":"x",' });
    expectError(raw, 400, 'AUTH001');
    const text = await call('POST', add, {
      token: operator,
      rawBody: 'gross=1',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(text, 415, '0023');
    expectError(await call('GET', back(`/invoices/${invoiceId}`)), 401, 'JWT006');
  });
});
