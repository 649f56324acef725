// Messages of the rental workflow, its id and its start options; the API and the tests import these
// without importing workflow code.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type {
  ActiveMode,
  RentalOperationType,
  RentalReservationSettings,
  RentalState,
  RentalTransitionName,
} from '../domain/rental.js';
import {
  BranchIdKey,
  CustomerIdKey,
  EntityStateKey,
  TenantIdKey,
  VehicleIdKey,
} from './search-attributes.js';

/** The rental workflow's type name: the API, the tests and a booking's pickup start rentals by it. */
export const RENTAL_WORKFLOW_TYPE = 'rentalWorkflow';

/** `rental:{tenant}:{rentalId}`: one workflow per rental, readable in the Temporal UI. */
export function rentalWorkflowId(tenant: string, rentalId: number): string {
  return `rental:${tenant}:${rentalId}`;
}

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
  /** Business-account context of a business rental (absent for a private rental). */
  userGroupId?: number;
  costCenterId?: number;
  reason?: string;
  /** The booking whose pickup started this rental: it reports its end to the booking workflow. */
  bookingId?: number;
  /** Set when the workflow continues as new, so a long rental keeps a short history. */
  resume?: RentalWorkflowSnapshot;
  /**
   * The version of the rental's steps the run was started with (`RENTAL_STEPS_VERSION`, stamped by
   * `rentalWorkflowStartOptions` and on continue-as-new); runs started before it have none.
   */
  stepsVersion?: number;
}

/**
 * The rental's steps as a run started now takes them. A run started with it takes them without asking
 * `patched()`: each patch records a marker and upserts `TemporalChangeVersion`, a visibility write on the
 * server, in every run. Runs started before it decide by their patch markers, as recorded. A change to the
 * rental's steps raises it and asks `stepsVersion >= n || patched('change-id')` (docs/architecture.md).
 */
export const RENTAL_STEPS_VERSION = 1;

/**
 * How every rental workflow is started (API and tests alike): its readable id, a duplicate-rejecting
 * policy, its input stamped with the steps' version, the search attributes ops filter by, and a memo of
 * who created it.
 */
export function rentalWorkflowStartOptions(input: RentalWorkflowInput, taskQueue: string) {
  return {
    workflowId: rentalWorkflowId(input.tenant, input.rentalId),
    taskQueue,
    args: [{ ...input, stepsVersion: RENTAL_STEPS_VERSION }] as [RentalWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: BranchIdKey, value: String(input.branchId) },
      { key: VehicleIdKey, value: String(input.vehicleId) },
      { key: CustomerIdKey, value: String(input.customerId) },
      // What almost every new rental becomes within its first task: the run then has no upsert to make
      // for it (a refused one upserts REJECTED). Runs started before this said PENDING.
      { key: EntityStateKey, value: 'RESERVATION' },
    ],
    memo: { requestedBy: input.requestedBy, startImmediately: input.startImmediately },
  };
}

/** The workflow's view of its rental; returned by updates and the status query. */
export interface RentalWorkflowSnapshot {
  rentalId: number;
  state: RentalState | 'PENDING' | 'REJECTED';
  activeMode?: ActiveMode;
  reservedAtMs?: number;
  /** When the reservation expires: the free expiry plus bought minutes. */
  reservationExpiresAtMs?: number;
  /** End of the free reservation; time past it is the paid phase. */
  freeReservationExpiresAtMs?: number;
  /** Free reservation minutes the customer had left in the reset window at reservation (caps renewals). */
  allowanceMinutes?: number;
  paidReservationMinutes?: number;
  reservationSettings?: RentalReservationSettings;
  disallowedOperations: string[];
  hasTailbox: boolean;
  startTimeoutSeconds?: number;
  operationInProgress?: RentalTransitionName | 'BUY_RESERVATION';
}

/** What a finished rental workflow answers: the rental's end state. */
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

/** What POST /front/rentals/{rentalId}/buy-reservation asks for: paid minutes added to the reservation. */
export interface BuyReservationRequest {
  minutes: number;
  requestedBy: string;
}

/** Sells reservation minutes while in RESERVATION: extends the expiry and opens a RESERVATION_PAID phase. */
export const buyReservationUpdate = defineUpdate<RentalWorkflowSnapshot, [BuyReservationRequest]>(
  'buyReservation',
);

/** Cancels a reservation (DELETE /rentals/{id}); only while RESERVATION. */
export const cancelReservationUpdate = defineUpdate<RentalWorkflowSnapshot, [{ requestedBy: string }]>(
  'cancelReservation',
);

/** The workflow's live view, for ops and for diagnosing a rental stuck between states. */
export const rentalStatusQuery = defineQuery<RentalWorkflowSnapshot>('rentalStatus');
