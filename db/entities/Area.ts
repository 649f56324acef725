import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import {
  areaStatuses,
  type AreaPolicy,
  type AreaStatus,
  type GeofenceGeometry,
} from '../../domain/geofence.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { AreaType } from './AreaType.js';

/** A geofenced area of a branch and the policies that hold inside it (see domain/geofence.ts). */
@Entity({ tableName: 'area' })
@Index({ properties: ['tenant', 'branch'] })
export class Area extends TenantScoped {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @ManyToOne({ entity: () => AreaType, ref: false })
  areaType!: AreaType;

  @Enum({ items: () => areaStatuses, type: 'string' })
  status: Opt<AreaStatus> = 'ACTIVE';

  /** Vehicle categories the area applies to; empty: every category. */
  @Property({ type: 'json' })
  vehicleTypeIds: Opt<number[]> = [];

  /** GeoJSON MultiPolygon, [lng, lat] positions. */
  @Property({ type: 'json' })
  geofence!: GeofenceGeometry;

  @Property({ type: 'json' })
  policies: Opt<AreaPolicy[]> = [];

  /** Client-managed tags. */
  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  /** System labels (read-only to clients), e.g. NEW until an operator confirms the area with resetNew. */
  @Property({ type: 'json' })
  labels: Opt<string[]> = [];

  @Property({ type: 'datetime' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
