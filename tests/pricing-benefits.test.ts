// Benefits in prices (domain/pricing-benefits.ts, pure): worked examples of each benefit type on an
// on-demand rental and a booking, several benefits stacked in their order, targeting by price type and
// cost source, penalties untouched, rounding and net-priced versions; fast-check properties that a benefit
// never makes a price negative, never raises it, keeps the totals the sums of the lines and never takes
// more from a voucher than it has.
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { bookingLines } from '../domain/pricing-booking.js';
import { onDemandRentalLines, priceOnDemandRental } from '../domain/pricing-on-demand.js';
import {
  benefitOrder,
  priceWithBenefits,
  type BenefitPricing,
  type PricingBenefit,
  type PricingSurcharge,
} from '../domain/pricing-benefits.js';
import { applicablePriceTypes, type ApplicablePriceType } from '../domain/benefits.js';
import type { BookingRules, OnDemandRules, PhaseSpan, PricedVersion, TaxContext } from '../domain/pricing.js';

const ref = { pricingBundleId: 1, pricingBundleVersionId: 7, version: 3, name: 'Test' };
const berlin: TaxContext = { taxPercentage: '19.00', scale: 2, currency: 'EUR', timeZoneId: 'Europe/Berlin' };

const onDemandRules: OnDemandRules = {
  unlockFee: '1.00',
  reservationPerMinute: '0.10',
  timeSlots: [
    { fromMinute: 0, drivingPerMinute: '0.30', parkingPerMinute: '0.10' },
    { fromMinute: 30, drivingPerMinute: '0.25', parkingPerMinute: '0.08' },
  ],
  distancePerUnit: '0.20',
  includedDistance: 5,
  billingIncrementMinutes: 1,
  minimumPrice: '0',
};

const onDemand = (pricesIncludeTax = true, overrides: Partial<OnDemandRules> = {}): PricedVersion => ({
  ref,
  bundleType: 'ON_DEMAND_LEGACY',
  currency: 'EUR',
  distanceUnit: 'KILOMETER',
  rules: {
    pricesIncludeTax,
    freeFloatingPricingMode: 'CUMULATIVE_TIMESLOTS',
    onDemand: { ...onDemandRules, ...overrides },
    booking: null,
  },
});

const bookingRules: BookingRules = {
  hourlyRate: '10.00',
  unlockFee: '0',
  distancePerUnit: '0.25',
  includedDistancePerDay: 100,
  nightRate: null,
  weekendHourlyRate: null,
  adaptiveRates: [{ minimumHours: 24, factor: '0.8' }],
  additions: [
    { code: 'CHILD_SEAT', name: 'Child seat', price: '5.00', per: 'DAY' },
    { code: 'INSURANCE', name: 'Full insurance', price: '15.00', per: 'BOOKING' },
  ],
  cancellation: { cancellable: true, freeUntilMinutesBefore: 1440, fee: '25.00' },
  lateReturn: { graceMinutes: 15, hourlyRate: '20.00' },
  billingIncrementMinutes: 15,
};

const bookingVersion: PricedVersion = {
  ref,
  bundleType: 'BOOKING',
  currency: 'EUR',
  distanceUnit: 'KILOMETER',
  rules: { pricesIncludeTax: true, freeFloatingPricingMode: null, onDemand: null, booking: bookingRules },
};

const MIN = 60_000;
const T0 = Date.parse('2026-11-18T09:00:00Z');

/** Phases laid end to end from T0, in minutes. */
function phases(...spans: [PhaseSpan['phase'], number][]): PhaseSpan[] {
  let at = T0;
  return spans.map(([phase, minutes]) => {
    const span = { phase, startMs: at, endMs: at + minutes * MIN };
    at = span.endMs;
    return span;
  });
}

/** 20 driving minutes (6.00), 10 parking minutes (1.00) and the unlock fee (1.00): 8.00. */
const ride = { phases: phases(['DRIVING', 20], ['PARKING', 10]), distance: '0' };

let nextId = 1;
const voucher = (benefit: Omit<PricingBenefit, 'voucherId' | 'name'> & { voucherId?: number }) =>
  ({ voucherId: nextId++, name: 'Offer', ...benefit }) as PricingBenefit;

function priceRide(benefits: PricingBenefit[], version = onDemand(), input = ride): BenefitPricing {
  return priceWithBenefits(version, berlin, onDemandRentalLines(version, input), benefits);
}

