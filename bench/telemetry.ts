// Telemetry ingestion throughput: simulated vehicles publish telemetry at QoS 1 through the aedes broker
// into the ingestor (workers/telemetry-ingestor.ts), which stores every message in vehicle_telemetry and
// keeps the vehicle rows current. Proves zero loss (history rows = messages sent) and prints messages/s
// persisted beside a baseline measured in the same run: the same publishers into the same broker with a
// subscriber that only counts (what the broker alone can carry).
// Usage: npm run bench:telemetry [-- seconds vehicles]   (defaults: 20 s, 500 vehicles)
//
// Threads: the broker and the publishers each run in their own worker thread; the ingestor runs on the
// main thread with PostgreSQL in its own process, as in the worker process of a deployment.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectMqtt } from '../devices/mqtt-connection.js';
import { encodeMessage, telemetryTopic, vehicleTopicFilter } from '../devices/protocol.js';

interface PublisherInput {
  role: 'publisher';
  mqttUrl: string;
  tenant: string;
  vehicleIds: number[];
  durationMs: number;
  /** Unacknowledged QoS 1 messages allowed in flight per connection. */
  window: number;
  connections: number;
}

/** Publishes telemetry round-robin over the vehicles for the duration, QoS 1, windowed; reports the count. */
async function runPublishers(input: PublisherInput): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: input.connections }, (_, index) =>
      connectMqtt(input.mqttUrl, `bench-publisher-${process.pid}-${index}-${Date.now()}`),
    ),
  );
  const deadline = Date.now() + input.durationMs;
  let sent = 0;
  const started = Date.now();
  await Promise.all(
    clients.map(async (client, lane) => {
      const mine = input.vehicleIds.filter((_, index) => index % input.connections === lane);
      let inFlight = 0;
      let next = 0;
      let sequence = 0;
      await new Promise<void>((resolve) => {
        const pump = () => {
          while (inFlight < input.window && Date.now() < deadline) {
            const vehicleId = mine[next % mine.length]!;
            next += 1;
            sequence += 1;
            inFlight += 1;
            const at = new Date(started + sequence).toISOString();
            const payload = encodeMessage({
              at,
              position: { lat: 52.52 + (vehicleId % 100) / 10_000, lng: 13.4 + (sequence % 100) / 10_000 },
              stateOfCharge: 50 + (sequence % 40),
              powerState: 'ON',
              locked: false,
              speedKmh: 18,
              hdop: 0.9,
              odometerKm: sequence / 1000,
              iotModuleVoltage: 4.1,
            });
            client.publish(telemetryTopic(input.tenant, String(vehicleId)), payload, { qos: 1 }, () => {
              inFlight -= 1;
              sent += 1;
              if (Date.now() >= deadline && inFlight === 0) resolve();
              else setImmediate(pump);
            });
          }
          if (Date.now() >= deadline && inFlight === 0) resolve();
        };
        pump();
      });
    }),
  );
  await Promise.all(clients.map((client) => client.endAsync()));
  return sent;
}

if (!isMainThread) {
  const data = workerData as PublisherInput | { role: 'broker' };
  if (data.role === 'broker') {
    const { startEmbeddedBroker } = await import('../platform/embedded-broker.js');
    const broker = await startEmbeddedBroker({ port: 0 });
    parentPort!.postMessage({ url: broker.url });
    parentPort!.on('message', () => void broker.stop().then(() => process.exit(0)));
  } else {
    parentPort!.postMessage({ sent: await runPublishers(data) });
  }
} else {
  await main();
}

