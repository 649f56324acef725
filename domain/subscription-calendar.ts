// The subscription calendar: where each period of a user subscription ends, for the plan's interval, in
// the time zone of the business unit that bills it. Pure (Intl for the zone's offsets, no I/O), so the
// subscription workflow computes its timers with it and replays them identically.
//
// - DAILY, WEEKLY: the anchor's local wall-clock time, 1 or 7 local days later (a DST change makes a
//   period 23 or 25 hours long, never moves the time of day).
// - MONTHLY, YEARLY: the anchor's local day and time n months (12·n) later, counted from the anchor, not
//   from the previous end: 31 January → 28/29 February → 31 March; 29 February → 28 February in common
//   years → 29 February in the next leap year.
// - FIRST_OF_MONTH, FIRST_OF_YEAR: local midnight of the first day of each month (1 January of each year)
//   after the anchor; the first period runs from the purchase to the first such midnight.
// A wall-clock time a spring-forward gap skips resolves to the instant after the gap (02:30 in Berlin on
// the last Sunday of March is 03:30 CEST); a time repeated by a fall-back resolves to its first occurrence.

/** The plan intervals of the spec. */
export const subscriptionIntervals = [
  'DAILY',
  'WEEKLY',
  'MONTHLY',
  'FIRST_OF_MONTH',
  'YEARLY',
  'FIRST_OF_YEAR',
] as const;
export type SubscriptionInterval = (typeof subscriptionIntervals)[number];

/** Where a subscription's calendar starts: an instant and the zone its wall clock is read in. */
export interface CalendarAnchor {
  /** Epoch ms of the start of the anchor's first period (the purchase, or an immediate switch). */
  atMs: number;
  /** IANA zone of the billing business unit (an unknown zone reads as UTC). */
  timeZone: string;
  interval: SubscriptionInterval;
}

/** A local wall-clock date and time. Months 1-12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether Intl knows the IANA zone (what a purchase checks before it pins the zone). */
export function isCalendarTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

const zoneOf = (timeZone: string) => (isCalendarTimeZone(timeZone) ? timeZone : 'UTC');

/** The local wall clock of an instant in a zone. */
export function wallClockAt(atMs: number, timeZone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const part of formatterOf(zoneOf(timeZone)).formatToParts(new Date(atMs)))
    parts[part.type] = part.value;
  const yearOfEra = Number(parts.year);
  return {
    year: parts.era === 'BC' || parts.era === 'B' ? 1 - yearOfEra : yearOfEra,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    millisecond: ((atMs % 1000) + 1000) % 1000,
  };
}

/** A wall clock read as if it were UTC: the arithmetic of local dates without a zone. */
function wallAsUtc(wall: WallClock): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond);
  return date.getTime();
}

/** The zone's offset from UTC at an instant, in ms (local = UTC + offset). */
export function zoneOffsetMs(atMs: number, timeZone: string): number {
  return wallAsUtc(wallClockAt(atMs, timeZone)) - atMs;
}

const HOUR_MS = 3_600_000;

/**
 * The instant of a local wall-clock time in a zone. A time skipped by a DST gap resolves to the instant
 * after the gap (the offset before it applied to the wall clock); a repeated time to its first occurrence.
 */
export function instantOfWallClock(wall: WallClock, timeZone: string): number {
  const zone = zoneOf(timeZone);
  const local = wallAsUtc(wall);
  // The offsets around the wall time: a transition within a day either side is the only ambiguity.
  const before = zoneOffsetMs(local - 24 * HOUR_MS, zone);
  const after = zoneOffsetMs(local + 24 * HOUR_MS, zone);
  const candidates = [local - before, local - after].filter(
    (instant) => wallAsUtc(wallClockAt(instant, zone)) === local,
  );
  if (candidates.length > 0) return Math.min(...candidates);
  // Neither offset reads back: the time lies in a gap; the offset before the gap moves it past it.
  return local - before;
}

/** Days in a month of the proleptic Gregorian calendar (month 1-12). */
export function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** Adds whole local days to a wall clock's date (the time of day is kept). */
function plusDays(wall: WallClock, days: number): WallClock {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day + days);
  return { ...wall, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** Adds whole months to a wall clock, keeping its day where the month has it, else the month's last day. */
function plusMonths(wall: WallClock, months: number): WallClock {
  const index = wall.year * 12 + (wall.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { ...wall, year, month, day: Math.min(wall.day, daysInMonth(year, month)) };
}

const midnight = { hour: 0, minute: 0, second: 0, millisecond: 0 };

/**
 * The end of the anchor's n-th period (n ≥ 1), epoch ms; n = 0 is the anchor itself. Each end is
 * computed from the anchor, so no rounding carries from one period into the next.
 */
export function periodBoundary(anchor: CalendarAnchor, n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`period ${n} is not a whole number ≥ 0`);
  if (n === 0) return anchor.atMs;
  const start = wallClockAt(anchor.atMs, anchor.timeZone);
  let wall: WallClock;
  switch (anchor.interval) {
    case 'DAILY':
      wall = plusDays(start, n);
      break;
    case 'WEEKLY':
      wall = plusDays(start, 7 * n);
      break;
    case 'MONTHLY':
      wall = plusMonths(start, n);
      break;
    case 'YEARLY':
      wall = plusMonths(start, 12 * n);
      break;
    case 'FIRST_OF_MONTH':
      wall = { ...plusMonths({ ...start, day: 1 }, n), ...midnight };
      break;
    case 'FIRST_OF_YEAR':
      wall = { ...start, year: start.year + n, month: 1, day: 1, ...midnight };
      break;
  }
  return instantOfWallClock(wall, anchor.timeZone);
}

/** One period of a subscription: its number (1 = the first) and its bounds [startMs, endMs). */
export interface CalendarPeriod {
  number: number;
  startMs: number;
  endMs: number;
}

/** The anchor's n-th period (n ≥ 1). */
export function calendarPeriod(anchor: CalendarAnchor, n: number): CalendarPeriod {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`period ${n} is not a whole number ≥ 1`);
  return { number: n, startMs: periodBoundary(anchor, n - 1), endMs: periodBoundary(anchor, n) };
}

/** Rough length of a period, for the first guess of `periodContaining`. */
const typicalPeriodMs: Record<SubscriptionInterval, number> = {
  DAILY: 24 * HOUR_MS,
  WEEKLY: 7 * 24 * HOUR_MS,
  MONTHLY: 30.436875 * 24 * HOUR_MS,
  FIRST_OF_MONTH: 30.436875 * 24 * HOUR_MS,
  YEARLY: 365.2425 * 24 * HOUR_MS,
  FIRST_OF_YEAR: 365.2425 * 24 * HOUR_MS,
};

/** The period containing an instant at or after the anchor (its start ≤ atMs < its end). */
export function periodContaining(anchor: CalendarAnchor, atMs: number): CalendarPeriod {
  if (atMs < anchor.atMs) throw new RangeError('the instant is before the anchor');
  let n = Math.max(1, Math.floor((atMs - anchor.atMs) / typicalPeriodMs[anchor.interval]));
  while (n > 1 && periodBoundary(anchor, n - 1) > atMs) n--;
  while (periodBoundary(anchor, n) <= atMs) n++;
  return calendarPeriod(anchor, n);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `YYYY-MM-DD HH:mm` of an instant in a zone (invoice lines name their period with it). */
export function formatWallClock(atMs: number, timeZone: string): string {
  const wall = wallClockAt(atMs, timeZone);
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)} ${pad(wall.hour)}:${pad(wall.minute)}`;
}
