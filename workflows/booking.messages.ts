// Messages of the booking workflow, its id and its start options; the API, the rental workflow and the
// tests import these without importing workflow code.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { BookingChanges, BookingCreationInput, BookingTimeline } from '../domain/booking.js';
import type { RentalState } from '../domain/rental.js';
import { BranchIdKey, CustomerIdKey, EntityStateKey, TenantIdKey } from './search-attributes.js';

/** The booking workflow's type name: the API and the tests start bookings by it. */
export const BOOKING_WORKFLOW_TYPE = 'bookingWorkflow';

/** `booking:{tenant}:{bookingId}`: one workflow per booking, readable in the Temporal UI. */
export function bookingWorkflowId(tenant: string, bookingId: number): string {
  return `booking:${tenant}:${bookingId}`;
}

/** What a creation asks for: everything the first activity records (workflow time is added by the workflow). */
export type BookingRequest = Omit<BookingCreationInput, 'tenant' | 'bookingId' | 'workflowId' | 'at'>;

/** What the booking workflow starts with: the tenant, the id the API allocated and the creation request. */
export interface BookingWorkflowInput {
  tenant: string;
  bookingId: number;
  request: BookingRequest;
  /** Set when the workflow continues as new, so a long booking keeps a short history. */
  resume?: BookingWorkflowSnapshot;
}

/**
 * How every booking workflow is started (API and tests alike): its readable id, a duplicate-rejecting
 * policy, the search attributes ops filter by, and a memo of who created it.
 */
export function bookingWorkflowStartOptions(input: BookingWorkflowInput, taskQueue: string) {
  return {
    workflowId: bookingWorkflowId(input.tenant, input.bookingId),
    taskQueue,
    args: [input] as [BookingWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: BranchIdKey, value: String(input.request.branchId) },
      { key: CustomerIdKey, value: String(input.request.customerId) },
      { key: EntityStateKey, value: 'PENDING' },
    ],
    memo: { requestedBy: input.request.requestedBy, bookingRequest: input.request.bookingRequest ?? false },
  };
}

/** The workflow's view of its booking; returned by updates and the status query. */
export interface BookingWorkflowSnapshot extends Omit<Partial<BookingTimeline>, 'state'> {
  bookingId: number;
  /** PENDING until the creation is recorded, REJECTED when it was refused (no booking row exists). */
  state: BookingTimeline['state'] | 'PENDING' | 'REJECTED';
  /** The rental of the pickup, from the pickup on (before the rental links itself to the booking). */
  pickupRentalId?: number;
  /** How the rental of the pickup ended, once its workflow said so. */
  rentalEnded?: RentalEnded;
  /** Timer-driven automatic delivery found no free vehicle: the next attempt. */
  nextDeliveryAttemptMs?: number;
  operationInProgress?: BookingOperationName;
}

/** The step in progress, named in B313 refusals and in the status query. */
export type BookingOperationName =
  'CREATE' | 'UPDATE' | 'APPROVAL' | 'DELIVER' | 'CHECK_IN' | 'PICKUP' | 'CANCEL' | 'EXTEND' | 'TIMER';

/** What a finished booking workflow answers: the booking's end state. */
export interface BookingWorkflowResult {
  bookingId: number;
  state: BookingWorkflowSnapshot['state'];
}

/** Who asks: every booking update names the operator, customer or client acting. */
export interface BookingRequested {
  requestedBy: string;
}

/** What PATCH /bookings/{id} changes, and whether the caller may lift the lead time and advance limit. */
export interface UpdateBookingRequest extends BookingRequested {
  changes: BookingChanges;
  ignoreTimeConstraints: boolean;
}

/** An approval decision; a declination names its reason. */
export interface BookingApprovalRequest extends BookingRequested {
  approvalState: 'APPROVED' | 'DECLINED';
  rejectionReason?: string;
}

/** The vehicle an operator delivers. */
export interface DeliverBookingRequest extends BookingRequested {
  vehicleId: number;
}

/** A pickup, with the operator's override of the start requirements. */
export interface PickupBookingRequest extends BookingRequested {
  rentalAuthOverride: boolean;
}

/** A cancellation: the fee waived or not, its reason, and whether a non-cancellable pricing refuses it (the app). */
export interface CancelBookingRequest extends BookingRequested {
  waiveCancellationFee: boolean;
  reason?: string;
  enforceCancellable: boolean;
}

/** The booking's new, later end. */
export interface ExtendBookingRequest extends BookingRequested {
  endTime: string;
}

/** Waits until the booking is recorded (or refused) so POST /bookings answers with the new booking or its error. */
export const awaitBookingUpdate = defineUpdate<BookingWorkflowSnapshot>('awaitBooking');

/** PATCH /bookings/{id}: changes admitted again (the booking's own hold excluded). */
export const updateBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [UpdateBookingRequest]>(
  'updateBooking',
);

/** PATCH /bookings/{id}/approval: APPROVED, or DECLINED with a rejectionReason (B308 without). */
export const bookingApprovalUpdate = defineUpdate<BookingWorkflowSnapshot, [BookingApprovalRequest]>(
  'bookingApproval',
);

/** POST /bookings/{id}/deliver: associates a vehicle (DELIVERED). */
export const deliverBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [DeliverBookingRequest]>(
  'deliverBooking',
);

/** POST /front/bookings/{id}/check-in: the customer is at the station (pickup window). */
export const checkInBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [BookingRequested]>(
  'checkInBooking',
);

/** POST /bookings/{id}: pickup; starts the rental workflow of the delivered vehicle. */
export const pickupBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [PickupBookingRequest]>(
  'pickupBooking',
);

/** Cancels (CANCELED) with the fee of the pricing unless waived; the app cannot cancel a non-cancellable booking. */
export const cancelBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [CancelBookingRequest]>(
  'cancelBooking',
);

/** Extends the booking's end (also while its rental runs); B314 when it cannot be. */
export const extendBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [ExtendBookingRequest]>(
  'extendBooking',
);

/** How the rental of a pickup ended (REJECTED: its reservation was refused, nothing was linked). */
export interface RentalEnded {
  rentalId: number;
  state: RentalState | 'REJECTED';
}

/** Sent by the rental workflow of a pickup when it ends (or its reservation was refused). */
export const rentalEndedSignal = defineSignal<[RentalEnded]>('rentalEnded');

/** The workflow's live view, for ops and for diagnosing a booking stuck between states. */
export const bookingStatusQuery = defineQuery<BookingWorkflowSnapshot>('bookingStatus');
