import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** A billable branch: the scope of finance permissions, currency and tax. */
@Entity({ tableName: 'business_unit' })
@Unique({ properties: ['tenant', 'code'] })
export class BusinessUnit extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 64 })
  timeZoneId!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'decimal', precision: 5, scale: 2 })
  taxPercentage!: string;

  /** Decimal places prices are rounded to. */
  @Property({ type: 'integer' })
  scale: Opt<number> = 2;

  @Property({ type: 'json', nullable: true })
  contactInfo?: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  uiSettings?: Record<string, unknown> | null;

  @Property({ type: 'integer', nullable: true })
  termsAndConditionsId?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  merchantAccountOverride?: string | null;

  /** Amount reserved on the customer's card before a rental, in the unit's currency (decimal string). */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  reserveAmountOnCc?: string | null;

  /** Net fee charged for SEPA handling (decimal string). */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  sepaHandlingFeeNet?: string | null;

  @Property({ type: 'integer', nullable: true })
  signupVoucherableId?: number | null;

  @Property({ type: 'integer', nullable: true })
  referrerVoucherableId?: number | null;

  @Property({ type: 'integer', nullable: true })
  refereeVoucherableId?: number | null;

  @Property({ type: 'json', nullable: true })
  appProperties?: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  dashboardProperties?: Record<string, unknown> | null;
}
