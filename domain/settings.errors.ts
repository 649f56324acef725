// Error codes of the settings domain: settings and localized messages.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The settings domain's catalogue entries; `when` says when the project answers a code. */
export const settingErrors = defineErrorCodes(
  'settings',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Other
    'M101': { code: 'M101', meaning: 'message exists', retryable: false, httpStatus: 409, source: 'spec' },
    'M102': { code: 'M102', meaning: 'reserved message code', retryable: false, httpStatus: 409, source: 'spec' },
    'M404': { code: 'M404', meaning: 'message not found', retryable: false, httpStatus: 404, source: 'spec' },
    // Project-defined: entities and rental/vehicle operations
    'ST404': { code: 'ST404', meaning: 'setting not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown setting key' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    settings: typeof settingErrors;
  }
}
