// The price engine (pure: no I/O, no Node built-ins; importable from Temporal workflow code).
//
// Money is decimal.js (never binary floating point): rates and amounts travel as decimal strings, every
// line is rounded once to the business unit's scale (half-up), and every total is the sum of its rounded
// lines, so priceV4's totals always equal its lines. See docs/pricing.md for the rules in prose.
import { Decimal } from 'decimal.js';
import { DomainError } from './errors.js';

/** A private Decimal with enough precision for per-millisecond rates and half-up rounding. */
const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
type Amount = InstanceType<typeof Money>;

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
] as const;
export type PriceLineGroup = (typeof priceLineGroups)[number];

/** Decimal strings of money and rates: up to 10 integer digits and 6 decimals, never negative. */
export const decimalPattern = '^(0|[1-9][0-9]{0,9})(\\.[0-9]{1,6})?$';
const decimalRegex = new RegExp(decimalPattern);

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

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Longest interval the engine prices (a year): bounds every loop. */
export const MAX_PRICED_SPAN_MS = 366 * DAY_MS;

// ---------------------------------------------------------------------------------------------------
// Validation of rules

const isDecimal = (value: unknown): value is string => typeof value === 'string' && decimalRegex.test(value);
const localTimePattern = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/**
 * Refuses rules that do not fit the bundle type (ODP103): on-demand versions need a mode and on-demand
 * rules; booking versions need booking rules and must not name a free-floating mode.
 */
export function validatePricingRules(bundleType: PricingBundleType, rules: PricingRules): void {
  const problems: string[] = [];
  if (bundleType === 'BOOKING') {
    if (rules.freeFloatingPricingMode !== null)
      problems.push('freeFloatingPricingMode is not valid for booking bundles');
    if (rules.onDemand !== null) problems.push('onDemand rules are not valid for booking bundles');
    if (rules.booking === null) problems.push('booking rules are required');
    else problems.push(...bookingProblems(rules.booking));
  } else {
    if (rules.freeFloatingPricingMode === null)
      problems.push('freeFloatingPricingMode (ENDING_TIMESLOT or CUMULATIVE_TIMESLOTS) is required');
    if (rules.booking !== null) problems.push('booking rules are not valid for on-demand bundles');
    if (rules.onDemand === null) problems.push('onDemand rules are required');
    else problems.push(...onDemandProblems(rules.onDemand));
  }
  if (problems.length) throw new DomainError('ODP103', problems.join('; '), { problems });
}

function onDemandProblems(rules: OnDemandRules): string[] {
  const problems: string[] = [];
  for (const key of ['unlockFee', 'reservationPerMinute', 'distancePerUnit', 'minimumPrice'] as const)
    if (!isDecimal(rules[key])) problems.push(`${key} must be a decimal string`);
  if (!rules.timeSlots.length) problems.push('at least one time slot is required');
  rules.timeSlots.forEach((slot, index) => {
    if (!isDecimal(slot.drivingPerMinute) || !isDecimal(slot.parkingPerMinute))
      problems.push(`timeSlots[${index}] rates must be decimal strings`);
    if (index === 0 && slot.fromMinute !== 0) problems.push('the first time slot must start at minute 0');
    if (index > 0 && slot.fromMinute <= rules.timeSlots[index - 1]!.fromMinute)
      problems.push('time slots must be in ascending fromMinute order');
  });
  if (!(Number.isInteger(rules.billingIncrementMinutes) && rules.billingIncrementMinutes >= 1))
    problems.push('billingIncrementMinutes must be a positive integer');
  return problems;
}

