// Voucherables (benefit templates) and annotations end to end over HTTP against the real database: create
// with several benefits, read by id and code, list, replace (T110, T112), activate with the whole
// configuration checked again (VA102 once a date passed, VA113 for annotations), deactivate, delete;
// annotations and their customers; the grant API (db/voucher-grants.ts): idempotent per cause, Value credit
// written to the balance once, cancel by cause; denials (another business unit, another tenant, fleet-only
// operators) and hostile input on every route.
import { Voucher } from '../db/entities/Voucher.js';
import { Voucherable } from '../db/entities/Voucherable.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { inTenantTransaction } from '../db/orm.js';
import { cancelVouchersOf, grantVouchers } from '../db/voucher-grants.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { grantedClient, otherBusinessUnit, testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let fleetOnly: string;
let foreignUnit: { unitId: number; branchId: number };
let foreignOperator: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);

let codeCounter = 0;
const freshCode = () => `T${Date.now().toString(36)}${(codeCounter++).toString(36)}`.toUpperCase();

/** A template body on the seeded branch. */
const template = (extra: Record<string, unknown> = {}) => ({
  branchId: session.seed.branchId,
  type: 'Promotion',
  name: 'Spring promotion',
  benefits: [
    { type: 'Discount', amount: '0.2', applicablePriceType: 'TIME_PRICE' },
    { type: 'FreeUnlocks', amount: '2', applicablePriceType: 'UNLOCK_FEE' },
  ],
  ...extra,
});

