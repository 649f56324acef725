// What the workflow interceptor reports to the worker through its sink (workers/observability.ts).
import type { Sinks } from '@temporalio/workflow';

/**
 * How a workflow run ended. `task-failed`: the workflow threw something that is not a Temporal failure
 * (a bug); the run stays open and the SDK retries the workflow task, so this counts attempts.
 */
export type WorkflowOutcome = 'completed' | 'failed' | 'continued-as-new' | 'cancelled' | 'task-failed';

/** One run's outcome as the interceptor reports it: the worker counts it in its metrics. */
export interface WorkflowOutcomeReport {
  outcome: WorkflowOutcome;
  /** For `failed`: the first ApplicationFailure type in the cause chain (e.g. a catalogue code). */
  failureType?: string;
  /** For `failed` and `task-failed`: the error message. */
  message?: string;
}

/** The sink the worker implements in Node, where the Prometheus registry lives. */
export interface ObservabilitySinks extends Sinks {
  observability: {
    workflowOutcome(report: WorkflowOutcomeReport): void;
  };
}
