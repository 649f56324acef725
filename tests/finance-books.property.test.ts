// The books' property (issue 34), over HTTP against the real payment and refund workflows and the sandbox
// gateway: for random sequences of bill, pay, decline, retry, 3-D Secure, refund, collection, settle and
// credit, the reconciliation report of the business unit stays empty — paid = captured + taken from the
// balance, refunded ≤ paid, refunds moved = refunds booked, every balance the running sum of its rows with
// its events, every gateway charge one attempt's. fast-check with a fixed seed and a fixed number of runs.
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { Payment } from '../db/entities/Payment.js';
import type { CallOptions, Reply } from './support/http.js';
import { eventually, issueTestInvoice, testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);

type Token =
  | 'tok_sandbox_visa'
  | 'tok_sandbox_insufficient_funds_once'
  | 'tok_sandbox_insufficient_funds'
  | 'tok_sandbox_stolen_card'
  | 'tok_sandbox_3ds';

type Step =
  | { kind: 'retry' }
  | { kind: 'threeDs'; outcome: 'SUCCEEDED' | 'THREE_DS_FAILED' }
  | { kind: 'refund'; line: number; permille: number }
  | { kind: 'collect' }
  | { kind: 'settle' }
  | { kind: 'credit'; cents: number };

interface Scenario {
  token: Token;
  creditCents: number;
  lineCents: number[];
  discountPermille: number;
  steps: Step[];
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  token: fc.constantFrom<Token>(
    'tok_sandbox_visa',
    'tok_sandbox_insufficient_funds_once',
    'tok_sandbox_insufficient_funds',
    'tok_sandbox_stolen_card',
    'tok_sandbox_3ds',
  ),
  creditCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000 })),
  lineCents: fc.array(fc.integer({ min: 1, max: 4_000 }), { minLength: 1, maxLength: 3 }),
  discountPermille: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 900 })),
  steps: fc.array(
    fc.oneof(
      fc.constant<Step>({ kind: 'retry' }),
      fc.record({
        kind: fc.constant('threeDs' as const),
        outcome: fc.constantFrom<'SUCCEEDED' | 'THREE_DS_FAILED'>('SUCCEEDED', 'THREE_DS_FAILED'),
      }),
      fc.record({
        kind: fc.constant('refund' as const),
        line: fc.integer({ min: 0, max: 3 }),
        permille: fc.integer({ min: 1, max: 1_100 }),
      }),
      fc.constant<Step>({ kind: 'collect' }),
      fc.constant<Step>({ kind: 'settle' }),
      fc.record({ kind: fc.constant('credit' as const), cents: fc.integer({ min: -1_000, max: 2_000 }) }),
    ),
    { minLength: 1, maxLength: 6 },
  ),
});

const amount = (cents: Decimal.Value) => new Decimal(cents).div(100).toFixed(2);

/** Answers a step may get: success, or a refusal the state or the books explain (never a 500). */
const allowed: Record<Step['kind'], string[]> = {
  retry: ['P120', 'I125'],
  threeDs: ['PGS104', 'PGS404'],
  refund: ['I122', 'I127'],
  collect: ['I124'],
  settle: ['F207'],
  credit: ['J116'],
};

/** The invoice's newest payment, re-read. */
const latestPayment = (invoiceId: number) =>
  session.em().findOne(Payment, { invoice: invoiceId }, { orderBy: { id: 'desc' }, refresh: true });

/** Waits until nothing moves: no attempt at the gateway, no refund running. */
async function quiet(invoiceId: number): Promise<void> {
  await eventually(
    async () => {
      const invoice = (await call('GET', back(`/invoices/${invoiceId}`), { token: operator })).body;
      if (invoice.state === 'REFUND_IN_PROGRESS' || invoice.state === 'BILLED') return undefined;
      const payment = await latestPayment(invoiceId);
      if (payment && (payment.state === 'OPEN' || payment.state === 'IN_PAYMENT')) return undefined;
      return true;
    },
    30_000,
    `invoice ${invoiceId} to be quiet`,
  );
}

async function perform(step: Step, context: { invoiceId: number; balanceId: number; lines: InvoiceLine[] }) {
  const { invoiceId } = context;
  switch (step.kind) {
    case 'retry': {
      const payment = await latestPayment(invoiceId);
      if (!payment) return null;
      return call('POST', back(`/payments/${payment.id}/retry`), { token: operator });
    }
    case 'threeDs': {
      const payment = await latestPayment(invoiceId);
      if (!payment?.challenge?.url) return null;
      return call('POST', new URL(payment.challenge.url).pathname, { body: { outcome: step.outcome } });
    }
    case 'refund': {
      const line = context.lines[step.line % context.lines.length]!;
      const gross = new Decimal(line.gross).abs();
      const cents = Decimal.max(gross.times(step.permille).div(10).toDecimalPlaces(0), 1);
      return call('POST', back(`/invoices/${invoiceId}/refund`), {
        token: operator,
        body: { reason: 'Property', items: [{ lineItemId: line.id, amount: amount(cents) }] },
      });
    }
    case 'collect':
      return call('POST', back(`/invoices/${invoiceId}/mark-for-collection`), { token: operator });
    case 'settle':
      return call('POST', back(`/invoices/${invoiceId}/set-paid-externally`), { token: operator });
    case 'credit':
      return call('POST', back(`/balances/${context.balanceId}/updates`), {
        token: operator,
        body: { amount: amount(step.cents), description: 'Property credit' },
      });
  }
}

beforeAll(async () => {
  session = await startSession();
  operator = session.operatorToken;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

test('random bills, payments, retries, challenges, refunds, collections, settlements and credits keep the books reconciled', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async (plan) => {
      run += 1;
      const customerId = await testCustomer(session, { token: plan.token });
      const created = await call('POST', back('/balances'), {
        token: operator,
        body: {
          userId: customerId,
          businessUnitId: session.seed.businessUnitId,
          name: `Run ${run}`,
          defaultBalance: true,
        },
      });
      expect(created.status).toBe(201);
      const balanceId = created.body.id as number;
      if (plan.creditCents > 0)
        expect(
          (
            await call('POST', back(`/balances/${balanceId}/updates`), {
              token: operator,
              body: { amount: amount(plan.creditCents), description: 'Opening credit' },
            })
          ).status,
        ).toBe(201);
      const listed = plan.lineCents.reduce((sum, cents) => sum + cents, 0);
      const discount = Math.floor((listed * plan.discountPermille) / 1_000);
      const grosses = plan.lineCents.map(amount);
      if (discount > 0) grosses.push(amount(-discount));
      const invoiceId = await issueTestInvoice(session, {
        customerId,
        lines: grosses.map((gross) => ({ gross })),
      });
      const lines = await session
        .em()
        .find(InvoiceLine, { invoice: invoiceId }, { orderBy: { position: 'asc' } });
      const bill = await call('POST', back(`/invoices/${invoiceId}/bill`), { token: operator });
      expect(bill.status).toBe(200);
      await quiet(invoiceId);
      for (const step of plan.steps) {
        const reply = await perform(step, { invoiceId, balanceId, lines });
        if (reply && reply.status >= 400) {
          expect(reply.status).toBeLessThan(500);
          expect(allowed[step.kind]).toContain(reply.body.errorCode);
        }
        await quiet(invoiceId);
      }
      const report = await call(
        'GET',
        back(`/finance/reconciliation?businessUnitId=${session.seed.businessUnitId}`),
        { token: operator },
      );
      expect(report.status).toBe(200);
      expect(report.body.discrepancies).toEqual([]);
    }),
    { seed: 34, numRuns: 12, endOnFailure: true },
  );
}, 900_000);
