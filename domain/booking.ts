// Pure booking rules shared by the API, activities and workflows (no I/O, no Node built-ins).
//
// A booking reserves a vehicle category (or a named vehicle) at a booking station for a window. Its
// workflow owns the timeline (docs/bookings.md): approval, delivery of a vehicle, check-in, pickup into a
// rental, and the end states. These functions decide what the timeline allows; they never read a clock
// themselves (callers pass `nowMs`), so workflows can use them deterministically.

export const bookingStates = [
  'BOOKED',
  'APPROVED',
  'DELIVERED',
  'SUCCESSFUL',
  'CANCELED',
  'ABORTED',
  'EXPIRED',
  'DECLINED',
] as const;
export type BookingState = (typeof bookingStates)[number];

/** States in which a booking holds its vehicle (or a unit of its category's capacity) for its window. */
export const holdingBookingStates: readonly BookingState[] = ['BOOKED', 'APPROVED', 'DELIVERED'];

/** States a booking never leaves. */
export const terminalBookingStates: readonly BookingState[] = [
  'SUCCESSFUL',
  'CANCELED',
  'ABORTED',
  'EXPIRED',
  'DECLINED',
];

/** Whether a state (of the booking, or of its workflow before the row exists) is one a booking never leaves. */
export function isTerminalBookingState(state: string): boolean {
  return (terminalBookingStates as readonly string[]).includes(state);
}

export const bookingTypes = ['STATION', 'FLOATING'] as const;
export type BookingType = (typeof bookingTypes)[number];

export const bookingRentalTypes = ['PRIVATE', 'BUSINESS'] as const;
export type BookingRentalType = (typeof bookingRentalTypes)[number];

/** Approval of a booking created as a request (`bookingRequest: true`); null for a plain booking. */
export const bookingApprovalStates = ['PENDING', 'APPROVED', 'DECLINED'] as const;
export type BookingApprovalState = (typeof bookingApprovalStates)[number];

/** Where a booking's trip goes relative to a branch (the list filter directionsRelativeToBranch). */
export const bookingDirections = ['INBOUND', 'OUTBOUND', 'ROUND_TRIP'] as const;
export type BookingDirection = (typeof bookingDirections)[number];

/** Kinds of conflict a booking window can run into (validation results carry it as conflictType). */
export const bookingConflictTypes = [
  'VEHICLE_UNAVAILABLE',
  'CATEGORY_UNAVAILABLE',
  'STATION_CAPACITY_EXCEEDED',
  'COOLDOWN_OVERLAP',
  'STATION_CLOSED',
] as const;
export type BookingConflictType = (typeof bookingConflictTypes)[number];

/** The `booking.settings` setting (per branch, tenant fallback on branch 0): the timeline's clocks. */
export interface BookingSettings {
  /** A booking must start at least this far ahead (operators may pass ignoreTimeConstraints). */
  minLeadMinutes: number;
  /** And at most this far ahead. */
  maxAdvanceDays: number;
  /** Longest booking window. */
  maxDurationDays: number;
  /** Shortest booking window. */
  minDurationMinutes: number;
  /** A request still awaiting approval this long before its start expires (EXPIRED). */
  approvalDeadlineMinutesBeforeStart: number;
  /** The workflow delivers a vehicle on its own this long before the start when none was delivered yet. */
  autoDeliveryMinutesBeforeStart: number;
  /** Check-in and pickup open this long before the start. */
  pickupEarlyMinutes: number;
  /** Pickup stays possible this long after the start; then the booking is a no-show (EXPIRED). */
  pickupLateMinutes: number;
  /** Fee charged for a no-show (decimal string, "0" for none). */
  noShowFee: string;
  /** A running booking's rental is overdue this long after the booking's end. */
  overdueGraceMinutes: number;
  /** Granularity of the drop-off time slots. */
  dropoffSlotMinutes: number;
}

export const BOOKING_SETTINGS_KEY = 'booking.settings';

