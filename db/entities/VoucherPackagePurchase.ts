import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Voucherable } from './Voucherable.js';

// REFUNDED: its invoice was refunded in full; the vouchers it granted and had left are CANCELED.
export const packagePurchaseStates = ['BILLED', 'GRANTED', 'FAILED', 'REFUNDED'] as const;
export type PackagePurchaseState = (typeof packagePurchaseStates)[number];

/**
 * One purchase of a package (a Package or RidePass template) by a customer: an invoice billed through
 * finance's payments; when the invoice is PAID the package's vouchers are granted once (source PACKAGE,
 * reference `package-purchase:{id}`). The request's key makes a retried purchase find its row.
 */
@Entity({ tableName: 'voucher_package_purchase' })
@Unique({ properties: ['tenant', 'invoiceId'] })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Index({ properties: ['tenant', 'customerId', 'state'] })
export class VoucherPackagePurchase extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Voucherable, ref: false })
  voucherable!: Voucherable;

  @Property({ type: 'integer' })
  customerId!: number;

  @Property({ type: 'integer' })
  businessUnitId!: number;

  @Property({ type: 'integer' })
  invoiceId!: number;

  @Property({ type: 'string', length: 16 })
  state: Opt<PackagePurchaseState> = 'BILLED';

  /** Whether the package is an initial one (copied from the template at purchase, for W129). */
  @Property({ type: 'boolean' })
  initial: Opt<boolean> = false;

  @Property({ type: 'decimal', columnType: 'numeric' })
  price!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', nullable: true })
  grantedAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
