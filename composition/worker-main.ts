// Worker process (`npm run worker`): runs the workflows and activities, keeps vehicle rows current from MQTT
// telemetry, applies the docking stations' slot reports and runs the starters of pending work. The tests
// build their workers with startWorker too, from an environment of their own.
import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { connectMqtt, VehicleCommandClient } from '../devices/command-client.js';
import { createFleetflowWorker } from './worker.js';
import { TelemetryIngestor } from '../workers/telemetry-ingestor.js';
import { DockingIngestor } from '../workers/docking-ingestor.js';
import { IngestionLease, ingestionClientId } from '../workers/ingestion-lease.js';
import { runPaymentStarter } from '../workers/payment-starter.js';
import { runRecurringTaskStarter } from '../workers/recurring-task-starter.js';
import { runWebhookDispatchStarter } from '../workers/webhook-dispatch-starter.js';
import { runExportScheduleStarter } from '../workers/export-schedule-starter.js';
import { runEventPartitionStarter } from '../workers/event-partition-starter.js';
import { runVoucherStateStarter } from '../workers/voucher-state-starter.js';
import {
  createWorkerObservability,
  startMetricsServer,
  temporalRuntimeOptions,
  workerMetricsPort,
} from '../workers/observability.js';
import { connectOrm } from './orm.js';
import { startTelemetry } from '../platform/telemetry.js';
import { registerResourceMetrics, vehicleCommandMetrics } from '../platform/resource-metrics.js';
import { temporalClientInterceptors } from '../platform/temporal-client.js';
import { paymentGatewaysFor } from './payment-gateways.js';
import { BackgroundWork } from '../activities/background-work.js';

