// Test harness: real PostgreSQL, broker and Temporal (from global-setup) plus an in-process worker,
// telemetry and docking ingestors and vehicle simulator for one freshly seeded tenant.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { searchAttributeDefinitions } from '../../workflows/search-attributes.js';
import type { MqttClient } from 'mqtt';
import { tenantEm, type MikroORM } from '../../db/orm.js';
import { type SeededTenant } from '../../db/seed.js';
import { simulatorFleet } from '../../db/fleet.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { connectMqtt, VehicleCommandClient } from '../../devices/command-client.js';
import { startEmbeddedBroker } from '../../platform/embedded-broker.js';
import { FleetSimulator } from '../../devices/simulator.js';
import { TelemetryIngestor } from '../../workers/telemetry-ingestor.js';
import { DockingIngestor } from '../../workers/docking-ingestor.js';
import { createWorkerObservability } from '../../workers/observability.js';
import { createLogger } from '../../platform/logger.js';
import { Registry } from 'prom-client';
import { connectOrm } from '../../composition/orm.js';
import { seedTenant } from '../../composition/seed.js';
import { createFleetflowWorker } from '../../composition/worker.js';
import { paymentGatewaysFor } from '../../composition/payment-gateways.js';
import { loadConfig } from '../../platform/config.js';
import type { PaymentGateways } from '../../platform/payment-gateway/port.js';

export interface TestBackend {
  orm: MikroORM;
  seed: SeededTenant;
  client: Client;
  taskQueue: string;
  /** The payment gateway adapters the worker charges through (the API's webhooks verify with the same). */
  paymentGateways: PaymentGateways;
  simulator: FleetSimulator;
  mqtt: MqttClient;
  /**
   * The backend's own MQTT broker (in-process aedes): suites running at once in other jest workers
   * each have theirs, so no ingestor records another suite's telemetry.
   */
  mqttUrl: string;
  /** Applies the physical stations' slot reports (`idle()` waits for those received so far). */
  dockingIngestor: DockingIngestor;
  /** Present with the time-skipping environment. */
  testEnv?: TestWorkflowEnvironment;
  stop(): Promise<void>;
}

// Expected business failures (refusals, timeouts) are logged by the SDK as warnings; keep test output readable.
/** Tests are quiet unless LOG_LEVEL asks for logs (pino levels: `info`, `warn`, `debug` …). */
export const testLogLevel = process.env.LOG_LEVEL ?? 'silent';
const sdkLogLevel =
  (
    { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' } as Record<
      string,
      'TRACE' | 'DEBUG' | 'INFO' | 'WARN'
    >
  )[testLogLevel] ?? 'ERROR';
Runtime.install({
  logger: new DefaultLogger(sdkLogLevel),
  // Core's own logs go straight to stderr, at the same level (forwarding them would keep jest from exiting).
  telemetryOptions: { logging: { filter: { core: sdkLogLevel, other: sdkLogLevel } } },
});

export const uniqueTenant = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

function env(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the tests through jest (tests/support/global-setup.ts)`);
  return value;
}

/** The time-skipping server starts without custom search attributes; register fleetflow's like the dev server does. */
async function registerSearchAttributes(connection: Connection): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(
      Object.keys(searchAttributeDefinitions).map((name) => [
        name,
        proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    ),
  });
}

/** Waits until the simulator's vehicles reported online through the broker and the ingestor. */
async function waitForFleetOnline(orm: MikroORM, tenant: string, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const online = await tenantEm(orm, tenant).count(Vehicle, { offline: false });
    if (online >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fleet of ${tenant} did not come online`);
}

/** Seeds a tenant and runs worker, ingestor and simulator against the real infrastructure. */
export async function startTestBackend(
  options: {
    timeSkipping?: boolean;
    tenant?: string;
    commandTimeoutMs?: number;
    /** How long the sandbox gateway's `timeout` token holds a first call. */
    sandboxGatewayTimeoutMs?: number;
  } = {},
): Promise<TestBackend> {
  const orm = await connectOrm(env('DATABASE_URL'), { pool: { min: 0, max: 5 } });
  const seed = await seedTenant(orm.em, options.tenant ?? uniqueTenant('t'), 'Test Mobility');
  const broker = await startEmbeddedBroker({ port: 0 });
  const mqtt = await connectMqtt(broker.url, `test-backend-${randomBytes(4).toString('hex')}`);
  const vehicleCommands = new VehicleCommandClient(mqtt);
  const ingestor = new TelemetryIngestor(orm, mqtt, {
    flushIntervalMs: 50,
    vehicleCommands,
    log: (m) => {
      if (process.env.LOG_LEVEL) console.error(m);
    },
  });
  await ingestor.start();
  const dockingIngestor = new DockingIngestor(orm, mqtt, { log: () => undefined });
  await dockingIngestor.start();
  const fleet = await simulatorFleet(tenantEm(orm, seed.tenant));
  const simulator = new FleetSimulator({
    mqttUrl: broker.url,
    tenant: seed.tenant,
    vehicles: fleet,
    telemetryIntervalMs: 60_000,
    connectionMode: 'shared',
  });
  await simulator.start();
  await waitForFleetOnline(orm, seed.tenant, fleet.length);

  let testEnv: TestWorkflowEnvironment | undefined;
  let connection: NativeConnection;
  let client: Client;
  let clientConnection: Connection | undefined;
  if (options.timeSkipping) {
    testEnv = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: env('TEMPORAL_TEST_SERVER_PATH') } },
    });
    connection = testEnv.nativeConnection;
    client = testEnv.client;
    await registerSearchAttributes(testEnv.connection);
  } else {
    connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
    clientConnection = await Connection.connect({ address: env('TEMPORAL_ADDRESS') });
    client = new Client({ connection: clientConnection, namespace: 'default' });
  }
  const taskQueue = `test-${seed.tenant}`;
  const paymentGateways = paymentGatewaysFor(orm, {
    ...loadConfig(),
    sandboxGatewayTimeoutMs: options.sandboxGatewayTimeoutMs ?? 3000,
  });
  const worker: Worker = await createFleetflowWorker({
    connection,
    namespace: 'default',
    taskQueue,
    orm,
    vehicleCommands,
    vehicleCommandTimeoutMs: options.commandTimeoutMs ?? 1500,
    paymentGateways,
    temporal: { client, taskQueue },
    observability: createWorkerObservability({
      registry: new Registry(),
      logger: createLogger('worker', { level: process.env.LOG_LEVEL ? testLogLevel : 'error' }),
    }),
  });
  const running = worker.run();
  return {
    orm,
    seed,
    client,
    taskQueue,
    paymentGateways,
    simulator,
    mqtt,
    mqttUrl: broker.url,
    dockingIngestor,
    testEnv,
    async stop() {
      worker.shutdown();
      await running;
      await simulator.stop();
      await ingestor.stop();
      await dockingIngestor.stop();
      vehicleCommands.close();
      await mqtt.endAsync();
      await broker.stop();
      if (testEnv) await testEnv.teardown();
      else {
        await clientConnection?.close();
        await connection.close();
      }
      await orm.close();
    },
  };
}
