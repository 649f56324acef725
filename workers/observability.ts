// Worker-side observability: Prometheus metrics for activity and workflow outcomes, the Temporal SDK's
// logs (workflow `log`, activity `Context.log`, worker and Core messages) through pino, and a small
// `/metrics` server for the worker process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityInterceptorsFactory,
  InjectedSinks,
  LogLevel,
  LogMetadata,
  Logger as TemporalLogger,
  RuntimeOptions,
} from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import { baseCode } from '../domain/errors.js';
import {
  ensureDefaultMetrics,
  metricsText,
  registryCounter,
  registryHistogram,
} from '../platform/http-observability.js';
import { activeTelemetry, type Telemetry } from '../platform/telemetry.js';
import type { ObservabilitySinks, WorkflowOutcomeReport } from '../workflows/observability.messages.js';

export type { ObservabilitySinks, WorkflowOutcome } from '../workflows/observability.messages.js';

/**
 * The workflow interceptor module (runs in the workflow sandbox). With a prebuilt bundle pass it to
 * `bundleWorkflowCode({ workflowInterceptorModules })`: Worker.create ignores `interceptors.workflowModules`
 * when given `workflowBundle`.
 */
export const workflowInterceptorModule = fileURLToPath(
  new URL('../workflows/observability-interceptors.ts', import.meta.url),
);

/** Activity latency buckets in seconds: database writes take milliseconds, vehicle commands seconds. */
export const activityDurationBuckets: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60,
];

/** `business-refusal`: a non-retryable ApplicationFailure typed with a catalogue code (a domain refusal). */
export type ActivityOutcome = 'completed' | 'failed' | 'business-refusal';

/** Classifies what an activity attempt threw. */
export function activityOutcomeOf(error: unknown): Exclude<ActivityOutcome, 'completed'> {
  if (error instanceof ApplicationFailure && error.nonRetryable && error.type && baseCode(error.type)) {
    return 'business-refusal';
  }
  return 'failed';
}

const pinoLevels = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
} as const satisfies Record<LogLevel, string>;

/**
 * A Temporal SDK logger writing to pino (see {@link temporalRuntimeOptions}). Workflow lines carry
 * workflowId, runId and workflowType; activity lines also activityType and activityId (the SDK's
 * `workflowRunId` is renamed `runId`; the long base64 task token is dropped).
 */
