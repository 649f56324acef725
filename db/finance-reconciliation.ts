// The reconciliation report of a business unit and period: checks that the books agree with the records
// that moved the money, and lists every discrepancy with the records it concerns. Each check compares two
// independent records (an invoice's state and total against its payments, attempts and ledger rows; a
// refunding invoice's split against the gateway's refund and the ledger's REFUND row; a balance's ledger
// against the values its events announced; the gateway's own book of charges against the attempts). An
// empty list means the books reconcile. See docs/finance.md, "Reconciliation".
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { invoiceBooks, paidPerLine } from './finance-books.js';
import { minorDigitsOf } from '../domain/money.js';
import type { InvoiceState } from '../domain/finance.js';

/** The checks the report runs. */
export const reconciliationChecks = [
  'INVOICE_PAID', // paid = captured through the gateway + taken from the balance (+ paid externally), as its state says
  'PAYMENT_AMOUNT', // a payment collects what the balance credit left of the invoice
  'PAYMENT_CHARGE', // a captured payment names the charge of exactly one succeeded attempt
  'REFUND_BOUND', // refunded ≤ paid, per invoice and per line
  'REFUND_MOVED', // what a settled refund booked was moved: gateway refund, balance row, outside fleetflow
  'BALANCE_LEDGER', // each ledger row has its event, whose value after is the running sum of the rows
  'LEDGER_LINK', // INVOICE and REFUND rows name their invoice, SETTLEMENT rows their payment or invoice
  'GATEWAY_CHARGE', // every charge the gateway captured belongs to exactly one attempt
  'GATEWAY_REFUND', // every refund the gateway made is the gateway part of one refunding invoice
  'EVENT', // every bill and every settled refund is on the invoice's timeline
] as const;
export type ReconciliationCheck = (typeof reconciliationChecks)[number];

/** The records a discrepancy concerns. */
export interface DiscrepancyRecords {
  invoiceId?: number;
  refundInvoiceId?: number;
  lineItemId?: number;
  paymentId?: number;
  attemptIds?: number[];
  balanceId?: number;
  balanceUpdateId?: number;
  chargeReference?: string;
}

/** One discrepancy: the check, what is wrong, the records, and the figures compared. */
export interface Discrepancy {
  check: ReconciliationCheck;
  message: string;
  records: DiscrepancyRecords;
  expected: string | null;
  actual: string | null;
}

/** The report. */
export interface ReconciliationReport {
  businessUnitId: number;
  from: Date;
  to: Date;
  checked: { invoices: number; refunds: number; payments: number; balances: number; ledgerRows: number };
  discrepancies: Discrepancy[];
}

/** Invoice states in which the invoice was paid in full (and since perhaps refunded or disputed). */
const paidStates: readonly InvoiceState[] = [
  'PAID',
  'PAID_EXTERNALLY',
  'ALLOWS_REFUND',
  'REFUNDED',
  'REFUND_IN_PROGRESS',
  'EXCEPTION_REFUND',
  'DISPUTED',
];

/** A list for `in (?)`: never empty (no id is '-'). */
const nonEmpty = (values: string[]) => (values.length > 0 ? values : ['-']);

const money = (value: Decimal.Value, currency: string) => new Decimal(value).toFixed(minorDigitsOf(currency));

