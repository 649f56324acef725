// The pure rules of the benefits domain: every activation rule of a template (VA101–VA120, T113–T116),
// the legacy fields against `benefits`, validity periods across month ends, the grant's end date, the
// voucher state table, the geofence promotion's weekly window and the customer annotation gates.
import {
  addValidityPeriod,
  effectiveBenefits,
  grantValidUntil,
  voucherMayMove,
  voucherStatuses,
  voucherFiguresOf,
  type Benefit,
} from '../domain/benefits.js';
import {
  customerPassesGates,
  promotionWindowOpen,
  voucherableProblem,
  type VoucherableConfig,
} from '../domain/voucherables.js';

const now = new Date('2026-03-10T12:00:00Z');
const square = {
  type: 'MultiPolygon' as const,
  coordinates: [
    [
      [
        [13.3, 52.5],
        [13.5, 52.5],
        [13.5, 52.6],
        [13.3, 52.6],
        [13.3, 52.5],
      ],
    ],
  ],
};

const base: VoucherableConfig = {
  type: 'Promotion',
  currency: 'EUR',
  benefits: [{ type: 'Discount', amount: '0.2' }],
  guserRequiredAnnotationIds: [],
  guserProhibitedAnnotationIds: [],
  requiredAnnotationIds: [],
  prohibitedAnnotationIds: [],
};
const problemOf = (patch: Partial<VoucherableConfig>) => voucherableProblem({ ...base, ...patch }, now)?.code;

