// Messages of the rental workflow; the API imports these without importing workflow code.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  ActiveMode,
  RentalOperationType,
  RentalReservationSettings,
  RentalState,
} from '../domain/rental.js';

export const RENTAL_WORKFLOW_TYPE = 'rentalWorkflow';

/** What AdminAddRental asks for; the workflow checks the rest (vehicle readiness, open rentals). */
export interface RentalWorkflowInput {
  tenant: string;
  rentalId: number;
  branchId: number;
  vehicleId: number;
  customerId: number;
  /** Operator or API client that created the rental; recorded on events. */
  requestedBy: string;
  /** AdminAddRental may create an ACTIVE rental right away. */
  startImmediately: boolean;
  /** Set when the workflow continues as new, so a long rental keeps a short history. */
  resume?: RentalWorkflowSnapshot;
}

/** The workflow's view of its rental; returned by updates and the status query. */
export interface RentalWorkflowSnapshot {
  rentalId: number;
  state: RentalState | 'PENDING' | 'REJECTED';
  activeMode?: ActiveMode;
  reservedAtMs?: number;
  reservationExpiresAtMs?: number;
  reservationSettings?: RentalReservationSettings;
  disallowedOperations: string[];
  hasTailbox: boolean;
  startTimeoutSeconds?: number;
  operationInProgress?: RentalOperationType | 'CANCEL' | 'EXPIRE';
}

export interface RentalWorkflowResult {
  rentalId: number;
  state: RentalWorkflowSnapshot['state'];
}

/** A rental operation as POST /rentals/{id}/operation sends it. */
export interface RentalOperationRequest {
  operationType: RentalOperationType;
  /** Administrative override of failed end requirements; recorded on the event. */
  adminOverride?: boolean;
  /** User GPS coordinates accepted by force-end. */
  userPosition?: { lat: number; lng: number };
  requestedBy: string;
}

/** Waits until the reservation is made (or refused) so POST /rentals answers with the new rental or its error. */
export const awaitReservationUpdate = defineUpdate<RentalWorkflowSnapshot>('awaitReservation');

/** Runs START, END, PARK, DRIVE, RENEW_RESERVATION or OPEN_TAILBOX and answers with the new state. */
export const rentalOperationUpdate = defineUpdate<RentalWorkflowSnapshot, [RentalOperationRequest]>(
  'rentalOperation',
);

/** Cancels a reservation (DELETE /rentals/{id}); only while RESERVATION. */
export const cancelReservationUpdate = defineUpdate<RentalWorkflowSnapshot, [{ requestedBy: string }]>(
  'cancelReservation',
);

/** The workflow's live view, for ops and for diagnosing a rental stuck between states. */
export const rentalStatusQuery = defineQuery<RentalWorkflowSnapshot>('rentalStatus');
