// Dunning: while a customer has an invoice of their own still unpaid more than the grace period of the
// `finance.dunning` setting after it was billed, new rentals and bookings are refused (U134). Nothing is
// stored: every check reads the invoices (one indexed query), so paying the invoice — by a retry, a
// settlement or externally — lifts the block at the next request.
import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedRows } from './prepared.js';
import { effectiveSetting } from './settings.js';
import { DomainError } from '../domain/errors.js';
import {
  DUNNING_SETTING_KEY,
  dunningCutoff,
  dunningSettingsOf,
  unpaidInvoiceStates,
} from '../domain/finance.js';

/** The oldest invoice that blocks a customer, or null when none does. */
export interface DunningBlock {
  invoiceId: number;
  number: string;
  billedAt: Date;
  graceDays: number;
}

// Served by the invoice's (tenant_id, customer_id) index. BUSINESS invoices (a business account's) are
// the account's debt, collected from it: they do not block the rider.
const blockingInvoice = `select id, number, billed_at from invoice
  where tenant_id = $1 and customer_id = $2 and state = any($3::text[]) and billed_at < $4
    and user_group_id is null and refunded_invoice_id is null
  order by billed_at asc, id asc limit 1`;

/**
 * The invoice that blocks the customer at `at` under the `finance.dunning` setting of the branch (its
 * own, an ancestor's or the tenant's; the default grace period otherwise), or null. Runs in the
 * caller's transaction when there is one; the setting comes from the read cache (warm it first).
 */
export async function dunningBlockOf(
  em: EntityManager,
  tenant: string,
  customerId: number,
  branchId: number | undefined,
  at: Date,
): Promise<DunningBlock | null> {
  const settings = dunningSettingsOf(
    (await effectiveSetting(em, tenant, DUNNING_SETTING_KEY, branchId))?.value,
  );
  const [row] = await preparedRows<{ id: number; number: string; billed_at: Date | string }>(
    em,
    blockingInvoice,
    [tenant, customerId, [...unpaidInvoiceStates], dunningCutoff(settings, at)],
  );
  if (!row) return null;
  return {
    invoiceId: row.id,
    number: row.number,
    billedAt: row.billed_at instanceof Date ? row.billed_at : new Date(row.billed_at),
    graceDays: settings.graceDays,
  };
}

/** The customer-facing reason of a block. */
export function dunningMessage(block: DunningBlock): string {
  return `invoice ${block.number} is unpaid ${block.graceDays} days after it was billed: pay it to rent or book again`;
}

/** Throws U134 while an invoice of the customer is unpaid past the grace period (new bookings). */
export async function assertNoDunningBlock(
  em: EntityManager,
  tenant: string,
  customerId: number,
  branchId: number,
  at: Date,
): Promise<void> {
  const block = await dunningBlockOf(em, tenant, customerId, branchId, at);
  if (block) throw new DomainError('U134', dunningMessage(block), { invoiceId: block.invoiceId });
}
