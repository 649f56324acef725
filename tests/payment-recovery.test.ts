// Crash recovery of payments and refunds: the worker process is killed (SIGKILL) in the middle of a
// charge (the sandbox's timeout token: the charge is booked, its answer never comes back) and in the
// middle of a refund (the gateway's refund blocked on its charge's row); a new worker process resumes
// each, and each reached the gateway exactly once (one sandbox_gateway_operation row per key, one refund
// taken from the charge).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentAttempt } from '../db/entities/PaymentAttempt.js';
import { tenantEm, type MikroORM } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { loadConfig } from '../platform/config.js';
import { refundWorkflowId, type RefundWorkflowResult } from '../workflows/refund.messages.js';
import type { paymentWorkflow } from '../workflows/payment.js';
import { startRefund } from '../api/shared/payment-commands.js';
import { connectOrm } from '../composition/orm.js';
import { paymentGatewaysFor } from '../composition/payment-gateways.js';
import { seedTenant } from '../composition/seed.js';
import { uniqueTenant } from './support/stack.js';
import {
  billAndPay,
  commandContext,
  openInvoice,
  payingCustomer,
  type FinanceBackend,
} from './support/payments.js';
import { startWorkerProcess as startWorkerProcessOf, killWorkerProcess } from './support/worker-process.js';

let orm: MikroORM;
let seed: SeededTenant;
let connection: Connection;
let client: Client;
let finance: FinanceBackend;
const taskQueue = `payment-recovery-${randomBytes(3).toString('hex')}`;
const workers: ChildProcess[] = [];
/** Sessions holding a row lock, released at the end whatever happened. */
const holders: ReturnType<MikroORM['em']['fork']>[] = [];

/** Starts `composition/worker-main.ts` as its own process and resolves once it polls the task queue. */
async function startWorkerProcess(): Promise<ChildProcess> {
  return startWorkerProcessOf(
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      // Its starters pick up this suite's tenant only, not the tenants of suites running beside it.
      WORKER_STARTER_TENANTS: seed.tenant,
      // The timeout token's first call hangs this long: long enough to be killed in the middle of it.
      SANDBOX_GATEWAY_TIMEOUT_MS: '120000',
    },
    workers,
  );
}

const kill = killWorkerProcess;

/** Polls until `probe` answers something truthy. */
async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The sandbox's book rows whose key starts with `prefix`. */
const sql = <Row>(text: string, params: unknown[]) =>
  orm.em.fork().getConnection().execute<Row[]>(text, params);
const operationsUnder = (prefix: string) =>
  sql<{ idempotency_key: string; kind: string; status: string }>(
    `select idempotency_key, kind, status from sandbox_gateway_operation where idempotency_key like ? order by id`,
    [`${prefix}%`],
  );

beforeAll(async () => {
  orm = await connectOrm(process.env.DATABASE_URL!, { pool: { min: 0, max: 4 } });
  seed = await seedTenant(orm.em, uniqueTenant('payrec'), 'Payment Recovery');
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: 'default' });
  finance = {
    orm,
    tenant: seed.tenant,
    client,
    taskQueue,
    paymentGateways: paymentGatewaysFor(orm, loadConfig()),
  };
}, 120_000);

afterAll(async () => {
  for (const holder of holders) await holder.rollback().catch(() => undefined);
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await connection?.close();
  await orm?.close();
});

let secondWorker: ChildProcess;
let paidInvoiceId: number;
let paidCharge: string;

