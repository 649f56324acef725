// Crash recovery of a renewal on the dev server: the worker process is killed (SIGKILL) while the gateway
// holds the renewal's charge (the sandbox's timeout token: the charge is booked, its answer never comes
// back); a new worker process resumes the payment and the subscription, and the renewal charged once
// (one sandbox operation, one period row, one invoice) and granted one set of vouchers.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { UserSubscriptionPeriod } from '../db/entities/UserSubscriptionPeriod.js';
import { Voucher } from '../db/entities/Voucher.js';
import { tenantEm, type MikroORM } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { periodVoucherReference } from '../domain/subscription.js';
import { loadConfig } from '../platform/config.js';
import { connectOrm } from '../composition/orm.js';
import { paymentGatewaysFor } from '../composition/payment-gateways.js';
import { seedTenant } from '../composition/seed.js';
import { uniqueTenant } from './support/stack.js';
import { addDefaultSource, payingCustomer, type FinanceBackend } from './support/payments.js';
import {
  createPlan,
  subscribeAt,
  subscriptionWhen,
  type SubscriptionBackend,
} from './support/subscriptions.js';
import { killWorkerProcess, startWorkerProcess as startWorkerProcessOf } from './support/worker-process.js';

let orm: MikroORM;
let seed: SeededTenant;
let connection: Connection;
let backend: FinanceBackend & SubscriptionBackend;
const taskQueue = `subscription-recovery-${randomBytes(3).toString('hex')}`;
const workers: ChildProcess[] = [];

const startWorkerProcess = () =>
  startWorkerProcessOf(
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      WORKER_STARTER_TENANTS: seed.tenant,
      // The timeout token's first call hangs this long: long enough to be killed in the middle of it.
      SANDBOX_GATEWAY_TIMEOUT_MS: '120000',
    },
    workers,
  );

beforeAll(async () => {
  orm = await connectOrm(process.env.DATABASE_URL!, { pool: { min: 0, max: 4 } });
  seed = await seedTenant(orm.em, uniqueTenant('subrec'), 'Subscription Recovery');
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  backend = {
    orm,
    tenant: seed.tenant,
    client: new Client({ connection, namespace: 'default' }),
    taskQueue,
    paymentGateways: paymentGatewaysFor(orm, loadConfig()),
  };
}, 120_000);

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await connection?.close();
  await orm?.close();
});

/** Polls until `probe` answers something truthy. */
async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const operationsUnder = (prefix: string) =>
  orm.em
    .fork()
    .getConnection()
    .execute<{ idempotency_key: string; kind: string; status: string }[]>(
      `select idempotency_key, kind, status from sandbox_gateway_operation where idempotency_key like ? order by id`,
      [`${prefix}%`],
    );

test('a worker killed while the gateway holds a renewal’s charge: one charge, one set of vouchers', async () => {
  const first = await startWorkerProcess();
  const plan = await createPlan(backend, seed.businessUnitId, seed.branchId, {
    interval: 'DAILY',
    price: '2.50',
  });
  const customer = await payingCustomer(backend, seed.customerIds[0]!, 'tok_sandbox_visa');
  // Bought a day ago (less 8 seconds): the first period is charged now and ends in 8 seconds.
  const sub = await subscribeAt(
    backend,
    customer.id,
    plan,
    seed.branchId,
    new Date(Date.now() - 86_400_000 + 8_000),
  );
  await subscriptionWhen(backend, sub.id, (row) => row.currentPeriod === 1);
  await addDefaultSource(backend, customer.id, 'tok_sandbox_timeout');
  const em = () => tenantEm(orm, seed.tenant);
  const renewal = await eventually(async () => {
    const period = await em().findOne(
      UserSubscriptionPeriod,
      { userSubscription: sub.id, number: 2 },
      { populate: ['payment'] },
    );
    if (!period?.payment) return null;
    const booked = await operationsUnder(`${period.payment.workflowId}/`);
    return booked.some((row) => row.status === 'SUCCEEDED') && period;
  }, 'the renewal’s charge at the gateway');
  await killWorkerProcess(first);

  await startWorkerProcess();
  const row = await subscriptionWhen(backend, sub.id, (r) => r.currentPeriod === 2, 90_000);
  expect(row).toMatchObject({ state: 'RENEWING' });
  const periods = await em().find(
    UserSubscriptionPeriod,
    { userSubscription: sub.id },
    { orderBy: { id: 'asc' } },
  );
  expect(periods.map((p) => [p.number, p.state])).toEqual([
    [1, 'PAID'],
    [2, 'PAID'],
  ]);
  const operations = await operationsUnder(`${renewal.payment!.workflowId}/`);
  expect(operations).toEqual([expect.objectContaining({ kind: 'CHARGE', status: 'SUCCEEDED' })]);
  const vouchers = await em().find(Voucher, {
    sourceKind: 'SUBSCRIPTION',
    sourceReference: periodVoucherReference(sub.id, 2),
  });
  expect(vouchers).toHaveLength(2);
  await backend.client.workflow.getHandle(sub.workflowId).terminate('test over');
}, 240_000);
