// Vouchers end to end over HTTP against the real database: the operator's apply-vouchers to a customer and
// a business account (W143, idempotent, credit written once), the applicable vouchers of a rental context,
// concurrent consumption (a fast-check property: remaining never below zero, each key once), packages and
// rewards, denials and hostile input. The codes are in tests/vouchers-codes.test.ts.
import fc from 'fast-check';
import { Balance } from '../db/entities/Balance.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { Voucher } from '../db/entities/Voucher.js';
import { inTenantTransaction } from '../db/orm.js';
import { grantVouchers } from '../db/voucher-grants.js';
import { applicableVouchers, consumeVoucher } from '../db/vouchers.js';
import { expectError } from './support/http.js';
import { testCustomer } from './support/invoices.js';
import { type Session } from './support/session.js';
import { voucherSuite } from './support/vouchers.js';

let session: Session;
let operator: string;
let foreignOperator: string;
let foreignUnit: { unitId: number; branchId: number };

const { call, back, front, freshCode, activeTemplate, customer, redeem } = voucherSuite(
  'rivalvouchers',
  (context) => ({ session, operator, foreignOperator, foreignUnit } = context),
);

describe('apply-vouchers', () => {
  test('to a customer and to a business account: all benefits, credit once, idempotent, custom figures', async () => {
    const care = await activeTemplate({
      type: 'CustomerCare',
      benefits: [
        { type: 'Value', amount: '10.00' },
        { type: 'FreeMinutes', amount: '20' },
      ],
    });
    const erin = await customer();
    const body = {
      voucherableId: care,
      idempotencyKey: 'ticket-4711',
      customValue: '12.50',
      validUntil: '2099-01-01T00:00:00Z',
    };
    const applied = await call('POST', back(`/customers/${erin.id}/apply-vouchers`), {
      token: operator,
      body,
    });
    expect(applied.status).toBe(201);
    expect(
      applied.body.map((v: { benefitType: string; status: string }) => [v.benefitType, v.status]),
    ).toEqual([
      ['Value', 'USED_UP'],
      ['FreeMinutes', 'ACTIVE'],
    ]);
    expect(applied.body[0]).toMatchObject({ valueGross: '12.50', validUntil: '2099-01-01T00:00:00.000Z' });
    const again = await call('POST', back(`/customers/${erin.id}/apply-vouchers`), { token: operator, body });
    expect(again.body.map((v: { id: number }) => v.id)).toEqual(
      applied.body.map((v: { id: number }) => v.id),
    );
    const balance = await session.em().findOneOrFail(Balance, {
      customer: erin.id,
      businessUnit: session.seed.businessUnitId,
      isDefault: true,
    });
    const rows = await session.em().find(BalanceUpdate, { balance: balance.id });
    expect(rows.map((row) => [row.kind, row.amount])).toEqual([['VOUCHER', '12.50']]);
    const mine = await call('GET', front('/vouchers'), { token: erin.token });
    expect(mine.body.map((v: { id: number }) => v.id).sort()).toEqual(
      applied.body.map((v: { id: number }) => v.id).sort(),
    );

    const em = session.em();
    const group = await em.findOne(UserGroup, {}, { orderBy: { id: 'asc' } });
    if (group) {
      const toGroup = await call('POST', back(`/groups/${group.id}/apply-vouchers`), {
        token: operator,
        body: { voucherableId: care },
      });
      expect(toGroup.status).toBe(201);
      expect(
        toGroup.body.every(
          (v: { userGroupId: number; guserId: number | null }) =>
            v.userGroupId === group.id && v.guserId === null,
        ),
      ).toBe(true);
    }
    expectError(
      await call('POST', back(`/groups/2147483000/apply-vouchers`), {
        token: operator,
        body: { voucherableId: care },
      }),
      404,
      'UG404',
    );
    expectError(
      await call('POST', back(`/customers/${erin.id}/apply-vouchers`), { token: operator, body: {} }),
      400,
      'W143',
    );
    expectError(
      await call('POST', back(`/customers/${erin.id}/apply-vouchers`), {
        token: operator,
        body: { voucherableId: await activeTemplate() },
      }),
      400,
      'VA111',
    );
    expectError(
      await call('POST', back(`/customers/${erin.id}/apply-vouchers`), {
        token: operator,
        body: { voucherableId: care, customValue: '1.005' },
      }),
      400,
      'VA109',
    );
    expectError(
      await call('POST', back(`/customers/2147483000/apply-vouchers`), {
        token: operator,
        body: { voucherableId: care },
      }),
      404,
      'U106',
    );
  });
});