function thread<T>(data: unknown): { worker: Worker; first: Promise<T> } {
  const worker = new Worker(new URL(import.meta.url), { workerData: data, execArgv: ['--import', 'tsx'] });
  const first = new Promise<T>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, first };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const seconds = Number(process.argv[2] ?? 20);
  const vehicleCount = Number(process.argv[3] ?? 500);
  const { startEmbeddedPostgres } = await import('../platform/embedded-postgres.js');
  const { migrateDatabase, tenantEm } = await import('../db/orm.js');
  const { connectOrm } = await import('../composition/orm.js');
  const { seedTenant } = await import('../composition/seed.js');
  const { Vehicle } = await import('../db/entities/Vehicle.js');
  const { TelemetryIngestor } = await import('../workers/telemetry-ingestor.js');

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bench-pg-'));
  await fs.chmod(dataDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir, port: 0, database: 'fleetflow_bench' });
  const broker = thread<{ url: string }>({ role: 'broker' });
  const { url: mqttUrl } = await broker.first;
  const orm = await connectOrm(postgres.url);
  try {
    await migrateDatabase(orm);
    const seed = await seedTenant(orm.em, 'bench', 'Bench Mobility');
    // Many vehicles: copies of the seeded ones.
    await orm.em.getConnection().execute(
      `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
         power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at, virtual)
       select 'bench', 'BENCH-' || g, ?, (select min(id) from vehicle_category where tenant_id = 'bench'),
         'AVAILABLE', 'FUNCTIONAL', 'UNKNOWN', 'UNKNOWN', true, true, false, '[]', '{}', now(), now(), false
       from generate_series(1, ?) g`,
      [seed.branchId, Math.max(0, vehicleCount - 24)],
    );
    const vehicleIds = (await tenantEm(orm, 'bench').find(Vehicle, {}, { fields: ['id'] })).map((v) => v.id);
    const publisherInput = (durationMs: number): PublisherInput => ({
      role: 'publisher',
      mqttUrl,
      tenant: 'bench',
      vehicleIds,
      durationMs,
      window: 200,
      connections: 4,
    });

    // Baseline: the broker alone, to a subscriber that only counts.
    const counter = await connectMqtt(mqttUrl, `bench-counter-${Date.now()}`);
    let counted = 0;
    counter.on('message', () => (counted += 1));
    await counter.subscribeAsync(vehicleTopicFilter('telemetry'), { qos: 1 });
    const baselineStart = Date.now();
    const baseline = thread<{ sent: number }>(publisherInput(seconds * 1000));
    const { sent: baselineSent } = await baseline.first;
    const deadline = Date.now() + 10_000;
    while (counted < baselineSent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const baselineSeconds = (Date.now() - baselineStart) / 1000;
    await counter.endAsync();
    await baseline.worker.terminate();

    // fleetflow: the ingestor stores every message.
    const ingestorMqtt = await connectMqtt(mqttUrl, `bench-ingestor-${Date.now()}`);
    const ingestor = new TelemetryIngestor(orm, {
      flushIntervalMs: 1000,
      log: (message) => console.error(message),
    });
    await ingestor.start(ingestorMqtt);
    const runStart = Date.now();
    const run = thread<{ sent: number }>(publisherInput(seconds * 1000));
    const { sent } = await run.first;
    const publishedSeconds = (Date.now() - runStart) / 1000;
    const drainDeadline = Date.now() + 60_000;
    while (ingestor.counters.stored < sent && Date.now() < drainDeadline) {
      await ingestor.flush();
      await new Promise((r) => setTimeout(r, 50));
    }
    const persistedSeconds = (Date.now() - runStart) / 1000;
    await ingestor.stop();
    await ingestorMqtt.endAsync();
    await run.worker.terminate();
    const [{ rows }] = await orm.em
      .getConnection()
      .execute<{ rows: string }[]>(
        `select count(*) as rows from vehicle_telemetry where tenant_id = 'bench'`,
      );
    const lost = sent - Number(rows);

    const rate = (count: number, s: number) => `${Math.round(count / s).toLocaleString('en-US')} msg/s`;
    console.log(
      `telemetry ingestion, ${vehicleIds.length} vehicles, 4 publisher connections, QoS 1, ${seconds} s`,
    );
    console.log(
      `  baseline (aedes → counting subscriber): ${baselineSent} sent, ${counted} received, ${rate(counted, baselineSeconds)}`,
    );
    console.log(
      `  fleetflow (aedes → ingestor → PostgreSQL): ${sent} sent in ${publishedSeconds.toFixed(1)} s, ` +
        `${rows} history rows, persisted ${rate(Number(rows), persistedSeconds)} (all stored after ${persistedSeconds.toFixed(1)} s)`,
    );
    console.log(
      `  loss: ${lost} (${lost === 0 ? 'zero loss: history rows = messages sent' : 'MESSAGES LOST'})`,
    );
    console.log(
      `  ratio fleetflow / baseline: ${((Number(rows) / persistedSeconds / (counted / baselineSeconds)) * 100).toFixed(0)} %`,
    );
    if (lost !== 0) process.exitCode = 1;
  } finally {
    await orm.close();
    broker.worker.postMessage('stop');
    await new Promise((r) => setTimeout(r, 200));
    await broker.worker.terminate();
    await postgres.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
