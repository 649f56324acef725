// The payment workflow on the time-skipping test server, with real activities, PostgreSQL and the sandbox
// gateway: the whole retry schedule (16 days of retries in seconds) ending FAILED, a decline that succeeds
// on the second attempt, a gateway's Retry-After winning over the schedule, 3-D Secure challenges that
// time out and that the customer completes (through the sandbox's challenge page and the webhook path),
// a push the bank refuses, a manual retry waking an AWAITING_RETRY payment early, P120 refusals, a payment
// without a source (P104), collections, balance settlements, credit applied when billing, and automatic
// billing of an ended rental's invoice (and not when the tenant's setting disables it).
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Balance } from '../db/entities/Balance.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentAttempt } from '../db/entities/PaymentAttempt.js';
import { Rental } from '../db/entities/Rental.js';
import { Setting } from '../db/entities/Setting.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { appendBalanceUpdate } from '../db/balance-ledger.js';
import { tenantEm } from '../db/orm.js';
import { DAY_MS, PAYMENT_RETRY_SETTING_KEY } from '../domain/finance.js';
import { DomainError } from '../domain/errors.js';
import {
  closePaymentUpdate,
  paymentStatusQuery,
  paymentWorkflowId,
  retryPaymentUpdate,
  type PaymentWorkflowSnapshot,
} from '../workflows/payment.messages.js';
import type { paymentWorkflow } from '../workflows/payment.js';
import {
  awaitReservationUpdate,
  rentalOperationUpdate,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
} from '../workflows/rental.messages.js';
import type { rentalWorkflow } from '../workflows/rental.js';
import { autoBillInvoice } from '../activities/payment-billing.js';
import { closePayment, retryPayment, startBalanceSettlement } from '../api/shared/payment-commands.js';
import { startHttpStack, type HttpStack } from './support/http.js';
import { eventually } from './support/invoices.js';
import {
  addDefaultSource,
  billAndPay,
  commandContext,
  openInvoice,
  payingCustomer,
  type FinanceBackend,
  financeOf,
  withAutoBillOff,
} from './support/payments.js';

let stack: HttpStack;
let finance: FinanceBackend;
const HOUR_MS = 3_600_000;

