import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { VehicleCategory } from './VehicleCategory.js';
import type { GbfsFormFactor, GbfsPropulsionType } from '../../domain/gbfs-vocabulary.js';

/**
 * How a vehicle category appears in the public feeds as a GBFS vehicle type (docs/feeds.md): its form
 * factor and propulsion, and the full-charge range of its battery model. A category without one is not
 * published (its vehicles stay out of the feeds): GBFS requires both, and the category itself does not say.
 */
@Entity({ tableName: 'feed_vehicle_type' })
@Unique({ properties: ['tenant', 'category'] })
export class FeedVehicleType extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => VehicleCategory, ref: false, deleteRule: 'cascade' })
  category!: VehicleCategory;

  /** GBFS 3.0 form factor (2.3 has the same values). */
  @Property({ type: 'string', length: 32 })
  formFactor!: GbfsFormFactor;

  @Property({ type: 'string', length: 32 })
  propulsionType!: GbfsPropulsionType;

  /** The battery (or tank) model the category's vehicles carry, as the operator names it. */
  @Property({ type: 'string', length: 200, nullable: true })
  batteryModel?: string | null;

  /** Range in metres of that battery model when full; required for every motorised propulsion. */
  @Property({ type: 'integer', nullable: true })
  maxRangeMeters?: number | null;

  /** Persons the vehicle carries (GBFS rider_capacity). */
  @Property({ type: 'integer', nullable: true })
  riderCapacity?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  make?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  model?: string | null;

  @Property({ type: 'integer', nullable: true })
  wheelCount?: number | null;

  /** Top speed the vehicle is allowed, km/h. */
  @Property({ type: 'integer', nullable: true })
  maxPermittedSpeedKmh?: number | null;
}
