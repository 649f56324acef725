// The voucher state keeper (workflows/voucher-states.ts): on the time-skipping server, a run follows the
// workflow's clock, so after skipping two days a PENDING Value voucher becomes ACTIVE with its credit
// written to the balance (and USED_UP: the value is in the wallet) and an ACTIVE voucher past validUntil
// becomes EXPIRED, without any read of the vouchers; a second run moves nothing (idempotent, one credit).
// The per-tenant schedule on the dev server (the time-skipping server implements no Schedules): created by
// the starter for tenants with templates, once, every minute without overlap.
import { Client, Connection } from '@temporalio/client';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { Voucher } from '../db/entities/Voucher.js';
import { Voucherable } from '../db/entities/Voucherable.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { grantVouchersTo } from '../db/voucher-grants.js';
import {
  VOUCHER_STATES_WORKFLOW_TYPE,
  voucherStatesScheduleId,
  type VoucherStatesResult,
} from '../workflows/voucher-states.messages.js';
import { ensureVoucherStateSchedules } from '../workers/voucher-state-starter.js';
import { startTestBackend, type TestBackend } from './support/stack.js';

let backend: TestBackend;
const DAY = 86_400_000;

beforeAll(async () => {
  backend = await startTestBackend({ timeSkipping: true });
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

const em = () => tenantEm(backend.orm, backend.seed.tenant);

/** An ACTIVE template of the seeded business unit with these benefits. */
async function template(benefits: Voucherable['benefits']): Promise<Voucherable> {
  const created = em().create(Voucherable, {
    businessUnitId: backend.seed.businessUnitId,
    branchId: backend.seed.branchId,
    type: 'CustomerCare',
    status: 'ACTIVE',
    name: 'Keeper test',
    currency: 'EUR',
    benefits,
    createdBy: 'test',
  });
  await em().persist(created).flush();
  return created;
}

function grant(voucherableId: number, from: Date, until?: Date): Promise<Voucher[]> {
  return inTenantTransaction(backend.orm, backend.seed.tenant, (tx) =>
    grantVouchersTo(tx, {
      voucherableId,
      owner: { customerId: backend.seed.customerIds[0]! },
      source: { kind: 'OPERATOR', reference: `keeper:${voucherableId}:${from.toISOString()}` },
      validFrom: from,
      validUntil: until ?? null,
    }),
  );
}

test('a run follows the workflow clock: PENDING → ACTIVE with its credit, past validUntil → EXPIRED', async () => {
  const env = backend.testEnv!;
  // A plain client: the time-skipping client's result() would let the server skip on by years.
  const plain = new Client({ connection: env.connection });
  const run = (id: string) =>
    plain.workflow.execute(VOUCHER_STATES_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: backend.taskQueue,
      args: [{ tenant: backend.seed.tenant }],
    }) as Promise<VoucherStatesResult>;
  const now = Date.now();
  const [credit] = await grant((await template([{ type: 'Value', amount: '7.50' }])).id, new Date(now + DAY));
  const [minutes] = await grant(
    (await template([{ type: 'FreeMinutes', amount: '20' }])).id,
    new Date(now - DAY),
    new Date(now + DAY),
  );
  expect([credit!.status, minutes!.status]).toEqual(['PENDING', 'ACTIVE']);

  // Nothing is due yet on the workflow's clock.
  expect((await run('voucher-states-test-early')).moved).toBe(0);

  await env.sleep(2 * DAY);
  const moved = await run('voucher-states-test-due');
  expect(moved.moved).toBe(2);
  const after = async (id: number) => em().findOneOrFail(Voucher, id, { refresh: true });
  const credited = await after(credit!.id);
  expect(credited).toMatchObject({ status: 'USED_UP', remainingValueGross: '0' });
  expect(credited.creditedBalanceId).toEqual(expect.any(Number));
  expect((await after(minutes!.id)).status).toBe('EXPIRED');
  const ledger = () => em().find(BalanceUpdate, { idempotencyKey: `voucher:${credit!.id}:credit` });
  expect((await ledger()).map((row) => row.amount)).toEqual(['7.50']);

  // Idempotent: a later run moves nothing and credits nothing twice.
  expect((await run('voucher-states-test-again')).moved).toBe(0);
  expect(await ledger()).toHaveLength(1);
});

test('the starter gives a tenant with templates its schedule once: every minute, without overlap', async () => {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection, namespace: 'default' });
  const taskQueue = `voucher-states-${backend.seed.tenant}`;
  const tenants = [backend.seed.tenant];
  const schedule = client.schedule.getHandle(voucherStatesScheduleId(backend.seed.tenant));
  try {
    expect(await ensureVoucherStateSchedules(backend.orm, { client, taskQueue }, { tenants })).toBe(1);
    expect(await ensureVoucherStateSchedules(backend.orm, { client, taskQueue }, { tenants })).toBe(0);
    const description = await schedule.describe();
    expect(description.spec.intervals).toMatchObject([{ every: 60_000 }]);
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: VOUCHER_STATES_WORKFLOW_TYPE,
      workflowId: voucherStatesScheduleId(backend.seed.tenant),
      taskQueue,
      args: [{ tenant: backend.seed.tenant }],
    });
  } finally {
    await schedule.delete().catch(() => undefined);
    await connection.close();
  }
});
