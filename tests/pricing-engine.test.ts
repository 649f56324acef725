// The price engine alone (domain/pricing.ts): worked examples per mode at slot boundaries, across
// midnight, weekends and a DST change, with tax and rounding; property tests for monotonicity and sums.
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { applicableVersion } from '../domain/pricing-versions.js';
import { bookingCancellation } from '../domain/pricing-fees.js';
import { priceBooking } from '../domain/pricing-booking.js';
import { priceOnDemandRental } from '../domain/pricing-on-demand.js';
import { validatePricingRules } from '../domain/pricing-validation.js';
import type {
  BookingRules,
  FreeFloatingPricingMode,
  OnDemandRules,
  PhaseSpan,
  PricedVersion,
  PriceResult,
  TaxContext,
} from '../domain/pricing.js';
import { DomainError } from '../domain/errors.js';

const MIN = 60_000;
const ref = { pricingBundleId: 1, pricingBundleVersionId: 7, version: 3, name: 'Test' };
const berlin: TaxContext = { taxPercentage: '19.00', scale: 2, currency: 'EUR', timeZoneId: 'Europe/Berlin' };

const onDemandRules: OnDemandRules = {
  unlockFee: '1.00',
  reservationPerMinute: '0.10',
  timeSlots: [
    { fromMinute: 0, drivingPerMinute: '0.30', parkingPerMinute: '0.10' },
    { fromMinute: 30, drivingPerMinute: '0.25', parkingPerMinute: '0.08' },
    { fromMinute: 120, drivingPerMinute: '0.20', parkingPerMinute: '0.05' },
  ],
  distancePerUnit: '0',
  includedDistance: 0,
  billingIncrementMinutes: 1,
  minimumPrice: '0',
};

function onDemand(
  mode: FreeFloatingPricingMode,
  overrides: Partial<OnDemandRules> = {},
  pricesIncludeTax = true,
): PricedVersion {
  return {
    ref,
    bundleType: 'ON_DEMAND_LEGACY',
    currency: 'EUR',
    distanceUnit: 'KILOMETER',
    rules: {
      pricesIncludeTax,
      freeFloatingPricingMode: mode,
      onDemand: { ...onDemandRules, ...overrides },
      booking: null,
    },
  };
}

const bookingRules: BookingRules = {
  hourlyRate: '10.00',
  unlockFee: '0',
  distancePerUnit: '0.25',
  includedDistancePerDay: 100,
  nightRate: { startLocalTime: '22:00', endLocalTime: '06:00', hourlyRate: '4.00' },
  weekendHourlyRate: '12.00',
  adaptiveRates: [{ minimumHours: 24, factor: '0.8' }],
  additions: [
    { code: 'CHILD_SEAT', name: 'Child seat', price: '5.00', per: 'DAY' },
    { code: 'INSURANCE', name: 'Full insurance', price: '15.00', per: 'BOOKING' },
  ],
  cancellation: { cancellable: true, freeUntilMinutesBefore: 1440, fee: '25.00' },
  lateReturn: { graceMinutes: 15, hourlyRate: '20.00' },
  billingIncrementMinutes: 15,
};

const booking: PricedVersion = {
  ref,
  bundleType: 'BOOKING',
  currency: 'EUR',
  distanceUnit: 'KILOMETER',
  rules: { pricesIncludeTax: true, freeFloatingPricingMode: null, onDemand: null, booking: bookingRules },
};

/** Phases laid end to end from a fixed start, durations in seconds. */
function phases(...spans: [PhaseSpan['phase'], number][]): PhaseSpan[] {
  let at = Date.parse('2026-11-18T09:00:00Z');
  return spans.map(([phase, seconds]) => {
    const span = { phase, startMs: at, endMs: at + seconds * 1000 };
    at = span.endMs;
    return span;
  });
}

const total = (result: PriceResult) => result.price.total;

