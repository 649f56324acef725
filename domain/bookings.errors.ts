// Error codes of the bookings domain: bookings, booking stations and cooldowns.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The bookings domain's catalogue entries; `when` says when the project answers a code. */
export const bookingErrors = defineErrorCodes(
  'bookings',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: bookings (B3XX, S* and CD* are the spec's booking, station and cooldown families; their tables are not shown)
    'B300': { code: 'B300', meaning: 'booking not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown bookingId (or another tenant\'s)' },
    'B301': { code: 'B301', meaning: 'the booking window is not allowed (order, duration, lead time or advance limit)', retryable: false, httpStatus: 422, source: 'project', when: 'create, update, validate, extend' },
    'B302': { code: 'B302', meaning: 'no vehicle of the category is free for the window at this station', retryable: false, httpStatus: 409, source: 'project', when: 'create or update without a vehicle; automatic delivery finds none' },
    'B303': { code: 'B303', meaning: 'the vehicle is already held by another booking for an overlapping window (cooldowns included)', retryable: false, httpStatus: 409, source: 'project', when: 'create with vehicleId, deliver, update of a delivered booking' },
    'B304': { code: 'B304', meaning: 'the booking\'s state does not allow this operation', retryable: false, httpStatus: 409, source: 'project', when: 'e.g. pickup before delivery, deliver a finished booking' },
    'B305': { code: 'B305', meaning: 'pickup or check-in outside the pickup window', retryable: false, httpStatus: 422, source: 'project', when: 'earlier than pickupEarlyMinutes before the start or after pickupLateMinutes past it' },
    'B306': { code: 'B306', meaning: 'this booking cannot be cancelled (cancellation disabled by its pricing)', retryable: false, httpStatus: 409, source: 'project', when: 'cancel when the pricing version says cancellable=false (operators may still cancel)' },
    'B307': { code: 'B307', meaning: 'the booking is not awaiting approval', retryable: false, httpStatus: 409, source: 'project', when: 'PATCH approval on a booking not created as a request, or already decided' },
    'B308': { code: 'B308', meaning: 'declining a booking needs a rejectionReason', retryable: false, httpStatus: 422, source: 'project', when: 'PATCH approval with DECLINED and no rejectionReason' },
    'B309': { code: 'B309', meaning: 'the vehicle does not suit the booking (branch, category or service state)', retryable: false, httpStatus: 422, source: 'project', when: 'deliver or create with a vehicle of another station or category, retired or out of order' },
    'B310': { code: 'B310', meaning: 'the booking\'s configuration changed since it was made; update the booking first', retryable: false, httpStatus: 409, source: 'project', when: 'pickup when the category or pricing of the booking no longer applies' },
    'B311': { code: 'B311', meaning: 'payment is not ready: the customer has no usable payment source', retryable: false, httpStatus: 422, source: 'project', when: 'pickup without a payment source (business bookings bill the account)' },
    'B312': { code: 'B312', meaning: 'the booking was picked up; its rental is running', retryable: false, httpStatus: 409, source: 'project', when: 'update, cancel or deliver after pickup' },
    'B313': { code: 'B313', meaning: 'another operation on this booking is in progress; retry after re-reading it', retryable: false, httpStatus: 409, source: 'project', when: 'concurrent operations on one booking' },
    'B314': { code: 'B314', meaning: 'the booking cannot be extended to that time', retryable: false, httpStatus: 409, source: 'project', when: 'extension that overlaps another hold or the station\'s capacity' },
    'B315': { code: 'B315', meaning: 'the branch is not a booking station, or does not offer this category', retryable: false, httpStatus: 422, source: 'project', when: 'create, availability and station reads on a branch without booking station or category' },
    'B316': { code: 'B316', meaning: 'ignoreTimeConstraints needs the BOOKING_IGNORE_TIME_CONSTRAINTS permission', retryable: false, httpStatus: 403, source: 'project', when: 'POST /bookings with ignoreTimeConstraints=true' },
    'B317': { code: 'B317', meaning: 'the period asked is empty, too long or not a calendar date', retryable: false, httpStatus: 422, source: 'project', when: 'availability days, utilization, activeWithin: end not after start, or too long' },
    'S100': { code: 'S100', meaning: 'station capacity exceeded (conflictType STATION_CAPACITY_EXCEEDED)', retryable: false, httpStatus: 409, source: 'project', when: 'create or update whose return would overfill the end station' },
    'S101': { code: 'S101', meaning: 'the station is closed at that time', retryable: false, httpStatus: 422, source: 'project', when: 'pickup or return time outside the station\'s opening hours' },
    'S404': { code: 'S404', meaning: 'booking station not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown bookingStationId' },
    'S102': { code: 'S102', meaning: 'invalid booking station configuration (opening hours)', retryable: false, httpStatus: 422, source: 'project', when: 'PUT /booking-stations/{id} with inverted or overlapping opening ranges' },
    'S103': { code: 'S103', meaning: 'the booking station still has open bookings', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE /booking-stations/{id} while holding bookings start or end there' },
    'CD100': { code: 'CD100', meaning: 'the window overlaps the cooldown of another booking of the vehicle', retryable: false, httpStatus: 409, source: 'project', when: 'create or deliver within a neighbour booking\'s cooldown' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    bookings: typeof bookingErrors;
  }
}
