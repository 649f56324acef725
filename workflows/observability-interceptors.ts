// Workflow interceptor module (bundled into the workflow sandbox: imports @temporalio/workflow only).
// It reports how each workflow run ended through the `observability` sink, which the worker implements
// in Node (workers/observability.ts) where the Prometheus registry lives.
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  TemporalFailure,
  isCancellation,
  proxySinks,
  workflowInfo,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { ObservabilitySinks, WorkflowOutcome, WorkflowOutcomeReport } from './observability.messages.js';

export type { ObservabilitySinks, WorkflowOutcome, WorkflowOutcomeReport };

const { observability } = proxySinks<ObservabilitySinks>();

function failureTypeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth += 1) {
    if (current instanceof ApplicationFailure && current.type) return current.type;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Mirrors how the SDK turns the workflow function's outcome into a command (see its handleWorkflowFailure). */
export function workflowOutcomeOf(error: unknown): WorkflowOutcomeReport {
  if (error instanceof ContinueAsNew) return { outcome: 'continued-as-new' };
  if (isCancellation(error) && CancellationScope.current().consideredCancelled)
    return { outcome: 'cancelled' };
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TemporalFailure)
    return { outcome: 'failed', failureType: failureTypeOf(error), message };
  return { outcome: 'task-failed', message };
}

function report(outcome: WorkflowOutcomeReport): void {
  // Replays re-run code whose outcome was already reported; the sink also has callDuringReplay: false.
  if (workflowInfo().unsafe.isReplaying) return;
  observability.workflowOutcome(outcome);
}

/** Reports how each workflow run ended (completed, failed, continued as new, ...) to the worker's metrics. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        let result: unknown;
        try {
          result = await next(input);
        } catch (error) {
          report(workflowOutcomeOf(error));
          throw error;
        }
        report({ outcome: 'completed' });
        return result;
      },
    },
  ],
});
