import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import {
  applicablePriceTypes,
  validityTimeUnits,
  voucherableStatuses,
  voucherableTypes,
  type ApplicablePriceType,
  type Benefit,
  type CostSource,
  type ValidityTimeUnit,
  type VoucherableStatus,
  type VoucherableType,
} from '../../domain/benefits.js';
import type { Weekday } from '../../domain/geofence.js';

/**
 * A benefit template (the spec's Voucherable) of one business unit: its type, benefits and restrictions.
 * Vouchers are granted from it (db/voucher-grants.ts). `benefits`, when not empty, overrides the legacy
 * fields value, discount, rentalRebate and additionEntitlementId. Its code is unique in the tenant
 * regardless of case among templates not deleted; deleting keeps the row for the vouchers granted from it.
 */
@Entity({ tableName: 'voucherable' })
@Index({ properties: ['tenant', 'businessUnitId', 'type'] })
@Index({
  name: 'voucherable_tenant_code_unique',
  expression:
    'create unique index "voucherable_tenant_code_unique" on "voucherable" ("tenant_id", lower("code")) where "code" is not null and "deleted_at" is null',
})
export class Voucherable extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The branch it was created on (shown; rewards and promotions are listed by it). */
  @Property({ type: 'integer' })
  branchId!: number;

  /** That branch's business unit (finance permissions are checked on it). */
  @Property({ type: 'integer' })
  businessUnitId!: number;

  @Enum({ items: () => voucherableTypes, type: 'string' })
  type!: VoucherableType;

  @Enum({ items: () => voucherableStatuses, type: 'string' })
  status: Opt<VoucherableStatus> = 'INACTIVE';

  @Property({ type: 'string', length: 64, nullable: true })
  code?: string | null;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 2000, nullable: true })
  description?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  invoiceDescription?: string | null;

  @Property({ type: 'string', length: 2000, nullable: true })
  iconUrl?: string | null;

  /** The business unit's currency when created. */
  @Property({ type: 'string', length: 3 })
  currency!: string;

  // Legacy single-benefit fields (overridden by `benefits` when it is not empty).
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  value?: string | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  discount?: string | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  rentalRebate?: string | null;

  @Property({ type: 'integer', nullable: true })
  additionEntitlementId?: number | null;

  @Property({ type: 'json', defaultRaw: `'[]'` })
  benefits: Opt<Benefit[]> = [];

  // Template-wide restrictions (the default of each benefit).
  @Property({ type: 'Date', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'integer', nullable: true })
  validityPeriod?: number | null;

  @Enum({ items: () => validityTimeUnits, type: 'string', nullable: true })
  validityTimeUnit?: ValidityTimeUnit | null;

  @Property({ type: 'integer', nullable: true })
  numberOfRentals?: number | null;

  @Property({ type: 'json', nullable: true })
  applicableBranchIds?: number[] | null;

  @Property({ type: 'json', nullable: true })
  applicableVehicleCategoryIds?: number[] | null;

  @Enum({ items: () => applicablePriceTypes, type: 'string', nullable: true })
  applicablePriceType?: ApplicablePriceType | null;

  @Property({ type: 'json', nullable: true })
  costSources?: CostSource[] | null;

  // Annotation gates: on the customer, and on related models (additions…).
  @Property({ type: 'json', defaultRaw: `'[]'` })
  guserRequiredAnnotationIds: Opt<number[]> = [];

  @Property({ type: 'json', defaultRaw: `'[]'` })
  guserProhibitedAnnotationIds: Opt<number[]> = [];

  @Property({ type: 'json', defaultRaw: `'[]'` })
  requiredAnnotationIds: Opt<number[]> = [];

  @Property({ type: 'json', defaultRaw: `'[]'` })
  prohibitedAnnotationIds: Opt<number[]> = [];

  // Purchase (Package, Subscription, RidePass, PricedPromotion).
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  price?: string | null;

  /** Subscription interval (DAILY, WEEKLY, MONTHLY, FIRST_OF_MONTH, YEARLY, FIRST_OF_YEAR). */
  @Property({ type: 'string', length: 32, nullable: true })
  interval?: string | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  initialPrice?: string | null;

  @Property({ type: 'integer', nullable: true })
  initialIterations?: number | null;

  /** An initial package (bought at sign-up); W129 refuses one after a non-initial package. */
  @Property({ type: 'boolean' })
  initial: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  highlight: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  showInUserApp: Opt<boolean> = false;

  // Redemption.
  /** How many times the template may be redeemed in total (W124); null: unlimited. */
  @Property({ type: 'integer', nullable: true })
  maxRedeems?: number | null;

  /**
   * How many times one customer may redeem the template, across all its codes (its own code, redeemable
   * codes, single-use codes): W117 beyond it; 1 unless the template says otherwise; null: unlimited.
   */
  @Property({ type: 'integer', nullable: true, default: 1 })
  maxRedeemsPerCustomer: Opt<number | null> = 1;

  /** How many redemptions counted against `maxRedeems` so far. */
  @Property({ type: 'integer' })
  redeemCount: Opt<number> = 0;

  /** The window in which its codes may be redeemed (W133). */
  @Property({ type: 'Date', nullable: true })
  redeemFrom?: Date | null;

  @Property({ type: 'Date', nullable: true })
  redeemUntil?: Date | null;

  /** SignupReferral: the template granted to the referrer when a new customer uses their code. */
  @Property({ type: 'integer', nullable: true })
  referrerVoucherableId?: number | null;

  /** SignupReferral: the referrer needs a successful (ended) rental (W131). */
  @Property({ type: 'boolean' })
  referrerNeedsRide: Opt<boolean> = false;

  // Geofence promotions and surcharges: where (MultiPolygon, [lng, lat]) and when (recurrence).
  @Property({ type: 'json', nullable: true })
  geofence?: { type: 'MultiPolygon'; coordinates: number[][][][] } | null;

  /** The weekdays (MONDAY…SUNDAY, the business unit's local time) on which the window opens. */
  @Property({ type: 'json', nullable: true })
  weekdays?: Weekday[] | null;

  /** When the recurrence starts (its local time of day is the window's start). */
  @Property({ type: 'Date', nullable: true })
  recurrenceStart?: Date | null;

  @Property({ type: 'integer', nullable: true })
  durationMinutes?: number | null;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  deletedAt?: Date | null;
}
