import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import type { GeofenceGeometry } from '../../domain/geofence.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';

export const stationTypes = ['VIRTUAL', 'DOCKING', 'RECOMMENDED', 'PROMOTION'] as const;
export type StationType = (typeof stationTypes)[number];
export const stationStates = ['ACTIVE', 'INACTIVE'] as const;
export type StationState = (typeof stationStates)[number];

/** What a customer earns for ending a rental at a station (PROMOTION and RECOMMENDED stations). */
export interface StationReward {
  description?: string;
  /** A voucherable granted at the end of the rental. */
  voucherableId?: number;
  /** Free minutes credited. */
  freeMinutes?: number;
}

/** An on-demand station: where vehicles are returned (VIRTUAL, DOCKING) or customers are steered (RECOMMENDED, PROMOTION). */
@Entity({ tableName: 'station' })
@Index({ properties: ['tenant', 'branch'] })
export class Station extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Enum({ items: () => stationTypes, type: 'string' })
  type!: StationType;

  /** Vehicles the station holds; null: unlimited. */
  @Property({ type: 'integer', nullable: true })
  capacity?: number | null;

  @Property({ type: 'double' })
  latitude!: number;

  @Property({ type: 'double' })
  longitude!: number;

  /** Catchment radius in metres around the position, when no area is drawn. */
  @Property({ type: 'integer', nullable: true })
  radius?: number | null;

  /** Catchment area (GeoJSON MultiPolygon, [lng, lat]); takes precedence over the radius. */
  @Property({ type: 'json', nullable: true })
  area?: GeofenceGeometry | null;

  @Property({ type: 'string', length: 16 })
  visibility: Opt<'public' | 'private'> = 'public';

  @Enum({ items: () => stationStates, type: 'string' })
  state: Opt<StationState> = 'ACTIVE';

  @Property({ type: 'datetime', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'json', nullable: true })
  reward?: StationReward | null;
}
