// The user subscription workflow on the time-skipping test server with real activities, PostgreSQL and
// the sandbox gateway: a year of monthly renewals across 31 January and 29 February (one invoice and one
// set of vouchers per period, continue-as-new each period), a renewal whose payment is declined (auto-
// renewal FAILED) and succeeds on the payment's retry, a hard decline ending the subscription with its
// period, a delayed switch (reverted, then taking effect at the period's end) and an immediate one, and
// cancel with and without cancelBenefits.
import { Client, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { Invoice } from '../db/entities/Invoice.js';
import { UserSubscriptionPeriod } from '../db/entities/UserSubscriptionPeriod.js';
import { Voucher } from '../db/entities/Voucher.js';
import { tenantEm } from '../db/orm.js';
import { periodVoucherReference } from '../domain/subscription.js';
import {
  cancelAutoRenewalUpdate,
  cancelSubscriptionUpdate,
  revertSwitchUpdate,
  subscriptionStatusQuery,
  switchSubscriptionUpdate,
  type SubscriptionWorkflowSnapshot,
} from '../workflows/subscription.messages.js';
import type { subscriptionWorkflow } from '../workflows/subscription.js';
import { startTestBackend, type TestBackend } from './support/stack.js';
import { addDefaultSource, payingCustomer, type FinanceBackend, financeOf } from './support/payments.js';
import {
  createPlan,
  subscribeAt,
  subscriptionWhen,
  type SubscriptionBackend,
} from './support/subscriptions.js';

let backend: TestBackend;
let finance: FinanceBackend & SubscriptionBackend;
const DAY = 86_400_000;

beforeAll(async () => {
  backend = await startTestBackend({ timeSkipping: true });
  finance = financeOf(backend);
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

const em = () => tenantEm(finance.orm, finance.tenant);
const unit = () => backend.seed.businessUnitId;
const branch = () => backend.seed.branchId;
const customer = async (token: string) =>
  (await payingCustomer(finance, backend.seed.customerIds[0]!, token)).id;
const handleOf = (workflowId: string) =>
  backend.client.workflow.getHandle<typeof subscriptionWorkflow>(workflowId);
const vouchersOf = (id: number, period: number) =>
  em().find(Voucher, { sourceKind: 'SUBSCRIPTION', sourceReference: periodVoucherReference(id, period) });
const periodsOf = (id: number) =>
  em().find(
    UserSubscriptionPeriod,
    { userSubscription: id },
    { orderBy: { id: 'asc' }, populate: ['payment'] },
  );

/**
 * Sends an Update to the subscription's current run. Each new period continues the workflow as new; the
 * time-skipping test server answers an Update that meets that hand-over "Completed workflow" (the real
 * server moves it to the new run), so it is sent again while the workflow still runs.
 */
async function update<Arg>(
  handle: WorkflowHandle<typeof subscriptionWorkflow>,
  definition: UpdateDefinition<SubscriptionWorkflowSnapshot, [Arg]>,
  arg: Arg,
): Promise<SubscriptionWorkflowSnapshot> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.executeUpdate(definition, { args: [arg] });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError) || attempt >= 50) throw error;
      if ((await handle.describe()).status.name !== 'RUNNING') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Skips test-server time to `atMs` (plus a second), never backwards. */
async function skipTo(atMs: number): Promise<void> {
  const now = await backend.testEnv!.currentTimeMs();
  if (atMs + 1000 > now) await backend.testEnv!.sleep(atMs + 1000 - now);
}

/** Waits until the workflow is idle (no step in progress, no charge awaited). */
async function idle(handle: WorkflowHandle<typeof subscriptionWorkflow>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const snapshot = await handle.query(subscriptionStatusQuery);
    if (!snapshot.operationInProgress && !snapshot.charge) return snapshot;
    if (Date.now() > deadline) throw new Error(`subscription busy: ${JSON.stringify(snapshot)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a year of monthly renewals across 31 January and 29 February (Berlin): one invoice and one set of vouchers per period', async () => {
  const plan = await createPlan(finance, unit(), branch(), { initialPrice: '1.00', initialIterations: 2 });
  const anchor = new Date('2028-01-31T09:00:00Z'); // 10:00 in Berlin
  const sub = await subscribeAt(finance, await customer('tok_sandbox_visa'), plan, branch(), anchor);
  let row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 1);
  const validUntil = [row.validUntil!.toISOString()];
  for (let n = 2; n <= 13; n++) {
    await skipTo(row.validUntil!.getTime());
    row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === n);
    validUntil.push(row.validUntil!.toISOString());
  }
  expect(validUntil).toEqual([
    '2028-02-29T09:00:00.000Z',
    '2028-03-31T08:00:00.000Z', // 10:00 CEST
    '2028-04-30T08:00:00.000Z',
    '2028-05-31T08:00:00.000Z',
    '2028-06-30T08:00:00.000Z',
    '2028-07-31T08:00:00.000Z',
    '2028-08-31T08:00:00.000Z',
    '2028-09-30T08:00:00.000Z',
    '2028-10-31T09:00:00.000Z', // 10:00 CET again
    '2028-11-30T09:00:00.000Z',
    '2028-12-31T09:00:00.000Z',
    '2029-01-31T09:00:00.000Z',
    '2029-02-28T09:00:00.000Z',
  ]);
  expect(row).toMatchObject({ state: 'RENEWING', autoRenewal: 'ACTIVE' });
  const periods = await periodsOf(sub.id);
  expect(periods.map((p) => [p.number, p.kind, p.state, p.price])).toEqual(
    Array.from({ length: 13 }, (_, i) => [
      i + 1,
      i === 0 ? 'PURCHASE' : 'RENEWAL',
      'PAID',
      i < 2 ? '1.00' : '9.99',
    ]),
  );
  const invoices = await em().find(Invoice, { id: { $in: periods.map((p) => p.invoice!.id) } });
  expect(invoices).toHaveLength(13);
  expect(invoices.every((invoice) => invoice.state === 'PAID')).toBe(true);
  expect(row.latestInvoice?.id).toBe(periods[12]!.invoice!.id);
  for (const n of [1, 7, 13]) {
    const vouchers = await vouchersOf(sub.id, n);
    expect(vouchers).toHaveLength(2);
    expect(vouchers[0]!.validUntil!.toISOString()).toBe(validUntil[n - 1]);
  }
  // Continue-as-new each period: the current run's history holds one period.
  const handle = handleOf(row.workflowId);
  const history = await handle.fetchHistory();
  expect(history.events!.length).toBeLessThan(60);
  // Auto-renewal off: the period runs out, then EXPIRED (the workflow ends).
  await update(handle, cancelAutoRenewalUpdate, { requestedBy: 'test' });
  await skipTo(row.validUntil!.getTime());
  row = await subscriptionWhen(finance, sub.id, (r) => r.state === 'EXPIRED');
  expect(row.autoRenewal).toBe('INACTIVE');
  expect((await periodsOf(sub.id)).length).toBe(13);
}, 90_000);

test('a declined renewal sets autoRenewal FAILED, keeps the subscription, and recovers on the payment’s retry; a hard decline ends it with its period', async () => {
  const plan = await createPlan(finance, unit(), branch(), { interval: 'WEEKLY', price: '3.00' });
  const customerId = await customer('tok_sandbox_visa');
  const now = await backend.testEnv!.currentTimeMs();
  const sub = await subscribeAt(finance, customerId, plan, branch(), new Date(now));
  let row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 1);
  // The card declines the next charge once (insufficient funds), then pays on the retry a day later.
  await addDefaultSource(finance, customerId, 'tok_sandbox_insufficient_funds_once');
  await skipTo(row.validUntil!.getTime() + 2 * 60_000);
  row = await subscriptionWhen(finance, sub.id, (r) => r.autoRenewal === 'FAILED');
  expect(row).toMatchObject({ state: 'RENEWING', currentPeriod: 1 });
  const waiting = (await periodsOf(sub.id))[1]!;
  expect(waiting).toMatchObject({ kind: 'RENEWAL', state: 'CHARGING', number: 2 });
  expect(waiting.payment!.state).toBe('AWAITING_RETRY');
  expect(await vouchersOf(sub.id, 2)).toHaveLength(0);
  await skipTo(row.validUntil!.getTime() + 1 * DAY + 60_000);
  row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 2);
  expect(row).toMatchObject({ state: 'RENEWING', autoRenewal: 'ACTIVE' });
  expect(await vouchersOf(sub.id, 2)).toHaveLength(2);
  // A stolen card: the renewal fails for good; the subscription ends with its period (EXPIRED, FAILED).
  await addDefaultSource(finance, customerId, 'tok_sandbox_stolen_card');
  await skipTo(row.validUntil!.getTime());
  row = await subscriptionWhen(finance, sub.id, (r) => r.state === 'EXPIRED');
  expect(row).toMatchObject({ autoRenewal: 'FAILED', currentPeriod: 2 });
  expect((await periodsOf(sub.id)).map((p) => p.state)).toEqual(['PAID', 'PAID', 'FAILED']);
  // Period 2's vouchers are kept: a payment problem, not a cancellation.
  expect((await vouchersOf(sub.id, 2)).every((voucher) => voucher.status !== 'CANCELED')).toBe(true);
}, 120_000);

test('a delayed switch: reverted, asked again, taking effect at the period’s end; then an immediate one', async () => {
  const [basic, premium, pro] = [
    await createPlan(finance, unit(), branch(), { price: '5.00' }),
    await createPlan(finance, unit(), branch(), {
      price: '15.00',
      benefits: [{ type: 'FreeMinutes', amount: '120' }],
    }),
    await createPlan(finance, unit(), branch(), { interval: 'WEEKLY', price: '4.00' }),
  ];
  const now = await backend.testEnv!.currentTimeMs();
  const sub = await subscribeAt(finance, await customer('tok_sandbox_visa'), basic, branch(), new Date(now));
  let row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 1);
  const handle = handleOf(row.workflowId);
  const request = { requestedBy: 'test', voucherableId: premium.id, mode: 'DELAYED' as const };
  let snapshot = await update(handle, switchSubscriptionUpdate, request);
  expect(snapshot).toMatchObject({
    state: 'SWITCHING',
    switching: { voucherableId: premium.id, mode: 'DELAYED' },
  });
  snapshot = await update(handle, revertSwitchUpdate, { requestedBy: 'test' });
  expect(snapshot).toMatchObject({ state: 'RENEWING', switching: null });
  await update(handle, switchSubscriptionUpdate, request);
  row = await subscriptionWhen(finance, sub.id, (r) => r.state === 'SWITCHING');
  expect(row.switchingTargetVoucherableId).toBe(premium.id);
  await skipTo(row.validUntil!.getTime());
  row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 2);
  expect(row).toMatchObject({
    state: 'SWITCHED',
    voucherableId: premium.id,
    price: '15.00',
    switchingTargetVoucherableId: null,
  });
  const periods = await periodsOf(sub.id);
  expect(periods.map((p) => [p.voucherableId, p.price])).toEqual([
    [basic.id, '5.00'],
    [premium.id, '15.00'],
  ]);
  expect((await vouchersOf(sub.id, 2)).map((v) => v.freeMinutes)).toEqual([120]);
  // Immediately: charged now on a weekly calendar from now; period 2's vouchers are cancelled.
  await idle(handle);
  const before = await backend.testEnv!.currentTimeMs();
  await update(handle, switchSubscriptionUpdate, {
    requestedBy: 'test',
    voucherableId: pro.id,
    mode: 'IMMEDIATE',
  });
  row = await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 3);
  expect(row).toMatchObject({
    state: 'SWITCHED',
    voucherableId: pro.id,
    interval: 'WEEKLY',
    anchorPeriod: 3,
  });
  expect(row.validUntil!.getTime() - row.anchorAt.getTime()).toBeGreaterThanOrEqual(7 * DAY - 3_600_000);
  expect(row.anchorAt.getTime()).toBeGreaterThanOrEqual(before - 60_000);
  expect((await vouchersOf(sub.id, 2)).every((v) => v.status === 'CANCELED')).toBe(true);
  expect(await vouchersOf(sub.id, 3)).toHaveLength(2);
  await update(handle, cancelSubscriptionUpdate, { requestedBy: 'test', cancelBenefits: false });
}, 120_000);

test('cancel without cancelBenefits keeps the vouchers to their period’s end; with it, they are cancelled', async () => {
  const plan = await createPlan(finance, unit(), branch());
  const now = await backend.testEnv!.currentTimeMs();
  const [kept, dropped] = [
    await subscribeAt(finance, await customer('tok_sandbox_visa'), plan, branch(), new Date(now)),
    await subscribeAt(finance, await customer('tok_sandbox_visa'), plan, branch(), new Date(now)),
  ];
  for (const [sub, cancelBenefits] of [
    [kept, false],
    [dropped, true],
  ] as const) {
    await subscriptionWhen(finance, sub.id, (r) => r.currentPeriod === 1);
    const handle = handleOf(sub.workflowId);
    await idle(handle);
    const snapshot = await update(handle, cancelSubscriptionUpdate, {
      requestedBy: 'operator:test',
      cancelBenefits,
    });
    expect(snapshot).toMatchObject({ state: 'CANCELLED', autoRenewal: 'INACTIVE' });
    // A plain client's result: the time-skipping client's would skip on to other subscriptions' timers.
    const plain = new Client({ connection: backend.testEnv!.connection });
    expect((await plain.workflow.getHandle<typeof subscriptionWorkflow>(sub.workflowId).result()).state).toBe(
      'CANCELLED',
    );
    const statuses = (await vouchersOf(sub.id, 1)).map((v) => v.status);
    expect(statuses).toHaveLength(2);
    expect(statuses.every((s) => (cancelBenefits ? s === 'CANCELED' : s !== 'CANCELED'))).toBe(true);
  }
  // A cancelled subscription refuses further commands with its code.
  await expect(
    handleOf(kept.workflowId).executeUpdate(cancelSubscriptionUpdate, {
      args: [{ requestedBy: 'test', cancelBenefits: true }],
    }),
  ).rejects.toThrow();
}, 120_000);