beforeAll(async () => {
  stack = await startHttpStack({ timeSkipping: true });
  const { backend } = stack;
  finance = financeOf(backend);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const em = () => tenantEm(finance.orm, finance.tenant);
const seededCustomer = () => stack.backend.seed.customerIds[0]!;

/** A customer paying with `token`, an invoice of these lines billed, and its payment's workflow. */
async function pay(token: string | null, grosses = ['24.99']) {
  const customer = await payingCustomer(finance, seededCustomer(), token);
  const invoice = await openInvoice(finance, customer, grosses);
  const payment = await billAndPay(finance, invoice.id);
  const handle = finance.client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
  return { customer, invoice, payment, handle };
}

/** Waits until the workflow's status query says the payment left the states in `leaving`. */
async function settled(
  handle: WorkflowHandle<typeof paymentWorkflow>,
  done: (snapshot: PaymentWorkflowSnapshot) => boolean,
): Promise<PaymentWorkflowSnapshot> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const snapshot = await handle.query(paymentStatusQuery);
    if (done(snapshot) && !snapshot.operationInProgress) return snapshot;
    if (Date.now() > deadline) throw new Error(`payment still ${snapshot.state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const attemptsOf = (paymentId: number) =>
  em().find(PaymentAttempt, { payment: paymentId }, { orderBy: { number: 'asc' } });
const paymentRow = (id: number) => em().findOneOrFail(Payment, id);
const invoiceRow = (id: number) => em().findOneOrFail(Invoice, id);

/** How the run's history took its charges: local activities (markers), activities and workflow tasks. */
async function historyCounts(handle: WorkflowHandle<typeof paymentWorkflow>) {
  const events = (await handle.fetchHistory()).events ?? [];
  const count = (has: (event: (typeof events)[number]) => unknown) => events.filter(has).length;
  return {
    localActivities: count((event) => event.markerRecordedEventAttributes),
    activities: count((event) => event.activityTaskScheduledEventAttributes),
    workflowTasks: count((event) => event.workflowTaskCompletedEventAttributes),
  };
}

/** The catalogue code of a refused update. */
async function refusedCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure)
      return error.cause.type ?? undefined;
    throw error;
  }
  return undefined;
}

test('a payment paid on its first attempt: PAID, invoice PAID with settledAt and the charge reference', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_visa');
  expect(payment.workflowId).toBe(paymentWorkflowId(finance.tenant, payment.id));
  const result = await handle.result();
  expect(result).toMatchObject({ state: 'PAID', attemptCount: 1 });
  const row = await paymentRow(payment.id);
  expect(row.state).toBe('PAID');
  expect(row.gatewayReference).toMatch(/^ch_sandbox_/);
  const billed = await invoiceRow(invoice.id);
  expect(billed.state).toBe('PAID');
  expect(billed.billedAt).toBeInstanceOf(Date);
  expect(billed.settledAt).toBeInstanceOf(Date);
  expect(billed.paymentReference).toBe(row.gatewayReference);
  const [attempt] = await attemptsOf(payment.id);
  expect(attempt).toMatchObject({ number: 1, state: 'SUCCEEDED', trigger: 'FIRST' });
  expect(attempt!.idempotencyKey).toBe(`${payment.workflowId}/${(await handle.describe()).runId}/attempt-1`);
  expect(attempt!.finishedAt).toBeInstanceOf(Date);
  // The workflow's search attribute follows the state.
  const described = await handle.describe();
  expect(described.searchAttributes.EntityState).toEqual(['PAID']);
  // The first charge ran as a local activity inside the first workflow task: no activity task at all.
  expect(await historyCounts(handle)).toMatchObject({ localActivities: 1, activities: 0, workflowTasks: 1 });
});

test('the whole retry schedule: five soft declines 1, 3, 5 and 7 days apart end FAILED, invoice EXCEPTION_PAYING', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_insufficient_funds');
  const waiting = await settled(handle, (s) => s.state === 'AWAITING_RETRY');
  expect(waiting.attemptCount).toBe(1);
  expect((await invoiceRow(invoice.id)).state).toBe('IN_PAYMENT');
  const afterFirst = await paymentRow(payment.id);
  expect(afterFirst.nextRetryAt!.getTime()).toBe(waiting.nextRetryAtMs);
  expect(afterFirst.failureCode).toBe('insufficient_funds');

  const result = await handle.result(); // the time-skipping server skips the 16 days
  expect(result).toMatchObject({ state: 'FAILED', attemptCount: 5, nextRetryAtMs: null });
  const attempts = await attemptsOf(payment.id);
  expect(attempts.map((a) => [a.number, a.trigger, a.state, a.declineCode])).toEqual([
    [1, 'FIRST', 'SOFT_DECLINED', 'insufficient_funds'],
    [2, 'SCHEDULED', 'SOFT_DECLINED', 'insufficient_funds'],
    [3, 'SCHEDULED', 'SOFT_DECLINED', 'insufficient_funds'],
    [4, 'SCHEDULED', 'SOFT_DECLINED', 'insufficient_funds'],
    [5, 'SCHEDULED', 'SOFT_DECLINED', 'insufficient_funds'],
  ]);
  const gaps = attempts
    .slice(1)
    .map((a, i) => (a.startedAt.getTime() - attempts[i]!.startedAt.getTime()) / DAY_MS);
  gaps.forEach((gap, i) => expect(gap).toBeCloseTo([1, 3, 5, 7][i]!, 3));
  // Every attempt reached the gateway once, with its own key.
  const keys = attempts.map((a) => a.idempotencyKey);
  expect(new Set(keys).size).toBe(5);
  const operations = await finance.orm.em
    .getConnection()
    .execute<{ count: string }[]>(
      `select count(*)::text as count from sandbox_gateway_operation where idempotency_key in (?)`,
      [keys],
    );
  expect(operations[0]!.count).toBe('5');
  const failed = await paymentRow(payment.id);
  expect(failed).toMatchObject({ state: 'FAILED', failureCode: 'insufficient_funds', nextRetryAt: null });
  expect((await invoiceRow(invoice.id)).state).toBe('EXCEPTION_PAYING');
});

test('a card declined once succeeds on the second, scheduled attempt', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_insufficient_funds_once');
  expect(await handle.result()).toMatchObject({ state: 'PAID', attemptCount: 2 });
  expect((await attemptsOf(payment.id)).map((a) => [a.trigger, a.state])).toEqual([
    ['FIRST', 'SOFT_DECLINED'],
    ['SCHEDULED', 'SUCCEEDED'],
  ]);
  expect((await invoiceRow(invoice.id)).state).toBe('PAID');
});

test("a gateway's Retry-After wins over the schedule: retries an hour apart", async () => {
  const { payment, handle } = await pay('tok_sandbox_retry_after');
  const waiting = await settled(handle, (s) => s.state === 'AWAITING_RETRY');
  const [first] = await attemptsOf(payment.id);
  expect(first!.retryAfterSeconds).toBe(3600);
  expect(waiting.nextRetryAtMs! - first!.startedAt.getTime()).toBe(HOUR_MS);
  expect(await handle.result()).toMatchObject({ state: 'FAILED', attemptCount: 5 });
  const attempts = await attemptsOf(payment.id);
  attempts
    .slice(1)
    .forEach((a, i) =>
      expect(a.startedAt.getTime() - attempts[i]!.startedAt.getTime()).toBeLessThan(HOUR_MS + 60_000),
    );
});

test('a gateway that does not answer is retried with the same key: one attempt, one charge', async () => {
  // tok_sandbox_timeout: the charge is booked and its answer lost (3 s here). The local first charge gives up
  // after FIRST_CHARGE_LOCAL_MS; the charge activity sends the same key and gets the booked charge.
  const { payment, handle } = await pay('tok_sandbox_timeout');
  expect(await handle.result()).toMatchObject({ state: 'PAID', attemptCount: 1 });
  const attempts = await attemptsOf(payment.id);
  expect(attempts.map((a) => [a.number, a.state])).toEqual([[1, 'SUCCEEDED']]);
  const rows = await finance.orm.em
    .getConnection()
    .execute<{ count: string }[]>(
      `select count(*)::text as count from sandbox_gateway_operation where idempotency_key = ?`,
      [attempts[0]!.idempotencyKey],
    );
  expect(rows[0]!.count).toBe('1');
  // The local first charge outlasted its bound, and the charge activity took it over under the same key.
  expect(await historyCounts(handle)).toMatchObject({ localActivities: 1, activities: 1 });
});

test('a withdrawal sent while an attempt runs waits for it and answers from the state it left; other closes are refused at once', async () => {
  // tok_sandbox_timeout holds the local first charge past its bound; the charge activity that takes it over
  // gets the booked charge at once, and then waits to record it behind the attempt's row, held here.
  const { payment, handle } = await pay('tok_sandbox_timeout');
  const [attempt] = await eventually(async () => {
    const attempts = await attemptsOf(payment.id);
    return attempts.length > 0 ? attempts : undefined;
  });
  const holder = finance.orm.em.fork();
  await holder.begin();
  try {
    await holder.execute(`select id from payment_attempt where id = ? for update`, [attempt!.id]);
    const deadline = Date.now() + 30_000;
    while (!(await handle.query(paymentStatusQuery)).operationInProgress) {
      if (Date.now() > deadline) throw new Error('the charge activity never took over');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const close = (event: 'COLLECTIONS' | 'WITHDRAWN') =>
      handle.executeUpdate(closePaymentUpdate, { args: [{ requestedBy: 'operator:test', event }] });
    // An operator's close meets the busy payment and is refused by the validator: not in the history.
    expect(await refusedCode(close('COLLECTIONS'))).toBe('I124');
    // A purchase's withdrawal is accepted and waits for the attempt.
    const withdrawal = refusedCode(close('WITHDRAWN'));
    await eventually(async () =>
      (await handle.fetchHistory()).events!.some(
        (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
      )
        ? true
        : undefined,
    );
    await holder.rollback();
    // The attempt left the payment PAID: no transition to WITHDRAWN from there, so the handler refuses it
    // (P120, the API's code for a refused withdrawal) and the payment stays PAID.
    expect(await withdrawal).toBe('P120');
  } finally {
    if (holder.isInTransaction()) await holder.rollback();
  }
  expect((await handle.result()).state).toBe('PAID');
  const accepted = (await handle.fetchHistory()).events!.filter(
    (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
  );
  expect(accepted).toHaveLength(1);
});

test('a stolen card is a hard decline: FAILED at once', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_stolen_card');
  expect(await handle.result()).toMatchObject({ state: 'FAILED', attemptCount: 1 });
  expect((await attemptsOf(payment.id)).map((a) => a.state)).toEqual(['HARD_DECLINED']);
  expect((await paymentRow(payment.id)).failureCode).toBe('stolen_card');
  expect((await invoiceRow(invoice.id)).state).toBe('EXCEPTION_PAYING');
});

test('a manual retry wakes an AWAITING_RETRY payment early; the new card is charged and the retry recorded', async () => {
  const { customer, invoice, payment, handle } = await pay('tok_sandbox_insufficient_funds');
  const waiting = await settled(handle, (s) => s.state === 'AWAITING_RETRY');
  await addDefaultSource(finance, customer.id, 'tok_sandbox_visa');
  const before = await stack.backend.testEnv!.currentTimeMs();
  const retried = await handle.executeUpdate(retryPaymentUpdate, {
    args: [{ requestedBy: 'customer:test' }],
  });
  expect(retried).toMatchObject({ state: 'PAID', attemptCount: 2 });
  expect(before).toBeLessThan(waiting.nextRetryAtMs!);
  const attempts = await attemptsOf(payment.id);
  expect(attempts.map((a) => [a.trigger, a.state])).toEqual([
    ['FIRST', 'SOFT_DECLINED'],
    ['MANUAL', 'SUCCEEDED'],
  ]);
  expect(attempts[1]!.startedAt.getTime()).toBeLessThan(waiting.nextRetryAtMs!);
  expect((await invoiceRow(invoice.id)).state).toBe('PAID');
  const events = await em().find(Event, { type: 'INVOICE_RETRY_PAYMENT', customerId: customer.id });
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({
    adminSubject: 'customer:test',
    payload: { invoiceId: invoice.id, paymentId: payment.id, attempt: 2 },
  });
  expect((await handle.result()).state).toBe('PAID');
  // PAID: no retry (P120), whether through the command or a late Update.
  const ctx = commandContext(finance);
  expect(await refusedCode(retryPayment(ctx, await paymentRow(payment.id), 'operator:test'))).toBe('P120');
});

test('a payment without a payment source declines softly (P104) and is charged once the customer adds one', async () => {
  const { customer, payment, handle } = await pay(null);
  await settled(handle, (s) => s.state === 'AWAITING_RETRY');
  const [first] = await attemptsOf(payment.id);
  expect(first).toMatchObject({ state: 'SOFT_DECLINED', declineCode: 'P104' });
  expect((await paymentRow(payment.id)).failureCode).toBe('P104');
  await addDefaultSource(finance, customer.id, 'tok_sandbox_visa');
  expect(await handle.result()).toMatchObject({ state: 'PAID', attemptCount: 2 });
});

test('a 3-D Secure challenge nobody answers times out (THREE_DS_FAILED), waits for a retry, then FAILS', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_3ds');
  const waiting = await settled(handle, (s) => s.state === 'THREE_DS_WAITING_FOR_USER');
  expect(waiting.challenge).toMatchObject({ type: 'THREE_DS' });
  expect(waiting.challenge!.url).toContain('/sandbox-gateway/challenges/ch_sandbox_');
  const [attempt] = await attemptsOf(payment.id);
  expect(Date.parse(waiting.challenge!.expiresAt) - attempt!.startedAt.getTime()).toBe(30 * 60_000);
  expect((await invoiceRow(invoice.id)).state).toBe('THREE_DS_WAITING_FOR_USER');
  expect((await paymentRow(payment.id)).challenge).toEqual(waiting.challenge);
  // Waiting for the customer: no manual retry (P120).
  expect(
    await refusedCode(handle.executeUpdate(retryPaymentUpdate, { args: [{ requestedBy: 'operator:test' }] })),
  ).toBe('P120');

  await stack.backend.testEnv!.sleep(31 * 60_000);
  const failed = await settled(handle, (s) => s.state === 'THREE_DS_FAILED');
  expect(failed.challenge).toBeNull();
  expect((await attemptsOf(payment.id))[0]).toMatchObject({ state: 'CHALLENGE_EXPIRED' });
  expect((await invoiceRow(invoice.id)).state).toBe('THREE_DS_FAILED');

  expect(await handle.result()).toMatchObject({ state: 'FAILED', attemptCount: 1 });
  expect((await invoiceRow(invoice.id)).state).toBe('EXCEPTION_PAYING');
});

test('a 3-D Secure challenge the customer completes on the sandbox page (its signed webhook) makes the payment PAID', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_3ds');
  const waiting = await settled(handle, (s) => s.state === 'THREE_DS_WAITING_FOR_USER');
  const reference = waiting.challenge!.url!.split('/').pop()!;
  const answered = await stack.call('POST', stack.front(`/sandbox-gateway/challenges/${reference}`), {
    body: { outcome: 'SUCCEEDED' },
  });
  expect(answered.status).toBe(200);
  expect(answered.body.webhook.result).toBe('APPLIED');
  expect(await handle.result()).toMatchObject({ state: 'PAID', attemptCount: 1 });
  expect((await attemptsOf(payment.id))[0]).toMatchObject({
    state: 'SUCCEEDED',
    gatewayReference: reference,
  });
  const paid = await invoiceRow(invoice.id);
  expect(paid.state).toBe('PAID');
  expect(paid.paymentReference).toBe(reference);
});

test('a push the bank refuses: PUSH_BANK_REFUSED, then a manual retry with another card is PAID', async () => {
  const { customer, invoice, payment, handle } = await pay('tok_sandbox_push');
  const waiting = await settled(handle, (s) => s.state === 'PUSH_WAITING_FOR_USER');
  expect(waiting.challenge).toMatchObject({ type: 'PUSH', url: null });
  const [attempt] = await attemptsOf(payment.id);
  // The customer refuses in the bank app (the sandbox's challenge page stands for it).
  const answered = await stack.call(
    'POST',
    stack.front(`/sandbox-gateway/challenges/${attempt!.gatewayReference}`),
    {
      body: { outcome: 'PUSH_BANK_REFUSED' },
    },
  );
  expect(answered.status).toBe(200);
  expect(answered.body.webhook.result).toBe('APPLIED');
  await settled(handle, (s) => s.state === 'PUSH_BANK_REFUSED');
  expect((await invoiceRow(invoice.id)).state).toBe('PUSH_BANK_REFUSED');
  expect((await attemptsOf(payment.id))[0]!.state).toBe('PUSH_BANK_REFUSED');
  await addDefaultSource(finance, customer.id, 'tok_sandbox_visa');
  const retried = await retryPayment(commandContext(finance), await paymentRow(payment.id), 'customer:test');
  expect(retried).toMatchObject({ id: payment.id, state: 'PAID', attemptCount: 2 });
  expect((await handle.result()).state).toBe('PAID');
});

test('a FAILED payment retried by hand: a new payment for the unpaid invoice, its first attempt MANUAL', async () => {
  const { customer, invoice, payment, handle } = await pay('tok_sandbox_stolen_card');
  expect((await handle.result()).state).toBe('FAILED');
  await addDefaultSource(finance, customer.id, 'tok_sandbox_visa');
  const ctx = commandContext(finance, 'operator:retry');
  const next = await retryPayment(ctx, await paymentRow(payment.id), 'operator:retry');
  expect(next.id).not.toBe(payment.id);
  expect(next.invoice!.id).toBe(invoice.id);
  const nextHandle = finance.client.workflow.getHandle<typeof paymentWorkflow>(next.workflowId);
  expect((await nextHandle.result()).state).toBe('PAID');
  expect((await attemptsOf(next.id)).map((a) => [a.trigger, a.state])).toEqual([['MANUAL', 'SUCCEEDED']]);
  expect((await invoiceRow(invoice.id)).state).toBe('PAID');
  const [event] = await em().find(Event, { type: 'INVOICE_RETRY_PAYMENT', customerId: customer.id });
  expect(event).toMatchObject({
    adminSubject: 'operator:retry',
    payload: { paymentId: next.id, attempt: 1 },
  });
  // The same retry again answers the payment it made (the request is idempotent per failed payment).
  expect((await retryPayment(ctx, await paymentRow(payment.id), 'operator:retry')).id).toBe(next.id);
});

test('collections: an AWAITING_RETRY payment closed by its workflow, then paid externally', async () => {
  const { invoice, payment, handle } = await pay('tok_sandbox_insufficient_funds');
  await settled(handle, (s) => s.state === 'AWAITING_RETRY');
  const ctx = commandContext(finance);
  // Paid externally is allowed only from the table's states: an AWAITING_RETRY payment may.
  const collected = await closePayment(ctx, await paymentRow(payment.id), 'COLLECTIONS', 'operator:test');
  expect(collected.state).toBe('COLLECTIONS');
  expect((await handle.result()).state).toBe('COLLECTIONS');
  expect((await invoiceRow(invoice.id)).state).toBe('COLLECTION');
  expect(
    await refusedCode(closePayment(ctx, await paymentRow(payment.id), 'COLLECTIONS', 'operator:test')),
  ).toBe('I124');
  const paid = await closePayment(ctx, await paymentRow(payment.id), 'PAID_EXTERNALLY', 'operator:test');
  expect(paid.state).toBe('PAID');
  const settledInvoice = await invoiceRow(invoice.id);
  expect(settledInvoice.state).toBe('PAID_EXTERNALLY');
  expect(settledInvoice.settledAt).toBeInstanceOf(Date);
});

test('a balance settlement charges what the balance owes and appends the SETTLEMENT row', async () => {
  const customer = await payingCustomer(finance, seededCustomer(), 'tok_sandbox_visa');
  const manager = em();
  const balance = manager.create(Balance, {
    businessUnit: customer.homeBusinessUnit!,
    customer,
    name: 'Main',
    currency: 'EUR',
    isDefault: true,
  });
  await manager.flush();
  await appendBalanceUpdate(manager, {
    balance,
    kind: 'MANUAL_CREDIT',
    amount: '-12.30',
    description: 'debit',
    createdBy: 'operator:test',
    idempotencyKey: `test-debit-${balance.id}`,
  });
  await manager.flush();
  const ctx = commandContext(finance);
  const payment = await startBalanceSettlement(ctx, balance, 'operator:test');
  expect(payment).toMatchObject({ purpose: 'BALANCE_SETTLEMENT', amount: '12.30' });
  expect(await refusedCode(startBalanceSettlement(commandContext(finance), balance, 'operator:test'))).toBe(
    'J104',
  );
  const handle = finance.client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
  expect((await handle.result()).state).toBe('PAID');
  const rows = await em().find(BalanceUpdate, { balance: balance.id }, { orderBy: { id: 'asc' } });
  expect(rows.map((row) => [row.kind, row.amount])).toEqual([
    ['MANUAL_CREDIT', '-12.30'],
    ['SETTLEMENT', '12.30'],
  ]);
  expect(await em().count(Event, { type: 'BALANCE_SETTLEMENT_SUCCESSFUL', customerId: customer.id })).toBe(1);
  expect(await refusedCode(startBalanceSettlement(commandContext(finance), balance, 'operator:test'))).toBe(
    'J100',
  );
});

test('billing applies the default balance credit first: covered in full, the invoice is PAID without a payment', async () => {
  const customer = await payingCustomer(finance, seededCustomer(), 'tok_sandbox_visa');
  const manager = em();
  const balance = manager.create(Balance, {
    businessUnit: customer.homeBusinessUnit!,
    customer,
    name: 'Main',
    currency: 'EUR',
    isDefault: true,
  });
  await manager.flush();
  await appendBalanceUpdate(manager, {
    balance,
    kind: 'MANUAL_CREDIT',
    amount: '10.00',
    description: 'credit',
    createdBy: 'operator:test',
    idempotencyKey: `test-credit-${balance.id}`,
  });
  await manager.flush();
  const small = await openInvoice(finance, customer, ['4.00']);
  await expect(billAndPay(finance, small.id)).rejects.toThrow(/not billed with a payment/);
  expect((await invoiceRow(small.id)).state).toBe('PAID');
  const large = await openInvoice(finance, customer, ['20.00']);
  const payment = await billAndPay(finance, large.id);
  expect(payment.amount).toBe('14.00');
  const handle = finance.client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
  expect((await handle.result()).state).toBe('PAID');
  const rows = await em().find(BalanceUpdate, { balance: balance.id }, { orderBy: { id: 'asc' } });
  expect(rows.map((row) => [row.kind, row.amount])).toEqual([
    ['MANUAL_CREDIT', '10.00'],
    ['INVOICE', '-4.00'],
    ['INVOICE', '-6.00'],
  ]);
});

test('the retry schedule comes from the finance.payment.retry setting', async () => {
  const manager = em();
  manager.create(Setting, {
    key: PAYMENT_RETRY_SETTING_KEY,
    name: 'Payment retries',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { retryDays: [2] },
  });
  await manager.flush();
  try {
    const { payment, handle } = await pay('tok_sandbox_insufficient_funds');
    expect(await handle.result()).toMatchObject({ state: 'FAILED', attemptCount: 2 });
    const attempts = await attemptsOf(payment.id);
    expect((attempts[1]!.startedAt.getTime() - attempts[0]!.startedAt.getTime()) / DAY_MS).toBeCloseTo(2, 3);
  } finally {
    await em().nativeDelete(Setting, { key: PAYMENT_RETRY_SETTING_KEY });
  }
});

describe('automatic billing (finance.invoice.autoBill, enabled by default)', () => {
  const MINUTE = 60_000;

  /** A rental of the vehicle at `vehicleIndex` by the customer: reserved, started, driven, ended; its invoice. */
  async function rentalInvoice(customerId: number, vehicleIndex: number): Promise<Invoice> {
    const { backend } = stack;
    const vehicle = (await em().find(Vehicle, {}, { orderBy: { id: 'asc' } }))[vehicleIndex]!;
    const [{ id: rentalId }] = await em().execute<[{ id: number }]>(
      `select nextval('rental_id_seq')::int as id`,
    );
    const handle = await backend.client.workflow.start<typeof rentalWorkflow>(
      RENTAL_WORKFLOW_TYPE,
      rentalWorkflowStartOptions(
        {
          tenant: finance.tenant,
          rentalId,
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          customerId,
          requestedBy: 'client:test',
          startImmediately: false,
        },
        backend.taskQueue,
      ),
    );
    expect((await handle.executeUpdate(awaitReservationUpdate)).state).toBe('RESERVATION');
    const operate = (operationType: 'START' | 'END') =>
      handle.executeUpdate(rentalOperationUpdate, { args: [{ operationType, requestedBy: 'client:test' }] });
    expect((await operate('START')).state).toBe('ACTIVE');
    await backend.testEnv!.sleep(20 * MINUTE);
    backend.simulator.ride(String(vehicle.id), 400);
    expect((await operate('END')).state).toBe('ENDED');
    // END answers once the rental is ended and priced; its worker bills the invoice after the answer.
    expect(await handle.result()).toMatchObject({ state: 'ENDED' });
    const rental = await em().findOneOrFail(Rental, rentalId);
    return em().findOneOrFail(Invoice, rental.invoice!.id);
  }

  /** The invoice once its automatic bill ran (BILLED or beyond). */
  const billed = (invoiceId: number) =>
    eventually(
      async () => {
        const invoice = await em().findOneOrFail(Invoice, invoiceId, { refresh: true });
        return invoice.state === 'OPEN' ? undefined : invoice;
      },
      60_000,
      `invoice ${invoiceId} billed`,
    );

  test("an ended rental's invoice is billed after END answered and its payment collects it", async () => {
    const customer = await payingCustomer(finance, seededCustomer(), 'tok_sandbox_visa');
    const invoice = await billed((await rentalInvoice(customer.id, 0)).id);
    expect(invoice.billedAt).toBeInstanceOf(Date);
    const payment = await em().findOneOrFail(Payment, { invoice: invoice.id });
    expect(payment).toMatchObject({
      purpose: 'INVOICE',
      requestedBy: 'system:auto-bill',
      amount: invoice.totalGross,
    });
    const handle = finance.client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
    expect((await handle.result()).state).toBe('PAID');
    expect((await invoiceRow(invoice.id)).state).toBe('PAID');
  });

  test('with finance.invoice.autoBill disabled the invoice stays OPEN, without a payment', async () => {
    await withAutoBillOff(finance.orm, finance.tenant, async () => {
      const customer = await payingCustomer(finance, seededCustomer(), 'tok_sandbox_visa');
      const invoice = await rentalInvoice(customer.id, 1);
      expect(invoice.state).toBe('OPEN');
      expect(await em().count(Payment, { invoice: invoice.id })).toBe(0);
    });
  });

  test('a retried billing of the same invoice starts its payment once', async () => {
    const customer = await payingCustomer(finance, seededCustomer(), 'tok_sandbox_visa');
    const invoice = await openInvoice(finance, customer, ['5.00']);
    const deps = {
      orm: finance.orm,
      paymentGateways: finance.paymentGateways,
      temporal: { client: finance.client, taskQueue: finance.taskQueue },
    };
    const [first, again] = [
      await autoBillInvoice(deps, finance.tenant, invoice.id, 'activity-key'),
      await autoBillInvoice(deps, finance.tenant, invoice.id, 'activity-key'),
    ];
    // The second billing finds the payment the first one made while it still runs (and starts it again, a
    // no-op), or nothing to start once it has settled meanwhile: either way one payment, charged once.
    if (again !== null) expect(again.id).toBe(first!.id);
    expect(await em().count(Payment, { invoice: invoice.id })).toBe(1);
    const handle = finance.client.workflow.getHandle<typeof paymentWorkflow>(first!.workflowId);
    expect((await handle.result()).state).toBe('PAID');
    expect(await em().count(PaymentAttempt, { payment: first!.id })).toBe(1);
  });
});
