// Measures the rental lifecycle through the real stack: HTTP API → Temporal dev server → worker →
// PostgreSQL and MQTT → simulated vehicle, and back, beside the same shape on bare Temporal
// (bench/temporal-baseline.ts) against the same dev server, and prints both and their ratio: how much
// fleetflow adds on top of Temporal. Each lifecycle is create → START → PARK → DRIVE → END with a short
// ride before END, so it ends ENDED with a priced invoice. Prints p50/p99 per step, throughput and memory.
// Usage: npm run bench [-- seconds concurrency rounds]   (defaults: 60 s per side, 16 concurrent, 3 rounds)
//
// Both run on a Temporal dev server backed by a SQLite file with WAL, the way `npm start` runs it
// (platform/temporal-dev-server.ts), so the figures are what users get. The in-memory server the jest
// suites use is faster (no file I/O) and would overstate both; BENCH_TEMPORAL_STORE=memory runs on it
// for comparison with figures measured that way. BENCH_CPU_PROFILE=file.cpuprofile profiles this
// process's main thread during fleetflow's first round.
//
// The sides take turns: each side's time is split into rounds (fleetflow, bare, fleetflow, bare, …) whose
// figures are pooled, so a drift of the shared machine weighs on both alike. fleetflow's backend runs
// only during its own rounds (a fresh tenant each), so the baseline has the CPU to itself, like
// fleetflow had. Neither warms up: each round's first lifecycles include its worker's cold start.
//
// BENCH_FLOOR=1 adds four more sides to the rounds (bench/lifecycle-floor.ts): the floor's Temporal shape
// alone (bare's plus the state search attribute and a payment workflow per lifecycle), the whole floor
// (that shape with its rows in PostgreSQL, commands over MQTT and calls over HTTP, hand-written), the
// whole floor with the read before and after that every call of the contract makes, and that with the
// spec's obligations in their least form (bench/lifecycle-floor-obligations.ts: the signed token, the
// body's schema, the branch, the customer's facts, END's requirement, price, numbered invoice, lines,
// ledger, events and outbox rows, the gateway's book): what any implementation of the lifecycle costs
// here, so fleetflow's ratio reads against a reachable one.
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { benchCustomer, jsonClient, startBenchApi } from './api-stack.js';
import {
  formatRatio,
  formatResult,
  mergeResults,
  runLifecycles,
  type LifecycleBenchResult,
} from './lifecycle-stats.js';
import { profiledRun } from './process-cpu.js';
import { runTemporalBaseline } from './temporal-baseline.js';
import { runLifecycleFloor, type FloorParts } from './lifecycle-floor.js';
import { loadConfig } from '../platform/config.js';
import { ensureTemporalCli } from '../platform/temporal-binaries.js';
import {
  clusterDatabaseOf,
  ensureTemporalClusterBinaries,
  startTemporalCluster,
  type TemporalClusterHandle,
} from '../platform/temporal-cluster.js';
import { searchAttributeDefinitions } from '../workflows/search-attributes.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// Like the jest harness, keep the per-request log lines out of the figures' output; `LOG_LEVEL=info
// npm run bench > file` measures with them.
process.env.LOG_LEVEL ??= 'warn';
const durationMs = Number(process.argv[2] ?? 60) * 1000;
const concurrency = Number(process.argv[3] ?? 16);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const rounds = Math.max(1, Number(process.argv[4] ?? process.env.BENCH_ROUNDS ?? 3));
const roundMs = durationMs / rounds;

const temporalStore = process.env.BENCH_TEMPORAL_STORE === 'memory' ? 'memory' : 'sqlite-file';
const infra = await startThrowawayInfrastructure({ temporalStore });
const devServerAddress = infra.temporalAddress;

/** The real Temporal server on the bench's PostgreSQL, with BENCH_CLUSTER=1. */
let cluster: TemporalClusterHandle | undefined;
if (process.env.BENCH_CLUSTER === '1') {
  const config = loadConfig();
  const [binaries, cliPath] = await Promise.all([
    ensureTemporalClusterBinaries(config.cacheDir),
    ensureTemporalCli(config),
  ]);
  cluster = await startTemporalCluster({
    ...binaries,
    cliPath,
    database: clusterDatabaseOf(infra.databaseUrl),
    port: 0,
    namespace: 'default',
    searchAttributes: searchAttributeDefinitions,
    dataDir: await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bench-cluster-')),
  });
}

// Memory every 10 s of fleetflow's runs, after a full collection when node runs with --expose-gc
// (NODE_OPTIONS), so a leak (a heap that keeps growing) shows apart from a heap that grows to its working
// size and stays there.
const collect = (globalThis as { gc?: () => void }).gc;
const memorySamples: string[] = [];
const sampleMemory = () => {
  collect?.();
  const { rss, heapUsed, external } = process.memoryUsage();
  memorySamples.push(`${mib(rss)} (heap ${mib(heapUsed)}, external ${mib(external)})`);
};
let memoryBefore = 0;
let memoryAfter = 0;

