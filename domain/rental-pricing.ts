// The price engine's input for one rental (pure: no I/O, no Node built-ins; importable from workflows).
//
// A rental records its price phases on the clock (`advancePhases` in ./rental.ts). The engine
// (`priceOnDemandRental` in ./pricing.ts) prices durations, never times of day, so this module lays the
// phases end to end on a billing timeline that starts at the first phase:
// - an open phase is priced up to `nowMs` (a running estimate) and a closed one as recorded;
// - bought reservation minutes (buy-reservation, RESERVATION_PAID) are charged in full, as bought, even
//   when START, CANCEL or EXPIRE came before they ran out: the customer bought the right to hold the
//   vehicle that long, and the operator kept it off the market for them. A paid phase recorded without
//   bought minutes (never written by the rental workflow) is charged as it lasted;
// - gaps between recorded phases (none in practice) are not billed.
// See docs/rental-billing.md.
import { Decimal } from 'decimal.js';
import { DomainError } from './errors.js';
import type { DistanceUnit, PhaseSpan } from './pricing.js';
import type { RentalPhaseRecord, RentalState } from './rental.js';

const MINUTE_MS = 60_000;
/** Kilometres in one international mile. */
const KM_PER_MILE = '1.609344';
/** Bought reservation minutes the pricing accepts (a week); the buy-reservation route bounds it far lower. */
export const MAX_PAID_RESERVATION_MINUTES = 7 * 24 * 60;

/**
 * What pricing and billing read of a rental: the rental entity (the estimates) and the row an ending
 * rental's billing reads under its lock (db/rental-billing.ts) are both one.
 */
export interface RentalPricingSubject {
  id: number;
  tenant: { id: string };
  state: RentalState;
  branch: { id: number };
  vehicle: { id: number };
  customer: { id: number };
  userGroup?: { id: number } | null;
  pricingBundleVersion?: { id: number } | null;
  phases: RentalPhaseRecord[];
  reservationExpiresAt?: Date | null;
  paidReservationMinutes: number;
  startedAt?: Date | null;
  endedAt?: Date | null;
  startPosition?: { lat: number; lng: number } | null;
  endPosition?: { lat: number; lng: number } | null;
  startOdometerKm?: number | null;
  endOdometerKm?: number | null;
}

/** What the engine input of a rental is built from: the rental row's phases and bought minutes. */
export interface RentalPricingInput {
  phases: readonly RentalPhaseRecord[];
  /** Reservation minutes bought with buy-reservation (0 when none). */
  paidReservationMinutes: number;
  /**
   * When the free reservation ends (epoch ms): while a reservation with bought minutes is still open, its
   * open RESERVATION_FREE phase is cut there. Unknown: the open free phase runs to `nowMs`.
   */
  freeReservationExpiresAtMs?: number | null;
}

/** One phase as the billing overview shows it: recorded times, the billed length, and whether it is open. */
export interface BilledPhase {
  phase: RentalPhaseRecord['phase'];
  startedAt: string;
  endedAt: string | null;
  /** Milliseconds this phase contributes to the engine input (bought minutes for RESERVATION_PAID). */
  billedMs: number;
}

/** The engine input of a rental plus the phases it came from, for the billing overview. */
export interface RentalEngineInput {
  spans: PhaseSpan[];
  billed: BilledPhase[];
}

function parseTime(value: string, what: string): number {
  const ms = Date.parse(value);
  if (!Number.isSafeInteger(ms)) throw new DomainError('ODP111', `${what} is not a valid time`);
  return ms;
}

/**
 * The engine input (`PhaseSpan[]`) of a rental at `nowMs`: closed phases as recorded, the open one up to
 * `nowMs` (never negative), bought reservation minutes in full. With `nowMs` after the rental ended (the
 * final price) the result is the same for every `nowMs`: nothing is open any more.
 */
export function rentalPhaseSpans(input: RentalPricingInput, nowMs: number): RentalEngineInput {
  const bought = input.paidReservationMinutes;
  if (!Number.isSafeInteger(bought) || bought < 0 || bought > MAX_PAID_RESERVATION_MINUTES)
    throw new DomainError('ODP111', 'paid reservation minutes out of range');
  if (!Number.isSafeInteger(nowMs)) throw new DomainError('ODP111', 'pricing time is not a valid time');
  const boughtMs = bought * MINUTE_MS;
  const billed: BilledPhase[] = [];
  let paidCharged = false;
  for (const [index, record] of input.phases.entries()) {
    const startMs = parseTime(record.startedAt, `phase ${index} start`);
    const open = record.endedAt === null;
    let endMs = open ? Math.max(startMs, nowMs) : parseTime(record.endedAt!, `phase ${index} end`);
    if (endMs < startMs) throw new DomainError('ODP111', `phase ${index} ends before it starts`);
    if (
      open &&
      record.phase === 'RESERVATION_FREE' &&
      boughtMs > 0 &&
      input.freeReservationExpiresAtMs != null &&
      input.freeReservationExpiresAtMs >= startMs
    )
      endMs = Math.min(endMs, input.freeReservationExpiresAtMs);
    let billedMs = endMs - startMs;
    if (record.phase === 'RESERVATION_PAID' && boughtMs > 0) {
      // Bought minutes are charged once and in full, however many paid phases the reservation recorded.
      billedMs = paidCharged ? 0 : boughtMs;
      paidCharged = true;
    }
    billed.push({ phase: record.phase, startedAt: record.startedAt, endedAt: record.endedAt, billedMs });
  }
  // Bought minutes without a RESERVATION_PAID record: the reservation ended (START, CANCEL) before the
  // free time ran out, or it is still open (the paid record is written when it ends). They are charged in
  // full all the same, right after the free reservation: the estimate and the final price agree.
  if (!paidCharged && boughtMs > 0) {
    const lastFree = billed.findLastIndex((phase) => phase.phase === 'RESERVATION_FREE');
    if (lastFree >= 0) {
      const free = billed[lastFree]!;
      const at = new Date(parseTime(free.startedAt, 'phase start') + free.billedMs).toISOString();
      billed.splice(lastFree + 1, 0, {
        phase: 'RESERVATION_PAID',
        startedAt: at,
        endedAt: free.endedAt === null ? null : at,
        billedMs: boughtMs,
      });
    }
  }
  const spans: PhaseSpan[] = [];
  let cursor = billed.length ? parseTime(billed[0]!.startedAt, 'phase 0 start') : 0;
  for (const phase of billed) {
    if (phase.billedMs === 0) continue;
    spans.push({ phase: phase.phase, startMs: cursor, endMs: cursor + phase.billedMs });
    cursor += phase.billedMs;
  }
  return { spans, billed };
}

