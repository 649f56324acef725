// Finance's commands, which the invoice, payment and balance routes of both interfaces share: bill an
// invoice (and start its payment), retry and close a payment, settle a balance, refund an invoice. Each
// writes its rows in one transaction and then starts or updates the workflow (workflows/payment.ts,
// workflows/refund.ts), which owns the payment or refund from there; answers re-read what was committed.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Decimal } from 'decimal.js';
import { Balance } from '../../db/entities/Balance.js';
import { Invoice } from '../../db/entities/Invoice.js';
import { Payment } from '../../db/entities/Payment.js';
import { balanceValue } from '../../db/balance-ledger.js';
import { inTenantTransaction } from '../../db/orm.js';
import type { EntityManager } from '../../db/orm.js';
import { billInvoiceRecord, type BilledInvoice } from '../../db/payment-billing-rows.js';
import {
  createPayment,
  currentPaymentSource,
  isRunningPaymentState,
  ownerOfBalance,
  ownerOfInvoice,
  recordPaymentState,
  runningPaymentOfBalance,
  runningPaymentOfInvoice,
} from '../../db/payments.js';
import { checkRefund } from '../../db/refunds.js';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import {
  paymentCloseRefusal,
  paymentTransition,
  unpaidInvoiceStates,
  type InvoiceState,
  type RefundItem,
} from '../../domain/finance.js';
import { formatAmount } from '../../domain/money.js';
import { startPaymentWorkflow } from '../../activities/payment-billing.js';
import {
  closePaymentUpdate,
  paymentWorkflowId,
  retryPaymentUpdate,
} from '../../workflows/payment.messages.js';
import {
  awaitRefundRecordedUpdate,
  refundWorkflowStartOptions,
  REFUND_WORKFLOW_TYPE,
  type RefundWorkflowResult,
} from '../../workflows/refund.messages.js';
import type { RouteContext } from '../kernel/route.js';

/** The codes the commands answer, for the routes' declarations. */
export const billInvoiceErrors = ['I121', 'I128', 'I404'] as const satisfies readonly ErrorCode[];
export const retryPaymentErrors = ['P120'] as const satisfies readonly ErrorCode[];
export const closePaymentErrors = ['I124', 'F207'] as const satisfies readonly ErrorCode[];
export const balanceSettlementErrors = ['J100', 'J103', 'J104'] as const satisfies readonly ErrorCode[];
export const refundErrors = ['I122', 'I127', 'I131', 'I404', 'I405'] as const satisfies readonly ErrorCode[];

/** Where the commands start workflows. */
const starterOf = (ctx: RouteContext) => ({
  client: ctx.services.temporal,
  taskQueue: ctx.services.taskQueue,
});

/** The committed row of an entity, re-read into the request's EntityManager. */
function reload<T extends Invoice | Payment>(ctx: RouteContext, entity: new () => T, id: number): Promise<T> {
  return ctx.em.findOneOrFail(entity, id as never, { refresh: true }) as Promise<T>;
}

/**
 * Bills an invoice: OPEN → BILLED (billedAt), the customer's default balance credit applied first (a
 * negative INVOICE ledger row), and a payment (OPEN) for what is left, whose workflow starts once the
 * bill committed; no payment when the credit covered it all (the invoice is then PAID). I121 unless
 * OPEN, I128 unless its total is positive. Answers the rows as the bill wrote them (not read again: the
 * workflow may move them on at once); `onBilled` records the caller's event in the bill's transaction.
 */
export async function billInvoice(
  ctx: RouteContext,
  invoice: Invoice,
  requestedBy: string,
  onBilled?: (tx: EntityManager, billed: BilledInvoice) => void,
  eventPayload?: Record<string, unknown>,
): Promise<BilledInvoice> {
  const billed = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
    billInvoiceRecord(tx, invoice.id, {
      tenant: ctx.tenant,
      requestedBy,
      // Each request bills once: a second bill of the same invoice is refused (I121), not repeated.
      idempotencyKey: `bill:${invoice.id}:${ctx.traceId}`,
      gateway: ctx.services.paymentGateways.default.name,
      workflowIdOf: (id) => paymentWorkflowId(ctx.tenant, id),
      at: new Date(),
      onBilled: onBilled && ((rows) => onBilled(tx, rows)),
      eventPayload,
    }),
  );
  if (billed.payment) await startPaymentWorkflow(starterOf(ctx), ctx.tenant, billed.payment);
  return billed;
}

