// Error codes of the finance domain: invoices, payments, balances and deposits.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The finance domain's catalogue entries; `when` says when the project answers a code. */
export const financeErrors = defineErrorCodes(
  'finance',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Common codes of otherwise unshown tables (U6XX terms, R, P, V)
    'P104': { code: 'P104', meaning: 'no payment method or package', retryable: false, httpStatus: 422, source: 'spec' },
    // Balance
    'J100': { code: 'J100', meaning: 'cannot charge a positive balance', retryable: false, httpStatus: 422, source: 'spec' },
    'J101': { code: 'J101', meaning: 'settlement failed', retryable: false, httpStatus: 500, source: 'spec' },
    'J102': { code: 'J102', meaning: 'give balanceId or branchId, not both', retryable: false, httpStatus: 400, source: 'spec' },
    'J103': { code: 'J103', meaning: 'no default payment source', retryable: false, httpStatus: 422, source: 'spec' },
    'J104': { code: 'J104', meaning: 'balance is being charged', retryable: true, httpStatus: 409, source: 'spec' },
    'J105': { code: 'J105', meaning: 'give branch or vehicle, not both', retryable: false, httpStatus: 400, source: 'spec' },
    'J106': { code: 'J106', meaning: 'system-created balances are not deletable', retryable: false, httpStatus: 422, source: 'spec' },
    'J107': { code: 'J107', meaning: 'only the owner may delete the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J108': { code: 'J108', meaning: 'only unused balances are deletable', retryable: false, httpStatus: 409, source: 'spec' },
    'J109': { code: 'J109', meaning: 'only the owner may give access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J110': { code: 'J110', meaning: 'only the owner may view access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J111': { code: 'J111', meaning: 'only the owner may revoke access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J112': { code: 'J112', meaning: 'setting default balance failed', retryable: true, httpStatus: 500, source: 'spec' },
    'J113': { code: 'J113', meaning: 'balance belongs to another billable branch', retryable: false, httpStatus: 422, source: 'spec' },
    'J404': { code: 'J404', meaning: 'no balance found', retryable: false, httpStatus: 404, source: 'spec' },
    // Project-defined: rental billing (invoices are the spec's I* family, deposits a rental operation)
    'I404': { code: 'I404', meaning: 'invoice not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown invoice id (or another tenant\'s)' },
    'R250': { code: 'R250', meaning: 'the rental has no active deposit to release (none held, or already released)', retryable: false, httpStatus: 409, source: 'project', when: '`POST /rentals/{rentalId}/release-deposit` when none was held or it was released already' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    finance: typeof financeErrors;
  }
}
