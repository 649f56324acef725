import { ApplicationFailure, Context } from '@temporalio/activity';
import { isDomainError } from '../domain/errors.js';

/**
 * Idempotency key of the running activity: workflow id + run id + activity id. It is stable across
 * retries of one activity and unique across continue-as-new runs, so unique constraints on it make
 * every activity safe to retry.
 */
export function activityIdempotencyKey(): string {
  const { workflowExecution, activityId } = Context.current().info;
  if (!workflowExecution) throw new Error('idempotency keys exist only for activities run by a workflow');
  return `${workflowExecution.workflowId}/${workflowExecution.runId}/${activityId}`;
}

/**
 * Heartbeats every `intervalMs` while `work` runs, so a worker that dies mid-activity is noticed within
 * the caller's heartbeatTimeout instead of its whole startToCloseTimeout. Work done within the first
 * interval sends no heartbeat at all (the timeout counts from the start of the attempt). Each heartbeat is
 * a round trip to the Temporal server and a write of the activity's state there: 2 s spares every step
 * answered within 2 s of them and stays inside the rental steps' 5 s heartbeat timeout.
 */
export async function withHeartbeat<T>(work: () => Promise<T>, intervalMs = 2_000): Promise<T> {
  const context = Context.current();
  // A local activity has no heartbeat: its workflow task's timeout notices a dead worker.
  if (context.info.isLocal) return work();
  const timer = setInterval(() => context.heartbeat(), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Turns domain refusals into non-retryable ApplicationFailures whose type is the catalogue code, so the
 * workflow and the API see the code. A business refusal never changes by retrying, so it is never
 * retried, whatever the catalogue's "retryable" advice to API clients says; anything else (database,
 * broker, network faults) stays retryable under the workflow's retry policy.
 */
export async function asActivity<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isDomainError(error)) {
      throw ApplicationFailure.create({
        type: error.code,
        message: error.message,
        nonRetryable: true,
        details: error.details ? [error.details] : undefined,
      });
    }
    throw error;
  }
}
