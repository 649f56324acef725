import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * The identifier a vehicle carries in the public feeds (GBFS vehicle_id / bike_id): a random UUID, never
 * the internal id, replaced by a new random one after every trip (`tripMark` is the instant of the
 * vehicle's last rental activity when the id was drawn; a newer one draws a new id). Written only by the
 * feeds' snapshot builder (db/gbfs-data.ts).
 */
@Entity({ tableName: 'feed_vehicle_id' })
@Unique({ properties: ['tenant', 'vehicleId'] })
export class FeedVehicleId extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @Property({ type: 'integer' })
  vehicleId!: number;

  @Property({ type: 'uuid', unique: true })
  publicId!: string;

  /** The last rental activity (end, or start while a trip runs) the current id already follows. */
  @Property({ type: 'Date', nullable: true })
  tripMark?: Date | null;

  @Property({ type: 'Date' })
  rotatedAt: Opt<Date> = new Date();
}