describe('on-demand worked examples (prices include 19% tax, scale 2)', () => {
  const table: [string, FreeFloatingPricingMode, PhaseSpan[], string][] = [
    ['ENDING: 30 min driving is still the first slot', 'ENDING_TIMESLOT', phases(['DRIVING', 1800]), '10.00'],
    [
      'ENDING: 30 min 1 s bills 31 min, all at the second slot',
      'ENDING_TIMESLOT',
      phases(['DRIVING', 1801]),
      '8.75',
    ],
    [
      'ENDING: 20 driving + 15 parking at the second slot',
      'ENDING_TIMESLOT',
      phases(['DRIVING', 1200], ['PARKING', 900]),
      '7.20',
    ],
    [
      'ENDING: 120 min is the second slot, 121 the third',
      'ENDING_TIMESLOT',
      phases(['DRIVING', 7200]),
      '31.00',
    ],
    ['ENDING: 121 min at the third slot', 'ENDING_TIMESLOT', phases(['DRIVING', 7260]), '25.20'],
    ['CUMULATIVE: 30 min driving', 'CUMULATIVE_TIMESLOTS', phases(['DRIVING', 1800]), '10.00'],
    [
      'CUMULATIVE: 31 min driving crosses into the second slot',
      'CUMULATIVE_TIMESLOTS',
      phases(['DRIVING', 1860]),
      '10.25',
    ],
    [
      'CUMULATIVE: parking crosses the slot boundary',
      'CUMULATIVE_TIMESLOTS',
      phases(['DRIVING', 1200], ['PARKING', 900]),
      '8.40',
    ],
    ['CUMULATIVE: 130 min through three slots', 'CUMULATIVE_TIMESLOTS', phases(['DRIVING', 7800]), '34.50'],
    [
      'CUMULATIVE: free and paid reservation before driving (paid rounded up to the minute)',
      'CUMULATIVE_TIMESLOTS',
      phases(['RESERVATION_FREE', 900], ['RESERVATION_PAID', 330], ['DRIVING', 600]),
      '4.60',
    ],
    [
      'a reservation that never starts has no unlock fee',
      'ENDING_TIMESLOT',
      phases(['RESERVATION_PAID', 300]),
      '0.50',
    ],
  ];
  test.each(table)('%s', (_name, mode, spans, expected) => {
    expect(total(priceOnDemandRental(onDemand(mode), { phases: spans, distance: '0' }, berlin))).toBe(
      expected,
    );
  });

  test('tax split of a gross price: each line rounded once, totals are sums', () => {
    const result = priceOnDemandRental(
      onDemand('ENDING_TIMESLOT'),
      { phases: phases(['DRIVING', 1800]), distance: '0' },
      berlin,
    );
    expect(result.priceV4.lines.map((l) => [l.code, l.net, l.tax, l.gross])).toEqual([
      ['DRIVING_SLOT_1', '7.56', '1.44', '9.00'],
      ['UNLOCK_FEE', '0.84', '0.16', '1.00'],
    ]);
    expect(result.priceV4.totals).toEqual({ net: '8.40', tax: '1.60', gross: '10.00' });
    expect(result.priceV3).toMatchObject({ total: '10.00', taxAmount: '1.60', taxPercentage: '19.00' });
    expect(result.priceV3.groups.map((g) => [g.group, g.amount])).toEqual([
      ['TIME', '9.00'],
      ['UNLOCK', '1.00'],
    ]);
    expect(result.price.pricingBundleVersion).toEqual(ref);
  });

  test('net prices get tax added per line', () => {
    const result = priceOnDemandRental(
      onDemand('CUMULATIVE_TIMESLOTS', {}, false),
      { phases: phases(['DRIVING', 600]), distance: '0' },
      berlin,
    );
    expect(result.priceV4.totals).toEqual({ net: '4.00', tax: '0.76', gross: '4.76' });
  });

  test('half-up rounding to the unit scale, including scale 0', () => {
    const rules = {
      timeSlots: [{ fromMinute: 0, drivingPerMinute: '0.333333', parkingPerMinute: '0' }],
      unlockFee: '0',
    };
    const spans = phases(['DRIVING', 420]);
    expect(
      total(
        priceOnDemandRental(onDemand('ENDING_TIMESLOT', rules), { phases: spans, distance: '0' }, berlin),
      ),
    ).toBe('2.33');
    const yen = { ...berlin, scale: 0, currency: 'JPY' };
    expect(
      total(
        priceOnDemandRental(
          onDemand('ENDING_TIMESLOT', rules),
          { phases: phases(['DRIVING', 90]), distance: '0' },
          yen,
        ),
      ),
    ).toBe('1');
    const half = {
      timeSlots: [{ fromMinute: 0, drivingPerMinute: '0.005', parkingPerMinute: '0' }],
      unlockFee: '0',
    };
    expect(
      total(
        priceOnDemandRental(
          onDemand('ENDING_TIMESLOT', half),
          { phases: phases(['DRIVING', 60]), distance: '0' },
          berlin,
        ),
      ),
    ).toBe('0.01');
  });

  test('billing increment rounds each phase up; minimum price tops up; distance beyond the allowance', () => {
    const version = onDemand('CUMULATIVE_TIMESLOTS', {
      billingIncrementMinutes: 5,
      minimumPrice: '5.00',
      distancePerUnit: '0.20',
      includedDistance: 10,
    });
    const short = priceOnDemandRental(version, { phases: phases(['DRIVING', 60]), distance: '0' }, berlin);
    expect(short.priceV4.lines.map((l) => [l.code, l.quantity, l.gross])).toEqual([
      ['DRIVING_SLOT_1', '5.000', '1.50'],
      ['UNLOCK_FEE', '1.000', '1.00'],
      ['MINIMUM_PRICE', '1.000', '2.50'],
    ]);
    const far = priceOnDemandRental(version, { phases: phases(['DRIVING', 1500]), distance: '25.5' }, berlin);
    expect(far.priceV4.lines.find((l) => l.code === 'DISTANCE')).toMatchObject({
      quantity: '15.500',
      gross: '3.10',
    });
    expect(total(far)).toBe('11.60');
  });

  test('refusals: booking bundles, reversed or overlapping phases, bad distance', () => {
    const version = onDemand('ENDING_TIMESLOT');
    const code = (work: () => unknown) => {
      try {
        work();
      } catch (error) {
        return (error as DomainError).code;
      }
      return 'none';
    };
    expect(
      code(() => priceOnDemandRental(booking, { phases: phases(['DRIVING', 60]), distance: '0' }, berlin)),
    ).toBe('ODP110');
    const [a] = phases(['DRIVING', 60]);
    expect(
      code(() =>
        priceOnDemandRental(version, { phases: [{ ...a!, endMs: a!.startMs - 1 }], distance: '0' }, berlin),
      ),
    ).toBe('ODP111');
    expect(
      code(() =>
        priceOnDemandRental(version, { phases: [a!, { ...a!, phase: 'PARKING' }], distance: '0' }, berlin),
      ),
    ).toBe('ODP111');
    expect(code(() => priceOnDemandRental(version, { phases: [a!], distance: '-1' }, berlin))).toBe('ODP111');
  });
});

