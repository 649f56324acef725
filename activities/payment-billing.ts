// Starting payments: the payment workflow of a payment row (an "already started" answer is success, so a
// retried caller starts it once), and automatic billing of the invoices an ended rental or a booking fee
// wrote, after the activity's transaction committed. The API's commands (api/shared/payment-commands.ts)
// start their payments through the same function.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Payment } from '../db/entities/Payment.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { billInvoiceRows, type BillRequest, type PaymentToStart } from '../db/payment-billing-rows.js';
import { isRunningPaymentState, runningPaymentOfInvoice } from '../db/payments.js';
import { preparedRows } from '../db/prepared.js';
import { settingOrDefaults } from '../db/settings.js';
import type { InvoiceState } from '../domain/rental-pricing.js';
import { isDomainError } from '../domain/errors.js';
import { AUTO_BILL_SETTING_KEY, defaultAutoBillSettings, type AutoBillSettings } from '../domain/finance.js';
import {
  paymentWorkflowId,
  paymentWorkflowStartOptions,
  PAYMENT_WORKFLOW_TYPE,
  type PaymentWorkflowInput,
} from '../workflows/payment.messages.js';
import type { PaymentGateways } from '../platform/payment-gateway/port.js';

/** Where payment workflows are started: the Temporal client and the worker's task queue. */
export interface PaymentStarter {
  client: Client;
  taskQueue: string;
  /**
   * The client shares the worker's NativeConnection: a payment started here asks the server for its first
   * workflow task in the start's answer (eager workflow start), so this worker runs it without a poll.
   */
  eagerStart?: boolean;
}

/** The workflow input of a payment row. */
export function paymentWorkflowInput(
  tenant: string,
  payment: PaymentToStart,
  firstTrigger: 'FIRST' | 'MANUAL' = 'FIRST',
): PaymentWorkflowInput {
  return {
    tenant,
    paymentId: payment.id,
    businessUnitId: payment.businessUnit.id,
    customerId: payment.customer?.id ?? null,
    ...(firstTrigger === 'MANUAL' ? { firstTrigger } : {}),
  };
}

/**
 * Starts the workflow of a payment row (committed before: its first activity reads it). The id is the
 * payment's and duplicates are rejected, so a second start of the same payment (a retried activity or
 * request) is a no-op, answered as success.
 */
