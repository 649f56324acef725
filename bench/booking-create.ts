// Bookings created per second through the real stack: POST /back/bookings → Temporal dev server → the
// booking workflow's first activity (admission under the station-category lock, pinned pricing, the
// estimate, the event) → the answer. Beside it, in the same run and on the same dev server, the create
// step of bare Temporal (bench/temporal-baseline.ts: a workflow start and one Update running a no-op
// activity), the least any workflow-backed creation costs here.
// Usage: npm run bench:booking-create [-- seconds concurrency cars]   (defaults: 30 s, 8 concurrent, 200 cars)
import { Branch } from '../db/entities/Branch.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { startBenchApi } from './api-stack.js';
import { percentile } from './lifecycle-stats.js';
import { runTemporalBaseline } from './temporal-baseline.js';

process.env.LOG_LEVEL ??= 'warn';
const durationMs = Number(process.argv[2] ?? 30) * 1000;
const concurrency = Number(process.argv[3] ?? 8);
const extraCars = Number(process.argv[4] ?? 200);

const infra = await startThrowawayInfrastructure({ temporalStore: 'sqlite-file' });
const backend = await startTestBackend({ commandTimeoutMs: 5000 });
const { base, token, close: closeApi } = await startBenchApi(backend);
const em = tenantEm(backend.orm, backend.seed.tenant);
const [stationId] = backend.seed.bookingStationIds;
const station = await em.findOneOrFail(Branch, stationId);
const cars = await em.findOneOrFail(VehicleCategory, { name: 'Compact car' });
for (let index = 0; index < extraCars; index += 1)
  em.create(Vehicle, {
    code: `BENCH-${index}`,
    branch: station,
    category: cars,
    latitude: 52.525,
    longitude: 13.369,
    stateOfCharge: 90,
    locked: true,
    offline: true,
  });
await em.flush();

// Windows spread over the coming year, two hours each, so the pool rarely runs out and most requests are
// admitted; refusals (B302 when a slot's cars are taken) are counted apart.
const hour = 3_600_000;
const firstStart = Math.ceil((Date.now() + 2 * 24 * hour) / hour) * hour;
let sequence = 0;
const nextWindow = () => {
  const slot = (sequence++ * 7919) % (300 * 12);
  const startMs = firstStart + slot * 2 * hour;
  return { startTime: new Date(startMs).toISOString(), endTime: new Date(startMs + 2 * hour).toISOString() };
};

const latencies: number[] = [];
let admitted = 0;
let refused = 0;
const deadline = Date.now() + durationMs;
const started = Date.now();
await Promise.all(
  Array.from({ length: concurrency }, async (_, lane) => {
    while (Date.now() < deadline) {
      const begin = performance.now();
      const response = await fetch(`${base}/back/bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          guserId: backend.seed.customerIds[lane % backend.seed.customerIds.length],
          branchId: stationId,
          vehicleCategoryId: cars.id,
          ...nextWindow(),
        }),
      });
      await response.arrayBuffer();
      if (response.status === 201) {
        admitted += 1;
        latencies.push(performance.now() - begin);
      } else if (response.status === 409) refused += 1;
      else throw new Error(`POST /bookings answered ${response.status}`);
    }
  }),
);
const elapsedS = (Date.now() - started) / 1000;
await closeApi();
await backend.stop();

const baseline = await runTemporalBaseline({ address: infra.temporalAddress, durationMs, concurrency });
const ms = (value: number) => `${value.toFixed(1)} ms`;
const created = {
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99),
};
console.log(
  `booking creation bench: ${concurrency} concurrent, ${elapsedS.toFixed(0)} s, station with ${extraCars + 3} cars, Temporal dev server on a SQLite file with WAL\n`,
);
console.log(
  `  POST /back/bookings            ${(admitted / elapsedS).toFixed(1)} bookings/s   p50 ${ms(created.p50)}   p99 ${ms(created.p99)}   (${admitted} created, ${refused} refused with 409)`,
);
console.log(
  `  bare Temporal create step       p50 ${ms(baseline.steps.create.p50)}   p99 ${ms(baseline.steps.create.p99)}   (workflow start + one Update with a no-op activity)`,
);
console.log(
  `  ratio p50 ${(created.p50 / baseline.steps.create.p50).toFixed(2)}×, p99 ${(created.p99 / baseline.steps.create.p99).toFixed(2)}×`,
);
await infra.stop();