export const defaultBookingSettings: BookingSettings = {
  minLeadMinutes: 15,
  maxAdvanceDays: 365,
  maxDurationDays: 30,
  minDurationMinutes: 30,
  approvalDeadlineMinutesBeforeStart: 60,
  autoDeliveryMinutesBeforeStart: 120,
  pickupEarlyMinutes: 30,
  pickupLateMinutes: 60,
  noShowFee: '0',
  overdueGraceMinutes: 15,
  dropoffSlotMinutes: 30,
};

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** A half-open interval on the clock, epoch milliseconds. */
export interface Interval {
  startMs: number;
  endMs: number;
}

/** Whether two half-open intervals overlap. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.startMs < b.endMs && b.startMs < a.endMs;
}

/**
 * The time a booking holds its vehicle: its window widened by the cooldowns of its start and end stations
 * (preparation before the pickup, cleaning and charging after the return).
 */
export function heldInterval(
  window: Interval,
  cooldown: { startStationCooldownMinutes: number; endStationCooldownMinutes: number },
): Interval {
  return {
    startMs: window.startMs - cooldown.startStationCooldownMinutes * MINUTE_MS,
    endMs: window.endMs + cooldown.endStationCooldownMinutes * MINUTE_MS,
  };
}

/**
 * Why a requested window cannot be booked (catalogue code and reason), or undefined. `ignoreTimeConstraints`
 * (operators with the privilege) lifts the lead time and the advance limit, never the window's own sense.
 */
export function bookingWindowRefusal(
  window: Interval,
  nowMs: number,
  settings: BookingSettings,
  { ignoreTimeConstraints = false } = {},
): { code: 'B301'; reason: string } | undefined {
  if (!Number.isSafeInteger(window.startMs) || !Number.isSafeInteger(window.endMs))
    return { code: 'B301', reason: 'startTime and endTime must be valid date-times' };
  if (window.endMs <= window.startMs) return { code: 'B301', reason: 'endTime must be after startTime' };
  const duration = window.endMs - window.startMs;
  if (duration < settings.minDurationMinutes * MINUTE_MS)
    return { code: 'B301', reason: `a booking lasts at least ${settings.minDurationMinutes} minutes` };
  if (duration > settings.maxDurationDays * DAY_MS)
    return { code: 'B301', reason: `a booking lasts at most ${settings.maxDurationDays} days` };
  if (ignoreTimeConstraints) return undefined;
  if (window.startMs < nowMs + settings.minLeadMinutes * MINUTE_MS)
    return {
      code: 'B301',
      reason: `a booking starts at least ${settings.minLeadMinutes} minutes from now`,
    };
  if (window.startMs > nowMs + settings.maxAdvanceDays * DAY_MS)
    return { code: 'B301', reason: `a booking starts at most ${settings.maxAdvanceDays} days ahead` };
  return undefined;
}

/** When pickup (and check-in) is possible: from `pickupEarlyMinutes` before the start to `pickupLateMinutes` after. */
export function pickupWindow(startMs: number, settings: BookingSettings): Interval {
  return {
    startMs: startMs - settings.pickupEarlyMinutes * MINUTE_MS,
    endMs: startMs + settings.pickupLateMinutes * MINUTE_MS,
  };
}

/** The moments the booking workflow acts on its own. */
export interface BookingDeadlines {
  /** A request still PENDING then expires. */
  approvalDeadlineMs: number;
  /** An undelivered booking gets a vehicle delivered automatically from then on. */
  autoDeliveryAtMs: number;
  /** Not picked up by then: no-show (EXPIRED); no vehicle delivered by then: ABORTED. */
  noShowAtMs: number;
  /** The rental of the booking is overdue from then on. */
  overdueAtMs: number;
}

/** The booking's deadlines from its window and the branch's settings. */
export function bookingDeadlines(window: Interval, settings: BookingSettings): BookingDeadlines {
  return {
    approvalDeadlineMs: window.startMs - settings.approvalDeadlineMinutesBeforeStart * MINUTE_MS,
    autoDeliveryAtMs: window.startMs - settings.autoDeliveryMinutesBeforeStart * MINUTE_MS,
    noShowAtMs: pickupWindow(window.startMs, settings).endMs,
    overdueAtMs: window.endMs + settings.overdueGraceMinutes * MINUTE_MS,
  };
}

