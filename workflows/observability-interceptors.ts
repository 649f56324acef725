// Workflow interceptor module (bundled into the workflow sandbox: imports @temporalio/workflow and the
// workflow part of Temporal's OpenTelemetry interceptors only). It reports how each workflow run ended
// through the `observability` sink, which the worker implements in Node (workers/observability.ts) where
// the Prometheus registry lives, and traces the workflows whose callers traced them.
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  TemporalFailure,
  defaultPayloadConverter,
  isCancellation,
  proxySinks,
  workflowInfo,
  type ActivityInput,
  type ContinueAsNewInput,
  type LocalActivityInput,
  type Next,
  type SignalWorkflowInput,
  type StartChildWorkflowExecutionInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type * as OpenTelemetryWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
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

/** The header Temporal's OpenTelemetry client and workflow interceptors carry the trace context in. */
const traceHeader = '_tracer-data';

/** Whether a call's headers carry a W3C trace context (a traced client sent it). */
export function carriesTrace(headers: Record<string, unknown>): boolean {
  const payload = headers[traceHeader];
  if (payload === undefined) return false;
  try {
    const carrier = defaultPayloadConverter.fromPayload(payload as never) as Record<string, unknown> | null;
    return typeof carrier?.traceparent === 'string';
  } catch {
    return false;
  }
}

type Traced<Input> = Input & { headers: Record<string, unknown> };

/** OpenTelemetry's API and Temporal's workflow interceptors, once this run loaded them. */
let loaded: { api: typeof OpenTelemetryApi; workflow: typeof OpenTelemetryWorkflow } | undefined;

/**
 * Loads OpenTelemetry into this run on its first traced call. The sandbox evaluates every module a run
 * imports afresh for each run, and OpenTelemetry's SDK was most of that work
 * (docs/performance-rental-lifecycle.md): with `require`, webpack still bundles the modules but evaluates
 * them only when called, so untraced runs (nearly all of them) never do.
 */
function openTelemetry(): NonNullable<typeof loaded> {
  /* eslint-disable @typescript-eslint/no-require-imports -- a lazy module, see above */
  loaded ??= {
    api: require('@opentelemetry/api') as typeof OpenTelemetryApi,
    workflow:
      require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as typeof OpenTelemetryWorkflow,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return loaded;
}

/**
 * Temporal's OpenTelemetry workflow interceptors, for the calls a traced client made: a workflow run,
 * signal, update or query whose headers carry a trace context is a span (exported through the worker's
 * `exporter` sink), and what it schedules while its span is active carries the context on (activities,
 * child workflows, continue-as-new). Calls without one run as before, untouched: no span, no sink call, the
 * same commands (the recorded histories replay unchanged); the interceptors' SDK flags keep a traced
 * workflow deterministic across SDK versions.
 */
function tracingInterceptors(): {
  inbound: WorkflowInboundCallsInterceptor;
  outbound: WorkflowOutboundCallsInterceptor;
} {
  let inbound: OpenTelemetryWorkflow.OpenTelemetryInboundInterceptor | undefined;
  let outbound: OpenTelemetryWorkflow.OpenTelemetryOutboundInterceptor | undefined;
  // Made on first use: their tracer provider is created in the sandbox only for traced workflows.
  const tracedIn = () => (inbound ??= new (openTelemetry().workflow.OpenTelemetryInboundInterceptor)());
  const tracedOut = () => (outbound ??= new (openTelemetry().workflow.OpenTelemetryOutboundInterceptor)());
  /** Outbound calls are traced while a span of this workflow is active (never before a traced call loaded OpenTelemetry). */
  const inSpan = () => loaded !== undefined && loaded.api.trace.getActiveSpan() !== undefined;
  const outward =
    <Input extends { headers: Record<string, unknown> }, Output>(
      traced: (input: Traced<Input>, next: (input: Input) => Promise<Output>) => Promise<Output>,
    ) =>
    (input: Input, next: (input: Input) => Promise<Output>): Promise<Output> =>
      inSpan() ? traced(input as Traced<Input>, next) : next(input);
  return {
    inbound: {
      execute: (input, next) => (carriesTrace(input.headers) ? tracedIn().execute(input, next) : next(input)),
      handleSignal: (input, next) =>
        carriesTrace(input.headers) ? tracedIn().handleSignal(input, next) : next(input),
      handleUpdate: (input, next) =>
        carriesTrace(input.headers) ? tracedIn().handleUpdate(input, next) : next(input),
      validateUpdate: (input, next) =>
        carriesTrace(input.headers) ? tracedIn().validateUpdate(input, next) : next(input),
      handleQuery: (input, next) =>
        carriesTrace(input.headers) ? tracedIn().handleQuery(input, next) : next(input),
    },
    outbound: {
      scheduleActivity: outward<ActivityInput, unknown>((input, next) =>
        tracedOut().scheduleActivity(
          input,
          next as Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
        ),
      ),
      scheduleLocalActivity: outward<LocalActivityInput, unknown>((input, next) =>
        tracedOut().scheduleLocalActivity(
          input,
          next as Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
        ),
      ),
      startChildWorkflowExecution: outward<
        StartChildWorkflowExecutionInput,
        [Promise<string>, Promise<unknown>]
      >((input, next) =>
        tracedOut().startChildWorkflowExecution(
          input,
          next as Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
        ),
      ),
      signalWorkflow: outward<SignalWorkflowInput, void>((input, next) =>
        tracedOut().signalWorkflow(input, next as Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>),
      ),
      continueAsNew: outward<ContinueAsNewInput, never>((input, next) =>
        tracedOut().continueAsNew(input, next as Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>),
      ),
      getLogAttributes: (input, next) => (inSpan() ? tracedOut().getLogAttributes(input, next) : next(input)),
    },
  };
}

/**
 * Reports how each workflow run ended (completed, failed, continued as new, ...) to the worker's metrics,
 * and traces the calls of traced clients (see {@link tracingInterceptors}).
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const tracing = tracingInterceptors();
  return {
    // OpenTelemetry's context manager, when a traced call of this run made one, is disabled at the end.
    internals: [
      {
        dispose: (input, next) =>
          loaded
            ? void new loaded.workflow.OpenTelemetryInternalsInterceptor().dispose(input, next)
            : next(input),
      },
    ],
    outbound: [tracing.outbound],
    inbound: [
      tracing.inbound,
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
  };
};