describe('applying and consuming', () => {
  test('the applicable vouchers of a rental context, targeted before broader', async () => {
    const fay = await customer();
    const grant = async (benefits: unknown[], extra: Record<string, unknown> = {}) => {
      const id = await activeTemplate({ type: 'CustomerCare', benefits, ...extra });
      const [voucherId] = await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
        grantVouchers(tx, {
          voucherableId: id,
          customerId: fay.id,
          source: { kind: 'OPERATOR', reference: `ctx-${id}` },
          validFrom: new Date(),
        }),
      );
      return voucherId!;
    };
    const broad = await grant([{ type: 'Discount', amount: '0.1' }]);
    const priced = await grant([{ type: 'Discount', amount: '0.2', applicablePriceType: 'TIME_PRICE' }]);
    const sourced = await grant([
      { type: 'RentalRebate', amount: '1.00', costSources: [{ group: 'RENTAL', code: 'TIME' }] },
    ]);
    const elsewhere = await grant([{ type: 'Discount', amount: '0.3', branchIds: [foreignUnit.branchId] }]);
    const otherCategory = await grant([{ type: 'Discount', amount: '0.3' }], {
      applicableVehicleCategoryIds: [2147483000],
    });
    await grant([{ type: 'Value', amount: '1.00' }]);
    const found = await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
      applicableVouchers(tx, {
        customerId: fay.id,
        branchId: session.seed.branchId,
        vehicleCategoryId: 1,
        at: new Date(),
      }),
    );
    expect(found.map((voucher) => voucher.id)).toEqual([sourced, priced, broad]);
    expect(found.map((voucher) => voucher.id)).not.toContain(elsewhere);
    expect(found.map((voucher) => voucher.id)).not.toContain(otherCategory);
    const listed = await call('GET', front(`/vouchers?branchId=${session.seed.branchId}&active=true`), {
      token: fay.token,
    });
    expect(listed.body.map((v: { id: number }) => v.id)).toEqual([sourced, priced, broad]);
  });

  test('property: concurrent consumption never takes a remaining figure below zero, each key once', async () => {
    const gus = await customer();
    const templateId = await activeTemplate({
      type: 'CustomerCare',
      benefits: [{ type: 'FreeMinutes', amount: '60', numberOfRentals: 5 }],
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ minutes: fc.integer({ min: 1, max: 40 }), key: fc.integer({ min: 0, max: 5 }) }),
          { minLength: 1, maxLength: 8 },
        ),
        async (takes) => {
          run++;
          const [voucherId] = await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
            grantVouchers(tx, {
              voucherableId: templateId,
              customerId: gus.id,
              source: { kind: 'OPERATOR', reference: `prop-${run}` },
              validFrom: new Date(),
            }),
          );
          const results = await Promise.all(
            takes.map((take) =>
              inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
                consumeVoucher(tx, voucherId!, { minutes: take.minutes, rentals: 1 }, `rental-${take.key}`),
              ).then((taken) => ({ key: take.key, taken })),
            ),
          );
          const voucher = await session.em().findOneOrFail(Voucher, voucherId!);
          expect(voucher.remainingFreeMinutes!).toBeGreaterThanOrEqual(0);
          expect(voucher.remainingNumberOfRentals!).toBeGreaterThanOrEqual(0);
          const byKey = new Map<number, number>();
          for (const { key, taken } of results) {
            if (byKey.has(key)) expect(taken.minutes).toBe(byKey.get(key));
            byKey.set(key, taken.minutes);
          }
          const total = [...byKey.values()].reduce((sum, minutes) => sum + minutes, 0);
          expect(voucher.remainingFreeMinutes).toBe(60 - total);
          expect(voucher.status).toBe(
            voucher.remainingFreeMinutes === 0 || voucher.remainingNumberOfRentals === 0
              ? 'USED_UP'
              : 'ACTIVE',
          );
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('packages and rewards', () => {
  test('buy a package through a payment: vouchers granted once when paid; W129; a declined card grants nothing', async () => {
    const catalog = await call('GET', front(`/packages?branchId=${session.seed.branchId}`), {
      token: (await customer()).token,
    });
    expect(catalog.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'STARTER60', price: '9.90', initial: true })]),
    );
    const pricing = await call('GET', front('/packages/starter60/pricing'), {
      token: (await customer()).token,
    });
    expect(pricing.body).toMatchObject({ packageCode: 'STARTER60', gross: '9.90' });
    expect(Number(pricing.body.net) + Number(pricing.body.tax)).toBeCloseTo(9.9, 2);
    const legacy = await call('GET', back(`/packages?branchId=${session.seed.branchId}`), {
      token: operator,
    });
    expect(legacy.body.map((row: { code: string }) => row.code)).toContain('STARTER60');

    const payerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const payer = await session.customerToken(payerId);
    const body = { packageCode: 'STARTER60', idempotencyKey: 'first-package' };
    const bought = await call('POST', front('/packages/buy'), { token: payer, body });
    expect(bought.status).toBe(201);
    expect(bought.body).toMatchObject({ state: 'GRANTED', invoiceState: 'PAID', price: '9.90' });
    expect(bought.body.vouchers).toEqual([
      expect.objectContaining({
        benefitType: 'FreeMinutes',
        freeMinutes: 60,
        status: 'ACTIVE',
        voucherType: 'package',
      }),
    ]);
    const again = await call('POST', front('/packages/buy'), { token: payer, body });
    expect(again.body).toMatchObject({
      id: bought.body.id,
      invoiceId: bought.body.invoiceId,
      state: 'GRANTED',
    });
    expect(again.body.vouchers.map((v: { id: number }) => v.id)).toEqual(
      bought.body.vouchers.map((v: { id: number }) => v.id),
    );

    const code = freshCode();
    await activeTemplate({
      type: 'Package',
      code,
      price: '5.00',
      showInUserApp: true,
      benefits: [{ type: 'FreeUnlocks', amount: '3' }],
    });
    expect(
      (await call('POST', front('/packages/buy'), { token: payer, body: { packageCode: code } })).body.state,
    ).toBe('GRANTED');
    expectError(
      await call('POST', front('/packages/buy'), { token: payer, body: { packageCode: 'STARTER60' } }),
      422,
      'W129',
    );
    expectError(
      await call('POST', front('/packages/buy'), { token: payer, body: { packageCode: 'NOPE' } }),
      404,
      'VA100',
    );

    const declinedId = await testCustomer(session, { token: 'tok_sandbox_stolen_card' });
    const declined = await call('POST', front('/packages/buy'), {
      token: await session.customerToken(declinedId),
      body: { packageCode: code },
    });
    // A declined charge withdraws the purchase (issue 33): P124, nothing granted.
    expectError(declined, 402, 'P124');
    expect(await session.em().count(Voucher, { customerId: declinedId })).toBe(0);
  });

  test('rewards: create (RW100, RW102, RW103), list, claim once', async () => {
    const branchId = session.seed.branchId;
    const code = freshCode();
    const made = await call('POST', back('/rewards'), {
      token: operator,
      body: { branchId, code, name: 'Dock bonus', rentalRebate: '1.5' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ code, rentalRebate: '1.50', value: null, currency: 'EUR' });
    expectError(
      await call('POST', back('/rewards'), {
        token: operator,
        body: { branchId, code: freshCode(), name: 'x' },
      }),
      400,
      'RW102',
    );
    expectError(
      await call('POST', back('/rewards'), {
        token: operator,
        body: { branchId, code: freshCode(), name: 'x', value: '1', rentalRebate: '1' },
      }),
      400,
      'RW103',
    );
    expectError(
      await call('POST', back('/rewards'), {
        token: operator,
        body: { branchId, code, name: 'x', value: '1' },
      }),
      409,
      'RW100',
    );
    expectError(
      await call('POST', back('/rewards'), {
        token: operator,
        body: { branchId, code: 'SPRING10', name: 'x', value: '1' },
      }),
      409,
      'RW100',
    );
    const listed = await call('GET', back(`/rewards?branchId=${branchId}`), { token: operator });
    expect(listed.body.map((row: { id: number }) => row.id)).toContain(made.body.id);
    expectError(
      await call('GET', back(`/rewards?branchId=${foreignUnit.branchId}`), { token: operator }),
      403,
      'AUTH002',
    );
    const kim = await customer();
    expect((await redeem(kim.token, code)).body).toEqual([
      expect.objectContaining({ voucherType: 'reward', rentalRebate: '1.50', numberOfRentals: 1 }),
    ]);
    expectError(await redeem(kim.token, code), 409, 'RW101');
  });
});