async function createTemplate(extra: Record<string, unknown> = {}, token = operator): Promise<Reply> {
  return call('POST', back('/voucherables'), { token, body: template(extra) });
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalvoucher', name: 'Rival Vouchers' } });
  operator = session.operatorToken;
  fleetOnly = await grantedClient(session, { role: 'Fleet operations', branchId: session.seed.cityBranchId });
  foreignUnit = await otherBusinessUnit(session, { currency: 'JPY', taxPercentage: '10', scale: 0 });
  foreignOperator = await grantedClient(session, { role: 'Finance', businessUnitId: foreignUnit.unitId });
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('voucherables over HTTP', () => {
  test('create with several benefits, read by id and code, list, activate, deactivate', async () => {
    const code = freshCode();
    const createdReply = await createTemplate({
      code,
      validUntil: '2099-01-01T00:00:00Z',
      validityPeriod: 1,
      validityTimeUnit: 'MONTHS',
      value: '9.99', // legacy, overridden by the benefits
    });
    expect(createdReply.status).toBe(201);
    const body = createdReply.body;
    expect(body).toMatchObject({
      type: 'Promotion',
      status: 'INACTIVE',
      code,
      currency: 'EUR',
      businessUnitId: session.seed.businessUnitId,
      value: '9.99',
      benefits: [
        { type: 'Discount', amount: '0.2', applicablePriceType: 'TIME_PRICE' },
        { type: 'FreeUnlocks', amount: '2', applicablePriceType: 'UNLOCK_FEE' },
      ],
    });
    expect(createdReply.headers.get('location')).toMatch(new RegExp(`/voucherables/${body.id}$`));
    expect((await call('GET', back(`/voucherables/${body.id}`), { token: operator })).body).toEqual(body);
    const byCode = await call('GET', back(`/voucherables/by-code/${code.toLowerCase()}`), {
      token: operator,
    });
    expect(byCode.body.id).toBe(body.id);
    const list = await call('GET', back(`/voucherables?branchId=${session.seed.branchId}&type=Promotion`), {
      token: operator,
    });
    expect(list.status).toBe(200);
    expect(list.body.map((row: { id: number }) => row.id)).toContain(body.id);
    expect(list.headers.get('x-total-count')).toBeTruthy();

    const activated = await call('POST', back(`/voucherables/${body.id}/activate`), { token: operator });
    expect(activated.body.status).toBe('ACTIVE');
    const again = await call('POST', back(`/voucherables/${body.id}/activate`), { token: operator });
    expect(again.body.status).toBe('ACTIVE');
    const deactivated = await call('POST', back(`/voucherables/${body.id}/deactivate`), { token: operator });
    expect(deactivated.body.status).toBe('INACTIVE');
  });

  test('every type can be created and activated', async () => {
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
    const extras: Record<string, Record<string, unknown>> = {
      Promotion: {},
      GeoFencePromotion: {
        geofence: { type: 'MultiPolygon', coordinates: square },
        weekdays: ['MONDAY', 'FRIDAY'],
        recurrenceStart: '2026-01-05T07:00:00Z',
        durationMinutes: 120,
      },
      Package: { price: '19.90' },
      Subscription: { price: '9.90', interval: 'MONTHLY' },
      Reward: { benefits: [{ type: 'RentalRebate', amount: '2.00' }] },
      SignupReferral: { benefits: [{ type: 'Value', amount: '5.00' }] },
      Triggered: {},
      CustomerCare: { benefits: [{ type: 'Value', amount: '10.00' }] },
      VehiclePromotion: { applicableVehicleCategoryIds: [1] },
      GeoFenceSurcharge: {
        geofence: { type: 'MultiPolygon', coordinates: square },
        weekdays: ['SATURDAY'],
        recurrenceStart: '2026-01-03T20:00:00Z',
        durationMinutes: 240,
        benefits: [{ type: 'RentalRebate', amount: '1.00' }],
      },
      RidePass: { price: '29.00', benefits: [{ type: 'FreeMinutes', amount: '300' }] },
      PricedPromotion: { price: '4.50' },
    };
    for (const [type, extra] of Object.entries(extras)) {
      const reply = await createTemplate({ type, name: `${type} template`, ...extra });
      expect([type, reply.status, reply.body.errorCode]).toEqual([type, 201, undefined]);
      const activated = await call('POST', back(`/voucherables/${reply.body.id}/activate`), {
        token: operator,
      });
      expect([type, activated.body.status]).toEqual([type, 'ACTIVE']);
    }
  });

  test('configuration refusals answer their VA and T codes', async () => {
    const code = freshCode();
    expect((await createTemplate({ code })).status).toBe(201);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ code: code.toLowerCase() }, 409, 'VA106'],
      [{ benefits: [] }, 400, 'VA104'],
      [{ validityPeriod: 3 }, 400, 'VA103'],
      [{ validUntil: '2001-01-01T00:00:00Z' }, 400, 'VA102'],
      [{ redeemFrom: '2098-01-01T00:00:00Z', redeemUntil: '2097-01-01T00:00:00Z' }, 400, 'VA101'],
      [{ benefits: [{ type: 'Discount', amount: '1.5' }] }, 400, 'VA109'],
      [
        {
          benefits: [
            { type: 'Discount', amount: '0.1' },
            { type: 'Discount', amount: '0.2' },
          ],
        },
        400,
        'VA105',
      ],
      [{ guserRequiredAnnotationIds: [5], guserProhibitedAnnotationIds: [5] }, 400, 'VA114'],
      [{ guserProhibitedAnnotationIds: [2147483000] }, 404, 'VA113'],
      [{ type: 'Package' }, 400, 'VA120'],
      [{ price: '3.00' }, 400, 'VA111'],
      [{ type: 'GeoFencePromotion' }, 400, 'T113'],
      [
        {
          type: 'GeoFencePromotion',
          geofence: {
            type: 'MultiPolygon',
            coordinates: [
              [
                [
                  [0, 0],
                  [1, 0],
                  [1, 1],
                  [0, 0],
                ],
              ],
            ],
          },
        },
        400,
        'T114',
      ],
      [{ weekdays: ['MONDAY'] }, 400, 'T116'],
      [{ type: 'SignupReferral', referrerVoucherableId: 2147483000 }, 404, 'VA100'],
      [{ branchId: 2147483000 }, 404, 'B404'],
    ];
    for (const [extra, status, errorCode] of cases)
      expectError(await createTemplate(extra), status, errorCode);
  });

  test('replace keeps type, business unit and (once granted) code; activation checks again; delete frees the code', async () => {
    const code = freshCode();
    const { id } = (await createTemplate({ code, validUntil: '2099-01-01T00:00:00Z' })).body;
    const replaced = await call('PUT', back(`/voucherables/${id}`), {
      token: operator,
      body: template({ code, name: 'Renamed', benefits: [{ type: 'RentalRebate', amount: '1.5' }] }),
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      name: 'Renamed',
      benefits: [{ type: 'RentalRebate', amount: '1.50' }],
    });
    expectError(
      await call('PUT', back(`/voucherables/${id}`), {
        token: operator,
        body: template({ type: 'Reward', code }),
      }),
      400,
      'T112',
    );
    expectError(
      await call('PUT', back(`/voucherables/${id}`), {
        token: foreignOperator,
        body: template({ branchId: foreignUnit.branchId, code }),
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('PUT', back(`/voucherables/${id}`), {
        token: operator,
        body: template({ branchId: foreignUnit.branchId, code }),
      }),
      400,
      'T110',
    );
    // A granted voucher pins the code.
    const customerId = await testCustomer(session);
    await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
      grantVouchers(tx, {
        voucherableId: id,
        customerId,
        source: { kind: 'OPERATOR', reference: `pin-${id}` },
        validFrom: new Date(),
      }),
    );
    expectError(
      await call('PUT', back(`/voucherables/${id}`), {
        token: operator,
        body: template({ code: freshCode() }),
      }),
      400,
      'T110',
    );
    // A date that passed since creation refuses the activation.
    const em = session.em();
    await em.nativeUpdate(Voucherable, { id }, { validUntil: new Date(Date.now() - 1000) });
    expectError(await call('POST', back(`/voucherables/${id}/activate`), { token: operator }), 400, 'VA102');
    expect((await call('DELETE', back(`/voucherables/${id}`), { token: operator })).status).toBe(204);
    expectError(await call('GET', back(`/voucherables/${id}`), { token: operator }), 404, 'VA100');
    expectError(await call('GET', back(`/voucherables/by-code/${code}`), { token: operator }), 404, 'VA100');
    expect((await createTemplate({ code })).status).toBe(201);
  });

  test('denials: another business unit, another tenant, operations without finance, no token', async () => {
    const { id } = (await createTemplate()).body;
    const foreign = (await createTemplate({ branchId: foreignUnit.branchId }, foreignOperator)).body;
    expect(foreign.currency).toBe('JPY');
    for (const [method, path, body] of [
      ['GET', `/voucherables/${foreign.id}`],
      ['PUT', `/voucherables/${foreign.id}`, template({ branchId: foreignUnit.branchId })],
      ['DELETE', `/voucherables/${foreign.id}`],
      ['POST', `/voucherables/${foreign.id}/activate`],
      ['GET', `/voucherables?branchId=${foreignUnit.branchId}`],
      ['POST', '/voucherables', template({ branchId: foreignUnit.branchId })],
      ['GET', `/annotations?branchId=${foreignUnit.branchId}`],
    ] as [string, string, unknown?][])
      expectError(await call(method, back(path), { token: operator, body }), 403, 'AUTH002');
    expectError(await call('GET', back(`/voucherables/${id}`), { token: foreignOperator }), 403, 'AUTH002');
    expectError(await call('GET', back(`/voucherables/${id}`), { token: fleetOnly }), 403, 'AUTH002');
    expectError(await createTemplate({}, fleetOnly), 403, 'AUTH002');
    expectError(
      await call('GET', `/v1/${session.rival.tenant}/back/voucherables/${id}`, {
        token: session.rivalOperatorToken,
      }),
      404,
      'VA100',
    );
    expectError(await call('GET', back(`/voucherables/${id}`)), 401, 'JWT006');
  });

  test('hostile input answers 400 0022', async () => {
    const { id } = (await createTemplate()).body;
    const nul = 'a\u0000b';
    const cases: [string, string, unknown?][] = [
      ['GET', '/voucherables/0x1'],
      ['GET', '/voucherables/1e3'],
      ['GET', '/voucherables/0'],
      ['GET', '/voucherables/2147483648'],
      ['GET', '/voucherables?branchId=0x1'],
      ['GET', `/voucherables?branchId=${session.seed.branchId}&type=promotion`],
      ['GET', `/voucherables/by-code/${encodeURIComponent(nul)}`],
      ['POST', '/voucherables', template({ name: nul })],
      ['POST', '/voucherables', template({ name: '' })],
      ['POST', '/voucherables', template({ type: 'Coupon' })],
      ['POST', '/voucherables', template({ code: 'a b' })],
      ['POST', '/voucherables', template({ value: '0x1' })],
      ['POST', '/voucherables', template({ value: '1e3' })],
      ['POST', '/voucherables', template({ value: '-5' })],
      ['POST', '/voucherables', template({ value: 5 })],
      ['POST', '/voucherables', template({ benefits: [{ type: 'Discount', amount: 0.2 }] })],
      ['POST', '/voucherables', template({ benefits: [{ type: 'Cashback', amount: '1' }] })],
      ['POST', '/voucherables', template({ benefits: [{ type: 'Discount', amount: '0.2', extra: 1 }] })],
      ['POST', '/voucherables', template({ validUntil: '2026-02-30T00:00:00Z' })],
      ['POST', '/voucherables', template({ validUntil: 'tomorrow' })],
      ['POST', '/voucherables', template({ validityPeriod: 0, validityTimeUnit: 'DAYS' })],
      ['POST', '/voucherables', template({ validityTimeUnit: 'FORTNIGHTS', validityPeriod: 1 })],
      ['POST', '/voucherables', template({ applicableBranchIds: [1, 1] })],
      ['POST', '/voucherables', template({ applicableBranchIds: ['1'] })],
      ['POST', '/voucherables', template({ costSources: [{ group: 'FUEL' }] })],
      ['POST', '/voucherables', template({ weekdays: ['MON'] })],
      ['POST', '/voucherables', template({ branchId: '1' })],
      ['POST', '/voucherables', template({ extra: true })],
      ['POST', '/voucherables', []],
      ['PUT', `/voucherables/${id}`, { name: 'x' }],
      ['POST', '/annotations', { branchId: session.seed.branchId, type: 'BADGE', name: 'x' }],
      ['POST', '/annotations', { branchId: session.seed.branchId, type: 'TAG', name: nul }],
      ['POST', '/annotations', { branchId: session.seed.branchId, type: 'TAG', name: 'x', color: 'red' }],
      ['PUT', '/annotations/0x1/customers/1'],
    ];
    for (const [method, path, body] of cases) {
      const reply = await call(method, back(path), { token: operator, body });
      expect([method, path, reply.status, reply.body?.errorCode]).toEqual([method, path, 400, '0022']);
    }
  });
});

