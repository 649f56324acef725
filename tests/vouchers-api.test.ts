// Vouchers end to end over HTTP against the real database: redeemable codes (once per customer, W124,
// W133, W130, W118), single-use constraint codes (NOT_REDEEMED → ACTIVE, W105, cancel, CV100), a
// template's own code (W126 for geofence ones, VA111), referral codes (W120–W125, W131, W136), rewards
// (RW101), the operator's apply-vouchers to a customer and a business account (W143, idempotent, credit
// written once), the app's list and promotions, the applicable vouchers of a rental context, concurrent
// consumption (a fast-check property: remaining never below zero, each key once), denials and hostile input.
import fc from 'fast-check';
import { Balance } from '../db/entities/Balance.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { Rental } from '../db/entities/Rental.js';
import { Reward } from '../db/entities/Reward.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { Voucher } from '../db/entities/Voucher.js';
import { Voucherable } from '../db/entities/Voucherable.js';
import { inTenantTransaction } from '../db/orm.js';
import { grantVouchers } from '../db/voucher-grants.js';
import { applicableVouchers, consumeVoucher, geofencePromotionsAt } from '../db/vouchers.js';
import { referralCodeOf } from '../domain/balances.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { grantedClient, otherBusinessUnit, testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let foreignOperator: string;
let foreignUnit: { unitId: number; branchId: number };

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);

let counter = 0;
const freshCode = () => `V${Date.now().toString(36)}${(counter++).toString(36)}`.toUpperCase();

/** An ACTIVE template of the seeded business unit (created and activated over HTTP); its id. */
async function activeTemplate(extra: Record<string, unknown> = {}): Promise<number> {
  const reply = await call('POST', back('/voucherables'), {
    token: operator,
    body: {
      branchId: session.seed.branchId,
      type: 'Promotion',
      name: 'Test offer',
      benefits: [{ type: 'Discount', amount: '0.1' }],
      ...extra,
    },
  });
  expect([reply.status, reply.body.errorCode]).toEqual([201, undefined]);
  const activated = await call('POST', back(`/voucherables/${reply.body.id}/activate`), { token: operator });
  expect(activated.body.status).toBe('ACTIVE');
  return reply.body.id;
}

/** A fresh customer of the seeded unit and their app token. */
async function customer(options: { emailVerified?: boolean } = {}): Promise<{ id: number; token: string }> {
  const id = await testCustomer(session, { emailVerified: options.emailVerified ?? true });
  return { id, token: await session.customerToken(id) };
}

const redeem = (token: string, code: string) =>
  call('POST', front(`/vouchers/redeem-code?code=${encodeURIComponent(code)}`), { token });

