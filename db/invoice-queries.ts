// Finance's reads of invoices beyond one row: which invoices a gateway charge or a balance touched (the
// list's `chargeId` and `balanceId` filters), an invoice's timeline, and the report of a business unit's
// invoices by state, currency and period. Raw SQL names the tenant explicitly.
import type { EntityManager } from '@mikro-orm/postgresql';
import { invoiceTimelineEventTypes } from '../domain/invoice-events.js';
import type { InvoiceState } from '../domain/finance.js';

/**
 * Invoices a gateway charge belongs to: the payment or payment attempt with this gateway reference, or
 * the invoice whose payment reference it is.
 */
export async function invoiceIdsOfCharge(
  em: EntityManager,
  tenant: string,
  chargeId: string,
): Promise<number[]> {
  const rows = await em.execute<{ id: number }[]>(
    `select invoice_id as id from payment
      where tenant_id = ? and invoice_id is not null and gateway_reference = ?
     union
     select p.invoice_id from payment_attempt a join payment p on p.id = a.payment_id
      where a.tenant_id = ? and p.invoice_id is not null and a.gateway_reference = ?
     union
     select id from invoice where tenant_id = ? and payment_reference = ?`,
    [tenant, chargeId, tenant, chargeId, tenant, chargeId],
  );
  return rows.map((row) => Number(row.id));
}

/** Invoices charged to (or credited from) a balance: those its ledger rows name. */
export async function invoiceIdsOfBalance(
  em: EntityManager,
  tenant: string,
  balanceId: number,
): Promise<number[]> {
  const rows = await em.execute<{ id: number }[]>(
    `select distinct invoice_id as id from balance_update
      where tenant_id = ? and balance_id = ? and invoice_id is not null`,
    [tenant, balanceId],
  );
  return rows.map((row) => Number(row.id));
}

/** One entry of an invoice's timeline. */
export interface InvoiceTimelineRow {
  type: string;
  createdAt: Date;
  adminSubject: string | null;
  payload: Record<string, unknown> | null;
}

/** The invoice events (domain/invoice-events.ts) whose payload names the invoice, oldest first (at most 500). */
export async function invoiceTimeline(
  em: EntityManager,
  tenant: string,
  invoiceId: number,
): Promise<InvoiceTimelineRow[]> {
  const rows = await em.execute<
    {
      type: string;
      created_at: Date;
      admin_subject: string | null;
      payload: Record<string, unknown> | null;
    }[]
  >(
    `select type, created_at, admin_subject, payload from event
      where tenant_id = ? and type in (?) and payload->>'invoiceId' = ?
      order by created_at, id limit 500`,
    [tenant, [...invoiceTimelineEventTypes], String(invoiceId)],
  );
  return rows.map((row) => ({
    type: row.type,
    createdAt: new Date(row.created_at),
    adminSubject: row.admin_subject,
    payload: row.payload,
  }));
}

/** The periods a report groups by. */
export const reportPeriods = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type ReportPeriod = (typeof reportPeriods)[number];

/** A report's window: invoices issued in [from, to), grouped by the business unit's calendar. */
export interface InvoiceReportQuery {
  businessUnitId: number;
  from: Date;
  to: Date;
  period: ReportPeriod;
  timeZoneId: string;
}

/** Sums of one group of invoices (decimal strings as PostgreSQL adds them: exact). */
export interface InvoiceSums {
  currency: string;
  count: number;
  net: string;
  tax: string;
  gross: string;
}

/** The report's rows: per state and currency, and per period and currency (refunding invoices apart). */
export interface InvoiceReportRows {
  /** Per currency: what settled refunds gave back (positive), the refunds that are still running or failed apart. */
  refunded: { currency: string; gross: string }[];
  byState: (InvoiceSums & { state: InvoiceState })[];
  byPeriod: (InvoiceSums & { periodStart: string })[];
}

/** The rows of a business unit's invoice report, summed by PostgreSQL's exact numerics. */
export async function invoiceReportRows(
  em: EntityManager,
  tenant: string,
  query: InvoiceReportQuery,
): Promise<InvoiceReportRows> {
  type Row = { currency: string; count: number; net: string; tax: string; gross: string };
  const sums = `count(*)::int as count, coalesce(sum(total_net), 0)::text as net,
    coalesce(sum(total_tax), 0)::text as tax, coalesce(sum(total_gross), 0)::text as gross`;
  const window = `tenant_id = ? and business_unit_id = ? and issued_at >= ? and issued_at < ?`;
  const params = [tenant, query.businessUnitId, query.from, query.to];
  const [refunded, byState, byPeriod] = await Promise.all([
    em.execute<{ currency: string; gross: string }[]>(
      `select currency, (-sum(total_gross))::text as gross from invoice
        where ${window} and state = 'IS_REFUND' and settled_at is not null group by currency`,
      params,
    ),
    em.execute<(Row & { state: InvoiceState })[]>(
      `select state, currency, ${sums} from invoice where ${window} group by state, currency order by currency, state`,
      params,
    ),
    em.execute<(Row & { period_start: string })[]>(
      `select to_char(date_trunc(?, issued_at at time zone ?), 'YYYY-MM-DD') as period_start, currency, ${sums}
         from invoice where ${window} and state <> 'IS_REFUND'
        group by 1, currency order by 1, currency`,
      [query.period.toLowerCase(), query.timeZoneId, ...params],
    ),
  ]);
  const sumsOf = (row: Row): InvoiceSums => ({
    currency: row.currency,
    count: Number(row.count),
    net: row.net,
    tax: row.tax,
    gross: row.gross,
  });
  return {
    refunded,
    byState: byState.map((row) => ({ state: row.state, ...sumsOf(row) })),
    byPeriod: byPeriod.map((row) => ({ periodStart: row.period_start, ...sumsOf(row) })),
  };
}
