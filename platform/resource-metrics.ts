// Prometheus gauges and counters of the resources both processes share: the PostgreSQL connection pool,
// the MQTT connection, and (worker) the vehicle commands sent over it. Read when Prometheus scrapes, so
// they cost nothing between scrapes. The Grafana dashboard (ops/grafana/fleetflow.json) charts them.
import { Gauge, type Registry } from 'prom-client';
import { registeredMetric, registryCounter, registryHistogram } from './http-observability.js';

/** What the pool gauge reads: node-postgres's Pool counters. */
export interface PoolCounters {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export interface ResourceMetricsSources {
  /** The ORM's pool (`orm.em.getConnection().getNativeClient()`). */
  pool?: () => Promise<PoolCounters> | PoolCounters;
  /** The process's MQTT client. */
  mqtt?: { readonly connected: boolean };
}

/**
 * `fleetflow_db_pool_connections{state}` (total, idle, waiting: requests queued for a connection) and
 * `fleetflow_mqtt_connected` (1 while the broker connection is up), on `registry`.
 */
export function registerResourceMetrics(registry: Registry, sources: ResourceMetricsSources): void {
  const { pool, mqtt } = sources;
  if (pool)
    registeredMetric(
      registry,
      'fleetflow_db_pool_connections',
      () =>
        new Gauge({
          name: 'fleetflow_db_pool_connections',
          help: 'PostgreSQL pool connections by state (total, idle; waiting = queries queued for a connection)',
          labelNames: ['state'] as const,
          registers: [registry],
          async collect() {
            const counters = await pool();
            this.set({ state: 'total' }, counters.totalCount);
            this.set({ state: 'idle' }, counters.idleCount);
            this.set({ state: 'waiting' }, counters.waitingCount);
          },
        }),
    );
  if (mqtt)
    registeredMetric(
      registry,
      'fleetflow_mqtt_connected',
      () =>
        new Gauge({
          name: 'fleetflow_mqtt_connected',
          help: 'Whether the MQTT broker connection is up (1) or down (0)',
          registers: [registry],
          collect() {
            this.set(mqtt.connected ? 1 : 0);
          },
        }),
    );
}

/** Vehicle command round-trip buckets in seconds: a device answers in tens of ms to seconds. */
export const vehicleCommandBuckets: readonly number[] = [
  0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20,
];

/**
 * `fleetflow_vehicle_commands_total{command, outcome}` and `fleetflow_vehicle_command_duration_seconds`
 * from publishing to the answer; outcome is the vehicle's status (OK, REFUSED, ERROR, …), `timeout` or
 * `failed`. Give the function to the command client (`onSettled`).
 */
export function vehicleCommandMetrics(
  registry: Registry,
): (command: string, outcome: string, seconds: number) => void {
  const commands = registryCounter(registry, {
    name: 'fleetflow_vehicle_commands_total',
    help: 'Vehicle commands sent over MQTT by command and outcome (the reply status, timeout, failed)',
    labelNames: ['command', 'outcome'] as const,
  });
  const duration = registryHistogram(registry, {
    name: 'fleetflow_vehicle_command_duration_seconds',
    help: 'Vehicle command round trip from publishing to the answer, by command and outcome',
    labelNames: ['command', 'outcome'] as const,
    buckets: vehicleCommandBuckets,
  });
  return (command, outcome, seconds) => {
    commands.inc({ command, outcome });
    duration.observe({ command, outcome }, seconds);
  };
}
