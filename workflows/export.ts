// The exports domain's workflows: one per export run (`export:{tenant}:{runId}`: the file, the result,
// then the notifications of a successful run), the firing of a recurring export's schedule (creates the
// run, runs it as a child), a notification replayed by hand, and the retention cleanup.
import {
  ActivityFailure,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createExportActivities } from '../activities/exports.js';
import { isRetriedOutcome, webhookRetryDelaysSeconds, type DeliveryOutcome } from '../domain/exports.js';
import {
  EXPORT_RUN_WORKFLOW_TYPE,
  exportRunStartOptions,
  type ExportNotificationInput,
  type ExportRetentionInput,
  type ExportRunInput,
  type ExportRunResult,
  type ExportScheduleFireInput,
  type NotificationResult,
  type NotificationTarget,
} from './export.messages.js';
import { businessFailure } from './failures.js';
import { EntityStateKey } from './search-attributes.js';

type ExportActivities = ReturnType<typeof createExportActivities>;

/** Recording steps: short, retried until the database answers. */
const record = proxyActivities<ExportActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The file: long, heartbeating every 2 s (a dead worker is noticed within 10 s and the file is written
 * again under the same key); an infrastructure fault is retried 4 times, then the run fails with EX500.
 */
const write = proxyActivities<ExportActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

/** E-mail: SMTP faults are retried (each try a delivery row), at most 5 tries. */
const mail = proxyActivities<ExportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

/**
 * One webhook attempt: never retried by Temporal — the workflow times the retries (10, 20, 40 s) so each
 * attempt is its own activity and delivery row with its own attempt count. The POST waits at most 10 s.
 */
const webhook = proxyActivities<ExportActivities>({
  startToCloseTimeout: '30 seconds',
  // A worker that dies mid-POST is noticed within 5 s; the attempt counts as no answer.
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: 1 },
});

/** Sends one webhook dispatch: attempts 1–4, retrying network errors and timeouts after 10, 20, 40 s. */
async function dispatchWebhook(
  tenant: string,
  runId: number,
  url: string,
  manual: boolean,
): Promise<NotificationResult> {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  let outcome: DeliveryOutcome = 'SENDING';
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const dispatchKey = `${workflowId}/${firstExecutionRunId}/webhook/attempt-${attempt}`;
    try {
      ({ outcome } = await webhook.deliverExportWebhook({
        tenant,
        runId,
        url,
        attempt,
        dispatchKey,
        manual,
      }));
    } catch (error) {
      // A refusal (EX411) ends the dispatch; anything else (a dead worker, a timeout) counts as no answer.
      if (businessFailure(error))
        return { channel: 'WEBHOOK', target: url, outcome: 'HTTP_ERROR', attempts: attempt };
      outcome = 'INTERRUPTED';
      const reason =
        error instanceof ActivityFailure ? String(error.cause?.message ?? error.message) : String(error);
      await record.closeInterruptedDelivery({ tenant, dispatchKey, error: reason });
    }
    const delay = webhookRetryDelaysSeconds[attempt - 1];
    if (!isRetriedOutcome(outcome) || delay === undefined)
      return { channel: 'WEBHOOK', target: url, outcome, attempts: attempt };
    await sleep(delay * 1000);
  }
}

/** Sends one e-mail notification (its tries are the activity's retries). */
async function dispatchMail(
  tenant: string,
  runId: number,
  to: string,
  manual: boolean,
): Promise<NotificationResult> {
  try {
    await mail.sendExportMail({ tenant, runId, to, manual });
    return { channel: 'EMAIL', target: to, outcome: 'DELIVERED', attempts: 1 };
  } catch {
    return { channel: 'EMAIL', target: to, outcome: 'SMTP_ERROR', attempts: 1 };
  }
}

/** Sends every target's notification at once. */
function notify(tenant: string, runId: number, targets: readonly NotificationTarget[], manual: boolean) {
  return Promise.all(
    targets.map((target) =>
      target.channel === 'EMAIL'
        ? dispatchMail(tenant, runId, target.target, manual)
        : dispatchWebhook(tenant, runId, target.target, manual),
    ),
  );
}

/**
 * One export run: writes the file, records the result once and, only when it succeeded, notifies every
 * target (the spec: one notification per successful run, none for a failed one). EntityState follows
 * the run (RUNNING, SUCCEEDED, FAILED).
 */
export async function exportRunWorkflow(input: ExportRunInput): Promise<ExportRunResult> {
  let file: { rows: number; size: number };
  try {
    file = await write.writeExportFile(input);
  } catch (error) {
    const coded = businessFailure(error);
    const errorCode = coded?.type ?? 'EX500';
    const cause = error instanceof ActivityFailure ? error.cause : error;
    await record.failExportRun({
      ...input,
      errorCode,
      message:
        coded?.message ?? String((cause as Error | undefined)?.message ?? 'the export could not be written'),
    });
    upsertSearchAttributes([{ key: EntityStateKey, value: 'FAILED' }]);
    return { state: 'FAILED', errorCode };
  }
  const plan = await record.completeExportRun({ ...input, rows: file.rows, size: file.size });
  upsertSearchAttributes([{ key: EntityStateKey, value: 'SUCCEEDED' }]);
  const targets: NotificationTarget[] = [
    ...plan.emails.map((target) => ({ channel: 'EMAIL' as const, target })),
    ...(plan.webhookUrl ? [{ channel: 'WEBHOOK' as const, target: plan.webhookUrl }] : []),
  ];
  const notifications = await notify(input.tenant, input.runId, targets, false);
  return { state: 'SUCCEEDED', rows: file.rows, notifications };
}

/** A notification replayed by hand: the same payload and webhook-id, attempt count from 1 again. */
export async function exportNotificationWorkflow(
  input: ExportNotificationInput,
): Promise<NotificationResult[]> {
  return notify(input.tenant, input.runId, input.targets, true);
}

/**
 * One firing of a recurring export's schedule: creates its run once (the firing's workflow id, which
 * carries the scheduled time, is the key) and runs it as the child `export:{tenant}:{runId}`.
 */
export async function exportScheduleFireWorkflow(
  input: ExportScheduleFireInput,
): Promise<ExportRunResult | null> {
  const { workflowId } = workflowInfo();
  const scheduledAt = /-(\d{4}-\d{2}-\d{2}T[\d:.]+Z)$/.exec(workflowId)?.[1] ?? new Date().toISOString();
  const created = await record.createScheduledExportRun({ ...input, scheduleKey: workflowId, scheduledAt });
  if (!created) return null;
  const options = exportRunStartOptions(
    { tenant: input.tenant, runId: created.runId },
    workflowInfo().taskQueue,
  );
  return executeChild<typeof exportRunWorkflow>(EXPORT_RUN_WORKFLOW_TYPE, {
    ...options,
    parentClosePolicy: ParentClosePolicy.ABANDON,
  });
}

/** Deletes the tenant's lapsed export files, a batch at a time (started hourly by the retention schedule). */
export async function exportRetentionWorkflow(input: ExportRetentionInput): Promise<{ deleted: number }> {
  let deleted = 0;
  for (let batch = 0; batch < 100; batch += 1) {
    const result = await record.deleteLapsedExportFiles({ tenant: input.tenant, limit: 200 });
    deleted += result.deleted;
    if (result.deleted < 200) break;
  }
  return { deleted };
}
