// Error codes of the work domain: tasks, issues, files and their access, field routes (the spec's codes, ahead of the work domain).
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The work domain's catalogue entries; `when` says when the project answers a code. */
export const workErrors = defineErrorCodes(
  'work',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Access control
    'A103': { code: 'A103', meaning: 'file access denied', retryable: false, httpStatus: 403, source: 'spec' },
    'A105': { code: 'A105', meaning: 'access to files linked to the rental denied', retryable: false, httpStatus: 403, source: 'spec' },
    'A106': { code: 'A106', meaning: 'access to files linked to the vehicle denied', retryable: false, httpStatus: 403, source: 'spec' },
    'A107': { code: 'A107', meaning: 'access to files linked to the user denied', retryable: false, httpStatus: 403, source: 'spec' },
    'A108': { code: 'A108', meaning: 'access to files linked to the issue denied', retryable: false, httpStatus: 403, source: 'spec' },
    // Issues, fines, files
    'F201': { code: 'F201', meaning: 'no rental, vehicle or branch given', retryable: false, httpStatus: 400, source: 'spec' },
    'F202': { code: 'F202', meaning: 'issue needs an affected user for the invoice', retryable: false, httpStatus: 422, source: 'spec' },
    'F203': { code: 'F203', meaning: 'create the invoice first', retryable: false, httpStatus: 409, source: 'spec' },
    'F204': { code: 'F204', meaning: 'deposit too small', retryable: false, httpStatus: 422, source: 'spec' },
    'F205': { code: 'F205', meaning: 'billing error', retryable: false, httpStatus: 500, source: 'spec' },
    'F207': { code: 'F207', meaning: 'only collection invoices can be set paid externally', retryable: false, httpStatus: 422, source: 'spec' },
    'F301': { code: 'F301', meaning: 'files can only be added to own comments', retryable: false, httpStatus: 403, source: 'spec' },
    'F404': { code: 'F404', meaning: 'issue not found', retryable: false, httpStatus: 404, source: 'spec' },
    'F405': { code: 'F405', meaning: 'comment not found', retryable: false, httpStatus: 404, source: 'spec' },
    'L303': { code: 'L303', meaning: 'file upload failed', retryable: true, httpStatus: 500, source: 'spec' },
    'L404': { code: 'L404', meaning: 'file not found', retryable: false, httpStatus: 404, source: 'spec' },
    'L405': { code: 'L405', meaning: 'file size is at most 2 MB', retryable: false, httpStatus: 413, source: 'spec' },
    'L406': { code: 'L406', meaning: 'content type required', retryable: false, httpStatus: 400, source: 'spec' },
    'L407': { code: 'L407', meaning: 'file already linked', retryable: false, httpStatus: 409, source: 'spec' },
    'L408': { code: 'L408', meaning: 'entity type not found', retryable: false, httpStatus: 400, source: 'spec' },
    // Other
    'RO100': { code: 'RO100', meaning: 'routing not set up', retryable: false, httpStatus: 422, source: 'spec' },
    'RO101': { code: 'RO101', meaning: 'routing unavailable', retryable: true, httpStatus: 503, source: 'spec' },
    'RO102': { code: 'RO102', meaning: 'routing rate limit reached', retryable: true, httpStatus: 429, source: 'spec' },
    'RO103': { code: 'RO103', meaning: 'route optimization error', retryable: true, httpStatus: 500, source: 'spec' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    work: typeof workErrors;
  }
}