function bookingProblems(rules: BookingRules): string[] {
  const problems: string[] = [];
  for (const key of ['hourlyRate', 'unlockFee', 'distancePerUnit'] as const)
    if (!isDecimal(rules[key])) problems.push(`${key} must be a decimal string`);
  if (rules.nightRate) {
    const { startLocalTime, endLocalTime, hourlyRate } = rules.nightRate;
    if (!localTimePattern.test(startLocalTime) || !localTimePattern.test(endLocalTime))
      problems.push('nightRate times must be HH:MM');
    else if (startLocalTime === endLocalTime) problems.push('nightRate start and end must differ');
    if (!isDecimal(hourlyRate)) problems.push('nightRate.hourlyRate must be a decimal string');
  }
  if (rules.weekendHourlyRate !== null && !isDecimal(rules.weekendHourlyRate))
    problems.push('weekendHourlyRate must be a decimal string');
  rules.adaptiveRates.forEach((tier, index) => {
    if (!isDecimal(tier.factor) || new Money(tier.factor).gt(10))
      problems.push(`adaptiveRates[${index}].factor must be a decimal string up to 10`);
  });
  const codes = rules.additions.map((addition) => addition.code);
  if (new Set(codes).size !== codes.length) problems.push('addition codes must be unique');
  rules.additions.forEach((addition, index) => {
    if (!isDecimal(addition.price)) problems.push(`additions[${index}].price must be a decimal string`);
  });
  if (!isDecimal(rules.cancellation.fee)) problems.push('cancellation.fee must be a decimal string');
  if (!isDecimal(rules.lateReturn.hourlyRate))
    problems.push('lateReturn.hourlyRate must be a decimal string');
  if (!(Number.isInteger(rules.billingIncrementMinutes) && rules.billingIncrementMinutes >= 1))
    problems.push('billingIncrementMinutes must be a positive integer');
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Lines and the three result shapes

/** A line before rounding, in the version's basis (gross when prices include tax, else net). */
interface RawLine {
  code: string;
  group: PriceLineGroup;
  phase: PricePhase | null;
  description: string;
  quantity: Amount;
  unit: PriceLineV4['unit'];
  unitPrice: Amount;
  amount: Amount;
}

const fixed = (value: Amount, scale: number) => value.toFixed(scale, Decimal.ROUND_HALF_UP);

/** Rounds each line once and derives the three shapes from the rounded lines. */
function buildResult(version: PricedVersion, tax: TaxContext, lines: RawLine[]): PriceResult {
  const scale = tax.scale;
  const rate = new Money(tax.taxPercentage);
  const factor = rate.div(100).plus(1);
  const v4Lines: PriceLineV4[] = [];
  let net = new Money(0);
  let taxSum = new Money(0);
  let gross = new Money(0);
  for (const line of lines) {
    const basis = line.amount.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
    let lineNet: Amount;
    let lineGross: Amount;
    if (version.rules.pricesIncludeTax) {
      lineGross = basis;
      lineNet = basis.div(factor).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
    } else {
      lineNet = basis;
      lineGross = basis.plus(basis.times(rate).div(100).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP));
    }
    const lineTax = lineGross.minus(lineNet);
    net = net.plus(lineNet);
    taxSum = taxSum.plus(lineTax);
    gross = gross.plus(lineGross);
    v4Lines.push({
      code: line.code,
      group: line.group,
      phase: line.phase,
      description: line.description,
      quantity: fixed(line.quantity, 3),
      unit: line.unit,
      unitPrice: line.unitPrice.toFixed(),
      net: fixed(lineNet, scale),
      tax: fixed(lineTax, scale),
      gross: fixed(lineGross, scale),
      taxPercentage: fixed(rate, 2),
    });
  }
  const ref = version.ref;
  const groups = priceLineGroups
    .map((group) => {
      const members = v4Lines.filter((line) => line.group === group);
      const amount = members.reduce((sum, line) => sum.plus(line.gross), new Money(0));
      return {
        group,
        amount: fixed(amount, scale),
        lines: members.map((line) => ({
          code: line.code,
          description: line.description,
          quantity: line.quantity,
          unit: line.unit,
          amount: line.gross,
        })),
      };
    })
    .filter((group) => group.lines.length > 0);
  const totals = { net: fixed(net, scale), tax: fixed(taxSum, scale), gross: fixed(gross, scale) };
  return {
    price: { total: totals.gross, currency: version.currency, pricingBundleVersion: ref },
    priceV3: {
      currency: version.currency,
      groups,
      total: totals.gross,
      taxPercentage: fixed(rate, 2),
      taxAmount: totals.tax,
      pricingBundleVersion: ref,
    },
    priceV4: {
      currency: version.currency,
      lines: v4Lines,
      taxes: v4Lines.length ? [{ taxPercentage: fixed(rate, 2), ...totals }] : [],
      totals,
      pricingBundleVersion: ref,
    },
  };
}

