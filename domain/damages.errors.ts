// Error codes of the damages domain: damages reported on vehicles.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The damages domain's catalogue entries; `when` says when the project answers a code. */
export const damageErrors = defineErrorCodes(
  'damages',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: entities and rental/vehicle operations
    'DM404': { code: 'DM404', meaning: 'damage not found', retryable: false, httpStatus: 404, source: 'project', when: 'a damage id that does not exist in the tenant' },
    'DM100': { code: 'DM100', meaning: 'the damage cannot move to that state, or a repaired or ignored damage cannot be edited', retryable: false, httpStatus: 409, source: 'project', when: 'PATCH /damages/{damageId} with a state move the damage table does not allow (docs/damages.md)' },
    'DM101': { code: 'DM101', meaning: 'a damage needs a severity before approval and keeps it from then on', retryable: false, httpStatus: 422, source: 'project', when: 'approving (or repairing) a damage without severity, or clearing the severity of an approved one' },
    'DM102': { code: 'DM102', meaning: 'the rental named is not one of this vehicle\'s rentals', retryable: false, httpStatus: 422, source: 'project', when: 'reporting a damage with a rentalId of another vehicle' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    damages: typeof damageErrors;
  }
}
