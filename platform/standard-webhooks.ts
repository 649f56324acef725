// Outgoing webhooks in the Standard Webhooks scheme (https://www.standardwebhooks.com): the headers of one
// attempt, signed with the `standardwebhooks` library (`v1,` + base64 HMAC-SHA256 over
// `{webhook-id}.{webhook-timestamp}.{body}` with the base64-decoded `whsec_` secret), and one guarded POST
// with a timeout whose outcome says whether it may be retried. Reusable by any sender (exports today).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { postWebhook as postGuarded } from './webhook-http.js';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (shown once, stored as issued). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A new API key identifying the sender (`x-api-key`): 32 random bytes, base64url. */
export function newWebhookApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/** How one attempt authenticates: nothing, or an API key and a signing secret. */
export interface WebhookAuthentication {
  apiKey: string;
  secret: string;
}

/**
 * The headers of one attempt: always Content-Type, webhook-id (stable across attempts) and
 * x-webhook-dispatch-attempt-count; with authentication also x-api-key, webhook-timestamp (Unix seconds,
 * now) and webhook-signature, computed afresh for this attempt.
 */
export function webhookHeaders(options: {
  webhookId: string;
  attempt: number;
  body: string;
  authentication?: WebhookAuthentication;
  now?: Date;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': options.webhookId,
    'x-webhook-dispatch-attempt-count': String(options.attempt),
  };
  if (options.authentication) {
    const now = options.now ?? new Date();
    // The library signs with whole seconds (it floors the date), as the header carries them.
    const signature = new Webhook(options.authentication.secret).sign(options.webhookId, now, options.body);
    headers['x-api-key'] = options.authentication.apiKey;
    headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
    headers['webhook-signature'] = signature;
  }
  return headers;
}

/** What one POST ended with: a 2xx, another HTTP status (final), or no answer (retried). */
export type WebhookAttemptResult =
  | { outcome: 'DELIVERED'; httpStatus: number }
  | { outcome: 'HTTP_ERROR'; httpStatus: number }
  | { outcome: 'NETWORK_ERROR'; error: string }
  | { outcome: 'TIMEOUT'; error: string };

/**
 * POSTs the body once through the platform's guarded sender (platform/webhook-http.ts: redirects not
 * followed, private and loopback targets refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set, the host's
 * resolved addresses checked too). A 2xx is DELIVERED; any other status is HTTP_ERROR (final: the spec
 * never retries an answer, 5xx included); a refused target or broken connection is NETWORK_ERROR, no answer
 * in time TIMEOUT (both retried by the caller).
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<WebhookAttemptResult> {
  const result = await postGuarded(url, body, headers, { timeoutMs });
  if (result.status !== null)
    return result.status >= 200 && result.status < 300
      ? { outcome: 'DELIVERED', httpStatus: result.status }
      : { outcome: 'HTTP_ERROR', httpStatus: result.status };
  const error = (result.error ?? 'no answer').slice(0, 500);
  return result.timedOut ? { outcome: 'TIMEOUT', error } : { outcome: 'NETWORK_ERROR', error };
}
