// Worker process: runs the workflows and activities, and keeps vehicle rows current from MQTT telemetry.
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../platform/config.js';
import { connectOrm } from '../db/orm.js';
import { connectMqtt, VehicleCommandClient } from '../devices/command-client.js';
import { consoleDeviceLog } from '../devices/device-log.js';
import { createFleetflowWorker } from './worker.js';
import { TelemetryIngestor } from './telemetry-ingestor.js';

const config = loadConfig();
const databaseUrl = config.databaseUrl;
const mqttUrl = config.mqttUrl;
const temporalAddress = config.temporalAddress;
if (!databaseUrl || !mqttUrl || !temporalAddress) {
  console.error(
    'worker needs DATABASE_URL, MQTT_URL and TEMPORAL_ADDRESS (npm start sets them for the embedded stack)',
  );
  process.exit(2);
}

const orm = await connectOrm(databaseUrl);
const mqtt = await connectMqtt(mqttUrl, `fleetflow-worker-${process.pid}`);
const vehicleCommands = new VehicleCommandClient(mqtt, { log: consoleDeviceLog('commands') });
const ingestor = new TelemetryIngestor(orm, mqtt, { log: (message) => console.warn(message) });
await ingestor.start();
const connection = await NativeConnection.connect({ address: temporalAddress });
const worker = await createFleetflowWorker({
  connection,
  namespace: config.temporalNamespace,
  taskQueue: config.taskQueue,
  orm,
  vehicleCommands,
  vehicleCommandTimeoutMs: config.vehicleCommandTimeoutMs,
});

const shutdown = () => worker.shutdown();
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
console.log(`worker polling task queue "${config.taskQueue}" on ${temporalAddress}`);
await worker.run();
await ingestor.stop();
vehicleCommands.close();
await mqtt.endAsync();
await connection.close();
await orm.close();
