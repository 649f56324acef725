// Refunds through their workflow, with real activities, PostgreSQL and the sandbox gateway: a full refund,
// a partial one (the original stays refundable), partial refunds that add up to the whole and never past
// it (I127, also when two run at once), refusals (I122 unpaid, I405 foreign line, I131 too many decimals)
// and a refund the gateway refuses (EXCEPTION_REFUND, not counted by later refunds).
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { tenantEm } from '../db/orm.js';
import { toDomainError } from '../api/errors.js';
import { refundWorkflowId, type RefundWorkflowResult } from '../workflows/refund.messages.js';
import { startRefund } from '../api/shared/payment-commands.js';
import { startTestBackend, type TestBackend } from './support/stack.js';
import {
  billAndPay,
  commandContext,
  openInvoice,
  payingCustomer,
  type FinanceBackend,
  financeOf,
} from './support/payments.js';

let backend: TestBackend;
let finance: FinanceBackend;

beforeAll(async () => {
  backend = await startTestBackend();
  finance = financeOf(backend);
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

const em = () => tenantEm(finance.orm, finance.tenant);
const invoiceRow = (id: number) => em().findOneOrFail(Invoice, id);
const linesOf = (invoiceId: number) =>
  em().find(InvoiceLine, { invoice: invoiceId }, { orderBy: { position: 'asc' } });

/** A PAID invoice of these lines (charged through the sandbox) and its lines. */
async function paidInvoice(grosses: string[]) {
  const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
  const invoice = await openInvoice(finance, customer, grosses);
  const payment = await billAndPay(finance, invoice.id);
  expect((await finance.client.workflow.getHandle(payment.workflowId).result()).state).toBe('PAID');
  return { invoice: await invoiceRow(invoice.id), lines: await linesOf(invoice.id), payment };
}

/** Starts a refund through the command (as the route does) and waits for its workflow's end. */
async function refund(
  invoiceId: number,
  items: { lineItemId: number; amount: string }[],
  reason = 'customer complaint',
) {
  const refunding = await startRefund(commandContext(finance), await invoiceRow(invoiceId), {
    reason,
    items,
    requestedBy: 'operator:test',
  });
  const result: RefundWorkflowResult = await finance.client.workflow
    .getHandle(refundWorkflowId(finance.tenant, refunding.id))
    .result();
  return { refunding: await invoiceRow(refunding.id), result };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    // As the API answers it: a refusal by the workflow's first step arrives as the Update's failure.
    const code = toDomainError(error).code;
    if (code === '0099') throw error;
    return code;
  }
  throw new Error('not refused');
}

/** The sandbox's refunds of a charge: rows of kind REFUND with their amounts (minor units). */
async function gatewayRefunds(chargeReference: string): Promise<string[]> {
  const rows = await finance.orm.em.getConnection().execute<{ amount_minor: string }[]>(
    `select amount_minor::text as amount_minor from sandbox_gateway_operation
        where kind = 'REFUND' and outcome->'request'->>'chargeReference' = ? order by id`,
    [chargeReference],
  );
  return rows.map((row) => row.amount_minor);
}

test('a full refund: the refunding invoice mirrors the lines negatively, the original is REFUNDED', async () => {
  const { invoice, lines, payment } = await paidInvoice(['10.00', '5.00']);
  const { refunding, result } = await refund(
    invoice.id,
    lines.map((line) => ({ lineItemId: line.id, amount: line.gross })),
  );
  expect(result).toMatchObject({ refundInvoiceId: refunding.id, state: 'REFUNDED' });
  expect(refunding).toMatchObject({
    state: 'IS_REFUND',
    refundReason: 'customer complaint',
    totalGross: '-15.00',
    currency: invoice.currency,
  });
  expect(refunding.refundedInvoice!.id).toBe(invoice.id);
  // The credit note's INVOICE_CREATED names the invoice it refunds.
  const [createdEvent] = await em().find(Event, {
    type: 'INVOICE_CREATED',
    payload: { invoiceId: refunding.id },
  });
  expect(createdEvent?.payload).toMatchObject({ refundedInvoiceId: invoice.id, totalGross: '-15.00' });
  expect(refunding.settledAt).toBeInstanceOf(Date);
  expect(refunding.paymentReference).toMatch(/^re_sandbox_/);
  const refundLines = await linesOf(refunding.id);
  expect(refundLines.map((line) => [line.refundedLine!.id, line.gross, line.net, line.tax])).toEqual(
    lines.map((line) => [line.id, `-${line.gross}`, `-${line.net}`, `-${line.tax}`]),
  );
  const original = await invoiceRow(invoice.id);
  expect(original.state).toBe('REFUNDED');
  const charge = (await em().refresh(payment))!.gatewayReference!;
  expect(await gatewayRefunds(charge)).toEqual(['1500']);
  // Nothing is left to refund.
  expect(await refusal(refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '0.01' }]))).toBe('I127');
});

