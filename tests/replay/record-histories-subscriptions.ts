// Records the user subscription workflow's histories for the replay tests (see record-histories.ts): one
// run each, as each period is one run (continue-as-new): the purchase, a renewal, a renewal declined then
// paid on the payment's retry, a delayed switch (reverted, asked again, taking effect at the period's
// end), an immediate switch, auto-renewal off until EXPIRED, and a cancel with cancelBenefits.
import type { WorkflowHandle } from '@temporalio/client';
import { tenantEm } from '../../db/orm.js';
import {
  cancelAutoRenewalUpdate,
  cancelSubscriptionUpdate,
  revertSwitchUpdate,
  switchSubscriptionUpdate,
} from '../../workflows/subscription.messages.js';
import type { subscriptionWorkflow } from '../../workflows/subscription.js';
import { UserSubscription } from '../../db/entities/UserSubscription.js';
import { addDefaultSource, payingCustomer, type FinanceBackend } from '../support/payments.js';
import { startTestBackend, type TestBackend } from '../support/stack.js';
import {
  createPlan,
  firstRunIds,
  subscribeAt,
  subscriptionWhen,
  type SubscriptionBackend,
} from '../support/subscriptions.js';
import { recordHistory } from './history-files.js';
import { DAY, group, MINUTE } from './recording.js';

group('subscription workflow', () => {
  let backend: TestBackend;
  let finance: FinanceBackend & SubscriptionBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
    finance = {
      orm: backend.orm,
      tenant: backend.seed.tenant,
      client: backend.client,
      taskQueue: backend.taskQueue,
      paymentGateways: backend.paymentGateways,
    };
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  type Handle = WorkflowHandle<typeof subscriptionWorkflow>;

  /** A subscription bought now on a fresh visa customer, at period 1; its handle and customer. */
  async function subscribed(fields: Parameters<typeof createPlan>[3] = {}) {
    const plan = await createPlan(finance, backend.seed.businessUnitId, backend.seed.branchId, fields);
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
    const now = await backend.testEnv!.currentTimeMs();
    const row = await subscribeAt(finance, customer.id, plan, backend.seed.branchId, new Date(now));
    await subscriptionWhen(finance, row.id, (r) => r.currentPeriod === 1);
    const handle: Handle = backend.client.workflow.getHandle(row.workflowId);
    return { row, handle, customerId: customer.id };
  }

  /** The run in progress now (records once the next period continued it as new). */
  const currentRun = async (handle: Handle): Promise<Handle> =>
    backend.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId);

  /** Skips test-server time past the subscription's current period end. */
  async function pastPeriodEnd(id: number, extraMs = 1000): Promise<void> {
    const row = await tenantEm(backend.orm, backend.seed.tenant).findOneOrFail(UserSubscription, id, {
      refresh: true,
    });
    const now = await backend.testEnv!.currentTimeMs();
    await backend.testEnv!.sleep(Math.max(1, row.validUntil!.getTime() + extraMs - now));
  }

  test('the purchase, then a renewal', async () => {
    const { row, handle } = await subscribed({ interval: 'WEEKLY' });
    // The first run closed with the purchase (continue-as-new).
    await recordHistory(
      'subscription-purchase',
      backend.client.workflow.getHandle(row.workflowId, firstRunIds.get(row.id)!),
    );
    const renewing = await currentRun(handle);
    await pastPeriodEnd(row.id);
    await subscriptionWhen(finance, row.id, (r) => r.currentPeriod === 2);
    await recordHistory('subscription-renewal', renewing);
    await handle.executeUpdate(cancelSubscriptionUpdate, {
      args: [{ requestedBy: 'replay', cancelBenefits: false }],
    });
  });

  test('a renewal declined, then paid on the payment’s retry', async () => {
    const { row, handle, customerId } = await subscribed({ interval: 'WEEKLY' });
    await addDefaultSource(finance, customerId, 'tok_sandbox_insufficient_funds_once');
    const run = await currentRun(handle);
    await pastPeriodEnd(row.id, 2 * MINUTE);
    await subscriptionWhen(finance, row.id, (r) => r.autoRenewal === 'FAILED');
    await pastPeriodEnd(row.id, DAY + MINUTE);
    await subscriptionWhen(finance, row.id, (r) => r.currentPeriod === 2);
    await recordHistory('subscription-renewal-retried', run);
    await handle.executeUpdate(cancelSubscriptionUpdate, {
      args: [{ requestedBy: 'replay', cancelBenefits: false }],
    });
  });

  test('a delayed switch, reverted, asked again and taking effect at the period’s end', async () => {
    const target = await createPlan(finance, backend.seed.businessUnitId, backend.seed.branchId, {
      price: '19.00',
    });
    const { row, handle } = await subscribed();
    const run = await currentRun(handle);
    const request = { requestedBy: 'replay', voucherableId: target.id, mode: 'DELAYED' as const };
    await handle.executeUpdate(switchSubscriptionUpdate, { args: [request] });
    await handle.executeUpdate(revertSwitchUpdate, { args: [{ requestedBy: 'replay' }] });
    await handle.executeUpdate(switchSubscriptionUpdate, { args: [request] });
    await pastPeriodEnd(row.id);
    await subscriptionWhen(finance, row.id, (r) => r.state === 'SWITCHED');
    await recordHistory('subscription-delayed-switch', run);
    await handle.executeUpdate(cancelSubscriptionUpdate, {
      args: [{ requestedBy: 'replay', cancelBenefits: false }],
    });
  });

  test('an immediate switch', async () => {
    const target = await createPlan(finance, backend.seed.businessUnitId, backend.seed.branchId, {
      interval: 'YEARLY',
      price: '99.00',
    });
    const { row, handle } = await subscribed();
    const run = await currentRun(handle);
    await handle.executeUpdate(switchSubscriptionUpdate, {
      args: [{ requestedBy: 'replay', voucherableId: target.id, mode: 'IMMEDIATE' }],
    });
    await subscriptionWhen(finance, row.id, (r) => r.state === 'SWITCHED');
    await recordHistory('subscription-immediate-switch', run);
    await handle.executeUpdate(cancelSubscriptionUpdate, {
      args: [{ requestedBy: 'replay', cancelBenefits: false }],
    });
  });

  test('auto-renewal off until EXPIRED; a cancel with cancelBenefits', async () => {
    const expiring = await subscribed({ interval: 'DAILY' });
    await expiring.handle.executeUpdate(cancelAutoRenewalUpdate, { args: [{ requestedBy: 'replay' }] });
    await pastPeriodEnd(expiring.row.id);
    await subscriptionWhen(finance, expiring.row.id, (r) => r.state === 'EXPIRED');
    await recordHistory('subscription-expired', await currentRun(expiring.handle));
    const cancelled = await subscribed();
    await cancelled.handle.executeUpdate(cancelSubscriptionUpdate, {
      args: [{ requestedBy: 'replay', cancelBenefits: true }],
    });
    await subscriptionWhen(finance, cancelled.row.id, (r) => r.state === 'CANCELLED');
    await recordHistory('subscription-cancelled', await currentRun(cancelled.handle));
  });
});
