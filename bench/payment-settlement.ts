// Payments settled per second through the real stack: POST /back/invoices/{id}/bill (HTTP API →
// PostgreSQL → a payment workflow started on the Temporal dev server) → the worker's charge activity →
// the sandbox gateway (its book in PostgreSQL) → PAID, waited for through the workflow's result. Beside it,
// in alternating rounds on the same dev server, bare Temporal running a workflow of the same shape: one
// workflow per payment, one no-op activity for its one attempt (bench/payment-baseline.workflows.ts).
// Usage: npm run bench:payments [-- seconds concurrency rounds]   (defaults: 60 s per side, 8 concurrent, 3 rounds)
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Customer } from '../db/entities/Customer.js';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { tenantEm } from '../db/orm.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { paymentWorkflowId } from '../workflows/payment.messages.js';
import { startBenchApi } from './api-stack.js';
import { percentile } from './lifecycle-stats.js';
import { cpuSnapshot, cpuSpent, profiledRun, type CpuSnapshot } from './process-cpu.js';
import {
  BASELINE_PAYMENT_WORKFLOW_TYPE,
  type BaselinePaymentActivities,
} from './payment-baseline.workflows.js';

process.env.LOG_LEVEL ??= 'warn';
const durationMs = Number(process.argv[2] ?? 60) * 1000;
const concurrency = Number(process.argv[3] ?? 8);
const rounds = Math.max(1, Number(process.argv[4] ?? 3));
const roundMs = durationMs / rounds;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

interface RoundResult {
  settled: number;
  seconds: number;
  latencies: number[];
  /** CPU seconds spent meanwhile by this process, the Temporal server and PostgreSQL. */
  cpu: CpuSnapshot;
}

