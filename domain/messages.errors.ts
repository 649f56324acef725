// Error codes of the messages domain: the tenant's localized texts apps resolve by key and language.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The messages domain's catalogue entries; `when` says when the project answers a code. */
export const messageErrors = defineErrorCodes(
  'messages',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Other (the spec's)
    'M101': { code: 'M101', meaning: 'message exists', retryable: false, httpStatus: 409, source: 'spec', when: 'POST /resources/messages or PATCH /resources/messages/{messageId} giving a key and locale another message of the tenant has; PUT /resources/messages/bulk naming one key and locale twice' },
    'M102': { code: 'M102', meaning: 'reserved code', retryable: false, httpStatus: 422, source: 'spec', when: 'a message key the platform reserves: the `system.` namespace (any case) or an error code of the catalogue itself (`AUTH101`, `U130.2`; texts for errors go under `error.<code>`); docs/messages.md' },
    'M404': { code: 'M404', meaning: 'message not found', retryable: false, httpStatus: 404, source: 'spec', when: 'a message id that does not exist in the tenant' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    messages: typeof messageErrors;
  }
}