describe('annotations over HTTP', () => {
  test('create, list by type, rename, assign to customers; gates name only existing annotations', async () => {
    const branchId = session.seed.branchId;
    const name = `Riders ${freshCode()}`;
    const tag = await call('POST', back('/annotations'), {
      token: operator,
      body: { branchId, type: 'TAG', name, color: '#00aa11' },
    });
    expect(tag.status).toBe(201);
    expect(tag.body).toMatchObject({ type: 'TAG', name, businessUnitId: session.seed.businessUnitId });
    expectError(
      await call('POST', back('/annotations'), {
        token: operator,
        body: { branchId, type: 'TAG', name: name.toLowerCase() },
      }),
      409,
      'AN100',
    );
    const label = await call('POST', back('/annotations'), {
      token: operator,
      body: { branchId, type: 'LABEL', name },
    });
    expect(label.status).toBe(201);
    const tags = await call('GET', back(`/annotations?branchId=${branchId}&type=TAG`), { token: operator });
    expect(tags.body.map((row: { id: number }) => row.id)).toContain(tag.body.id);
    expect(tags.body.map((row: { id: number }) => row.id)).not.toContain(label.body.id);
    const renamed = await call('PUT', back(`/annotations/${tag.body.id}`), {
      token: operator,
      body: { name: 'University students' },
    });
    expect(renamed.body).toMatchObject({ name: 'University students', color: null });

    const customerId = await testCustomer(session);
    const assignPath = back(`/annotations/${tag.body.id}/customers/${customerId}`);
    expect((await call('PUT', assignPath, { token: operator })).status).toBe(204);
    expect((await call('PUT', assignPath, { token: operator })).status).toBe(204);
    const carriers = await call('GET', back(`/annotations/${tag.body.id}/customers`), { token: operator });
    expect(carriers.body).toEqual([expect.objectContaining({ guserId: customerId })]);
    expectError(
      await call('PUT', back(`/annotations/${tag.body.id}/customers/2147483000`), { token: operator }),
      404,
      'U106',
    );
    expect((await call('DELETE', assignPath, { token: operator })).status).toBe(204);
    expectError(await call('GET', back('/annotations/2147483000'), { token: operator }), 404, 'AN404');

    const gated = await createTemplate({
      guserRequiredAnnotationIds: [tag.body.id],
      guserProhibitedAnnotationIds: [label.body.id],
    });
    expect(gated.status).toBe(201);
    // An annotation of another business unit is unknown to this one.
    const foreignTag = await call('POST', back('/annotations'), {
      token: foreignOperator,
      body: { branchId: foreignUnit.branchId, type: 'TAG', name: 'Elsewhere' },
    });
    expectError(await createTemplate({ guserProhibitedAnnotationIds: [foreignTag.body.id] }), 404, 'VA113');
  });
});

