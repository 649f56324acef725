// The balance ledger's property, against the real database and API: for random sequences of ledger
// operations — manual credits and debits, keyed requests sent twice at once, voucher rows appended twice
// at once with one key, keys reused with other amounts, settlements by collection invoice — the value
// the API reads is always the sum of the balance's rows and the sum of the operations applied once. And
// the table is append-only: the trigger refuses UPDATE and DELETE.
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Balance } from '../db/entities/Balance.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { appendBalanceUpdate } from '../db/balance-ledger.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { formatAmount } from '../domain/money.js';
import { expectError, type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let operator: string;
let tenant: string;
const back = (path: string) => stack.back(path);
const em = () => tenantEm(stack.backend.orm, tenant);

type Operation =
  | { kind: 'manual'; cents: number }
  | { kind: 'keyed'; key: string; cents: number }
  | { kind: 'voucher'; key: string; cents: number }
  | { kind: 'collect' };

const cents = fc.integer({ min: -50_000, max: 50_000 }).filter((value) => value !== 0);
const key = fc.constantFrom('k1', 'k2', 'k3');
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('manual' as const), cents }),
  fc.record({ kind: fc.constant('keyed' as const), key, cents }),
  fc.record({ kind: fc.constant('voucher' as const), key, cents: fc.integer({ min: 0, max: 20_000 }) }),
  fc.record({ kind: fc.constant('collect' as const) }),
);

const amountOf = (value: number) => new Decimal(value).div(100).toFixed(2);

/** The ledger's sum, read from the table itself. */
async function sumOfRows(balanceId: number): Promise<Decimal> {
  const [row] = await em().execute<[{ value: string }]>(
    'select coalesce(sum(amount), 0)::text as value from balance_update where balance_id = ?',
    [balanceId],
  );
  return new Decimal(row!.value);
}

