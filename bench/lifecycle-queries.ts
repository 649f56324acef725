// Counts the SQL statements of one rental lifecycle (create → START → PARK → DRIVE → END) through the
// real stack, per step, grouped by statement shape, and the CPU each step costs the bench process, the
// Temporal server and PostgreSQL: where the rental lifecycle bench's CPU goes. Lifecycles run one at a
// time, so each statement and CPU second is attributed to its step.
// Usage: npm run bench:lifecycle-queries [-- lifecycles]   (default 5; the first one is a warm-up)
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { benchCustomer, startBenchApi } from './api-stack.js';
import { cpuSnapshot, cpuSpent, type CpuGroup } from './process-cpu.js';
import { lifecycleSteps, type LifecycleStep } from './lifecycle-stats.js';
import { rentalWorkflowId } from '../workflows/rental.messages.js';
import proto from '@temporalio/proto';

process.env.LOG_LEVEL ??= 'warn';
const lifecycles = Number(process.argv[2] ?? 5);

const infra = await startThrowawayInfrastructure({ temporalStore: 'memory' });
const backend = await startTestBackend({ commandTimeoutMs: 5000 });
const { base, token, close: closeApi } = await startBenchApi(backend);
const em = tenantEm(backend.orm, backend.seed.tenant);
const [vehicle] = await em.find(Vehicle, {}, { orderBy: { id: 'asc' }, limit: 1 });
const customerId = await benchCustomer(em, backend.seed.businessUnitId, 'queries');