/** Runs `body` in `lanes` parallel loops until the round's time is up; measures each settled payment. */
async function lanesFor(lanes: number, body: (lane: number) => Promise<void>): Promise<RoundResult> {
  const latencies: number[] = [];
  const deadline = Date.now() + roundMs;
  const cpuBefore = cpuSnapshot();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (Date.now() < deadline) {
        const begin = performance.now();
        await body(lane);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  return {
    settled: latencies.length,
    seconds: (performance.now() - started) / 1000,
    latencies,
    cpu: cpuSpent(cpuBefore, cpuSnapshot()),
  };
}

const infra = await startThrowawayInfrastructure({ temporalStore: 'sqlite-file' });

/** One round of fleetflow: a fresh backend and tenant, invoices prepared beforehand, billed and settled. */
async function runFleetflow(): Promise<RoundResult> {
  const backend = await startTestBackend({ commandTimeoutMs: 5000 });
  const { base, token, close } = await startBenchApi(backend);
  try {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const unit = await em.findOneOrFail(BusinessUnit, backend.seed.businessUnitId);
    // Enough OPEN invoices for the round (prepared before the clock starts): one customer per lane,
    // each with a sandbox card that pays.
    const perLane = Math.ceil((roundMs / 1000) * 40);
    const invoicesOf: number[][] = [];
    for (let lane = 0; lane < concurrency; lane += 1) {
      const customer = em.create(Customer, {
        email: `payer-${lane}@bench.example.com`,
        firstName: 'Bench',
        lastName: `Payer ${lane}`,
      });
      em.create(PaymentSource, {
        customer,
        businessUnit: unit,
        type: 'CARD',
        provider: 'sandbox',
        providerReference: 'tok_sandbox_visa',
        label: 'Visa •••• 4242',
        isDefault: true,
      });
      const invoices: Invoice[] = [];
      for (let index = 0; index < perLane; index += 1) {
        const invoice = em.create(Invoice, {
          number: `BENCH-${lane}-${index}`,
          type: 'REGULAR',
          state: 'OPEN',
          businessUnit: unit,
          customer,
          title: 'Bench ride',
          currency: unit.currency,
          totalNet: '10.00',
          totalTax: '1.90',
          totalGross: '11.90',
          issuedAt: new Date(),
          idempotencyKey: `bench:${lane}:${index}`,
        });
        em.create(InvoiceLine, {
          invoice,
          position: 1,
          code: 'TIME',
          group: 'TIME',
          description: 'Riding time',
          quantity: '1',
          unit: 'PIECE',
          unitPrice: '11.90',
          net: '10.00',
          tax: '1.90',
          gross: '11.90',
          taxPercentage: '19',
        });
        invoices.push(invoice);
      }
      await em.flush();
      invoicesOf.push(invoices.map((invoice) => invoice.id));
    }
    // BENCH_CPU_PROFILE=file.cpuprofile profiles this process's main thread during the first round.
    return await profiledRun(fleetflowRounds.length === 0 ? process.env.BENCH_CPU_PROFILE : undefined, () =>
      lanesFor(concurrency, async (lane) => {
        const invoiceId = invoicesOf[lane]!.shift();
        if (invoiceId === undefined) throw new Error('the bench ran out of prepared invoices');
        const reply = await fetch(`${base}/back/invoices/${invoiceId}/bill`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        const body = (await reply.json()) as { payments?: { id: number }[] };
        if (reply.status !== 200 || !body.payments?.[0])
          throw new Error(`bill answered ${reply.status}: ${JSON.stringify(body)}`);
        const result = (await backend.client.workflow
          .getHandle(paymentWorkflowId(backend.seed.tenant, body.payments[0].id))
          .result()) as { state: string };
        if (result.state !== 'PAID') throw new Error(`payment ended ${result.state}`);
      }),
    );
  } finally {
    await close();
    await backend.stop();
  }
}

/** One round of bare Temporal: a workflow per payment running one no-op activity, awaited to its result. */
async function runBaseline(): Promise<RoundResult> {
  const taskQueue = `baseline-payments-${randomBytes(3).toString('hex')}`;
  const activities: BaselinePaymentActivities = { charge: async () => 'SUCCEEDED' };
  const workerConnection = await NativeConnection.connect({ address: infra.temporalAddress });
  const clientConnection = await Connection.connect({ address: infra.temporalAddress });
  const client = new Client({ connection: clientConnection, namespace: 'default' });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./payment-baseline.workflows.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    }),
    activities,
    maxConcurrentActivityTaskExecutions: 100, // as createFleetflowWorker
  });
  const running = worker.run();
  let sequence = 0;
  try {
    return await lanesFor(concurrency, async () => {
      sequence += 1;
      await client.workflow.execute(BASELINE_PAYMENT_WORKFLOW_TYPE, {
        workflowId: `${taskQueue}:${sequence}`,
        taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    });
  } finally {
    worker.shutdown();
    await running;
    await clientConnection.close();
    await workerConnection.close();
  }
}

const fleetflowRounds: RoundResult[] = [];
const baselineRounds: RoundResult[] = [];
for (let round = 0; round < rounds; round += 1) {
  fleetflowRounds.push(await runFleetflow());
  baselineRounds.push(await runBaseline());
}
const pool = (results: RoundResult[]) => {
  const latencies = results.flatMap((result) => result.latencies);
  const settled = results.reduce((sum, result) => sum + result.settled, 0);
  const seconds = results.reduce((sum, result) => sum + result.seconds, 0);
  const cpuMs = (group: keyof CpuSnapshot) =>
    (results.reduce((sum, result) => sum + result.cpu[group], 0) * 1000) / Math.max(1, settled);
  return {
    settled,
    throughput: settled / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu: `CPU per payment: this process ${cpuMs('bench process').toFixed(1)} ms, Temporal ${cpuMs('Temporal server').toFixed(1)} ms, PostgreSQL ${cpuMs('PostgreSQL').toFixed(1)} ms`,
  };
};
const fleetflow = pool(fleetflowRounds);
const baseline = pool(baselineRounds);
const ms = (value: number) => `${value.toFixed(0)} ms`;
console.log(
  `payment settlement bench (bill → payment workflow → sandbox gateway → PAID), ${durationMs / 1000} s per side in ${rounds} alternating rounds, ${concurrency} concurrent, Temporal dev server on a SQLite file with WAL, Node ${process.version}\n`,
);
console.log(
  `  fleetflow      ${fleetflow.throughput.toFixed(1)} payments/s   p50 ${ms(fleetflow.p50)}   p99 ${ms(fleetflow.p99)}   (${fleetflow.settled} settled)`,
);
console.log(
  `  bare Temporal  ${baseline.throughput.toFixed(1)} payments/s   p50 ${ms(baseline.p50)}   p99 ${ms(baseline.p99)}   (${baseline.settled} workflows, one no-op activity each)`,
);
console.log(
  `  by round (fleetflow / bare payments/s): ${fleetflowRounds
    .map((run, round) => {
      const bare = baselineRounds[round]!;
      const mine = run.settled / run.seconds;
      const theirs = bare.settled / bare.seconds;
      return `${mine.toFixed(1)} / ${theirs.toFixed(1)} (${(mine / theirs).toFixed(2)}×)`;
    })
    .join(', ')}`,
);
console.log(`  fleetflow ${fleetflow.cpu}\n  bare      ${baseline.cpu}`);
const share = fleetflow.throughput / baseline.throughput;
console.log(`  RSS ${mib(process.memoryUsage().rss)}`);
console.log(
  `\ntarget: payments/s ≥ 60% of bare Temporal: ${(share * 100).toFixed(0)}% ${share >= 0.6 ? 'met' : 'NOT met'}`,
);
await infra.stop();
