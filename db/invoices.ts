// Invoices as every domain issues them: the next number of a business unit's yearly sequence and the
// invoice with one line per priceV4 line. Rentals and bookings bill through it; finance reads and
// collects what it writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Booking } from './entities/Booking.js';
import { type BusinessUnit } from './entities/BusinessUnit.js';
import { type CostCenter } from './entities/CostCenter.js';
import { type Customer } from './entities/Customer.js';
import { Invoice } from './entities/Invoice.js';
import { type Rental } from './entities/Rental.js';
import { type UserGroup } from './entities/UserGroup.js';
import { businessUnitOfBranch } from './pricing.js';
import { eventWrites, recordEvent, type EventFields } from './events.js';
import { preparedRows } from './prepared.js';
import type { PriceLineV4, PriceResult } from '../domain/pricing.js';

/** The year formatter of each time zone (building one costs more than numbering the invoice). */
const yearFormatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar year of `at` in `timeZone`. */
function yearIn(timeZone: string, at: Date): number {
  let formatter = yearFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric' });
    yearFormatters.set(timeZone, formatter);
  }
  return Number(formatter.format(at));
}

/** What an invoice's number is made of: its business unit's id and code, in the unit's time zone. */
export type NumberingUnit = Pick<BusinessUnit, 'id' | 'code' | 'timeZoneId'>;

/**
 * The next number of a business unit's yearly, gapless invoice sequence, as a CTE `numbered (number)`
 * over the parameters named: `{code}-{year}-{six digits or more}`. Its upsert locks the unit's counter row
 * until the transaction ends, so every invoice of the unit waits for the one before to commit: callers take
 * it as late in their transaction as they can.
 */
const numberedCte = (tenant: string, unit: string, year: string, code: string) => `
  numbered as (
    insert into invoice_number_sequence (tenant_id, business_unit_id, year, last_number)
    values (${tenant}, ${unit}, ${year}, 1)
    on conflict (tenant_id, business_unit_id, year)
    do update set last_number = invoice_number_sequence.last_number + 1
    returning ${code}::text || '-' || ${year}::text || '-' ||
              lpad(last_number::text, greatest(6, length(last_number::text)), '0') as number
  )`;

const nextInvoiceNumberStatement = `with ${numberedCte('$1', '$2', '$3::int', '$4')} select number from numbered`;

/** The next number of a business unit's yearly, gapless invoice sequence (in the caller's transaction). */
export async function nextInvoiceNumber(
  em: EntityManager,
  tenant: string,
  unit: NumberingUnit,
  at: Date,
): Promise<string> {
  const [row] = await preparedRows<{ number: string }>(em, nextInvoiceNumberStatement, [
    tenant,
    unit.id,
    yearIn(unit.timeZoneId, at),
    unit.code,
  ]);
  return row!.number;
}

/** Who and what an invoice bills: the rental and/or booking it belongs to and its business context. */
export interface InvoiceSubject {
  tenant: string;
  /** The branch whose business unit issues the invoice. */
  branchId: number;
  customer: Customer;
  rental?: Rental | null;
  booking?: Booking | null;
  userGroup: UserGroup | null;
  costCenter: CostCenter | null;
  title: string;
  at: Date;
  idempotencyKey: string;
}

/**
 * `issueInvoiceRows` for callers that work on entities (bookings, the tests' fixture invoices): the same
 * rows and INVOICE_CREATED, then the invoice as an entity of the caller's unit of work. The caller checks
 * that none exists yet.
 */
export async function issueInvoice(
  em: EntityManager,
  price: PriceResult,
  subject: InvoiceSubject,
): Promise<Invoice> {
  const issued = await issueInvoiceRows(em, price, {
    tenant: subject.tenant,
    branchId: subject.branchId,
    unit: await businessUnitOfBranch(em, subject.branchId),
    customerId: subject.customer.id,
    rentalId: subject.rental?.id ?? null,
    bookingId: subject.booking?.id ?? null,
    bookingRentalId: subject.booking?.rental?.id ?? null,
    userGroupId: subject.userGroup?.id ?? null,
    costCenterId: subject.costCenter?.id ?? null,
    title: subject.title,
    at: subject.at,
    idempotencyKey: subject.idempotencyKey,
  });
  return em.findOneOrFail(Invoice, issued.id);
}