/**
 * One run of fleetflow's lifecycles: its own backend (worker, simulated fleet, telemetry ingestion) and
 * API on a fresh tenant, stopped afterwards so the baseline's run has the machine to itself.
 */
async function runFleetflow(
  round: number,
  temporalAddress = devServerAddress,
): Promise<LifecycleBenchResult> {
  // The backend's worker and client connect to TEMPORAL_ADDRESS (tests/support/stack.ts).
  process.env.TEMPORAL_ADDRESS = temporalAddress;
  const backend = await startTestBackend({ commandTimeoutMs: 5000 });
  const { base, token, close: closeApi } = await startBenchApi(backend);
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const vehicles = await em.find(Vehicle, {}, { orderBy: { id: 'asc' } });
  const lanes = Math.min(concurrency, vehicles.length);
  const request = jsonClient(`${base}/back`, token);
  const call = async (method: string, path: string, body?: unknown) => {
    const { status, json } = await request(method, path, body);
    if (status >= 400) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`);
    return json as { id: number; state: string };
  };
  // Each lane needs its own customer (one open rental per customer) and vehicle.
  const laneCustomers: number[] = [];
  for (let lane = 0; lane < lanes; lane += 1) {
    laneCustomers.push(await benchCustomer(em, backend.seed.businessUnitId, `bench-${lane}`));
  }
  if (round === 0) memoryBefore = process.memoryUsage().rss;
  sampleMemory();
  const sampler = setInterval(sampleMemory, 10_000);
  try {
    // BENCH_CPU_PROFILE profiles the first round.
    return await profiledRun(round === 0 ? process.env.BENCH_CPU_PROFILE : undefined, () =>
      runLifecycles(
        {
          create: async (lane) =>
            (await call('POST', '/rentals', { guserId: laneCustomers[lane], vehicleId: vehicles[lane]!.id }))
              .id,
          operate: async (id, operationType, lane) => {
            // A trip worth the name, so END prices a distance and the rental is not ENDED_NO_MOVEMENT.
            if (operationType === 'END') backend.simulator.ride(String(vehicles[lane]!.id), 300);
            await call('POST', `/rentals/${id}/operation`, { operationType });
          },
        },
        roundMs,
        lanes,
      ),
    );
  } finally {
    clearInterval(sampler);
    sampleMemory();
    memoryAfter = process.memoryUsage().rss;
    await closeApi();
    await backend.stop();
  }
}

// The two sides take turns, `rounds` short runs each, so that both see the same drift of a shared
// machine (a single long run of each measured the baseline anywhere between 92 and 127 ms of CPU per
// lifecycle from one bench to the next).
const fleetflowRuns: LifecycleBenchResult[] = [];
const baselineRuns: LifecycleBenchResult[] = [];
const clusterFleetflowRuns: LifecycleBenchResult[] = [];
const clusterBaselineRuns: LifecycleBenchResult[] = [];
const withFloor = process.env.BENCH_FLOOR === '1';
const floorShapeRuns: LifecycleBenchResult[] = [];
const floorRuns: LifecycleBenchResult[] = [];
const floorReadRuns: LifecycleBenchResult[] = [];
const floorObligedRuns: LifecycleBenchResult[] = [];
const runFloor = (parts: FloorParts) =>
  runLifecycleFloor({
    address: devServerAddress,
    databaseUrl: infra.databaseUrl,
    mqttUrl: infra.mqttUrl,
    durationMs: roundMs,
    concurrency: fleetflowRuns[0]!.concurrency,
    parts,
  });
for (let round = 0; round < rounds; round += 1) {
  fleetflowRuns.push(await runFleetflow(round));
  baselineRuns.push(
    await runTemporalBaseline({
      address: devServerAddress,
      durationMs: roundMs,
      concurrency: fleetflowRuns[0]!.concurrency,
    }),
  );
  if (withFloor) {
    floorShapeRuns.push(await runFloor({ sql: false, mqtt: false, http: false }));
    floorRuns.push(await runFloor({ sql: true, mqtt: true, http: true }));
    floorReadRuns.push(await runFloor({ sql: true, mqtt: true, http: true, reads: true }));
    floorObligedRuns.push(
      await runFloor({ sql: true, mqtt: true, http: true, reads: true, obligations: true }),
    );
  }
  if (cluster) {
    clusterFleetflowRuns.push(await runFleetflow(round + 1, cluster.address));
    clusterBaselineRuns.push(
      await runTemporalBaseline({
        address: cluster.address,
        durationMs: roundMs,
        concurrency: fleetflowRuns[0]!.concurrency,
      }),
    );
  }
}
const fleetflow = mergeResults(fleetflowRuns);
const baseline = mergeResults(baselineRuns);
/** A side's lifecycles/s beside bare's, round by round. */
const byRound = (side: string, runs: LifecycleBenchResult[]) =>
  `  by round (${side} / bare lifecycles/s): ${runs
    .map((run, round) => {
      const bare = baselineRuns[round]!.throughput;
      return `${run.throughput.toFixed(1)} / ${bare.toFixed(1)} (${(run.throughput / bare).toFixed(2)}×)`;
    })
    .join(', ')}`;

console.log(
  `rental lifecycle bench (create → START → PARK → DRIVE → END), ${durationMs / 1000} s per side in ${rounds} alternating rounds, Temporal dev server ${temporalStore === 'memory' ? 'in memory' : 'on a SQLite file with WAL'}, Node ${process.version}\n`,
);
console.log(formatResult('fleetflow: HTTP API + worker + simulator in this process', fleetflow, 'API calls'));
console.log(`  RSS ${mib(memoryAfter)} after its last round (before its first ${mib(memoryBefore)})`);
console.log(
  `  memory every 10 s${collect ? ' after a full GC' : ' (run with NODE_OPTIONS=--expose-gc to collect first)'}: ${memorySamples.join(' → ')}\n`,
);
console.log(
  formatResult('bare Temporal: one no-op activity per step, worker in this process', baseline, 'updates'),
);
console.log(`  RSS after both ${mib(process.memoryUsage().rss)}\n`);
console.log(formatRatio(fleetflow, baseline));
console.log(byRound('fleetflow', fleetflowRuns));

if (withFloor) {
  const floorShape = mergeResults(floorShapeRuns);
  const floor = mergeResults(floorRuns);
  const floorReads = mergeResults(floorReadRuns);
  console.log('\n--- the floor (BENCH_FLOOR=1, bench/lifecycle-floor.ts), in the same rounds ---\n');
  console.log(
    formatResult('floor, Temporal shape only (state attribute, payment workflow)', floorShape, 'updates'),
  );
  console.log(
    formatResult('floor, whole (rows in PostgreSQL, MQTT commands, HTTP calls)', floor, 'API calls'),
  );
  console.log(formatRatio(floorShape, baseline, 'floor shape ÷ bare Temporal'));
  console.log(
    formatResult(
      'floor with the reads every call makes (branch before, view after)',
      floorReads,
      'API calls',
    ),
  );
  console.log(formatRatio(floor, baseline, 'whole floor ÷ bare Temporal'));
  console.log(formatRatio(floorReads, baseline, 'floor with its reads ÷ bare Temporal'));
  const floorObliged = mergeResults(floorObligedRuns);
  console.log(
    formatResult(
      "floor with the spec's obligations (token, schema, branch, facts, price, invoice, ledger, events)",
      floorObliged,
      'API calls',
    ),
  );
  console.log(formatRatio(floorObliged, baseline, 'floor with its obligations ÷ bare Temporal'));
  console.log(byRound('floor with its obligations', floorObligedRuns));
  console.log(formatRatio(fleetflow, floor, 'fleetflow ÷ whole floor'));
  console.log(formatRatio(fleetflow, floorObliged, 'fleetflow ÷ floor with its obligations'));
}

// Issue 36's targets, as ratios to bare Temporal in this run.
const cpuOf = (result: LifecycleBenchResult) =>
  Object.values(result.cpu).reduce((total, seconds) => total + seconds, 0) / result.lifecycles;
const share = fleetflow.throughput / baseline.throughput;
const endShare = fleetflow.steps.END.p99 / baseline.steps.END.p99;
const cpuShare = cpuOf(fleetflow) / cpuOf(baseline);
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
console.log(
  `\ntargets: lifecycles/s ≥ 0.6× bare's: ${share.toFixed(2)}× ${verdict(share >= 0.6)}; ` +
    `END p99 ≤ 2× bare's: ${endShare.toFixed(2)}× ${verdict(endShare <= 2)}; ` +
    `CPU per lifecycle ≤ 2× bare's: ${cpuShare.toFixed(2)}× ${verdict(cpuShare <= 2)}`,
);

if (cluster) {
  const clusterFleetflow = mergeResults(clusterFleetflowRuns);
  const clusterBaseline = mergeResults(clusterBaselineRuns);
  console.log(
    '\n--- the same rounds on the real Temporal server (BENCH_CLUSTER=1, PostgreSQL persistence) ---\n',
  );
  console.log(formatResult('fleetflow on the cluster', clusterFleetflow, 'API calls'));
  console.log(formatResult('bare Temporal on the cluster', clusterBaseline, 'updates'));
  console.log(formatRatio(clusterFleetflow, clusterBaseline));
  console.log(
    `  cluster / dev server, lifecycles/s: fleetflow ${(clusterFleetflow.throughput / fleetflow.throughput).toFixed(2)}×, ` +
      `bare ${(clusterBaseline.throughput / baseline.throughput).toFixed(2)}×`,
  );
  await cluster.stop();
}

await infra.stop();
