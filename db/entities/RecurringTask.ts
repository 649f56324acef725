import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { taskPriorities, type TaskPriority, type Weekday } from '../../domain/work.js';

/**
 * A recurring task (the spec's /tasks/recurring, shown in taskState RECURRING): the taskData and
 * taskObject each due child task is created with, and when they are due, whichever comes first: by time
 * (weekdays at a local time; its Temporal Schedule `recurring-task:{tenant}:{id}`), by rental count or by
 * kilometres (its usage workflow `recurring-task-usage:{tenant}:{id}`, counting from the baseline).
 */
@Entity({ tableName: 'recurring_task' })
@Index({ properties: ['tenant', 'branchId'] })
@Index({ properties: ['tenant', 'categoryId'] })
export class RecurringTask extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  branchId!: number;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'string', length: 4000, nullable: true })
  description?: string | null;

  @Enum({ items: () => taskPriorities, type: 'string' })
  priority: Opt<TaskPriority> = 'NORMAL';

  @Property({ type: 'integer', nullable: true })
  categoryId?: number | null;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  @Property({ type: 'string', length: 200, nullable: true })
  assignedTo?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  assignedToName?: string | null;

  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  /** Time: the weekdays a child is due on (MONDAY…SUNDAY); null without a time trigger. */
  @Property({ type: 'json', nullable: true })
  daysOfWeek?: Weekday[] | null;

  /** Time: the local time of day a child is due, HH:MM. */
  @Property({ type: 'string', length: 5, nullable: true })
  timeOfDay?: string | null;

  /** Time: the IANA time zone of `timeOfDay`. */
  @Property({ type: 'string', length: 64, nullable: true })
  timezone?: string | null;

  /** Usage: a child is due after this many ended rentals of the vehicle since the baseline. */
  @Property({ type: 'integer', nullable: true })
  everyRentals?: number | null;

  /** Usage: a child is due after the vehicle's odometer grew this many km since the baseline. */
  @Property({ type: 'integer', nullable: true })
  everyKm?: number | null;

  /**
   * Where usage counts from: creation, then the completion of the last child (the usage workflow moves
   * it when it sees that completion, with the odometer it reads then).
   */
  @Property({ type: 'Date' })
  baselineAt!: Date;

  @Property({ type: 'double', nullable: true })
  baselineOdometerKm?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