/** Who and what an invoice bills, as rows: `InvoiceSubject` by ids, with the issuing unit. */
export interface InvoiceRowSubject {
  tenant: string;
  /** The branch whose business unit issues the invoice. */
  branchId: number;
  /** The business unit behind the branch (for rentals its read-cache entry, `pricingUnitOfBranch`). */
  unit: NumberingUnit;
  customerId: number;
  rentalId: number | null;
  bookingId?: number | null;
  /** The rental a billed booking's pickup started, which INVOICE_CREATED names when `rentalId` is null. */
  bookingRentalId?: number | null;
  userGroupId: number | null;
  costCenterId: number | null;
  title: string;
  at: Date;
  idempotencyKey: string;
  /**
   * An ended rental's bill: the price and the invoice's id are written on the rental's row by the
   * invoice's own statement, one round trip fewer while the unit's counter row is locked.
   */
  linksRental?: true;
}

/**
 * The invoice, numbered, its lines (one per priceV4 line, none when the arrays are empty) and its
 * INVOICE_CREATED event (its key and its outbox row always, as `recordEvent` writes them) in one statement,
 * the event's payload completed with the invoice's id and number ($32, without them): the unit's counter
 * row is locked from here to the commit, so nothing of the invoice's is written after it.
 */
const invoiceWithLinesCtes = `
  with ${numberedCte('$1', '$4', '$31::int', '$2')},
  invoice_row as (
    insert into invoice (tenant_id, number, type, state, business_unit_id, customer_id, rental_id, booking_id,
                         user_group_id, cost_center_id, title, currency, total_net, total_tax, total_gross,
                         pricing_bundle_version, issued_at, idempotency_key, created_at, updated_at)
    select $1, numbered.number, $3, 'OPEN', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16,
           $17, $18, $18
      from numbered
    returning id, number
  ), line_rows as (
    insert into invoice_line (tenant_id, invoice_id, position, code, "group", phase, description, quantity,
                              unit, unit_price, net, tax, gross, tax_percentage)
    select $1, invoice_row.id, line.*
      from invoice_row,
           unnest($19::int[], $20::text[], $21::text[], $22::text[], $23::text[], $24::numeric[], $25::text[],
                  $26::numeric[], $27::numeric[], $28::numeric[], $29::numeric[], $30::numeric[]) as line
  ), input as (
    select nextval('event_id_seq') as id, 'INVOICE_CREATED'::text as type, $16::timestamptz as created_at,
           $33::int as branch_id, null::int as vehicle_id, null::int as rental_id, $5::int as customer_id,
           null::int as booking_id, null::text as admin_subject, null::jsonb as position,
           null::jsonb as vehicle_position, null::text as description,
           $32::jsonb || jsonb_build_object('invoiceId', invoice_row.id, 'number', invoice_row.number) as payload,
           $34::text as idempotency_key, 'INVOICE:' || invoice_row.id as outbox_entity_key, 1 as n
      from invoice_row
  ),
  ${eventWrites('$1', 'true')}`;

const insertInvoiceWithLines = `${invoiceWithLinesCtes}
  select id, number from invoice_row`;

/** {@link insertInvoiceWithLines}, also writing the final price and the invoice's id on the rental ($6). */
const insertInvoiceWithLinesForRental = `${invoiceWithLinesCtes},
  rental_link as (
    update rental set price = $35::jsonb, price_v3 = $36::jsonb, price_v4 = $37::jsonb,
                      invoice_id = invoice_row.id, updated_at = $18
      from invoice_row
     where rental.tenant_id = $1 and rental.id = $6
  )
  select id, number from invoice_row`;

/**
 * Creates an invoice as rows in the caller's transaction, in one statement: state OPEN, the next number of
 * the branch's business unit, BUSINESS for a business account, else REGULAR, its lines (one per priceV4
 * line) and its INVOICE_CREATED event (with `rentalIds`, a platform webhook, its outbox row always written
 * as `recordEvent` writes it). Every ended rental bills through here, so nothing is loaded, tracked or
 * flushed; the caller links the invoice on its own row (a rental's, with `linksRental`, in the same
 * statement). The caller checks that none exists yet.
 */