const total = (pricing: BenefitPricing) => pricing.result.price.total;
const benefitLines = (pricing: BenefitPricing) =>
  pricing.result.priceV4.lines
    .filter((line) => line.group === 'BENEFIT')
    .map((line) => [line.code.replace(/_V\d+$/, ''), line.gross]);

describe('each benefit type on an on-demand rental of 8.00', () => {
  test('without benefits the price is the engine’s', () => {
    const plain = priceRide([]);
    expect(total(plain)).toBe('8.00');
    expect(plain.result).toEqual(priceOnDemandRental(onDemand(), ride, berlin));
    expect(plain.applied).toEqual([]);
  });

  test('Discount: 20 % of the whole price; 50 % of the driving price only', () => {
    const whole = priceRide([voucher({ benefitType: 'Discount', discount: '0.2' })]);
    expect(total(whole)).toBe('6.40');
    expect(benefitLines(whole)).toEqual([['DISCOUNT', '-1.60']]);
    expect(whole.result.priceV4.lines.at(-1)).toMatchObject({
      group: 'BENEFIT',
      description: '20 % off (Offer)',
      quantity: '1.000',
      unit: 'PIECE',
    });
    const driving = priceRide([
      voucher({ benefitType: 'Discount', discount: '0.5', applicablePriceType: 'DRIVING_PRICE' }),
    ]);
    expect(total(driving)).toBe('5.00');
    // priceV3 shows the benefit as a line of its own group.
    expect(driving.result.priceV3.groups.at(-1)).toMatchObject({
      group: 'BENEFIT',
      amount: '-3.00',
      lines: [{ code: expect.stringMatching(/^DISCOUNT_V\d+$/), amount: '-3.00' }],
    });
  });

  test('RentalRebate: a fixed amount, never more than the price', () => {
    expect(total(priceRide([voucher({ benefitType: 'RentalRebate', rentalRebate: '5.00' })]))).toBe('3.00');
    const all = priceRide([voucher({ benefitType: 'RentalRebate', rentalRebate: '10.00' })]);
    expect(total(all)).toBe('0.00');
    expect(benefitLines(all)).toEqual([['REBATE', '-8.00']]);
    // A rebate of the unlock fee only.
    expect(
      total(
        priceRide([
          voucher({ benefitType: 'RentalRebate', rentalRebate: '5.00', applicablePriceType: 'UNLOCK_FEE' }),
        ]),
      ),
    ).toBe('7.00');
  });

  test('FreeUnlocks: the unlock fee, one unlock taken', () => {
    const pricing = priceRide([voucher({ benefitType: 'FreeUnlocks', remainingFreeUnlocks: 3 })]);
    expect(total(pricing)).toBe('7.00');
    expect(benefitLines(pricing)).toEqual([['FREE_UNLOCK', '-1.00']]);
    expect(pricing.applied[0]!.take).toEqual({ unlocks: 1 });
    // A reservation that never started has no unlock fee: nothing given, nothing taken.
    const reserved = priceRide(
      [voucher({ benefitType: 'FreeUnlocks', remainingFreeUnlocks: 3 })],
      onDemand(),
      {
        phases: phases(['RESERVATION_PAID', 5]),
        distance: '0',
      },
    );
    expect(total(reserved)).toBe('0.50');
    expect(reserved.applied).toEqual([]);
  });

  test('FreeMinutes: the dearest minutes first, whole minutes taken, never more than billed', () => {
    const fifteen = priceRide([voucher({ benefitType: 'FreeMinutes', remainingFreeMinutes: 15 })]);
    expect(total(fifteen)).toBe('3.50'); // 15 driving minutes at 0.30
    expect(fifteen.applied[0]!.take).toEqual({ minutes: 15 });
    expect(fifteen.result.priceV4.lines.at(-1)).toMatchObject({
      description: '15 free minutes (Offer)',
      quantity: '15.000',
      unit: 'MINUTE',
      unitPrice: '-0.30',
      gross: '-4.50',
    });
    const twentyFive = priceRide([voucher({ benefitType: 'FreeMinutes', remainingFreeMinutes: 25 })]);
    expect(total(twentyFive)).toBe('1.50'); // 20 driving (6.00) and 5 parking (0.50)
    const hundred = priceRide([voucher({ benefitType: 'FreeMinutes', remainingFreeMinutes: 100 })]);
    expect(total(hundred)).toBe('1.00'); // every billed minute; the unlock fee stays
    expect(hundred.applied[0]!.take).toEqual({ minutes: 30 });
    const parkingOnly = priceRide([
      voucher({
        benefitType: 'FreeMinutes',
        remainingFreeMinutes: 100,
        applicablePriceType: 'PARKING_PRICE',
      }),
    ]);
    expect(total(parkingOnly)).toBe('7.00');
    expect(parkingOnly.applied[0]!.take).toEqual({ minutes: 10 });
  });

  test('a counted voucher takes one rental; an exhausted one gives nothing', () => {
    const counted = priceRide([
      voucher({ benefitType: 'Discount', discount: '0.1', remainingNumberOfRentals: 2 }),
    ]);
    expect(counted.applied[0]!.take).toEqual({ rentals: 1 });
    expect(total(counted)).toBe('7.20');
    expect(
      priceRide([
        voucher({ benefitType: 'Discount', discount: '0.1', remainingNumberOfRentals: 0 }),
        voucher({ benefitType: 'FreeMinutes', remainingFreeMinutes: 0 }),
        voucher({ benefitType: 'FreeUnlocks', remainingFreeUnlocks: 0 }),
      ]).applied,
    ).toEqual([]);
  });

  test('benefits the price does not take: credit, package discounts, entitlements', () => {
    const pricing = priceRide([
      voucher({ benefitType: 'Value', remainingValueGross: '5.00' }),
      voucher({ benefitType: 'DiscountOnPackages', discount: '0.5' }),
      voucher({ benefitType: 'AdditionEntitlement' }),
    ]);
    expect(total(pricing)).toBe('8.00');
    expect(pricing.applied).toEqual([]);
  });

  test('a voucher with a remaining value gives at most that value and takes it', () => {
    const pricing = priceRide([
      voucher({ benefitType: 'RentalRebate', rentalRebate: '5.00', remainingValueGross: '2.50' }),
    ]);
    expect(total(pricing)).toBe('5.50');
    expect(pricing.applied[0]!.take).toEqual({ value: '2.50' });
  });
});

