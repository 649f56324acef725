// Bookings priced from their window (pure): base, night and weekend hourly rates by the business unit's
// local time, the adaptive factor of long bookings, unlock fee, distance, additions, late return.
import { DomainError } from './errors.js';
import {
  DAY_MS,
  HOUR_MS,
  MAX_PRICED_SPAN_MS,
  MINUTE_MS,
  Money,
  buildResult,
  checkDistance,
  distanceLine,
  fixedLine,
  type RawLine,
} from './price-lines.js';
import type { PricedVersion, PriceResult, TaxContext } from './pricing.js';

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
  return buildResult(version, tax, bookingLines(version, input, tax));
}

/** The lines of a booking before rounding (`priceBooking`; benefits apply to them). */
export function bookingLines(version: PricedVersion, input: BookingPricingInput, tax: TaxContext): RawLine[] {
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
  return lines;
}
