// Subscription renewals through the real stack.
// 1. A year of monthly renewals of one subscription on the time-skipping test server (real activities,
//    PostgreSQL, the sandbox gateway; the payment workflow as the child of each renewal): goal < 5 s.
// 2. N subscriptions (default 1,000) renewing at the same instant on the Temporal dev server: each renewal
//    is the charge (invoice, bill, payment row), the payment workflow (its attempt at the sandbox gateway),
//    the period recorded with its vouchers, and continue-as-new. Renewals per second from that instant
//    until the last one committed, beside bare Temporal running a workflow of the same shape (sleep to
//    the instant, activity, child workflow with one activity, activity, continue-as-new) in the same run.
// Usage: npm run bench:subscriptions [-- count]
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { Customer } from '../db/entities/Customer.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { UserSubscription } from '../db/entities/UserSubscription.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { createPlan, subscribeAt, subscriptionWhen } from '../tests/support/subscriptions.js';
import { cpuSnapshot, cpuSpent } from './process-cpu.js';
import {
  BASELINE_RENEWAL_WORKFLOW_TYPE,
  type BaselineRenewalActivities,
} from './subscription-baseline.workflows.js';

process.env.LOG_LEVEL ??= 'warn';
const count = Math.max(1, Number(process.argv[2] ?? 1000));
const DAY = 86_400_000;

const infra = await startThrowawayInfrastructure({ temporalStore: 'sqlite-file' });

/** Runs `work` over `items` with at most `lanes` at once. */
async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** 1. A year of monthly renewals on the time-skipping server. */
async function yearUnderTimeSkipping(): Promise<{ seconds: number; renewals: number }> {
  const backend = await startTestBackend({ timeSkipping: true });
  try {
    const target = {
      orm: backend.orm,
      tenant: backend.seed.tenant,
      client: backend.client,
      taskQueue: backend.taskQueue,
    };
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const customer = em.create(Customer, {
      email: 'year@bench.example.com',
      firstName: 'Bench',
      lastName: 'Year',
    });
    em.create(PaymentSource, {
      customer,
      businessUnit: backend.seed.businessUnitId,
      type: 'CARD',
      provider: 'sandbox',
      providerReference: 'tok_sandbox_visa',
      label: 'Visa •••• 4242',
      isDefault: true,
    });
    await em.flush();
    const plan = await createPlan(target, backend.seed.businessUnitId, backend.seed.branchId);
    const started = performance.now();
    const now = await backend.testEnv!.currentTimeMs();
    const sub = await subscribeAt(target, customer.id, plan, backend.seed.branchId, new Date(now));
    let row = await subscriptionWhen(target, sub.id, (r) => r.currentPeriod === 1);
    for (let n = 2; n <= 13; n++) {
      const at = await backend.testEnv!.currentTimeMs();
      await backend.testEnv!.sleep(Math.max(1, row.validUntil!.getTime() + 1000 - at));
      row = await subscriptionWhen(target, sub.id, (r) => r.currentPeriod === n);
    }
    return { seconds: (performance.now() - started) / 1000, renewals: 12 };
  } finally {
    await backend.stop();
  }
}

