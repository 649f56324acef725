// Pricing bench, two parts, each beside a baseline measured in the same run:
// 1. The engine alone: prices per second of a month-long rental whose phase changes every few minutes
//    (~8,600 phases), in both free-floating modes, beside a naive binary-float sum over the same phases
//    (what the decimal engine costs compared with arithmetic that would be wrong by fractions of a cent).
// 2. The free-floating simulator through the HTTP API (auth, validation, database lookups, engine),
//    p50/p99 latency beside an authenticated endpoint that does no pricing (GET /roles/assignments/exists).
// Usage: npm run bench:pricing [-- requests concurrency]   (defaults: 400 requests, 4 at a time)
import { performance } from 'node:perf_hooks';
import { demoCarRules, demoScooterRules } from '../db/seed/pricing.js';
import { tenantEm } from '../db/orm.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { priceOnDemandRental } from '../domain/pricing-on-demand.js';
import type { PhaseSpan, PricedVersion, PricingRules } from '../domain/pricing.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { startBenchApi } from './api-stack.js';

process.env.LOG_LEVEL ??= 'warn';
const requests = Number(process.argv[2] ?? 400);
const concurrency = Number(process.argv[3] ?? 4);

// ---------------------------------------------------------------------------------------------------
// 1. Engine alone

/** A 30-day rental alternating DRIVING and PARKING every 2 to 8 minutes (deterministic). */
function monthLongRental(): PhaseSpan[] {
  const spans: PhaseSpan[] = [];
  let at = Date.parse('2026-11-01T08:00:00Z');
  const end = at + 30 * 86_400_000;
  let seed = 42;
  while (at < end) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const minutes = 2 + (seed % 7);
    const length = minutes * 60_000 + (seed % 60) * 1000;
    spans.push({
      phase: spans.length % 2 === 0 ? 'DRIVING' : 'PARKING',
      startMs: at,
      endMs: Math.min(end, at + length),
    });
    at += length;
  }
  return spans;
}

const version = (rules: PricingRules): PricedVersion => ({
  ref: { pricingBundleId: 1, pricingBundleVersionId: 1, version: 1, name: 'bench' },
  bundleType: 'ON_DEMAND_LEGACY',
  currency: 'EUR',
  distanceUnit: 'KILOMETER',
  rules,
});
const tax = { taxPercentage: '19.00', scale: 2, currency: 'EUR', timeZoneId: 'Europe/Berlin' };

/** Float baseline: per-minute rate of the first slot times minutes, summed in binary floating point. */
function floatBaseline(spans: readonly PhaseSpan[]): number {
  let total = 0;
  for (const span of spans)
    total += ((span.endMs - span.startMs) / 60_000) * (span.phase === 'DRIVING' ? 0.25 : 0.1);
  return Math.round(total * 100) / 100;
}

function perSecond(work: () => unknown, minimumMs = 2000): { perSecond: number; msEach: number } {
  for (let i = 0; i < 3; i++) work();
  let runs = 0;
  const started = performance.now();
  while (performance.now() - started < minimumMs) {
    work();
    runs += 1;
  }
  const elapsed = performance.now() - started;
  return { perSecond: (runs * 1000) / elapsed, msEach: elapsed / runs };
}

const rental = monthLongRental();
const cumulative = perSecond(() =>
  priceOnDemandRental(version(demoScooterRules), { phases: rental, distance: '830' }, tax),
);
const ending = perSecond(() =>
  priceOnDemandRental(version(demoCarRules), { phases: rental, distance: '830' }, tax),
);
const baseline = perSecond(() => floatBaseline(rental));
const sample = priceOnDemandRental(version(demoScooterRules), { phases: rental, distance: '830' }, tax);

console.log(`pricing bench, Node ${process.version}\n`);
console.log(`1. engine alone: a 30-day rental with ${rental.length} phases (a change every 2-8 minutes)`);
const row = (label: string, figures: { perSecond: number; msEach: number }) =>
  console.log(
    `  ${label.padEnd(46)} ${figures.perSecond.toFixed(0).padStart(9)} prices/s  ${figures.msEach.toFixed(3)} ms each`,
  );
row('CUMULATIVE_TIMESLOTS (decimal.js)', cumulative);
row('ENDING_TIMESLOT (decimal.js)', ending);
row('baseline: float sum over the same phases', baseline);
console.log(`  CUMULATIVE total ${sample.price.total} EUR, ${sample.priceV4.lines.length} lines`);
console.log(
  `  decimal engine / float baseline: ${(baseline.perSecond / cumulative.perSecond).toFixed(1)}x slower\n`,
);

// ---------------------------------------------------------------------------------------------------
// 2. Simulator through the API

const infra = await startThrowawayInfrastructure({});
const backend = await startTestBackend({});
const { base, token, close: closeApi } = await startBenchApi(backend);
const scooters = await tenantEm(backend.orm, backend.seed.tenant).findOneOrFail(VehicleCategory, {
  name: 'E-Scooter',
});
const simulation = JSON.stringify({
  branchId: backend.seed.branchId,
  vehicleCategoryId: scooters.id,
  reservationFreeMinutes: 10,
  reservationPaidMinutes: 3,
  phases: Array.from({ length: 40 }, (_, i) => ({
    phase: i % 2 ? 'PARKING' : 'DRIVING',
    minutes: 3 + (i % 5),
  })),
  distance: '14.2',
});

async function timed(request: () => Promise<Response>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < requests) {
      next += 1;
      const started = performance.now();
      const response = await request();
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`status ${response.status}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return latencies.sort((a, b) => a - b);
}
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const simulate = () =>
  fetch(`${base}/back/pricing-simulator/free-floating`, { method: 'POST', headers, body: simulation });
const plain = () =>
  fetch(
    `${base}/back/roles/assignments/exists?permission=PRICING_READ&businessUnitId=${backend.seed.businessUnitId}`,
    { headers },
  );
await timed(simulate); // warm-up
await timed(plain);
const simulator = await timed(simulate);
const reference = await timed(plain);

console.log(
  `2. through the API: ${requests} requests, ${concurrency} at a time, PostgreSQL and API in this process`,
);
const latencyRow = (label: string, sorted: number[]) =>
  console.log(
    `  ${label.padEnd(58)} p50 ${pct(sorted, 50).toFixed(1).padStart(6)} ms  p99 ${pct(sorted, 99).toFixed(1).padStart(6)} ms`,
  );
latencyRow('POST /pricing-simulator/free-floating (45 phases)', simulator);
latencyRow('baseline: GET /roles/assignments/exists (no pricing)', reference);

await closeApi();
await backend.stop();
await infra.stop();
