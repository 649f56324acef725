// Request logging and Prometheus metrics for the HTTP API, as express middlewares plus a `/metrics`
// handler. Route labels are the route kernel's templates (`res.locals.routeTemplate`), never raw URLs,
// so tenants and ids do not multiply the time series.
import type { Request, RequestHandler, Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { Level, Logger } from 'pino';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Route label of requests no route template was recorded for (unknown paths, health, docs, …). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Latency buckets in seconds (prom-client's defaults: 5 ms … 10 s). */
export const httpDurationBuckets: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Paths logged at debug rather than info by default: probes and scrapes arrive every few seconds. */
export const defaultQuietPaths: readonly string[] = ['/metrics', '/health/live', '/health/ready'];

declare module 'http' {
  interface IncomingMessage {
    /** The request's logger: every line carries its `traceId` (set by `requestLogger`). */
    log: Logger;
  }
}

export interface HttpObservabilityOptions {
  logger: Logger;
  registry: Registry;
  /** Exact paths whose request lines are logged at debug (default {@link defaultQuietPaths}). */
  quietPaths?: readonly string[];
  /** Register prom-client's default process metrics on `registry` (default true; idempotent). */
  defaultMetrics?: boolean;
}

export interface HttpObservability {
  /** `req.log` carries `traceId`; one line per response with method, route, status, duration. */
  requestLogger: RequestHandler;
  /** Observes `http_request_duration_seconds{method, route, status_code}` when the response ends. */
  requestMetrics: RequestHandler;
  /** Both, in order; mount right after `assignTraceId`. */
  middlewares: RequestHandler[];
  /** Serves the registry in the Prometheus text format (mount on `GET /metrics`). */
  metricsHandler: RequestHandler;
  requestDuration: Histogram<'method' | 'route' | 'status_code'>;
}

/** The metric of that name already on the registry (several factories may share one), or a new one. */
export function registeredMetric<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** A counter on `registry`, reused when one of that name is already registered. */
export function registryCounter<L extends string>(
  registry: Registry,
  config: { name: string; help: string; labelNames: readonly L[] },
): Counter<L> {
  return registeredMetric(registry, config.name, () => new Counter<L>({ ...config, registers: [registry] }));
}

/** A histogram on `registry`, reused when one of that name is already registered. */
export function registryHistogram<L extends string>(
  registry: Registry,
  config: { name: string; help: string; labelNames: readonly L[]; buckets?: readonly number[] },
): Histogram<L> {
  return registeredMetric(
    registry,
    config.name,
    () =>
      new Histogram<L>({
        ...config,
        buckets: config.buckets ? [...config.buckets] : undefined,
        registers: [registry],
      }),
  );
}

/**
 * prom-client's default process and Node.js metrics, once per process: they watch the process (an event
 * loop delay monitor, a GC observer) and prom-client gives no way to stop them, so a registry given to
 * them would stay reachable, with every metric on it and whatever their collectors read (the ORM's pool),
 * for the life of the process. A process that starts and stops its components (the tests, the benchmarks)
 * would keep each one. They live on this registry of their own instead, and `metricsText` appends them.
 */
let processMetrics: Registry | undefined;

/** Registries whose exposition includes the process metrics (`ensureDefaultMetrics`). */
const withProcessMetrics = new WeakSet<Registry>();

/** Adds the default process and Node.js metrics to `registry`'s exposition (`metricsText`). */
export function ensureDefaultMetrics(registry: Registry): void {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  withProcessMetrics.add(registry);
}

/** `registry`'s metrics in the Prometheus text format, with the process metrics when it has them. */
export async function metricsText(registry: Registry): Promise<string> {
  const own = await registry.metrics();
  if (!processMetrics || !withProcessMetrics.has(registry)) return own;
  const process = await processMetrics.metrics();
  return own.trim() === '' ? process : `${own.trimEnd()}\n\n${process}`;
}

/** The route template the route kernel recorded, or {@link UNMATCHED_ROUTE}. */
export function routeTemplateOf(res: Response): string {
  const template: unknown = res.locals?.routeTemplate;
  return typeof template === 'string' && template !== '' ? template : UNMATCHED_ROUTE;
}

/** The trace id `assignTraceId` put on the request (read structurally: this module does not depend on api/). */
function traceIdOf(req: Request): string | undefined {
  const traceId = (req as unknown as { context?: { traceId?: unknown } }).context?.traceId;
  return typeof traceId === 'string' ? traceId : undefined;
}

function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** A `/metrics` handler for `registry` (Prometheus text exposition format). */
export function metricsHandler(registry: Registry): RequestHandler {
  return async (_req, res) => {
    const body = await metricsText(registry);
    res.setHeader('Content-Type', registry.contentType);
    res.send(body);
  };
}

/**
 * Logging and metrics for an express app. Mount `middlewares` right after `assignTraceId` (which sets
 * `req.context.traceId`, bound to every line of the request) and `metricsHandler` on `GET /metrics`.
 */
export function createHttpObservability(options: HttpObservabilityOptions): HttpObservability {
  const { logger, registry } = options;
  const quietPaths = new Set(options.quietPaths ?? defaultQuietPaths);
  if (options.defaultMetrics ?? true) ensureDefaultMetrics(registry);

  const requestDuration = registryHistogram(registry, {
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: httpDurationBuckets,
  });

  const completion = (req: Request, res: Response, durationMs: unknown) => ({
    method: req.method,
    route: routeTemplateOf(res),
    path: pathOf(req),
    statusCode: res.statusCode,
    durationMs,
  });

  const levelOf = (req: Request, res: Response, failed: boolean): Level => {
    // 502/504/503 report a vehicle or a dependency that failed to act: worth a warning, not a fault of ours.
    if (res.statusCode === 502 || res.statusCode === 503 || res.statusCode === 504) return 'warn';
    if (failed) return 'error';
    return quietPaths.has(pathOf(req)) ? 'debug' : 'info';
  };

  // One line per response, and `req.log` for handlers. pino-http did this by building a child logger
  // bound to the serialized (and redacted) request on every request, used or not: a tenth of a vehicle
  // list's CPU time. Here `req.log` is made on first use, and the completion line only when its level logs.
  const requestLogger: RequestHandler = (req, res, next) => {
    const started = performance.now();
    const traceId = traceIdOf(req) ?? randomBytes(16).toString('hex');
    let requestLog: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      enumerable: false,
      get: () => (requestLog ??= logger.child({ traceId })),
      set: (log: Logger) => void (requestLog = log),
    });
    res.once('close', () => {
      const err = (res as { err?: unknown }).err;
      const failed = err !== undefined || res.statusCode >= 500;
      const level = levelOf(req, res, failed);
      if (!logger.isLevelEnabled(level)) return;
      const durationMs = Math.round(performance.now() - started);
      const route = routeTemplateOf(res);
      const message = failed
        ? `${req.method} ${route} ${res.statusCode} failed`
        : res.writableEnded
          ? `${req.method} ${route} ${res.statusCode} ${durationMs}ms`
          : `${req.method} ${route} aborted by the client after ${durationMs}ms`;
      logger[level]({ traceId, ...completion(req, res, durationMs), ...(err ? { err } : {}) }, message);
    });
    next();
  };

  const requestMetrics: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      requestDuration.observe(
        {
          method: req.method,
          route: routeTemplateOf(res),
          // A client that went away before the response ended has no meaningful status code.
          status_code: res.writableFinished ? String(res.statusCode) : 'aborted',
        },
        seconds,
      );
    });
    next();
  };

  return {
    requestLogger,
    requestMetrics,
    middlewares: [requestLogger, requestMetrics],
    metricsHandler: metricsHandler(registry),
    requestDuration,
  };
}