beforeAll(async () => {
  session = await startSession();
  ({ stack, operatorToken: operator } = session);
  tenant = session.seed.tenant;
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

let run = 0;

test('the value the API reads is the sum of the rows and of the operations applied once', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 10 }), async (operations) => {
      run += 1;
      const created = await stack.call('POST', back('/balances'), {
        token: operator,
        body: {
          userId: session.seed.customerIds[run % 4]!,
          businessUnitId: session.seed.businessUnitId,
          name: `Property ${run}`,
        },
      });
      expect(created.status).toBe(201);
      const balanceId: number = created.body.id;
      let expected = new Decimal(0);
      let rows = 0;
      const keyed = new Map<string, string>();
      const vouchers = new Set<string>();
      const postUpdate = (amount: string, idempotencyKey?: string) =>
        stack.call('POST', back(`/balances/${balanceId}/updates`), {
          token: operator,
          body: { amount, description: 'property', ...(idempotencyKey ? { idempotencyKey } : {}) },
        });

      for (const op of operations) {
        if (op.kind === 'manual') {
          const reply = await postUpdate(amountOf(op.cents));
          expect(reply.status).toBe(201);
          expected = expected.plus(amountOf(op.cents));
          rows += 1;
        } else if (op.kind === 'keyed') {
          // The same request twice at once: one row, both answered with it.
          const amount = amountOf(op.cents);
          const replies = await Promise.all([postUpdate(amount, op.key), postUpdate(amount, op.key)]);
          const earlier = keyed.get(op.key);
          if (earlier === undefined) {
            expect(replies.map((reply) => reply.status).sort()).toEqual([200, 201]);
            expect(replies[0]!.body.id).toBe(replies[1]!.body.id);
            keyed.set(op.key, amount);
            expected = expected.plus(amount);
            rows += 1;
          } else if (new Decimal(earlier).eq(amount)) {
            expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
          } else for (const reply of replies) expectError(reply, 409, 'J115');
        } else if (op.kind === 'voucher') {
          // A voucher's credit appended twice at once under its key (as a retried activity would).
          const idempotencyKey = `property:${balanceId}:voucher:${op.key}`;
          const append = () =>
            inTenantTransaction(stack.backend.orm, tenant, async (tx) => {
              const balance = await tx.findOneOrFail(Balance, balanceId);
              await appendBalanceUpdate(tx, {
                balance,
                kind: 'VOUCHER',
                amount: amountOf(op.cents),
                description: 'voucher',
                createdBy: 'system',
                idempotencyKey,
                voucherId: 1,
              });
            });
          const outcomes = await Promise.allSettled([append(), append()]);
          expect(outcomes.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
          for (const outcome of outcomes)
            if (outcome.status === 'rejected')
              expect(outcome.reason).toBeInstanceOf(UniqueConstraintViolationException);
          if (!vouchers.has(op.key)) {
            vouchers.add(op.key);
            expected = expected.plus(amountOf(op.cents));
            rows += 1;
          }
        } else {
          const reply = await stack.call(
            'POST',
            back(`/balances/${balanceId}/settle-by-collection-invoice`),
            {
              token: operator,
            },
          );
          if (expected.lt(0)) {
            expect(reply.status).toBe(201);
            expect(reply.body.amount).toBe(formatAmount(expected.neg(), 'EUR'));
            expected = new Decimal(0);
            rows += 1;
          } else expectError(reply, 422, 'J100');
        }
        const read = await stack.call('GET', back(`/balances/${balanceId}`), { token: operator });
        expect(read.body.value).toBe(formatAmount(expected, 'EUR'));
        expect((await sumOfRows(balanceId)).eq(expected)).toBe(true);
      }
      const [extended, updates] = await Promise.all([
        stack.call('GET', back(`/balances/extended?balanceId=${balanceId}`), { token: operator }),
        stack.call('GET', back(`/balances/${balanceId}/updates?size=200`), { token: operator }),
      ]);
      expect(extended.body[0]).toMatchObject({ value: formatAmount(expected, 'EUR'), updateCount: rows });
      expect(updates.headers.get('x-total-count')).toBe(String(rows));
      const listed = updates.body as { amount: string; valueAfter: string }[];
      expect(listed.reduce((sum, row) => sum.plus(row.amount), new Decimal(0)).eq(expected)).toBe(true);
      if (listed.length > 0) expect(listed[0]!.valueAfter).toBe(formatAmount(expected, 'EUR'));
    }),
    { numRuns: 50 },
  );
}, 600_000);

test('the ledger is append-only: the trigger refuses UPDATE and DELETE', async () => {
  const created = await stack.call('POST', back('/balances'), {
    token: operator,
    body: {
      userId: session.seed.customerIds[0]!,
      businessUnitId: session.seed.businessUnitId,
      name: 'Append-only',
    },
  });
  const balanceId: number = created.body.id;
  const posted = await stack.call('POST', back(`/balances/${balanceId}/updates`), {
    token: operator,
    body: { amount: '-4.20', description: 'fee' },
  });
  expect(posted.status).toBe(201);
  const rowId: number = posted.body.id;
  for (const statement of [
    ['update balance_update set amount = 0 where id = ?', [rowId]],
    ['update balance_update set description = ? where id = ?', ['edited', rowId]],
    ['delete from balance_update where id = ?', [rowId]],
    ['delete from balance_update where balance_id = ?', [balanceId]],
  ] as const)
    await expect(em().execute(statement[0], [...statement[1]])).rejects.toThrow(/append-only/);
  await expect(em().nativeUpdate(BalanceUpdate, { id: rowId }, { amount: '100' })).rejects.toThrow(
    /append-only/,
  );
  await expect(em().nativeDelete(BalanceUpdate, { id: rowId })).rejects.toThrow(/append-only/);
  const row = await em().findOneOrFail(BalanceUpdate, rowId);
  expect(row.amount).toBe('-4.20');
  const read = await stack.call('GET', back(`/balances/${balanceId}`), { token: operator });
  expect(read.body.value).toBe('-4.20');
});
