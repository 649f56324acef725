// Pure rental rules shared by the API, activities and workflows (no I/O, no Node built-ins).

export const rentalStates = [
  'RESERVATION',
  'ACTIVE',
  'EXPIRED',
  'CANCELLED',
  'ENDED',
  'ENDED_NO_MOVEMENT',
] as const;
export type RentalState = (typeof rentalStates)[number];

export const terminalRentalStates: readonly RentalState[] = [
  'EXPIRED',
  'CANCELLED',
  'ENDED',
  'ENDED_NO_MOVEMENT',
];

export const rentalOperationTypes = [
  'START',
  'END',
  'PARK',
  'DRIVE',
  'RENEW_RESERVATION',
  'OPEN_TAILBOX',
] as const;
export type RentalOperationType = (typeof rentalOperationTypes)[number];

/** One price phase of a rental on the clock, as the rental row records it (ISO times; open while endedAt is null). */
export interface RentalPhaseRecord {
  phase: 'RESERVATION_FREE' | 'RESERVATION_PAID' | 'DRIVING' | 'PARKING';
  startedAt: string;
  endedAt: string | null;
}

/** Driving or parking while a rental is ACTIVE; each switch opens a new price phase. */
export type ActiveMode = 'DRIVING' | 'PARKING';

/** Transitions the workflow runs on its own or on request, beside the operations of POST /operation. */
export type RentalTransitionName = RentalOperationType | 'CANCEL' | 'EXPIRE';

/** One allowed transition of a rental: where it may start, where it leads, what it records and sends. */
export interface RentalTransition {
  /** Rental states the transition may start from. */
  from: readonly RentalState[];
  /** Active modes it may start from (only where it matters). */
  fromModes?: readonly ActiveMode[];
  to: RentalState;
  /** New driving/parking mode; null clears it; absent keeps it. */
  activeMode?: ActiveMode | null;
  /** Event type recorded with the transition. */
  event: string;
  /** Vehicle command sent before the transition is recorded. */
  vehicleCommand?: 'UNLOCK' | 'LOCK' | 'OPEN_TAILBOX';
  /** Catalogue code reported when the vehicle fails the command (otherwise the vehicle's own code). */
  vehicleFailureCode?: 'R173' | 'R174';
  /** Starts the rental (start time, position, odometer). */
  starts?: boolean;
  /** Ends the rental (end time, and end position and odometer when it had started). */
  ends?: boolean;
}

/**
 * The spec's rental transition table: the workflow's update validators refuse what it does not allow, and
 * the workflow and its recording activity read what each transition does from it.
 */
export const rentalTransitions: Readonly<Record<RentalTransitionName, RentalTransition>> = {
  START: {
    from: ['RESERVATION'],
    to: 'ACTIVE',
    activeMode: 'DRIVING',
    event: 'RENTAL_START',
    vehicleCommand: 'UNLOCK',
    vehicleFailureCode: 'R173',
    starts: true,
  },
  END: {
    from: ['ACTIVE'],
    to: 'ENDED',
    activeMode: null,
    event: 'RENTAL_END',
    vehicleCommand: 'LOCK',
    vehicleFailureCode: 'R174',
    ends: true,
  },
  PARK: {
    from: ['ACTIVE'],
    fromModes: ['DRIVING'],
    to: 'ACTIVE',
    activeMode: 'PARKING',
    event: 'RENTAL_PARK',
    vehicleCommand: 'LOCK',
  },
  DRIVE: {
    from: ['ACTIVE'],
    fromModes: ['PARKING'],
    to: 'ACTIVE',
    activeMode: 'DRIVING',
    event: 'RENTAL_DRIVE',
    vehicleCommand: 'UNLOCK',
  },
  RENEW_RESERVATION: { from: ['RESERVATION'], to: 'RESERVATION', event: 'RENTAL_RENEW_RESERVATION' },
  OPEN_TAILBOX: {
    from: ['ACTIVE'],
    to: 'ACTIVE',
    event: 'RENTAL_OPEN_TAILBOX',
    vehicleCommand: 'OPEN_TAILBOX',
  },
  CANCEL: { from: ['RESERVATION'], to: 'CANCELLED', event: 'RENTAL_CANCEL_RESERVATION', ends: true },
  EXPIRE: { from: ['RESERVATION'], to: 'EXPIRED', event: 'RENTAL_RESERVATION_EXPIRED', ends: true },
};

/** Why the transition table refuses a transition from a state (R201), or undefined when it is allowed. */
export function transitionRefusal(
  name: RentalTransitionName,
  state: RentalState,
  mode: ActiveMode | undefined,
): 'R201' | undefined {
  const transition = rentalTransitions[name];
  if (!transition.from.includes(state)) return 'R201';
  if (transition.fromModes && !transition.fromModes.includes(mode ?? 'DRIVING')) return 'R201';
  return undefined;
}

/** Why an operation is refused before anything is sent to a vehicle, or undefined when it may run. */
export function operationRefusal(
  operation: RentalOperationType,
  state: RentalState,
  mode: ActiveMode | undefined,
  disallowedOperations: readonly string[] = [],
): 'R201' | 'R204' | undefined {
  if (disallowedOperations.includes(operation)) return 'R204';
  return transitionRefusal(operation, state, mode);
}

/** The `rental.reservation` setting (value type RENTAL_RESERVATION_SETTINGS). */
export interface RentalReservationSettings {
  /** Free reservation granted when the rental is created (and by each RENEW_RESERVATION). */
  reservationMinutes: number;
  /** Maximum free reservation a customer may use within the reset window, renewals included. */
  reservationMaxMinutes: number;
  /** Window after which consumed free reservation time no longer counts. */
  bufferMinutes: number;
  /** Optional block on re-renting the same vehicle after ending. */
  blockRentalForSameVehicleMinutes?: number;
  /** Most reservation minutes one rental may buy (buy-reservation); default 120. */
  maxPaidReservationMinutes?: number;
}