/** The facts about a booking that decide which transitions it allows and where they lead. */
export interface BookingFacts {
  state: BookingState;
  approvalState: BookingApprovalState | null;
  hasVehicle: boolean;
  hasRental: boolean;
}

/** What the booking's own API asks of it (PATCH, approval, deliver, check-in, pickup, cancel, extend). */
export type BookingOperation =
  'UPDATE' | 'APPROVE' | 'DECLINE' | 'DELIVER' | 'CHECK_IN' | 'PICKUP' | 'CANCEL' | 'EXTEND';

/** How the workflow's timers end a booking: the approval deadline passed, a no-show, no vehicle delivered. */
export type BookingTimerEnding = 'APPROVAL_DEADLINE' | 'NO_SHOW' | 'NO_VEHICLE';

/** Every transition of a booking: its creation, its operations, its timers' endings and what its rental reports. */
export type BookingTransitionName =
  'CREATE' | BookingOperation | BookingTimerEnding | 'OVERDUE' | 'RENTAL_ENDED' | 'RENTAL_NEVER_STARTED';

/** A refusal of a transition: its catalogue code and the reason the caller reads. */
export interface BookingRefusal {
  code: 'B304' | 'B307' | 'B312' | 'B314';
  reason: string;
}

/** One allowed transition of a booking: where it may start, where it leads, what it records, how it is refused. */
export interface BookingTransition {
  /**
   * Booking states it may start from; absent for what the booking's rental reports (overdue, its end),
   * which the booking records as it comes: it never refuses them.
   */
  from?: readonly BookingState[];
  /** Code refusing a state outside `from` (B304 unless said). */
  stateRefusalCode?: 'B304' | 'B314';
  /** Added to "the booking is {state}" when a holding state is outside `from`. */
  stateRefusal?: string;
  /** Approval states it may start from (null: a plain booking) and the refusal of the others; absent: any. */
  approval?: { from: readonly (BookingApprovalState | null)[]; refusal: BookingRefusal };
  /** Refused with B312 once the booking's rental exists (the booking was picked up). */
  rental?: 'none';
  /** Where it leads; absent: the state stays. */
  to?: BookingState;
  /** Where it leads instead when the booking has its vehicle and awaits no approval. */
  toWithVehicle?: BookingState;
  /** The approval state it sets. */
  approvalTo?: BookingApprovalState;
  /** Event type recorded with the transition. */
  event: string;
}

const beforeRental = { from: holdingBookingStates, rental: 'none' } as const;

/**
 * The booking transition table (docs/bookings.md): the workflow's update validators refuse what it does
 * not allow, and the booking's writes (db/booking-lifecycle.ts, db/booking-creation.ts) check it, take
 * their new state from it and record its event.
 */