export function temporalLogger(logger: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const pinoLevel = pinoLevels[level] ?? 'info';
    if (!logger.isLevelEnabled(pinoLevel)) return;
    if (!meta) return logger[pinoLevel](message);
    const { workflowRunId, ...fields } = meta as Record<string, unknown>;
    delete fields.taskToken;
    if (workflowRunId !== undefined && fields.runId === undefined) fields.runId = workflowRunId;
    logger[pinoLevel](fields, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/**
 * Runtime options sending every SDK log line to pino: workflow `log`, activity `Context.log`, the
 * worker's own messages, and the Rust Core's (forwarded instead of printed to stderr; WARN and above
 * by default). Install before anything creates the Runtime (NativeConnection.connect, Worker.create,
 * TestWorkflowEnvironment): `Runtime.install(temporalRuntimeOptions(log))`.
 */
export function temporalRuntimeOptions(
  logger: Logger,
  options: { coreLevel?: LogLevel } = {},
): RuntimeOptions {
  return {
    logger: temporalLogger(logger),
    telemetryOptions: {
      logging: {
        forward: {},
        filter: { core: options.coreLevel ?? 'WARN', other: 'ERROR' },
      },
    },
  };
}

/** The workflow span sink's function: the workflow's info and the spans it ended. */
type OpenTelemetrySinksFn = InjectedSinks<OpenTelemetrySinks>['exporter']['export']['fn'];

export interface WorkerObservabilityOptions {
  registry: Registry;
  logger: Logger;
}

export interface WorkerObservability {
  /** For `Worker.create({ interceptors })`. */
  interceptors: { activity: ActivityInterceptorsFactory[]; workflowModules: string[] };
  /** For `Worker.create({ sinks })` (spread beside other sinks if there are any). */
  sinks: InjectedSinks<ObservabilitySinks & OpenTelemetrySinks>;
  /** For `Runtime.install(...)`, before connecting: same as {@link temporalRuntimeOptions}(logger). */
  runtimeOptions: RuntimeOptions;
}

/**
 * Metrics on `registry`:
 * - `fleetflow_activity_executions_total{activity_type, outcome}` and
 *   `fleetflow_activity_duration_seconds{activity_type, outcome}`, one observation per attempt;
 * - `fleetflow_workflow_outcomes_total{workflow_type, outcome}`, one per run (continue-as-new ends a run).
 * Calling it again with the same registry reuses the metrics.
 */
export function createWorkerObservability(options: WorkerObservabilityOptions): WorkerObservability {
  const { registry, logger } = options;
  const activityExecutions = registryCounter(registry, {
    name: 'fleetflow_activity_executions_total',
    help: 'Activity attempts by activity type and outcome (completed, failed, business-refusal)',
    labelNames: ['activity_type', 'outcome'] as const,
  });
  const activityDuration = registryHistogram(registry, {
    name: 'fleetflow_activity_duration_seconds',
    help: 'Activity attempt duration by activity type and outcome',
    labelNames: ['activity_type', 'outcome'] as const,
    buckets: activityDurationBuckets,
  });
  const workflowOutcomes = registryCounter(registry, {
    name: 'fleetflow_workflow_outcomes_total',
    help: 'Workflow runs by workflow type and how they ended (completed, failed, continued-as-new, cancelled, task-failed)',
    labelNames: ['workflow_type', 'outcome'] as const,
  });

  const activityMetrics: ActivityInterceptorsFactory = (context) => ({
    inbound: {
      async execute(input, next) {
        const started = process.hrtime.bigint();
        let outcome: ActivityOutcome = 'completed';
        try {
          return await next(input);
        } catch (error) {
          outcome = activityOutcomeOf(error);
          throw error;
        } finally {
          const labels = { activity_type: context.info.activityType, outcome };
          activityExecutions.inc(labels);
          activityDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
        }
      },
    },
  });

  // Traces (docs/observability.md): each activity attempt is a span, a child of the workflow's
  // StartActivity span carried in the activity's headers; with tracing off the tracer is a no-op.
  const activityTracing: ActivityInterceptorsFactory = (context) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(context),
    outbound: new OpenTelemetryActivityOutboundInterceptor(context),
  });
  // Workflow spans are made in the sandbox and handed out through this sink to the process's span
  // processors (of the tracing running when they arrive; dropped without one).
  let workflowExporter: { telemetry: Telemetry; sink: ReturnType<typeof makeWorkflowExporter> } | undefined;
  const exportWorkflowSpans: OpenTelemetrySinksFn = (info, spans) => {
    const telemetry = activeTelemetry();
    if (!telemetry) return;
    if (workflowExporter?.telemetry !== telemetry)
      workflowExporter = {
        telemetry,
        sink: makeWorkflowExporter(telemetry.spanProcessor, telemetry.resource),
      };
    workflowExporter.sink.export.fn(info, spans);
  };

  const sinks: InjectedSinks<ObservabilitySinks & OpenTelemetrySinks> = {
    exporter: { export: { fn: exportWorkflowSpans, callDuringReplay: false } },
    observability: {
      workflowOutcome: {
        fn(info, report: WorkflowOutcomeReport) {
          workflowOutcomes.inc({ workflow_type: info.workflowType, outcome: report.outcome });
          const fields = {
            workflowId: info.workflowId,
            runId: info.runId,
            workflowType: info.workflowType,
            outcome: report.outcome,
            ...(report.failureType ? { failureType: report.failureType } : {}),
            ...(report.message ? { failure: report.message } : {}),
          };
          if (report.outcome === 'task-failed') logger.error(fields, 'workflow task failed');
          else logger.debug(fields, `workflow ${report.outcome}`);
        },
        callDuringReplay: false,
      },
    },
  };

  return {
    interceptors: {
      activity: [activityMetrics, activityTracing],
      workflowModules: [workflowInterceptorModule],
    },
    sinks,
    runtimeOptions: temporalRuntimeOptions(logger),
  };
}

/** A metrics port from `name` in `env`, `fallback` when unset; 0 picks a free one. */
function metricsPortOf(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be a port number, got "${raw}"`);
  }
  return port;
}

/** The worker's metrics port: `WORKER_METRICS_PORT`, default 9464. */
export function workerMetricsPort(env: NodeJS.ProcessEnv = process.env): number {
  return metricsPortOf(env, 'WORKER_METRICS_PORT', 9464);
}

/** The API process's metrics port, off its public one: `API_METRICS_PORT`, default 9465. */
export function apiMetricsPort(env: NodeJS.ProcessEnv = process.env): number {
  return metricsPortOf(env, 'API_METRICS_PORT', 9465);
}

export interface MetricsServer {
  /** The bound port (useful with port 0). */
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` from `registry` (with the default process metrics) on plain node:http, for
 * processes without an express app such as the worker. Port 0 picks a free port.
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  host?: string,
): Promise<MetricsServer> {
  ensureDefaultMetrics(registry);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    metricsText(registry).then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`metrics collection failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
