// OpenTelemetry traces through the real stack (docs/observability.md): an operator's vehicle command is one
// trace from the HTTP request through the Temporal client, the workflow and its activity to the MQTT
// command and the vehicle's answer, collected by an in-memory exporter. The API and the worker share this
// process here, so one tracer provider sees both sides.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { listen } from '../api/http-server.js';
import { createApp } from '../composition/app.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { demoOperatorClient } from '../db/seed/access.js';
import { commandTopic, type VehicleCommandMessage } from '../devices/protocol.js';
import { createLogger } from '../platform/logger.js';
import { temporalClientInterceptors } from '../platform/temporal-client.js';
import { startTelemetry, type Telemetry } from '../platform/telemetry.js';
import { testJwtSecret } from './support/http.js';
import { startTestBackend, testLogLevel, type TestBackend } from './support/stack.js';

const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let backend: TestBackend;
let server: Server;
let baseUrl: string;
let token: string;

beforeAll(async () => {
  // Before the backend: its worker's interceptors and the API's Temporal client see the provider.
  telemetry = startTelemetry({
    serviceName: 'fleetflow-test',
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })!;
  backend = await startTestBackend();
  // The API's client with the tracing interceptor, as composition/api-server.ts makes it.
  const temporal = new Client({
    connection: backend.client.connection,
    namespace: 'default',
    interceptors: temporalClientInterceptors(),
  });
  const app = createApp({
    orm: backend.orm,
    temporal,
    taskQueue: backend.taskQueue,
    paymentGateways: backend.paymentGateways,
    jwtSecret: testJwtSecret,
    tokenTtlSeconds: 600,
    readinessChecks: {},
    validateResponses: true,
    logger: createLogger('api', { level: testLogLevel }),
  });
  server = await listen(app, 0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issued = await fetch(`${baseUrl}/v1/${backend.seed.tenant}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: demoOperatorClient.clientId,
      client_secret: demoOperatorClient.clientSecret,
    }),
  });
  token = ((await issued.json()) as { access_token: string }).access_token;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await backend?.stop();
  await telemetry?.shutdown();
});

/** Waits until the exporter holds spans of this trace matching every name pattern. */
async function traceSpans(traceId: string, names: readonly RegExp[]): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    if (names.every((name) => spans.some((span) => name.test(span.name)))) return spans;
    if (Date.now() > deadline)
      throw new Error(`trace ${traceId} has only ${spans.map((span) => span.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a SYNC vehicle command is one trace: HTTP → Temporal client → workflow → activity → MQTT and back', async () => {
  const vehicle = (
    await tenantEm(backend.orm, backend.seed.tenant).find(Vehicle, {}, { orderBy: { id: 'asc' } })
  )[3]!;
  // What the vehicle receives: the command message carries the trace context.
  const received: VehicleCommandMessage[] = [];
  const topic = commandTopic(backend.seed.tenant, String(vehicle.id));
  const onMessage = (at: string, payload: Buffer) => {
    if (at === topic) received.push(JSON.parse(payload.toString('utf8')) as VehicleCommandMessage);
  };
  backend.mqtt.on('message', onMessage);
  await backend.mqtt.subscribeAsync(topic);

  // The caller's own trace: the request's span is its child and the trace id is the request's.
  const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpanId = '00f067aa0ba902b7';
  const reply = await fetch(
    `${baseUrl}/v1/${backend.seed.tenant}/back/vehicles/execute-command?process=SYNC&return=DATA&vehicleId=${vehicle.id}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: `00-${callerTraceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({ command: 'LOCATE' }),
    },
  );
  expect(reply.status).toBe(200);
  expect(reply.headers.get('x-trace-id')).toBe(callerTraceId);

  const spans = await traceSpans(callerTraceId, [
    /^POST \/v1\/\{tenant\}\/back\/vehicles\/execute-command$/,
    /^StartWorkflow:vehicleCommandWorkflow$/,
    /^RunWorkflow:vehicleCommandWorkflow$/,
    /^StartActivity:/,
    /^RunActivity:/,
    /^vehicle command LOCATE$/,
  ]);
  backend.mqtt.off('message', onMessage);
  await backend.mqtt.unsubscribeAsync(topic);
  const named = (pattern: RegExp) => spans.find((span) => pattern.test(span.name))!;
  const http = named(/^POST /);
  const start = named(/^StartWorkflow:/);
  const run = named(/^RunWorkflow:/);
  const command = named(/^vehicle command /);
  const runActivity = spans.find(
    (span) => span.name.startsWith('RunActivity:') && span.spanContext().spanId === command.parentSpanId,
  );
  const startActivity = spans.find(
    (span) =>
      span.name.startsWith('StartActivity:') && span.spanContext().spanId === runActivity?.parentSpanId,
  );

  // The chain of parents, from the vehicle's answer up to the caller.
  expect(http.parentSpanId).toBe(callerSpanId);
  expect(http.kind).toBe(SpanKind.SERVER);
  expect(http.attributes).toMatchObject({
    'http.route': '/v1/{tenant}/back/vehicles/execute-command',
    'http.response.status_code': 200,
  });
  expect(start.parentSpanId).toBe(http.spanContext().spanId);
  expect(run.parentSpanId).toBe(start.spanContext().spanId);
  expect(runActivity).toBeDefined();
  expect(startActivity).toBeDefined();
  expect(startActivity!.parentSpanId).toBe(run.spanContext().spanId);
  expect(command.kind).toBe(SpanKind.CLIENT);
  expect(command.attributes).toMatchObject({
    'fleetflow.command': 'LOCATE',
    'fleetflow.vehicle.id': String(vehicle.id),
    'fleetflow.command.status': 'OK',
  });
  // The answer came back inside the activity's span.
  const ends = (span: ReadableSpan) => span.endTime[0] * 1e9 + span.endTime[1];
  expect(ends(command)).toBeLessThanOrEqual(ends(runActivity!));
  expect(ends(runActivity!)).toBeLessThanOrEqual(ends(http));

  // The MQTT command carried the command span's context to the vehicle.
  const sent = received.find((message) => message.command === 'LOCATE');
  expect(sent?.traceparent).toBe(`00-${callerTraceId}-${command.spanContext().spanId}-01`);
});

test('a request without a caller trace starts its own; its trace id is the X-Trace-Id of the answer', async () => {
  const reply = await fetch(`${baseUrl}/v1/${backend.seed.tenant}/back/rentals?branchId=999999`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(reply.status).toBe(404);
  const body = (await reply.json()) as { traceId: string };
  const traceId = reply.headers.get('x-trace-id')!;
  expect(body.traceId).toBe(traceId);
  const [span] = await traceSpans(traceId, [/^GET \/v1\/\{tenant\}\/back\/rentals$/]);
  expect(span!.parentSpanId).toBeUndefined();
  expect(span!.attributes['http.response.status_code']).toBe(404);
});