describe('several benefits stacked', () => {
  test('free unlock, 10 free minutes, 10 % off, 2.00 rebate: in that order', () => {
    const rebate = voucher({ benefitType: 'RentalRebate', rentalRebate: '2.00' });
    const discount = voucher({ benefitType: 'Discount', discount: '0.1' });
    const minutes = voucher({ benefitType: 'FreeMinutes', remainingFreeMinutes: 10 });
    const unlock = voucher({ benefitType: 'FreeUnlocks', remainingFreeUnlocks: 1 });
    const pricing = priceRide([rebate, discount, minutes, unlock]);
    // 8.00 − 1.00 (unlock) − 3.00 (10 driving minutes) = 4.00; − 10 % = 3.60; − 2.00 = 1.60.
    expect(benefitLines(pricing)).toEqual([
      ['FREE_UNLOCK', '-1.00'],
      ['FREE_MINUTES', '-3.00'],
      ['DISCOUNT', '-0.40'],
      ['REBATE', '-2.00'],
    ]);
    expect(total(pricing)).toBe('1.60');
    expect(pricing.applied.map((applied) => applied.voucherId)).toEqual([
      unlock.voucherId,
      minutes.voucherId,
      discount.voucherId,
      rebate.voucherId,
    ]);
  });

  test('targeted before broader: a cost source with a code, a group, a price type, none', () => {
    const broad = voucher({ benefitType: 'Discount', discount: '0.5' });
    const priceType = voucher({
      benefitType: 'Discount',
      discount: '0.5',
      applicablePriceType: 'TIME_PRICE',
    });
    const group = voucher({
      benefitType: 'RentalRebate',
      rentalRebate: '1.00',
      costSources: [{ group: 'RENTAL' }],
    });
    const coded = voucher({
      benefitType: 'RentalRebate',
      rentalRebate: '1.00',
      costSources: [{ group: 'RENTAL', code: 'UNLOCK_FEE' }],
    });
    expect(benefitOrder([broad, priceType, group, coded]).map((benefit) => benefit.voucherId)).toEqual([
      coded.voucherId,
      group.voucherId,
      priceType.voucherId,
      broad.voucherId,
    ]);
    const pricing = priceRide([broad, priceType, group, coded]);
    // Unlock 1.00 → 0; 1.00 off the rest (7.00, the driving line first) → 6.00 of time;
    // half the time → 3.00; half of what is left → 1.50.
    expect(benefitLines(pricing)).toEqual([
      ['REBATE', '-1.00'],
      ['REBATE', '-1.00'],
      ['DISCOUNT', '-3.00'],
      ['DISCOUNT', '-1.50'],
    ]);
    expect(total(pricing)).toBe('1.50');
  });

  test('same breadth and type: the voucher expiring first', () => {
    const later = voucher({ benefitType: 'RentalRebate', rentalRebate: '6.00', validUntilMs: T0 + 9 * MIN });
    const sooner = voucher({ benefitType: 'RentalRebate', rentalRebate: '6.00', validUntilMs: T0 + MIN });
    const endless = voucher({ benefitType: 'RentalRebate', rentalRebate: '6.00' });
    const pricing = priceRide([endless, later, sooner]);
    expect(pricing.applied.map((applied) => [applied.voucherId, applied.amount])).toEqual([
      [sooner.voucherId, '6.00'],
      [later.voucherId, '2.00'],
    ]);
    expect(total(pricing)).toBe('0.00');
  });

  test('cost sources on a booking: an addition by its code; penalties are never reduced', () => {
    const window = {
      startMs: T0,
      endMs: T0 + 4 * 60 * MIN,
      distance: '0',
      additions: ['CHILD_SEAT', 'INSURANCE'],
    };
    const lines = bookingLines(bookingVersion, window, berlin);
    // 4 hours (40.00) + child seat (5.00) + insurance (15.00) = 60.00.
    const seat = voucher({
      benefitType: 'Discount',
      discount: '1',
      costSources: [{ group: 'ADDITION', code: 'child_seat' }],
    });
    const additions = voucher({
      benefitType: 'RentalRebate',
      rentalRebate: '100.00',
      costSources: [{ group: 'ADDITION' }],
    });
    const withSeat = priceWithBenefits(bookingVersion, berlin, lines, [seat]);
    expect(total(withSeat)).toBe('55.00');
    const withAdditions = priceWithBenefits(bookingVersion, berlin, lines, [seat, additions]);
    expect(benefitLines(withAdditions)).toEqual([
      ['DISCOUNT', '-5.00'],
      ['REBATE', '-15.00'],
    ]);
    expect(total(withAdditions)).toBe('40.00');
    // Returned an hour late: 20.00 late-return penalty that a 100 % discount leaves standing.
    const late = bookingLines(bookingVersion, { ...window, returnedAtMs: window.endMs + 60 * MIN }, berlin);
    const free = priceWithBenefits(bookingVersion, berlin, late, [
      voucher({ benefitType: 'Discount', discount: '1' }),
    ]);
    expect(total(free)).toBe('20.00');
  });

  test('free minutes on a booking’s hours, and a rebate beyond a price with an adaptive discount', () => {
    const day = { startMs: T0, endMs: T0 + 24 * 60 * MIN, distance: '0', additions: [] };
    const lines = bookingLines(bookingVersion, day, berlin);
    // 24 hours at 10.00 = 240.00, adaptive ×0.8: −48.00 → 192.00.
    const minutes = priceWithBenefits(bookingVersion, berlin, lines, [
      voucher({ benefitType: 'FreeMinutes', remainingFreeMinutes: 90 }),
    ]);
    // 90 minutes of what is left of the time per minute: 240.00 / 1440 × 90 = 15.00.
    expect(benefitLines(minutes)).toEqual([['FREE_MINUTES', '-15.00']]);
    expect(total(minutes)).toBe('177.00');
    const rebate = priceWithBenefits(bookingVersion, berlin, lines, [
      voucher({ benefitType: 'RentalRebate', rentalRebate: '500.00', applicablePriceType: 'TIME_PRICE' }),
    ]);
    expect(benefitLines(rebate)).toEqual([['REBATE', '-192.00']]);
    expect(total(rebate)).toBe('0.00');
  });
});