/** The reconciliation report of a business unit's invoices, refunds, payments and balances in [from, to). */
export async function reconciliationReport(
  em: EntityManager,
  tenant: string,
  query: { businessUnitId: number; from: Date; to: Date },
): Promise<ReconciliationReport> {
  const found: Discrepancy[] = [];
  const add = (
    check: ReconciliationCheck,
    message: string,
    records: DiscrepancyRecords,
    expected: string | null = null,
    actual: string | null = null,
  ) => found.push({ check, message, records, expected, actual });
  const window = [tenant, query.businessUnitId, query.from, query.to];

  // -- Invoices issued in the window, their books, payments and lines ------------------------------
  const invoices = await em.execute<
    { id: number; state: InvoiceState; currency: string; total_gross: string; billed_at: Date | null }[]
  >(
    `select id, state, currency, total_gross::text as total_gross, billed_at from invoice
      where tenant_id = ? and business_unit_id = ? and issued_at >= ? and issued_at < ?
        and refunded_invoice_id is null order by id`,
    window,
  );
  const ids = invoices.map((invoice) => invoice.id);
  const books = await invoiceBooks(em, ids);
  for (const invoice of invoices) {
    const book = books.get(invoice.id)!;
    const paid = new Decimal(book.paid);
    const total = new Decimal(invoice.total_gross);
    const c = invoice.currency;
    if (paidStates.includes(invoice.state) ? !paid.eq(total) : paid.gte(total) && total.gt(0))
      add(
        'INVOICE_PAID',
        `invoice ${invoice.id} is ${invoice.state} with a total of ${money(total, c)}, but was paid ${money(paid, c)} (gateway ${money(book.viaGateway, c)}, balance ${money(book.fromBalance, c)}, externally ${money(book.externally, c)})`,
        { invoiceId: invoice.id },
        paidStates.includes(invoice.state) ? money(total, c) : `< ${money(total, c)}`,
        money(paid, c),
      );
    if (
      new Decimal(book.externally).gt(0) &&
      !['PAID_EXTERNALLY', 'ALLOWS_REFUND', 'REFUNDED', 'REFUND_IN_PROGRESS', 'EXCEPTION_REFUND'].includes(
        invoice.state,
      )
    )
      add(
        'INVOICE_PAID',
        `invoice ${invoice.id} counts a payment outside fleetflow but is ${invoice.state}`,
        {
          invoiceId: invoice.id,
        },
      );
    const committed = new Decimal(book.committed);
    if (committed.gt(paid))
      add(
        'REFUND_BOUND',
        `invoice ${invoice.id} gives back ${money(committed, c)} but was paid ${money(paid, c)}`,
        { invoiceId: invoice.id },
        `<= ${money(paid, c)}`,
        money(committed, c),
      );
  }

  // Per line: what its refunds gave back never exceeds what the line was paid.
  if (ids.length > 0) {
    const lines = await em.execute<{ id: number; invoice_id: number; gross: string; refunded: string }[]>(
      `select l.id, l.invoice_id, l.gross::text as gross,
              coalesce((select -sum(rl.gross) from invoice_line rl join invoice r on r.id = rl.invoice_id
                         where rl.refunded_line_id = l.id
                           and (r.settled_at is not null or r.payment_reference = 'pending')), 0)::text as refunded
         from invoice_line l where l.tenant_id = ? and l.invoice_id in (?) order by l.invoice_id, l.position`,
      [tenant, ids],
    );
    const byInvoice = new Map<number, typeof lines>();
    for (const line of lines)
      byInvoice.set(line.invoice_id, [...(byInvoice.get(line.invoice_id) ?? []), line]);
    for (const [invoiceId, invoiceLines] of byInvoice) {
      const book = books.get(invoiceId)!;
      const shares = paidPerLine(invoiceLines, book.paid, book.currency);
      for (const line of invoiceLines) {
        const refunded = new Decimal(line.refunded);
        const share = shares.get(line.id) ?? new Decimal(0);
        if (refunded.gt(share))
          add(
            'REFUND_BOUND',
            `line ${line.id} of invoice ${invoiceId} gives back ${money(refunded, book.currency)} but was paid ${money(share, book.currency)}`,
            { invoiceId, lineItemId: line.id },
            `<= ${money(share, book.currency)}`,
            money(refunded, book.currency),
          );
      }
    }
  }

  // -- Payments: of the window's invoices, and the unit's settlements created in it --------------------
  const payments = await em.execute<
    {
      id: number;
      purpose: string;
      state: string;
      amount: string;
      currency: string;
      invoice_id: number | null;
      gateway: string;
      gateway_reference: string | null;
      total_gross: string | null;
      invoice_state: InvoiceState | null;
      paid_externally: string | null;
    }[]
  >(
    `select p.id, p.purpose, p.state, p.amount::text as amount, p.currency, p.invoice_id, p.gateway,
            p.gateway_reference, i.total_gross::text as total_gross, i.state as invoice_state,
            i.paid_externally_gross::text as paid_externally
       from payment p left join invoice i on i.id = p.invoice_id
      where p.tenant_id = ? and p.business_unit_id = ?
        and ((i.id is not null and i.issued_at >= ? and i.issued_at < ?)
             or (p.invoice_id is null and p.created_at >= ? and p.created_at < ?))
      order by p.id`,
    [tenant, query.businessUnitId, query.from, query.to, query.from, query.to],
  );
  const attempts = await em.execute<
    { id: number; payment_id: number; state: string; gateway_reference: string | null }[]
  >(
    `select id, payment_id, state, gateway_reference from payment_attempt
      where tenant_id = ? and payment_id in (?) order by id`,
    [tenant, payments.length > 0 ? payments.map((payment) => payment.id) : [0]],
  );
  for (const payment of payments) {
    const c = payment.currency;
    if (payment.purpose === 'INVOICE' && payment.invoice_id !== null) {
      const book = books.get(payment.invoice_id);
      if (book) {
        const due = new Decimal(book.totalGross).minus(book.fromBalance);
        if (!new Decimal(payment.amount).eq(due))
          add(
            'PAYMENT_AMOUNT',
            `payment ${payment.id} collects ${money(payment.amount, c)} of invoice ${payment.invoice_id}, whose total less the balance credit is ${money(due, c)}`,
            { invoiceId: payment.invoice_id, paymentId: payment.id },
            money(due, c),
            money(payment.amount, c),
          );
      }
    }
    const captured = payment.state === 'PAID' || payment.state === 'DISPUTED';
    if (!captured) continue;
    if (payment.gateway_reference === null) {
      // Closed as paid outside the gateway: only an invoice set paid externally may say so.
      if (payment.purpose !== 'INVOICE' || payment.paid_externally === null)
        add(
          'PAYMENT_CHARGE',
          `payment ${payment.id} is ${payment.state} without a gateway charge, and its invoice was not paid externally`,
          { paymentId: payment.id, ...(payment.invoice_id ? { invoiceId: payment.invoice_id } : {}) },
        );
      continue;
    }
    const matching = attempts.filter(
      (attempt) =>
        attempt.payment_id === payment.id &&
        attempt.state === 'SUCCEEDED' &&
        attempt.gateway_reference === payment.gateway_reference,
    );
    if (matching.length !== 1)
      add(
        'PAYMENT_CHARGE',
        `payment ${payment.id} names charge ${payment.gateway_reference}, which ${matching.length} succeeded attempts of it name`,
        {
          paymentId: payment.id,
          attemptIds: matching.map((attempt) => attempt.id),
          chargeReference: payment.gateway_reference,
        },
        '1',
        String(matching.length),
      );
  }
  // No two attempts name one charge.
  const byReference = new Map<string, number[]>();
  for (const attempt of attempts)
    if (attempt.gateway_reference)
      byReference.set(attempt.gateway_reference, [
        ...(byReference.get(attempt.gateway_reference) ?? []),
        attempt.id,
      ]);
  for (const [reference, attemptIds] of byReference)
    if (attemptIds.length > 1)
      add('PAYMENT_CHARGE', `charge ${reference} is named by ${attemptIds.length} attempts`, {
        attemptIds,
        chargeReference: reference,
      });

  // -- Refunds issued in the window: what they booked was moved -------------------------------------
  const refunds = await em.execute<
    {
      id: number;
      refunded_invoice_id: number;
      currency: string;
      total_gross: string;
      settled: boolean;
      payment_reference: string | null;
      via_gateway: string | null;
      to_balance: string | null;
      externally: string | null;
      ledger: string | null;
      ledger_rows: number;
      gateway: string | null;
    }[]
  >(
    `select r.id, r.refunded_invoice_id, r.currency, r.total_gross::text as total_gross,
            r.settled_at is not null as settled, r.payment_reference,
            r.refund_via_gateway::text as via_gateway, r.refund_to_balance::text as to_balance,
            r.refund_externally::text as externally,
            (select sum(b.amount)::text from balance_update b
              where b.tenant_id = r.tenant_id and b.idempotency_key = 'refund:' || r.id || ':balance') as ledger,
            (select count(*)::int from balance_update b
              where b.tenant_id = r.tenant_id and b.idempotency_key = 'refund:' || r.id || ':balance') as ledger_rows,
            (select p.gateway from payment p where p.tenant_id = r.tenant_id and p.invoice_id = r.refunded_invoice_id
                and p.gateway_reference is not null order by p.id desc limit 1) as gateway
       from invoice r
      where r.tenant_id = ? and r.business_unit_id = ? and r.issued_at >= ? and r.issued_at < ?
        and r.refunded_invoice_id is not null order by r.id`,
    window,
  );
  for (const refund of refunds) {
    const c = refund.currency;
    const booked = new Decimal(refund.total_gross).neg();
    const records = { invoiceId: refund.refunded_invoice_id, refundInvoiceId: refund.id };
    if (refund.via_gateway === null || refund.to_balance === null || refund.externally === null) {
      add('REFUND_MOVED', `refunding invoice ${refund.id} records no split of its money`, records);
      continue;
    }
    const split = new Decimal(refund.via_gateway).plus(refund.to_balance).plus(refund.externally);
    if (!split.eq(booked))
      add(
        'REFUND_MOVED',
        `refunding invoice ${refund.id} books ${money(booked, c)} but moves ${money(split, c)}`,
        records,
        money(booked, c),
        money(split, c),
      );
    if (!refund.settled) continue;
    const toBalance = new Decimal(refund.to_balance);
    const ledger = new Decimal(refund.ledger ?? 0);
    if (!ledger.eq(toBalance) || (toBalance.gt(0) && refund.ledger_rows !== 1))
      add(
        'REFUND_MOVED',
        `refunding invoice ${refund.id} gives ${money(toBalance, c)} back to the balance, its ledger rows ${money(ledger, c)}`,
        records,
        money(toBalance, c),
        money(ledger, c),
      );
    const reference = refund.payment_reference;
    const viaGateway = new Decimal(refund.via_gateway);
    const outside = reference === null || ['outside-gateway', 'pending', 'failed'].includes(reference);
    if (viaGateway.gt(0) && outside)
      add(
        'REFUND_MOVED',
        `refunding invoice ${refund.id} gives ${money(viaGateway, c)} back through the gateway without a gateway refund`,
        records,
        money(viaGateway, c),
        '0',
      );
  }

  // The sandbox gateway keeps its own book: its refunds and captured charges against ours.
  const refundIds = refunds.map((refund) => refund.id);
  const paymentIds = payments.map((payment) => payment.id);
  const gatewayRows = await em.execute<
    {
      kind: 'CHARGE' | 'REFUND';
      reference: string;
      amount_minor: string;
      currency: string;
      status: string;
      payment_id: string | null;
      refund_invoice_id: string | null;
    }[]
  >(
    `select kind, reference, amount_minor::text as amount_minor, currency, status,
            outcome->'request'->'metadata'->>'paymentId' as payment_id,
            outcome->'request'->'metadata'->>'refundInvoiceId' as refund_invoice_id
       from sandbox_gateway_operation
      where outcome->'request'->'metadata'->>'tenant' = ?
        and ((kind = 'CHARGE' and outcome->'request'->'metadata'->>'paymentId' in (?))
          or (kind = 'REFUND' and outcome->'request'->'metadata'->>'refundInvoiceId' in (?)))`,
    [tenant, nonEmpty(paymentIds.map(String)), nonEmpty(refundIds.map(String))],
  );
  for (const row of gatewayRows) {
    const amount = new Decimal(row.amount_minor).div(new Decimal(10).pow(minorDigitsOf(row.currency)));
    if (row.kind === 'CHARGE') {
      if (row.status !== 'SUCCEEDED' && row.status !== 'DISPUTED') continue;
      const named = attempts.filter((attempt) => attempt.gateway_reference === row.reference);
      const payment = payments.find((candidate) => String(candidate.id) === row.payment_id);
      if (named.length !== 1 || !payment || payment.gateway_reference !== row.reference)
        add(
          'GATEWAY_CHARGE',
          `the gateway captured ${money(amount, row.currency)} as ${row.reference} for payment ${row.payment_id}: ${named.length} attempts name it, and the payment ${payment?.gateway_reference === row.reference ? 'names it' : 'does not name it'}`,
          {
            chargeReference: row.reference,
            attemptIds: named.map((attempt) => attempt.id),
            ...(payment ? { paymentId: payment.id } : {}),
          },
          '1',
          String(named.length),
        );
    } else {
      const refund = refunds.find((candidate) => String(candidate.id) === row.refund_invoice_id);
      if (!refund) continue;
      const succeeded = row.status === 'SUCCEEDED';
      const expected = new Decimal(refund.via_gateway ?? 0);
      if (
        succeeded &&
        (!refund.settled || refund.payment_reference !== row.reference || !amount.eq(expected))
      )
        add(
          'GATEWAY_REFUND',
          `the gateway refunded ${money(amount, row.currency)} as ${row.reference} for refunding invoice ${refund.id}, which books ${money(expected, row.currency)} through the gateway${refund.settled ? '' : ' and is not settled'}`,
          {
            invoiceId: refund.refunded_invoice_id,
            refundInvoiceId: refund.id,
            chargeReference: row.reference,
          },
          money(expected, row.currency),
          money(amount, row.currency),
        );
    }
  }
  for (const refund of refunds) {
    if (!refund.settled || refund.gateway !== 'sandbox' || new Decimal(refund.via_gateway ?? 0).lte(0))
      continue;
    const made = gatewayRows.filter(
      (row) =>
        row.kind === 'REFUND' && row.refund_invoice_id === String(refund.id) && row.status === 'SUCCEEDED',
    );
    if (made.length !== 1)
      add(
        'GATEWAY_REFUND',
        `refunding invoice ${refund.id} gives ${money(refund.via_gateway!, refund.currency)} back through the gateway, which made ${made.length} refunds for it`,
        { invoiceId: refund.refunded_invoice_id, refundInvoiceId: refund.id },
        '1',
        String(made.length),
      );
  }

  // -- Balances of the unit: rows, links and the values their events announced -----------------------
  const ledgerRows = await em.execute<
    {
      id: number;
      balance_id: number;
      kind: string;
      amount: string;
      currency: string;
      invoice_id: number | null;
      payment_id: number | null;
      created_at: Date;
      running: string;
      value_after: string | null;
      events: number;
    }[]
  >(
    `select u.id, u.balance_id, u.kind, u.amount::text as amount, b.currency, u.invoice_id, u.payment_id,
            u.created_at,
            (sum(u.amount) over (partition by u.balance_id order by u.id))::text as running,
            (select e.payload->>'valueAfter' from event_key k join event e on e.id = k.event_id
              where k.tenant_id = u.tenant_id and k.idempotency_key = u.idempotency_key || '/event'
              limit 1) as value_after,
            (select count(*)::int from event_key k
              where k.tenant_id = u.tenant_id and k.idempotency_key = u.idempotency_key || '/event') as events
       from balance_update u join balance b on b.id = u.balance_id
      where u.tenant_id = ? and b.business_unit_id = ?
      order by u.balance_id, u.id`,
    [tenant, query.businessUnitId],
  );
  const balanceIds = new Set<number>();
  let rowsInWindow = 0;
  for (const row of ledgerRows) {
    const created = new Date(row.created_at);
    if (created < query.from || created >= query.to) continue;
    rowsInWindow += 1;
    balanceIds.add(row.balance_id);
    const records = { balanceId: row.balance_id, balanceUpdateId: row.id };
    if (row.events !== 1)
      add(
        'BALANCE_LEDGER',
        `ledger row ${row.id} of balance ${row.balance_id} has no BALANCE_UPDATED event`,
        records,
      );
    else if (row.value_after === null || !new Decimal(row.value_after).eq(row.running))
      add(
        'BALANCE_LEDGER',
        `ledger row ${row.id} of balance ${row.balance_id}: its event says the value became ${row.value_after}, the running sum of the rows is ${money(row.running, row.currency)}`,
        records,
        money(row.running, row.currency),
        row.value_after,
      );
    const needsInvoice = row.kind === 'INVOICE' || row.kind === 'REFUND';
    if (needsInvoice && row.invoice_id === null)
      add('LEDGER_LINK', `${row.kind} row ${row.id} of balance ${row.balance_id} names no invoice`, records);
    if (row.kind === 'SETTLEMENT' && row.invoice_id === null && row.payment_id === null)
      add(
        'LEDGER_LINK',
        `SETTLEMENT row ${row.id} of balance ${row.balance_id} names neither payment nor invoice`,
        records,
      );
  }

  // -- Events: every bill and settled refund is on its invoice's timeline ----------------------------
  const billed = invoices
    .filter((invoice) => invoice.billed_at !== null)
    .map((invoice) => String(invoice.id));
  const settledRefunds = refunds.filter((refund) => refund.settled).map((refund) => String(refund.id));
  const events = await em.execute<{ type: string; id: string }[]>(
    `select type, coalesce(payload->>'refundInvoiceId', payload->>'invoiceId') as id from event
      where tenant_id = ? and ((type = 'INVOICE_BILLED' and payload->>'invoiceId' in (?))
         or (type = 'INVOICE_REFUNDED' and payload->>'refundInvoiceId' in (?)))`,
    [tenant, nonEmpty(billed), nonEmpty(settledRefunds)],
  );
  const seen = new Set(events.map((event) => `${event.type}:${event.id}`));
  for (const id of billed)
    if (!seen.has(`INVOICE_BILLED:${id}`))
      add('EVENT', `invoice ${id} was billed without an INVOICE_BILLED event`, { invoiceId: Number(id) });
  for (const refund of refunds.filter((candidate) => candidate.settled))
    if (!seen.has(`INVOICE_REFUNDED:${refund.id}`))
      add('EVENT', `refunding invoice ${refund.id} was settled without an INVOICE_REFUNDED event`, {
        invoiceId: refund.refunded_invoice_id,
        refundInvoiceId: refund.id,
      });

  return {
    businessUnitId: query.businessUnitId,
    from: query.from,
    to: query.to,
    checked: {
      invoices: invoices.length,
      refunds: refunds.length,
      payments: payments.length,
      balances: balanceIds.size,
      ledgerRows: rowsInWindow,
    },
    discrepancies: found,
  };
}