/**
 * Retries a payment now: a running payment (AWAITING_RETRY, or after a failed challenge) gets the
 * workflow's retryPayment Update, answered once the attempt ran; a FAILED payment of an invoice still
 * unpaid gets a NEW payment for the invoice (its workflow's first attempt is MANUAL), which is returned.
 * P120 in any other state (and from the Update's validator: IN_PAYMENT, waiting for the customer, PAID).
 */
export async function retryPayment(
  ctx: RouteContext,
  payment: Payment,
  requestedBy: string,
): Promise<Payment> {
  if (isRunningPaymentState(payment.state)) {
    try {
      await ctx.services.temporal.workflow
        .getHandle(payment.workflowId)
        .executeUpdate(retryPaymentUpdate, { args: [{ requestedBy }] });
      return reload(ctx, Payment, payment.id);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      payment = await reload(ctx, Payment, payment.id);
    }
  }
  if (payment.state !== 'FAILED' || payment.purpose !== 'INVOICE' || !payment.invoice)
    throw new DomainError('P120', `the payment is ${payment.state}`);
  const invoiceId = payment.invoice.id;
  const failed = payment;
  const retried = await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
    const invoice = await tx.findOneOrFail(Invoice, invoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const earlier = await tx.findOne(Payment, { idempotencyKey: `retry:${failed.id}` });
    if (earlier) return earlier;
    if (!(unpaidInvoiceStates as readonly InvoiceState[]).includes(invoice.state))
      throw new DomainError('P120', `the payment is FAILED and its invoice is ${invoice.state}`);
    if (await runningPaymentOfInvoice(tx, invoiceId))
      throw new DomainError('P120', 'another payment of the invoice is running');
    const next = await createPayment(tx, {
      tenant: ctx.tenant,
      purpose: 'INVOICE',
      businessUnitId: invoice.businessUnit.id,
      owner: ownerOfInvoice(invoice),
      invoiceId,
      amount: failed.amount,
      currency: failed.currency,
      gateway: ctx.services.paymentGateways.default.name,
      requestedBy,
      idempotencyKey: `retry:${failed.id}`,
      workflowIdOf: (id) => paymentWorkflowId(ctx.tenant, id),
    });
    // Its first attempt (MANUAL) writes INVOICE_RETRY_PAYMENT, naming the requester.
    invoice.state = 'BILLED';
    await tx.flush();
    return next;
  });
  await startPaymentWorkflow(starterOf(ctx), ctx.tenant, retried, 'MANUAL');
  return reload(ctx, Payment, retried.id);
}

/**
 * Ends a payment's collection: COLLECTIONS (the invoice was marked for collection; refused with I124
 * where the payment table does not allow it) or PAID_EXTERNALLY (paid outside the gateway; the invoice
 * becomes PAID_EXTERNALLY; F207 where not allowed) or WITHDRAWN (a purchase's declined first charge
 * retries no more: FAILED; P120 where not allowed). A running payment is closed by its workflow (the
 * closePayment Update, which then ends); a finished one (FAILED, COLLECTIONS) is written directly.
 */
