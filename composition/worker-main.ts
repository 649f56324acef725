// Worker process: runs the workflows and activities, keeps vehicle rows current from MQTT telemetry and
// applies the docking stations' slot reports.
import { NativeConnection, Runtime } from '@temporalio/worker';
import { Registry } from 'prom-client';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { connectMqtt, VehicleCommandClient } from '../devices/command-client.js';
import { createFleetflowWorker } from './worker.js';
import { TelemetryIngestor } from '../workers/telemetry-ingestor.js';
import { DockingIngestor } from '../workers/docking-ingestor.js';
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
import { Client } from '@temporalio/client';
import { connectOrm } from './orm.js';
import { startTelemetry } from '../platform/telemetry.js';
import { registerResourceMetrics, vehicleCommandMetrics } from '../platform/resource-metrics.js';
import { temporalClientInterceptors } from '../platform/temporal-client.js';
import { paymentGatewaysFor } from './payment-gateways.js';

const config = loadConfig();
const log = createLogger('worker');
const databaseUrl = config.databaseUrl;
const mqttUrl = config.mqttUrl;
const temporalAddress = config.temporalAddress;
if (!databaseUrl || !mqttUrl || !temporalAddress) {
  log.fatal(
    'worker needs DATABASE_URL, MQTT_URL and TEMPORAL_ADDRESS (npm start sets them for the embedded stack)',
  );
  process.exit(2);
}

// Before anything creates the Temporal runtime: SDK and core logs go to pino.
Runtime.install(temporalRuntimeOptions(log));
// Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (activities, workflow spans through a sink).
const telemetry = startTelemetry({ serviceName: 'fleetflow-worker', otlpEndpoint: config.otlpEndpoint });
const registry = new Registry();
const observability = createWorkerObservability({ registry, logger: log });
const metrics = await startMetricsServer(registry, workerMetricsPort());
const orm = await connectOrm(databaseUrl);
const mqtt = await connectMqtt(mqttUrl, `fleetflow-worker-${process.pid}`);
const commandLog = log.child({ component: 'vehicle-commands' });
const vehicleCommands = new VehicleCommandClient(mqtt, {
  log: (level, message) => commandLog[level](message),
  onSettled: vehicleCommandMetrics(registry),
});
registerResourceMetrics(registry, { pool: () => orm.em.getConnection().getNativeClient(), mqtt });
const ingestor = new TelemetryIngestor(orm, mqtt, {
  log: (message) => log.warn(message),
  vehicleCommands,
  vehicleCommandTimeoutMs: config.vehicleCommandTimeoutMs,
  offlineAfterMs: Number(process.env.VEHICLE_OFFLINE_AFTER_MS ?? 5 * 60_000),
});
await ingestor.start();
const dockingLog = log.child({ component: 'docking-ingestor' });
const dockingIngestor = new DockingIngestor(orm, mqtt, { log: (message) => dockingLog.warn(message) });
await dockingIngestor.start();
const connection = await NativeConnection.connect({ address: temporalAddress });
const temporal = {
  client: new Client({
    connection,
    namespace: config.temporalNamespace,
    interceptors: temporalClientInterceptors(),
  }),
  taskQueue: config.taskQueue,
};
const worker = await createFleetflowWorker({
  connection,
  namespace: config.temporalNamespace,
  taskQueue: config.taskQueue,
  orm,
  vehicleCommands,
  vehicleCommandTimeoutMs: config.vehicleCommandTimeoutMs,
  paymentGateways: paymentGatewaysFor(orm, config),
  temporal,
  observability,
});
// Payments whose workflow never started (a crash between the row and the start, the demo seed).
const paymentStarterLog = log.child({ component: 'payment-starter' });
const stopPaymentStarter = runPaymentStarter(orm, temporal, {
  intervalMs: 60_000,
  tenants: config.starterTenants,
  log: (message, error) =>
    error ? paymentStarterLog.error({ err: error }, message) : paymentStarterLog.info(message),
});
// Recurring tasks whose schedule or usage workflow is missing (the demo seed, a reset Temporal server).
const recurringStarterLog = log.child({ component: 'recurring-task-starter' });
const stopRecurringTaskStarter = runRecurringTaskStarter(orm, temporal, {
  intervalMs: 10 * 60_000,
  tenants: config.starterTenants,
  log: (message, error) =>
    error ? recurringStarterLog.error({ err: error }, message) : recurringStarterLog.info(message),
});

// Recurring exports and retention without their schedule (the demo seed, a reset Temporal server).
const exportStarterLog = log.child({ component: 'export-schedule-starter' });
const stopExportScheduleStarter = runExportScheduleStarter(orm, temporal, {
  intervalMs: 10 * 60_000,
  tenants: config.starterTenants,
  log: (message, error) =>
    error ? exportStarterLog.error({ err: error }, message) : exportStarterLog.info(message),
});

// Vouchers' states (PENDING → ACTIVE with credit, → EXPIRED) moved by a `voucher-states:{tenant}` schedule.
const voucherStarterLog = log.child({ component: 'voucher-state-starter' });
const stopVoucherStateStarter = runVoucherStateStarter(orm, temporal, {
  intervalMs: 10 * 60_000,
  tenants: config.starterTenants,
  log: (message, error) =>
    error ? voucherStarterLog.error({ err: error }, message) : voucherStarterLog.info(message),
});

// The event table's monthly partitions, created ahead by the daily `event-partitions` schedule.
const partitionStarterLog = log.child({ component: 'event-partition-starter' });
const stopEventPartitionStarter = runEventPartitionStarter(temporal, {
  intervalMs: 10 * 60_000,
  log: (message, error) =>
    error ? partitionStarterLog.error({ err: error }, message) : partitionStarterLog.info(message),
});

// Platform webhooks: wakes the subscriptions' dispatchers when outbox rows commit (LISTEN), and sweeps.
const webhookStarterLog = log.child({ component: 'webhook-dispatch-starter' });
const webhookStarter = runWebhookDispatchStarter(orm, temporal, {
  intervalMs: 60_000,
  log: (message, error) =>
    error ? webhookStarterLog.error({ err: error }, message) : webhookStarterLog.info(message),
});

const shutdown = () => {
  void webhookStarter.stop();
  stopExportScheduleStarter();
  stopVoucherStateStarter();
  stopEventPartitionStarter();
  stopPaymentStarter();
  stopRecurringTaskStarter();
  worker.shutdown();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
log.info(
  { taskQueue: config.taskQueue, temporalAddress, metricsPort: metrics.port },
  'worker polling its task queue; metrics on /metrics',
);
await worker.run();
await ingestor.stop();
await dockingIngestor.stop();
vehicleCommands.close();
await mqtt.endAsync();
await connection.close();
await metrics.close();
await orm.close();
await telemetry?.shutdown();
