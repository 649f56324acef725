import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import {
  fieldRouteItemActionKinds,
  fieldRouteItemStates,
  type FieldRouteItemActionKind,
  type FieldRouteItemState,
} from '../../domain/maintenance.js';

/** What is to be done at a stop: a task (completed with the item) or an action such as BATTERY_SWAP. */
@Entity({ tableName: 'field_route_stop_item' })
@Index({ properties: ['tenant', 'routeId'] })
@Index({ properties: ['tenant', 'taskId'] })
export class FieldRouteStopItem extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  routeId!: number;

  @Property({ type: 'integer' })
  stopId!: number;

  /** Zero-based place among the stop's items. */
  @Property({ type: 'integer' })
  sequence!: number;

  @Property({ type: 'integer', nullable: true })
  taskId?: number | null;

  @Enum({ items: () => fieldRouteItemActionKinds, type: 'string', nullable: true })
  action?: FieldRouteItemActionKind | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Enum({ items: () => fieldRouteItemStates, type: 'string' })
  state: Opt<FieldRouteItemState> = 'OPEN';

  @Property({ type: 'Date', nullable: true })
  settledAt?: Date | null;

  @Property({ type: 'string', length: 200, nullable: true })
  settledBy?: string | null;
}
