// Structured logs and Prometheus metrics through real components: an express app with the HTTP
// middlewares, and a Temporal worker on the time-skipping test server with the activity interceptor,
// the workflow interceptor module (bundled into the sandbox) and its sink.
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { assignTraceId } from '../api/errors.js';
import { createLogger, wantsPrettyOutput } from '../platform/logger.js';
import { createHttpObservability } from '../platform/http-observability.js';
import {
  activityOutcomeOf,
  createWorkerObservability,
  startMetricsServer,
  temporalRuntimeOptions,
  workerMetricsPort,
  type WorkerObservability,
} from '../workers/observability.js';
import type { ObservabilityTestActivities } from './support/observability-workflows.js';
import type * as testWorkflows from './support/observability-workflows.js';

type LogLine = Record<string, unknown>;

/** A pino destination collecting parsed JSON lines. */
function collector(into: LogLine[]) {
  return { write: (line: string) => void into.push(JSON.parse(line) as LogLine) };
}

async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A series' value (counter) or observation count (histogram, `${name}_count`); 0 when absent. */
async function seriesValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const found = values.find(
    (value) =>
      [undefined, `${name}_count`].includes((value as { metricName?: string }).metricName) &&
      Object.entries(labels).every(([key, expected]) => value.labels[key] === expected),
  );
  return found?.value ?? 0;
}

/** Waits until a series reaches `expected` (sinks and response listeners run just after the client sees the result). */
async function expectSeries(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
  expected: number,
) {
  await eventually(
    async () => ((await seriesValue(registry, name, labels)) === expected ? true : undefined),
    `${name}${JSON.stringify(labels)} = ${expected} (is ${await seriesValue(registry, name, labels)})`,
  ).catch(async (error: unknown) => {
    expect(await seriesValue(registry, name, labels)).toBe(expected);
    throw error;
  });
}

// The Temporal SDK's logs (worker, workflow `log`, activity `Context.log`) go to pino from the start.
const workerLines: LogLine[] = [];
const workerLog = createLogger('worker-test', { level: 'info', destination: collector(workerLines) });
Runtime.install(temporalRuntimeOptions(workerLog));