/** A rental row of the customer in the given state (as the rental workflow leaves them). */
async function rentalOf(customerId: number, state: 'ENDED' | 'CANCELLED'): Promise<void> {
  const em = session.em();
  const vehicle = await em.findOneOrFail(
    Vehicle,
    { branch: session.seed.branchId },
    { orderBy: { id: 'asc' } },
  );
  const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  em.create(Rental, {
    id,
    workflowId: `vouchers-test-rental-${id}`,
    state,
    branch: em.getReference(Branch, session.seed.branchId),
    vehicle: em.getReference(Vehicle, vehicle.id),
    customer: em.getReference(Customer, customerId),
    reservedAt: new Date(Date.now() - 3_600_000),
    startedAt: new Date(Date.now() - 3_000_000),
    endedAt: new Date(),
  });
  await em.flush();
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalvouchers', name: 'Rival Vouchers' } });
  operator = session.operatorToken;
  foreignUnit = await otherBusinessUnit(session, { currency: 'EUR', taxPercentage: '19', scale: 2 });
  foreignOperator = await grantedClient(session, { role: 'Finance', businessUnitId: foreignUnit.unitId });
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('codes', () => {
  test('a redeemable code: each customer once, the limit, the window, the template state and gates', async () => {
    const templateId = await activeTemplate({
      benefits: [
        { type: 'Value', amount: '3.00' },
        { type: 'FreeMinutes', amount: '15', validityPeriod: 30, validityTimeUnit: 'DAYS' },
      ],
    });
    const code = freshCode();
    const createdCode = await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: templateId, code, maxRedeems: 2 },
    });
    expect(createdCode.status).toBe(201);
    expect(createdCode.body).toMatchObject({ code, maxRedeems: 2, redeemCount: 0 });
    expectError(
      await call('POST', back('/vouchers/redeemable'), {
        token: operator,
        body: { voucherableId: templateId, code: code.toLowerCase() },
      }),
      409,
      'T103',
    );
    const anna = await customer();
    const redeemed = await redeem(anna.token, code.toLowerCase());
    expect(redeemed.status).toBe(200);
    expect(
      redeemed.body.map((v: { benefitType: string; status: string }) => [v.benefitType, v.status]),
    ).toEqual([
      ['Value', 'USED_UP'],
      ['FreeMinutes', 'ACTIVE'],
    ]);
    expect(redeemed.body[0]).toMatchObject({
      valueGross: '3.00',
      remainingValueGross: '0.00',
      voucherType: 'promotion',
    });
    expect(redeemed.body[1]).toMatchObject({ freeMinutes: 15, remainingFreeMinutes: 15, guserId: anna.id });
    const credit = await session.em().find(BalanceUpdate, { voucherId: redeemed.body[0].id });
    expect(credit.map((row) => row.amount)).toEqual(['3.00']);
    expectError(await redeem(anna.token, code), 409, 'W105');
    expect((await redeem((await customer()).token, code)).status).toBe(200);
    expectError(await redeem((await customer()).token, code), 422, 'W124');

    // A window not open yet; an inactive template; a customer gate.
    const later = freshCode();
    await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: templateId, code: later, validFrom: '2098-01-01T00:00:00Z' },
    });
    expectError(await redeem(anna.token, later), 422, 'W133');
    const gateTag = await call('POST', back('/annotations'), {
      token: operator,
      body: { branchId: session.seed.branchId, type: 'TAG', name: `Gate ${freshCode()}` },
    });
    const gated = await activeTemplate({ guserRequiredAnnotationIds: [gateTag.body.id] });
    const gatedCode = freshCode();
    await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: gated, code: gatedCode },
    });
    expectError(await redeem(anna.token, gatedCode), 403, 'W118');
    await call('PUT', back(`/annotations/${gateTag.body.id}/customers/${anna.id}`), { token: operator });
    expect((await redeem(anna.token, gatedCode)).status).toBe(200);
    await call('POST', back(`/voucherables/${templateId}/deactivate`), { token: operator });
    const inactiveCode = freshCode();
    await session.em().nativeUpdate(Voucherable, { id: templateId }, { status: 'ACTIVE' });
    await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: templateId, code: inactiveCode },
    });
    await session.em().nativeUpdate(Voucherable, { id: templateId }, { status: 'INACTIVE' });
    expectError(await redeem((await customer()).token, inactiveCode), 422, 'W130');

    const summary = await call(
      'GET',
      back(`/vouchers/redeemable/summary?branchId=${session.seed.branchId}&voucherableId=${templateId}`),
      {
        token: operator,
      },
    );
    expect(summary.body).toEqual([
      expect.objectContaining({ voucherableId: templateId, redeemableCodes: 3, redeemableRedeemCount: 2 }),
    ]);
    const campaigns = await call(
      'GET',
      back(`/vouchers/voucher-campaigns?branchId=${session.seed.branchId}&voucherableId=${templateId}`),
      {
        token: operator,
      },
    );
    expect(campaigns.body).toEqual(summary.body);
    const byCode = await call('GET', back(`/vouchers/by-code/${code}`), { token: operator });
    expect(byCode.body).toMatchObject({
      kind: 'REDEEMABLE',
      voucherableId: templateId,
      redeemableCode: { redeemCount: 2 },
    });
    expect(byCode.body.vouchers).toHaveLength(4);
  });

  test('single-use constraint codes: NOT_REDEEMED until the first customer, cancel', async () => {
    const templateId = await activeTemplate({
      benefits: [
        { type: 'RentalRebate', amount: '2.00', numberOfRentals: 3 },
        {
          type: 'FreeUnlocks',
          amount: '2',
          applicablePriceType: 'UNLOCK_FEE',
          validityPeriod: 2,
          validityTimeUnit: 'WEEKS',
        },
      ],
    });
    const made = await call('POST', back('/vouchers/redeemable/constraint'), {
      token: operator,
      body: { voucherableId: templateId, count: 2, prefix: 'sp' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toHaveLength(2);
    const [first, second] = made.body as {
      code: string;
      vouchers: { id: number; status: string; guserId: number | null }[];
    }[];
    expect(first!.code).toMatch(/^SP[0-9A-Z]{12}$/);
    expect(first!.vouchers.map((v) => [v.status, v.guserId])).toEqual([
      ['NOT_REDEEMED', null],
      ['NOT_REDEEMED', null],
    ]);
    const listed = await call(
      'GET',
      back(`/vouchers/constraint-vouchers?branchId=${session.seed.branchId}&voucherableId=${templateId}`),
      {
        token: operator,
      },
    );
    expect(listed.body).toHaveLength(4);
    const ben = await customer();
    const redeemed = await redeem(ben.token, first!.code.toLowerCase());
    expect(
      redeemed.body.map((v: { status: string; voucherType: string }) => [v.status, v.voucherType]),
    ).toEqual([
      ['ACTIVE', 'single-use'],
      ['ACTIVE', 'single-use'],
    ]);
    expect(redeemed.body[0]).toMatchObject({
      rentalRebate: '2.00',
      rentalRebateNet: expect.any(String),
      remainingNumberOfRentals: 3,
    });
    const unlocks = redeemed.body[1];
    expect(Date.parse(unlocks.validUntil) - Date.parse(unlocks.validFrom)).toBe(14 * 86_400_000);
    expectError(await redeem((await customer()).token, first!.code), 409, 'W105');

    const canceled = await call(
      'POST',
      back(`/vouchers/constraint-vouchers/${second!.vouchers[0]!.id}/cancel`),
      { token: operator },
    );
    expect(canceled.status).toBe(200);
    expect(canceled.body.map((v: { status: string }) => v.status)).toEqual(['CANCELED', 'CANCELED']);
    expectError(
      await call('POST', back(`/vouchers/constraint-vouchers/${second!.vouchers[0]!.id}/cancel`), {
        token: operator,
      }),
      422,
      'W130',
    );
    expectError(await redeem(ben.token, second!.code), 422, 'W130');
    const byCode = await call('GET', back(`/vouchers/by-code/${first!.code}`), { token: operator });
    expect(byCode.body).toMatchObject({
      kind: 'CONSTRAINT',
      vouchers: [{ guserId: ben.id }, { guserId: ben.id }],
    });
    // Cancelling a redeemed code cancels the customer's vouchers.
    const afterCancel = await call(
      'POST',
      back(`/vouchers/constraint-vouchers/${first!.vouchers[1]!.id}/cancel`),
      { token: operator },
    );
    expect(afterCancel.body.map((v: { status: string }) => v.status)).toEqual(['CANCELED', 'CANCELED']);
    expectError(
      await call('POST', back('/vouchers/constraint-vouchers/2147483000/cancel'), { token: operator }),
      404,
      'CV100',
    );
    // An ordinary voucher is not a constraint voucher.
    const ordinary = (await redeem(ben.token, await plainCode())).body[0].id;
    expectError(
      await call('POST', back(`/vouchers/constraint-vouchers/${ordinary}/cancel`), { token: operator }),
      404,
      'CV100',
    );
  });

  /** A redeemable code of a fresh discount promotion. */
  async function plainCode(): Promise<string> {
    const code = freshCode();
    await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: await activeTemplate(), code },
    });
    return code;
  }

  test("a template's own code; geofence promotions are not redeemed; bought templates have no codes", async () => {
    const code = freshCode();
    await activeTemplate({ code, maxRedeems: 5 });
    const cleo = await customer();
    expect((await redeem(cleo.token, code)).body).toEqual([
      expect.objectContaining({ benefitType: 'Discount', discount: '0.1' }),
    ]);
    expectError(await redeem(cleo.token, code), 409, 'W105');
    const geoCode = freshCode();
    const square = [
      [
        [
          [13.3, 52.5],
          [13.5, 52.5],
          [13.5, 52.6],
          [13.3, 52.6],
          [13.3, 52.5],
        ],
      ],
    ];
    const geo = await activeTemplate({
      type: 'GeoFencePromotion',
      code: geoCode,
      geofence: { type: 'MultiPolygon', coordinates: square },
      weekdays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'],
      recurrenceStart: '2026-01-01T00:00:00Z',
      durationMinutes: 1440,
    });
    expectError(await redeem(cleo.token, geoCode), 422, 'W126');
    expectError(
      await call('POST', back('/vouchers/redeemable'), { token: operator, body: { voucherableId: geo } }),
      422,
      'W126',
    );
    const packageCode = freshCode();
    const pkg = await activeTemplate({ type: 'Package', code: packageCode, price: '10.00' });
    expectError(await redeem(cleo.token, packageCode), 400, 'VA111');
    expectError(
      await call('POST', back('/vouchers/redeemable/constraint'), {
        token: operator,
        body: { voucherableId: pkg, count: 1 },
      }),
      400,
      'VA111',
    );
    expectError(await redeem(cleo.token, 'NOSUCHCODE123'), 404, 'W101');

    // The promotion is found by position, in force now, and shown by the app.
    const inside = await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
      geofencePromotionsAt(tx, {
        branchId: session.seed.branchId,
        position: { lat: 52.55, lng: 13.4 },
        at: new Date(),
      }),
    );
    expect(inside.map((template) => template.id)).toContain(geo);
    const outside = await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
      geofencePromotionsAt(tx, {
        branchId: session.seed.branchId,
        position: { lat: 48.1, lng: 11.5 },
        at: new Date(),
      }),
    );
    expect(outside.map((template) => template.id)).not.toContain(geo);
    const shown = await call(
      'GET',
      front(`/promotions?branchId=${session.seed.branchId}&lat=52.55&lng=13.4`),
      { token: cleo.token },
    );
    expect(shown.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: geo, inForceNow: true })]),
    );
    const elsewhere = await call(
      'GET',
      front(`/promotions?branchId=${session.seed.branchId}&lat=48.1&lng=11.5`),
      { token: cleo.token },
    );
    expect(elsewhere.body.map((row: { id: number }) => row.id)).not.toContain(geo);
  });

  test('referral codes: both customers get their templates once; W120–W125, W131, W136', async () => {
    // One SignupReferral per business unit is looked up: this suite's runs on the foreign unit.
    const unit = foreignUnit.unitId;
    const make = async (body: Record<string, unknown>) => {
      const reply = await call('POST', back('/voucherables'), {
        token: foreignOperator,
        body: { branchId: foreignUnit.branchId, ...body },
      });
      expect([reply.status, reply.body.errorCode]).toEqual([201, undefined]);
      await call('POST', back(`/voucherables/${reply.body.id}/activate`), { token: foreignOperator });
      return reply.body.id as number;
    };
    const referrerReward = await make({
      type: 'Reward',
      name: 'Thanks',
      benefits: [{ type: 'Value', amount: '4.00' }],
    });
    const signupCode = freshCode();
    await make({
      type: 'SignupReferral',
      name: 'Welcome',
      code: signupCode,
      benefits: [{ type: 'Value', amount: '5.00' }],
      referrerVoucherableId: referrerReward,
      referrerNeedsRide: true,
      maxRedeems: 2,
    });
    const homed = async (verified = true) => {
      const c = await customer({ emailVerified: verified });
      await session.em().nativeUpdate(Customer, { id: c.id }, { homeBusinessUnit: unit });
      return c;
    };
    const referrer = await homed();
    const code = referralCodeOf(referrer.id);
    const newcomer = await homed();
    expectError(await redeem(newcomer.token, code), 422, 'W131');
    await rentalOf(referrer.id, 'ENDED');
    expectError(await redeem(referrer.token, code), 422, 'W123');
    expectError(await redeem((await homed(false)).token, code), 422, 'W120');
    const rider = await homed();
    await rentalOf(rider.id, 'CANCELLED');
    expectError(await redeem(rider.token, code), 422, 'W122');
    const granted = await redeem(newcomer.token, code);
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual([
      expect.objectContaining({
        guserId: newcomer.id,
        valueGross: '5.00',
        voucherableType: 'SignupReferral',
      }),
    ]);
    const rewardVouchers = await session
      .em()
      .find(Voucher, { customerId: referrer.id, voucherable: referrerReward });
    expect(rewardVouchers).toHaveLength(1);
    expectError(await redeem(newcomer.token, code), 409, 'W121');
    expectError(await redeem(newcomer.token, signupCode), 409, 'W125');
    const signedUp = await homed();
    expect((await redeem(signedUp.token, signupCode)).status).toBe(200);
    expectError(await redeem(signedUp.token, code), 409, 'W125');
    expect((await redeem((await homed()).token, code)).status).toBe(200);
    expectError(await redeem((await homed()).token, code), 422, 'W124');
    await session.em().nativeUpdate(Customer, { id: referrer.id }, { isBlocked: true });
    expectError(await redeem((await homed()).token, code), 422, 'W136');
  });

  test('a reward code is claimed once per customer (RW101)', async () => {
    const templateId = await activeTemplate({
      type: 'Reward',
      benefits: [{ type: 'RentalRebate', amount: '1.00' }],
    });
    const em = session.em();
    const reward = em.create(Reward, {
      branchId: session.seed.branchId,
      businessUnitId: session.seed.businessUnitId,
      code: freshCode(),
      name: 'Park at the station',
      voucherable: em.getReference(Voucherable, templateId),
      createdBy: 'test',
    });
    await em.flush();
    const dana = await customer();
    expect((await redeem(dana.token, reward.code)).body).toEqual([
      expect.objectContaining({ voucherType: 'reward', rentalRebate: '1.00' }),
    ]);
    expectError(await redeem(dana.token, reward.code), 409, 'RW101');
  });
});

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
    expect(declined.status).toBe(201);
    expect(declined.body).toMatchObject({ state: 'BILLED', paymentState: 'FAILED', vouchers: [] });
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
