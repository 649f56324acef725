// What an invoice was paid and given back, by channel, read from the records that moved the money: the
// gateway (payments whose charge succeeded), the balance (its INVOICE ledger rows), and outside
// fleetflow (set paid externally); refunds by the split their refunding invoices recorded. The refund
// checks, the overview, the report and the reconciliation report (db/finance-reconciliation.ts) all read
// these figures, so "paid" and "refunded" mean one thing everywhere.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { minorDigitsOf } from '../domain/money.js';

/** An invoice's money by channel (decimal strings, positive). */
export interface InvoiceBooks {
  invoiceId: number;
  currency: string;
  totalGross: string;
  /** Captured through the gateway: PAID or DISPUTED payments whose charge succeeded. */
  viaGateway: string;
  /** Taken from the owner's balance at billing (its INVOICE ledger rows). */
  fromBalance: string;
  /** Paid outside fleetflow (set paid externally). */
  externally: string;
  /** The sum of the three. */
  paid: string;
  /** Given back (settled refunds) and still being given back (refunds in progress), by channel. */
  refundedViaGateway: string;
  refundedToBalance: string;
  refundedExternally: string;
  /** Settled refunds only: what was given back. */
  refunded: string;
  /** Settled and in-progress refunds: what counts against further refunds. */
  committed: string;
}

/**
 * The books of some invoices (refunding invoices are not listed), one statement. A refund counts as given
 * back once settled; while in progress (`payment_reference = 'pending'`) it counts against later refunds
 * (`committed`) but not as given back.
 */
export async function invoiceBooks(
  em: EntityManager,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceBooks>> {
  const books = new Map<number, InvoiceBooks>();
  if (invoiceIds.length === 0) return books;
  const rows = await em.execute<
    {
      id: number;
      currency: string;
      total_gross: string;
      via_gateway: string;
      from_balance: string;
      externally: string;
      r_gateway: string;
      r_balance: string;
      r_external: string;
      refunded: string;
      committed: string;
    }[]
  >(
    `select i.id, i.currency, i.total_gross::text as total_gross,
            coalesce((select sum(p.amount) from payment p
                       where p.tenant_id = i.tenant_id and p.invoice_id = i.id
                         and p.state in ('PAID', 'DISPUTED') and p.gateway_reference is not null), 0)::text as via_gateway,
            coalesce((select -sum(b.amount) from balance_update b
                       where b.tenant_id = i.tenant_id and b.invoice_id = i.id and b.kind = 'INVOICE'), 0)::text as from_balance,
            coalesce(i.paid_externally_gross, 0)::text as externally,
            coalesce(r.gateway, 0)::text as r_gateway, coalesce(r.balance, 0)::text as r_balance,
            coalesce(r.external, 0)::text as r_external,
            coalesce(r.refunded, 0)::text as refunded, coalesce(r.committed, 0)::text as committed
       from invoice i
       left join lateral (
         select sum(coalesce(x.refund_via_gateway, 0)) as gateway,
                sum(coalesce(x.refund_to_balance, 0)) as balance,
                sum(coalesce(x.refund_externally, 0)) as external,
                sum(case when x.settled_at is not null then -x.total_gross else 0 end) as refunded,
                sum(-x.total_gross) as committed
           from invoice x
          where x.tenant_id = i.tenant_id and x.refunded_invoice_id = i.id
            and (x.settled_at is not null or x.payment_reference = 'pending')
       ) r on true
      where i.id in (?) and i.refunded_invoice_id is null`,
    [[...invoiceIds]],
  );
  for (const row of rows) {
    const paid = new Decimal(row.via_gateway).plus(row.from_balance).plus(row.externally);
    books.set(row.id, {
      invoiceId: row.id,
      currency: row.currency,
      totalGross: row.total_gross,
      viaGateway: row.via_gateway,
      fromBalance: row.from_balance,
      externally: row.externally,
      paid: paid.toString(),
      refundedViaGateway: row.r_gateway,
      refundedToBalance: row.r_balance,
      refundedExternally: row.r_external,
      refunded: row.refunded,
      committed: row.committed,
    });
  }
  return books;
}

/** The books of one invoice (zeros when it is unknown). */
export async function booksOfInvoice(em: EntityManager, invoiceId: number): Promise<InvoiceBooks> {
  const books = (await invoiceBooks(em, [invoiceId])).get(invoiceId);
  if (books) return books;
  return {
    invoiceId,
    currency: 'EUR',
    totalGross: '0',
    viaGateway: '0',
    fromBalance: '0',
    externally: '0',
    paid: '0',
    refundedViaGateway: '0',
    refundedToBalance: '0',
    refundedExternally: '0',
    refunded: '0',
    committed: '0',
  };
}

/**
 * What each line of an invoice was actually paid: the invoice's paid amount shared among its positive
 * lines in proportion to their gross, in the currency's minor units (largest remainder, so the shares add
 * up to exactly what was paid). Vouchers, discounts and other negative lines reduce every line's share
 * alike and are themselves paid nothing. Pure.
 */
export function paidPerLine(
  lines: readonly { id: number; gross: string }[],
  paid: Decimal.Value,
  currency: string,
): Map<number, Decimal> {
  const unit = new Decimal(10).pow(-minorDigitsOf(currency));
  const positive = lines.filter((line) => new Decimal(line.gross).gt(0));
  const shares = new Map<number, Decimal>(lines.map((line) => [line.id, new Decimal(0)]));
  const total = positive.reduce((sum, line) => sum.plus(line.gross), new Decimal(0));
  const paidAmount = Decimal.min(new Decimal(paid), total);
  if (total.lte(0) || paidAmount.lte(0)) return shares;
  const units = paidAmount.div(unit).toDecimalPlaces(0, Decimal.ROUND_DOWN);
  const exact = positive.map((line) => ({
    id: line.id,
    units: units.times(line.gross).div(total),
  }));
  let given = new Decimal(0);
  const floors = exact.map((entry) => {
    const floor = entry.units.toDecimalPlaces(0, Decimal.ROUND_DOWN);
    given = given.plus(floor);
    return { id: entry.id, floor, remainder: entry.units.minus(floor) };
  });
  let left = units.minus(given).toNumber();
  const order = [...floors].sort((a, b) => b.remainder.comparedTo(a.remainder) || a.id - b.id);
  for (const entry of order) {
    if (left <= 0) break;
    entry.floor = entry.floor.plus(1);
    left -= 1;
  }
  for (const entry of floors) shares.set(entry.id, entry.floor.times(unit));
  return shares;
}

/**
 * How a refund of `amount` goes back: through the gateway up to what it captured less what earlier refunds
 * gave back there, then to the balance up to what it paid less earlier balance refunds, then outside
 * fleetflow up to what was paid externally. Null when the channels cannot hold it (more than was paid).
 */
export function refundSplit(
  books: InvoiceBooks,
  amount: Decimal,
): { viaGateway: Decimal; toBalance: Decimal; externally: Decimal } | null {
  const left = (paid: string, refunded: string) => Decimal.max(new Decimal(paid).minus(refunded), 0);
  const viaGateway = Decimal.min(amount, left(books.viaGateway, books.refundedViaGateway));
  const toBalance = Decimal.min(amount.minus(viaGateway), left(books.fromBalance, books.refundedToBalance));
  const externally = Decimal.min(
    amount.minus(viaGateway).minus(toBalance),
    left(books.externally, books.refundedExternally),
  );
  if (!viaGateway.plus(toBalance).plus(externally).eq(amount)) return null;
  return { viaGateway, toBalance, externally };
}