describe('rules validation', () => {
  test('a booking bundle refuses a free-floating mode; an on-demand bundle needs one', () => {
    expect(() =>
      validatePricingRules('BOOKING', { ...booking.rules, freeFloatingPricingMode: 'ENDING_TIMESLOT' }),
    ).toThrow(expect.objectContaining({ code: 'ODP103' }));
    expect(() =>
      validatePricingRules('ON_DEMAND_LEGACY', {
        ...onDemand('ENDING_TIMESLOT').rules,
        freeFloatingPricingMode: null,
      }),
    ).toThrow(expect.objectContaining({ code: 'ODP103' }));
    expect(() =>
      validatePricingRules('ON_DEMAND_LEGACY', onDemand('CUMULATIVE_TIMESLOTS').rules),
    ).not.toThrow();
    expect(() => validatePricingRules('BOOKING', booking.rules)).not.toThrow();
  });

  test('slots must start at 0 and ascend', () => {
    const rules = onDemand('ENDING_TIMESLOT', {
      timeSlots: [
        { fromMinute: 10, drivingPerMinute: '1', parkingPerMinute: '1' },
        { fromMinute: 5, drivingPerMinute: '1', parkingPerMinute: '1' },
      ],
    }).rules;
    expect(() => validatePricingRules('ON_DEMAND_LEGACY', rules)).toThrow(
      expect.objectContaining({ code: 'ODP103' }),
    );
  });
});