async function call(method: string, path: string, body?: unknown): Promise<{ id: number }> {
  const response = await fetch(`${base}/back${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { id: number };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

// Every statement reaches PostgreSQL through a `pg` client's query (the ORM's, transaction control
// included, and the prepared statements and row writes that bypass the ORM): count them there.
let current: LifecycleStep | undefined;
const statements = new Map<LifecycleStep, string[]>(lifecycleSteps.map((step) => [step, []]));
const pool = (await backend.orm.em.getConnection().getNativeClient()) as unknown as {
  Client: { prototype: { query(this: unknown, ...args: unknown[]): unknown } };
};
const clientPrototype = pool.Client.prototype;
const query = clientPrototype.query;
clientPrototype.query = function (...args: unknown[]) {
  const [config] = args;
  const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
  if (current && text)
    statements.get(current)!.push(
      text
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/'[^']*'/g, '?')
        .replace(/\$\d+/g, '?')
        .replace(/\b\d+(\.\d+)?\b/g, '?'),
    );
  return query.apply(this, args);
};

// Telemetry of the ride is written by the ingestor in the background: let it settle before each step.
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
// CPU seconds per step and group, from the request until its answer (background work after it, such as
// the workflow's last task after END answered, is not counted), less what the same time costs idle: the
// simulated fleet's telemetry, its ingestion and the worker's polls run all the time.
const cpuGroups: CpuGroup[] = ['bench process', 'Temporal server', 'PostgreSQL'];
const zero = (): Record<CpuGroup, number> => ({
  'bench process': 0,
  'Temporal server': 0,
  PostgreSQL: 0,
  'other children': 0,
});
const idleBefore = cpuSnapshot();
const idleStarted = performance.now();
await new Promise((resolve) => setTimeout(resolve, 5_000));
const idleSpent = cpuSpent(idleBefore, cpuSnapshot());
const idleMs = performance.now() - idleStarted;
const cpu = new Map<LifecycleStep, Record<CpuGroup, number>>();
const run = async (step: LifecycleStep, work: () => Promise<unknown>) => {
  await settle();
  current = step;
  const before = cpuSnapshot();
  const started = performance.now();
  await work();
  const spent = cpuSpent(before, cpuSnapshot());
  const elapsedMs = performance.now() - started;
  const sum = cpu.get(step) ?? zero();
  for (const group of cpuGroups) sum[group] += spent[group] - (idleSpent[group] * elapsedMs) / idleMs;
  cpu.set(step, sum);
  await settle();
  current = undefined;
};
let rentalId = 0;
for (let index = 0; index < lifecycles; index += 1) {
  if (index === 1) {
    // the first one warms up
    for (const list of statements.values()) list.length = 0;
    cpu.clear();
  }
  rentalId = 0;
  await run('create', async () => {
    rentalId = (await call('POST', '/rentals', { guserId: customerId, vehicleId: vehicle!.id })).id;
  });
  for (const operationType of ['START', 'PARK', 'DRIVE', 'END'] as const)
    await run(operationType, async () => {
      if (operationType === 'END') backend.simulator.ride(String(vehicle!.id), 300);
      await call('POST', `/rentals/${rentalId}/operation`, { operationType });
    });
  // The same customer may not rent the same vehicle again at once: move the block out of the way.
  await backend.orm.em
    .fork()
    .execute(`update rental set ended_at = ended_at - interval '1 day' where id = ?`, [rentalId]);
}

// The read cache (db/read-cache.ts) keeps these 2 s; one lifecycle at a time with pauses refills it more
// often than a loaded server does, so the total is also given without them.
const cacheRefills = [
  'select active from api_client',
  'select r.name, r.permissions',
  'select ? as kind, id, parent_id',
  'select id, parent_id, bookable, configuration from vehicle_category',
  'select "s0".* from "setting"',
  'select "c0".* from "compatible_branch"',
  'select "b0".* from "branch"',
  'select "a0".* from "area"',
  // The tenant's geofence templates (db/geofence-pricing.ts): whether it has any, the ACTIVE ones, their units.
  'select exists (select ? from voucherable where tenant_id = ? and type in (?, ?)) as any',
  'select "v0".* from "voucherable" as "v0" where "v0"."tenant_id" = ? and "v0"."status" = ?',
  'select "b0".* from "business_unit"',
];
const measured = Math.max(1, lifecycles - 1);
let total = 0;
let refills = 0;
for (const step of lifecycleSteps) {
  const list = statements.get(step)!;
  total += list.length;
  refills += list.filter((sql) => cacheRefills.some((prefix) => sql.startsWith(prefix))).length;
  console.log(`\n${step}: ${(list.length / measured).toFixed(1)} statements per lifecycle`);
  const counts = new Map<string, number>();
  for (const sql of list) counts.set(sql, (counts.get(sql) ?? 0) + 1);
  for (const [sql, count] of [...counts].sort((a, b) => b[1] - a[1]))
    console.log(`  ${(count / measured).toFixed(1).padStart(5)}  ${sql.slice(0, 220)}`);
}
console.log(
  `\ntotal: ${(total / measured).toFixed(1)} statements per lifecycle, ` +
    `${((total - refills) / measured).toFixed(1)} without read-cache refills`,
);

const ms = (seconds: number) => ((seconds * 1000) / measured).toFixed(1).padStart(6);
console.log(
  `\nCPU per step, ms per lifecycle (${cpuGroups.join(' / ')}; /proc ticks are 10 ms), less idle: ` +
    cpuGroups.map((group) => `${((idleSpent[group] * 1e6) / idleMs).toFixed(0)} ms/s`).join(' / '),
);
const totals = zero();
for (const step of lifecycleSteps) {
  const spent = cpu.get(step)!;
  for (const group of cpuGroups) totals[group] += spent[group];
  console.log(`  ${step.padEnd(7)} ${cpuGroups.map((group) => ms(spent[group])).join(' /')}`);
}
console.log(`  ${'total'.padEnd(7)} ${cpuGroups.map((group) => ms(totals[group])).join(' /')}`);

// What the Temporal server stores for one lifecycle: the last rental's history and its invoice's
// payment's, by event type.
async function printHistory(what: string, workflowId: string): Promise<void> {
  const history = await backend.client.workflow.getHandle(workflowId).fetchHistory();
  const eventTypes = new Map<string, number>();
  const eventBytes = new Map<string, number>();
  for (const event of history.events ?? []) {
    const type = (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '?').replace(
      /^EVENT_TYPE_/,
      '',
    );
    eventTypes.set(type, (eventTypes.get(type) ?? 0) + 1);
    const size = proto.temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
    eventBytes.set(type, (eventBytes.get(type) ?? 0) + size);
  }
  const bytes = proto.temporal.api.history.v1.History.encode(history).finish().length;
  console.log(`
Temporal history of ${what}: ${history.events?.length ?? 0} events, ${bytes} bytes`);
  for (const [type, count] of [...eventTypes].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(count).padStart(3)}  ${type} (${eventBytes.get(type)} bytes)`);
}
await printHistory('one rental workflow', rentalWorkflowId(backend.seed.tenant, rentalId));
const [payment] = await em.getConnection().execute<{ workflow_id: string }[]>(
  `select p.workflow_id from payment p join invoice i on i.tenant_id = p.tenant_id and i.id = p.invoice_id
      where i.tenant_id = ? and i.rental_id = ? order by p.id desc limit 1`,
  [backend.seed.tenant, rentalId],
);
if (payment) {
  // The payment workflow ends after its charge, a moment after END answered.
  await backend.client.workflow.getHandle(payment.workflow_id).result();
  await printHistory("its invoice's payment workflow", payment.workflow_id);
}

await closeApi();
await backend.stop();
await infra.stop();
