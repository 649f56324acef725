// Error codes of the rental-requirements domain: start and end requirements of rentals, rental authority.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The rental-requirements domain's catalogue entries; `when` says when the project answers a code. */
export const rentalRequirementErrors = defineErrorCodes(
  'rental-requirements',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: rental requirements and rental authority (RQ* is not a spec prefix)
    'RQ100': { code: 'RQ100', meaning: 'the rental requirements configured for this branch are invalid; fix the rental.requirements setting', retryable: false, httpStatus: 409, source: 'project', when: 'the `rental.requirements` setting of the branch does not validate' },
    'RQ101': { code: 'RQ101', meaning: 'start requirement: e-mail address not verified', retryable: false, httpStatus: 422, source: 'project', when: 'EMAIL_VERIFIED' },
    'RQ102': { code: 'RQ102', meaning: 'start requirement: phone number not verified', retryable: false, httpStatus: 422, source: 'project', when: 'PHONE_VERIFIED' },
    'RQ103': { code: 'RQ103', meaning: 'start requirement: driving licence not verified', retryable: false, httpStatus: 422, source: 'project', when: 'LICENSE_VERIFIED' },
    'RQ104': { code: 'RQ104', meaning: 'start requirement: ID document not verified', retryable: false, httpStatus: 422, source: 'project', when: 'ID_VERIFIED' },
    'RQ105': { code: 'RQ105', meaning: 'start requirement: manual verification missing', retryable: false, httpStatus: 422, source: 'project', when: 'MANUAL_VERIFIED' },
    'RQ106': { code: 'RQ106', meaning: 'start requirement: external verification missing', retryable: false, httpStatus: 422, source: 'project', when: 'CUSTOM_EXTERNAL_VERIFIED' },
    'RQ107': { code: 'RQ107', meaning: 'start requirement: no payment method that can be pre-authorized', retryable: false, httpStatus: 422, source: 'project', when: 'PAYMENT_PRE_AUTHORIZATION without a card or PayPal and no skipPreAuth' },
    'RQ108': { code: 'RQ108', meaning: 'start requirement: no rental authority for this branch', retryable: false, httpStatus: 422, source: 'project', when: 'RENTAL_AUTHORITY' },
    'RQ109': { code: 'RQ109', meaning: 'start requirement: driving licence category missing', retryable: false, httpStatus: 422, source: 'project', when: 'LICENSE_CATEGORY' },
    'RQ110': { code: 'RQ110', meaning: 'start requirement: rentals here need a business account', retryable: false, httpStatus: 422, source: 'project', when: 'BUSINESS_ACCOUNT without a business-account context' },
    'RQ201': { code: 'RQ201', meaning: 'end requirement: user outside the business area', retryable: false, httpStatus: 422, source: 'project', when: 'USER_IN_BUSINESS_AREA' },
    'RQ202': { code: 'RQ202', meaning: 'end requirement: vehicle in an area where rentals may not end', retryable: false, httpStatus: 422, source: 'project', when: 'NOT_IN_PROHIBITED_AREA' },
    'RQ203': { code: 'RQ203', meaning: 'end requirement: user in an area where rentals may not end', retryable: false, httpStatus: 422, source: 'project', when: 'USER_NOT_IN_PROHIBITED_AREA' },
    'RQ204': { code: 'RQ204', meaning: 'end requirement: vehicle not in a station area', retryable: false, httpStatus: 422, source: 'project', when: 'VEHICLE_IN_STATION_AREA' },
    'RQ205': { code: 'RQ205', meaning: 'end requirement: vehicle not docked and locked in a station', retryable: false, httpStatus: 422, source: 'project', when: 'VEHICLE_LOCKED_IN_STATION' },
    'RQ206': { code: 'RQ206', meaning: 'end requirement: vehicle not charging', retryable: false, httpStatus: 422, source: 'project', when: 'IS_CHARGING' },
    'RQ207': { code: 'RQ207', meaning: 'end requirement: tailbox open', retryable: false, httpStatus: 422, source: 'project', when: 'TAILBOX_CLOSED' },
    'RQ208': { code: 'RQ208', meaning: 'end requirement: helmets not plugged in', retryable: false, httpStatus: 422, source: 'project', when: 'HELMETS_PLUGGED_IN' },
    'RQ209': { code: 'RQ209', meaning: 'end requirement: helmets present at the start missing', retryable: false, httpStatus: 422, source: 'project', when: 'EXISTING_HELMETS_PLUGGED_IN' },
    'RQ210': { code: 'RQ210', meaning: 'end requirement: RFID cards present at the start not returned', retryable: false, httpStatus: 422, source: 'project', when: 'EXISTING_RFID_CARD_HOLDER_CARDS_RETURNED' },
    'RQ211': { code: 'RQ211', meaning: 'end requirement: vehicle still powered on', retryable: false, httpStatus: 422, source: 'project', when: 'POWER_STATE_OFF' },
    'RQ212': { code: 'RQ212', meaning: 'end requirement: vehicle not turned off after the stop command', retryable: false, httpStatus: 422, source: 'project', when: 'STATUS_TURNED_OFF' },
    'RQ213': { code: 'RQ213', meaning: 'end requirement: a door is open', retryable: false, httpStatus: 422, source: 'project', when: 'DOORS_CLOSED' },
    'RQ214': { code: 'RQ214', meaning: 'end requirement: key not in its holder', retryable: false, httpStatus: 422, source: 'project', when: 'KEY_IN_HOLDER' },
    'RQ215': { code: 'RQ215', meaning: 'end requirement: parking brake not engaged', retryable: false, httpStatus: 422, source: 'project', when: 'PARK_BRAKE_ON' },
    'RQ404': { code: 'RQ404', meaning: 'rental authority not found', retryable: false, httpStatus: 404, source: 'project', when: 'DELETE /rental-authority for a customer who holds none on the branch' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    'rental-requirements': typeof rentalRequirementErrors;
  }
}