describe('booking worked examples (Europe/Berlin, night 22-06 at 4.00/h, weekend 12.00/h, base 10.00/h)', () => {
  const at = (iso: string) => Date.parse(iso);
  const price = (
    start: string,
    end: string,
    extra: { distance?: string; additions?: string[]; returnedAt?: string } = {},
  ) =>
    priceBooking(
      booking,
      {
        startMs: at(start),
        endMs: at(end),
        distance: extra.distance ?? '0',
        additions: extra.additions ?? [],
        returnedAtMs: extra.returnedAt ? at(extra.returnedAt) : undefined,
      },
      berlin,
    );

  test.each([
    ['a weekday afternoon', '2026-11-18T10:00:00+01:00', '2026-11-18T14:00:00+01:00', '40.00'],
    ['across midnight: base, night, base', '2026-11-18T20:00:00+01:00', '2026-11-19T08:00:00+01:00', '72.00'],
    [
      'Friday evening into Saturday: base, night, weekend',
      '2026-11-20T18:00:00+01:00',
      '2026-11-21T12:00:00+01:00',
      '144.00',
    ],
    [
      '24 hours get the adaptive factor 0.8',
      '2026-11-16T09:00:00+01:00',
      '2026-11-17T09:00:00+01:00',
      '153.60',
    ],
    [
      'the night of the DST change lasts 9 real hours',
      '2026-10-24T20:00:00+02:00',
      '2026-10-25T08:00:00+01:00',
      '84.00',
    ],
    ['billed in started quarter hours', '2026-11-18T10:00:00+01:00', '2026-11-18T10:01:00+01:00', '2.50'],
  ])('%s', (_name, start, end, expected) => {
    expect(price(start, end).price.total).toBe(expected);
  });

  test('lines of the Friday-to-Saturday booking', () => {
    const result = price('2026-11-20T18:00:00+01:00', '2026-11-21T12:00:00+01:00');
    expect(result.priceV4.lines.map((l) => [l.code, l.quantity, l.gross])).toEqual([
      ['TIME_BASE', '4.000', '40.00'],
      ['TIME_NIGHT', '8.000', '32.00'],
      ['TIME_WEEKEND', '6.000', '72.00'],
    ]);
  });

  test('additions per day and per booking, distance beyond the daily allowance', () => {
    const result = price('2026-11-16T09:00:00+01:00', '2026-11-17T09:00:00+01:00', {
      additions: ['CHILD_SEAT', 'INSURANCE'],
      distance: '150',
    });
    expect(result.price.total).toBe('186.10');
    expect(result.priceV4.lines.find((l) => l.code === 'ADAPTIVE_RATE')?.gross).toBe('-38.40');
  });

  test('late return beyond the grace period is a penalty in started quarter hours', () => {
    const onTime = price('2026-11-18T10:00:00+01:00', '2026-11-18T14:00:00+01:00', {
      returnedAt: '2026-11-18T14:15:00+01:00',
    });
    expect(onTime.price.total).toBe('40.00');
    const late = price('2026-11-18T10:00:00+01:00', '2026-11-18T14:00:00+01:00', {
      returnedAt: '2026-11-18T14:20:00+01:00',
    });
    expect(late.priceV3.groups.find((g) => g.group === 'PENALTY')?.amount).toBe('10.00');
    expect(late.price.total).toBe('50.00');
  });

  test('unknown additions and reversed windows are refused', () => {
    expect(() =>
      price('2026-11-18T10:00:00+01:00', '2026-11-18T14:00:00+01:00', { additions: ['JETPACK'] }),
    ).toThrow(expect.objectContaining({ code: 'ODP111' }));
    expect(() => price('2026-11-18T10:00:00+01:00', '2026-11-18T09:00:00+01:00')).toThrow(
      expect.objectContaining({ code: 'ODP111' }),
    );
  });

  test('cancellation is free until 24 hours before the start', () => {
    const start = at('2026-11-18T10:00:00+01:00');
    expect(bookingCancellation(booking, start, at('2026-11-17T09:00:00+01:00'), berlin)).toEqual({
      cancellable: true,
      freeCancellationDeadline: '2026-11-17T09:00:00.000Z',
      estimatedFee: '0.00',
    });
    expect(bookingCancellation(booking, start, at('2026-11-17T11:00:00+01:00'), berlin).estimatedFee).toBe(
      '25.00',
    );
  });
});

