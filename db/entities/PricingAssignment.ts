import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { pricingBundleTypes, type PricingBundleType } from '../../domain/pricing.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { VehicleCategory } from './VehicleCategory.js';
import { PricingBundle } from './PricingBundle.js';

/**
 * Which bundle prices a vehicle category at a branch (and, unless they have their own, its child
 * branches): one on-demand and one booking bundle at most per branch and category.
 */
@Entity({ tableName: 'pricing_assignment' })
@Unique({ properties: ['tenant', 'branch', 'vehicleCategory', 'bundleType'] })
@Index({ properties: ['tenant', 'bundle'] })
export class PricingAssignment extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @ManyToOne({ entity: () => VehicleCategory, ref: false })
  vehicleCategory!: VehicleCategory;

  @ManyToOne({ entity: () => PricingBundle, ref: false })
  bundle!: PricingBundle;

  /** The bundle's type, copied so the unique key can say "one of each type". */
  @Enum({ items: () => pricingBundleTypes, type: 'string' })
  bundleType!: PricingBundleType;

  @Property({ type: 'Date' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;
}
