import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  pricingVersionStatuses,
  type PricingRules,
  type PricingVersionStatus,
} from '../../domain/pricing.js';
import { TenantScoped } from './TenantScoped.js';
import { PricingBundle } from './PricingBundle.js';

/**
 * One version of a bundle's rules. Only a DRAFT is ever changed; publishing fixes it (PUBLISHED, with
 * its effective date) and the publication workflow supersedes the previous one when that date comes.
 * Rates are decimal strings inside `rules` (never binary floating point).
 */
@Entity({ tableName: 'pricing_bundle_version' })
@Unique({ properties: ['tenant', 'bundle', 'version'] })
@Index({ properties: ['tenant', 'bundle', 'status'] })
export class PricingBundleVersion extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => PricingBundle, ref: false })
  bundle!: PricingBundle;

  /** 1, 2, 3... within the bundle. */
  @Property({ type: 'integer' })
  version!: number;

  @Enum({ items: () => pricingVersionStatuses, type: 'string' })
  status: Opt<PricingVersionStatus> = 'DRAFT';

  @Property({ type: 'string', length: 1000, nullable: true })
  notes?: string | null;

  @Property({ type: 'json' })
  rules!: PricingRules;

  /** The version this draft was copied from, if any. */
  @Property({ type: 'integer', nullable: true })
  basedOnVersion?: number | null;

  @Property({ type: 'Date', nullable: true })
  effectiveFrom?: Date | null;

  @Property({ type: 'Date', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'Date', nullable: true })
  publishedAt?: Date | null;

  @Property({ type: 'string', length: 200, nullable: true })
  publishedBy?: string | null;

  /** When it stopped applying: superseded, expired or archived. */
  @Property({ type: 'Date', nullable: true })
  endedAt?: Date | null;

  @Property({ type: 'Date' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
