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

/** Driving or parking while a rental is ACTIVE; each switch opens a new price phase. */
export type ActiveMode = 'DRIVING' | 'PARKING';

/** Rental states in which each operation may run (the spec's rental transition table). */
const allowedStates: Record<RentalOperationType, readonly RentalState[]> = {
  START: ['RESERVATION'],
  END: ['ACTIVE'],
  PARK: ['ACTIVE'],
  DRIVE: ['ACTIVE'],
  RENEW_RESERVATION: ['RESERVATION'],
  OPEN_TAILBOX: ['ACTIVE'],
};

/** Why an operation is refused before anything is sent to a vehicle, or undefined when it may run. */
export function operationRefusal(
  operation: RentalOperationType,
  state: RentalState,
  mode: ActiveMode | undefined,
  disallowedOperations: readonly string[] = [],
): 'R201' | 'R204' | undefined {
  if (disallowedOperations.includes(operation)) return 'R204';
  if (!allowedStates[operation].includes(state)) return 'R201';
  if (operation === 'PARK' && mode === 'PARKING') return 'R201';
  if (operation === 'DRIVE' && mode !== 'PARKING') return 'R201';
  return undefined;
}

/** The `rental.reservation` setting (value type RENTAL_RESERVATION_SETTINGS). */
export interface RentalReservationSettings {
  /** Free reservation granted when the rental is created. */
  reservationMinutes: number;
  /** Maximum free reservation allowance, renewals included. */
  reservationMaxMinutes: number;
  /** Window after which a consumed allowance resets. */
  bufferMinutes: number;
  /** Optional block on re-renting the same vehicle after ending. */
  blockRentalForSameVehicleMinutes?: number;
}

export const RENTAL_RESERVATION_SETTING_KEY = 'rental.reservation';

/** Used when neither the branch, its ancestors nor the tenant default (branch 0) configure the setting. */
export const defaultReservationSettings: RentalReservationSettings = {
  reservationMinutes: 15,
  reservationMaxMinutes: 30,
  bufferMinutes: 60,
};

/** New expiry after RENEW_RESERVATION, or undefined when the free allowance is used up (R203). */
export function renewedReservationExpiry(
  reservedAtMs: number,
  currentExpiryMs: number,
  nowMs: number,
  settings: RentalReservationSettings,
): number | undefined {
  const maxExpiry = reservedAtMs + settings.reservationMaxMinutes * 60_000;
  const proposed = Math.min(nowMs + settings.reservationMinutes * 60_000, maxExpiry);
  return proposed > currentExpiryMs ? proposed : undefined;
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