/** A started worker process's parts; `run` settles when the worker stops, `stop` shuts everything down. */
export interface RunningWorker {
  worker: Worker;
  /** Applies the physical stations' slot reports (`idle()` waits for those received so far). */
  dockingIngestor: DockingIngestor;
  metricsPort: number;
  run: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the worker process's services from an environment (the variables of platform/config.ts).
 * `clock` replaces the connection to TEMPORAL_ADDRESS with a time-skipping test environment's, the one
 * double a test may give it.
 */
export async function startWorker(
  env: NodeJS.ProcessEnv,
  clock?: { connection: NativeConnection; client: Client },
): Promise<RunningWorker> {
  const config = loadConfig(env);
  const log = createLogger('worker', { env });
  const { databaseUrl, mqttUrl, temporalAddress } = config;
  if (!databaseUrl || !mqttUrl || (!temporalAddress && !clock))
    throw new Error(
      'the worker needs DATABASE_URL, MQTT_URL and TEMPORAL_ADDRESS (npm start sets them for the embedded stack)',
    );
  const registry = new Registry();
  const observability = createWorkerObservability({ registry, logger: log });
  const metrics = await startMetricsServer(registry, workerMetricsPort(env));
  const orm = await connectOrm(databaseUrl);
  const mqtt = await connectMqtt(
    mqttUrl,
    `fleetflow-worker-${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  const commandLog = log.child({ component: 'vehicle-commands' });
  const vehicleCommands = new VehicleCommandClient(mqtt, {
    log: (level, message) => commandLog[level](message),
    onSettled: vehicleCommandMetrics(registry),
  });
  registerResourceMetrics(registry, { pool: () => orm.em.getConnection().getNativeClient(), mqtt });
  const ingestor = new TelemetryIngestor(orm, {
    log: (message) => log.warn(message),
    vehicleCommands,
    vehicleCommandTimeoutMs: config.vehicleCommandTimeoutMs,
    offlineAfterMs: Number(env.VEHICLE_OFFLINE_AFTER_MS ?? 5 * 60_000),
  });
  const dockingLog = log.child({ component: 'docking-ingestor' });
  const dockingIngestor = new DockingIngestor(orm, { log: (message) => dockingLog.warn(message) });
  // One worker per broker consumes the device topics (workers/ingestion-lease.ts): with two workers each
  // message is still stored once. The consumer's session outlives it, so the next holder gets what the
  // broker kept meanwhile.
  const leaseLog = log.child({ component: 'ingestion-lease' });
  const leaseKey = env.INGESTION_LEASE_KEY || mqttUrl;
  let ingestionMqtt: MqttClient | undefined;
  const ingestionLease = new IngestionLease(orm, {
    key: leaseKey,
    retryMs: Number(env.INGESTION_LEASE_RETRY_MS ?? 1000),
    log: (message, error) => (error ? leaseLog.warn({ err: error }, message) : leaseLog.info(message)),
    async onAcquired() {
      ingestionMqtt = await connectMqtt(mqttUrl, ingestionClientId(leaseKey), { clean: false });
      await ingestor.start(ingestionMqtt);
      await dockingIngestor.start(ingestionMqtt);
    },
    async onReleased() {
      await ingestor.stop();
      await dockingIngestor.stop();
      await ingestionMqtt?.endAsync(true);
      ingestionMqtt = undefined;
    },
  });
  await ingestionLease.start();
  const connection = clock?.connection ?? (await NativeConnection.connect({ address: temporalAddress! }));
  const temporal = {
    client:
      clock?.client ??
      new Client({
        connection,
        namespace: config.temporalNamespace,
        interceptors: temporalClientInterceptors(),
      }),
    taskQueue: config.taskQueue,
    eagerStart: !clock,
  };
  const paymentGateways = paymentGatewaysFor(orm, config);
  // What activities leave running after they answered (an ended rental's bill), drained before the
  // database closes.
  const background = new BackgroundWork();
  const worker = await createFleetflowWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    orm,
    vehicleCommands,
    vehicleCommandTimeoutMs: config.vehicleCommandTimeoutMs,
    paymentGateways,
    background,
    temporal,
    observability,
  });
  const starterLog = (component: string) => {
    const child = log.child({ component });
    return (message: string, error?: unknown) =>
      error ? child.error({ err: error }, message) : child.info(message);
  };
  const tenants = config.starterTenants;
  // Ended rentals' invoices whose bill a crash lost, and payments whose workflow never started (a crash
  // between the row and the start, the demo seed).
  const stopPaymentStarter = runPaymentStarter(
    { orm, paymentGateways, temporal },
    {
      intervalMs: 60_000,
      tenants,
      log: starterLog('payment-starter'),
    },
  );
  // Recurring tasks whose schedule or usage workflow is missing (the demo seed, a reset Temporal server).
  const stopRecurringTaskStarter = runRecurringTaskStarter(orm, temporal, {
    intervalMs: 10 * 60_000,
    tenants,
    log: starterLog('recurring-task-starter'),
  });
  // Recurring exports and retention without their schedule (the demo seed, a reset Temporal server).
  const stopExportScheduleStarter = runExportScheduleStarter(orm, temporal, {
    intervalMs: 10 * 60_000,
    tenants,
    log: starterLog('export-schedule-starter'),
  });
  // Vouchers' states (PENDING → ACTIVE with credit, → EXPIRED) moved by a `voucher-states:{tenant}` schedule.
  const stopVoucherStateStarter = runVoucherStateStarter(orm, temporal, {
    intervalMs: 10 * 60_000,
    tenants,
    log: starterLog('voucher-state-starter'),
  });
  // The event table's monthly partitions, created ahead by the daily `event-partitions` schedule.
  const stopEventPartitionStarter = runEventPartitionStarter(temporal, {
    intervalMs: 10 * 60_000,
    log: starterLog('event-partition-starter'),
  });
  // Platform webhooks: wakes the subscriptions' dispatchers when outbox rows commit (LISTEN), and sweeps.
  const webhookStarter = runWebhookDispatchStarter(orm, temporal, {
    intervalMs: 60_000,
    tenants,
    log: starterLog('webhook-dispatch-starter'),
  });
  log.info(
    { taskQueue: config.taskQueue, temporalAddress, metricsPort: metrics.port },
    'worker polling its task queue; metrics on /metrics',
  );
  const run = worker.run();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await webhookStarter.stop();
      stopExportScheduleStarter();
      stopVoucherStateStarter();
      stopEventPartitionStarter();
      stopPaymentStarter();
      stopRecurringTaskStarter();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
      if (!(await background.drain()))
        log.warn('stopped with work still running after its activities; the payment starter finishes it');
      await ingestionLease.stop();
      vehicleCommands.close();
      await mqtt.endAsync();
      if (!clock) await connection.close();
      await metrics.close();
      await orm.close();
    })());
  return { worker, dockingIngestor, metricsPort: metrics.port, run, stop };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const log = createLogger('worker');
  // Before anything creates the Temporal runtime: SDK and core logs go to pino.
  Runtime.install(temporalRuntimeOptions(log));
  // Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (activities, workflow spans through a sink).
  const telemetry = startTelemetry({
    serviceName: 'fleetflow-worker',
    otlpEndpoint: loadConfig().otlpEndpoint,
  });
  let running: RunningWorker;
  try {
    running = await startWorker(process.env);
  } catch (error) {
    log.fatal({ err: error }, 'the worker could not start');
    process.exit(2);
  }
  const shutdown = () => void running.stop();
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await running.run;
  await running.stop();
  await telemetry?.shutdown();
}