describe('tax and rounding', () => {
  test('a reduction is rounded half-up once, to the business unit’s scale', () => {
    const third = priceRide([voucher({ benefitType: 'Discount', discount: '0.333333' })]);
    expect(benefitLines(third)).toEqual([['DISCOUNT', '-2.67']]); // 8.00 × 0.333333 = 2.666664
    expect(total(third)).toBe('5.33');
    const coarse = priceWithBenefits(
      onDemand(),
      { ...berlin, scale: 1 },
      onDemandRentalLines(onDemand(), ride),
      [voucher({ benefitType: 'Discount', discount: '0.33' })],
    );
    expect(benefitLines(coarse)).toEqual([['DISCOUNT', '-2.60']]); // 2.64 → 2.6
  });

  test('net-priced versions: a gross rebate counts its net, the tax follows the reduced total', () => {
    const net = onDemand(false);
    const pricing = priceRide([voucher({ benefitType: 'RentalRebate', rentalRebate: '1.19' })], net);
    // 8.00 net − 1.00 net = 7.00 net; 19 % tax 1.33; gross 8.33.
    expect(pricing.result.priceV4.totals).toEqual({ net: '7.00', tax: '1.33', gross: '8.33' });
    expect(pricing.applied[0]!.amount).toBe('1.00');
    expect(pricing.result.priceV4.lines.at(-1)).toMatchObject({ net: '-1.00', gross: '-1.19' });
  });

  test('a minimum price is topped up before benefits, which may then go below it', () => {
    const version = onDemand(true, { minimumPrice: '3.00' });
    const short = { phases: phases(['DRIVING', 2]), distance: '0' }; // 0.60 + 1.00, topped up to 3.00
    const pricing = priceRide(
      [voucher({ benefitType: 'FreeUnlocks', remainingFreeUnlocks: 1 })],
      version,
      short,
    );
    expect(total(pricing)).toBe('2.00');
  });
});

