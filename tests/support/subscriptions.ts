// What the subscription suites, the history recorder and the bench share: a plan (a voucherable of type
// Subscription, ACTIVE, with benefits), a subscription bought at a chosen instant (the row as the purchase
// writes it, then its workflow), and waiting for the row to reach a state.
import type { Client } from '@temporalio/client';
import { Branch } from '../../db/entities/Branch.js';
import { UserSubscription } from '../../db/entities/UserSubscription.js';
import { Voucherable } from '../../db/entities/Voucherable.js';
import { inTenantTransaction, tenantEm, type MikroORM } from '../../db/orm.js';
import { createUserSubscription } from '../../db/subscriptions.js';
import type { Benefit } from '../../domain/benefits.js';
import type { SubscriptionInterval } from '../../domain/subscription-calendar.js';
import {
  subscriptionWorkflowId,
  subscriptionWorkflowStartOptions,
  SUBSCRIPTION_WORKFLOW_TYPE,
} from '../../workflows/subscription.messages.js';

/** What the helpers need of a backend. */
export interface SubscriptionBackend {
  orm: MikroORM;
  tenant: string;
  client: Client;
  taskQueue: string;
}

let plans = 0;

/** The first run of each subscription workflow this process started (its purchase), by subscription id. */
export const firstRunIds = new Map<number, string>();

/** An ACTIVE plan of the business unit: 30 free minutes and 3 rentals' worth of 2.00 rebate per period. */
export async function createPlan(
  backend: SubscriptionBackend,
  businessUnitId: number,
  branchId: number,
  fields: Partial<{
    interval: SubscriptionInterval;
    price: string;
    initialPrice: string | null;
    initialIterations: number | null;
    benefits: Benefit[];
    code: string;
    status: 'ACTIVE' | 'INACTIVE';
    showInUserApp: boolean;
    applicableBranchIds: number[] | null;
  }> = {},
): Promise<Voucherable> {
  const em = tenantEm(backend.orm, backend.tenant);
  const n = plans++;
  const plan = em.create(Voucherable, {
    businessUnitId,
    branchId,
    type: 'Subscription',
    status: fields.status ?? 'ACTIVE',
    code: fields.code ?? `SUB-${n}-${Date.now().toString(36)}`.toUpperCase(),
    name: `Plan ${n}`,
    currency: 'EUR',
    benefits: fields.benefits ?? [
      { type: 'FreeMinutes', amount: '30' },
      { type: 'RentalRebate', amount: '2.00', numberOfRentals: 3 },
    ],
    price: fields.price ?? '9.99',
    interval: fields.interval ?? 'MONTHLY',
    initialPrice: fields.initialPrice ?? null,
    initialIterations: fields.initialIterations ?? null,
    showInUserApp: fields.showInUserApp ?? true,
    applicableBranchIds: fields.applicableBranchIds ?? null,
    createdBy: 'test',
  });
  await em.flush();
  return plan;
}

/** Buys `plan` for the customer as bought at `at` (the calendar's anchor) and starts its workflow. */
export async function subscribeAt(
  backend: SubscriptionBackend,
  customerId: number,
  plan: Voucherable,
  branchId: number,
  at: Date,
): Promise<UserSubscription> {
  const { subscription } = await inTenantTransaction(backend.orm, backend.tenant, async (tx) =>
    createUserSubscription(tx, {
      customerId,
      plan: await tx.findOneOrFail(Voucherable, plan.id),
      branch: await tx.findOneOrFail(Branch, branchId),
      createdBy: `customer:${customerId}`,
      idempotencyKey: `test-buy-${customerId}-${plan.id}-${Date.now()}-${Math.random()}`,
      at,
      workflowIdOf: (id) => subscriptionWorkflowId(backend.tenant, id),
    }),
  );
  const handle = await backend.client.workflow.start(
    SUBSCRIPTION_WORKFLOW_TYPE,
    subscriptionWorkflowStartOptions(
      {
        tenant: backend.tenant,
        userSubscriptionId: subscription.id,
        customerId,
        branchId,
        businessUnitId: subscription.businessUnit.id,
        requestedBy: `customer:${customerId}`,
      },
      backend.taskQueue,
    ),
  );
  firstRunIds.set(subscription.id, handle.firstExecutionRunId);
  return subscription;
}

/** Re-reads the row until `done` holds (at most `timeoutMs` of real time). */
export async function subscriptionWhen(
  backend: SubscriptionBackend,
  id: number,
  done: (row: UserSubscription) => boolean,
  timeoutMs = 30_000,
): Promise<UserSubscription> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await tenantEm(backend.orm, backend.tenant).findOneOrFail(UserSubscription, id, {
      refresh: true,
    });
    if (done(row)) return row;
    if (Date.now() > deadline)
      throw new Error(
        `subscription ${id} stayed ${row.state}/${row.autoRenewal} at period ${row.currentPeriod}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
