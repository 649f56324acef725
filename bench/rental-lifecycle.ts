// Measures the rental lifecycle through the real stack: HTTP API → Temporal dev server → worker →
// PostgreSQL and MQTT → simulated vehicle, and back. Prints latency per step, throughput and memory.
// Usage: npm run bench [-- rentals concurrency]   (defaults: 48 rentals, 8 at a time)
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { demoOperatorClient } from '../db/seed.js';
import { Vehicle } from '../db/entities/index.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';

const total = Number(process.argv[2] ?? 48);
const concurrency = Number(process.argv[3] ?? 8);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

const infra = await startThrowawayInfrastructure();
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
const customers = backend.seed.customerIds;
const lanes = Math.min(concurrency, vehicles.length, customers.length * 100);

async function timed(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ ms: number; json: { id: number; state: string } }> {
  const started = performance.now();
  const response = await fetch(`${base}/back${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { id: number; state: string };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return { ms: performance.now() - started, json };
}

// Each lane needs its own customer (one open rental per customer): add customers as needed.
const em = tenantEm(backend.orm, backend.seed.tenant);
const { Customer } = await import('../db/entities/index.js');
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

const samples = { create: [] as number[], start: [] as number[], end: [] as number[] };
let next = 0;
const memoryBefore = process.memoryUsage().rss;
const wallStart = performance.now();
await Promise.all(
  Array.from({ length: lanes }, async (_, lane) => {
    while (next < total) {
      next += 1;
      const created = await timed('POST', '/rentals', {
        guserId: laneCustomers[lane],
        vehicleId: vehicles[lane]!.id,
      });
      samples.create.push(created.ms);
      samples.start.push(
        (await timed('POST', `/rentals/${created.json.id}/operation`, { operationType: 'START' })).ms,
      );
      samples.end.push(
        (await timed('POST', `/rentals/${created.json.id}/operation`, { operationType: 'END' })).ms,
      );
    }
  }),
);
const wallSeconds = (performance.now() - wallStart) / 1000;

console.log(
  `rental lifecycle bench: ${total} rentals (create → START → END), ${lanes} concurrent, in-process API + worker`,
);
for (const [step, values] of Object.entries(samples)) {
  console.log(
    `  ${step.padEnd(6)} p50 ${percentile(values, 50).toFixed(1)} ms   p95 ${percentile(values, 95).toFixed(1)} ms   max ${Math.max(...values).toFixed(1)} ms`,
  );
}
console.log(
  `  throughput ${(total / wallSeconds).toFixed(1)} rentals/s (${((total * 3) / wallSeconds).toFixed(1)} API calls/s) over ${wallSeconds.toFixed(1)} s`,
);
console.log(
  `  RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (before run ${(memoryBefore / 2 ** 20).toFixed(0)} MiB)`,
);

await new Promise((resolve) => server.close(resolve));
await backend.stop();
await infra.stop();
