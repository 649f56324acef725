// The platform webhooks' side effects: one dispatch step of a subscription's dispatcher workflow — fan
// the tenant's outbox out, POST each entity's oldest due message signed with HMAC-SHA1, record every
// attempt and schedule the retry (docs/webhooks.md).
import type { ActivityDeps } from './deps.js';
import { withHeartbeat } from './support.js';
import { tenantEm } from '../db/orm.js';
import { WebhookSigningSecret } from '../db/entities/WebhookSigningSecret.js';
import { WebhookSubscription } from '../db/entities/WebhookSubscription.js';
import {
  dueWebhookMessages,
  fanOutWebhookOutbox,
  nextWebhookDueAt,
  recordWebhookAttempt,
  type DueWebhookMessage,
} from '../db/webhooks.js';
import { webhookRetryDelayMs } from '../domain/webhooks.js';
import { postWebhook, webhookSignature } from '../platform/webhook-http.js';
import {
  WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
  webhookDispatcherSignalWithStart,
  type WebhookDispatchResult,
  type WebhookDispatcherInput,
} from '../workflows/webhooks.messages.js';

/** Messages one step takes (each entity's oldest due one), and how many it POSTs at once. */
const BATCH = 100;
const CONCURRENCY = 32;
/** A receiver's whole answer (connection, headers, first KiB) must come within this. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The JSON body of one message: the same on every attempt (docs/webhooks.md, "Payload"). */
export function webhookBody(tenant: string, message: DueWebhookMessage): string {
  const [entityType, entityId] = message.entity_key.split(':');
  return JSON.stringify({
    id: message.webhook_id,
    type: message.type,
    occurredAt: new Date(message.created_at).toISOString(),
    tenant,
    eventId: String(message.event_id),
    entity: { type: entityType, id: Number(entityId) },
    branchId: message.branch_id,
    rentalId: message.rental_id,
    bookingId: message.booking_id,
    vehicleId: message.vehicle_id,
    customerId: message.customer_id,
    data: message.payload ?? {},
  });
}

/** Runs `work` over `items`, at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** The webhooks domain's activities. */
export function createWebhookActivities(deps: ActivityDeps) {
  return {
    /**
     * One dispatch step of a subscription (idempotent: an attempt is recorded once per message and
     * attempt number; a step retried after a crash may POST a message again, which receivers
     * de-duplicate by x-webhook-id). `nowMs` is the workflow's clock: what is due and when retries fall.
     * It heartbeats, so a step on a worker that died is retried elsewhere within seconds, not after the
     * step's whole timeout.
     */
    async dispatchWebhooks(
      input: WebhookDispatcherInput & { nowMs: number },
    ): Promise<WebhookDispatchResult> {
      return withHeartbeat(() => dispatchStep(input));
    },
  };

  /** The body of dispatchWebhooks (heartbeating around it). */
  async function dispatchStep(
    input: WebhookDispatcherInput & { nowMs: number },
  ): Promise<WebhookDispatchResult> {
    const em = tenantEm(deps.orm, input.tenant);
    const now = new Date(input.nowMs);
    const subscription = await em.findOne(WebhookSubscription, input.subscriptionId);
    if (!subscription || !subscription.active)
      return { stop: true, more: false, nextDueAtMs: null, attempts: 0 };
    const fanned = await fanOutWebhookOutbox(em.fork(), input.tenant, now);
    // Other subscriptions' dispatchers may have looked while this step held the rows: wake them.
    await Promise.all(
      fanned.subscriptionIds
        .filter((id) => id !== subscription.id)
        .map((subscriptionId) =>
          deps.temporal.client.workflow.signalWithStart(
            WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
            webhookDispatcherSignalWithStart(
              { tenant: input.tenant, subscriptionId },
              deps.temporal.taskQueue,
            ),
          ),
        ),
    );
    const secret = await em.findOneOrFail(WebhookSigningSecret, { subscription: subscription.id });
    const secrets = [secret.secret];
    if (secret.previousSecret && secret.previousUntil && secret.previousUntil.getTime() > Date.now())
      secrets.push(secret.previousSecret);
    const due = await dueWebhookMessages(em, input.tenant, subscription.id, now, BATCH);
    await inParallel(due, CONCURRENCY, async (message) => {
      const attempt = message.attempts + 1;
      const body = webhookBody(input.tenant, message);
      const timestamp = Math.floor(Date.now() / 1000);
      const startedAt = new Date();
      const result = await postWebhook(
        subscription.url,
        body,
        {
          'x-webhook-id': message.webhook_id,
          'x-webhook-timestamp': String(timestamp),
          'x-webhook-signature': webhookSignature(secrets, message.webhook_id, timestamp, body),
          'x-webhook-event': message.type,
          'x-webhook-dispatch-attempt-count': String(attempt),
        },
        { timeoutMs: WEBHOOK_TIMEOUT_MS },
      );
      const success = result.status !== null && result.status >= 200 && result.status < 300;
      const failures = success ? message.failures_since_redelivery : message.failures_since_redelivery + 1;
      const delay = success ? null : webhookRetryDelayMs(failures);
      await recordWebhookAttempt(em.fork(), {
        tenant: input.tenant,
        subscriptionId: subscription.id,
        dispatchId: message.dispatch_id,
        attempt,
        success,
        httpStatus: result.status,
        error: result.error ?? (success ? null : `answered ${result.status}`),
        responseExcerpt: result.excerpt,
        signedAt: timestamp,
        startedAt,
        durationMs: result.durationMs,
        state: success ? 'DELIVERED' : delay === null ? 'FAILED' : 'PENDING',
        failuresSinceRedelivery: failures,
        nextAttemptAt: delay === null ? null : new Date(input.nowMs + delay),
        manual: message.attempts > 0 && message.failures_since_redelivery === 0,
      });
    });
    const next = await nextWebhookDueAt(em, input.tenant, subscription.id);
    const nextDueAtMs = next ? next.getTime() : null;
    return {
      stop: false,
      more: fanned.more || due.length === BATCH || (nextDueAtMs !== null && nextDueAtMs <= input.nowMs),
      nextDueAtMs,
      attempts: due.length,
    };
  }
}