export async function closePayment(
  ctx: RouteContext,
  payment: Payment,
  event: 'COLLECTIONS' | 'PAID_EXTERNALLY' | 'WITHDRAWN',
  requestedBy: string,
): Promise<Payment> {
  const refusal = paymentCloseRefusal(event);
  if (isRunningPaymentState(payment.state)) {
    try {
      await ctx.services.temporal.workflow
        .getHandle(payment.workflowId)
        .executeUpdate(closePaymentUpdate, { args: [{ requestedBy, event }] });
      return reload(ctx, Payment, payment.id);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
    const row = await tx.findOneOrFail(Payment, payment.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (isRunningPaymentState(row.state))
      throw new DomainError(refusal, `the payment is ${row.state} and its workflow is not running`);
    const next = paymentTransition(row.state, event);
    if (!next) throw new DomainError(refusal, `the payment is ${row.state}`);
    await recordPaymentState(tx, row, {
      state: next,
      at: new Date(),
      requestedBy,
      paidExternally: event === 'PAID_EXTERNALLY',
      idempotencyKey: `close:${row.id}:${event}`,
    });
  });
  return reload(ctx, Payment, payment.id);
}

/**
 * Settles a negative balance: a payment (BALANCE_SETTLEMENT) of what it owes, charged to the owner's
 * default payment source through the payment workflow; its success appends a SETTLEMENT ledger row.
 * J100 when the balance owes nothing, J103 without a payment source, J104 while a settlement runs.
 */
export async function startBalanceSettlement(
  ctx: RouteContext,
  balance: Balance,
  requestedBy: string,
): Promise<Payment> {
  let payment: Payment;
  try {
    payment = await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
      const row = await tx.findOneOrFail(Balance, balance.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const value = new Decimal(await balanceValue(tx, row.id));
      if (value.gte(0)) throw new DomainError('J100', `the balance is ${formatAmount(value, row.currency)}`);
      if (await runningPaymentOfBalance(tx, row.id)) throw new DomainError('J104');
      const owner = ownerOfBalance(row);
      if (!(await currentPaymentSource(tx, owner, row.businessUnit.id))) throw new DomainError('J103');
      return createPayment(tx, {
        tenant: ctx.tenant,
        purpose: 'BALANCE_SETTLEMENT',
        businessUnitId: row.businessUnit.id,
        owner,
        balanceId: row.id,
        amount: value.neg().toString(),
        currency: row.currency,
        gateway: ctx.services.paymentGateways.default.name,
        requestedBy,
        idempotencyKey: `settle:${row.id}:${ctx.traceId}`,
        workflowIdOf: (id) => paymentWorkflowId(ctx.tenant, id),
      });
    });
  } catch (error) {
    // Two settlements at once: the partial unique index lets one through.
    if (error instanceof UniqueConstraintViolationException) throw new DomainError('J104');
    throw error;
  }
  await startPaymentWorkflow(starterOf(ctx), ctx.tenant, payment);
  return reload(ctx, Payment, payment.id);
}

/**
 * Refunds (part of) a paid invoice: checks the request (I122 state, I405 unknown line, I127 more than a
 * line may still give back, I131 finer than the currency), allocates the refunding invoice's id, starts the refund workflow and waits
 * until it recorded the refunding invoice (IS_REFUND, `refundedInvoice` set) or refused; the gateway's
 * refund follows in the workflow (REFUNDED or EXCEPTION_REFUND on the original).
 */
export async function startRefund(
  ctx: RouteContext,
  invoice: Invoice,
  request: { reason: string; items: RefundItem[]; requestedBy: string },
): Promise<Invoice> {
  // The cheap refusals before a workflow starts (its first activity checks again, under the row lock).
  await checkRefund(ctx.em, invoice, request.items);
  const [{ id: refundInvoiceId }] = await ctx.em.execute<[{ id: number }]>(
    `select nextval('invoice_id_seq')::int as id`,
  );
  const options = refundWorkflowStartOptions(
    {
      tenant: ctx.tenant,
      refundInvoiceId,
      invoiceId: invoice.id,
      businessUnitId: invoice.businessUnit.id,
      customerId: invoice.customer.id,
      reason: request.reason,
      items: request.items,
      requestedBy: request.requestedBy,
    },
    ctx.services.taskQueue,
  );
  let handle;
  try {
    handle = await ctx.services.temporal.workflow.start(REFUND_WORKFLOW_TYPE, options);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    handle = ctx.services.temporal.workflow.getHandle(options.workflowId);
  }
  try {
    await handle.executeUpdate(awaitRefundRecordedUpdate);
  } catch (error) {
    // The refund may have finished before the Update arrived: its result says how.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    const result = (await handle.result()) as RefundWorkflowResult;
    if (result.refusal) throw new DomainError(result.refusal.code as ErrorCode, result.refusal.message);
  }
  return reload(ctx, Invoice, refundInvoiceId);
}