const minutesOf = (ms: number) => new Money(ms).div(MINUTE_MS);

// ---------------------------------------------------------------------------------------------------
// On-demand (free-floating) rentals

/** Rejects phase lists the engine cannot price (ODP111): reversed, overlapping or overlong spans. */
function checkPhases(phases: readonly PhaseSpan[]): readonly PhaseSpan[] {
  let ordered = true;
  for (let i = 1; i < phases.length && ordered; i++) ordered = phases[i - 1]!.startMs <= phases[i]!.startMs;
  const sorted = ordered ? phases : [...phases].sort((a, b) => a.startMs - b.startMs);
  for (let index = 0; index < sorted.length; index++) {
    const span = sorted[index]!;
    if (!Number.isSafeInteger(span.startMs) || !Number.isSafeInteger(span.endMs) || span.endMs < span.startMs)
      throw new DomainError('ODP111', `phase ${index} ends before it starts`);
    if (index > 0 && span.startMs < sorted[index - 1]!.endMs)
      throw new DomainError('ODP111', 'phases overlap');
  }
  if (sorted.length && sorted[sorted.length - 1]!.endMs - sorted[0]!.startMs > MAX_PRICED_SPAN_MS)
    throw new DomainError('ODP111', 'a priced interval may last at most 366 days');
  return sorted;
}

function checkDistance(distance: string): Amount {
  if (!isDecimal(distance)) throw new DomainError('ODP111', 'distance must be a non-negative decimal');
  return new Money(distance);
}

/** A billable (driving or parking) piece on the rental's billable clock, which only runs in those phases. */
interface BillablePiece {
  phase: 'DRIVING' | 'PARKING';
  fromMs: number;
  toMs: number;
}

/**
 * Prices an on-demand rental from its phases. ENDING_TIMESLOT: the slot reached by the final billable
 * duration prices every billable minute. CUMULATIVE_TIMESLOTS: each billable minute is priced by the
 * slot it falls in. Paid reservation, unlock fee, distance and the minimum price are added alike.
 */
