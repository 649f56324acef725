// Error codes of the platform: what the kernel answers for every route of a kind beyond the request
// codes of domain/errors.ts (today the search rate limit). Pure data, registered in the catalogue when
// imported; composition/domains/platform.ts lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The platform's catalogue entries; `when` says when the project answers a code. */
export const platformErrors = defineErrorCodes(
  'platform',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: rate limits (RL100, the sign-in lockout, is the spec's; see docs/observability.md)
    'RL101': { code: 'RL101', meaning: 'search rate limit reached; retry after the seconds in Retry-After', retryable: true, httpStatus: 429, source: 'project', when: 'a caller (token subject) made more searches of one class (`rateLimit` of the route: rentals, events, customers) in the tenant than the setting `rateLimits.<class>` allows in its window (default 120 per 60 s); the answer carries `Retry-After`' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    platform: typeof platformErrors;
  }
}
