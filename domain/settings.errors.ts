// Error codes of the settings domain (localized messages have theirs: domain/messages.errors.ts).
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The settings domain's catalogue entries; `when` says when the project answers a code. */
export const settingErrors = defineErrorCodes(
  'settings',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: settings management (docs/settings.md)
    'ST100': { code: 'ST100', meaning: 'setting value invalid', retryable: false, httpStatus: 400, source: 'project', when: 'the value does not match its key\'s schema, is not an object, holds a NUL character or a non-finite number, or is too large or deep' },
    'ST101': { code: 'ST101', meaning: 'unknown setting key', retryable: false, httpStatus: 422, source: 'project', when: 'the key is neither a known key nor under a custom prefix (`app.`, `dashboard.`, `maintenance.action.`), or is not dot-separated segments' },
    'ST102': { code: 'ST102', meaning: 'settings must not hold secrets', retryable: false, httpStatus: 422, source: 'project', when: 'the key or a field of the value names a credential (password, secret, token, apiKey, privateKey…), or a string looks like one (PEM block, JWT, known API-key prefixes, user:password@ in a URL)' },
    'ST103': { code: 'ST103', meaning: 'setting area or value type does not match the key', retryable: false, httpStatus: 400, source: 'project', when: 'a known key written with another area or value type, or a custom key with another area than its prefix\'s' },
    'ST104': { code: 'ST104', meaning: 'a branch already has a value for this setting key', retryable: false, httpStatus: 409, source: 'project', when: 'two rows of one key would name the same branch (the effective value would be ambiguous)' },
    'ST105': { code: 'ST105', meaning: 'branch 0 stands alone', retryable: false, httpStatus: 400, source: 'project', when: 'branchIds names branch 0 (the tenant-wide fallback) together with other branches' },
    'ST404': { code: 'ST404', meaning: 'setting not found', retryable: false, httpStatus: 404, source: 'project', when: 'no setting with this id in the tenant, or no value for the key a maintenance action names' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    settings: typeof settingErrors;
  }
}
