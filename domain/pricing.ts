// The pricing vocabulary (pure: no I/O, no Node built-ins; importable from Temporal workflow code): bundle
// types, version statuses, the rules a version holds, the tax context and the three price shapes the
// engine answers. The engine itself: domain/price-lines.ts (money, lines, result shapes),
// domain/pricing-on-demand.ts, domain/pricing-booking.ts and domain/pricing-fees.ts; the rules' validation
// in domain/pricing-validation.ts; which version applies when in domain/pricing-versions.ts.
// See docs/pricing.md for the rules in prose.
export const pricingBundleTypes = ['BOOKING', 'ON_DEMAND_LEGACY'] as const;
export type PricingBundleType = (typeof pricingBundleTypes)[number];

export const pricingVersionStatuses = ['DRAFT', 'PUBLISHED', 'SUPERSEDED', 'ARCHIVED', 'EXPIRED'] as const;
export type PricingVersionStatus = (typeof pricingVersionStatuses)[number];

export const freeFloatingPricingModes = ['ENDING_TIMESLOT', 'CUMULATIVE_TIMESLOTS'] as const;
export type FreeFloatingPricingMode = (typeof freeFloatingPricingModes)[number];

export const pricePhases = ['RESERVATION_FREE', 'RESERVATION_PAID', 'DRIVING', 'PARKING'] as const;
export type PricePhase = (typeof pricePhases)[number];

export const distanceUnits = ['KILOMETER', 'MILE'] as const;
export type DistanceUnit = (typeof distanceUnits)[number];

export const priceLineGroups = [
  'RESERVATION',
  'TIME',
  'UNLOCK',
  'DISTANCE',
  'ADDITION',
  'PENALTY',
  'ADJUSTMENT',
  // A geofence surcharge (docs/benefits.md, "Geofence promotions and surcharges"): positive, one line each.
  'SURCHARGE',
  // A voucher's reduction (domain/pricing-benefits.ts): negative, one line per voucher applied.
  'BENEFIT',
] as const;
export type PriceLineGroup = (typeof priceLineGroups)[number];

/** Decimal strings of money and rates: up to 10 integer digits and 6 decimals, never negative. */
export const decimalPattern = '^(0|[1-9][0-9]{0,9})(\\.[0-9]{1,6})?$';
const decimalRegex = new RegExp(decimalPattern);

/** Whether a value is such a decimal string. */
export const isDecimal = (value: unknown): value is string =>
  typeof value === 'string' && decimalRegex.test(value);

/** One row of an on-demand slot table: from this billable minute on, these per-minute rates apply. */
export interface TimeSlotRule {
  fromMinute: number;
  drivingPerMinute: string;
  parkingPerMinute: string;
}

/** Rules of an ON_DEMAND_LEGACY version. */
export interface OnDemandRules {
  unlockFee: string;
  /** Rate of RESERVATION_PAID minutes (RESERVATION_FREE is never charged). */
  reservationPerMinute: string;
  /** Ascending `fromMinute`, the first at 0. */
  timeSlots: TimeSlotRule[];
  distancePerUnit: string;
  includedDistance: number;
  /** The billable time (driving + parking, and paid reservation apart) is rounded up to this many minutes. */
  billingIncrementMinutes: number;
  /** A rental that started costs at least this much (reservation excluded); "0" for none. */
  minimumPrice: string;
}

/** An extra a booking may add (child seat, insurance...). */
export interface BookingAdditionRule {
  code: string;
  name: string;
  price: string;
  per: 'BOOKING' | 'DAY';
}

/** Rules of a BOOKING version. */
export interface BookingRules {
  hourlyRate: string;
  unlockFee: string;
  distancePerUnit: string;
  /** Distance included per started 24 hours of booking. */
  includedDistancePerDay: number;
  /** Local time window (business unit time zone) priced at its own rate; may cross midnight. */
  nightRate: { startLocalTime: string; endLocalTime: string; hourlyRate: string } | null;
  /** Saturday and Sunday (local) outside the night window. */
  weekendHourlyRate: string | null;
  /** Long bookings: the highest tier whose minimumHours the booking reaches multiplies the time price. */
  adaptiveRates: { minimumHours: number; factor: string }[];
  additions: BookingAdditionRule[];
  cancellation: { cancellable: boolean; freeUntilMinutesBefore: number; fee: string };
  lateReturn: { graceMinutes: number; hourlyRate: string };
  billingIncrementMinutes: number;
}

/** What a version holds besides its status: the mode (on-demand only) and the rules of its bundle type. */
export interface PricingRules {
  pricesIncludeTax: boolean;
  freeFloatingPricingMode: FreeFloatingPricingMode | null;
  onDemand: OnDemandRules | null;
  booking: BookingRules | null;
}

/** Which rules priced a result: the spec's pricingBundleVersion. */
export interface PricingVersionRef {
  pricingBundleId: number;
  pricingBundleVersionId: number;
  version: number;
  name: string;
}

/** A version as the engine needs it. */
export interface PricedVersion {
  ref: PricingVersionRef;
  bundleType: PricingBundleType;
  currency: string;
  distanceUnit: DistanceUnit;
  rules: PricingRules;
}

/** Tax and rounding of the business unit behind the branch. */
export interface TaxContext {
  taxPercentage: string;
  scale: number;
  currency: string;
  timeZoneId: string;
}

/** One phase of a rental on the clock (epoch milliseconds, end exclusive). */
export interface PhaseSpan {
  phase: PricePhase;
  startMs: number;
  endMs: number;
}

export interface PriceLineV4 {
  code: string;
  group: PriceLineGroup;
  phase: PricePhase | null;
  description: string;
  quantity: string;
  unit: 'MINUTE' | 'HOUR' | 'KILOMETER' | 'MILE' | 'PIECE' | 'DAY';
  unitPrice: string;
  net: string;
  tax: string;
  gross: string;
  taxPercentage: string;
}

/** The three price shapes of the spec, computed together. */
export interface PriceResult {
  /** Simplified total. */
  price: { total: string; currency: string; pricingBundleVersion: PricingVersionRef };
  /** Grouped breakdown, amounts in gross with one tax figure for the whole. */
  priceV3: {
    currency: string;
    groups: {
      group: PriceLineGroup;
      amount: string;
      lines: { code: string; description: string; quantity: string; unit: string; amount: string }[];
    }[];
    total: string;
    taxPercentage: string;
    taxAmount: string;
    pricingBundleVersion: PricingVersionRef;
  };
  /** Every line split into net, tax and gross; totals are the sums of the lines. */
  priceV4: {
    currency: string;
    lines: PriceLineV4[];
    taxes: { taxPercentage: string; net: string; tax: string; gross: string }[];
    totals: { net: string; tax: string; gross: string };
    pricingBundleVersion: PricingVersionRef;
  };
}