export const bookingTransitions: Readonly<Record<BookingTransitionName, BookingTransition>> = {
  CREATE: { from: [], to: 'BOOKED', toWithVehicle: 'DELIVERED', event: 'BOOKING_CREATED' },
  UPDATE: { ...beforeRental, event: 'BOOKING_UPDATED' },
  APPROVE: {
    ...beforeRental,
    approval: {
      from: ['PENDING'],
      refusal: { code: 'B307', reason: 'the booking is not awaiting approval' },
    },
    to: 'APPROVED',
    toWithVehicle: 'DELIVERED',
    approvalTo: 'APPROVED',
    event: 'BOOKING_APPROVAL',
  },
  DECLINE: {
    ...beforeRental,
    approval: {
      from: ['PENDING'],
      refusal: { code: 'B307', reason: 'the booking is not awaiting approval' },
    },
    to: 'DECLINED',
    approvalTo: 'DECLINED',
    event: 'BOOKING_APPROVAL',
  },
  DELIVER: {
    ...beforeRental,
    approval: {
      from: [null, 'APPROVED', 'DECLINED'],
      refusal: { code: 'B304', reason: 'the booking awaits approval; approve it before delivering' },
    },
    to: 'DELIVERED',
    event: 'BOOKING_DELIVERED',
  },
  CHECK_IN: {
    from: ['DELIVERED'],
    stateRefusal: 'a vehicle must be delivered first',
    rental: 'none',
    event: 'BOOKING_CHECKED_IN',
  },
  PICKUP: {
    from: ['DELIVERED'],
    stateRefusal: 'a vehicle must be delivered first',
    rental: 'none',
    event: 'BOOKING_PICKUP',
  },
  CANCEL: { ...beforeRental, to: 'CANCELED', event: 'BOOKING_CANCELED' },
  EXTEND: { from: holdingBookingStates, stateRefusalCode: 'B314', event: 'BOOKING_TIMESLOT' },
  APPROVAL_DEADLINE: { ...beforeRental, to: 'EXPIRED', approvalTo: 'DECLINED', event: 'BOOKING_EXPIRED' },
  NO_SHOW: { ...beforeRental, to: 'EXPIRED', event: 'BOOKING_EXPIRED' },
  NO_VEHICLE: { ...beforeRental, to: 'ABORTED', event: 'BOOKING_ABORTED' },
  OVERDUE: { event: 'BOOKING_OVERDUE' },
  RENTAL_ENDED: { to: 'SUCCESSFUL', event: 'BOOKING_SUCCESSFUL' },
  RENTAL_NEVER_STARTED: { to: 'ABORTED', event: 'BOOKING_ABORTED' },
};

/**
 * Why the transition table refuses a transition of a booking (B304 or EXTEND's B314: wrong state; B307:
 * not awaiting approval; B312: the booking already runs as a rental), or undefined when it allows it.
 * Time windows, admission and requirements are checked separately.
 */
export function bookingTransitionRefusal(
  name: BookingTransitionName,
  facts: BookingFacts,
): BookingRefusal | undefined {
  const transition = bookingTransitions[name];
  const outside = transition.from !== undefined && !transition.from.includes(facts.state);
  const code = transition.stateRefusalCode ?? 'B304';
  if (outside && isTerminalBookingState(facts.state))
    return { code, reason: `the booking is ${facts.state}` };
  if (transition.rental === 'none' && facts.hasRental)
    return { code: 'B312', reason: 'the booking was picked up; its rental is running' };
  if (transition.approval && !transition.approval.from.includes(facts.approvalState))
    return transition.approval.refusal;
  if (outside)
    return {
      code,
      reason: [`the booking is ${facts.state}`, transition.stateRefusal].filter(Boolean).join('; '),
    };
  return undefined;
}

/**
 * Where a transition leads a booking: its `toWithVehicle` when the booking has its vehicle and (after
 * the transition) awaits no approval, else its `to`, else the state stays.
 */
export function bookingStateAfter(
  name: BookingTransitionName,
  facts: { state?: BookingState; approvalState: BookingApprovalState | null; hasVehicle: boolean },
): BookingState {
  const transition = bookingTransitions[name];
  if (transition.toWithVehicle && facts.hasVehicle && facts.approvalState !== 'PENDING')
    return transition.toWithVehicle;
  const state = transition.to ?? facts.state;
  if (state === undefined) throw new Error(`${name} keeps the state: name the booking's state`);
  return state;
}

/**
 * Whether a booking is overdue at `nowMs`: its rental runs past the end plus the grace period. Only a
 * picked-up booking can be overdue; one never picked up becomes a no-show instead.
 */
export function isOverdue(
  booking: { state: BookingState; endMs: number; pickedUp: boolean; returned: boolean },
  nowMs: number,
  settings: Pick<BookingSettings, 'overdueGraceMinutes'>,
): boolean {
  return (
    booking.pickedUp &&
    !booking.returned &&
    !terminalBookingStates.includes(booking.state) &&
    nowMs > booking.endMs + settings.overdueGraceMinutes * MINUTE_MS
  );
}