export async function startPaymentWorkflow(
  starter: PaymentStarter,
  tenant: string,
  payment: PaymentToStart,
  firstTrigger: 'FIRST' | 'MANUAL' = 'FIRST',
): Promise<void> {
  try {
    await starter.client.workflow.start(PAYMENT_WORKFLOW_TYPE, {
      ...paymentWorkflowStartOptions(paymentWorkflowInput(tenant, payment, firstTrigger), starter.taskQueue),
      requestEagerStart: starter.eagerStart === true,
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}

/** What automatic billing needs: the database, the gateways (the new payment's adapter) and Temporal. */
export interface AutoBillDeps {
  orm: MikroORM;
  paymentGateways: PaymentGateways;
  temporal: PaymentStarter;
}

/** The invoice an automatic bill looks at: its state and the branch of its rental or booking. */
interface AutoBillInvoice {
  id: number;
  state: InvoiceState;
  refunded_invoice_id: number | null;
  branch_id: number | null;
}

/** The invoice by its id, or a rental's or booking's own invoice (not a refunding one), in one read. */
const autoBillInvoiceBy = (column: 'id' | 'rental_id' | 'booking_id') => `
  select i.id, i.state, i.refunded_invoice_id, coalesce(r.branch_id, b.branch_id) as branch_id
    from invoice i
    left join rental r on r.tenant_id = i.tenant_id and r.id = i.rental_id
    left join booking b on b.tenant_id = i.tenant_id and b.id = i.booking_id
   where i.tenant_id = $1 and i.${column} = $2${column === 'id' ? '' : ' and i.refunded_invoice_id is null'}
   order by i.id limit 1`;

/** Whether `finance.invoice.autoBill` bills the invoices of this branch's rentals and bookings (default: yes). */
export async function autoBills(
  em: EntityManager,
  tenant: string,
  branchId: number | null,
): Promise<boolean> {
  const settings = await settingOrDefaults<AutoBillSettings>(
    em,
    tenant,
    AUTO_BILL_SETTING_KEY,
    branchId ?? undefined,
    defaultAutoBillSettings,
  );
  return settings.enabled === true;
}

/** An automatic bill under the key of the activity that makes it. */
function autoBillRequest(
  deps: Pick<AutoBillDeps, 'paymentGateways'>,
  tenant: string,
  idempotencyKey: string,
): BillRequest {
  return {
    tenant,
    requestedBy: 'system:auto-bill',
    idempotencyKey: `${idempotencyKey}/auto-bill`,
    gateway: deps.paymentGateways.default.name,
    workflowIdOf: (id) => paymentWorkflowId(tenant, id),
    at: new Date(),
  };
}

/**
 * Bills the invoice an ending step wrote, in the caller's transaction (the step's next one), when the
 * branch's `finance.invoice.autoBill` says so, and answers the payment whose workflow the caller starts
 * once that transaction committed (a crash in between leaves an OPEN payment for
 * `workers/payment-starter.ts`). The invoice id and branch come from the step, so nothing is read again.
 * A refusal of the bill leaves the invoice OPEN for an operator and never fails the step, as the
 * automatic bill after a step never failed it. Keyed by the step's activity, like
 * {@link autoBillInvoiceOf}, which a retried step uses to find this bill and start its payment.
 */
export async function autoBillInStep(
  deps: Pick<AutoBillDeps, 'paymentGateways'>,
  em: EntityManager,
  tenant: string,
  ended: { invoiceId: number; branchId: number },
  idempotencyKey: string,
): Promise<PaymentToStart | null> {
  if (!(await autoBills(em, tenant, ended.branchId))) return null;
  try {
    return (await billInvoiceRows(em, ended.invoiceId, autoBillRequest(deps, tenant, idempotencyKey)))
      .payment;
  } catch (error) {
    // billInvoiceRows refuses after its locking read and before any write, so the caller's transaction
    // stays as it was and commits; a database fault fails the step, whose retry bills it.
    if (!isDomainError(error)) throw error;
    return null;
  }
}

/**
 * Bills an invoice an activity just wrote when the tenant's `finance.invoice.autoBill` setting (for the
 * branch of its rental or booking) says so (default: enabled): OPEN → BILLED with its payment, whose
 * workflow starts after the bill committed. Runs after the activity's own transaction, with the
 * activity's key: a retried activity finds the payment its first attempt made and starts it (once).
 * An invoice billed meanwhile by an operator is not billed twice. Answers the payment row.
 */
export async function autoBillInvoice(
  deps: AutoBillDeps,
  tenant: string,
  invoiceId: number,
  idempotencyKey: string,
): Promise<Payment | null> {
  const em = tenantEm(deps.orm, tenant);
  const [invoice] = await preparedRows<AutoBillInvoice>(em, autoBillInvoiceBy('id'), [tenant, invoiceId]);
  if (!invoice) return null;
  const payment = await autoBillReadInvoice(deps, em, tenant, invoice, idempotencyKey);
  return payment && em.findOneOrFail(Payment, payment.id, { refresh: true });
}

/** {@link autoBillInvoice} of an invoice read through `em` (rows only: it runs after every rental's end). */
async function autoBillReadInvoice(
  deps: AutoBillDeps,
  em: EntityManager,
  tenant: string,
  invoice: AutoBillInvoice,
  idempotencyKey: string,
): Promise<PaymentToStart | null> {
  const invoiceId = invoice.id;
  if (invoice.refunded_invoice_id !== null) return null;
  if (!(await autoBills(em, tenant, invoice.branch_id))) return null;
  let payment: PaymentToStart | null;
  if (invoice.state === 'OPEN') {
    const billed = await inTenantTransaction(deps.orm, tenant, (tx) =>
      billInvoiceRows(tx, invoiceId, autoBillRequest(deps, tenant, idempotencyKey)),
    );
    payment = billed.payment;
  } else {
    // Billed by an earlier attempt of this activity (or by an operator): its running payment is started
    // again, which is a no-op when it runs already.
    payment = await runningPaymentOfInvoice(em, invoiceId);
  }
  if (payment && isRunningPaymentState(payment.state))
    await startPaymentWorkflow(deps.temporal, tenant, payment);
  return payment;
}

/**
 * Automatic billing after an activity that may have written an invoice (a rental's end, a booking's
 * cancellation or no-show fee): bills the rental's or booking's own invoice (`autoBillInvoice`). A
 * business refusal of the bill never fails the activity that wrote the invoice (the invoice stays for
 * an operator to bill); infrastructure faults do, so the activity's retry bills it.
 */
export async function autoBillInvoiceOf(
  deps: AutoBillDeps,
  tenant: string,
  subject: { rentalId: number } | { bookingId: number },
  idempotencyKey: string,
): Promise<void> {
  const em = tenantEm(deps.orm, tenant);
  // Read once, with what the bill's setting needs (the branch of its rental or booking).
  const [invoice] = await preparedRows<AutoBillInvoice>(
    em,
    autoBillInvoiceBy('rentalId' in subject ? 'rental_id' : 'booking_id'),
    [tenant, 'rentalId' in subject ? subject.rentalId : subject.bookingId],
  );
  if (!invoice) return;
  try {
    await autoBillReadInvoice(deps, em, tenant, invoice, idempotencyKey);
  } catch (error) {
    if (!isDomainError(error)) throw error;
  }
}
