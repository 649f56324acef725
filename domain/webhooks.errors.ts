// Error codes of the platform webhooks domain (WH*): subscriptions, their deliveries and redeliveries.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains/webhooks.ts) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The webhooks domain's catalogue entries; `when` says when the project answers a code. */
export const webhookErrors = defineErrorCodes(
  'webhooks',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: platform webhooks (WH*)
    'WH404': { code: 'WH404', meaning: 'webhook subscription not found', retryable: false, httpStatus: 404, source: 'project', when: 'a webhook subscription id that does not exist in the tenant' },
    'WHD404': { code: 'WHD404', meaning: 'webhook delivery not found', retryable: false, httpStatus: 404, source: 'project', when: 'a delivery id that is not an attempt of that subscription' },
    'WH100': { code: 'WH100', meaning: 'the webhook URL is not an acceptable target', retryable: false, httpStatus: 422, source: 'project', when: 'a subscription url that is not an absolute http(s) URL, carries credentials or a fragment, or names no host' },
    'WH101': { code: 'WH101', meaning: 'the webhook URL names a private, loopback or link-local host', retryable: false, httpStatus: 422, source: 'project', when: 'a subscription url whose host is localhost or a private, loopback, link-local or reserved address, unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set (docs/webhooks.md)' },
    'WH102': { code: 'WH102', meaning: 'the branch of the subscription scope does not exist', retryable: false, httpStatus: 422, source: 'project', when: 'a subscription branchId unknown in the tenant' },
    'WH103': { code: 'WH103', meaning: 'the message is already waiting for delivery', retryable: false, httpStatus: 409, source: 'project', when: 'redelivering a message whose delivery is still pending (retries under way or waiting for an earlier message of its entity)' },
    'WH104': { code: 'WH104', meaning: 'the tenant holds the maximum number of webhook subscriptions', retryable: false, httpStatus: 409, source: 'project', when: 'creating a 51st webhook subscription' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    webhooks: typeof webhookErrors;
  }
}
