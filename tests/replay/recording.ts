// What the history recorders share: the group filter (`RECORD_HISTORIES`), a fresh paying customer, and
// a workflow's settled result under time skipping.
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { Duration, Workflow, WorkflowResultType } from '@temporalio/common';
import { Customer } from '../../db/entities/Customer.js';
import { PaymentSource } from '../../db/entities/PaymentSource.js';
import { tenantEm } from '../../db/orm.js';
import { type TestBackend } from '../support/stack.js';

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

/** The groups to record (`RECORD_HISTORIES`, comma-separated words of their names); all when unset. */
const recordOnly = (process.env.RECORD_HISTORIES ?? '')
  .split(',')
  .map((word) => word.trim())
  .filter(Boolean);

/** A group of paths, skipped when RECORD_HISTORIES names other groups. */
export function group(name: string, paths: () => void): void {
  const wanted = recordOnly.length === 0 || recordOnly.some((word) => name.includes(word));
  (wanted ? describe : describe.skip)(name, paths);
}

/** A fresh customer with a payment source: no earlier reservation counts against them, pickups are payment-ready. */
export async function newCustomer(backend: TestBackend): Promise<number> {
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const seeded = await em.findOneOrFail(Customer, backend.seed.customerIds[0]!);
  const customer = em.create(Customer, {
    tenant: seeded.tenant,
    email: `replay-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    firstName: 'Replay',
    lastName: 'Rider',
    homeBusinessUnit: seeded.homeBusinessUnit,
  });
  em.create(PaymentSource, {
    tenant: seeded.tenant,
    customer,
    businessUnit: seeded.homeBusinessUnit!,
    type: 'CARD',
    provider: 'test',
    providerReference: `pm_replay_${customer.email}`,
    label: 'Visa •••• 4242',
  });
  await em.flush();
  return customer.id;
}

/**
 * The workflow's result once it closed, after skipping `skip` of workflow time. The time-skipping
 * client's result() would let the test server skip on to its next timer (years ahead once nothing else
 * is pending) and date the next path's history decades later; a plain client never skips.
 */
export async function settle<W extends Workflow>(
  backend: TestBackend,
  handle: WorkflowHandle<W>,
  skip?: Duration,
): Promise<WorkflowResultType<W>> {
  if (skip !== undefined) await backend.testEnv!.sleep(skip);
  const plain = new Client({ connection: backend.testEnv!.connection });
  return plain.workflow.getHandle<W>(handle.workflowId).result();
}
