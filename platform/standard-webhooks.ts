// Outgoing webhooks in the Standard Webhooks scheme (https://www.standardwebhooks.com): the headers of one
// attempt, signed with the `standardwebhooks` library (`v1,` + base64 HMAC-SHA256 over
// `{webhook-id}.{webhook-timestamp}.{body}` with the base64-decoded `whsec_` secret), and one POST with a
// timeout whose outcome says whether it may be retried. Reusable by any sender (exports today).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

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
 * POSTs the body once, redirects not followed, waiting at most `timeoutMs` for the status line. A 2xx is
 * DELIVERED; any other status is HTTP_ERROR (final: the spec never retries an answer, 5xx included); a
 * refused or broken connection is NETWORK_ERROR, no answer in time TIMEOUT (both retried by the caller).
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<WebhookAttemptResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers,
      redirect: 'manual',
      signal: controller.signal,
    });
    // The body is not read: only the status counts; cancelling frees the connection.
    await response.body?.cancel().catch(() => undefined);
    return response.status >= 200 && response.status < 300
      ? { outcome: 'DELIVERED', httpStatus: response.status }
      : { outcome: 'HTTP_ERROR', httpStatus: response.status };
  } catch (error) {
    if (controller.signal.aborted) return { outcome: 'TIMEOUT', error: `no answer within ${timeoutMs} ms` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      outcome: 'NETWORK_ERROR',
      error: String(cause?.code ?? cause?.message ?? (error as Error).message).slice(0, 500),
    };
  } finally {
    clearTimeout(timer);
  }
}
