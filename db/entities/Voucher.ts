import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Voucherable } from './Voucherable.js';
import {
  applicablePriceTypes,
  benefitTypes,
  validityTimeUnits,
  voucherSourceKinds,
  voucherStatuses,
  type ApplicablePriceType,
  type BenefitType,
  type CostSource,
  type ValidityTimeUnit,
  type VoucherSourceKind,
  type VoucherStatus,
} from '../../domain/benefits.js';

/**
 * One benefit of a template granted to a customer or a business account (a template with three benefits
 * grants three vouchers), or, NOT_REDEEMED and ownerless, a single-use constraint code waiting to be
 * redeemed. Its figures are copied at grant so later template edits do not change it; remaining value,
 * minutes, unlocks and rentals go down through `voucher_consumption` rows, once per key.
 * A grant is idempotent on (tenant, sourceKind, sourceReference, voucherable, benefitIndex).
 */
@Entity({ tableName: 'voucher' })
@Unique({
  name: 'voucher_grant_unique',
  properties: ['tenant', 'sourceKind', 'sourceReference', 'voucherable', 'benefitIndex'],
})
@Index({ properties: ['tenant', 'customerId', 'status'] })
@Index({ properties: ['tenant', 'userGroupId', 'status'] })
@Index({ properties: ['tenant', 'businessUnitId', 'status'] })
@Index({ properties: ['tenant', 'voucherable'] })
@Index({
  name: 'voucher_tenant_code_index',
  expression:
    'create index "voucher_tenant_code_index" on "voucher" ("tenant_id", lower("code")) where "code" is not null',
})
export class Voucher extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Voucherable, ref: false })
  voucherable!: Voucherable;

  /** The template's business unit (finance permissions are checked on it). */
  @Property({ type: 'integer' })
  businessUnitId!: number;

  /** The owner: a customer, or a business account (userGroupId); neither while NOT_REDEEMED. */
  @Property({ type: 'integer', nullable: true })
  customerId?: number | null;

  @Property({ type: 'integer', nullable: true })
  userGroupId?: number | null;

  @Enum({ items: () => voucherStatuses, type: 'string' })
  status!: VoucherStatus;

  @Enum({ items: () => voucherSourceKinds, type: 'string' })
  sourceKind!: VoucherSourceKind;

  @Property({ type: 'string', length: 200 })
  sourceReference!: string;

  /** Which benefit of the template (0 for the legacy fields' single benefit). */
  @Property({ type: 'integer' })
  benefitIndex!: number;

  @Enum({ items: () => benefitTypes, type: 'string' })
  benefitType!: BenefitType;

  /** A single-use constraint code (NOT_REDEEMED until a customer redeems it). */
  @Property({ type: 'string', length: 64, nullable: true })
  code?: string | null;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  /** Value (credit), RentalRebate and DiscountOnPackages money, gross. */
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  valueGross?: string | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  remainingValueGross?: string | null;

  /** Discount / DiscountOnPackages fraction 0..1. */
  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  discount?: string | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  rentalRebate?: string | null;

  @Property({ type: 'integer', nullable: true })
  freeMinutes?: number | null;

  @Property({ type: 'integer', nullable: true })
  remainingFreeMinutes?: number | null;

  @Property({ type: 'integer', nullable: true })
  freeUnlocks?: number | null;

  @Property({ type: 'integer', nullable: true })
  remainingFreeUnlocks?: number | null;

  @Property({ type: 'integer', nullable: true })
  numberOfRentals?: number | null;

  @Property({ type: 'integer', nullable: true })
  remainingNumberOfRentals?: number | null;

  @Property({ type: 'integer', nullable: true })
  additionEntitlementId?: number | null;

  @Enum({ items: () => applicablePriceTypes, type: 'string', nullable: true })
  applicablePriceType?: ApplicablePriceType | null;

  @Property({ type: 'json', nullable: true })
  costSources?: CostSource[] | null;

  @Property({ type: 'json', nullable: true })
  branchIds?: number[] | null;

  @Property({ type: 'json', nullable: true })
  vehicleCategoryIds?: number[] | null;

  /** Validity; a NOT_REDEEMED code keeps its period here and gets its dates when redeemed. */
  @Property({ type: 'Date', nullable: true })
  validFrom?: Date | null;

  @Property({ type: 'Date', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'integer', nullable: true })
  validityPeriod?: number | null;

  @Enum({ items: () => validityTimeUnits, type: 'string', nullable: true })
  validityTimeUnit?: ValidityTimeUnit | null;

  /** When a Value voucher's credit was written to the owner's balance (once). */
  @Property({ type: 'Date', nullable: true })
  creditedAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  creditedBalanceId?: number | null;

  @Property({ type: 'Date', nullable: true })
  redeemedAt?: Date | null;

  @Property({ type: 'Date', nullable: true })
  canceledAt?: Date | null;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
