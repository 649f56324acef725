import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { fieldRouteStates, type FieldRouteState } from '../../domain/maintenance.js';

/**
 * A crew's planned tour of a branch (the maintenance service's route): its stops (FieldRouteStop) in
 * order, the assignee, the service vehicle it drives with, and its state (domain/maintenance.ts).
 */
@Entity({ tableName: 'field_route' })
@Index({ properties: ['tenant', 'branchId', 'state'] })
@Index({ properties: ['tenant', 'assignee', 'state'] })
@Index({ properties: ['tenant', 'serviceVehicleId'] })
export class FieldRoute extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  branchId!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** The assignee's user auth id (operator subject, as on tasks); GET /api/routes/my reads by it. */
  @Property({ type: 'string', length: 200, nullable: true })
  assignee?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  assigneeName?: string | null;

  @Property({ type: 'integer', nullable: true })
  serviceVehicleId?: number | null;

  /** The day the route is planned for (optional). */
  @Property({ type: 'date', nullable: true })
  plannedFor?: string | null;

  @Enum({ items: () => fieldRouteStates, type: 'string' })
  state: Opt<FieldRouteState> = 'PLANNED';

  /** Whether the stop order came from the optimiser, and the start it optimised from. */
  @Property({ type: 'boolean' })
  optimized: Opt<boolean> = false;

  @Property({ type: 'double', nullable: true })
  startLatitude?: number | null;

  @Property({ type: 'double', nullable: true })
  startLongitude?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date', nullable: true })
  startedAt?: Date | null;

  @Property({ type: 'Date', nullable: true })
  finishedAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
