// Error codes of the open mobility feeds domain (FD*): published systems (operator endpoints) and the
// public GBFS feeds. Pure data, registered in the catalogue when imported (a code declared twice fails at
// start); the registration (composition/domains/feeds.ts) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The feeds domain's catalogue entries; `when` says when the project answers a code. */
export const feedErrors = defineErrorCodes(
  'feeds',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: open mobility feeds (FD*)
    'FD404': { code: 'FD404', meaning: 'feed system or vehicle type not found', retryable: false, httpStatus: 404, source: 'project', when: 'a feed system id that does not exist in the tenant, or a vehicle category that is not published as a vehicle type' },
    'FD100': { code: 'FD100', meaning: 'the system id is already used in the tenant', retryable: false, httpStatus: 409, source: 'project', when: 'creating or renaming a feed system to a systemId another system of the tenant has' },
    'FD101': { code: 'FD101', meaning: 'the language is not a valid BCP-47 tag', retryable: false, httpStatus: 422, source: 'project', when: 'a feed system language the runtime cannot canonicalise as a BCP-47 language tag' },
    'FD102': { code: 'FD102', meaning: 'the time zone is unknown', retryable: false, httpStatus: 422, source: 'project', when: 'a feed system timezone that is not an IANA time zone the runtime knows' },
    'FD103': { code: 'FD103', meaning: 'a published system cannot be deleted', retryable: false, httpStatus: 409, source: 'project', when: 'deleting a feed system that is still published (unpublish it first)' },
    'FD104': { code: 'FD104', meaning: 'a motorised vehicle type needs its range', retryable: false, httpStatus: 422, source: 'project', when: 'publishing a vehicle category with a propulsion other than human without maxRangeMeters (GBFS requires max_range_meters)' },
    'FD410': { code: 'FD410', meaning: 'public feed not found', retryable: false, httpStatus: 404, source: 'project', when: 'a public feed path naming an unknown tenant, an unknown or unpublished system, an unsupported version or a file the version does not have' },
    'FD405': { code: 'FD405', meaning: 'method not allowed on a public feed', retryable: false, httpStatus: 405, source: 'project', when: 'a public feed requested with a method other than GET, HEAD or OPTIONS' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    feeds: typeof feedErrors;
  }
}
