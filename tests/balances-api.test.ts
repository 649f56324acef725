// Balances over HTTP, the operator's side: lists, creation, manual credit and debit, the ledger, events,
// the extended view, settle, bulk-settle and settle by collection invoice; the deprecated per-customer and
// per-group paths and the /revenue-centers family answering as their replacements; finance denials on
// another business unit and another tenant; hostile input on every operator route. The app's balances
// are in balances-app.test.ts.
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { demoOperatorClient } from '../db/seed/access.js';
import { expectError } from './support/http.js';
import { balanceKit } from './support/balances.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let anna: number;
let ben: number;
let clara: number;
let deniz: number;
let annaToken: string;
let unitId: number;
let groupId: number;
const { call, back, em, grantClient, expectErrors, operatorBalance, post, eventually } = balanceKit(
  () => session,
);

beforeAll(async () => {
  session = await startSession({ rival: true, signInDemoCustomer: true });
  ({ operatorToken: operator, annaToken } = session);
  unitId = session.seed.businessUnitId;
  [anna, ben, clara, deniz] = session.seed.customerIds as [number, number, number, number];
  groupId = (await em().findOneOrFail(UserGroup, { owner: anna })).id;
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('operator balances', () => {
  let annaMain: number;
  let annaSecond: number;

  test('POST /balances creates a system balance at the unit (the first is the default); userId wins', async () => {
    const created = await call('POST', back('/balances'), {
      token: operator,
      body: { userId: anna, groupId, businessUnitId: unitId, name: 'Main' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${back('/balances')}/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: 'Main',
      currency: 'EUR',
      value: '0.00',
      remainingVouchersGrossValue: '0.00',
      remainingMinutesValue: '0',
      defaultBalance: true,
      businessUnitId: unitId,
      guserId: anna,
      userGroupId: null,
      systemCreated: true,
    });
    annaMain = created.body.id;
    const second = await operatorBalance({ userId: anna, name: 'Travel', defaultBalance: true });
    annaSecond = second.id;
    expect(second.defaultBalance).toBe(true);
    const first = await call('GET', back(`/balances/${annaMain}`), { token: operator });
    expect(first.body.defaultBalance).toBe(false);
  });

  test('manual credit and debit are ledger rows; the value is their sum; a key writes once', async () => {
    const credit = await post(annaMain, '10.00');
    expect(credit).toMatchObject({
      kind: 'MANUAL_CREDIT',
      amount: '10.00',
      valueAfter: '10.00',
      balanceId: annaMain,
    });
    const debit = await post(annaMain, '-25.5', 'damage fee');
    expect(debit).toMatchObject({ amount: '-25.50', valueAfter: '-15.50', description: 'damage fee' });
    const keyed = { amount: '1.25', description: 'goodwill', idempotencyKey: 'care-4711' };
    const first = await call('POST', back(`/balances/${annaMain}/updates`), { token: operator, body: keyed });
    const again = await call('POST', back(`/balances/${annaMain}/updates`), { token: operator, body: keyed });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
    await expectErrors(
      [
        ['POST', back(`/balances/${annaMain}/updates`), 409, 'J115', { ...keyed, amount: '1.26' }],
        ['POST', back(`/balances/${annaMain}/updates`), 422, 'J116', { amount: '0', description: 'x' }],
        ['POST', back(`/balances/${annaMain}/updates`), 422, 'J116', { amount: '-0.00', description: 'x' }],
        ['POST', back(`/balances/${annaMain}/updates`), 422, 'J116', { amount: '1.234', description: 'x' }],
      ],
      operator,
    );
    const balance = await call('GET', back(`/balances/${annaMain}`), { token: operator });
    expect(balance.body.value).toBe('-14.25');
    const rows = await call('GET', back(`/balances/${annaMain}/updates?size=2`), { token: operator });
    expect(rows.status).toBe(200);
    expect(rows.headers.get('x-total-count')).toBe('3');
    expect(rows.body.map((row: { amount: string }) => row.amount)).toEqual(['1.25', '-25.50']);
    expect(rows.body[0].valueAfter).toBe('-14.25');
  });

  test('events of the balance carry its id', async () => {
    const events = await call('GET', back(`/balances/${annaMain}/events`), { token: operator });
    expect(events.status).toBe(200);
    expect(events.body.map((event: { type: string }) => event.type)).toEqual([
      'BALANCE_CREATED',
      'BALANCE_UPDATED',
      'BALANCE_UPDATED',
      // The debit used up the credit.
      'BALANCE_DEPLETED',
      'BALANCE_UPDATED',
    ]);
    expect(events.body.every((event: { balanceId: number }) => event.balanceId === annaMain)).toBe(true);
    const other = await call('GET', back(`/balances/${annaSecond}/events`), { token: operator });
    expect(other.body.map((event: { type: string }) => event.type)).toEqual(['BALANCE_CREATED']);
  });

  test('GET /balances by customer or business account, at a branch’s unit or everywhere readable', async () => {
    const group = await operatorBalance({ groupId, name: 'Acme' });
    expect(group).toMatchObject({ guserId: null, userGroupId: groupId, defaultBalance: true });
    const byUser = await call('GET', back(`/balances?userId=${anna}&groupId=${groupId}`), {
      token: operator,
    });
    expect(byUser.body.map((b: { id: number }) => b.id)).toEqual([annaMain, annaSecond]);
    expect(byUser.headers.get('x-total-count')).toBe('2');
    const atBranch = await call('GET', back(`/balances?userId=${anna}&branchId=${session.seed.branchId}`), {
      token: operator,
    });
    expect(atBranch.body).toHaveLength(2);
    const byGroup = await call('GET', back(`/balances?groupId=${groupId}`), { token: operator });
    expect(byGroup.body.map((b: { id: number }) => b.id)).toEqual([group.id]);
    await expectErrors(
      [
        ['GET', back('/balances'), 400, '0022'],
        ['GET', back('/balances?userId=2147483647'), 404, 'U106'],
        ['GET', back('/balances?groupId=2147483647'), 404, 'UG404'],
        ['GET', back(`/balances?userId=${anna}&branchId=2147483647`), 404, 'B404'],
        ['POST', back('/balances'), 400, '0022', { businessUnitId: unitId, name: 'x' }],
        ['POST', back('/balances'), 404, 'U106', { userId: 2147483647, businessUnitId: unitId, name: 'x' }],
        ['POST', back('/balances'), 404, 'B405', { userId: anna, businessUnitId: 2147483647, name: 'x' }],
      ],
      operator,
    );
  });

  test('the extended view: figures, most owed first, one of branchId or balanceId (J102)', async () => {
    const extended = await call(
      'GET',
      back(`/balances/extended?branchId=${session.seed.branchId}&userId=${anna}`),
      {
        token: operator,
      },
    );
    expect(extended.status).toBe(200);
    expect(extended.body.map((b: { id: number }) => b.id)).toEqual([annaMain, annaSecond]);
    expect(extended.body[0]).toMatchObject({
      value: '-14.25',
      updateCount: 3,
      invoiceCount: 0,
      sharedWithCount: 0,
      runningSettlementPaymentId: null,
      lastUpdateAt: expect.any(String),
    });
    const negative = await call(
      'GET',
      back(`/balances/extended?branchId=${session.seed.branchId}&negativeOnly=true`),
      {
        token: operator,
      },
    );
    expect(negative.body.map((b: { id: number }) => b.id)).toContain(annaMain);
    expect(negative.body.every((b: { value: string }) => b.value.startsWith('-'))).toBe(true);
    const one = await call('GET', back(`/balances/extended?balanceId=${annaSecond}`), { token: operator });
    expect(one.body.map((b: { id: number }) => b.id)).toEqual([annaSecond]);
    await expectErrors(
      [
        ['GET', back('/balances/extended'), 400, 'J102'],
        [
          'GET',
          back(`/balances/extended?balanceId=${annaMain}&branchId=${session.seed.branchId}`),
          400,
          'J102',
        ],
        ['GET', back('/balances/extended?balanceId=2147483647'), 404, 'J404'],
        ['GET', back('/balances/extended?branchId=2147483647'), 404, 'B404'],
      ],
      operator,
    );
  });

  test('settle: J100 at or above zero, J103 without a source, a payment that settles the debt', async () => {
    await expectErrors([['POST', back(`/balances/${annaSecond}/settle`), 422, 'J100']], operator);
    const bens = await operatorBalance({ userId: ben, name: 'Ben' });
    await post(bens.id, '-3.00');
    await expectErrors([['POST', back(`/balances/${bens.id}/settle`), 422, 'J103']], operator);
    const settled = await call('POST', back(`/balances/${annaMain}/settle`), { token: operator });
    expect(settled.status).toBe(202);
    expect(settled.body).toMatchObject({
      purpose: 'BALANCE_SETTLEMENT',
      balanceId: annaMain,
      amount: '14.25',
      currency: 'EUR',
      guserId: anna,
    });
    const after = await eventually(
      () => call('GET', back(`/balances/${annaMain}`), { token: operator }),
      (reply) => reply.body.value === '0.00',
    );
    expect(after.body.value).toBe('0.00');
    const rows = await call('GET', back(`/balances/${annaMain}/updates`), { token: operator });
    expect(rows.body[0]).toMatchObject({ kind: 'SETTLEMENT', amount: '14.25', paymentId: settled.body.id });
    const events = await call('GET', back(`/balances/${annaMain}/events`), { token: operator });
    expect(events.body.map((event: { type: string }) => event.type)).toEqual(
      expect.arrayContaining(['BALANCE_SETTLEMENT_STARTED', 'BALANCE_SETTLEMENT_SUCCESSFUL']),
    );
  });

  test('J104 while a settlement runs, for settle and settle-by-collection-invoice', async () => {
    // Deniz's card keeps declining softly: the payment waits for its retry (AWAITING_RETRY), still running.
    const denizs = await operatorBalance({ userId: deniz, name: 'Deniz' });
    await post(denizs.id, '-7.00');
    const started = await call('POST', back(`/balances/${denizs.id}/settle`), { token: operator });
    expect(started.status).toBe(202);
    await expectErrors(
      [
        ['POST', back(`/balances/${denizs.id}/settle`), 409, 'J104'],
        ['POST', back(`/balances/${denizs.id}/settle-by-collection-invoice`), 409, 'J104'],
      ],
      operator,
    );
    const extended = await call('GET', back(`/balances/extended?balanceId=${denizs.id}`), {
      token: operator,
    });
    expect(extended.body[0].runningSettlementPaymentId).toBe(started.body.id);
  });

  test('bulk-settle answers one outcome per balance', async () => {
    const claras = await operatorBalance({ userId: clara, name: 'Clara' });
    await post(claras.id, '-2.00');
    const bens = await operatorBalance({ userId: ben, name: 'Ben 2' });
    await post(bens.id, '-1.00');
    const reply = await call('POST', back('/balances/bulk-settle'), {
      token: operator,
      body: { balanceIds: [annaSecond, bens.id, 2147483647, claras.id] },
    });
    expect(reply.status).toBe(200);
    expect(
      reply.body.map((o: { balanceId: number; outcome: string; errorCode: string | null }) => [
        o.balanceId,
        o.outcome,
        o.errorCode,
      ]),
    ).toEqual([
      [annaSecond, 'REFUSED', 'J100'],
      [bens.id, 'REFUSED', 'J103'],
      [2147483647, 'REFUSED', 'J404'],
      [claras.id, 'STARTED', null],
    ]);
    const payment = await em().findOneOrFail(Payment, reply.body[3].paymentId);
    expect(payment).toMatchObject({ purpose: 'BALANCE_SETTLEMENT', amount: '2.00' });
  });

  test('settle by collection invoice moves the debt to a COLLECTION invoice and the balance to zero', async () => {
    const bens = await operatorBalance({ userId: ben, name: 'Ben collection' });
    await post(bens.id, '-12.34');
    await expectErrors(
      [['POST', back(`/balances/${annaSecond}/settle-by-collection-invoice`), 422, 'J100']],
      operator,
    );
    const reply = await call('POST', back(`/balances/${bens.id}/settle-by-collection-invoice`), {
      token: operator,
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      amount: '12.34',
      currency: 'EUR',
      balanceUpdate: {
        kind: 'SETTLEMENT',
        amount: '12.34',
        valueAfter: '0.00',
        invoiceId: reply.body.invoiceId,
      },
      balance: { id: bens.id, value: '0.00' },
    });
    const invoice = await em().findOneOrFail(Invoice, reply.body.invoiceId);
    expect(invoice).toMatchObject({
      state: 'COLLECTION',
      type: 'REGULAR',
      totalGross: '12.34',
      totalTax: '0.00',
      number: reply.body.invoiceNumber,
    });
    expect(invoice.customer.id).toBe(ben);
    expect(invoice.billedAt).toBeInstanceOf(Date);
    // Once more: the balance is zero now.
    await expectErrors(
      [['POST', back(`/balances/${bens.id}/settle-by-collection-invoice`), 422, 'J100']],
      operator,
    );
    // A business account's debt is invoiced to its owner (BUSINESS).
    const acme = await operatorBalance({ groupId, name: 'Acme debt' });
    await post(acme.id, '-5.00');
    const business = await call('POST', back(`/balances/${acme.id}/settle-by-collection-invoice`), {
      token: operator,
    });
    expect(business.status).toBe(201);
    const businessInvoice = await em().findOneOrFail(Invoice, business.body.invoiceId);
    expect(businessInvoice).toMatchObject({ type: 'BUSINESS', state: 'COLLECTION' });
    expect([businessInvoice.customer.id, businessInvoice.userGroup?.id]).toEqual([anna, groupId]);
  });

  test('deprecated customer and group paths answer as their replacements', async () => {
    const replacement = await call('GET', back(`/balances?userId=${anna}`), { token: operator });
    const deprecated = await call('GET', back(`/customers/${anna}/balances`), { token: operator });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body).toEqual(replacement.body);
    expect(deprecated.headers.get('x-total-count')).toBe(replacement.headers.get('x-total-count'));
    const groupReplacement = await call('GET', back(`/balances?groupId=${groupId}`), { token: operator });
    const groupDeprecated = await call('GET', back(`/groups/${groupId}/balances`), { token: operator });
    expect(groupDeprecated.body).toEqual(groupReplacement.body);
    const created = await call('POST', back(`/customers/${clara}/balances`), {
      token: operator,
      body: { businessUnitId: unitId, name: 'Legacy' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ guserId: clara, name: 'Legacy', systemCreated: true });
    const groupCreated = await call('POST', back(`/groups/${groupId}/balances`), {
      token: operator,
      body: { businessUnitId: unitId, name: 'Legacy group' },
    });
    expect(groupCreated.body).toMatchObject({ userGroupId: groupId, guserId: null });
    await expectErrors(
      [
        ['GET', back('/customers/2147483647/balances'), 404, 'U106'],
        ['GET', back('/groups/2147483647/balances'), 404, 'UG404'],
      ],
      operator,
    );
    const document = (await call('GET', '/openapi/back.json')).body;
    for (const path of ['/customers/{customerId}/balances', '/groups/{userGroupId}/balances'])
      for (const method of ['get', 'post'])
        expect(document.paths[`/v1/{tenant}/back${path}`][method].deprecated).toBe(true);
  });

  test('the /revenue-centers family answers as /business-units, deprecated', async () => {
    for (const [oldPath, newPath] of [
      ['/revenue-centers', '/business-units'],
      [`/revenue-centers/${unitId}`, `/business-units/${unitId}`],
    ]) {
      const [old, current] = [
        await call('GET', back(oldPath!), { token: operator }),
        await call('GET', back(newPath!), { token: operator }),
      ];
      expect(old.status).toBe(200);
      expect(old.body).toEqual(current.body);
    }
    const before = (await call('GET', back(`/business-units/${unitId}`), { token: operator })).body.name;
    const patched = await call('PATCH', back(`/revenue-centers/${unitId}`), {
      token: operator,
      body: { name: 'Berlin (revenue center)' },
    });
    expect(patched.status).toBe(200);
    const stored = await call('GET', back(`/business-units/${unitId}`), { token: operator });
    expect(stored.body).toEqual(patched.body);
    const restored = await call('PATCH', back(`/business-units/${unitId}`), {
      token: operator,
      body: { name: before },
    });
    expect(restored.body.name).toBe(before);
    const document = (await call('GET', '/openapi/back.json')).body;
    expect(document.paths['/v1/{tenant}/back/revenue-centers/{businessUnitId}'].get.deprecated).toBe(true);
    expectError(await call('GET', back('/revenue-centers/2147483647'), { token: operator }), 404, 'B405');
  });
});

describe('finance denials', () => {
  let balanceId: number;
  let otherFinance: string;
  let branchAdmin: string;

  beforeAll(async () => {
    balanceId = (await operatorBalance({ userId: clara, name: 'Denied' })).id;
    await post(balanceId, '-1.00');
    const manager = em();
    const otherUnit = manager.create(BusinessUnit, {
      code: 'HAM-BAL',
      name: 'Hamburg',
      timeZoneId: 'Europe/Berlin',
      currency: 'EUR',
      taxPercentage: '19.00',
    });
    await manager.flush();
    otherFinance = await grantClient('balances-other-finance', {
      role: 'Finance',
      businessUnitId: otherUnit.id,
    });
    branchAdmin = await grantClient('balances-branch-admin', {
      role: 'Administrator',
      branchId: session.seed.cityBranchId,
    });
  });

  test("another business unit's finance operator and a branch administrator are refused", async () => {
    for (const token of [otherFinance, branchAdmin]) {
      await expectErrors(
        [
          ['GET', back(`/balances/${balanceId}`), 403, 'AUTH002'],
          ['GET', back(`/balances/${balanceId}/events`), 403, 'AUTH002'],
          ['GET', back(`/balances/${balanceId}/updates`), 403, 'AUTH002'],
          [
            'POST',
            back(`/balances/${balanceId}/updates`),
            403,
            'AUTH002',
            { amount: '1.00', description: 'x' },
          ],
          ['POST', back(`/balances/${balanceId}/settle`), 403, 'AUTH002'],
          ['POST', back(`/balances/${balanceId}/settle-by-collection-invoice`), 403, 'AUTH002'],
          ['GET', back(`/balances/extended?balanceId=${balanceId}`), 403, 'AUTH002'],
          ['GET', back(`/balances/extended?branchId=${session.seed.branchId}`), 403, 'AUTH002'],
          ['GET', back(`/balances?userId=${clara}&branchId=${session.seed.branchId}`), 403, 'AUTH002'],
          ['POST', back('/balances'), 403, 'AUTH002', { userId: clara, businessUnitId: unitId, name: 'x' }],
          [
            'POST',
            back(`/customers/${clara}/balances`),
            403,
            'AUTH002',
            { businessUnitId: unitId, name: 'x' },
          ],
        ],
        token,
      );
    }
    // Without branchId the list shows the units the caller reads: none of Clara's for the other unit.
    const list = await call('GET', back(`/balances?userId=${clara}`), { token: otherFinance });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expectError(await call('GET', back(`/balances?userId=${clara}`), { token: branchAdmin }), 403, 'AUTH002');
    const bulk = await call('POST', back('/balances/bulk-settle'), {
      token: otherFinance,
      body: { balanceIds: [balanceId] },
    });
    expect(bulk.body).toEqual([expect.objectContaining({ outcome: 'REFUSED', errorCode: 'AUTH002' })]);
    expectError(
      await call('POST', back('/balances/bulk-settle'), {
        token: branchAdmin,
        body: { balanceIds: [balanceId] },
      }),
      403,
      'AUTH002',
    );
    expect(await em().count(BalanceUpdate, { balance: balanceId })).toBe(1);
  });

  test("another tenant's balances are not found; customers get no operator access", async () => {
    const rivalToken = await session.stack.token(session.rival.tenant, demoOperatorClient);
    const rivalBack = (path: string) => `/v1/${session.rival.tenant}/back${path}`;
    await expectErrors(
      [
        ['GET', rivalBack(`/balances/${balanceId}`), 404, 'J404'],
        ['GET', rivalBack(`/balances/${balanceId}/events`), 404, 'J404'],
        ['GET', rivalBack(`/balances/${balanceId}/updates`), 404, 'J404'],
        [
          'POST',
          rivalBack(`/balances/${balanceId}/updates`),
          404,
          'J404',
          { amount: '1.00', description: 'x' },
        ],
        ['POST', rivalBack(`/balances/${balanceId}/settle`), 404, 'J404'],
        ['POST', rivalBack(`/balances/${balanceId}/settle-by-collection-invoice`), 404, 'J404'],
        ['GET', rivalBack(`/balances/extended?balanceId=${balanceId}`), 404, 'J404'],
        ['GET', rivalBack(`/balances?userId=${clara}`), 404, 'U106'],
        ['GET', rivalBack(`/customers/${clara}/balances`), 404, 'U106'],
      ],
      rivalToken,
    );
    const bulk = await call('POST', rivalBack('/balances/bulk-settle'), {
      token: rivalToken,
      body: { balanceIds: [balanceId] },
    });
    expect(bulk.body).toEqual([expect.objectContaining({ outcome: 'REFUSED', errorCode: 'J404' })]);
    expectError(await call('GET', back(`/balances/${balanceId}`), { token: annaToken }), 403, '0005');
    expectError(await call('GET', back(`/balances/${balanceId}`)), 401, 'JWT006');
  });
});

describe('hostile input', () => {
  const badIds = ['abc', '0', '-1', '99999999999', '1.5', '0x1', '1e3', '%00', '1%00', "1'--"];
  const badAmounts: unknown[] = [
    10,
    '1e3',
    '0x1',
    ' 10',
    '10.',
    '.5',
    'NaN',
    '1,00',
    '+1',
    '--1',
    '1\u0000',
    null,
    '12345678901',
  ];

  test('path values on every route are refused before any handler runs', async () => {
    for (const value of badIds) {
      await expectErrors(
        [
          ['GET', back(`/balances/${value}`), 400, '0022'],
          ['GET', back(`/balances/${value}/events`), 400, '0022'],
          ['GET', back(`/balances/${value}/updates`), 400, '0022'],
          ['POST', back(`/balances/${value}/updates`), 400, '0022', { amount: '1.00', description: 'x' }],
          ['POST', back(`/balances/${value}/settle`), 400, '0022'],
          ['POST', back(`/balances/${value}/settle-by-collection-invoice`), 400, '0022'],
          ['GET', back(`/customers/${value}/balances`), 400, '0022'],
          ['POST', back(`/customers/${value}/balances`), 400, '0022', { businessUnitId: unitId, name: 'x' }],
          ['GET', back(`/groups/${value}/balances`), 400, '0022'],
          ['POST', back(`/groups/${value}/balances`), 400, '0022', { businessUnitId: unitId, name: 'x' }],
          ['GET', back(`/revenue-centers/${value}`), 400, '0022'],
        ],
        operator,
      );
    }
  });

  test('query values and bodies are refused with catalogue errors', async () => {
    const balanceId = (await operatorBalance({ userId: clara, name: 'Hostile' })).id;
    const bodies = (amount: unknown) => ({ amount, description: 'x' });
    await expectErrors(
      [
        ...badAmounts.map((amount): [string, string, number, string, unknown] => [
          'POST',
          back(`/balances/${balanceId}/updates`),
          400,
          '0022',
          bodies(amount),
        ]),
        ['POST', back(`/balances/${balanceId}/updates`), 400, '0022', { amount: '1.00', description: '   ' }],
        [
          'POST',
          back(`/balances/${balanceId}/updates`),
          400,
          '0022',
          { amount: '1.00', description: 'a\u0000b' },
        ],
        [
          'POST',
          back(`/balances/${balanceId}/updates`),
          400,
          '0022',
          { amount: '1.00', description: 'x', extra: 1 },
        ],
        [
          'POST',
          back(`/balances/${balanceId}/updates`),
          400,
          '0022',
          { amount: '1.00', description: 'x', idempotencyKey: 'a b' },
        ],
        [
          'POST',
          back(`/balances/${balanceId}/updates`),
          400,
          '0022',
          { amount: '1.00', description: 'x'.repeat(501) },
        ],
        ['POST', back(`/balances/${balanceId}/updates`), 400, '0022', []],
        ['POST', back('/balances'), 400, '0022', { userId: '0x1', businessUnitId: unitId, name: 'x' }],
        ['POST', back('/balances'), 400, '0022', { userId: 1e3 + 0.5, businessUnitId: unitId, name: 'x' }],
        ['POST', back('/balances'), 400, '0022', { userId: clara, businessUnitId: unitId, name: '' }],
        ['POST', back('/balances'), 400, '0022', { userId: clara, businessUnitId: unitId, name: 'a\u0000' }],
        [
          'POST',
          back('/balances'),
          400,
          '0022',
          { userId: clara, businessUnitId: unitId, name: 'x', defaultBalance: 'yes' },
        ],
        ['POST', back('/balances/bulk-settle'), 400, '0022', { balanceIds: [] }],
        ['POST', back('/balances/bulk-settle'), 400, '0022', { balanceIds: [balanceId, balanceId] }],
        [
          'POST',
          back('/balances/bulk-settle'),
          400,
          '0022',
          { balanceIds: Array.from({ length: 101 }, (_, i) => i + 1) },
        ],
        ['POST', back('/balances/bulk-settle'), 400, '0022', { balanceIds: ['1'] }],
        ['POST', back('/balances/bulk-settle'), 400, '0022', { balanceIds: [0] }],
        ['GET', back('/balances?userId=0x1'), 400, '0022'],
        ['GET', back('/balances?userId=1e3'), 400, '0022'],
        ['GET', back(`/balances?userId=${clara}&branchId=abc`), 400, '0022'],
        ['GET', back(`/balances?userId=${clara}&page=-1`), 400, '0022'],
        ['GET', back(`/balances?userId=${clara}&size=100000`), 400, '0022'],
        ['GET', back(`/balances/extended?branchId=${session.seed.branchId}&negativeOnly=maybe`), 400, '0022'],
        ['GET', back(`/balances/extended?branchId=%00`), 400, '0022'],
        ['GET', back(`/balances/${balanceId}/updates?page=abc`), 400, '0022'],
      ],
      operator,
    );
    const raw = await call('POST', back(`/balances/${balanceId}/updates`), {
      token: operator,
      rawBody: '{"amount": "1.00", "description": ',
    });
    expect(raw.status).toBe(400);
    expect(await em().count(BalanceUpdate, { balance: balanceId })).toBe(0);
  });
});
