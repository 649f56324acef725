// Test harness: real PostgreSQL, broker and Temporal (from global-setup) plus, in-process, the worker
// process's services (startWorker) and the vehicle simulator (startSimulator) for one freshly seeded tenant.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { searchAttributeDefinitions } from '../../workflows/search-attributes.js';
import type { MqttClient } from 'mqtt';
import { tenantEm, type MikroORM } from '../../db/orm.js';
import { type SeededTenant } from '../../db/seed.js';
import { simulatorFleet } from '../../db/fleet.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { connectMqtt } from '../../devices/command-client.js';
import { startEmbeddedBroker } from '../../platform/embedded-broker.js';
import type { FleetSimulator } from '../../devices/simulator.js';
import type { DockingIngestor } from '../../workers/docking-ingestor.js';
import { startSimulator } from '../../devices/simulator-main.js';
import { connectOrm } from '../../composition/orm.js';
import { seedTenant } from '../../composition/seed.js';
import { startWorker } from '../../composition/worker-main.js';
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
  /** The environment the worker and the simulator were started from (the API's comes from it too). */
  processEnv: NodeJS.ProcessEnv;
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
  // Generous: a loaded machine (three suites starting at once) takes a while to connect the whole fleet.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const online = await tenantEm(orm, tenant).count(Vehicle, { offline: false });
    if (online >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fleet of ${tenant} did not come online`);
}

/**
 * Seeds a tenant and runs the worker process's services and the simulator against the real
 * infrastructure, built by the functions `npm run worker` and `npm run simulator` run (startWorker,
 * startSimulator) from an environment: the suite's, with this backend's broker, task queue and tenant.
 */
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
  const taskQueue = `test-${seed.tenant}`;
  const fleet = await simulatorFleet(tenantEm(orm, seed.tenant));
  const fleetDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-fleet-'));
  const fleetFile = path.join(fleetDir, 'simulator-fleet.json');
  await fs.writeFile(fleetFile, JSON.stringify(fleet));
  // What a deployment of one tenant's worker would set; everything else is the suite's environment.
  const processEnv: NodeJS.ProcessEnv = {
    ...process.env,
    MQTT_URL: broker.url,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WORKER_STARTER_TENANTS: seed.tenant,
    WORKER_METRICS_PORT: '0',
    API_METRICS_PORT: '0',
    VEHICLE_COMMAND_TIMEOUT_MS: String(options.commandTimeoutMs ?? 1500),
    SANDBOX_GATEWAY_TIMEOUT_MS: String(options.sandboxGatewayTimeoutMs ?? 3000),
    LOG_LEVEL: testLogLevel,
    SIMULATOR_TENANT: seed.tenant,
    SIMULATOR_FLEET_FILE: fleetFile,
    SIMULATOR_TELEMETRY_INTERVAL_MS: '60000',
  };

  let testEnv: TestWorkflowEnvironment | undefined;
  let client: Client;
  let clientConnection: Connection | undefined;
  if (options.timeSkipping) {
    testEnv = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: env('TEMPORAL_TEST_SERVER_PATH') } },
    });
    client = testEnv.client;
    await registerSearchAttributes(testEnv.connection);
  } else {
    clientConnection = await Connection.connect({ address: env('TEMPORAL_ADDRESS') });
    client = new Client({ connection: clientConnection, namespace: 'default' });
  }
  const paymentGateways = paymentGatewaysFor(orm, loadConfig(processEnv));
  // The time-skipping environment is the one double: a clock the worker's connection runs on.
  const worker = await startWorker(
    processEnv,
    testEnv ? { connection: testEnv.nativeConnection, client: testEnv.client } : undefined,
  );
  const simulator = await startSimulator(processEnv);
  await waitForFleetOnline(orm, seed.tenant, fleet.length);
  return {
    orm,
    seed,
    client,
    taskQueue,
    paymentGateways,
    simulator,
    mqtt,
    mqttUrl: broker.url,
    processEnv,
    dockingIngestor: worker.dockingIngestor,
    testEnv,
    async stop() {
      await worker.stop();
      await simulator.stop();
      await mqtt.endAsync();
      await broker.stop();
      if (testEnv) await testEnv.teardown();
      else await clientConnection?.close();
      await orm.close();
      await fs.rm(fleetDir, { recursive: true, force: true });
    },
  };
}
