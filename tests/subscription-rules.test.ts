// The subscription calendar and transition table, pure: worked examples across month ends, leap years
// and DST changes in several zones, property tests (fast-check) of every interval, and the table's
// refusals with their catalogue codes.
import fc from 'fast-check';
import {
  calendarPeriod,
  daysInMonth,
  periodBoundary,
  periodContaining,
  subscriptionIntervals,
  wallClockAt,
  type CalendarAnchor,
  type SubscriptionInterval,
} from '../domain/subscription-calendar.js';
import { periodPrice, subscriptionAfter, subscriptionRefusal, termsRefusal } from '../domain/subscription.js';

const iso = (ms: number) => new Date(ms).toISOString();
const ends = (anchor: CalendarAnchor, count: number) =>
  Array.from({ length: count + 1 }, (_, n) => iso(periodBoundary(anchor, n)));
const anchor = (at: string, interval: SubscriptionInterval, timeZone = 'Europe/Berlin'): CalendarAnchor => ({
  atMs: Date.parse(at),
  timeZone,
  interval,
});

describe('worked examples', () => {
  test('monthly from 31 January keeps the 31st: 28 Feb, 31 Mar, 30 Apr, 31 May (Berlin, through DST)', () => {
    expect(ends(anchor('2027-01-31T09:00:00Z', 'MONTHLY'), 4)).toEqual([
      '2027-01-31T09:00:00.000Z',
      '2027-02-28T09:00:00.000Z',
      // 10:00 local on both sides of the March change: one hour earlier in UTC.
      '2027-03-31T08:00:00.000Z',
      '2027-04-30T08:00:00.000Z',
      '2027-05-31T08:00:00.000Z',
    ]);
  });

  test('monthly from 31 January of a leap year: 29 February', () => {
    expect(ends(anchor('2028-01-31T11:00:00Z', 'MONTHLY', 'UTC'), 2)).toEqual([
      '2028-01-31T11:00:00.000Z',
      '2028-02-29T11:00:00.000Z',
      '2028-03-31T11:00:00.000Z',
    ]);
  });

  test('yearly from 29 February: 28 February in common years, 29 again in the next leap year', () => {
    expect(ends(anchor('2028-02-29T12:00:00Z', 'YEARLY', 'America/New_York'), 4)).toEqual([
      '2028-02-29T12:00:00.000Z',
      '2029-02-28T12:00:00.000Z',
      '2030-02-28T12:00:00.000Z',
      '2031-02-28T12:00:00.000Z',
      '2032-02-29T12:00:00.000Z',
    ]);
  });

  test('daily through the spring-forward gap: 02:30 that does not exist is 03:30 CEST', () => {
    expect(ends(anchor('2027-03-27T01:30:00Z', 'DAILY'), 2)).toEqual([
      '2027-03-27T01:30:00.000Z', // 02:30 CET
      '2027-03-28T01:30:00.000Z', // 03:30 CEST (02:30 skipped)
      '2027-03-29T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  test('daily through the fall-back: a repeated 02:30 is its first occurrence (a 25-hour day)', () => {
    expect(ends(anchor('2027-10-30T00:30:00Z', 'DAILY'), 2)).toEqual([
      '2027-10-30T00:30:00.000Z',
      '2027-10-31T00:30:00.000Z', // 02:30 CEST, the first of the two
      '2027-11-01T01:30:00.000Z', // 02:30 CET
    ]);
  });

  test('weekly keeps the local time across the change', () => {
    expect(ends(anchor('2027-03-22T07:00:00Z', 'WEEKLY'), 1)).toEqual([
      '2027-03-22T07:00:00.000Z',
      '2027-03-29T06:00:00.000Z',
    ]);
  });

  test('first of month: to local midnight of each first, the first period from the purchase', () => {
    expect(ends(anchor('2027-01-15T12:00:00Z', 'FIRST_OF_MONTH'), 3)).toEqual([
      '2027-01-15T12:00:00.000Z',
      '2027-01-31T23:00:00.000Z',
      '2027-02-28T23:00:00.000Z',
      '2027-03-31T22:00:00.000Z',
    ]);
  });

  test('first of year: local midnight of 1 January (Tokyo)', () => {
    expect(ends(anchor('2027-06-10T00:00:00Z', 'FIRST_OF_YEAR', 'Asia/Tokyo'), 2)).toEqual([
      '2027-06-10T00:00:00.000Z',
      '2027-12-31T15:00:00.000Z',
      '2028-12-31T15:00:00.000Z',
    ]);
  });

  test('a zone south of the equator (Sydney: DST in October and April)', () => {
    const days = ends(anchor('2027-10-01T16:30:00Z', 'DAILY', 'Australia/Sydney'), 2).map((at) =>
      wallClockAt(Date.parse(at), 'Australia/Sydney'),
    );
    // 02:30 on 3 October does not exist there: it moves past the gap to 03:30.
    expect(days.map((wall) => `${wall.day} ${wall.hour}:${wall.minute}`)).toEqual([
      '2 2:30',
      '3 3:30',
      '4 2:30',
    ]);
  });

  test('an unknown zone reads as UTC; periodContaining finds the period of an instant', () => {
    const a = anchor('2027-01-31T09:00:00Z', 'MONTHLY', 'Not/AZone');
    expect(iso(periodBoundary(a, 1))).toBe('2027-02-28T09:00:00.000Z');
    const period = periodContaining(a, Date.parse('2027-03-15T00:00:00Z'));
    expect(period.number).toBe(2);
    expect(iso(period.startMs)).toBe('2027-02-28T09:00:00.000Z');
  });
});

const zones = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'Asia/Kolkata',
  'UTC',
  'Pacific/Chatham',
];
const anchors = fc.record({
  atMs: fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2060-12-31T00:00:00Z') }),
  timeZone: fc.constantFrom(...zones),
  interval: fc.constantFrom(...subscriptionIntervals),
});
const HOUR = 3_600_000;

describe('properties', () => {
  test('boundaries strictly increase, and each period has its interval’s length (± a DST shift)', () => {
    fc.assert(
      fc.property(anchors, fc.integer({ min: 1, max: 30 }), (a, n) => {
        const { startMs, endMs } = calendarPeriod(a, n);
        const length = endMs - startMs;
        expect(length).toBeGreaterThan(0);
        const day = 24 * HOUR;
        const bounds: Record<SubscriptionInterval, [number, number]> = {
          DAILY: [day - 2 * HOUR, day + 2 * HOUR],
          WEEKLY: [7 * day - 2 * HOUR, 7 * day + 2 * HOUR],
          MONTHLY: [28 * day - 2 * HOUR, 31 * day + 2 * HOUR],
          YEARLY: [365 * day - 2 * HOUR, 366 * day + 2 * HOUR],
          // The first period runs from the purchase to the next first.
          FIRST_OF_MONTH: n === 1 ? [1, 31 * day + 2 * HOUR] : [28 * day - 2 * HOUR, 31 * day + 2 * HOUR],
          FIRST_OF_YEAR: n === 1 ? [1, 366 * day + 2 * HOUR] : [365 * day - 2 * HOUR, 366 * day + 2 * HOUR],
        };
        const [min, max] = bounds[a.interval];
        expect(length).toBeGreaterThanOrEqual(min);
        expect(length).toBeLessThanOrEqual(max);
      }),
      { numRuns: 400 },
    );
  });

  test('monthly and yearly ends keep the anchor’s day where the month has it, else its last day', () => {
    fc.assert(
      fc.property(anchors, fc.integer({ min: 1, max: 60 }), (a, n) => {
        if (a.interval !== 'MONTHLY' && a.interval !== 'YEARLY') return;
        const start = wallClockAt(a.atMs, a.timeZone);
        const end = wallClockAt(periodBoundary(a, n), a.timeZone);
        const monthsAhead = a.interval === 'MONTHLY' ? n : 12 * n;
        expect((end.year - start.year) * 12 + (end.month - start.month)).toBe(monthsAhead);
        // A time skipped by a gap moves forward by the gap; the date stays, but for a gap at midnight.
        if (end.hour === start.hour && end.minute === start.minute)
          expect(end.day).toBe(Math.min(start.day, daysInMonth(end.year, end.month)));
      }),
      { numRuns: 400 },
    );
  });

  test('first-of ends are local midnights of a first (or just past a gap at midnight)', () => {
    fc.assert(
      fc.property(anchors, fc.integer({ min: 1, max: 24 }), (a, n) => {
        if (a.interval !== 'FIRST_OF_MONTH' && a.interval !== 'FIRST_OF_YEAR') return;
        const end = wallClockAt(periodBoundary(a, n), a.timeZone);
        expect(end.day).toBe(1);
        if (a.interval === 'FIRST_OF_YEAR') expect(end.month).toBe(1);
        expect(end.hour).toBeLessThanOrEqual(1);
        expect(end.minute === 0 || end.minute === 30).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test('periodContaining answers the period whose bounds hold the instant', () => {
    fc.assert(
      fc.property(anchors, fc.integer({ min: 0, max: 5 * 366 * 24 * HOUR }), (a, offset) => {
        const at = a.atMs + offset;
        const period = periodContaining(a, at);
        expect(period.startMs).toBeLessThanOrEqual(at);
        expect(period.endMs).toBeGreaterThan(at);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the transition table', () => {
  const facts = (state: string, autoRenewal = 'ACTIVE', switchMode: 'IMMEDIATE' | 'DELAYED' | null = null) =>
    ({ state, autoRenewal, switchMode }) as Parameters<typeof subscriptionRefusal>[1];

  test.each([
    ['CANCEL_AUTO_RENEWAL', facts('RENEWING'), undefined],
    ['CANCEL_AUTO_RENEWAL', facts('RENEWING', 'INACTIVE'), 'SU108'],
    ['CANCEL_AUTO_RENEWAL', facts('CANCELLED', 'INACTIVE'), 'SU107'],
    ['REACTIVATE', facts('RENEWING', 'INACTIVE'), undefined],
    ['REACTIVATE', facts('RENEWING'), 'SU103'],
    ['REACTIVATE', facts('EXPIRED', 'INACTIVE'), 'SU104'],
    ['RETRY_RENEWAL', facts('RENEWING', 'FAILED'), undefined],
    ['RETRY_RENEWAL', facts('RENEWING'), 'SU103'],
    ['SWITCH', facts('RENEWING'), undefined],
    ['SWITCH', facts('SWITCHING', 'ACTIVE', 'DELAYED'), 'SU103'],
    ['SWITCH', facts('RENEWING', 'INACTIVE'), 'SU108'],
    ['REVERT_SWITCH', facts('SWITCHING', 'ACTIVE', 'DELAYED'), undefined],
    ['REVERT_SWITCH', facts('SWITCHING', 'ACTIVE', 'IMMEDIATE'), 'SU103'],
    ['REVERT_SWITCH', facts('RENEWING'), 'SU105'],
    ['CANCEL', facts('SWITCHED'), undefined],
    ['CANCEL', facts('CANCELLED', 'INACTIVE'), 'SU107'],
    ['CANCEL', facts('EXPIRED', 'FAILED'), 'SU104'],
  ] as const)('%s from %j: %s', (event, given, code) => {
    expect(subscriptionRefusal(event, given)?.code).toBe(code);
  });

  test('where the table leads', () => {
    expect(subscriptionAfter('RENEWAL_FAILED', facts('RENEWING'))).toEqual({
      state: 'RENEWING',
      autoRenewal: 'FAILED',
    });
    expect(subscriptionAfter('RENEWED', facts('RENEWING', 'FAILED'))).toEqual({
      state: 'RENEWING',
      autoRenewal: 'ACTIVE',
    });
    expect(subscriptionAfter('SWITCHED', facts('SWITCHING'))).toEqual({
      state: 'SWITCHED',
      autoRenewal: 'ACTIVE',
    });
    expect(subscriptionAfter('CANCEL', facts('RENEWING'))).toEqual({
      state: 'CANCELLED',
      autoRenewal: 'INACTIVE',
    });
  });

  test('initial price for the first iterations, then the price; the terms’ checks', () => {
    const terms = {
      voucherableId: 1,
      interval: 'MONTHLY' as const,
      price: '9.99',
      initialPrice: '1.00',
      initialIterations: 2,
      currency: 'EUR',
    };
    expect([1, 2, 3, 4].map((n) => periodPrice(terms, n))).toEqual(['1.00', '1.00', '9.99', '9.99']);
    expect(periodPrice(terms, 5, 5)).toBe('1.00');
    expect(termsRefusal({ price: '9.99', initialPrice: '1.00' })?.code).toBe('SU112');
    expect(termsRefusal({ price: '-1' })?.code).toBe('SU116');
    expect(termsRefusal({ price: '1e3' })?.code).toBe('SU116');
    expect(termsRefusal({ price: '0x1' })?.code).toBe('SU116');
    expect(termsRefusal({ price: '9.99', initialPrice: '1', initialIterations: 0 })?.code).toBe('SU116');
    expect(termsRefusal({ price: '9.99', initialPrice: '1', initialIterations: 3 })).toBeUndefined();
  });
});
