// Records the finance workflows' histories (payment, refund) for the replay tests; see record-histories.ts.
import { type WorkflowHandle } from '@temporalio/client';
import { tenantEm } from '../../db/orm.js';
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { sandboxOf } from '../../platform/payment-gateway/index.js';
import { paymentStatusQuery, type PaymentWorkflowSnapshot } from '../../workflows/payment.messages.js';
import type { paymentWorkflow } from '../../workflows/payment.js';
import {
  refundWorkflowId,
  refundWorkflowStartOptions,
  REFUND_WORKFLOW_TYPE,
} from '../../workflows/refund.messages.js';
import type { refundWorkflow } from '../../workflows/refund.js';
import { startRefund } from '../../api/shared/payment-commands.js';
import { processGatewayWebhook } from '../../api/shared/payment-webhooks.js';
import {
  billAndPay,
  commandContext,
  openInvoice,
  payingCustomer,
  type FinanceBackend,
} from '../support/payments.js';
import { startTestBackend, type TestBackend } from '../support/stack.js';
import { recordHistory } from './history-files.js';
import { group, settle } from './recording.js';

// Since PAYMENT_STEPS_VERSION a new payment is stamped and its first charge is a local activity (the
// *-stamped files); payment-paid.json, payment-retry-paid.json, payment-three-ds-completed.json and
// payment-failed-after-schedule.json keep the path of payments started before it.
group('payment workflow', () => {
  let backend: TestBackend;
  let finance: FinanceBackend;

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

  /** An invoice of a customer paying with `token`, billed: its payment's workflow. */
  async function pay(token: string): Promise<WorkflowHandle<typeof paymentWorkflow>> {
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, token);
    const invoice = await openInvoice(finance, customer, ['12.50', '7.50']);
    const payment = await billAndPay(finance, invoice.id);
    return backend.client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
  }

  /** Waits (without skipping time) until the payment's status answers `state`. */
  async function reached(
    handle: WorkflowHandle<typeof paymentWorkflow>,
    state: string,
  ): Promise<PaymentWorkflowSnapshot> {
    for (let tries = 0; tries < 400; tries++) {
      const snapshot = await handle.query(paymentStatusQuery);
      if (snapshot.state === state) return snapshot;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`payment ${handle.workflowId} never reached ${state}`);
  }

  test('paid on the first attempt', async () => {
    const handle = await pay('tok_sandbox_visa');
    expect((await settle(backend, handle)).state).toBe('PAID');
    await recordHistory('payment-paid-stamped', handle);
  });

  test('a first charge slower than its local bound, taken over by the charge activity', async () => {
    // tok_sandbox_timeout: booked at once, answered only to the activity's call with the same key.
    const handle = await pay('tok_sandbox_timeout');
    expect((await settle(backend, handle)).state).toBe('PAID');
    await recordHistory('payment-first-charge-taken-over-stamped', handle);
  });

  test('a soft decline, then the scheduled retry is paid', async () => {
    const handle = await pay('tok_sandbox_insufficient_funds_once');
    await reached(handle, 'AWAITING_RETRY');
    expect((await settle(backend, handle, '25 hours')).state).toBe('PAID');
    await recordHistory('payment-retry-paid-stamped', handle);
  });

  test('a 3-D Secure challenge completed by the customer', async () => {
    const handle = await pay('tok_sandbox_3ds');
    const waiting = await reached(handle, 'THREE_DS_WAITING_FOR_USER');
    const reference = waiting.challenge!.url!.split('/').pop()!;
    const webhook = await sandboxOf(finance.paymentGateways)!.resolveChallenge(reference, 'SUCCEEDED');
    await processGatewayWebhook(commandContext(finance), 'sandbox', webhook.body, webhook.headers);
    expect((await settle(backend, handle)).state).toBe('PAID');
    await recordHistory('payment-three-ds-completed-stamped', handle);
  });

  test('soft declines until the schedule ends: FAILED', async () => {
    const handle = await pay('tok_sandbox_insufficient_funds');
    await reached(handle, 'AWAITING_RETRY');
    // Retries 1, 3, 5 and 7 days apart.
    expect((await settle(backend, handle, '17 days')).state).toBe('FAILED');
    await recordHistory('payment-failed-after-schedule-stamped', handle);
  });
});

group('refund workflow', () => {
  let backend: TestBackend;
  let finance: FinanceBackend;

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

  /** A refund of `amount` on the first line of a freshly paid invoice, and its workflow. */
  async function refundOf(amount: string, reason: string): Promise<WorkflowHandle<typeof refundWorkflow>> {
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
    const invoice = await openInvoice(finance, customer, ['10.00', '5.00']);
    const payment = await billAndPay(finance, invoice.id);
    expect((await settle(backend, backend.client.workflow.getHandle(payment.workflowId))).state).toBe('PAID');
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const paid = await em.findOneOrFail(Invoice, invoice.id);
    const [line] = await em.find(InvoiceLine, { invoice: invoice.id }, { orderBy: { position: 'asc' } });
    const refunding = await startRefund(commandContext(finance), paid, {
      reason,
      items: [{ lineItemId: line!.id, amount }],
      requestedBy: 'client:replay-recorder',
    });
    return backend.client.workflow.getHandle<typeof refundWorkflow>(
      refundWorkflowId(backend.seed.tenant, refunding.id),
    );
  }

  test('a partial refund given back', async () => {
    const handle = await refundOf('4.00', 'replay recorder');
    expect((await settle(backend, handle)).state).toBe('REFUNDED');
    await recordHistory('refund-refunded', handle);
  });

  test('a refund the gateway refuses', async () => {
    const handle = await refundOf('10.00', 'replay recorder sandbox:fail');
    expect((await settle(backend, handle)).state).toBe('EXCEPTION_REFUND');
    await recordHistory('refund-exception', handle);
  });

  test('a refund past what was paid is rejected', async () => {
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
    const invoice = await openInvoice(finance, customer, ['10.00']);
    const payment = await billAndPay(finance, invoice.id);
    expect((await settle(backend, backend.client.workflow.getHandle(payment.workflowId))).state).toBe('PAID');
    const [line] = await tenantEm(backend.orm, backend.seed.tenant).find(InvoiceLine, {
      invoice: invoice.id,
    });
    // Started directly (the API's own check would refuse it first): the workflow's first step refuses it.
    const [{ id: refundInvoiceId }] = await tenantEm(backend.orm, backend.seed.tenant).execute<
      [{ id: number }]
    >(`select nextval('invoice_id_seq')::int as id`);
    const handle = await backend.client.workflow.start<typeof refundWorkflow>(
      REFUND_WORKFLOW_TYPE,
      refundWorkflowStartOptions(
        {
          tenant: backend.seed.tenant,
          refundInvoiceId,
          invoiceId: invoice.id,
          businessUnitId: invoice.businessUnit.id,
          customerId: customer.id,
          reason: 'replay recorder',
          items: [{ lineItemId: line!.id, amount: '10.01' }],
          requestedBy: 'client:replay-recorder',
        },
        backend.taskQueue,
      ),
    );
    const result = await settle(backend, handle);
    expect(result).toMatchObject({ state: 'REJECTED', refusal: { code: 'I127' } });
    await recordHistory('refund-rejected', handle);
  });
});
