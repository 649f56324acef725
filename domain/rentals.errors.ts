// Error codes of the rentals domain: reservations, rental operations and the rental workflow's refusals.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The rentals domain's catalogue entries; `when` says when the project answers a code. */
export const rentalErrors = defineErrorCodes(
  'rentals',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Common codes of otherwise unshown tables (U6XX terms, R, P, V)
    'R102': { code: 'R102', meaning: 'user already has an active rental', retryable: false, httpStatus: 409, source: 'spec' },
    'R131': { code: 'R131', meaning: 'ending outside business area', retryable: false, httpStatus: 422, source: 'spec' },
    'R148': { code: 'R148', meaning: 'bike lock still open at end', retryable: false, httpStatus: 422, source: 'spec' },
    'R170': { code: 'R170', meaning: 'reservation vehicle communication failure', retryable: true, httpStatus: 502, source: 'spec' },
    'R173': { code: 'R173', meaning: 'rental start vehicle communication failure', retryable: true, httpStatus: 502, source: 'spec' },
    'R174': { code: 'R174', meaning: 'rental end vehicle communication failure', retryable: true, httpStatus: 502, source: 'spec' },
    // Other
    'RR100': { code: 'RR100', meaning: 'radar not found', retryable: false, httpStatus: 404, source: 'spec' },
    'RR101': { code: 'RR101', meaning: 'an active radar exists', retryable: false, httpStatus: 409, source: 'spec' },
    'RR102': { code: 'RR102', meaning: 'maximum radar radius exceeded', retryable: false, httpStatus: 400, source: 'spec' },
    // Project-defined: entities and rental/vehicle operations
    'R404': { code: 'R404', meaning: 'rental not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown rentalId' },
    'R103': { code: 'R103', meaning: 'vehicle not ready to rent', retryable: false, httpStatus: 409, source: 'project', when: 'start or reserve when the vehicle is unavailable; the message lists the reasons' },
    'R104': { code: 'R104', meaning: 'vehicle category not bookable, or rental not allowed for this category', retryable: false, httpStatus: 409, source: 'project', when: 'rental or reservation request for a category that does not allow it' },
    'R105': { code: 'R105', meaning: 'the vehicle is not in the given branch', retryable: false, httpStatus: 422, source: 'project', when: 'AdminAddRental with a `branchId` other than the vehicle\'s branch' },
    'R106': { code: 'R106', meaning: 'the free reservation time of the reset window is used up', retryable: false, httpStatus: 409, source: 'project', when: 'a new reservation while `reservationMaxMinutes` of free reservation are used up within `bufferMinutes`' },
    'R107': { code: 'R107', meaning: 'the same vehicle cannot be rented again by this customer yet', retryable: true, httpStatus: 409, source: 'project', when: 'within `blockRentalForSameVehicleMinutes` after the customer ended a rental of that vehicle; `retryAfterSeconds` in details' },
    'R201': { code: 'R201', meaning: 'operation not allowed in the rental\'s current state', retryable: false, httpStatus: 409, source: 'project', when: 'operation or cancel not valid from the current state (e.g. DELETE /rentals/{id} outside RESERVATION)' },
    'R202': { code: 'R202', meaning: 'another operation on this rental is in progress; re-read its state and retry', retryable: true, httpStatus: 409, source: 'project', when: 'concurrent operations on the same rental' },
    'R203': { code: 'R203', meaning: 'reservation cannot be renewed beyond the maximum free reservation time', retryable: false, httpStatus: 409, source: 'project', when: 'RENEW_RESERVATION beyond `reservationMaxMinutes` of the `rental.reservation` setting' },
    'R204': { code: 'R204', meaning: 'operation disallowed for this vehicle category', retryable: false, httpStatus: 409, source: 'project', when: 'operation listed in the category\'s `disallowedRentalOperations`' },
    'R205': { code: 'R205', meaning: 'these reservation minutes cannot be bought', retryable: false, httpStatus: 409, source: 'project', when: 'buy-reservation outside RESERVATION or beyond `maxPaidReservationMinutes` (default 120) per rental' },
    'R190': { code: 'R190', meaning: 'the business account named does not exist or the customer is not its active member', retryable: false, httpStatus: 422, source: 'project', when: 'POST /rentals (both interfaces) with a `userGroupId` that is not the customer\'s account' },
    'R191': { code: 'R191', meaning: 'the cost center named is not one of the business account\'s (or no business account is named)', retryable: false, httpStatus: 422, source: 'project', when: 'POST /rentals with a `costCenterId` of another account, or without `userGroupId`' },
    'R192': { code: 'R192', meaning: 'this business account requires a reason for business rentals', retryable: false, httpStatus: 422, source: 'project', when: 'business rental without `reason` for an account with `requireDrivingLog`' },
    'R210': { code: 'R210', meaning: 'the rental has already been rated', retryable: false, httpStatus: 409, source: 'project', when: 'second POST /front/rentals/{id}/cleanliness-rating' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    rentals: typeof rentalErrors;
  }
}
