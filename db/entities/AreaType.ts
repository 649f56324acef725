import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import type { AreaPolicyType } from '../../domain/geofence.js';
import { TenantScoped } from './TenantScoped.js';

/** How an area type is drawn on maps. */
export interface AreaTypeStyle {
  color: string;
  lineThickness: number;
  opacity: number;
}

/** A kind of area (business area, no-parking zone, …): its map style and the policy types its areas may carry. */
@Entity({ tableName: 'area_type' })
export class AreaType extends TenantScoped {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 2000, nullable: true })
  description?: string | null;

  @Property({ type: 'json' })
  style!: AreaTypeStyle;

  @Property({ type: 'json' })
  policyTypes: Opt<AreaPolicyType[]> = [];

  /** System types cannot be changed or deleted through the API. */
  @Property({ type: 'boolean' })
  readOnly: Opt<boolean> = false;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  @Property({ type: 'json' })
  labels: Opt<string[]> = [];
}
