// CPU per rental lifecycle under load, split by process, beside the CPU of its cheapest step in the same
// run: 16 lanes loop whole lifecycles (create → START → PARK → DRIVE → END, billed and charged) through the
// HTTP API, then the same lanes loop PARK and DRIVE on started rentals. A PARK or DRIVE (one Update, one
// activity, its device command and rows) is the unit: what a lifecycle costs beyond five of them is where
// creation, END's pricing and invoice, the bill and the payment spend. CPU comes from /proc (this process:
// API, worker, simulator; the Temporal server; PostgreSQL), so a lever can be measured on each of them
// without the throughput bench's run-to-run noise. BENCH_CPU_PROFILE=file.cpuprofile profiles the
// lifecycles' main thread; the bench process's CPU is also split by thread (main, the workflow sandbox,
// the Temporal core, V8's helpers).
// Usage: npm run bench:lifecycle-cpu [-- seconds-per-side lanes]   (defaults 40 s, 16 lanes)
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { benchCustomer, jsonClient, startBenchApi } from './api-stack.js';
import {
  cpuSnapshot,
  cpuSpent,
  profiledRun,
  threadSnapshot,
  threadSpent,
  type CpuGroup,
  type ThreadGroup,
} from './process-cpu.js';

process.env.LOG_LEVEL ??= 'warn';
const sideMs = Number(process.argv[2] ?? 40) * 1000;
const lanes = Number(process.argv[3] ?? 16);

const infra = await startThrowawayInfrastructure({ temporalStore: 'sqlite-file' });
process.env.TEMPORAL_ADDRESS = infra.temporalAddress;
const backend = await startTestBackend({ commandTimeoutMs: 5000 });
const { base, token, close } = await startBenchApi(backend);
const em = tenantEm(backend.orm, backend.seed.tenant);
const vehicles = await em.find(Vehicle, {}, { orderBy: { id: 'asc' }, limit: lanes });
const request = jsonClient(`${base}/back`, token);
const call = async (method: string, path: string, body?: unknown) => {
  const { status, json } = await request(method, path, body);
  if (status >= 400) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`);
  return json as { id: number; state: string };
};
const operate = (rentalId: number, operationType: string) =>
  call('POST', `/rentals/${rentalId}/operation`, { operationType });

// Each lane its own customer (one open rental per customer, a card for the start requirements) and vehicle.
const customers: number[] = [];
for (let lane = 0; lane < vehicles.length; lane += 1) {
  customers.push(await benchCustomer(em, backend.seed.businessUnitId, `cpu-${lane}`));
}
const rent = async (lane: number) =>
  (await call('POST', '/rentals', { guserId: customers[lane], vehicleId: vehicles[lane]!.id })).id;

/** Runs `loop` on every lane for `sideMs`; answers the units done and the CPU they cost per unit. */
async function measured(
  profile: string | undefined,
  loop: (lane: number) => Promise<number>,
): Promise<{
  units: number;
  perSecond: number;
  cpuMs: Record<CpuGroup, number>;
  threadMs: Record<ThreadGroup, number>;
}> {
  const until = Date.now() + sideMs;
  let units = 0;
  const before = cpuSnapshot();
  const threadsBefore = threadSnapshot();
  const startedAt = Date.now();
  await profiledRun(profile, () =>
    Promise.all(
      vehicles.map(async (_vehicle, lane) => {
        while (Date.now() < until) {
          // Not `units += await …`: that reads `units` before the await, losing the other lanes' counts.
          const done = await loop(lane);
          units += done;
        }
      }),
    ),
  );
  const seconds = (Date.now() - startedAt) / 1000;
  const spent = cpuSpent(before, cpuSnapshot());
  const threads = threadSpent(threadsBefore, threadSnapshot());
  const perUnit = (value: number) => (value * 1000) / Math.max(units, 1);
  const cpuMs = Object.fromEntries(
    Object.entries(spent).map(([group, value]) => [group, perUnit(value)]),
  ) as Record<CpuGroup, number>;
  const threadMs = Object.fromEntries(
    Object.entries(threads).map(([group, value]) => [group, perUnit(value)]),
  ) as Record<ThreadGroup, number>;
  return { units, perSecond: units / seconds, cpuMs, threadMs };
}

// Whole lifecycles; a trip worth the name before END, so it prices a distance.
const lifecycles = await measured(process.env.BENCH_CPU_PROFILE, async (lane) => {
  const rentalId = await rent(lane);
  for (const step of ['START', 'PARK', 'DRIVE']) await operate(rentalId, step);
  backend.simulator.ride(String(vehicles[lane]!.id), 300);
  await operate(rentalId, 'END');
  return 1;
});
// PARK and DRIVE on a started rental per lane.
const started = await Promise.all(
  vehicles.map(async (_vehicle, lane) => {
    const rentalId = await rent(lane);
    await operate(rentalId, 'START');
    return rentalId;
  }),
);
const steps = await measured(undefined, async (lane) => {
  await operate(started[lane]!, 'PARK');
  await operate(started[lane]!, 'DRIVE');
  return 2;
});

const groups: CpuGroup[] = ['bench process', 'Temporal server', 'PostgreSQL'];
const total = (cpu: Record<CpuGroup, number>) => groups.reduce((sum, group) => sum + cpu[group], 0);
const split = (cpu: Record<CpuGroup, number>) =>
  `${total(cpu).toFixed(1)} ms: ${groups.map((group) => `${group} ${cpu[group].toFixed(1)}`).join(', ')}`;
console.log(`${lanes} lanes, ${sideMs / 1000} s per side`);
console.log(
  `lifecycles: ${lifecycles.units} (${lifecycles.perSecond.toFixed(2)}/s), CPU per lifecycle ${split(lifecycles.cpuMs)}`,
);
console.log(
  `PARK/DRIVE: ${steps.units} (${steps.perSecond.toFixed(1)}/s), CPU per step ${split(steps.cpuMs)}`,
);
const byThread = (ms: Record<ThreadGroup, number>) =>
  (Object.entries(ms) as [ThreadGroup, number][])
    .map(([group, value]) => `${group} ${value.toFixed(1)}`)
    .join(', ');
console.log(`bench process by thread, per lifecycle: ${byThread(lifecycles.threadMs)}`);
console.log(`bench process by thread, per step: ${byThread(steps.threadMs)}`);
console.log(
  `a lifecycle costs ${(total(lifecycles.cpuMs) / total(steps.cpuMs)).toFixed(1)} steps (bench process ` +
    `${(lifecycles.cpuMs['bench process'] / steps.cpuMs['bench process']).toFixed(1)}, Temporal server ` +
    `${(lifecycles.cpuMs['Temporal server'] / steps.cpuMs['Temporal server']).toFixed(1)}, PostgreSQL ` +
    `${(lifecycles.cpuMs.PostgreSQL / Math.max(steps.cpuMs.PostgreSQL, 0.1)).toFixed(1)})`,
);
await close();
await backend.stop();
await infra.stop();
process.exit(0);