describe('logger', () => {
  test('JSON lines with name, level label and ISO time; secrets redacted; LOG_LEVEL respected', () => {
    const lines: LogLine[] = [];
    const log = createLogger('redaction', { env: { LOG_LEVEL: 'warn' }, destination: collector(lines) });
    expect(log.level).toBe('warn');
    log.info('dropped below warn');
    log.warn(
      {
        req: { headers: { authorization: 'Bearer eyJsecret', 'content-type': 'application/json' } },
        body: { client_id: 'demo-operator', client_secret: 'demo-operator-secret' },
        password: 'hunter2',
        token: 'tok-123',
        nested: { deeper: { access_token: 'at-456', refreshToken: 'rt-789' } },
      },
      'token request',
    );
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({ name: 'redaction', level: 'warn', msg: 'token request' });
    expect(new Date(String(line.time)).toISOString()).toBe(line.time);
    const text = JSON.stringify(line);
    for (const secret of ['eyJsecret', 'demo-operator-secret', 'hunter2', 'tok-123', 'at-456', 'rt-789']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('demo-operator'); // only secrets are removed
    expect(createLogger('silent', { level: 'silent', destination: collector(lines) }).level).toBe('silent');
    expect(() => createLogger('bad', { env: { LOG_LEVEL: 'loud' } })).toThrow(/LOG_LEVEL/);
    expect(wantsPrettyOutput({ NODE_ENV: 'production' })).toBe(false);
  });
});

describe('HTTP observability', () => {
  const lines: LogLine[] = [];
  const registry = new Registry();
  const template = '/v1/{tenant}/back/rentals/{rentalId}';
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    const observability = createHttpObservability({
      logger: createLogger('api-test', { level: 'info', destination: collector(lines) }),
      registry,
    });
    const app = express();
    app.use(assignTraceId);
    app.use(observability.middlewares);
    app.get('/metrics', observability.metricsHandler);
    app.get('/v1/:tenant/back/rentals/:rentalId', (req, res) => {
      res.locals.routeTemplate = template; // what the route kernel records
      req.log.info({ rentalId: req.params.rentalId }, 'reading rental');
      res.json({ rentalId: Number(req.params.rentalId) });
    });
    app.get('/v1/:tenant/back/explode', () => {
      throw new Error('kaput');
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('every line of a request carries its traceId; the completion line has method, route template, status and duration', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${baseUrl}/v1/acme/back/rentals/42?fields=state`, {
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01`, authorization: 'Bearer not-logged' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-trace-id')).toBe(traceId);

    const completion = await eventually(
      () => lines.find((line) => line.traceId === traceId && line.statusCode !== undefined),
      'the completion line',
    );
    expect(completion).toMatchObject({
      name: 'api-test',
      level: 'info',
      traceId,
      method: 'GET',
      route: template,
      path: '/v1/acme/back/rentals/42',
      statusCode: 200,
    });
    expect(typeof completion.durationMs).toBe('number');
    expect(completion.msg).toMatch(/^GET \/v1\/\{tenant\}\/back\/rentals\/\{rentalId\} 200 \d+ms$/);
    expect(lines.find((line) => line.msg === 'reading rental')).toMatchObject({ traceId, rentalId: '42' });
    const ours = lines.filter((line) => line.traceId === traceId);
    expect(ours).toHaveLength(2);
    expect(JSON.stringify(ours)).not.toContain('not-logged');
  });

  test('the latency histogram is labelled by route template, never the raw URL; unknown routes are "unmatched"', async () => {
    expect((await fetch(`${baseUrl}/v1/other-tenant/back/rentals/7`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/nowhere/at/all`)).status).toBe(404);
    const failed = await fetch(`${baseUrl}/v1/acme/back/explode`);
    expect(failed.status).toBe(500);

    const labels = { method: 'GET', route: template, status_code: '200' };
    await expectSeries(registry, 'http_request_duration_seconds', labels, 2);
    await expectSeries(
      registry,
      'http_request_duration_seconds',
      { method: 'GET', route: 'unmatched', status_code: '404' },
      1,
    );
    await expectSeries(
      registry,
      'http_request_duration_seconds',
      { method: 'GET', route: 'unmatched', status_code: '500' },
      1,
    );
    const errorLine = await eventually(
      () => lines.find((line) => line.statusCode === 500),
      'the 500 completion line',
    );
    expect(errorLine).toMatchObject({ level: 'error', method: 'GET', route: 'unmatched' });
    expect(typeof errorLine.traceId).toBe('string');

    const scrape = await fetch(`${baseUrl}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toBe(registry.contentType);
    const text = await scrape.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/v1/{tenant}/back/rentals/{rentalId}",status_code="200"} 2',
    );
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1',
    );
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m); // default process metrics
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).not.toContain('acme');
    expect(text).not.toContain('other-tenant');
    expect(text).not.toContain('nowhere');

    // The scrape itself is recorded too, and logged at debug only (below this logger's level).
    await expectSeries(
      registry,
      'http_request_duration_seconds',
      { route: 'unmatched', status_code: '200' },
      1,
    );
    expect(lines.some((line) => line.path === '/metrics')).toBe(false);
  });

  test('a second factory on the same registry reuses the metrics instead of failing', () => {
    const again = createHttpObservability({ logger: createLogger('again', { level: 'silent' }), registry });
    expect(again.requestDuration).toBe(registry.getSingleMetric('http_request_duration_seconds'));
  });
});

describe('worker observability', () => {
  const registry = new Registry();
  const taskQueue = `observability-${randomBytes(3).toString('hex')}`;
  const workflowsPath = fileURLToPath(new URL('./support/observability-workflows.ts', import.meta.url));
  let testEnv: TestWorkflowEnvironment;
  let observability: WorkerObservability;
  let worker: Worker;
  let running: Promise<void>;

  const activities: ObservabilityTestActivities = {
    async greet(name) {
      Context.current().log.info('greeting', { person: name });
      return `hello ${name}`;
    },
    async refuse(type) {
      throw ApplicationFailure.create({ type, message: `refused with ${type}`, nonRetryable: true });
    },
    async crash() {
      throw new Error('boom');
    },
  };

  beforeAll(async () => {
    const serverPath = process.env.TEMPORAL_TEST_SERVER_PATH;
    if (!serverPath) throw new Error('TEMPORAL_TEST_SERVER_PATH is not set: run through jest (global setup)');
    testEnv = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: serverPath } },
    });
    observability = createWorkerObservability({ registry, logger: workerLog });
    // With a prebuilt bundle the interceptor module goes into the bundle (Worker.create ignores
    // interceptors.workflowModules when given workflowBundle).
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: observability.interceptors.workflowModules,
      logger: new DefaultLogger('ERROR'),
    });
    worker = await Worker.create({
      connection: testEnv.nativeConnection,
      taskQueue,
      workflowBundle,
      activities,
      interceptors: { activity: observability.interceptors.activity },
      sinks: observability.sinks,
    });
    running = worker.run();
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await testEnv?.teardown();
  });

  const start = (workflow: keyof typeof testWorkflows & string, args: unknown[]) =>
    testEnv.client.workflow.start(workflow, {
      taskQueue,
      workflowId: `${workflow}-${randomBytes(4).toString('hex')}`,
      args,
    });

  test('a completed activity and workflow are counted, and their log lines reach pino with ids', async () => {
    const handle = await start('greetingWorkflow', ['ada']);
    expect(await handle.result()).toBe('hello ada');

    await expectSeries(
      registry,
      'fleetflow_activity_executions_total',
      { activity_type: 'greet', outcome: 'completed' },
      1,
    );
    await expectSeries(
      registry,
      'fleetflow_activity_duration_seconds',
      { activity_type: 'greet', outcome: 'completed' },
      1,
    );
    await expectSeries(
      registry,
      'fleetflow_workflow_outcomes_total',
      { workflow_type: 'greetingWorkflow', outcome: 'completed' },
      1,
    );

    // A query on the closed workflow replays its whole history, completion included: not counted again.
    await handle.query('__stack_trace');
    expect(
      await seriesValue(registry, 'fleetflow_workflow_outcomes_total', {
        workflow_type: 'greetingWorkflow',
        outcome: 'completed',
      }),
    ).toBe(1);

    const runId = handle.firstExecutionRunId;
    const activityLine = await eventually(
      () => workerLines.find((line) => line.msg === 'greeting' && line.workflowId === handle.workflowId),
      'the activity Context.log line',
    );
    expect(activityLine).toMatchObject({
      name: 'worker-test',
      level: 'info',
      workflowId: handle.workflowId,
      runId,
      activityType: 'greet',
      workflowType: 'greetingWorkflow',
      sdkComponent: 'activity',
    });
    expect(activityLine).not.toHaveProperty('taskToken');
    expect(activityLine).not.toHaveProperty('workflowRunId');
    const workflowLine = await eventually(
      () =>
        workerLines.find(
          (line) => line.msg === 'greeting workflow started' && line.workflowId === handle.workflowId,
        ),
      'the workflow log line',
    );
    expect(workerLines.filter((line) => line.msg === 'greeting workflow started')).toHaveLength(1);
    expect(workerLines).toContainEqual(
      expect.objectContaining({ sdkComponent: 'worker', msg: 'Worker state changed', state: 'RUNNING' }),
    );
    expect(workflowLine).toMatchObject({
      level: 'info',
      workflowId: handle.workflowId,
      runId,
      workflowType: 'greetingWorkflow',
      sdkComponent: 'workflow',
      person: 'ada',
    });
  });

  test('a non-retryable ApplicationFailure with a catalogue code is a business refusal; other failures are failures', async () => {
    const refused = await start('refusingWorkflow', ['R102']);
    await expect(refused.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const uncatalogued = await start('refusingWorkflow', ['NOT_A_CODE']);
    await expect(uncatalogued.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const crashed = await start('crashingWorkflow', []);
    await expect(crashed.result()).rejects.toBeInstanceOf(WorkflowFailedError);

    const executions = 'fleetflow_activity_executions_total';
    await expectSeries(registry, executions, { activity_type: 'refuse', outcome: 'business-refusal' }, 1);
    await expectSeries(registry, executions, { activity_type: 'refuse', outcome: 'failed' }, 1);
    await expectSeries(registry, executions, { activity_type: 'crash', outcome: 'failed' }, 2); // both attempts
    await expectSeries(
      registry,
      'fleetflow_activity_duration_seconds',
      { activity_type: 'refuse', outcome: 'business-refusal' },
      1,
    );
    const outcomes = 'fleetflow_workflow_outcomes_total';
    await expectSeries(registry, outcomes, { workflow_type: 'refusingWorkflow', outcome: 'failed' }, 2);
    await expectSeries(registry, outcomes, { workflow_type: 'crashingWorkflow', outcome: 'failed' }, 1);

    // The classification itself, including sub-codes and retryable catalogue codes.
    const failure = (type: string, nonRetryable: boolean) =>
      ApplicationFailure.create({ type, message: type, nonRetryable });
    expect(activityOutcomeOf(failure('U130.2', true))).toBe('business-refusal');
    expect(activityOutcomeOf(failure('V504', false))).toBe('failed');
    expect(activityOutcomeOf(new Error('R102'))).toBe('failed');
  });

  test('continue-as-new and cancellation are counted by workflow type', async () => {
    const continued = await start('continuingWorkflow', [0]);
    expect(await continued.result()).toBe(1);
    const outcomes = 'fleetflow_workflow_outcomes_total';
    await expectSeries(
      registry,
      outcomes,
      { workflow_type: 'continuingWorkflow', outcome: 'continued-as-new' },
      1,
    );
    await expectSeries(registry, outcomes, { workflow_type: 'continuingWorkflow', outcome: 'completed' }, 1);

    const waiting = await start('waitingWorkflow', []);
    await waiting.cancel();
    await expect(waiting.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    await expectSeries(registry, outcomes, { workflow_type: 'waitingWorkflow', outcome: 'cancelled' }, 1);
    await expectSeries(registry, outcomes, { workflow_type: 'waitingWorkflow', outcome: 'failed' }, 0);
  });

  test('the worker metrics server serves the registry on GET /metrics', async () => {
    expect(workerMetricsPort({})).toBe(9464);
    expect(workerMetricsPort({ WORKER_METRICS_PORT: '9100' })).toBe(9100);
    expect(() => workerMetricsPort({ WORKER_METRICS_PORT: 'nine' })).toThrow(/WORKER_METRICS_PORT/);

    const metrics = await startMetricsServer(registry, 0, '127.0.0.1');
    try {
      const response = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(registry.contentType);
      const text = await response.text();
      expect(text).toContain(
        'fleetflow_activity_executions_total{activity_type="greet",outcome="completed"} 1',
      );
      expect(text).toContain(
        'fleetflow_workflow_outcomes_total{workflow_type="refusingWorkflow",outcome="failed"} 2',
      );
      expect(text).toContain('# TYPE fleetflow_activity_duration_seconds histogram');
      expect(text).toMatch(/^process_resident_memory_bytes \d/m);
      expect((await fetch(`http://127.0.0.1:${metrics.port}/other`)).status).toBe(404);
    } finally {
      await metrics.close();
    }
  });
});
