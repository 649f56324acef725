// On-demand (free-floating) rentals priced from their phases (pure): paid reservation, driving and
// parking by time slot (ENDING_TIMESLOT or CUMULATIVE_TIMESLOTS), unlock fee, distance, minimum price.
import { DomainError } from './errors.js';
import {
  MAX_PRICED_SPAN_MS,
  MINUTE_MS,
  Money,
  buildResult,
  checkDistance,
  distanceLine,
  fixedLine,
  minutesOf,
  type RawLine,
} from './price-lines.js';
import type {
  FreeFloatingPricingMode,
  OnDemandRules,
  PhaseSpan,
  PricedVersion,
  PriceResult,
  TaxContext,
  TimeSlotRule,
} from './pricing.js';

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
  return buildResult(version, tax, onDemandRentalLines(version, input));
}

/** The lines of an on-demand rental before rounding (`priceOnDemandRental`; benefits apply to them). */
export function onDemandRentalLines(
  version: PricedVersion,
  input: { phases: readonly PhaseSpan[]; distance: string },
): RawLine[] {
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
  return lines;
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
