// Measures the rental lifecycle through the real stack: HTTP API → Temporal dev server → worker →
// PostgreSQL and MQTT → simulated vehicle, and back. Then runs the same shape on bare Temporal
// (bench/temporal-baseline.ts) against the same dev server, and prints both and their ratio: how much
// fleetflow adds on top of Temporal. Prints latency per step, throughput and memory.
// Usage: npm run bench [-- rentals concurrency]   (defaults: 48 rentals, 8 at a time)
//
// Both run on a Temporal dev server backed by a SQLite file with WAL, the way `npm start` runs it
// (platform/temporal-dev-server.ts), so the figures are what users get. The in-memory server the jest
// suites use is faster (no file I/O) and would overstate both; BENCH_TEMPORAL_STORE=memory runs on it
// for comparison with figures measured that way. BENCH_CPU_PROFILE=file.cpuprofile profiles this
// process's main thread during fleetflow's lifecycles.
//
// fleetflow runs first, so its RSS is not inflated by the baseline's worker; its backend is stopped
// before the baseline starts, so the baseline has the CPU to itself, like fleetflow had. Neither warms
// up: the first lifecycles of each include their worker's cold start.
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { demoOperatorClient } from '../db/seed.js';
import { Customer, Vehicle } from '../db/entities/index.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { formatRatio, formatResult, runLifecycles } from './lifecycle-stats.js';
import { profiledRun } from './process-cpu.js';
import { runTemporalBaseline } from './temporal-baseline.js';

// Like the jest harness, keep the per-request log lines out of the figures' output; `LOG_LEVEL=info
// npm run bench > file` measures with them.
process.env.LOG_LEVEL ??= 'warn';
const total = Number(process.argv[2] ?? 48);
const concurrency = Number(process.argv[3] ?? 8);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const temporalStore = process.env.BENCH_TEMPORAL_STORE === 'memory' ? 'memory' : 'sqlite-file';
const infra = await startThrowawayInfrastructure({ temporalStore });
const backend = await startTestBackend({ commandTimeoutMs: 5000 });
const app = createApp({
  orm: backend.orm,
  temporal: backend.client,
  taskQueue: backend.taskQueue,
  jwtSecret: 'bench',
  tokenTtlSeconds: 3600,
  readinessChecks: {},
});
const server = app.listen(0);
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/${backend.seed.tenant}`;
const tokenReply = await fetch(`${base}/auth/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    grant_type: 'client_credentials',
    client_id: demoOperatorClient.clientId,
    client_secret: demoOperatorClient.clientSecret,
  }),
});
const { access_token: token } = (await tokenReply.json()) as { access_token: string };
const vehicles = await tenantEm(backend.orm, backend.seed.tenant).find(
  Vehicle,
  {},
  { orderBy: { id: 'asc' } },
);
const lanes = Math.min(concurrency, vehicles.length);

async function call(method: string, path: string, body?: unknown): Promise<{ id: number; state: string }> {
  const response = await fetch(`${base}/back${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { id: number; state: string };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

// Each lane needs its own customer (one open rental per customer) and vehicle.
const em = tenantEm(backend.orm, backend.seed.tenant);
const laneCustomers: number[] = [];
for (let lane = 0; lane < lanes; lane += 1) {
  const customer = em.create(Customer, {
    tenant: backend.seed.tenant as never,
    email: `bench-${lane}@example.com`,
    firstName: 'Bench',
    lastName: `Lane ${lane}`,
  });
  await em.flush();
  laneCustomers.push(customer.id);
}

const memoryBefore = process.memoryUsage().rss;
const fleetflow = await profiledRun(process.env.BENCH_CPU_PROFILE, () =>
  runLifecycles(
    {
      create: async (lane) =>
        (await call('POST', '/rentals', { guserId: laneCustomers[lane], vehicleId: vehicles[lane]!.id })).id,
      start: async (id) => void (await call('POST', `/rentals/${id}/operation`, { operationType: 'START' })),
      end: async (id) => void (await call('POST', `/rentals/${id}/operation`, { operationType: 'END' })),
    },
    total,
    lanes,
  ),
);
const memoryAfter = process.memoryUsage().rss;

await new Promise((resolve) => server.close(resolve));
await backend.stop();

const baseline = await runTemporalBaseline({
  address: infra.temporalAddress,
  lifecycles: total,
  concurrency: lanes,
});

console.log(
  `rental lifecycle bench (create → START → END), Temporal dev server ${temporalStore === 'memory' ? 'in memory' : 'on a SQLite file with WAL'}, Node ${process.version}\n`,
);
console.log(formatResult('fleetflow: HTTP API + worker + simulator in this process', fleetflow, 'API calls'));
console.log(`  RSS ${mib(memoryAfter)} (before the run ${mib(memoryBefore)})\n`);
console.log(
  formatResult('bare Temporal: one no-op activity per step, worker in this process', baseline, 'updates'),
);
console.log(`  RSS after both ${mib(process.memoryUsage().rss)}\n`);
console.log(formatRatio(fleetflow, baseline));

await infra.stop();