interface BurstResult {
  renewals: number;
  seconds: number;
  /** Renewals committed by 50 %, 99 % and 100 % of the burst, seconds after the instant. */
  p50: number;
  p99: number;
  cpu: ReturnType<typeof cpuSpent>;
  /** Seconds the set-up (rows, workflows, purchases) took before the instant. */
  setup: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

/** 2a. N subscriptions on the dev server, their first period free, all renewing at one instant. */
async function fleetflowBurst(): Promise<BurstResult> {
  const backend = await startTestBackend({});
  try {
    const target = {
      orm: backend.orm,
      tenant: backend.seed.tenant,
      client: backend.client,
      taskQueue: backend.taskQueue,
    };
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const customers: Customer[] = [];
    for (let i = 0; i < count; i++) {
      const customer = em.create(Customer, {
        email: `burst-${i}@bench.example.com`,
        firstName: 'Bench',
        lastName: `${i}`,
      });
      em.create(PaymentSource, {
        customer,
        businessUnit: backend.seed.businessUnitId,
        type: 'CARD',
        provider: 'sandbox',
        providerReference: 'tok_sandbox_visa',
        label: 'Visa •••• 4242',
        isDefault: true,
      });
      customers.push(customer);
    }
    await em.flush();
    // The first period is free (no payment), so the set-up is quick; the renewal charges 9.99.
    const plan = await createPlan(target, backend.seed.businessUnitId, backend.seed.branchId, {
      interval: 'DAILY',
      initialPrice: '0',
      initialIterations: 1,
    });
    const setupStarted = Date.now();
    const leadMs = Math.max(60_000, count * 120);
    const renewAtMs = Date.now() + leadMs;
    const ids: number[] = [];
    await inLanes(customers, 16, async (customer) => {
      const sub = await subscribeAt(
        target,
        customer.id,
        plan,
        backend.seed.branchId,
        new Date(renewAtMs - DAY),
      );
      ids.push(sub.id);
    });
    const purchased = async () =>
      em.fork().count(UserSubscription, { id: { $in: ids }, currentPeriod: { $gte: 1 } });
    while ((await purchased()) < count) {
      if (Date.now() > renewAtMs) throw new Error('the purchases did not finish before the renewal instant');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const setup = (Date.now() - setupStarted) / 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, renewAtMs - Date.now())));
    const cpuBefore = cpuSnapshot();
    const done: number[] = [];
    const seen = new Set<number>();
    for (;;) {
      const rows = await em
        .fork()
        .find(
          UserSubscription,
          { id: { $in: ids }, currentPeriod: 2 },
          { fields: ['id', 'periodStartedAt', 'updatedAt'] },
        );
      const now = Date.now();
      for (const row of rows) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        done.push((now - renewAtMs) / 1000);
      }
      if (seen.size >= count) break;
      if (now - renewAtMs > 30 * 60_000)
        throw new Error(`only ${seen.size} of ${count} renewed in 30 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cpu = cpuSpent(cpuBefore, cpuSnapshot());
    for (const id of ids)
      await backend.client.workflow
        .getHandle(`subscription:${backend.seed.tenant}:${id}`)
        .terminate('bench over');
    done.sort((a, b) => a - b);
    return {
      renewals: count,
      seconds: done[done.length - 1]!,
      p50: quantile(done, 0.5),
      p99: quantile(done, 0.99),
      cpu,
      setup,
    };
  } finally {
    await backend.stop();
  }
}

/** 2b. N workflows of the same shape on bare Temporal, renewing at one instant. */
async function baselineBurst(): Promise<BurstResult> {
  const taskQueue = `baseline-renewals-${randomBytes(3).toString('hex')}`;
  const activities: BaselineRenewalActivities = {
    chargePeriod: async (period) => period,
    chargeAttempt: async () => 'SUCCEEDED',
    recordPeriod: async () => undefined,
  };
  const workerConnection = await NativeConnection.connect({ address: infra.temporalAddress });
  const clientConnection = await Connection.connect({ address: infra.temporalAddress });
  const client = new Client({ connection: clientConnection, namespace: 'default' });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./subscription-baseline.workflows.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    }),
    activities,
    maxConcurrentActivityTaskExecutions: 100, // as createFleetflowWorker
  });
  const running = worker.run();
  try {
    const setupStarted = Date.now();
    const renewAtMs = Date.now() + Math.max(30_000, count * 40);
    const indexes = Array.from({ length: count }, (_, i) => i);
    const handles: Awaited<ReturnType<typeof client.workflow.start>>[] = [];
    await inLanes(indexes, 16, async (i) => {
      handles.push(
        await client.workflow.start(BASELINE_RENEWAL_WORKFLOW_TYPE, {
          workflowId: `${taskQueue}:${i}`,
          taskQueue,
          args: [{ renewAtMs }],
        }),
      );
    });
    const setup = (Date.now() - setupStarted) / 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, renewAtMs - Date.now())));
    const cpuBefore = cpuSnapshot();
    const done: number[] = [];
    await Promise.all(
      handles.map(async (handle) => {
        await handle.result();
        done.push((Date.now() - renewAtMs) / 1000);
      }),
    );
    const cpu = cpuSpent(cpuBefore, cpuSnapshot());
    done.sort((a, b) => a - b);
    return {
      renewals: count,
      seconds: done[done.length - 1]!,
      p50: quantile(done, 0.5),
      p99: quantile(done, 0.99),
      cpu,
      setup,
    };
  } finally {
    worker.shutdown();
    await running;
    await clientConnection.close();
    await workerConnection.close();
  }
}

const year = await yearUnderTimeSkipping();
const fleetflow = await fleetflowBurst();
const baseline = await baselineBurst();
const rate = (result: BurstResult) => result.renewals / result.seconds;
const cpuPer = (result: BurstResult) =>
  `CPU per renewal: this process ${((result.cpu['bench process'] * 1000) / result.renewals).toFixed(1)} ms, Temporal ${((result.cpu['Temporal server'] * 1000) / result.renewals).toFixed(1)} ms, PostgreSQL ${((result.cpu.PostgreSQL * 1000) / result.renewals).toFixed(1)} ms`;
console.log(`subscription bench, Node ${process.version}, Temporal dev server on a SQLite file with WAL\n`);
console.log(
  `  a year of monthly renewals (12) under time skipping: ${year.seconds.toFixed(2)} s (goal < 5 s: ${year.seconds < 5 ? 'met' : 'NOT met'})`,
);
console.log(`  ${count} subscriptions renewing at one instant:`);
for (const [name, result] of [
  ['fleetflow    ', fleetflow],
  ['bare Temporal', baseline],
] as const)
  console.log(
    `    ${name}  ${rate(result).toFixed(1)} renewals/s   all in ${result.seconds.toFixed(1)} s   p50 ${result.p50.toFixed(1)} s   p99 ${result.p99.toFixed(1)} s   (set-up ${result.setup.toFixed(0)} s; ${cpuPer(result)})`,
  );
console.log(`  fleetflow / bare: ${((rate(fleetflow) / rate(baseline)) * 100).toFixed(0)}%`);
await infra.stop();
