// Starts the workflow of every payment still OPEN whose workflow never started: one created by a process
// that died between writing the row and starting the workflow, or written by the demo seed. A payment's
// workflow id is fixed (`payment:{tenant}:{id}`, REJECT_DUPLICATE), so starting it twice is harmless.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PAYMENT_WORKFLOW_TYPE, paymentWorkflowStartOptions } from '../workflows/payment.messages.js';

/** How long an OPEN payment is left to the request that created it before the starter steps in. */
export const PAYMENT_START_GRACE_MS = 30_000;

interface OpenPaymentRow {
  id: number;
  tenant_id: string;
  business_unit_id: number;
  customer_id: number | null;
}

/**
 * Starts the workflows of OPEN payments created more than `graceMs` ago (all tenants); returns how many it
 * started. A payment's first workflow step moves it out of OPEN, so a started one is not picked again.
 */
export async function startPendingPaymentWorkflows(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  graceMs = PAYMENT_START_GRACE_MS,
  tenants?: readonly string[],
): Promise<number> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<OpenPaymentRow[]>(
      `select id, tenant_id, business_unit_id, customer_id from payment
       where state = 'OPEN' and created_at < now() - make_interval(secs => ?)
         and (?::jsonb is null or tenant_id in (select jsonb_array_elements_text(?::jsonb)))
       order by id limit 500`,
      [graceMs / 1000, tenants ? JSON.stringify(tenants) : null, tenants ? JSON.stringify(tenants) : null],
    );
  let started = 0;
  for (const row of rows) {
    const options = paymentWorkflowStartOptions(
      {
        tenant: row.tenant_id,
        paymentId: row.id,
        businessUnitId: row.business_unit_id,
        customerId: row.customer_id,
      },
      temporal.taskQueue,
    );
    try {
      await temporal.client.workflow.start(PAYMENT_WORKFLOW_TYPE, options);
      started++;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return started;
}

/** Runs the starter now and every `intervalMs`; returns a stop function. Failures are logged, not thrown. */
export function runPaymentStarter(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: {
    intervalMs: number;
    graceMs?: number;
    /** Only these tenants' payments (undefined: all). */
    tenants?: readonly string[];
    log: (message: string, error?: unknown) => void;
  },
): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const started = await startPendingPaymentWorkflows(orm, temporal, options.graceMs, options.tenants);
      if (started > 0) options.log(`started the workflows of ${started} pending payment(s)`);
    } catch (error) {
      options.log('starting pending payment workflows failed', error);
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