describe('geofence surcharges', () => {
  const surcharge = (fields: Omit<PricingSurcharge, 'voucherId' | 'name'>) =>
    ({ voucherId: nextId++, name: 'Night zone', ...fields }) as PricingSurcharge;
  const surchargeLines = (pricing: BenefitPricing) =>
    pricing.result.priceV4.lines
      .filter((line) => line.group === 'SURCHARGE')
      .map((line) => [line.code.replace(/_V\d+$/, ''), line.gross, line.description]);

  test('a fixed amount and a fraction of the lines it targets, each its own line', () => {
    const lines = onDemandRentalLines(onDemand(), ride);
    const fixed = priceWithBenefits(onDemand(), berlin, lines, [], [surcharge({ amount: '1.50' })]);
    expect(total(fixed)).toBe('9.50');
    expect(surchargeLines(fixed)).toEqual([['SURCHARGE', '1.50', 'Surcharge (Night zone)']]);
    expect(fixed.result.priceV3.groups.map((group) => group.group)).toContain('SURCHARGE');
    // 10 % of the driving price (6.00).
    const share = priceWithBenefits(
      onDemand(),
      berlin,
      lines,
      [],
      [surcharge({ fraction: '0.1', applicablePriceType: 'DRIVING_PRICE' })],
    );
    expect(surchargeLines(share)).toEqual([['SURCHARGE', '0.60', '10 % surcharge (Night zone)']]);
    expect(total(share)).toBe('8.60');
    // Net-priced versions: a gross amount counts its net, the tax follows.
    const net = priceWithBenefits(onDemand(false), berlin, lines, [], [surcharge({ amount: '1.19' })]);
    expect(net.result.priceV4.lines.find((line) => line.group === 'SURCHARGE')).toMatchObject({
      net: '1.00',
      gross: '1.19',
    });
  });

  test('broad benefits leave a surcharge alone; a benefit naming the SURCHARGE group takes it', () => {
    const lines = onDemandRentalLines(onDemand(), ride);
    const charged = [surcharge({ amount: '2.00' })];
    const all = priceWithBenefits(
      onDemand(),
      berlin,
      lines,
      [voucher({ benefitType: 'Discount', discount: '1' })],
      charged,
    );
    expect(total(all)).toBe('2.00');
    const waived = priceWithBenefits(
      onDemand(),
      berlin,
      lines,
      [voucher({ benefitType: 'Discount', discount: '1', costSources: [{ group: 'SURCHARGE' }] })],
      charged,
    );
    expect(total(waived)).toBe('8.00');
    expect(benefitLines(waived)).toEqual([['DISCOUNT', '-2.00']]);
  });

  test('a surcharge on an empty price, a zero surcharge: no line for nothing', () => {
    const none = priceWithBenefits(onDemand(), berlin, [], [], [surcharge({ fraction: '0.5' })]);
    expect(none.result.priceV4.lines).toEqual([]);
    const zero = priceWithBenefits(onDemand(), berlin, [], [], [surcharge({ amount: '0' })]);
    expect(zero.result.price.total).toBe('0.00');
  });
});