describe('isolation and hostile input', () => {
  test('another customer, another business unit, another tenant, the wrong interface', async () => {
    const hal = await customer();
    const ida = await customer();
    const code = freshCode();
    await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: await activeTemplate(), code },
    });
    const hers = (await redeem(hal.token, code)).body[0].id as number;
    const idaList = await call('GET', front('/vouchers'), { token: ida.token });
    expect(idaList.body.map((v: { id: number }) => v.id)).not.toContain(hers);
    expectError(await call('GET', front('/vouchers'), { token: session.appClientToken }), 401, '0001');
    expectError(
      await call('GET', back(`/vouchers?branchId=${session.seed.branchId}`), { token: foreignOperator }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/vouchers?branchId=${foreignUnit.branchId}`), { token: operator }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/vouchers/by-code/${code}`), { token: foreignOperator }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back('/vouchers/redeemable'), {
        token: foreignOperator,
        body: { voucherableId: await activeTemplate() },
      }),
      403,
      'AUTH002',
    );
    const rival = `/v1/${session.rival.tenant}/back`;
    expectError(
      await call('GET', `${rival}/vouchers/by-code/${code}`, { token: session.rivalOperatorToken }),
      404,
      'W101',
    );
    expectError(
      await call('POST', `${rival}/vouchers/constraint-vouchers/${hers}/cancel`, {
        token: session.rivalOperatorToken,
      }),
      404,
      'CV100',
    );
    const rivalCustomerToken = await session.customerToken(hal.id, session.rival.tenant);
    const rivalRedeem = await call(
      'POST',
      `/v1/${session.rival.tenant}/front/vouchers/redeem-code?code=${code}`,
      { token: rivalCustomerToken },
    );
    expect(rivalRedeem.status).toBeGreaterThanOrEqual(400);
    expect(rivalRedeem.status).toBeLessThan(500);
    expectError(
      await call('GET', back(`/vouchers?branchId=${session.seed.branchId}`), { token: hal.token }),
      403,
      '0005',
    );
  });

  test('hostile input answers 400 0022', async () => {
    const nul = 'a\u0000b';
    const templateId = await activeTemplate({
      type: 'CustomerCare',
      benefits: [{ type: 'Value', amount: '1.00' }],
    });
    const { token } = await customer();
    const backCases: [string, string, unknown?][] = [
      ['GET', '/vouchers?branchId=0x1'],
      ['GET', '/vouchers?branchId=1e3'],
      ['GET', `/vouchers?branchId=${session.seed.branchId}&status=USED`],
      ['GET', `/vouchers?branchId=${session.seed.branchId}&guserId=-1`],
      ['GET', `/vouchers/by-code/${encodeURIComponent(nul)}`],
      ['POST', '/vouchers/constraint-vouchers/0x1/cancel'],
      ['POST', '/vouchers/redeemable', { voucherableId: '1' }],
      ['POST', '/vouchers/redeemable', { voucherableId: templateId, code: 'a b' }],
      ['POST', '/vouchers/redeemable', { voucherableId: templateId, maxRedeems: 0 }],
      ['POST', '/vouchers/redeemable', { voucherableId: templateId, validUntil: '2026-02-30T00:00:00Z' }],
      ['POST', '/vouchers/redeemable/constraint', { voucherableId: templateId, count: 1001 }],
      ['POST', '/vouchers/redeemable/constraint', { voucherableId: templateId, count: 1, prefix: 'a-b' }],
      ['POST', '/vouchers/redeemable/constraint', { voucherableId: templateId, count: '1' }],
      ['POST', `/customers/1/apply-vouchers`, { voucherableId: templateId, customValue: '1e3' }],
      ['POST', `/customers/1/apply-vouchers`, { voucherableId: templateId, customValue: '0x1' }],
      ['POST', `/customers/1/apply-vouchers`, { voucherableId: templateId, extra: 1 }],
      ['POST', `/customers/0x1/apply-vouchers`, { voucherableId: templateId }],
      ['POST', `/groups/1/apply-vouchers`, { voucherableId: templateId, idempotencyKey: nul }],
    ];
    for (const [method, path, body] of backCases) {
      const reply = await call(method, back(path), { token: operator, body });
      expect([method, path, reply.status, reply.body?.errorCode]).toEqual([method, path, 400, '0022']);
    }
    const frontCases: [string, string][] = [
      ['POST', '/vouchers/redeem-code'],
      ['POST', `/vouchers/redeem-code?code=${encodeURIComponent(nul)}`],
      ['POST', `/vouchers/redeem-code?code=${'x'.repeat(65)}`],
      ['POST', `/vouchers/redeem-code?code=${encodeURIComponent("x' or 1=1")}`],
      ['GET', '/vouchers?active=maybe'],
      ['GET', '/vouchers?types=Coupon'],
      ['GET', '/promotions'],
      ['GET', '/promotions?branchId=1&lat=91&lng=0'],
      ['GET', '/promotions?branchId=0x1'],
    ];
    for (const [method, path] of frontCases) {
      const reply = await call(method, front(path), { token });
      expect([method, path, reply.status, reply.body?.errorCode]).toEqual([method, path, 400, '0022']);
    }
  });
});
