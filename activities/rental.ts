// The rental workflow's activities, assembled from one factory per step: the reservation and bought
// minutes (activities/rental-reservation.ts), the transitions with their vehicle commands and failed
// operations (activities/rental-transition.ts). The workflow proxies them by name.
import type { ActivityDeps } from './deps.js';
import { createRentalReservationActivities } from './rental-reservation.js';
import { createRentalTransitionActivities } from './rental-transition.js';

export type RentalActivityDeps = ActivityDeps;

/** Activities of the rental workflow: each writes the rental row, the vehicle row and an event in one step. */
export function createRentalActivities(deps: RentalActivityDeps) {
  return {
    ...createRentalReservationActivities(deps),
    ...createRentalTransitionActivities(deps),
  };
}

/** The activity interface the workflow proxies. */
export type RentalActivities = ReturnType<typeof createRentalActivities>;
