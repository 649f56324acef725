// The balance ledger's two primitives: append a row (once per cause) and read a balance's value as the
// sum of its rows. Every writer of balances (settlements, manual credit, invoices, vouchers) goes through
// `appendBalanceUpdate`; the table refuses updates and deletes (a trigger), so the sum is the truth.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Balance } from './entities/Balance.js';
import { BalanceUpdate } from './entities/BalanceUpdate.js';
import { Decimal } from 'decimal.js';
import { recordEvent } from './events.js';
import type { BalanceUpdateKind } from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';

/** One ledger row to append. `idempotencyKey` names its cause: the same cause never writes twice. */
export interface BalanceUpdateInput {
  balance: Balance;
  kind: BalanceUpdateKind;
  /** Signed decimal string in the balance's currency: negative is owed, positive is credit. */
  amount: string;
  description: string;
  createdBy: string;
  idempotencyKey: string;
  invoiceId?: number | null;
  paymentId?: number | null;
  voucherId?: number | null;
}

/**
 * Appends a ledger row unless one with its key exists (then returns that one): a retried activity or
 * request writes its row once. Runs in the caller's transaction: the row is flushed, so its BALANCE_UPDATED
 * event (once per row, `{key}/event`) names it with the balance's value before and after it, and a row
 * that uses up the last credit adds BALANCE_DEPLETED.
 */
export async function appendBalanceUpdate(
  em: EntityManager,
  input: BalanceUpdateInput,
): Promise<BalanceUpdate> {
  return (await appendBalanceUpdateOnce(em, input)).row;
}

/** {@link appendBalanceUpdate}, saying whether this call wrote the row (false: its key's row existed). */
export async function appendBalanceUpdateOnce(
  em: EntityManager,
  input: BalanceUpdateInput,
): Promise<{ row: BalanceUpdate; created: boolean }> {
  const existing = await em.findOne(BalanceUpdate, { idempotencyKey: input.idempotencyKey });
  if (existing) return { row: existing, created: false };
  const row = em.create(BalanceUpdate, {
    balance: input.balance,
    kind: input.kind,
    amount: input.amount,
    description: input.description,
    createdBy: input.createdBy,
    idempotencyKey: input.idempotencyKey,
    invoice: input.invoiceId ?? null,
    payment: input.paymentId ?? null,
    voucherId: input.voucherId ?? null,
  });
  await em.flush();
  const after = new Decimal(await balanceValue(em, input.balance.id));
  const before = after.minus(input.amount);
  const common = {
    customerId: input.balance.customer?.id ?? null,
    adminSubject: input.createdBy,
    createdAt: row.createdAt,
  };
  const payload = {
    balanceId: input.balance.id,
    balanceUpdateId: row.id,
    kind: input.kind,
    amount: input.amount,
    currency: input.balance.currency,
    invoiceId: input.invoiceId ?? null,
    paymentId: input.paymentId ?? null,
    voucherId: input.voucherId ?? null,
    valueBefore: formatAmount(before, input.balance.currency),
    valueAfter: formatAmount(after, input.balance.currency),
  };
  recordEvent(em, {
    ...common,
    type: 'BALANCE_UPDATED',
    description: input.description,
    payload,
    idempotencyKey: `${input.idempotencyKey}/event`,
  });
  if (before.gt(0) && after.lte(0))
    recordEvent(em, {
      ...common,
      type: 'BALANCE_DEPLETED',
      payload,
      idempotencyKey: `${input.idempotencyKey}/depleted`,
    });
  return { row, created: true };
}

/** A balance's value: the sum of its ledger rows (decimal string), read from the database. */
export async function balanceValue(em: EntityManager, balanceId: number): Promise<string> {
  const [row] = await em.execute<[{ value: string }]>(
    `select coalesce(sum(amount), 0)::text as value from balance_update where balance_id = ?`,
    [balanceId],
  );
  return row.value;
}

/** The values of several balances at once (absent ids have no rows: value 0). */
export async function balanceValues(
  em: EntityManager,
  balanceIds: readonly number[],
): Promise<Map<number, string>> {
  const values = new Map<number, string>(balanceIds.map((id) => [id, '0']));
  if (balanceIds.length === 0) return values;
  const rows = await em.execute<{ balance_id: number; value: string }[]>(
    `select balance_id, sum(amount)::text as value from balance_update where balance_id in (?) group by balance_id`,
    [[...balanceIds]],
  );
  for (const row of rows) values.set(row.balance_id, row.value);
  return values;
}