describe('a template configuration', () => {
  test('a plain promotion passes', () => expect(problemOf({})).toBeUndefined());

  test.each<[string, Partial<VoucherableConfig>, string | undefined]>([
    ['period without unit', { validityPeriod: 3 }, 'VA103'],
    ['unit without period', { validityTimeUnit: 'DAYS' }, 'VA103'],
    [
      'benefit period without unit',
      { benefits: [{ type: 'Discount', amount: '0.2', validityPeriod: 2 }] },
      'VA103',
    ],
    [
      'validUntil and a period together',
      { validUntil: new Date('2027-01-01Z'), validityPeriod: 2, validityTimeUnit: 'MONTHS' },
      undefined,
    ],
    ['validUntil past', { validUntil: new Date('2026-03-01Z') }, 'VA102'],
    [
      'benefit validUntil past',
      { benefits: [{ type: 'Discount', amount: '0.2', validUntil: '2020-01-01T00:00:00Z' }] },
      'VA102',
    ],
    [
      'redeem window reversed',
      { redeemFrom: new Date('2026-06-01Z'), redeemUntil: new Date('2026-05-01Z') },
      'VA101',
    ],
    [
      'redeem window after validity',
      { redeemFrom: new Date('2026-06-01Z'), validUntil: new Date('2026-05-01Z') },
      'VA101',
    ],
    ['redeemUntil past', { redeemUntil: new Date('2026-01-01Z') }, 'VA102'],
    ['no benefit at all', { benefits: [] }, 'VA104'],
    ['legacy value only', { benefits: [], value: '5' }, undefined],
    ['legacy discount above 1', { benefits: [], discount: '1.5' }, 'VA109'],
    ['discount 0', { benefits: [{ type: 'Discount', amount: '0' }] }, 'VA109'],
    ['discount exactly 1', { benefits: [{ type: 'Discount', amount: '1' }] }, undefined],
    ['value without amount', { benefits: [{ type: 'Value' }] }, 'VA109'],
    ['value finer than cents', { benefits: [{ type: 'Value', amount: '1.005' }] }, 'VA109'],
    [
      'value with a price type',
      { benefits: [{ type: 'Value', amount: '5', applicablePriceType: 'TIME_PRICE' }] },
      'VA109',
    ],
    ['free minutes fractional', { benefits: [{ type: 'FreeMinutes', amount: '2.5' }] }, 'VA109'],
    [
      'free unlocks on the time price',
      { benefits: [{ type: 'FreeUnlocks', amount: '2', applicablePriceType: 'TIME_PRICE' }] },
      'VA105',
    ],
    [
      'free minutes on the unlock fee',
      { benefits: [{ type: 'FreeMinutes', amount: '10', applicablePriceType: 'UNLOCK_FEE' }] },
      'VA105',
    ],
    ['entitlement without addition', { benefits: [{ type: 'AdditionEntitlement' }] }, 'VA109'],
    [
      'entitlement with amount',
      { benefits: [{ type: 'AdditionEntitlement', additionEntitlementId: 3, amount: '1' }] },
      'VA109',
    ],
    [
      'addition on a rebate',
      { benefits: [{ type: 'RentalRebate', amount: '1', additionEntitlementId: 3 }] },
      'VA109',
    ],
    [
      'package discount with cost sources',
      { benefits: [{ type: 'DiscountOnPackages', amount: '0.1', costSources: [{ group: 'RENTAL' }] }] },
      'VA109',
    ],
    [
      'two identical discounts',
      {
        benefits: [
          { type: 'Discount', amount: '0.2' },
          { type: 'Discount', amount: '0.1' },
        ],
      },
      'VA105',
    ],
    [
      'two discounts on different price types',
      {
        benefits: [
          { type: 'Discount', amount: '0.2', applicablePriceType: 'TIME_PRICE' },
          { type: 'Discount', amount: '0.1' },
        ],
      },
      undefined,
    ],
    ['every benefit type at once', { benefits: everyBenefit() }, undefined],
    [
      'customer annotation required and prohibited',
      { guserRequiredAnnotationIds: [1, 2], guserProhibitedAnnotationIds: [2] },
      'VA114',
    ],
    [
      'related annotation required and prohibited',
      { requiredAnnotationIds: [4], prohibitedAnnotationIds: [4] },
      'VA114',
    ],
    ['package without price', { type: 'Package' }, 'VA120'],
    ['package with zero price', { type: 'Package', price: '0' }, 'VA120'],
    ['package with price', { type: 'Package', price: '19.90' }, undefined],
    ['promotion with a price', { price: '5' }, 'VA111'],
    ['interval on a package', { type: 'Package', price: '5', interval: 'MONTHLY' }, 'VA111'],
    ['initial promotion', { initial: true }, 'VA111'],
    ['referrer on a promotion', { referrerVoucherableId: 4 }, 'VA111'],
    ['geofence on a promotion', { geofence: square }, 'T116'],
    ['weekdays on a promotion', { weekdays: ['MONDAY'] }, 'T116'],
    ['geofence promotion without area', { type: 'GeoFencePromotion' }, 'T113'],
    [
      'geofence promotion with an open ring',
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
                [0, 1],
              ],
            ],
          ],
        },
      },
      'T113',
    ],
    ['geofence promotion without window', { type: 'GeoFencePromotion', geofence: square }, 'T114'],
    [
      'geofence promotion complete',
      {
        type: 'GeoFencePromotion',
        geofence: square,
        weekdays: ['MONDAY'],
        recurrenceStart: new Date('2026-01-01T08:00:00Z'),
        durationMinutes: 120,
      },
      undefined,
    ],
    ...(['RentalRebate', 'Discount', 'FreeMinutes', 'Value'] as const).map(
      (type) =>
        [
          `geofence surcharge charging by ${type}`,
          {
            type: 'GeoFenceSurcharge',
            benefits: [
              { type, amount: type === 'Discount' ? '0.1' : type === 'FreeMinutes' ? '10' : '1.00' },
            ],
            geofence: square,
            weekdays: ['SATURDAY'],
            recurrenceStart: new Date('2026-01-03T21:00:00Z'),
            durationMinutes: 360,
          },
          type === 'RentalRebate' || type === 'Discount' ? undefined : 'VA105',
        ] as [string, Partial<VoucherableConfig>, string | undefined],
    ),
  ])('%s', (_name, patch, code) => expect(problemOf(patch)).toBe(code));
});

function everyBenefit(): Benefit[] {
  return [
    { type: 'Value', amount: '5' },
    { type: 'Discount', amount: '0.2', applicablePriceType: 'TIME_PRICE' },
    { type: 'RentalRebate', amount: '1.50' },
    { type: 'FreeUnlocks', amount: '3', applicablePriceType: 'UNLOCK_FEE' },
    { type: 'DiscountOnPackages', amount: '0.1' },
    { type: 'AdditionEntitlement', additionEntitlementId: 7 },
    { type: 'FreeMinutes', amount: '30' },
  ];
}