/** The direction of a booking relative to a branch: leaves it, arrives at it, or both (round trip). */
export function bookingDirection(
  booking: { branchId: number; endBranchId: number },
  branchId: number,
): BookingDirection | undefined {
  const leaves = booking.branchId === branchId;
  const arrives = booking.endBranchId === branchId;
  if (leaves && arrives) return 'ROUND_TRIP';
  if (leaves) return 'OUTBOUND';
  if (arrives) return 'INBOUND';
  return undefined;
}

/**
 * Vehicles still free when demand without a named vehicle is served from a pool: the pool's free vehicles
 * minus the most unassigned bookings overlapping at any one moment of the window (a sweep over their
 * starts and ends), never below zero.
 */
export function freeCapacity(
  freeVehicles: number,
  window: Interval,
  unassigned: readonly Interval[],
): number {
  const points: Array<[number, number]> = [];
  for (const interval of unassigned) {
    if (!overlaps(interval, window)) continue;
    points.push([Math.max(interval.startMs, window.startMs), 1]);
    points.push([Math.min(interval.endMs, window.endMs), -1]);
  }
  // Ends sort before starts at the same instant: half-open intervals that touch do not overlap.
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of points) {
    current += delta;
    peak = Math.max(peak, current);
  }
  return Math.max(0, freeVehicles - peak);
}

// ---------------------------------------------------------------------------------------------------
// Station clocks: opening hours in the station's time zone (Intl only: no tz library, no Node built-ins)

/** Opening hours of a station: per ISO weekday (1 = Monday … 7 = Sunday), local "HH:mm" ranges ("24:00" ends a day). */
export type WeeklyOpeningHours = Partial<
  Record<'1' | '2' | '3' | '4' | '5' | '6' | '7', ReadonlyArray<{ from: string; to: string }>>
>;

const isoWeekdays = ['1', '2', '3', '4', '5', '6', '7'] as const;
const weekdayNumbers: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = zoneFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    zoneFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether Intl knows the IANA time zone. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    zoneFormatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of an instant in a time zone (an unknown zone reads as UTC). */
export interface LocalClock {
  /** `YYYY-MM-DD`. */
  date: string;
  /** ISO weekday, 1 = Monday. */
  weekday: number;
  /** Minutes since local midnight. */
  minutes: number;
}