export const RENTAL_RESERVATION_SETTING_KEY = 'rental.reservation';

/** Used when neither the branch, its ancestors nor the tenant default (branch 0) configure the setting. */
export const defaultReservationSettings: RentalReservationSettings = {
  reservationMinutes: 15,
  reservationMaxMinutes: 30,
  bufferMinutes: 60,
};

export const DEFAULT_MAX_PAID_RESERVATION_MINUTES = 120;

/**
 * Free reservation minutes a customer may still use: reservationMaxMinutes less the free minutes their
 * reservations consumed within the last bufferMinutes (whole minutes, never negative).
 */
export function freeReservationAllowanceMinutes(
  settings: RentalReservationSettings,
  consumedMinutesInWindow: number,
): number {
  return Math.max(0, Math.floor(settings.reservationMaxMinutes - consumedMinutesInWindow));
}

/** Free minutes a new reservation gets: reservationMinutes, capped by what the window still allows. */
export function grantedReservationMinutes(
  settings: RentalReservationSettings,
  allowanceMinutes: number,
): number {
  return Math.min(settings.reservationMinutes, allowanceMinutes);
}

/**
 * New free expiry after RENEW_RESERVATION: another reservationMinutes from now, capped at the allowance
 * the reservation had when it was made; undefined when that extends nothing (R203).
 */
export function renewedReservationExpiry(
  reservedAtMs: number,
  currentFreeExpiryMs: number,
  nowMs: number,
  settings: RentalReservationSettings,
  allowanceMinutes: number,
): number | undefined {
  const maxExpiry = reservedAtMs + allowanceMinutes * 60_000;
  const proposed = Math.min(nowMs + settings.reservationMinutes * 60_000, maxExpiry);
  return proposed > currentFreeExpiryMs ? proposed : undefined;
}

/** Why buying `minutes` of reservation is refused (R205), or undefined when it may be sold. */
export function reservationPurchaseRefusal(
  minutes: number,
  alreadyBoughtMinutes: number,
  settings: RentalReservationSettings,
): string | undefined {
  const max = settings.maxPaidReservationMinutes ?? DEFAULT_MAX_PAID_RESERVATION_MINUTES;
  if (!Number.isInteger(minutes) || minutes < 1) return 'minutes must be a positive whole number';
  if (alreadyBoughtMinutes + minutes > max)
    return `at most ${max} reservation minutes can be bought per rental (${alreadyBoughtMinutes} bought)`;
  return undefined;
}

/** Minutes until the same customer may rent the same vehicle again, or 0 when not blocked. */
export function sameVehicleBlockRemainingMs(
  settings: RentalReservationSettings,
  lastEndedAtMs: number | undefined,
  nowMs: number,
): number {
  const block = settings.blockRentalForSameVehicleMinutes ?? 0;
  if (!block || lastEndedAtMs === undefined) return 0;
  return Math.max(0, lastEndedAtMs + block * 60_000 - nowMs);
}

/**
 * The rental's price phases after a transition at `at` (ISO): the reservation opens RESERVATION_FREE;
 * reservation time past the free expiry is RESERVATION_PAID (bought minutes); START and DRIVE open
 * DRIVING, PARK opens PARKING; END, CANCEL and EXPIRE close the open phase. Transitions that do not
 * change the phase (RENEW_RESERVATION, OPEN_TAILBOX) return the phases unchanged.
 */
export function advancePhases(
  phases: readonly RentalPhaseRecord[],
  transition: RentalTransitionName | 'RESERVE',
  at: string,
  freeReservationExpiresAt?: string,
): RentalPhaseRecord[] {
  const next = phases.map((phase) => ({ ...phase }));
  const open = next.at(-1)?.endedAt === null ? next.at(-1) : undefined;
  const close = (when: string) => {
    if (!open) return;
    // Past the free expiry, the reservation continues as its paid phase (bought minutes).
    if (
      open.phase === 'RESERVATION_FREE' &&
      freeReservationExpiresAt &&
      Date.parse(freeReservationExpiresAt) < Date.parse(when) &&
      Date.parse(freeReservationExpiresAt) > Date.parse(open.startedAt)
    ) {
      open.endedAt = freeReservationExpiresAt;
      next.push({ phase: 'RESERVATION_PAID', startedAt: freeReservationExpiresAt, endedAt: when });
      return;
    }
    open.endedAt = when;
  };
  const opens: Partial<Record<RentalTransitionName | 'RESERVE', RentalPhaseRecord['phase']>> = {
    RESERVE: 'RESERVATION_FREE',
    START: 'DRIVING',
    DRIVE: 'DRIVING',
    PARK: 'PARKING',
  };
  const phase = opens[transition];
  if (phase) {
    close(at);
    next.push({ phase, startedAt: at, endedAt: null });
  } else if (transition === 'END' || transition === 'CANCEL' || transition === 'EXPIRE') {
    close(at);
  }
  return next;
}

/** Vehicle rental state that mirrors a rental state (and active mode). */
export function vehicleStateForRental(
  state: RentalState,
  mode?: ActiveMode,
): 'AVAILABLE' | 'RESERVATION' | 'DRIVING' | 'PARKING' {
  if (state === 'RESERVATION') return 'RESERVATION';
  if (state === 'ACTIVE') return mode === 'PARKING' ? 'PARKING' : 'DRIVING';
  return 'AVAILABLE';
}
