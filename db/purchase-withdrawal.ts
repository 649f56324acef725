// A purchase whose charge was declined leaves nothing half-done: its invoice is CLOSED (no longer
// unpaid: no dunning, no retry), and the balance credit its bill took is given back. The purchase's own
// row then follows (a package purchase FAILED: db/voucher-packages.ts; a subscription never started
// EXPIRED: its workflow). The payment itself was withdrawn first (the WITHDRAWN event: FAILED).
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from './entities/Balance.js';
import { BalanceUpdate } from './entities/BalanceUpdate.js';
import { Invoice } from './entities/Invoice.js';
import { appendBalanceUpdate } from './balance-ledger.js';
import { runningPaymentOfInvoice } from './payments.js';
import type { InvoiceState } from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';

/** Invoice states a declined charge leaves (the mirror of a FAILED payment or a failed challenge). */
export const declinedInvoiceStates: readonly InvoiceState[] = [
  'EXCEPTION_PAYING',
  'THREE_DS_FAILED',
  'PUSH_BANK_REFUSED',
];

/**
 * Closes the invoice of a purchase whose charge was declined, in the caller's transaction: CLOSED with
 * settledAt, and a REFUND ledger row giving back to each balance what its credit paid of the invoice
 * (keyed per invoice and balance: a retry writes it once). Nothing when the invoice is not in a declined
 * state or a payment of it still runs. Answers whether the invoice is CLOSED now.
 */
export async function withdrawDeclinedPurchase(
  tx: EntityManager,
  invoiceId: number,
  request: { requestedBy: string; at: Date },
): Promise<boolean> {
  const invoice = await tx.findOneOrFail(Invoice, invoiceId, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
    refresh: true,
  });
  if (invoice.state === 'CLOSED') return true;
  if (!declinedInvoiceStates.includes(invoice.state)) return false;
  if (await runningPaymentOfInvoice(tx, invoiceId)) return false;
  const credits = await tx.find(BalanceUpdate, { invoice: invoiceId }, { orderBy: { id: 'asc' } });
  const byBalance = new Map<number, Decimal>();
  for (const row of credits)
    byBalance.set(row.balance.id, (byBalance.get(row.balance.id) ?? new Decimal(0)).plus(row.amount));
  for (const [balanceId, sum] of byBalance) {
    if (sum.gte(0)) continue;
    const balance = await tx.findOneOrFail(Balance, balanceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    await appendBalanceUpdate(tx, {
      balance,
      kind: 'REFUND',
      amount: formatAmount(sum.neg(), balance.currency),
      description: `Invoice ${invoice.number}: the purchase was declined, credit given back`,
      createdBy: request.requestedBy,
      idempotencyKey: `invoice:${invoiceId}:balance-credit-returned:${balanceId}`,
      invoiceId,
    });
  }
  invoice.state = 'CLOSED';
  invoice.settledAt ??= request.at;
  await tx.flush();
  return true;
}
