import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { fieldRouteStopStates, type FieldRouteStopState } from '../../domain/maintenance.js';

/**
 * One stop of a field route: a rental vehicle, a station or a bare position, its place in the visiting
 * order and its state. The position is the vehicle's or station's when the route was planned.
 */
@Entity({ tableName: 'field_route_stop' })
@Index({ properties: ['tenant', 'routeId', 'sequence'] })
export class FieldRouteStop extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  routeId!: number;

  /** Zero-based place in the visiting order. */
  @Property({ type: 'integer' })
  sequence!: number;

  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  @Property({ type: 'integer', nullable: true })
  stationId?: number | null;

  @Property({ type: 'double', nullable: true })
  latitude?: number | null;

  @Property({ type: 'double', nullable: true })
  longitude?: number | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  note?: string | null;

  @Enum({ items: () => fieldRouteStopStates, type: 'string' })
  state: Opt<FieldRouteStopState> = 'PENDING';

  @Property({ type: 'Date', nullable: true })
  arrivedAt?: Date | null;

  @Property({ type: 'Date', nullable: true })
  settledAt?: Date | null;

  @Property({ type: 'string', length: 200, nullable: true })
  settledBy?: string | null;
}