describe('benefits and grants', () => {
  test('benefits override the legacy fields; without them, each legacy field is one benefit', () => {
    const legacy = { value: '5', discount: '0.1', rentalRebate: '2', additionEntitlementId: 3 };
    expect(effectiveBenefits({ ...legacy, benefits: [{ type: 'FreeMinutes', amount: '10' }] })).toEqual([
      { type: 'FreeMinutes', amount: '10' },
    ]);
    expect(effectiveBenefits({ ...legacy, benefits: [] }).map((b) => b.type)).toEqual([
      'Value',
      'Discount',
      'RentalRebate',
      'AdditionEntitlement',
    ]);
  });

  test.each([
    ['2026-01-31T10:00:00Z', 1, 'MONTHS', '2026-02-28T10:00:00.000Z'],
    ['2024-01-31T10:00:00Z', 1, 'MONTHS', '2024-02-29T10:00:00.000Z'],
    ['2024-02-29T00:00:00Z', 1, 'YEARS', '2025-02-28T00:00:00.000Z'],
    ['2026-03-10T12:00:00Z', 2, 'WEEKS', '2026-03-24T12:00:00.000Z'],
    ['2026-03-10T12:00:00Z', 36, 'HOURS', '2026-03-12T00:00:00.000Z'],
  ] as const)('%s + %d %s = %s', (from, period, unit, expected) => {
    expect(addValidityPeriod(new Date(from), period, unit).toISOString()).toBe(expected);
  });

  test('the grant ends at the explicit end, else the earliest of the fixed date and the period', () => {
    const from = new Date('2026-03-10T00:00:00Z');
    const template = {
      validUntil: new Date('2026-04-01T00:00:00Z'),
      validityPeriod: 1,
      validityTimeUnit: 'MONTHS' as const,
    };
    expect(grantValidUntil(from, {}, template)?.toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(
      grantValidUntil(from, { validityPeriod: 5, validityTimeUnit: 'DAYS' }, template)?.toISOString(),
    ).toBe('2026-03-15T00:00:00.000Z');
    expect(grantValidUntil(from, {}, {}, new Date('2030-01-01Z'))?.toISOString()).toBe(
      '2030-01-01T00:00:00.000Z',
    );
    expect(grantValidUntil(from, {}, {})).toBeNull();
  });

  test("a benefit's figures fall back on the template's restrictions", () => {
    const figures = voucherFiguresOf(
      { type: 'FreeMinutes', amount: '30' },
      { applicableBranchIds: [4], applicablePriceType: 'TIME_PRICE', numberOfRentals: 2 },
    );
    expect(figures).toMatchObject({
      freeMinutes: 30,
      branchIds: [4],
      applicablePriceType: 'TIME_PRICE',
      numberOfRentals: 2,
    });
    expect(voucherFiguresOf({ type: 'Value', amount: '7.5' }, {})).toMatchObject({ valueGross: '7.5' });
  });

  test('the voucher state table', () => {
    const allowed = new Set([
      'NOT_REDEEMED>PENDING',
      'NOT_REDEEMED>ACTIVE',
      'NOT_REDEEMED>CANCELED',
      'NOT_REDEEMED>EXPIRED',
      'PENDING>ACTIVE',
      'PENDING>CANCELED',
      'PENDING>EXPIRED',
      'ACTIVE>USED_UP',
      'ACTIVE>EXPIRED',
      'ACTIVE>CANCELED',
      'USED_UP>ACTIVE',
      'USED_UP>EXPIRED',
    ]);
    for (const from of voucherStatuses)
      for (const to of voucherStatuses) expect(voucherMayMove(from, to)).toBe(allowed.has(`${from}>${to}`));
  });
});

describe('geofence promotion windows and annotation gates', () => {
  // Mondays 08:00 for 2 hours, Berlin time (UTC+1 in January, UTC+2 in summer).
  const window = {
    weekdays: ['MONDAY'] as const,
    recurrenceStart: new Date('2026-01-05T07:00:00Z'),
    durationMinutes: 120,
  };
  test.each([
    ['2026-01-12T07:30:00Z', true],
    ['2026-01-12T09:00:00Z', false],
    ['2026-01-13T07:30:00Z', false],
    ['2025-12-29T07:30:00Z', false], // before the recurrence starts
    ['2026-07-06T06:30:00Z', true], // 08:30 summer time
  ])('%s open: %s', (at, open) => {
    expect(promotionWindowOpen(window, new Date(at), 'Europe/Berlin')).toBe(open);
  });

  test('a window past midnight belongs to the day it opened', () => {
    const late = {
      weekdays: ['FRIDAY'] as const,
      recurrenceStart: new Date('2026-01-02T22:00:00Z'),
      durationMinutes: 180,
    };
    expect(promotionWindowOpen(late, new Date('2026-01-10T00:30:00Z'), 'UTC')).toBe(true); // Saturday 00:30
    expect(promotionWindowOpen(late, new Date('2026-01-11T00:30:00Z'), 'UTC')).toBe(false); // Sunday
  });

  test('customer gates', () => {
    const gates = { guserRequiredAnnotationIds: [1], guserProhibitedAnnotationIds: [2] };
    expect(customerPassesGates(gates, [1, 3])).toBe(true);
    expect(customerPassesGates(gates, [3])).toBe(false);
    expect(customerPassesGates(gates, [1, 2])).toBe(false);
  });
});