describe('the grant API', () => {
  test('grants once per cause, credits Value once, cancels by cause', async () => {
    const created = await createTemplate({
      type: 'CustomerCare',
      benefits: [
        { type: 'Value', amount: '5.00' },
        { type: 'FreeMinutes', amount: '30', validityPeriod: 7, validityTimeUnit: 'DAYS' },
      ],
    });
    const voucherableId = created.body.id as number;
    const customerId = await testCustomer(session);
    const grant = (reference: string, validFrom = new Date()) =>
      inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
        grantVouchers(tx, {
          voucherableId,
          customerId,
          source: { kind: 'SUBSCRIPTION', reference },
          validFrom,
        }),
      );
    const [first, second] = await Promise.all([grant('sub:1:period-1'), grant('sub:1:period-1')]);
    expect(first).toHaveLength(2);
    expect(second).toEqual(first);
    const later = await grant('sub:1:period-2', new Date(Date.now() + 86_400_000));
    const em = session.em();
    const vouchers = await em.find(
      Voucher,
      { id: { $in: [...first, ...later] } },
      { orderBy: { id: 'asc' } },
    );
    expect(vouchers.map((voucher) => [voucher.benefitType, voucher.status])).toEqual([
      ['Value', 'USED_UP'],
      ['FreeMinutes', 'ACTIVE'],
      ['Value', 'PENDING'],
      ['FreeMinutes', 'PENDING'],
    ]);
    expect(vouchers[1]!.validUntil!.getTime() - vouchers[1]!.validFrom!.getTime()).toBe(7 * 86_400_000);
    const credits = await em.find(BalanceUpdate, {
      voucherId: { $in: vouchers.map((voucher) => voucher.id) },
    });
    expect(credits.map((row) => [row.kind, row.amount])).toEqual([['VOUCHER', '5.00']]);

    const canceled = await inTenantTransaction(session.backend.orm, session.seed.tenant, (tx) =>
      cancelVouchersOf(tx, { kind: 'SUBSCRIPTION', reference: 'sub:1:*' }),
    );
    expect(canceled).toBe(3);
    const after = await session
      .em()
      .find(Voucher, { id: { $in: vouchers.map((voucher) => voucher.id) } }, { orderBy: { id: 'asc' } });
    expect(after.map((voucher) => voucher.status)).toEqual(['USED_UP', 'CANCELED', 'CANCELED', 'CANCELED']);
  });
});