test('a worker killed while the gateway holds a charge: the new worker gets the same charge, one attempt', async () => {
  const first = await startWorkerProcess();
  const customer = await payingCustomer(finance, seed.customerIds[0]!, 'tok_sandbox_timeout');
  const invoice = await openInvoice(finance, customer, ['19.90']);
  const payment = await billAndPay(finance, invoice.id);
  // The charge is booked at the gateway and its answer is held back: the activity waits on it.
  const [booked] = await eventually(async () => {
    const rows = await operationsUnder(`${payment.workflowId}/`);
    return rows.some((row) => row.status === 'SUCCEEDED') && rows;
  }, 'the charge at the gateway');
  expect(booked).toMatchObject({ kind: 'CHARGE', status: 'SUCCEEDED' });
  // The local first charge gives up on the gateway after its bound, and the charge activity that takes it
  // over gets the booked charge at once: the attempt's row, held here, keeps it from recording it, so the
  // worker dies with the charge unrecorded whichever of the two holds it.
  const holder = orm.em.fork();
  await holder.begin();
  holders.push(holder);
  await holder.execute(`select id from payment_attempt where idempotency_key like ? for update`, [
    `${payment.workflowId}/%`,
  ]);
  expect((await tenantEm(orm, seed.tenant).findOneOrFail(Payment, payment.id)).state).toBe('IN_PAYMENT');
  await kill(first);
  await holder.rollback();

  secondWorker = await startWorkerProcess();
  const handle = client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
  expect(await handle.result()).toMatchObject({ state: 'PAID', attemptCount: 1 });

  const em = tenantEm(orm, seed.tenant);
  const attempts = await em.find(PaymentAttempt, { payment: payment.id });
  expect(attempts.map((a) => [a.number, a.state])).toEqual([[1, 'SUCCEEDED']]);
  // Exactly one charge at the gateway: the retried activity re-sent the same key.
  const operations = await operationsUnder(`${payment.workflowId}/`);
  expect(operations).toEqual([
    { idempotency_key: attempts[0]!.idempotencyKey, kind: 'CHARGE', status: 'SUCCEEDED' },
  ]);
  const paid = await em.findOneOrFail(Payment, payment.id);
  expect(paid.gatewayReference).toMatch(/^ch_sandbox_/);
  expect((await em.findOneOrFail(Invoice, invoice.id)).state).toBe('PAID');
  paidInvoiceId = invoice.id;
  paidCharge = paid.gatewayReference!;
}, 240_000);

test('a worker killed while the gateway refunds: the new worker finishes the refund, taken once', async () => {
  const em = tenantEm(orm, seed.tenant);
  const invoice = await em.findOneOrFail(Invoice, paidInvoiceId);
  const [line] = await em.find(InvoiceLine, { invoice: invoice.id });
  // Another session holds the charge's row at the gateway: the refund blocks inside the gateway's call.
  const holder = orm.em.fork();
  await holder.begin();
  holders.push(holder);
  await holder.execute(`select id from sandbox_gateway_operation where reference = ? for update`, [
    paidCharge,
  ]);
  const refunding = await startRefund(commandContext(finance), invoice, {
    reason: 'recovery test',
    items: [{ lineItemId: line!.id, amount: '19.90' }],
    requestedBy: 'operator:recovery-test',
  });
  const workflowId = refundWorkflowId(seed.tenant, refunding.id);
  await eventually(
    async () => (await operationsUnder(`${workflowId}/`)).length > 0,
    'the refund at the gateway',
  );
  await kill(secondWorker);
  await holder.rollback();

  await startWorkerProcess();
  const result: RefundWorkflowResult = await client.workflow.getHandle(workflowId).result();
  expect(result.state).toBe('REFUNDED');
  const operations = await operationsUnder(`${workflowId}/`);
  expect(operations).toEqual([expect.objectContaining({ kind: 'REFUND', status: 'SUCCEEDED' })]);
  // The charge gave the money back once.
  const [charge] = await sql<{ refunds: Record<string, string> }>(
    `select outcome->'refunds' as refunds from sandbox_gateway_operation where reference = ?`,
    [paidCharge],
  );
  expect(Object.values(charge!.refunds)).toEqual(['1990']);
  const fresh = tenantEm(orm, seed.tenant);
  expect((await fresh.findOneOrFail(Invoice, invoice.id)).state).toBe('REFUNDED');
  const refund = await fresh.findOneOrFail(Invoice, refunding.id);
  expect(refund).toMatchObject({ state: 'IS_REFUND', totalGross: '-19.90' });
  expect(refund.settledAt).toBeInstanceOf(Date);
}, 240_000);
