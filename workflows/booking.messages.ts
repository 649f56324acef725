// Messages of the booking workflow, its id and its start options; the API, the rental workflow and the
// tests import these without importing workflow code.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { BookingChanges, BookingCreationInput, BookingTimeline } from '../domain/booking.js';
import type { RentalState } from '../domain/rental.js';
import { BranchIdKey, CustomerIdKey, EntityStateKey, TenantIdKey } from './search-attributes.js';

export const BOOKING_WORKFLOW_TYPE = 'bookingWorkflow';

/** `booking:{tenant}:{bookingId}`: one workflow per booking, readable in the Temporal UI. */
export function bookingWorkflowId(tenant: string, bookingId: number): string {
  return `booking:${tenant}:${bookingId}`;
}

/** What a creation asks for: everything the first activity records (workflow time is added by the workflow). */
export type BookingRequest = Omit<BookingCreationInput, 'tenant' | 'bookingId' | 'workflowId' | 'at'>;

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
  rentalEnded?: { rentalId: number; state: RentalState | 'REJECTED' };
  /** Timer-driven automatic delivery found no free vehicle: the next attempt. */
  nextDeliveryAttemptMs?: number;
  operationInProgress?: BookingOperationName;
}

export type BookingOperationName =
  'CREATE' | 'UPDATE' | 'APPROVAL' | 'DELIVER' | 'CHECK_IN' | 'PICKUP' | 'CANCEL' | 'EXTEND' | 'TIMER';

export interface BookingWorkflowResult {
  bookingId: number;
  state: BookingWorkflowSnapshot['state'];
}

interface Requested {
  requestedBy: string;
}

/** Waits until the booking is recorded (or refused) so POST /bookings answers with the new booking or its error. */
export const awaitBookingUpdate = defineUpdate<BookingWorkflowSnapshot>('awaitBooking');

/** PATCH /bookings/{id}: changes admitted again (the booking's own hold excluded). */
export const updateBookingUpdate = defineUpdate<
  BookingWorkflowSnapshot,
  [Requested & { changes: BookingChanges; ignoreTimeConstraints: boolean }]
>('updateBooking');

/** PATCH /bookings/{id}/approval: APPROVED, or DECLINED with a rejectionReason (B308 without). */
export const bookingApprovalUpdate = defineUpdate<
  BookingWorkflowSnapshot,
  [Requested & { approvalState: 'APPROVED' | 'DECLINED'; rejectionReason?: string }]
>('bookingApproval');

/** POST /bookings/{id}/deliver: associates a vehicle (DELIVERED). */
export const deliverBookingUpdate = defineUpdate<
  BookingWorkflowSnapshot,
  [Requested & { vehicleId: number }]
>('deliverBooking');

/** POST /front/bookings/{id}/check-in: the customer is at the station (pickup window). */
export const checkInBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [Requested]>('checkInBooking');

/** POST /bookings/{id}: pickup; starts the rental workflow of the delivered vehicle. */
export const pickupBookingUpdate = defineUpdate<
  BookingWorkflowSnapshot,
  [Requested & { rentalAuthOverride: boolean }]
>('pickupBooking');

/** Cancels (CANCELED) with the fee of the pricing unless waived; the app cannot cancel a non-cancellable booking. */
export const cancelBookingUpdate = defineUpdate<
  BookingWorkflowSnapshot,
  [Requested & { waiveCancellationFee: boolean; reason?: string; enforceCancellable: boolean }]
>('cancelBooking');

/** Extends the booking's end (also while its rental runs); B314 when it cannot be. */
export const extendBookingUpdate = defineUpdate<BookingWorkflowSnapshot, [Requested & { endTime: string }]>(
  'extendBooking',
);

/** Sent by the rental workflow of a pickup when it ends (or its reservation was refused). */
export const rentalEndedSignal =
  defineSignal<[{ rentalId: number; state: RentalState | 'REJECTED' }]>('rentalEnded');

/** The workflow's live view, for ops and for diagnosing a booking stuck between states. */
export const bookingStatusQuery = defineQuery<BookingWorkflowSnapshot>('bookingStatus');
