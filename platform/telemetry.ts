// OpenTelemetry tracing of a process (docs/observability.md): one tracer provider registered globally
// (AsyncLocalStorage context, W3C trace context propagation), spans exported over OTLP/HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set, or to the span processors a test gives (an in-memory exporter).
// Without `startTelemetry` nothing is registered: every tracer is OpenTelemetry's no-op one, so the
// interceptors and the command client cost next to nothing, and the HTTP middleware is not mounted.
import type { RequestHandler } from 'express';
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** The instrumentation scope of fleetflow's own spans (HTTP server spans, vehicle commands). */
export const fleetflowTracerName = 'fleetflow';

export interface TelemetryOptions {
  /** `service.name` of the spans: `fleetflow-api`, `fleetflow-worker`. */
  serviceName: string;
  /** OTLP/HTTP base address (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `{endpoint}/v1/traces`. */
  otlpEndpoint?: string;
  /** Further processors (tests: a SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessors?: readonly SpanProcessor[];
}

/** The running tracing of this process. */
export interface Telemetry {
  provider: NodeTracerProvider;
  resource: Resource;
  /** Every span processor of the provider (the worker hands workflow spans to it). */
  spanProcessor: SpanProcessor;
  /** Exports what is buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

let running: Telemetry | undefined;

/** The tracing `startTelemetry` registered in this process, if any. */
export function activeTelemetry(): Telemetry | undefined {
  return running;
}

/** The OTLP/HTTP traces address of a base endpoint (`http://collector:4318` → `…/v1/traces`). */
export function otlpTracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/**
 * Registers a tracer provider for the process, when there is somewhere to send spans (an OTLP endpoint or
 * given processors); undefined otherwise. Call before the Temporal clients, the worker and the app are made.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry | undefined {
  const processors = [...(options.spanProcessors ?? [])];
  if (options.otlpEndpoint)
    processors.push(
      new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(options.otlpEndpoint) })),
    );
  if (processors.length === 0) return undefined;
  if (running) throw new Error('telemetry is already started in this process');
  const resource = new Resource({ 'service.name': options.serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register();
  const telemetry: Telemetry = {
    provider,
    resource,
    spanProcessor: provider.getActiveSpanProcessor(),
    async shutdown() {
      if (running !== telemetry) return;
      running = undefined;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  running = telemetry;
  return telemetry;
}

/** A span's name and attributes once the route kernel has named the route (`GET /v1/{tenant}/back/rentals`). */
function finishServerSpan(
  span: Span,
  method: string,
  route: string | undefined,
  status: number,
  aborted: boolean,
) {
  span.updateName(route ? `${method} ${route}` : method);
  const attributes: Attributes = { 'http.response.status_code': status };
  if (route) attributes['http.route'] = route;
  span.setAttributes(attributes);
  if (aborted) span.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted by the client' });
  else if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * An express middleware opening the request's server span, a child of the caller's W3C `traceparent`
 * when there is one, active for everything the request does (Temporal client calls carry it on). Named
 * by the route template the kernel recorded (`res.locals.routeTemplate`), never the raw URL. Mount first.
 */
export function httpTracing(): RequestHandler {
  const tracer = trace.getTracer(fleetflowTracerName);
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
    const span = tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': path ?? '' },
      },
      parent,
    );
    res.once('close', () => {
      const template: unknown = res.locals?.routeTemplate;
      finishServerSpan(
        span,
        req.method,
        typeof template === 'string' && template !== '' ? template : undefined,
        res.statusCode,
        !res.writableFinished,
      );
    });
    const active = trace.setSpan(parent, span);
    // Body parsers go on from the request's stream events, which run in the socket's context: bound
    // emitters run their listeners in the request's, so the span stays active up to the handler.
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, next);
  };
}
