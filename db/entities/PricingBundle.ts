import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  distanceUnits,
  pricingBundleTypes,
  type DistanceUnit,
  type PricingBundleType,
} from '../../domain/pricing.js';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';

/**
 * A named set of pricing rules of one type (BOOKING or ON_DEMAND_LEGACY) in one currency, owned by a
 * business unit (where finance permissions on it are checked). Its rules live in versions. A bundle
 * that was ever published is archived, not deleted, so rentals keep pointing at their version; live
 * names are unique per tenant (a partial unique index).
 */
@Entity({ tableName: 'pricing_bundle' })
@Unique({ name: 'pricing_bundle_live_name', properties: ['tenant', 'name'], where: 'archived_at is null' })
@Index({ properties: ['tenant', 'businessUnit'] })
export class PricingBundle extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Enum({ items: () => pricingBundleTypes, type: 'string' })
  type!: PricingBundleType;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Enum({ items: () => distanceUnits, type: 'string' })
  distanceUnit: Opt<DistanceUnit> = 'KILOMETER';

  @Property({ type: 'Date' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();

  /** Set by DELETE on a bundle that was published once; archived bundles are hidden from lists. */
  @Property({ type: 'Date', nullable: true })
  archivedAt?: Date | null;
}