/**
 * The distance a rental is charged for, as the engine's decimal string in the bundle's unit: end minus
 * start odometer in kilometres (converted to miles for MILE bundles), to the metre (3 decimals,
 * half-up). A missing reading, or an odometer that went backwards (a replaced or reset unit), counts 0.
 */
export function rentalDistance(
  startOdometerKm: number | null | undefined,
  endOdometerKm: number | null | undefined,
  unit: DistanceUnit,
): string {
  if (startOdometerKm == null || endOdometerKm == null) return '0';
  if (!Number.isFinite(startOdometerKm) || !Number.isFinite(endOdometerKm)) return '0';
  let km = new Decimal(endOdometerKm).minus(startOdometerKm);
  if (km.isNegative()) return '0';
  if (unit === 'MILE') km = km.div(KM_PER_MILE);
  const rounded = km.toDecimalPlaces(3, Decimal.ROUND_HALF_UP);
  // The engine accepts at most 10 integer digits; no odometer reaches that.
  return rounded.gte('1e10') ? '9999999999' : rounded.toFixed();
}

// ---------------------------------------------------------------------------------------------------
// Finance records of a rental: invoice states and types, deposit states, the deposit setting

/** The spec's invoice states (grouped there: open/closed, billing, exceptions, waiting, refunds, other). */
export const invoiceStates = [
  'OPEN',
  'CLOSED',
  'BILLED',
  'IN_PAYMENT',
  'PAID',
  'PAID_EXTERNALLY',
  'EXCEPTION_BILLING',
  'EXCEPTION_SEPA',
  'EXCEPTION_PAYING',
  'PUSH_BANK_REFUSED',
  'THREE_DS_FAILED',
  'PUSH_WAITING_FOR_USER',
  'THREE_DS_WAITING_FOR_USER',
  'ALLOWS_REFUND',
  'REFUND_IN_PROGRESS',
  'REFUNDED',
  'EXCEPTION_REFUND',
  'IS_REFUND',
  'COLLECTION',
  'DISPUTED',
  'IGNORE',
] as const;
export type InvoiceState = (typeof invoiceStates)[number];

/** REGULAR for a private rental, BUSINESS for a rental in a business account's context. */
export const invoiceTypes = ['REGULAR', 'BUSINESS'] as const;
export type InvoiceType = (typeof invoiceTypes)[number];

/** A held deposit is ACTIVE until an operator releases it (the finance issue adds capture against issues). */
export const depositStates = ['ACTIVE', 'RELEASED'] as const;
export type DepositState = (typeof depositStates)[number];

/**
 * Whether money was actually reserved with a payment provider for a deposit. No provider is connected
 * yet, so every deposit says NOT_REQUESTED: the record is the obligation, not a card authorisation.
 */
export const depositAuthorizationStates = ['NOT_REQUESTED'] as const;
export type DepositAuthorizationState = (typeof depositAuthorizationStates)[number];

/** Setting key of the deposit held at START (value type RENTAL_DEPOSIT_SETTINGS), inherited like every setting. */
export const RENTAL_DEPOSIT_SETTING_KEY = 'rental.deposit';

/**
 * The `rental.deposit` setting: `amount` for every category, `vehicleCategoryAmounts` by category id
 * (wins over `amount`); "0" or no entry holds none. `currency`, when given, must be the business unit's.
 */
export interface RentalDepositSettings {
  amount?: string;
  currency?: string;
  vehicleCategoryAmounts?: Record<string, string>;
}

const depositAmountPattern = /^(0|[1-9][0-9]{0,9})(\.[0-9]{1,6})?$/;

/**
 * The deposit a setting value asks for a vehicle category, or null when it holds none. A malformed value
 * is a configuration fault (F205): holding no deposit by mistake would be worse than refusing the start.
 */
export function depositAmountFor(value: unknown, vehicleCategoryId: number, currency: string): string | null {
  const invalid = (why: string) => new DomainError('F205', `setting ${RENTAL_DEPOSIT_SETTING_KEY}: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('not an object');
  const settings = value as RentalDepositSettings;
  if (settings.currency !== undefined && settings.currency !== currency)
    throw invalid(`currency ${String(settings.currency)} is not the business unit's ${currency}`);
  const byCategory = settings.vehicleCategoryAmounts;
  if (byCategory !== undefined && (typeof byCategory !== 'object' || byCategory === null))
    throw invalid('vehicleCategoryAmounts is not an object');
  const amount = Object.hasOwn(byCategory ?? {}, String(vehicleCategoryId))
    ? byCategory![String(vehicleCategoryId)]
    : settings.amount;
  if (amount === undefined) return null;
  if (typeof amount !== 'string' || !depositAmountPattern.test(amount))
    throw invalid('amounts are non-negative decimal strings');
  return new Decimal(amount).isZero() ? null : amount;
}
