// CLI entry of the vehicle simulator (`npm run simulator`): reads the fleet file and simulates it until signalled.
import { readFile } from 'node:fs/promises';
import { consoleDeviceLog, errorMessage, type DeviceLog } from './device-log.js';
import { redactMqttUrl } from './mqtt-connection.js';
import { FleetSimulator, validateVehicleSpec, type SimulatedVehicleSpec } from './simulator.js';

/** Settings of the simulator process, all from the environment. */
interface SimulatorSettings {
  mqttUrl: string;
  tenant: string;
  fleetFile: string;
  telemetryIntervalMs: number;
  connectTimeoutMs: number;
  verbose: boolean;
  /** The lowest level written (LOG_LEVEL, as the API and the worker read it). */
  logLevel: string;
}

function readSettings(env: NodeJS.ProcessEnv): SimulatorSettings {
  const fleetFile = env.SIMULATOR_FLEET_FILE;
  if (!fleetFile) throw new Error('SIMULATOR_FLEET_FILE must name a JSON file with the vehicles to simulate');
  return {
    mqttUrl: env.MQTT_URL || 'mqtt://localhost:1883',
    tenant: env.SIMULATOR_TENANT || 'demo',
    fleetFile,
    telemetryIntervalMs: positiveIntFromEnv(env, 'SIMULATOR_TELEMETRY_INTERVAL_MS', 10_000),
    connectTimeoutMs: positiveIntFromEnv(env, 'SIMULATOR_CONNECT_TIMEOUT_MS', 30_000),
    verbose: env.SIMULATOR_VERBOSE === '1' || env.SIMULATOR_VERBOSE === 'true',
    logLevel: env.LOG_LEVEL || 'info',
  };
}

function positiveIntFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number.parseInt(raw, 10);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Loads and validates the fleet file: a JSON array of `{ vehicleId, code, position, stateOfCharge, hasTailbox? }`. */
async function loadFleet(path: string): Promise<SimulatedVehicleSpec[]> {
  const text = await readFile(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${errorMessage(error)}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${path} must contain a JSON array of vehicles`);
  return parsed.map((entry: unknown, index) => {
    const spec = entry as SimulatedVehicleSpec;
    try {
      if (typeof entry !== 'object' || entry === null) throw new Error('not an object');
      validateVehicleSpec(spec);
    } catch (error) {
      throw new Error(`${path}[${index}]: ${errorMessage(error)}`);
    }
    return spec;
  });
}

/** Stops the simulator once on SIGINT/SIGTERM, then exits; a second signal exits immediately. */
function exitOnSignals(simulator: FleetSimulator, log: DeviceLog): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(130);
    stopping = true;
    log('info', `${signal} received, announcing vehicles offline`);
    simulator.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log('error', `shutdown failed: ${errorMessage(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * Starts the simulator of `npm run simulator` from an environment (MQTT_URL, SIMULATOR_TENANT,
 * SIMULATOR_FLEET_FILE, SIMULATOR_TELEMETRY_INTERVAL_MS, …); the tests start theirs with it too.
 */
export async function startSimulator(env: NodeJS.ProcessEnv): Promise<FleetSimulator> {
  const settings = readSettings(env);
  const log = consoleDeviceLog('simulator', settings.verbose, settings.logLevel);
  const vehicles = await loadFleet(settings.fleetFile);
  const simulator = new FleetSimulator({
    mqttUrl: settings.mqttUrl,
    tenant: settings.tenant,
    vehicles,
    telemetryIntervalMs: settings.telemetryIntervalMs,
    connectTimeoutMs: settings.connectTimeoutMs,
    log,
  });
  log(
    'info',
    `connecting ${vehicles.length} vehicles to ${redactMqttUrl(settings.mqttUrl)} as tenant ${settings.tenant}`,
  );
  await simulator.start();
  return simulator;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const settings = readSettings(process.env);
  const log = consoleDeviceLog('simulator', settings.verbose, settings.logLevel);
  startSimulator(process.env).then(
    (simulator) => exitOnSignals(simulator, log),
    (error: unknown) => {
      console.error(`[simulator] ERROR ${errorMessage(error)}`);
      process.exit(1);
    },
  );
}