export async function issueInvoiceRows(
  em: EntityManager,
  price: PriceResult,
  subject: InvoiceRowSubject,
): Promise<{ id: number; number: string }> {
  const { priceV4 } = price;
  const type = subject.userGroupId === null ? 'REGULAR' : 'BUSINESS';
  const column = <T>(pick: (line: PriceLineV4, index: number) => T) => priceV4.lines.map(pick);
  const statement = subject.linksRental ? insertInvoiceWithLinesForRental : insertInvoiceWithLines;
  const rentalId = subject.rentalId ?? subject.bookingRentalId ?? null;
  // INVOICE_CREATED's payload but the invoice's id and number, which the statement adds.
  const createdPayload = invoiceCreatedPayload(
    {
      type,
      currency: priceV4.currency,
      totalNet: priceV4.totals.net,
      totalTax: priceV4.totals.tax,
      totalGross: priceV4.totals.gross,
      issuedAt: subject.at,
      businessUnit: { id: subject.unit.id },
    },
    { rentalIds: rentalId === null ? [] : [rentalId], bookingId: subject.bookingId ?? null },
  );
  const [row] = await preparedRows<{ id: number; number: string }>(em, statement, [
    subject.tenant,
    subject.unit.code,
    type,
    subject.unit.id,
    subject.customerId,
    subject.rentalId,
    subject.bookingId ?? null,
    subject.userGroupId,
    subject.costCenterId,
    subject.title,
    priceV4.currency,
    priceV4.totals.net,
    priceV4.totals.tax,
    priceV4.totals.gross,
    priceV4.pricingBundleVersion === null ? null : JSON.stringify(priceV4.pricingBundleVersion),
    subject.at,
    subject.idempotencyKey,
    new Date(),
    column((_, index) => index + 1),
    column((line) => line.code),
    column((line) => line.group),
    column((line) => line.phase),
    column((line) => line.description),
    column((line) => line.quantity),
    column((line) => line.unit),
    column((line) => line.unitPrice),
    column((line) => line.net),
    column((line) => line.tax),
    column((line) => line.gross),
    column((line) => line.taxPercentage),
    yearIn(subject.unit.timeZoneId, subject.at),
    JSON.stringify(createdPayload),
    subject.branchId,
    `${subject.idempotencyKey}:INVOICE_CREATED`,
    ...(subject.linksRental ? [price.price, price.priceV3, price.priceV4].map((v) => JSON.stringify(v)) : []),
  ]);
  return row!;
}

/** What an invoice's INVOICE_CREATED event names besides the invoice, and its key. */
interface InvoiceCreatedContext {
  branchId: number | null;
  rentalIds: number[];
  bookingId: number | null;
  idempotencyKey: string;
}

/**
 * Records an invoice's INVOICE_CREATED event (a platform webhook, docs/webhooks.md) in the caller's unit of
 * work, once per key: every invoice the platform issues (rental and booking invoices, issue invoices, credit
 * notes, collection invoices). The invoice must be flushed (its id and totals are the payload's).
 */
export function recordInvoiceCreated(
  em: EntityManager,
  invoice: Invoice,
  context: InvoiceCreatedContext,
): void {
  recordEvent(em, invoiceCreatedEvent(invoice, context));
}

/** What INVOICE_CREATED says of an invoice: an entity after its flush, or the row `issueInvoiceRows` wrote. */
type CreatedInvoice = Pick<
  Invoice,
  'id' | 'number' | 'type' | 'currency' | 'totalNet' | 'totalTax' | 'totalGross' | 'issuedAt'
> & {
  customer: { id: number };
  businessUnit: { id: number };
  refundedInvoice?: { id: number } | null;
};

/** The INVOICE_CREATED event of a written invoice, as every write path records it. */
function invoiceCreatedEvent(invoice: CreatedInvoice, context: InvoiceCreatedContext): EventFields {
  return {
    type: 'INVOICE_CREATED',
    createdAt: invoice.issuedAt,
    branchId: context.branchId,
    customerId: invoice.customer.id,
    // Not on the rental's or booking's timeline (their event lists stay their own): the ids are in the payload.
    payload: { invoiceId: invoice.id, number: invoice.number, ...invoiceCreatedPayload(invoice, context) },
    idempotencyKey: context.idempotencyKey,
  };
}

/** INVOICE_CREATED's payload but the invoice's id and number (`issueInvoiceRows` adds those in SQL). */
export function invoiceCreatedPayload(
  invoice: Omit<CreatedInvoice, 'id' | 'number' | 'customer'>,
  context: Pick<InvoiceCreatedContext, 'rentalIds' | 'bookingId'>,
): Record<string, unknown> {
  return {
    type: invoice.type,
    businessUnitId: invoice.businessUnit.id,
    rentalIds: context.rentalIds,
    bookingId: context.bookingId,
    refundedInvoiceId: invoice.refundedInvoice?.id ?? null,
    currency: invoice.currency,
    totalNet: invoice.totalNet,
    totalTax: invoice.totalTax,
    totalGross: invoice.totalGross,
    issuedAt: invoice.issuedAt.toISOString(),
  };
}
