// The dispatcher of one platform webhook subscription: a long-lived workflow that runs a dispatch step
// (fan the tenant's outbox out, POST the due messages, record each attempt), then sleeps until the next
// message falls due or a signal wakes it, and continues as new before its history grows long. Retry
// waits are its timers, so the time-skipping tests skip them.
import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks.js';
import { wakeWebhookDispatcherSignal, type WebhookDispatcherInput } from './webhooks.messages.js';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

const activities = proxyActivities<WebhookActivities>({
  // A step POSTs at most a batch of messages at once, each within 10 s. It heartbeats every 2 s: a step
  // on a worker that died is retried after 10 s, not after the 2 minutes a step may take.
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** With nothing due, the dispatcher still looks every so often (a lost wake-up costs at most this). */
const IDLE_MS = 10 * 60_000;
/** Steps before continuing as new. */
const STEPS_PER_RUN = 500;

/** Delivers one subscription's webhook messages for as long as it is active (docs/webhooks.md). */
export async function webhookDispatcherWorkflow(input: WebhookDispatcherInput): Promise<void> {
  let woken = false;
  setHandler(wakeWebhookDispatcherSignal, () => {
    woken = true;
  });
  for (let step = 0; step < STEPS_PER_RUN && !workflowInfo().continueAsNewSuggested; step++) {
    woken = false;
    // The workflow's clock decides what is due, so retry waits are this workflow's timers.
    const result = await activities.dispatchWebhooks({ ...input, nowMs: Date.now() });
    if (result.stop) return;
    if (result.more) continue;
    const wait = result.nextDueAtMs === null ? IDLE_MS : Math.min(result.nextDueAtMs - Date.now(), IDLE_MS);
    if (wait > 0) await condition(() => woken, wait);
  }
  await continueAsNew<typeof webhookDispatcherWorkflow>(input);
}
