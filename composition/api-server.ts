// API process (`npm run api`): serves the operator and app interfaces on API_PORT. The tests build their
// APIs with startApi too, from an environment of their own.
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { MqttClient } from 'mqtt';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { paymentGatewaysFor } from './payment-gateways.js';
import { connectTemporalClient } from '../platform/temporal-client.js';
import { type MikroORM } from '../db/orm.js';
import { connectMqtt } from '../devices/command-client.js';
import { createApp } from './app.js';
import { listen } from '../api/http-server.js';
import { connectOrm } from './orm.js';
import { connectObjectStore } from '../platform/object-store.js';
import { activeTelemetry, startTelemetry } from '../platform/telemetry.js';
import { registerResourceMetrics } from '../platform/resource-metrics.js';
import { apiMetricsPort, startMetricsServer } from '../workers/observability.js';
import { Registry } from 'prom-client';

export interface RunningApi {
  /** The express application (its routes are the declarations: tests/api.test.ts walks them). */
  app: Express;
  server: Server;
  url: string;
  /** `GET /metrics` of this process, on its own port (API_METRICS_PORT), not the public one. */
  metricsUrl: string;
  close(): Promise<void>;
}

/** Readiness probes of the three things every request may need. */
export function readinessChecks(orm: MikroORM, mqtt: MqttClient, temporal: Connection) {
  return {
    database: async () => void (await orm.em.getConnection().execute('select 1')),
    broker: async () => {
      if (!mqtt.connected) throw new Error('not connected to the MQTT broker');
    },
    temporal: async () => void (await temporal.workflowService.getSystemInfo({})),
  };
}

/**
 * Connects to the infrastructure and listens, all from an environment (the variables of
 * platform/config.ts): `npm run api` passes its own, the tests theirs. `clock` replaces the connection to
 * TEMPORAL_ADDRESS with a time-skipping test environment's, the one double a test may give it.
 */
export async function startApi(
  env: NodeJS.ProcessEnv,
  clock?: { client: Client; connection: Connection },
): Promise<RunningApi> {
  const config = loadConfig(env);
  const { databaseUrl, mqttUrl, temporalAddress, jwtSecret } = config;
  if (!databaseUrl || !mqttUrl || (!temporalAddress && !clock)) {
    throw new Error(
      'the API needs DATABASE_URL, MQTT_URL and TEMPORAL_ADDRESS (npm start sets them for the embedded stack)',
    );
  }
  if (!jwtSecret || jwtSecret.length < 32) {
    throw new Error(
      'the API needs JWT_SECRET, a random secret of at least 32 characters (npm start generates one in the data directory)',
    );
  }
  // Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; before the Temporal client and the app.
  const telemetry = activeTelemetry()
    ? undefined
    : startTelemetry({ serviceName: 'fleetflow-api', otlpEndpoint: config.otlpEndpoint });
  const orm = await connectOrm(databaseUrl);
  const mqtt = await connectMqtt(mqttUrl, `fleetflow-api-${process.pid}`);
  const { client, connection } =
    clock ?? (await connectTemporalClient(temporalAddress!, config.temporalNamespace));
  // The files' bucket is created when missing; without S3_ENDPOINT uploads answer L303 and say why.
  const objectStore = await connectObjectStore(config);
  // `/metrics`: HTTP latency (api/app.ts), the pool and the broker connection.
  const metrics = new Registry();
  registerResourceMetrics(metrics, { pool: () => orm.em.getConnection().getNativeClient(), mqtt });
  const app = createApp({
    metrics,
    objectStore,
    paymentGateways: paymentGatewaysFor(orm, config),
    logger: createLogger('api', { env }),
    validateResponses: config.validateResponses,
    orm,
    temporal: client,
    taskQueue: config.taskQueue,
    jwtSecret,
    tokenTtlSeconds: config.tokenTtlSeconds,
    readinessChecks: readinessChecks(orm, mqtt, connection),
  });
  const server = await listen(app, config.apiPort, config.apiHost);
  const port = (server.address() as AddressInfo).port;
  const metricsServer = await startMetricsServer(metrics, apiMetricsPort(env), config.apiHost);
  return {
    app,
    server,
    url: config.apiPort === 0 ? `http://127.0.0.1:${port}` : config.publicBaseUrl,
    metricsUrl: `http://127.0.0.1:${metricsServer.port}/metrics`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await metricsServer.close();
      await mqtt.endAsync();
      if (!clock) await connection.close();
      objectStore?.close();
      await orm.close();
      await telemetry?.shutdown();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const api = await startApi(process.env);
  // The bound port (two APIs of one stack listen on two) and the address clients are given.
  const { port } = api.server.address() as AddressInfo;
  console.log(`API listening on port ${port}; public address ${api.url}`);
  const stop = () => void api.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