export function priceOnDemandRental(
  version: PricedVersion,
  input: { phases: readonly PhaseSpan[]; distance: string },
  tax: TaxContext,
): PriceResult {
  const rules = version.rules.onDemand;
  const mode = version.rules.freeFloatingPricingMode;
  if (version.bundleType !== 'ON_DEMAND_LEGACY' || !rules || !mode)
    throw new DomainError('ODP110', 'on-demand rentals are priced by ON_DEMAND_LEGACY bundles');
  const phases = checkPhases(input.phases);
  const distance = checkDistance(input.distance);
  const incrementMs = rules.billingIncrementMinutes * MINUTE_MS;
  const lines: RawLine[] = [];

  // Reservation
  let freeMs = 0;
  let paidMs = 0;
  for (const span of phases) {
    if (span.phase === 'RESERVATION_FREE') freeMs += span.endMs - span.startMs;
    else if (span.phase === 'RESERVATION_PAID') paidMs += span.endMs - span.startMs;
  }
  if (freeMs > 0)
    lines.push({
      code: 'RESERVATION_FREE',
      group: 'RESERVATION',
      phase: 'RESERVATION_FREE',
      description: 'Free reservation',
      quantity: minutesOf(freeMs),
      unit: 'MINUTE',
      unitPrice: new Money(0),
      amount: new Money(0),
    });
  if (paidMs > 0) {
    const billed = Math.ceil(paidMs / incrementMs) * incrementMs;
    const perMinute = new Money(rules.reservationPerMinute);
    lines.push({
      code: 'RESERVATION_PAID',
      group: 'RESERVATION',
      phase: 'RESERVATION_PAID',
      description: 'Paid reservation',
      quantity: minutesOf(billed),
      unit: 'MINUTE',
      unitPrice: perMinute,
      amount: perMinute.times(billed).div(MINUTE_MS),
    });
  }

  // Billable clock: driving and parking only; each phase is rounded up to the billing increment on its own,
  // so a longer rental (a longer last phase, or more phases) never bills less time than a shorter one.
  const pieces: BillablePiece[] = [];
  let clock = 0;
  for (const span of phases) {
    if (span.phase !== 'DRIVING' && span.phase !== 'PARKING') continue;
    const length = Math.ceil((span.endMs - span.startMs) / incrementMs) * incrementMs;
    const last = pieces.at(-1);
    if (last && last.phase === span.phase) last.toMs += length;
    else pieces.push({ phase: span.phase, fromMs: clock, toMs: clock + length });
    clock += length;
  }
  const started = pieces.length > 0;
  if (started) {
    lines.push(...timeLines(rules, mode, pieces, clock));
    const unlockFee = new Money(rules.unlockFee);
    if (!unlockFee.isZero()) lines.push(fixedLine('UNLOCK_FEE', 'UNLOCK', 'Unlock fee', unlockFee));
  }

  const chargedDistance = Money.max(0, distance.minus(rules.includedDistance));
  if (chargedDistance.gt(0))
    lines.push(distanceLine(version.distanceUnit, chargedDistance, rules.distancePerUnit));

  if (started) {
    const minimum = new Money(rules.minimumPrice);
    const subtotal = lines
      .filter((line) => line.group !== 'RESERVATION')
      .reduce((sum, line) => sum.plus(line.amount), new Money(0));
    if (subtotal.lt(minimum))
      lines.push(
        fixedLine('MINIMUM_PRICE', 'ADJUSTMENT', 'Top-up to the minimum price', minimum.minus(subtotal)),
      );
  }
  return buildResult(version, tax, lines);
}

function fixedLine(code: string, group: PriceLineGroup, description: string, amount: Amount): RawLine {
  return {
    code,
    group,
    phase: null,
    description,
    quantity: new Money(1),
    unit: 'PIECE',
    unitPrice: amount,
    amount,
  };
}

function distanceLine(unit: DistanceUnit, charged: Amount, perUnit: string): RawLine {
  const rate = new Money(perUnit);
  return {
    code: 'DISTANCE',
    group: 'DISTANCE',
    phase: null,
    description: `Distance beyond the included ${unit === 'MILE' ? 'miles' : 'kilometers'}`,
    quantity: charged,
    unit: unit === 'MILE' ? 'MILE' : 'KILOMETER',
    unitPrice: rate,
    amount: rate.times(charged),
  };
}

/** Index of the slot that holds billable minute offset `ms` (the slot whose range contains the last minute). */
function slotIndexAt(slots: readonly TimeSlotRule[], ms: number): number {
  let index = 0;
  for (let i = 1; i < slots.length; i++) if (slots[i]!.fromMinute * MINUTE_MS < ms) index = i;
  return index;
}

