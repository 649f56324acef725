// Balances over HTTP, the app's side: the signed-in customer's own balances and those shared with them —
// create at the unit of a branch or a vehicle (J105), default, delete (J106–J108), history with zero
// entries on request, sharing by referral code (J109–J111, J118); another customer's and another tenant's
// balances are not found (J404); hostile input on every app route.
import { Balance } from '../db/entities/Balance.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { appendBalanceUpdate } from '../db/balance-ledger.js';
import { inTenantTransaction } from '../db/orm.js';
import { referralCodeOf } from '../domain/balances.js';
import { expectError } from './support/http.js';
import { balanceKit } from './support/balances.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let anna: number;
let ben: number;
let clara: number;
let annaToken: string;
let benToken: string;
let claraToken: string;
let unitId: number;
const { call, back, em, expectErrors, operatorBalance } = balanceKit(() => session);
const front = (path: string) => session.stack.front(path);

beforeAll(async () => {
  session = await startSession({ rival: true, signInDemoCustomer: true });
  ({ operatorToken: operator, annaToken } = session);
  unitId = session.seed.businessUnitId;
  [anna, ben, clara] = session.seed.customerIds as [number, number, number];
  benToken = await session.customerToken(ben);
  claraToken = await session.customerToken(clara);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('app balances', () => {
  let annaOwn: number;
  let annaSystem: number;

  test('create at the unit of a branch or a vehicle (J105 both), listed with the operator’s', async () => {
    annaSystem = (await operatorBalance({ userId: anna, name: 'From care' })).id;
    const created = await call('POST', front('/balances'), {
      token: annaToken,
      body: { name: 'Holidays', branchId: session.seed.branchId },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Holidays',
      currency: 'EUR',
      value: '0.00',
      owned: true,
      systemCreated: false,
      defaultBalance: false,
      businessUnitId: unitId,
    });
    annaOwn = created.body.id;
    const vehicle = await em().findOneOrFail(Vehicle, { branch: session.seed.branchId, virtual: false });
    const byVehicle = await call('POST', front('/balances'), {
      token: annaToken,
      body: { name: 'Scooters', vehicleId: vehicle.id },
    });
    expect(byVehicle.status).toBe(201);
    const home = await call('POST', front('/balances'), { token: annaToken, body: { name: 'Home unit' } });
    expect(home.status).toBe(201);
    const listed = await call('GET', front(`/balances?vehicleId=${vehicle.id}`), { token: annaToken });
    expect(listed.status).toBe(200);
    expect(listed.body.map((b: { id: number }) => b.id)).toEqual(
      expect.arrayContaining([annaOwn, annaSystem]),
    );
    expect(listed.body.every((b: { owned: boolean }) => b.owned)).toBe(true);
    await expectErrors(
      [
        ['GET', front(`/balances?vehicleId=${vehicle.id}&branchId=${session.seed.branchId}`), 400, 'J105'],
        [
          'POST',
          front('/balances'),
          400,
          'J105',
          { name: 'x', vehicleId: vehicle.id, branchId: session.seed.branchId },
        ],
        ['GET', front('/balances?branchId=2147483647'), 404, 'B404'],
        ['GET', front('/balances?vehicleId=2147483647'), 404, 'V404'],
      ],
      annaToken,
    );
  });

  test('default: the owner makes a balance the default at its unit', async () => {
    const reply = await call('POST', front(`/balances/${annaOwn}/default`), { token: annaToken });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: annaOwn, defaultBalance: true });
    const defaults = await em().find(Balance, {
      customer: anna,
      businessUnit: unitId,
      isDefault: true,
      deletedAt: null,
    });
    expect(defaults.map((b) => b.id)).toEqual([annaOwn]);
    // While another change of Anna's balances holds her row, the change is refused at once (retryable).
    await inTenantTransaction(session.stack.backend.orm, session.seed.tenant, async (tx) => {
      await tx.execute('select id from customer where id = ? for no key update', [anna]);
      expectError(
        await call('POST', front(`/balances/${annaOwn}/default`), { token: annaToken }),
        500,
        'J112',
      );
      expectError(
        await call('POST', front('/balances'), {
          token: annaToken,
          body: { name: 'Blocked', branchId: session.seed.branchId },
        }),
        500,
        'J112',
      );
    });
    expect((await call('POST', front(`/balances/${annaOwn}/default`), { token: annaToken })).status).toBe(
      200,
    );
  });

  test('history: newest first with the value after each entry; zero entries only when asked', async () => {
    await inTenantTransaction(session.stack.backend.orm, session.seed.tenant, async (tx) => {
      const balance = await tx.findOneOrFail(Balance, annaOwn);
      const rows = [
        ['VOUCHER', '5.00', 'welcome voucher'],
        ['VOUCHER', '0', 'voucher without value'],
        ['INVOICE', '-2.00', 'invoice'],
      ] as const;
      for (const [index, [kind, amount, description]] of rows.entries())
        await appendBalanceUpdate(tx, {
          balance,
          kind,
          amount,
          description,
          createdBy: 'system',
          idempotencyKey: `test:history:${annaOwn}:${index}`,
          voucherId: kind === 'VOUCHER' ? 77 : null,
        });
    });
    const history = await call('GET', front(`/balances/${annaOwn}/history`), { token: annaToken });
    expect(history.status).toBe(200);
    expect(history.body.map((e: { amount: string; valueAfter: string }) => [e.amount, e.valueAfter])).toEqual(
      [
        ['-2.00', '3.00'],
        ['5.00', '5.00'],
      ],
    );
    expect(history.body[1]).toMatchObject({ kind: 'VOUCHER', voucherId: 77 });
    const all = await call('GET', front(`/balances/${annaOwn}/history?includeZeroValueUpdates=true`), {
      token: annaToken,
    });
    expect(all.body.map((e: { amount: string }) => e.amount)).toEqual(['-2.00', '0.00', '5.00']);
    expect(all.headers.get('x-total-count')).toBe('3');
    const [listed] = (await call('GET', front('/balances'), { token: annaToken })).body.filter(
      (b: { id: number }) => b.id === annaOwn,
    );
    expect(listed).toMatchObject({ value: '3.00', remainingVouchersGrossValue: '3.00' });
  });

  test('delete: J106 system-created, J108 used, J107 not the owner; a fresh one goes', async () => {
    const fresh = await call('POST', front('/balances'), {
      token: annaToken,
      body: { name: 'Short-lived', branchId: session.seed.branchId },
    });
    await expectErrors(
      [
        ['DELETE', front(`/balances/${annaSystem}`), 422, 'J106'],
        ['DELETE', front(`/balances/${annaOwn}`), 409, 'J108'],
      ],
      annaToken,
    );
    expect((await call('DELETE', front(`/balances/${fresh.body.id}`), { token: annaToken })).status).toBe(
      204,
    );
    await expectErrors(
      [
        ['DELETE', front(`/balances/${fresh.body.id}`), 404, 'J404'],
        ['GET', front(`/balances/${fresh.body.id}/history`), 404, 'J404'],
      ],
      annaToken,
    );
    expectError(await call('GET', back(`/balances/${fresh.body.id}`), { token: operator }), 404, 'J404');
  });

  test('sharing by referral code: the grantee sees and uses it, only the owner manages it', async () => {
    const account = await call('GET', front('/account'), { token: benToken });
    expect(account.body.referralCode).toBe(referralCodeOf(ben));
    const granted = await call('POST', front(`/balances/${annaOwn}/users`), {
      token: annaToken,
      body: { referralCode: account.body.referralCode.toLowerCase() },
    });
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ referralCode: referralCodeOf(ben), firstName: expect.any(String) });
    const twice = await call('POST', front(`/balances/${annaOwn}/users`), {
      token: annaToken,
      body: { referralCode: referralCodeOf(ben) },
    });
    expect(twice.body.grantedAt).toBe(granted.body.grantedAt);
    const users = await call('GET', front(`/balances/${annaOwn}/users`), { token: annaToken });
    expect(users.body.map((u: { referralCode: string }) => u.referralCode)).toEqual([referralCodeOf(ben)]);
    const shared = async () =>
      (await call('GET', front('/balances'), { token: benToken })).body.filter(
        (b: { owned: boolean }) => !b.owned,
      );
    expect(await shared()).toEqual([expect.objectContaining({ id: annaOwn, owned: false, value: '3.00' })]);
    expect((await call('GET', front(`/balances/${annaOwn}/history`), { token: benToken })).status).toBe(200);
    await expectErrors(
      [
        ['DELETE', front(`/balances/${annaOwn}`), 403, 'J107'],
        ['POST', front(`/balances/${annaOwn}/default`), 403, 'J114'],
        ['GET', front(`/balances/${annaOwn}/users`), 403, 'J110'],
        ['POST', front(`/balances/${annaOwn}/users`), 403, 'J109', { referralCode: referralCodeOf(clara) }],
        ['DELETE', front(`/balances/${annaOwn}/users/${referralCodeOf(ben)}`), 403, 'J111'],
      ],
      benToken,
    );
    const code = referralCodeOf(ben);
    const mistyped = code.slice(0, -1) + (code.endsWith('0') ? '1' : '0');
    await expectErrors(
      [
        ['POST', front(`/balances/${annaOwn}/users`), 409, 'J118', { referralCode: referralCodeOf(anna) }],
        ['POST', front(`/balances/${annaOwn}/users`), 404, 'U106', { referralCode: mistyped }],
        [
          'POST',
          front(`/balances/${annaOwn}/users`),
          404,
          'U106',
          { referralCode: referralCodeOf(2147483647) },
        ],
        ['DELETE', front(`/balances/${annaOwn}/users/${mistyped}`), 404, 'U106'],
      ],
      annaToken,
    );
    const events = await call('GET', back(`/balances/${annaOwn}/events`), { token: operator });
    expect(events.body.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['BALANCE_CREATED', 'BALANCE_DEFAULT_SET', 'BALANCE_ACCESS_GRANTED']),
    );
    expect(
      (await call('DELETE', front(`/balances/${annaOwn}/users/${code}`), { token: annaToken })).status,
    ).toBe(204);
    expect(
      (await call('DELETE', front(`/balances/${annaOwn}/users/${code}`), { token: annaToken })).status,
    ).toBe(204);
    expect(await shared()).toEqual([]);
    expectError(await call('GET', front(`/balances/${annaOwn}/history`), { token: benToken }), 404, 'J404');
  });

  test("another customer's balance, and another tenant's, are not found", async () => {
    const paths: [string, string, unknown?][] = [
      ['DELETE', `/balances/${annaOwn}`],
      ['POST', `/balances/${annaOwn}/default`],
      ['GET', `/balances/${annaOwn}/history`],
      ['GET', `/balances/${annaOwn}/users`],
      ['POST', `/balances/${annaOwn}/users`, { referralCode: referralCodeOf(clara) }],
      ['DELETE', `/balances/${annaOwn}/users/${referralCodeOf(ben)}`],
    ];
    await expectErrors(
      paths.map(([method, path, body]) => [method, front(path), 404, 'J404', body]),
      claraToken,
    );
    const rival = session.rival;
    const rivalCustomer = await session.customerToken(rival.customerIds[0]!, rival.tenant);
    await expectErrors(
      paths.map(([method, path, body]) => [method, `/v1/${rival.tenant}/front${path}`, 404, 'J404', body]),
      rivalCustomer,
    );
    expect(
      (await call('GET', front('/balances'), { token: claraToken })).body.map((b: { id: number }) => b.id),
    ).not.toContain(annaOwn);
    // An app client token carries no customer.
    expectError(await call('GET', front('/balances'), { token: session.appClientToken }), 401, '0001');
  });
});

