import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  invoiceStates,
  invoiceTypes,
  type InvoiceState,
  type InvoiceType,
} from '../../domain/rental-pricing.js';
import type { PricingVersionRef } from '../../domain/pricing.js';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { Rental } from './Rental.js';
import { UserGroup } from './UserGroup.js';
import { CostCenter } from './CostCenter.js';
import { Booking } from './Booking.js';

/**
 * An invoice of a business unit to a customer (REGULAR) or to a business account (BUSINESS). A rental
 * has at most one invoice of its own (refunding invoices, which link `refundedInvoice`, come with the
 * finance issue). Amounts are PostgreSQL numerics read and written as decimal strings.
 */
@Entity({ tableName: 'invoice' })
@Unique({ properties: ['tenant', 'number'] })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Unique({
  name: 'invoice_one_per_rental',
  properties: ['tenant', 'rental'],
  where: `"refunded_invoice_id" is null`,
})
@Unique({
  name: 'invoice_one_per_booking',
  properties: ['tenant', 'booking'],
  where: `"refunded_invoice_id" is null`,
})
@Index({ properties: ['tenant', 'businessUnit', 'state'] })
@Index({ properties: ['tenant', 'customer'] })
// The payment starter's sweep of ended rentals' invoices their automatic bill missed
// (workers/payment-starter.ts): the OPEN ones by age, across tenants.
@Index({
  name: 'invoice_open_rental',
  expression:
    'create index "invoice_open_rental" on "invoice" ("created_at") where "state" = \'OPEN\' and "rental_id" is not null and "refunded_invoice_id" is null',
})
export class Invoice extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** Per business unit and year, gapless: `{unit code}-{year}-{000001}`. */
  @Property({ type: 'string', length: 100 })
  number!: string;

  @Enum({ items: () => invoiceTypes, type: 'string' })
  type!: InvoiceType;

  @Enum({ items: () => invoiceStates, type: 'string' })
  state: Opt<InvoiceState> = 'OPEN';

  /** The finance scope: the business unit behind the rental's branch. */
  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @ManyToOne({ entity: () => Customer, ref: false })
  customer!: Customer;

  @ManyToOne({ entity: () => Rental, ref: false, nullable: true })
  rental?: Rental | null;

  /** The booking the invoice bills (its trip, or its cancellation or no-show fee). */
  @ManyToOne({ entity: () => Booking, ref: false, nullable: true })
  booking?: Booking | null;

  /** Business invoices: the business account and cost center the rental was booked on. */
  @ManyToOne({ entity: () => UserGroup, ref: false, nullable: true })
  userGroup?: UserGroup | null;

  @ManyToOne({ entity: () => CostCenter, ref: false, nullable: true })
  costCenter?: CostCenter | null;

  /** Set on a refunding invoice (state IS_REFUND): the invoice it refunds. */
  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true })
  refundedInvoice?: Invoice | null;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  totalNet!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  totalTax!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  totalGross!: string;

  /** The pricing version that priced the rental. */
  @Property({ type: 'json', nullable: true })
  pricingBundleVersion?: PricingVersionRef | null;

  /** The payment provider's reference once a payment is taken (finance issue); null until then. */
  @Property({ type: 'string', length: 200, nullable: true })
  paymentReference?: string | null;

  @Property({ type: 'Date' })
  issuedAt!: Date;

  /** When it was billed (OPEN → BILLED): the dunning grace period runs from here. */
  @Property({ type: 'Date', nullable: true })
  billedAt?: Date | null;

  /**
   * When an invoice of a payer invoiced by transfer (paymentState INVOICING) is due: billed without a
   * payment, it waits for the transfer until then (the dunning grace period counts from here).
   */
  @Property({ type: 'Date', nullable: true })
  dueAt?: Date | null;

  /** When it was paid, set paid externally, refunded or given up as lost. */
  @Property({ type: 'Date', nullable: true })
  settledAt?: Date | null;

  /** What was paid outside the gateway (set paid externally): the part neither charged nor taken from a balance. */
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  paidExternallyGross?: string | null;

  /** A refunding invoice: the part given back through the gateway (positive; fixed when it is recorded). */
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  refundViaGateway?: string | null;

  /** A refunding invoice: the part given back to the balance whose credit paid it (positive). */
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  refundToBalance?: string | null;

  /** A refunding invoice: the part of an invoice paid externally, given back outside fleetflow (positive). */
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  refundExternally?: string | null;

  /** A refunding invoice: the reason given with the refund. */
  @Property({ type: 'string', length: 500, nullable: true })
  refundReason?: string | null;

  /** Key of the activity that created it: a retried activity finds its invoice instead of a second one. */
  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
