import type { Opt } from '@mikro-orm/core';
import { Entity, OneToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import type { GeofenceGeometry } from '../../domain/geofence.js';
import { TenantScoped } from './TenantScoped.js';
import { PhysicalStation } from './PhysicalStation.js';

/** The parking area beside a physical station: capacity, geometry and places held by reservations. */
@Entity({ tableName: 'parking_area' })
export class ParkingArea extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @OneToOne({ entity: () => PhysicalStation, ref: false, owner: true, unique: true, deleteRule: 'cascade' })
  physicalStation!: PhysicalStation;

  @Property({ type: 'integer' })
  capacity!: number;

  /** GeoJSON MultiPolygon, [lng, lat]. */
  @Property({ type: 'json' })
  geometry!: GeofenceGeometry;

  /** Places held by parking reservations. */
  @Property({ type: 'integer' })
  reservedCount: Opt<number> = 0;
}