describe('hostile input', () => {
  const badIds = ['abc', '0', '-1', '99999999999', '1.5', '0x1', '1e3', '%00', '1%00', "1'--"];

  test('path values on every route are refused before any handler runs', async () => {
    for (const value of badIds) {
      await expectErrors(
        [
          ['DELETE', front(`/balances/${value}`), 400, '0022'],
          ['POST', front(`/balances/${value}/default`), 400, '0022'],
          ['GET', front(`/balances/${value}/history`), 400, '0022'],
          ['GET', front(`/balances/${value}/users`), 400, '0022'],
          ['POST', front(`/balances/${value}/users`), 400, '0022', { referralCode: referralCodeOf(ben) }],
          ['DELETE', front(`/balances/${value}/users/${referralCodeOf(ben)}`), 400, '0022'],
        ],
        annaToken,
      );
    }
    for (const code of ['%00', 'ab', '0000000000000000', 'abc-12', '%20%20%20%20%20%20'])
      expectError(
        await call('DELETE', front(`/balances/1/users/${code}`), { token: annaToken }),
        400,
        '0022',
      );
  });

  test('query values and bodies are refused with catalogue errors', async () => {
    await expectErrors(
      [
        ['POST', front('/balances'), 400, '0022', { name: '' }],
        ['POST', front('/balances'), 400, '0022', { name: 'x', branchId: '1' }],
        ['POST', front('/balances'), 400, '0022', { name: 'x', vehicleId: 0 }],
        ['POST', front('/balances'), 400, '0022', { name: 'x\u0000' }],
        ['POST', front('/balances'), 400, '0022', { name: 'x', unknown: true }],
        ['GET', front('/balances?branchId=1e3'), 400, '0022'],
        ['GET', front('/balances?vehicleId=0x1'), 400, '0022'],
        ['GET', front('/balances/1/history?includeZeroValueUpdates=2'), 400, '0022'],
        ['POST', front('/balances/1/users'), 400, '0022', { referralCode: 'a\u0000bcdef' }],
        ['POST', front('/balances/1/users'), 400, '0022', { referralCode: 12345678 }],
        ['POST', front('/balances/1/users'), 400, '0022', {}],
      ],
      annaToken,
    );
  });
});
