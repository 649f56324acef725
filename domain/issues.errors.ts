// Error codes of the issues domain: issues, their comments and the invoices charged on them.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The issues domain's catalogue entries; `when` says when the project answers a code. */
export const issueErrors = defineErrorCodes(
  'issues',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Issues, fines, files (the spec's)
    'F201': { code: 'F201', meaning: 'no rental, vehicle or branch given', retryable: false, httpStatus: 422, source: 'spec', when: 'POST /issues naming none of branchId, rentalId, bookingId and vehicleId (the issue\'s branch comes from them)' },
    'F202': { code: 'F202', meaning: 'issue needs an affected user for the invoice', retryable: false, httpStatus: 422, source: 'spec', when: 'POST /issues/{issueId}/invoices on an issue without guserId' },
    'F203': { code: 'F203', meaning: 'create the invoice first', retryable: false, httpStatus: 409, source: 'spec', when: 'POST /issues/{issueId}/invoices/{invoiceId}/bill with an invoice that is not one of the issue\'s' },
    'F204': { code: 'F204', meaning: 'deposit too small', retryable: false, httpStatus: 422, source: 'spec', when: 'billing an issue invoice with chargeAgainstDeposit when the issue links no deposit, the deposit was released, is in another currency, or what it has left does not cover the invoice\'s gross' },
    'F205': { code: 'F205', meaning: 'billing error', retryable: false, httpStatus: 422, source: 'spec', when: 'an issue invoice whose first payment attempt failed at the gateway (hard decline: the payment is FAILED, the invoice EXCEPTION_PAYING); also a malformed rental.deposit setting at a rental\'s START' },
    'F301': { code: 'F301', meaning: 'files can only be added to own comments', retryable: false, httpStatus: 403, source: 'spec', when: 'fileIds on a PATCH of another author\'s comment' },
    'F404': { code: 'F404', meaning: 'issue not found', retryable: false, httpStatus: 404, source: 'spec' },
    'F405': { code: 'F405', meaning: 'comment not found', retryable: false, httpStatus: 404, source: 'spec', when: 'a comment id that does not exist in the tenant or is not a comment of the issue of the path' },
    // Project-defined
    'F100': { code: 'F100', meaning: 'the issue cannot move to that state, or a closed issue cannot be edited', retryable: false, httpStatus: 409, source: 'project', when: 'PATCH /issues/{issueId} with a state move the issue table does not allow, or field and link changes (damage links included) on a CLOSED issue (docs/issues.md)' },
    'F101': { code: 'F101', meaning: 'a record the issue links does not exist or does not fit it', retryable: false, httpStatus: 422, source: 'project', when: 'an unknown booking, rental, vehicle, customer, business account, cost center, deposit or damage id; a cost center of another business account; a deposit of another rental; a vehicle, rental, booking or damage outside the issue\'s branch and its descendants' },
    'F102': { code: 'F102', meaning: 'the damage is linked to another issue', retryable: false, httpStatus: 409, source: 'project', when: 'POST /issues/{issueId}/damages with a damage another issue links (unlink it there first)' },
    'F302': { code: 'F302', meaning: 'only the author may change or delete a comment', retryable: false, httpStatus: 403, source: 'project', when: 'PATCH (text) or DELETE of another author\'s comment' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    issues: typeof issueErrors;
  }
}
