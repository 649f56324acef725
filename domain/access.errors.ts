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
    'AR100': { code: 'AR100', meaning: 'a role with this name exists', retryable: false, httpStatus: 409, source: 'project', when: 'POST /roles or PUT /roles/{id} with a name another role of the tenant has' },
    'AR101': { code: 'AR101', meaning: 'role or role name in use', retryable: false, httpStatus: 409, source: 'project', when: 'deleting a role that is assigned; deleting or renaming a role configured vehicle operations are limited to, or giving a role such a name' },
    'AR102': { code: 'AR102', meaning: 'role assignment exists', retryable: false, httpStatus: 409, source: 'project', when: 'the subject already holds this role on this scope' },
    // Access control
    'A100': { code: 'A100', meaning: 'action not allowed', retryable: false, httpStatus: 403, source: 'spec' },
    'A102': { code: 'A102', meaning: 'rental belongs to another user or client', retryable: false, httpStatus: 403, source: 'spec' },
    'A104': { code: 'A104', meaning: 'booking belongs to another user or client', retryable: false, httpStatus: 403, source: 'spec' },
  },
  // The checks behind AUTHZ018 (a grant refused) and AUTHZ019 (a role's permission list refused as a whole).
  {
    'AUTHZ018.1': 'the role holds a root permission, internal to the platform operator',
    'AUTHZ018.2': 'the caller does not hold every permission of the role on the scope of the assignment',
    'AUTHZ018.3':
      'the role limits configured vehicle operations and the caller does not hold it on the scope',
    'AUTHZ019.1': 'root permissions are internal to the platform operator and never part of a tenant role',
    'AUTHZ019.2': 'the caller does not hold a changed permission on every scope the role is assigned on',
  },
);

declare module './errors.js' {
  interface ErrorTables {
    access: typeof accessErrors;
  }
}
