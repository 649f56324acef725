import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

export const taskPriorities = ['LOW', 'NORMAL', 'HIGH', 'SEVERE'] as const;
export type TaskPriority = (typeof taskPriorities)[number];
export const taskStates = ['NEW', 'IN_PROGRESS', 'RECURRING', 'COMPLETED'] as const;
export type TaskState = (typeof taskStates)[number];

/**
 * A piece of work (the spec's Task: taskData + taskObject). Created today by the vehicles' bulk task
 * creation; the task domain (categories, templates, recurrence) builds on this table.
 */
@Entity({ tableName: 'task' })
@Index({ properties: ['tenant', 'vehicleId', 'taskState'] })
@Index({ properties: ['tenant', 'branchId', 'taskState'] })
export class Task extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'string', length: 4000, nullable: true })
  description?: string | null;

  @Enum({ items: () => taskPriorities, type: 'string' })
  priority: Opt<TaskPriority> = 'NORMAL';

  @Enum({ items: () => taskStates, type: 'string' })
  taskState: Opt<TaskState> = 'NEW';

  @Property({ type: 'integer' })
  branchId!: number;

  @Property({ type: 'string', length: 200, nullable: true })
  assignedTo?: string | null;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  /** taskObject: what the task is about. */
  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
