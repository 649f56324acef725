// Error codes of the access domain: API clients, tokens, scopes, roles and their assignments, request signing, ownership checks.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The access domain's catalogue entries; `when` says when the project answers a code. */
export const accessErrors = defineErrorCodes(
  'access',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Authentication and authorization
    'AUTH001': { code: 'AUTH001', meaning: 'unreadable message; body must be valid JSON', retryable: false, httpStatus: 400, source: 'spec' },
    'AUTH002': { code: 'AUTH002', meaning: 'access denied', retryable: false, httpStatus: 403, source: 'spec' },
    'AUTH003': { code: 'AUTH003', meaning: 'internal error', retryable: true, httpStatus: 500, source: 'spec' },
    'AUTH004': { code: 'AUTH004', meaning: 'private-key construction error', retryable: false, httpStatus: 500, source: 'spec' },
    'AUTH005': { code: 'AUTH005', meaning: 'invalid bearer token', retryable: false, httpStatus: 401, source: 'spec' },
    'AUTH051': { code: 'AUTH051', meaning: 'tenant does not exist', retryable: false, httpStatus: 404, source: 'spec' },
    'AUTH052': { code: 'AUTH052', meaning: 'user does not exist', retryable: false, httpStatus: 404, source: 'spec' },
    'AUTH053': { code: 'AUTH053', meaning: 'tenant may only manage users created by its own API client', retryable: false, httpStatus: 403, source: 'spec' },
    'AUTH210': { code: 'AUTH210', meaning: 'API client does not exist', retryable: false, httpStatus: 404, source: 'spec' },
    'AUTH217': { code: 'AUTH217', meaning: 'unknown scope', retryable: false, httpStatus: 400, source: 'spec' },
    'AUTHZ018': { code: 'AUTHZ018', meaning: 'authorization service denied', retryable: false, httpStatus: 403, source: 'spec' },
    'AUTHZ019': { code: 'AUTHZ019', meaning: 'bulk permission update rejected', retryable: false, httpStatus: 403, source: 'spec' },
    'JWT006': { code: 'JWT006', meaning: 'Authorization header missing', retryable: false, httpStatus: 401, source: 'spec' },
    'RL100': { code: 'RL100', meaning: 'rate limit reached after 3 failed attempts; wait 120 seconds', retryable: true, httpStatus: 429, source: 'spec' },
    // Other
    'SE100': { code: 'SE100', meaning: 'request-signing value missing', retryable: false, httpStatus: 400, source: 'spec' },
    'SE101': { code: 'SE101', meaning: 'invalid app or timestamp in request signature', retryable: false, httpStatus: 401, source: 'spec' },
    'SE102': { code: 'SE102', meaning: 'invalid request signature', retryable: false, httpStatus: 401, source: 'spec' },
    // Project-defined: entities and rental/vehicle operations
    'AR404': { code: 'AR404', meaning: 'role or role assignment not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown roleId or assignment id' },
    // Access control
    'A100': { code: 'A100', meaning: 'action not allowed', retryable: false, httpStatus: 403, source: 'spec' },
    'A102': { code: 'A102', meaning: 'rental belongs to another user or client', retryable: false, httpStatus: 403, source: 'spec' },
    'A104': { code: 'A104', meaning: 'booking belongs to another user or client', retryable: false, httpStatus: 403, source: 'spec' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    access: typeof accessErrors;
  }
}