/** The local date, weekday and minute of day of an instant in a time zone. */
export function localClock(ms: number, timeZone: string): LocalClock {
  const formatter = isKnownTimeZone(timeZone) ? zoneFormatter(timeZone) : zoneFormatter('UTC');
  const parts = Object.fromEntries(formatter.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: weekdayNumbers[parts.weekday!] ?? 1,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** Offset of the zone from UTC at an instant, in milliseconds (local = UTC + offset). */
function zoneOffsetMs(ms: number, timeZone: string): number {
  const formatter = isKnownTimeZone(timeZone) ? zoneFormatter(timeZone) : zoneFormatter('UTC');
  const parts = Object.fromEntries(formatter.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant of a local wall-clock time (`date` YYYY-MM-DD plus minutes since midnight, up to 1440) in a
 * zone. A time skipped by a DST change resolves to the instant after the gap's offset; a repeated one to
 * its first occurrence.
 */
export function zonedInstant(date: string, minutes: number, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, day) + minutes * MINUTE_MS;
  const first = wall - zoneOffsetMs(wall, timeZone);
  const second = wall - zoneOffsetMs(first, timeZone);
  return Math.min(first, second);
}

/** The local date after `date` (YYYY-MM-DD). */
export function nextDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
}

const clockMinutes = (text: string) => {
  const [hours, minutes] = text.split(':').map(Number) as [number, number];
  return hours * 60 + minutes;
};

/** Problems of an opening-hours table (empty when valid): "HH:mm" ranges, from before to, no overlaps. */
export function openingHoursProblems(hours: WeeklyOpeningHours): string[] {
  const problems: string[] = [];
  for (const [day, ranges] of Object.entries(hours)) {
    if (!(isoWeekdays as readonly string[]).includes(day)) {
      problems.push(`weekday ${day} is not 1 (Monday) to 7 (Sunday)`);
      continue;
    }
    const sorted = [...(ranges ?? [])].sort((a, b) => clockMinutes(a.from) - clockMinutes(b.from));
    sorted.forEach((range, index) => {
      if (
        !/^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(range.from) ||
        !/^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$/.test(range.to)
      )
        problems.push(`weekday ${day}: ${range.from}-${range.to} is not HH:mm-HH:mm`);
      else if (clockMinutes(range.from) >= clockMinutes(range.to))
        problems.push(`weekday ${day}: ${range.from} is not before ${range.to}`);
      const previous = sorted[index - 1];
      if (previous && clockMinutes(range.from) < clockMinutes(previous.to))
        problems.push(`weekday ${day}: ${previous.from}-${previous.to} overlaps ${range.from}-${range.to}`);
    });
  }
  return problems;
}

/**
 * Whether a station is open at an instant (null hours: always open). A pickup needs `from <= t < to`, a
 * return `from < t <= to`: a vehicle can be returned at closing time, not picked up then.
 */
export function isOpenAt(
  hours: WeeklyOpeningHours | null | undefined,
  timeZone: string,
  ms: number,
  moment: 'pickup' | 'return',
): boolean {
  if (!hours) return true;
  const clock = localClock(ms, timeZone);
  const rangesOf = (weekday: number) => hours[String(weekday) as keyof WeeklyOpeningHours] ?? [];
  const inside = rangesOf(clock.weekday).some((range) =>
    moment === 'pickup'
      ? clockMinutes(range.from) <= clock.minutes && clock.minutes < clockMinutes(range.to)
      : clockMinutes(range.from) < clock.minutes && clock.minutes <= clockMinutes(range.to),
  );
  if (inside || moment === 'pickup' || clock.minutes !== 0) return inside;
  // A return at local midnight closes the previous day's range that runs to 24:00.
  return rangesOf(((clock.weekday + 5) % 7) + 1).some((range) => range.to === '24:00');
}

/** The local day's open span (earliest opening to latest closing, minutes), or undefined when closed all day. */
export function openSpanOfDay(
  hours: WeeklyOpeningHours | null | undefined,
  weekday: number,
): { fromMinutes: number; toMinutes: number } | undefined {
  if (!hours) return { fromMinutes: 0, toMinutes: 24 * 60 };
  const ranges = hours[String(weekday) as keyof WeeklyOpeningHours] ?? [];
  if (!ranges.length) return undefined;
  return {
    fromMinutes: Math.min(...ranges.map((range) => clockMinutes(range.from))),
    toMinutes: Math.max(...ranges.map((range) => clockMinutes(range.to))),
  };
}

/** The ISO weekday of a local date (YYYY-MM-DD). */
export function weekdayOfDate(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;
}

// ---------------------------------------------------------------------------------------------------
// Pools and station flows, evaluated in memory (admission, availability days, slots and forecasts share them)

/** One holding booking of a pool: its held interval and its vehicle when delivered. */
export interface PoolHold extends Interval {
  bookingId: number;
  vehicleId: number | null;
}

/**
 * How many more bookings without a named vehicle a pool takes for `held`: its usable vehicles that no
 * named hold touches during `held`, minus the most vehicle-less holds overlapping at one moment of it.
 * The same rule as `poolCapacity` in db/booking-availability.ts, over rows loaded once.
 */
export function poolRemaining(
  usableVehicleIds: readonly number[],
  holds: readonly PoolHold[],
  held: Interval,
  excludeBookingId?: number,
): { freeVehicleIds: number[]; remaining: number } {
  const taken = new Set<number>();
  const unassigned: Interval[] = [];
  for (const hold of holds) {
    if (hold.bookingId === excludeBookingId || !overlaps(hold, held)) continue;
    if (hold.vehicleId === null) unassigned.push(hold);
    else taken.add(hold.vehicleId);
  }
  const free = usableVehicleIds.filter((id) => !taken.has(id));
  return { freeVehicleIds: free, remaining: freeCapacity(free.length, held, unassigned) };
}

/**
 * Most vehicles of a pool free at one moment of `span` (usable vehicles minus the least occupancy of the
 * span, counting named and vehicle-less holds alike): "can this category be booked at some time that day".
 */
export function mostFreeDuring(
  usableVehicleIds: readonly number[],
  holds: readonly PoolHold[],
  span: Interval,
): number {
  const usable = new Set(usableVehicleIds);
  const points: Array<[number, number]> = [];
  let atStart = 0;
  for (const hold of holds) {
    if (!overlaps(hold, span) || (hold.vehicleId !== null && !usable.has(hold.vehicleId))) continue;
    if (hold.startMs <= span.startMs) atStart += 1;
    else points.push([hold.startMs, 1]);
    if (hold.endMs < span.endMs) points.push([hold.endMs, -1]);
  }
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = atStart;
  let least = atStart;
  for (const [, delta] of points) {
    current += delta;
    least = Math.min(least, current);
  }
  return Math.max(0, usable.size - least);
}

/** A one-way booking moving a vehicle in or out of a station: +1 at its return there, −1 at its pickup there. */
export interface StationFlow {
  bookingId: number;
  atMs: number;
  delta: 1 | -1;
}

/**
 * Vehicles expected at a station from `fromMs` on: the vehicles there now, plus one-way bookings returning
 * there, minus one-way bookings leaving from there (round trips come back to their space and move
 * nothing). Answers the count at `fromMs` and the peak at or after it: a vehicle returned at `fromMs` needs
 * a space from then on, also when later arrivals fill the station.
 */
export function expectedVehicles(
  vehiclesNow: number,
  flows: readonly StationFlow[],
  fromMs: number,
  excludeBookingId?: number,
): { atMs: number; peakAfter: number } {
  const relevant = flows
    .filter((flow) => flow.bookingId !== excludeBookingId)
    .sort((a, b) => a.atMs - b.atMs || a.delta - b.delta);
  let current = vehiclesNow;
  let index = 0;
  for (; index < relevant.length && relevant[index]!.atMs <= fromMs; index += 1)
    current += relevant[index]!.delta;
  const atMs = current;
  let peak = current;
  for (; index < relevant.length; index += 1) {
    current += relevant[index]!.delta;
    peak = Math.max(peak, current);
  }
  return { atMs, peakAfter: peak };
}

/** What the workflow keeps of its booking after every step: the facts its timers and validators need. */
export interface BookingTimeline {
  state: BookingState;
  approvalState: BookingApprovalState | null;
  vehicleId: number | null;
  rentalId: number | null;
  startMs: number;
  endMs: number;
  deadlines: BookingDeadlines;
  overdueSinceMs: number | null;
}

/** What a booking is created with (both interfaces; the API checked the caller's rights and business context). */
export interface BookingCreationInput {
  tenant: string;
  bookingId: number;
  workflowId: string;
  customerId: number;
  requestedBy: string;
  /** Workflow time of the creation. */
  at: string;
  type: BookingType;
  rentalType: BookingRentalType;
  branchId: number;
  endBranchId?: number;
  vehicleCategoryId: number;
  vehicleId?: number;
  startTime: string;
  endTime: string;
  startPosition?: { lat: number; lng: number };
  startPositionRadius?: number;
  additions?: string[];
  pricingBundleId?: number;
  userGroupId?: number;
  costCenterId?: number;
  reason?: string;
  notes?: string;
  externalReference?: string;
  annotations?: string[];
  bookingRequest?: boolean;
  ignoreTimeConstraints?: boolean;
}

/** What an update may change (PATCH /bookings/{id}); absent fields stay. */
export interface BookingChanges {
  startTime?: string;
  endTime?: string;
  vehicleCategoryId?: number;
  endBranchId?: number;
  additions?: string[];
  /** null: back to the default bundle of the category. */
  pricingBundleId?: number | null;
  costCenterId?: number | null;
  reason?: string | null;
  notes?: string | null;
  externalReference?: string | null;
  annotations?: string[];
  ratingDescription?: string | null;
}
