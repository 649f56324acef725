// Bills every ended rental's invoice its automatic bill never reached, and starts the workflow of every
// payment still OPEN whose workflow never started. An ending step bills its invoice after it answered, in
// its worker's background: a worker that dies first leaves the invoice OPEN. A payment's workflow may be
// lost the same way between its row and its start, and the demo seed writes OPEN payments. A bill locks
// the invoice and bills it only while OPEN, and a payment's workflow id is fixed (`payment:{tenant}:{id}`,
// REJECT_DUPLICATE), so two workers sweeping at once, or a sweep beside the bill it stands in for, do each
// once.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { tenantEm } from '../db/orm.js';
import { preparedRows } from '../db/prepared.js';
import { PAYMENT_WORKFLOW_TYPE, paymentWorkflowStartOptions } from '../workflows/payment.messages.js';
import { autoBillInvoiceOf, autoBills, type AutoBillDeps } from '../activities/payment-billing.js';

/** How long an OPEN payment or invoice is left to the process that wrote it before the starter steps in. */
export const PAYMENT_START_GRACE_MS = 30_000;

/**
 * How far back the sweep looks for ended rentals' OPEN invoices: a worker down for longer leaves them to
 * an operator (they are listed OPEN), and the sweep's scan stays bounded whatever piles up OPEN.
 */
export const FORGOTTEN_BILL_HORIZON_MS = 24 * 60 * 60_000;

/** The rows of the tenants a starter works for (`parameter`: a JSON array of ids, or null for all). */
const tenantFilter = (column: string, parameter: string) =>
  `(${parameter}::jsonb is null or ${column} in (select jsonb_array_elements_text(${parameter}::jsonb)))`;

/** The starter's tenants as {@link tenantFilter}'s parameter. */
const tenantsParameter = (tenants?: readonly string[]) => (tenants ? JSON.stringify(tenants) : null);

/**
 * Ended rentals' own invoices (the one their ending step wrote, `rental.invoice_id`), still OPEN, written
 * between the horizon ($2 ms ago) and the grace ($1 ms ago), of the tenants selected ($3). Served by the
 * partial index `invoice_open_rental`.
 */
const forgottenInvoices = `
  from invoice i
  join rental r on r.tenant_id = i.tenant_id and r.id = i.rental_id and r.invoice_id = i.id
 where i.state = 'OPEN' and i.rental_id is not null and i.refunded_invoice_id is null
   and i.created_at < now() - make_interval(secs => $1 / 1000.0)
   and i.created_at > now() - make_interval(secs => $2 / 1000.0)
   and ${tenantFilter('i.tenant_id', '$3')}`;

/**
 * Bills the OPEN invoices of ended rentals whose automatic bill never ran (written more than `graceMs`
 * ago, within {@link FORGOTTEN_BILL_HORIZON_MS}), where `finance.invoice.autoBill` bills their branch,
 * and starts their payments; answers how many it looked at (one billed meanwhile is left as it is). A
 * fault on one invoice is thrown after the others were tried. The branches are asked first, so invoices
 * that stay OPEN by the setting are never read one by one. Keyed by the rental, so two workers sweeping
 * the same invoice make one payment.
 */
export async function billForgottenRentalInvoices(
  deps: AutoBillDeps,
  graceMs = PAYMENT_START_GRACE_MS,
  tenants?: readonly string[],
): Promise<number> {
  const em = deps.orm.em.fork();
  const window = [graceMs, FORGOTTEN_BILL_HORIZON_MS, tenantsParameter(tenants)];
  const branches = await preparedRows<{ tenant_id: string; branch_id: number }>(
    em,
    `select distinct i.tenant_id, r.branch_id ${forgottenInvoices}`,
    window,
  );
  const billing: { t: string; b: number }[] = [];
  for (const { tenant_id: tenant, branch_id: branchId } of branches)
    if (await autoBills(tenantEm(deps.orm, tenant), tenant, branchId))
      billing.push({ t: tenant, b: branchId });
  if (billing.length === 0) return 0;
  const rows = await preparedRows<{ tenant_id: string; rental_id: number }>(
    em,
    `select i.tenant_id, i.rental_id ${forgottenInvoices}
        and (i.tenant_id, r.branch_id) in (select t, b from jsonb_to_recordset($4::jsonb) as x(t text, b int))
      order by i.id limit 500`,
    [...window, JSON.stringify(billing)],
  );
  let failure: unknown;
  for (const row of rows) {
    // One invoice's fault (its business refusals are answered inside) does not keep the others unbilled.
    await autoBillInvoiceOf(
      deps,
      row.tenant_id,
      { rentalId: row.rental_id },
      `payment-starter:bill:rental:${row.rental_id}`,
    ).catch((error: unknown) => (failure ??= error));
  }
  if (failure !== undefined) throw failure;
  return rows.length;
}

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
  const rows = await preparedRows<OpenPaymentRow>(
    orm.em.fork(),
    `select id, tenant_id, business_unit_id, customer_id from payment
      where state = 'OPEN' and created_at < now() - make_interval(secs => $1 / 1000.0)
        and ${tenantFilter('tenant_id', '$2')}
      order by id limit 500`,
    [graceMs, tenantsParameter(tenants)],
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

/**
 * Runs the starter now and every `intervalMs` (forgotten bills first, so their payments start in the same
 * pass); returns a stop function. Failures are logged, not thrown.
 */
export function runPaymentStarter(
  deps: AutoBillDeps,
  options: {
    intervalMs: number;
    graceMs?: number;
    /** Only these tenants' invoices and payments (undefined: all). */
    tenants?: readonly string[];
    log: (message: string, error?: unknown) => void;
  },
): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const billed = await billForgottenRentalInvoices(deps, options.graceMs, options.tenants);
      if (billed > 0) options.log(`billed ${billed} ended rental invoice(s) their automatic bill missed`);
    } catch (error) {
      options.log('billing the invoices automatic billing missed failed', error);
    }
    try {
      const started = await startPendingPaymentWorkflows(
        deps.orm,
        deps.temporal,
        options.graceMs,
        options.tenants,
      );
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
