// Prices shown before the end take the customer's vouchers, read only (docs/benefits.md, "Estimates"): a
// booking's price at creation, update and extension and its extension estimate show the customer's
// applicable vouchers as BENEFIT lines and take nothing from them; the app's calculators and simulator show
// a signed-in customer's vouchers, never another customer's, and none for an app client without a customer.
import { Decimal } from 'decimal.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { Voucher } from '../db/entities/Voucher.js';
import { VoucherConsumption } from '../db/entities/VoucherConsumption.js';
import { inTenantTransaction } from '../db/orm.js';
import { grantVouchersTo, type VoucherOwner } from '../db/voucher-grants.js';
import type { Benefit } from '../domain/benefits.js';
import type { PriceResult } from '../domain/pricing.js';
import { type CallOptions, type Reply } from './support/http.js';
import { testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);

beforeAll(async () => {
  session = await startSession();
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

let grants = 0;

/** Grants an ACTIVE CustomerCare template's vouchers (these benefits) to an owner from an hour ago. */
async function grant(owner: VoucherOwner, benefits: Benefit[]): Promise<Voucher[]> {
  const created = await call('POST', back('/voucherables'), {
    token: session.operatorToken,
    body: { branchId: session.seed.branchId, type: 'CustomerCare', name: 'Goodwill', benefits },
  });
  expect([created.status, created.body.errorCode]).toEqual([201, undefined]);
  await call('POST', back(`/voucherables/${created.body.id}/activate`), { token: session.operatorToken });
  return inTenantTransaction(session.stack.backend.orm, session.seed.tenant, (tx) =>
    grantVouchersTo(tx, {
      voucherableId: created.body.id,
      owner,
      source: { kind: 'OPERATOR', reference: `benefits-estimates:${grants++}` },
      validFrom: new Date(Date.now() - 3_600_000),
    }),
  );
}

const benefitLines = (price: PriceResult['priceV4']) =>
  price.lines.filter((line) => line.group === 'BENEFIT').map((line) => [line.code, line.gross]);
const timeGross = (price: PriceResult['priceV4']) =>
  price.lines
    .filter((line) => line.group === 'TIME')
    .reduce((sum, line) => sum.plus(line.gross), new Decimal(0));
const half = (amount: Decimal) => amount.times('0.5').toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

describe('a booking’s prices before the end', () => {
  test('creation, extension estimate and extension show the vouchers and take nothing', async () => {
    const customer = await testCustomer(session, { token: 'pm_card_visa' });
    const token = await session.customerToken(customer);
    const [time] = await grant({ customerId: customer }, [
      { type: 'Discount', amount: '0.5', applicablePriceType: 'TIME_PRICE' },
    ]);
    const station = session.seed.bookingStationIds[0]!;
    const car = await session.em().findOneOrFail(Vehicle, { branch: station });
    const start = Date.now() + 3 * 3_600_000;
    const made = await call('POST', front('/bookings'), {
      token,
      body: {
        branchId: station,
        vehicleCategoryId: car.category.id,
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + 2 * 3_600_000).toISOString(),
      },
    });
    expect([made.status, made.body.errorCode]).toEqual([201, undefined]);
    const id: number = made.body.id;
    const created = (await call('GET', front(`/bookings/${id}`), { token })).body;
    const createdV4 = created.priceV4 as PriceResult['priceV4'];
    expect(benefitLines(createdV4)).toEqual([
      [`DISCOUNT_V${time!.id}`, half(timeGross(createdV4)).negated().toFixed(2)],
    ]);
    expect(created.price.total).toBe(createdV4.totals.gross);

    // The extension estimate: the longer window with the same voucher.
    const newEnd = new Date(start + 3 * 3_600_000).toISOString();
    const estimate = await call(
      'GET',
      front(`/bookings/${id}/estimate-extension?endTime=${encodeURIComponent(newEnd)}`),
      { token },
    );
    expect([estimate.status, estimate.body.errorCode]).toEqual([200, undefined]);
    const estimatedV4 = estimate.body.estimatedPrice as PriceResult['priceV4'];
    expect(benefitLines(estimatedV4)).toEqual([
      [`DISCOUNT_V${time!.id}`, half(timeGross(estimatedV4)).negated().toFixed(2)],
    ]);
    expect(estimate.body.additionalCost).toBe(
      new Decimal(estimatedV4.totals.gross).minus(created.price.total).toFixed(2),
    );

    // The extension itself: the booking's price is that estimate.
    const extended = await call('POST', front(`/bookings/${id}/extend`), {
      token,
      body: { endTime: newEnd },
    });
    expect([extended.status, extended.body.errorCode]).toEqual([200, undefined]);
    const after = (await call('GET', front(`/bookings/${id}`), { token })).body;
    expect(after.priceV4).toEqual(estimatedV4);

    // Nothing was taken: no consumption, the voucher ACTIVE and whole.
    expect(await session.em().count(VoucherConsumption, { voucher: time!.id })).toBe(0);
    const voucher = await session.em().findOneOrFail(Voucher, time!.id, { refresh: true });
    expect(voucher.status).toBe('ACTIVE');
  }, 60_000);
});

describe('the app’s calculators', () => {
  test('a signed-in customer sees their vouchers; another customer and an app client do not', async () => {
    const [anna, ben] = session.seed.customerIds as [number, number];
    const [rebate] = await grant({ customerId: ben }, [{ type: 'RentalRebate', amount: '1.00' }]);
    const benToken = await session.customerToken(ben);
    const annaToken = await session.customerToken(anna);
    const scooters = (
      await session
        .em()
        .find(Vehicle, { branch: { $ne: null } }, { populate: ['category'], orderBy: { id: 'asc' } })
    ).find((vehicle) => vehicle.category.name === 'E-Scooter')!;
    const calculator = `/pricing-bundles/pricing-calculator?branchId=${session.seed.branchId}&vehicleCategoryId=${scooters.category.id}&drivingMinutes=20`;
    const asBen = await call('GET', front(calculator), { token: benToken });
    expect([asBen.status, asBen.body.errorCode]).toEqual([200, undefined]);
    expect(benefitLines(asBen.body.priceV4)).toEqual([[`REBATE_V${rebate!.id}`, '-1.00']]);
    const bare = await call('GET', front(calculator), { token: session.appClientToken });
    expect(bare.status).toBe(200);
    expect(benefitLines(bare.body.priceV4)).toEqual([]);
    expect(new Decimal(bare.body.priceV4.totals.gross).minus('1.00').toFixed(2)).toBe(
      asBen.body.priceV4.totals.gross,
    );
    const asAnna = await call('GET', front(calculator), { token: annaToken });
    expect(benefitLines(asAnna.body.priceV4).map(([code]) => code)).not.toContain(`REBATE_V${rebate!.id}`);

    // The simulator (on-demand) and the booking calculator, for the same customer.
    const simulated = await call(
      'GET',
      front(
        `/pricing-bundles/pricing-simulator?branchId=${session.seed.branchId}&vehicleCategoryId=${scooters.category.id}&drivingMinutes=10`,
      ),
      { token: benToken },
    );
    expect([simulated.status, simulated.body.errorCode]).toEqual([200, undefined]);
    expect(benefitLines(simulated.body.priceV4)).toEqual([[`REBATE_V${rebate!.id}`, '-1.00']]);
    const station = session.seed.bookingStationIds[0]!;
    const car = await session.em().findOneOrFail(Vehicle, { branch: station });
    const start = new Date(Date.now() + 86_400_000);
    const booking = await call(
      'GET',
      front(
        `/booking-price-calculator?branchId=${station}&vehicleCategoryId=${car.category.id}&startTime=${encodeURIComponent(start.toISOString())}&endTime=${encodeURIComponent(new Date(start.getTime() + 3_600_000).toISOString())}`,
      ),
      { token: benToken },
    );
    expect([booking.status, booking.body.errorCode]).toEqual([200, undefined]);
    expect(benefitLines(booking.body.priceV4)).toEqual([[`REBATE_V${rebate!.id}`, '-1.00']]);
    // Estimates take nothing.
    expect(await session.em().count(VoucherConsumption, { voucher: rebate!.id })).toBe(0);
  });
});
