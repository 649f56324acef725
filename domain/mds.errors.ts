// Error codes of the MDS provider domain (MDS*): the agencies' credentials (operator endpoints) and the MDS
// 2.0 provider interface. Pure data, registered in the catalogue when imported (a code declared twice
// fails at start); the registration (composition/domains/mds.ts) lists it, and docs/errors.md is generated
// from it.
import { defineErrorCodes } from './errors.js';

/** The MDS domain's catalogue entries; `when` says when the project answers a code. */
export const mdsErrors = defineErrorCodes(
  'mds',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: MDS provider interface (MDS*)
    'MDS400': { code: 'MDS400', meaning: 'the hour is not a valid UTC hour YYYY-MM-DDTHH', retryable: false, httpStatus: 400, source: 'project', when: 'an end_time, event_time or telemetry_time that is not an existing UTC hour of 1970 or later in the form YYYY-MM-DDTHH' },
    'MDS401': { code: 'MDS401', meaning: 'the time range of recent events is invalid', retryable: false, httpStatus: 400, source: 'project', when: 'events/recent with start_time not before end_time, a start_time more than two weeks ago, or an end_time in the future' },
    'MDS404': { code: 'MDS404', meaning: 'vehicle not found', retryable: false, httpStatus: 404, source: 'project', when: 'a device_id that names no vehicle of the tenant\'s published systems' },
    'MDS405': { code: 'MDS405', meaning: 'the hour is not over yet', retryable: false, httpStatus: 404, source: 'project', when: 'trips, events/historical or telemetry asked for the current or a future hour (MDS: the hour must be in the past)' },
    'MDS406': { code: 'MDS406', meaning: 'the requested MDS version is not supported', retryable: false, httpStatus: 406, source: 'project', when: 'an Accept header that asks for application/vnd.mds+json without version 2.0, or for no media type an MDS answer has' },
    'MDS407': { code: 'MDS407', meaning: 'report not found', retryable: false, httpStatus: 404, source: 'project', when: 'a report file name that is not YYYY-MM.csv of an existing month, or a month that is not over yet' },
    'MDS410': { code: 'MDS410', meaning: 'agency credential not found', retryable: false, httpStatus: 404, source: 'project', when: 'an agency credential id that does not exist in the tenant' },
    'MDS411': { code: 'MDS411', meaning: 'the agency credential is revoked', retryable: false, httpStatus: 401, source: 'project', when: 'an MDS request with the token of a credential revoked since it was issued' },
    'MDS412': { code: 'MDS412', meaning: 'the agency credential is already revoked', retryable: false, httpStatus: 409, source: 'project', when: 'revoking a credential that is already revoked' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    mds: typeof mdsErrors;
  }
}