function timeLines(
  rules: OnDemandRules,
  mode: FreeFloatingPricingMode,
  pieces: readonly BillablePiece[],
  billedMs: number,
): RawLine[] {
  const slots = rules.timeSlots;
  const rateOf = (slot: TimeSlotRule, phase: 'DRIVING' | 'PARKING') =>
    new Money(phase === 'DRIVING' ? slot.drivingPerMinute : slot.parkingPerMinute);
  /** Milliseconds per slot, by phase. */
  const msBySlot = { DRIVING: slots.map(() => 0), PARKING: slots.map(() => 0) };
  if (mode === 'ENDING_TIMESLOT') {
    const slot = slotIndexAt(slots, billedMs);
    for (const piece of pieces) msBySlot[piece.phase][slot]! += piece.toMs - piece.fromMs;
  } else {
    for (const piece of pieces) {
      let from = piece.fromMs;
      let slot = slotIndexAt(slots, from + 1);
      while (from < piece.toMs) {
        const next = slot + 1 < slots.length ? slots[slot + 1]!.fromMinute * MINUTE_MS : Infinity;
        const to = Math.min(piece.toMs, next);
        msBySlot[piece.phase][slot]! += to - from;
        from = to;
        slot += 1;
      }
    }
  }
  const ordered = (['DRIVING', 'PARKING'] as const).flatMap((phase) =>
    msBySlot[phase].flatMap((ms, slot) => (ms > 0 ? [{ phase, slot, ms }] : [])),
  );
  return ordered.map(({ phase, slot, ms }) => {
    const rate = rateOf(slots[slot]!, phase);
    const label = slots[slot + 1]
      ? `minutes ${slots[slot]!.fromMinute}-${slots[slot + 1]!.fromMinute}`
      : `from minute ${slots[slot]!.fromMinute}`;
    return {
      code: `${phase}_SLOT_${slot + 1}`,
      group: 'TIME' as const,
      phase,
      description: `${phase === 'DRIVING' ? 'Driving' : 'Parking'}, time slot ${label}`,
      quantity: minutesOf(ms),
      unit: 'MINUTE' as const,
      unitPrice: rate,
      amount: rate.times(ms).div(MINUTE_MS),
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// Local time (business unit time zone), via Intl: available in Node and in the workflow sandbox

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        weekday: 'short',
      });
    } catch {
      throw new DomainError('ODP111', `unknown time zone ${timeZone}`);
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  minuteOfDay: number;
  weekday: string;
  /** Local wall time as if it were UTC, in ms: local minus offset. */
  wallMs: number;
}

/** The wall-clock date and time of an instant in a time zone. */
export function localParts(ms: number, timeZone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  const second = Number(parts.second);
  return {
    year,
    month,
    day,
    minuteOfDay: hour * 60 + minute,
    weekday: parts.weekday ?? '',
    wallMs: Date.UTC(year, month - 1, day, hour, minute, second) + (ms % 1000),
  };
}

/** The instant of a wall-clock time in a time zone (the later instant when DST repeats an hour). */
function instantOfLocal(
  year: number,
  month: number,
  day: number,
  minuteOfDay: number,
  timeZone: string,
): number {
  const wall = Date.UTC(year, month - 1, day, 0, minuteOfDay);
  const offset1 = localParts(wall, timeZone).wallMs - wall;
  const guess = wall - offset1;
  const offset2 = localParts(guess, timeZone).wallMs - guess;
  return wall - offset2;
}

const parseLocalTime = (value: string) => Number(value.slice(0, 2)) * 60 + Number(value.slice(3, 5));

type BookingTimeClass = 'BASE' | 'NIGHT' | 'WEEKEND';

/**
 * Splits [startMs, endMs) at local midnights and night-window edges and classifies each piece:
 * NIGHT inside the night window, else WEEKEND on local Saturdays and Sundays, else BASE.
 */
export function splitBookingTime(
  startMs: number,
  endMs: number,
  timeZone: string,
  nightWindow: { startLocalTime: string; endLocalTime: string } | null,
): { timeClass: BookingTimeClass; fromMs: number; toMs: number }[] {
  const nightStart = nightWindow ? parseLocalTime(nightWindow.startLocalTime) : -1;
  const nightEnd = nightWindow ? parseLocalTime(nightWindow.endLocalTime) : -1;
  const inNight = (minute: number) =>
    nightWindow !== null &&
    (nightStart < nightEnd
      ? minute >= nightStart && minute < nightEnd
      : minute >= nightStart || minute < nightEnd);
  const pieces: { timeClass: BookingTimeClass; fromMs: number; toMs: number }[] = [];
  let at = startMs;
  while (at < endMs) {
    const local = localParts(at, timeZone);
    const candidates = [instantOfLocal(local.year, local.month, local.day + 1, 0, timeZone)];
    if (nightWindow) {
      candidates.push(instantOfLocal(local.year, local.month, local.day, nightStart, timeZone));
      candidates.push(instantOfLocal(local.year, local.month, local.day, nightEnd, timeZone));
    }
    const next = Math.min(endMs, ...candidates.filter((candidate) => candidate > at));
    const timeClass: BookingTimeClass = inNight(local.minuteOfDay)
      ? 'NIGHT'
      : local.weekday === 'Sat' || local.weekday === 'Sun'
        ? 'WEEKEND'
        : 'BASE';
    const last = pieces.at(-1);
    if (last && last.timeClass === timeClass && last.toMs === at) last.toMs = next;
    else pieces.push({ timeClass, fromMs: at, toMs: next });
    at = next;
  }
  return pieces;
}

// ---------------------------------------------------------------------------------------------------
// Bookings

/** What a booking asks for: its window, the distance it expects or drove, additions and its actual return. */
export interface BookingPricingInput {
  startMs: number;
  endMs: number;
  distance: string;
  additions: readonly string[];
  /** When the vehicle was returned; later than endMs plus the grace period adds a late-return penalty. */
  returnedAtMs?: number;
}

/**
 * Prices a booking: base, night and weekend hourly rates by local time, the adaptive factor of long
 * bookings, unlock fee, distance beyond the daily allowance, additions and a late-return penalty.
 */
export function priceBooking(
  version: PricedVersion,
  input: BookingPricingInput,
  tax: TaxContext,
): PriceResult {
  const rules = version.rules.booking;
  if (version.bundleType !== 'BOOKING' || !rules)
    throw new DomainError('ODP110', 'bookings are priced by BOOKING bundles');
  if (
    !Number.isSafeInteger(input.startMs) ||
    !Number.isSafeInteger(input.endMs) ||
    input.endMs <= input.startMs
  )
    throw new DomainError('ODP111', 'endTime must be after startTime');
  if (input.endMs - input.startMs > MAX_PRICED_SPAN_MS)
    throw new DomainError('ODP111', 'a booking may last at most 366 days');
  const distance = checkDistance(input.distance);
  const lines: RawLine[] = [];
  const incrementMs = rules.billingIncrementMinutes * MINUTE_MS;
  const durationMs = input.endMs - input.startMs;
  const billedMs = Math.ceil(durationMs / incrementMs) * incrementMs;

  const pieces = splitBookingTime(input.startMs, input.endMs, tax.timeZoneId, rules.nightRate);
  pieces.at(-1)!.toMs += billedMs - durationMs;
  const byClass = new Map<BookingTimeClass, number>();
  for (const piece of pieces)
    byClass.set(piece.timeClass, (byClass.get(piece.timeClass) ?? 0) + piece.toMs - piece.fromMs);
  const hourly: Record<BookingTimeClass, string> = {
    BASE: rules.hourlyRate,
    NIGHT: rules.nightRate?.hourlyRate ?? rules.hourlyRate,
    WEEKEND: rules.weekendHourlyRate ?? rules.hourlyRate,
  };
  const labels: Record<BookingTimeClass, string> = {
    BASE: 'Base rate',
    NIGHT: 'Night rate',
    WEEKEND: 'Weekend rate',
  };
  let timeTotal = new Money(0);
  for (const timeClass of ['BASE', 'NIGHT', 'WEEKEND'] as const) {
    const ms = byClass.get(timeClass);
    if (!ms) continue;
    const rate = new Money(hourly[timeClass]);
    const amount = rate.times(ms).div(HOUR_MS);
    timeTotal = timeTotal.plus(amount);
    lines.push({
      code: `TIME_${timeClass}`,
      group: 'TIME',
      phase: null,
      description: labels[timeClass],
      quantity: new Money(ms).div(HOUR_MS),
      unit: 'HOUR',
      unitPrice: rate,
      amount,
    });
  }
  const hours = durationMs / HOUR_MS;
  const tier = [...rules.adaptiveRates]
    .sort((a, b) => b.minimumHours - a.minimumHours)
    .find((candidate) => hours >= candidate.minimumHours);
  if (tier && !new Money(tier.factor).eq(1)) {
    const factor = new Money(tier.factor);
    lines.push({
      code: 'ADAPTIVE_RATE',
      group: 'ADJUSTMENT',
      phase: null,
      description: `Adaptive rate from ${tier.minimumHours} hours (x${tier.factor})`,
      quantity: new Money(1),
      unit: 'PIECE',
      unitPrice: timeTotal.times(factor.minus(1)),
      amount: timeTotal.times(factor.minus(1)),
    });
  }
  const unlockFee = new Money(rules.unlockFee);
  if (!unlockFee.isZero()) lines.push(fixedLine('UNLOCK_FEE', 'UNLOCK', 'Unlock fee', unlockFee));

  const days = Math.max(1, Math.ceil(durationMs / DAY_MS));
  const charged = Money.max(0, distance.minus(new Money(rules.includedDistancePerDay).times(days)));
  if (charged.gt(0)) lines.push(distanceLine(version.distanceUnit, charged, rules.distancePerUnit));

  const unknown = input.additions.filter(
    (code) => !rules.additions.some((addition) => addition.code === code),
  );
  if (unknown.length) throw new DomainError('ODP111', `unknown additions: ${unknown.join(', ')}`);
  for (const code of new Set(input.additions)) {
    const addition = rules.additions.find((candidate) => candidate.code === code)!;
    const price = new Money(addition.price);
    const quantity = addition.per === 'DAY' ? new Money(days) : new Money(1);
    lines.push({
      code: `ADDITION_${addition.code}`,
      group: 'ADDITION',
      phase: null,
      description: addition.name,
      quantity,
      unit: addition.per === 'DAY' ? 'DAY' : 'PIECE',
      unitPrice: price,
      amount: price.times(quantity),
    });
  }

  if (input.returnedAtMs !== undefined) {
    if (!Number.isSafeInteger(input.returnedAtMs)) throw new DomainError('ODP111', 'returnedAt is invalid');
    const lateMs = input.returnedAtMs - input.endMs;
    if (lateMs > rules.lateReturn.graceMinutes * MINUTE_MS) {
      const lateBilled = Math.ceil(lateMs / incrementMs) * incrementMs;
      const rate = new Money(rules.lateReturn.hourlyRate);
      lines.push({
        code: 'LATE_RETURN',
        group: 'PENALTY',
        phase: null,
        description: 'Late return',
        quantity: new Money(lateBilled).div(HOUR_MS),
        unit: 'HOUR',
        unitPrice: rate,
        amount: rate.times(lateBilled).div(HOUR_MS),
      });
    }
  }
  return buildResult(version, tax, lines);
}

/** Cancellation terms of a booking at a given moment: the spec's cancellationInformation. */
export function bookingCancellation(
  version: PricedVersion,
  startMs: number,
  atMs: number,
  tax: TaxContext,
): { cancellable: boolean; freeCancellationDeadline: string; estimatedFee: string } {
  const rules = version.rules.booking;
  if (version.bundleType !== 'BOOKING' || !rules)
    throw new DomainError('ODP110', 'bookings are priced by BOOKING bundles');
  const deadline = startMs - rules.cancellation.freeUntilMinutesBefore * MINUTE_MS;
  const fee = atMs < deadline ? new Money(0) : new Money(rules.cancellation.fee);
  const result = buildResult(version, tax, [
    fixedLine('CANCELLATION_FEE', 'PENALTY', 'Cancellation fee', fee),
  ]);
  return {
    cancellable: rules.cancellation.cancellable,
    freeCancellationDeadline: new Date(deadline).toISOString(),
    estimatedFee: result.price.total,
  };
}

// ---------------------------------------------------------------------------------------------------
// Versions in time

/** A version as the "which version applies" rule sees it. */
export interface VersionInTime {
  id: number;
  status: PricingVersionStatus;
  effectiveFrom: number | null;
  validUntil: number | null;
}

/**
 * The version that applies at `atMs`: among published versions (PUBLISHED, or SUPERSEDED/EXPIRED since),
 * the one with the latest effective date not after `atMs`, unless its validity ended before. Never a
 * draft or an archived version; undefined when none applies.
 */
export function applicableVersion<V extends VersionInTime>(
  versions: readonly V[],
  atMs: number,
): V | undefined {
  let best: V | undefined;
  for (const version of versions) {
    if (version.status === 'DRAFT' || version.status === 'ARCHIVED' || version.effectiveFrom === null)
      continue;
    if (version.effectiveFrom > atMs) continue;
    if (
      !best ||
      version.effectiveFrom > best.effectiveFrom! ||
      (version.effectiveFrom === best.effectiveFrom! && version.id > best.id)
    )
      best = version;
  }
  if (best && best.validUntil !== null && best.validUntil <= atMs) return undefined;
  return best;
}

/** How far in the past an effective date may lie and still mean "now" (clock skew, slow requests). */
export const EFFECTIVE_DATE_TOLERANCE_MS = 5 * MINUTE_MS;
/** How far ahead a publication may be scheduled (bounds the workflow's timers). */
export const MAX_SCHEDULE_AHEAD_MS = 3653 * DAY_MS;

/**
 * Why a version cannot be published now, or undefined: only a DRAFT of a live bundle, effective from
 * now on, after every other published version of the bundle, valid until a later date if bounded.
 */
export function publicationRefusal(check: {
  bundleArchived: boolean;
  status: PricingVersionStatus;
  effectiveFromMs: number;
  validUntilMs: number | null;
  nowMs: number;
  publishedEffectiveFromMs: readonly number[];
}): DomainError | undefined {
  if (check.bundleArchived) return new DomainError('ODP100', 'the pricing bundle is archived');
  if (check.status !== 'DRAFT')
    return new DomainError('ODP102', `version is ${check.status}; only a DRAFT can be published`);
  if (
    !Number.isFinite(check.effectiveFromMs) ||
    check.effectiveFromMs < check.nowMs - EFFECTIVE_DATE_TOLERANCE_MS
  )
    return new DomainError('ODP105', 'effectiveFrom lies in the past');
  if (check.effectiveFromMs > check.nowMs + MAX_SCHEDULE_AHEAD_MS)
    return new DomainError('ODP105', 'effectiveFrom may lie at most 10 years ahead');
  if (check.validUntilMs !== null && !(check.validUntilMs > check.effectiveFromMs))
    return new DomainError('ODP105', 'validUntil must be after effectiveFrom');
  if (check.validUntilMs !== null && check.validUntilMs > check.nowMs + 2 * MAX_SCHEDULE_AHEAD_MS)
    return new DomainError('ODP105', 'validUntil may lie at most 20 years ahead');
  const latest = Math.max(-Infinity, ...check.publishedEffectiveFromMs);
  if (latest >= check.effectiveFromMs)
    return new DomainError(
      'ODP105',
      `another published version takes effect at ${new Date(latest).toISOString()}; choose a later date`,
    );
  return undefined;
}

/**
 * A single fixed fee (a booking's cancellation or no-show fee) priced as a result of its own, taxed and
 * rounded like every other price of the version, so it can become an invoice.
 */
export function priceFee(
  version: PricedVersion,
  tax: TaxContext,
  fee: { code: string; description: string; amount: string },
): PriceResult {
  return buildResult(version, tax, [fixedLine(fee.code, 'PENALTY', fee.description, new Money(fee.amount))]);
}