describe('properties', () => {
  const cents = (max: number) =>
    fc.integer({ min: 0, max }).map((value) => new Decimal(value).div(100).toFixed(2));
  const priceType = fc.option(fc.constantFrom(...applicablePriceTypes) as fc.Arbitrary<ApplicablePriceType>, {
    nil: null,
  });
  const costSources = fc.option(
    fc.array(
      fc.record({
        group: fc.constantFrom('RENTAL', 'ADDITION', 'SURCHARGE') as fc.Arbitrary<
          'RENTAL' | 'ADDITION' | 'SURCHARGE'
        >,
        code: fc.option(fc.constantFrom('UNLOCK_FEE', 'DISTANCE', 'CHILD_SEAT', 'DRIVING_SLOT_1'), {
          nil: null,
        }),
      }),
      { minLength: 1, maxLength: 2 },
    ),
    { nil: null },
  );
  const benefit: fc.Arbitrary<PricingBenefit> = fc
    .record({
      voucherId: fc.integer({ min: 1, max: 1_000_000 }),
      benefitType: fc.constantFrom(
        'Discount',
        'RentalRebate',
        'FreeMinutes',
        'FreeUnlocks',
        'Value',
      ) as fc.Arbitrary<PricingBenefit['benefitType']>,
      discount: fc
        .integer({ min: 1, max: 1_000_000 })
        .map((value) => new Decimal(value).div(1_000_000).toString()),
      rentalRebate: cents(5_000).filter((value) => value !== '0.00'),
      remainingFreeMinutes: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
      remainingFreeUnlocks: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      remainingNumberOfRentals: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      remainingValueGross: fc.option(cents(3_000), { nil: null }),
      applicablePriceType: priceType,
      costSources,
      validUntilMs: fc.option(fc.integer({ min: T0, max: T0 + 1e9 }), { nil: null }),
    })
    .map((fields) => ({ ...fields, name: 'Generated' }));
  const benefits = fc.uniqueArray(benefit, { maxLength: 6, selector: (value) => value.voucherId });
  const onDemandUsage = fc.record({
    spans: fc.array(
      fc.tuple(
        fc.constantFrom('RESERVATION_PAID', 'DRIVING', 'PARKING') as fc.Arbitrary<PhaseSpan['phase']>,
        fc.integer({ min: 0, max: 4 * 3600 }),
      ),
      { maxLength: 5 },
    ),
    distance: fc.integer({ min: 0, max: 100_000 }).map((metres) => new Decimal(metres).div(1000).toString()),
    pricesIncludeTax: fc.boolean(),
    minimumPrice: cents(500),
    scale: fc.integer({ min: 0, max: 2 }),
  });

  function checkPricing(plain: string, pricing: BenefitPricing, given: readonly PricingBenefit[]) {
    const gross = new Decimal(pricing.result.priceV4.totals.gross);
    // Never negative, never more than without benefits.
    expect(gross.gte(0)).toBe(true);
    expect(gross.lte(plain)).toBe(true);
    // The totals are still the sums of the lines; benefit lines only reduce.
    const sum = pricing.result.priceV4.lines.reduce((acc, line) => acc.plus(line.gross), new Decimal(0));
    expect(sum.eq(gross)).toBe(true);
    for (const line of pricing.result.priceV4.lines.filter((line) => line.group === 'BENEFIT'))
      expect(new Decimal(line.gross).lte(0)).toBe(true);
    // A voucher gives once and never more than it has.
    expect(new Set(pricing.applied.map((applied) => applied.voucherId)).size).toBe(pricing.applied.length);
    for (const applied of pricing.applied) {
      const source = given.find((candidate) => candidate.voucherId === applied.voucherId)!;
      expect(new Decimal(applied.amount).gt(0)).toBe(true);
      if (applied.take.minutes !== undefined)
        expect(applied.take.minutes).toBeLessThanOrEqual(source.remainingFreeMinutes ?? 0);
      if (applied.take.unlocks !== undefined)
        expect(applied.take.unlocks).toBeLessThanOrEqual(source.remainingFreeUnlocks ?? 1);
      if (source.remainingNumberOfRentals != null) expect(source.remainingNumberOfRentals).toBeGreaterThan(0);
      if (applied.take.value !== undefined)
        expect(new Decimal(applied.take.value).lte(source.remainingValueGross!)).toBe(true);
    }
  }

  test('on-demand rentals: never negative, never raised, lines still sum, vouchers never overdrawn', () => {
    fc.assert(
      fc.property(onDemandUsage, benefits, (usage, given) => {
        const version = onDemand(usage.pricesIncludeTax, { minimumPrice: usage.minimumPrice });
        const tax = { ...berlin, scale: usage.scale };
        let at = T0;
        const spans = usage.spans.map(([phase, seconds]) => {
          const span = { phase, startMs: at, endMs: at + seconds * 1000 };
          at = span.endMs;
          return span;
        });
        const lines = onDemandRentalLines(version, { phases: spans, distance: usage.distance });
        const plain = priceWithBenefits(version, tax, lines, []).result.priceV4.totals.gross;
        checkPricing(plain, priceWithBenefits(version, tax, lines, given), given);
      }),
      { numRuns: 400 },
    );
  });

  test('bookings (adaptive discounts, additions, late returns): the same', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 96 * 4 }),
        fc.integer({ min: 0, max: 8 * 4 }),
        fc.subarray(['CHILD_SEAT', 'INSURANCE']),
        benefits,
        (quarters, lateQuarters, additions, given) => {
          const window = { startMs: T0, endMs: T0 + quarters * 15 * MIN, distance: '120', additions };
          const lines = bookingLines(
            bookingVersion,
            { ...window, returnedAtMs: window.endMs + lateQuarters * 15 * MIN },
            berlin,
          );
          const plain = priceWithBenefits(bookingVersion, berlin, lines, []).result.priceV4.totals.gross;
          checkPricing(plain, priceWithBenefits(bookingVersion, berlin, lines, given), given);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('with surcharges: never negative, benefits never raise it, surcharges never lower it', () => {
    const surcharges = fc.array(
      fc.record({
        voucherId: fc.integer({ min: 2_000_000, max: 3_000_000 }),
        name: fc.constant('Zone'),
        amount: fc.option(cents(500), { nil: null }),
        fraction: fc.option(
          fc.integer({ min: 1, max: 100 }).map((value) => new Decimal(value).div(100).toString()),
          { nil: null },
        ),
        applicablePriceType: priceType,
      }),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(onDemandUsage, benefits, surcharges, (usage, given, charged) => {
        const version = onDemand(usage.pricesIncludeTax, { minimumPrice: usage.minimumPrice });
        const tax = { ...berlin, scale: usage.scale };
        let at = T0;
        const spans = usage.spans.map(([phase, seconds]) => {
          const span = { phase, startMs: at, endMs: at + seconds * 1000 };
          at = span.endMs;
          return span;
        });
        const lines = onDemandRentalLines(version, { phases: spans, distance: usage.distance });
        const bare = new Decimal(priceWithBenefits(version, tax, lines, []).result.priceV4.totals.gross);
        const plain = priceWithBenefits(version, tax, lines, [], charged).result.priceV4.totals.gross;
        expect(new Decimal(plain).gte(bare)).toBe(true);
        for (const line of priceWithBenefits(version, tax, lines, [], charged).result.priceV4.lines.filter(
          (candidate) => candidate.group === 'SURCHARGE',
        ))
          expect(new Decimal(line.gross).gt(0)).toBe(true);
        checkPricing(plain, priceWithBenefits(version, tax, lines, given, charged), given);
      }),
      { numRuns: 300 },
    );
  });

  test('adding a benefit never raises the price', () => {
    fc.assert(
      fc.property(benefits, benefit, (given, extra) => {
        fc.pre(!given.some((candidate) => candidate.voucherId === extra.voucherId));
        const lines = onDemandRentalLines(onDemand(), ride);
        const before = new Decimal(priceWithBenefits(onDemand(), berlin, lines, given).result.price.total);
        const after = new Decimal(
          priceWithBenefits(onDemand(), berlin, lines, [...given, extra]).result.price.total,
        );
        // Order rules may give the extra voucher an earlier turn, but it only ever takes away.
        expect(after.lte(before)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
