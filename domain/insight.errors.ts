// Error codes of the insight domain (KPIs and analytics).
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains/insight.ts) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The insight domain's catalogue entries; `when` says when the project answers a code. */
export const insightErrors = defineErrorCodes(
  'insight',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined
    'ANL100': { code: 'ANL100', meaning: 'the analytics period must be non-empty and at most 31 days long', retryable: false, httpStatus: 422, source: 'project', when: 'GET /analytics/userEvents and /analytics/rentals/startPositions with `to` not after `from` (either defaulted: `to` now, `from` 24 hours before `to`) or more than 31 days after it' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    insight: typeof insightErrors;
  }
}