test('a partial refund: the original ALLOWS_REFUND; a second partial adds up; past the line is I127', async () => {
  const { invoice, lines, payment } = await paidInvoice(['10.00', '5.00']);
  const [first, second] = lines;
  const one = await refund(invoice.id, [{ lineItemId: first!.id, amount: '3.00' }]);
  expect(one.result.state).toBe('REFUNDED');
  expect(one.refunding.totalGross).toBe('-3.00');
  const [partLine] = await linesOf(one.refunding.id);
  expect(partLine).toMatchObject({
    gross: '-3.00',
    net: '-2.52',
    tax: '-0.48',
    quantity: '1.000',
    unit: 'PIECE',
  });
  expect((await invoiceRow(invoice.id)).state).toBe('ALLOWS_REFUND');

  // 7.01 more of a 10.00 line that gave back 3.00 already: too much.
  expect(await refusal(refund(invoice.id, [{ lineItemId: first!.id, amount: '7.01' }]))).toBe('I127');
  const two = await refund(invoice.id, [{ lineItemId: first!.id, amount: '7.00' }]);
  expect(two.result.state).toBe('REFUNDED');
  expect((await invoiceRow(invoice.id)).state).toBe('ALLOWS_REFUND');
  expect(await refusal(refund(invoice.id, [{ lineItemId: first!.id, amount: '0.01' }]))).toBe('I127');
  const three = await refund(invoice.id, [{ lineItemId: second!.id, amount: '5.00' }]);
  expect(three.result.state).toBe('REFUNDED');
  expect((await invoiceRow(invoice.id)).state).toBe('REFUNDED');

  const charge = (await em().refresh(payment))!.gatewayReference!;
  expect(await gatewayRefunds(charge)).toEqual(['300', '700', '500']);
  const refunds = await em().find(Invoice, { refundedInvoice: invoice.id });
  expect(refunds.reduce((sum, r) => sum + Number(r.totalGross) * 100, 0)).toBe(-1500);
});

test('two refunds at once that together would exceed the line: one is refused (the row lock orders them)', async () => {
  const { invoice, lines } = await paidInvoice(['10.00']);
  const outcomes = await Promise.allSettled([
    refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '6.00' }]),
    refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '6.00' }]),
  ]);
  const succeeded = outcomes.filter((o) => o.status === 'fulfilled');
  const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
  expect(succeeded).toHaveLength(1);
  expect(refused).toHaveLength(1);
  expect(['I122', 'I127']).toContain(toDomainError(refused[0]).code);
  const refunds = await em().find(Invoice, { refundedInvoice: invoice.id });
  expect(refunds.map((r) => r.totalGross)).toEqual(['-6.00']);
  expect((await invoiceRow(invoice.id)).state).toBe('ALLOWS_REFUND');
});

test('refusals: an unpaid invoice (I122), a line of another invoice (I405), more decimals than the currency (I131)', async () => {
  const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
  const open = await openInvoice(finance, customer, ['9.00']);
  const [openLine] = await linesOf(open.id);
  expect(await refusal(refund(open.id, [{ lineItemId: openLine!.id, amount: '1.00' }]))).toBe('I122');
  const { invoice, lines } = await paidInvoice(['9.00']);
  expect(await refusal(refund(invoice.id, [{ lineItemId: openLine!.id, amount: '1.00' }]))).toBe('I405');
  expect(await refusal(refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '1.005' }]))).toBe('I131');
  expect(await refusal(refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '0' }]))).toBe('I127');
  expect(await refusal(refund(invoice.id, []))).toBe('I127');
  // A refunding invoice cannot be refunded.
  const { refunding } = await refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '1.00' }]);
  const [refundLine] = await linesOf(refunding.id);
  expect(await refusal(refund(refunding.id, [{ lineItemId: refundLine!.id, amount: '1.00' }]))).toBe('I122');
});

test('a refund the gateway refuses: EXCEPTION_REFUND, not counted, and a later refund still succeeds', async () => {
  const { invoice, lines, payment } = await paidInvoice(['10.00']);
  const failed = await refund(
    invoice.id,
    [{ lineItemId: lines[0]!.id, amount: '10.00' }],
    'bank test sandbox:fail',
  );
  expect(failed.result.state).toBe('EXCEPTION_REFUND');
  expect(failed.refunding).toMatchObject({ state: 'IS_REFUND', settledAt: null, paymentReference: 'failed' });
  expect((await invoiceRow(invoice.id)).state).toBe('EXCEPTION_REFUND');
  const again = await refund(invoice.id, [{ lineItemId: lines[0]!.id, amount: '10.00' }]);
  expect(again.result.state).toBe('REFUNDED');
  expect((await invoiceRow(invoice.id)).state).toBe('REFUNDED');
  const charge = (await em().refresh(payment))!.gatewayReference!;
  expect(await gatewayRefunds(charge)).toEqual(['1000', '1000']);
});
