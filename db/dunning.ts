// Dunning: while a customer has an invoice of their own still unpaid more than the grace period of the
// `finance.dunning` setting after it was billed (after its due date when the payer is invoiced by
// transfer: `paymentTermDays` after billing), new rentals and bookings are refused (U134). Nothing is
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
  invoiceDueAt,
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
// An invoice paid by transfer (due_at set) counts from its due date, not from billing.
const blockingInvoice = `select id, number, billed_at from invoice
  where tenant_id = $1 and customer_id = $2 and state = any($3::text[]) and coalesce(due_at, billed_at) < $4
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

/**
 * The due date of an invoice billed at `billedAt` to a payer invoiced by transfer: `paymentTermDays` of
 * the `finance.dunning` setting of its rental's or booking's branch (else the tenant's) after billing.
 */
export async function invoiceDueDateOf(
  em: EntityManager,
  tenant: string,
  invoiceId: number,
  billedAt: Date,
): Promise<Date> {
  const [row] = await preparedRows<{ branch_id: number | null }>(
    em,
    `select coalesce(r.branch_id, b.branch_id) as branch_id
       from invoice i
       left join rental r on r.tenant_id = i.tenant_id and r.id = i.rental_id
       left join booking b on b.tenant_id = i.tenant_id and b.id = i.booking_id
      where i.tenant_id = $1 and i.id = $2`,
    [tenant, invoiceId],
  );
  const settings = dunningSettingsOf(
    (await effectiveSetting(em, tenant, DUNNING_SETTING_KEY, row?.branch_id ?? undefined))?.value,
  );
  return invoiceDueAt(settings, billedAt);
}