describe('which version applies', () => {
  const versions = [
    { id: 1, status: 'SUPERSEDED' as const, effectiveFrom: 1000, validUntil: null },
    { id: 2, status: 'PUBLISHED' as const, effectiveFrom: 2000, validUntil: 5000 },
    { id: 3, status: 'DRAFT' as const, effectiveFrom: null, validUntil: null },
    { id: 4, status: 'PUBLISHED' as const, effectiveFrom: 3000, validUntil: null },
  ];
  test.each([
    [500, undefined],
    [1000, 1],
    [1999, 1],
    [2500, 2],
    [3000, 4],
    [9000, 4],
  ])('at %p the version is %p', (atMs, id) => {
    expect(applicableVersion(versions, atMs)?.id).toBe(id);
  });
  test('an expired validity leaves no version rather than an older one', () => {
    expect(applicableVersion(versions.slice(0, 2), 6000)).toBeUndefined();
  });
});

describe('properties', () => {
  const cents = fc.integer({ min: 0, max: 500 }).map((value) => new Decimal(value).div(100).toFixed(2));
  const slotTable = fc
    .array(fc.tuple(fc.integer({ min: 1, max: 300 }), cents, cents), { minLength: 0, maxLength: 4 })
    .chain((rest) =>
      fc.tuple(cents, cents).map(([driving, parking]) => {
        const starts = [...new Set(rest.map(([from]) => from))].sort((a, b) => a - b);
        return [
          { fromMinute: 0, drivingPerMinute: driving, parkingPerMinute: parking },
          ...starts.map((from, index) => ({
            fromMinute: from,
            drivingPerMinute: rest[index]![1],
            parkingPerMinute: rest[index]![2],
          })),
        ];
      }),
    );
  const spans = fc.array(
    fc.tuple(
      fc.constantFrom('RESERVATION_PAID', 'DRIVING', 'PARKING') as fc.Arbitrary<PhaseSpan['phase']>,
      fc.integer({ min: 0, max: 4 * 3600 }),
    ),
    { minLength: 1, maxLength: 12 },
  );
  const extension = fc.oneof(
    fc.integer({ min: 1, max: 3 * 3600 }).map((seconds) => ({ kind: 'longer' as const, seconds })),
    fc
      .tuple(
        fc.constantFrom('DRIVING', 'PARKING') as fc.Arbitrary<PhaseSpan['phase']>,
        fc.integer({ min: 0, max: 3600 }),
      )
      .map(([phase, seconds]) => ({ kind: 'append' as const, phase, seconds })),
  );

  test('a minimum-price top-up does not make a longer rental a cent cheaper (tax rounded once)', () => {
    // Found by the property below: taxed line by line, 72 minutes (0.72 + a 1.29 top-up) came to 2.40
    // and 73 minutes (0.73 + 1.28) to 2.39.
    const version = onDemand(
      'CUMULATIVE_TIMESLOTS',
      {
        timeSlots: [{ fromMinute: 0, drivingPerMinute: '0.01', parkingPerMinute: '0.00' }],
        billingIncrementMinutes: 1,
        minimumPrice: '2.01',
      },
      false,
    );
    const price = (seconds: number) =>
      priceOnDemandRental(version, { phases: phases(['DRIVING', seconds]), distance: '0' }, berlin).price
        .total;
    expect(price(4314)).toBe('2.39');
    expect(price(4321)).toBe('2.39');
  });

  test('CUMULATIVE_TIMESLOTS: a longer rental never costs less', () => {
    fc.assert(
      fc.property(
        slotTable,
        spans,
        extension,
        fc.constantFrom(1, 5, 15),
        cents,
        fc.boolean(),
        (timeSlots, base, extra, billingIncrementMinutes, minimumPrice, pricesIncludeTax) => {
          const version = onDemand(
            'CUMULATIVE_TIMESLOTS',
            { timeSlots, billingIncrementMinutes, minimumPrice },
            pricesIncludeTax,
          );
          const longer: [PhaseSpan['phase'], number][] =
            extra.kind === 'longer'
              ? [...base.slice(0, -1), [base.at(-1)![0], base.at(-1)![1] + extra.seconds]]
              : [...base, [extra.phase, extra.seconds]];
          const short = priceOnDemandRental(version, { phases: phases(...base), distance: '0' }, berlin);
          const long = priceOnDemandRental(version, { phases: phases(...longer), distance: '0' }, berlin);
          return new Decimal(long.price.total).gte(short.price.total);
        },
      ),
      { numRuns: 300 },
    );
  });

  function sumsHold(result: PriceResult): boolean {
    const sum = (key: 'net' | 'tax' | 'gross') =>
      result.priceV4.lines.reduce((acc, line) => acc.plus(line[key]), new Decimal(0));
    const { totals } = result.priceV4;
    return (
      result.priceV4.lines.every((line) => new Decimal(line.net).plus(line.tax).eq(line.gross)) &&
      sum('net').eq(totals.net) &&
      sum('tax').eq(totals.tax) &&
      sum('gross').eq(totals.gross) &&
      new Decimal(totals.net).plus(totals.tax).eq(totals.gross) &&
      result.price.total === totals.gross &&
      result.priceV3.total === totals.gross &&
      result.priceV3.groups.reduce((acc, group) => acc.plus(group.amount), new Decimal(0)).eq(totals.gross)
    );
  }

  const taxContext = fc
    .tuple(fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 3 }))
    .map(([basisPoints, scale]) => ({
      ...berlin,
      taxPercentage: new Decimal(basisPoints).div(100).toFixed(2),
      scale,
    }));

  test('every on-demand priceV4 total equals its lines (both modes, net and gross rules)', () => {
    fc.assert(
      fc.property(
        slotTable,
        spans,
        fc.constantFrom<FreeFloatingPricingMode>('ENDING_TIMESLOT', 'CUMULATIVE_TIMESLOTS'),
        fc.boolean(),
        taxContext,
        fc.integer({ min: 0, max: 100_000 }),
        (timeSlots, base, mode, pricesIncludeTax, tax, meters) => {
          const version = onDemand(
            mode,
            { timeSlots, distancePerUnit: '0.19', minimumPrice: '3.33' },
            pricesIncludeTax,
          );
          const distance = new Decimal(meters).div(1000).toFixed(3);
          return sumsHold(priceOnDemandRental(version, { phases: phases(...base), distance }, tax));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('every booking priceV4 total equals its lines', () => {
    const start = Date.parse('2026-10-20T00:00:00Z');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 * 24 * 60 }),
        fc.integer({ min: 1, max: 10 * 24 * 60 }),
        fc.subarray(['CHILD_SEAT', 'INSURANCE']),
        taxContext,
        fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
        (offsetMinutes, minutes, additions, tax, lateMinutes) => {
          const startMs = start + offsetMinutes * MIN;
          const endMs = startMs + minutes * MIN;
          const result = priceBooking(
            booking,
            {
              startMs,
              endMs,
              distance: '321.5',
              additions,
              returnedAtMs: lateMinutes === undefined ? undefined : endMs + lateMinutes * MIN,
            },
            tax,
          );
          return sumsHold(result);
        },
      ),
      { numRuns: 150 },
    );
  });
});
