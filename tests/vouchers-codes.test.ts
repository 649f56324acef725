// Voucher codes end to end over HTTP against the real database: redeemable codes (once per customer, W124,
// W133, W130, W118), single-use constraint codes (NOT_REDEEMED → ACTIVE, W105, cancel, CV100), a
// template's own code (W126 for geofence ones, VA111), referral codes (W120–W125, W131, W136), rewards (RW101).
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { Customer } from '../db/entities/Customer.js';
import { Reward } from '../db/entities/Reward.js';
import { Voucher } from '../db/entities/Voucher.js';
import { Voucherable } from '../db/entities/Voucherable.js';
import { inTenantTransaction } from '../db/orm.js';
import { geofencePromotionsAt } from '../db/vouchers.js';
import { referralCodeOf } from '../domain/balances.js';
import { expectError } from './support/http.js';
import { type Session } from './support/session.js';
import { voucherSuite } from './support/vouchers.js';

let session: Session;
let operator: string;
let foreignOperator: string;
let foreignUnit: { unitId: number; branchId: number };

const { call, back, front, freshCode, activeTemplate, customer, redeem, rentalOf } = voucherSuite(
  'rivalvcodes',
  (context) => ({ session, operator, foreignOperator, foreignUnit } = context),
);

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

  test('issue 33: one redemption of a template per customer across all its codes (W117), unless it says more', async () => {
    // The demo's promotion: its own code SPRING10 and the redeemable code FREERIDE are one offer.
    const erin = await customer();
    expect((await redeem(erin.token, 'FREERIDE')).status).toBe(200);
    expectError(await redeem(erin.token, 'FREERIDE'), 409, 'W105');
    expectError(await redeem(erin.token, 'SPRING10'), 409, 'W117');
    const spring = await session.em().findOneOrFail(Voucherable, { code: 'SPRING10' });
    expect(await session.em().count(Voucher, { voucherable: spring.id, customerId: erin.id })).toBe(1);

    // A template of the default (once): its own code, a redeemable code and a single-use code.
    const own = freshCode();
    const templateId = await activeTemplate({ code: own });
    const other = freshCode();
    await call('POST', back('/vouchers/redeemable'), {
      token: operator,
      body: { voucherableId: templateId, code: other },
    });
    const [single] = (
      await call('POST', back('/vouchers/redeemable/constraint'), {
        token: operator,
        body: { voucherableId: templateId, count: 1, prefix: 'on' },
      })
    ).body as { code: string }[];
    const dana = await customer();
    expect((await redeem(dana.token, other)).status).toBe(200);
    expectError(await redeem(dana.token, own), 409, 'W117');
    expectError(await redeem(dana.token, single!.code), 409, 'W117');
    // The single-use code is still there for someone else, and so are the other codes.
    expect((await redeem((await customer()).token, single!.code)).status).toBe(200);
    expect((await redeem((await customer()).token, own)).status).toBe(200);
    const read = await call('GET', back(`/voucherables/${templateId}`), { token: operator });
    expect(read.body.maxRedeemsPerCustomer).toBe(1);

    // A template that allows two per customer: two of its codes, then W117.
    const twiceOwn = freshCode();
    const twice = await activeTemplate({ code: twiceOwn, maxRedeemsPerCustomer: 2 });
    const [second, third] = [freshCode(), freshCode()];
    for (const code of [second, third])
      await call('POST', back('/vouchers/redeemable'), {
        token: operator,
        body: { voucherableId: twice, code },
      });
    expect((await redeem(dana.token, twiceOwn)).status).toBe(200);
    expect((await redeem(dana.token, second)).status).toBe(200);
    expectError(await redeem(dana.token, third), 409, 'W117');
    expect((await call('GET', back(`/voucherables/${twice}`), { token: operator })).body).toMatchObject({
      maxRedeemsPerCustomer: 2,
    });
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

  test("twenty customers at once on a template's code limited to three: three vouchers, W124 for the rest", async () => {
    const code = freshCode();
    const templateId = await activeTemplate({ code, maxRedeems: 3 });
    const customers = [];
    for (let index = 0; index < 20; index += 1) customers.push(await customer());
    const answers = await Promise.all(customers.map((one) => redeem(one.token, code)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((answer) => answer.status !== 200))
      expectError(refused, 422, 'W124');
    // The count is the database's, never an instance's stale copy written back by a later flush.
    const read = await call('GET', back(`/voucherables/${templateId}`), { token: operator });
    expect(read.body.redeemCount).toBe(3);
    expectError(await redeem((await customer()).token, code), 422, 'W124');
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
