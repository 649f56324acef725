import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import {
  legacyTaskCategories,
  taskPriorities,
  taskStates,
  type LegacyTaskCategory,
  type TaskPriority,
  type TaskState,
} from '../../domain/work.js';

// The state and priority lists live with the task rules (domain/work.ts); re-exported for the fleet routes.
export { taskPriorities, taskStates, type TaskPriority, type TaskState };

/**
 * A piece of work (the spec's Task: taskData + taskObject). Created today by the vehicles' bulk task
 * creation; the task domain (categories, templates, recurrence) builds on this table.
 */
@Entity({ tableName: 'task' })
@Index({ properties: ['tenant', 'vehicleId', 'taskState'] })
@Index({ properties: ['tenant', 'branchId', 'taskState'] })
@Index({ properties: ['tenant', 'branchId', 'completedAt'] })
@Index({ properties: ['tenant', 'completedBy', 'completedAt'] })
@Index({ properties: ['tenant', 'categoryId'] })
@Unique({ name: 'task_recurring_due_unique', properties: ['tenant', 'recurringTaskId', 'dueKey'] })
// The task list's searches (GET /tasks: ILIKE anywhere in title, description, assignee name) from trigram
// indexes instead of a scan of the branch (bench/task-list.ts).
@Index({ name: 'task_title_trgm', properties: ['title'], type: 'gin', options: { opclass: 'gin_trgm_ops' } })
@Index({
  name: 'task_description_trgm',
  properties: ['description'],
  type: 'gin',
  options: { opclass: 'gin_trgm_ops' },
})
@Index({
  name: 'task_assigned_to_name_trgm',
  properties: ['assignedToName'],
  type: 'gin',
  options: { opclass: 'gin_trgm_ops' },
})
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

  /** The assignee's user auth id (operator subject). */
  @Property({ type: 'string', length: 200, nullable: true })
  assignedTo?: string | null;

  /** The assignee's first and last name as shown (assignedTo.firstLastName, searched by the task list). */
  @Property({ type: 'string', length: 200, nullable: true })
  assignedToName?: string | null;

  /** A TaskCategory id; wins over the deprecated `category` enum. */
  @Property({ type: 'integer', nullable: true })
  categoryId?: number | null;

  /** The deprecated category enum, kept for clients that still send it. */
  @Enum({ items: () => legacyTaskCategories, type: 'string', nullable: true })
  category?: LegacyTaskCategory | null;

  /** The template the task started from, if any. */
  @Property({ type: 'integer', nullable: true })
  templateId?: number | null;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  /** taskObject: what the task is about. */
  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  @Property({ type: 'integer', nullable: true })
  damageId?: number | null;

  /** taskObject.issueId: the issue the task is about. */
  @Property({ type: 'integer', nullable: true })
  issueId?: number | null;

  /** taskObject.guserId: the customer the task is about. */
  @Property({ type: 'integer', nullable: true })
  customerId?: number | null;

  @Property({ type: 'integer', nullable: true })
  vehicleCategoryId?: number | null;

  /** The recurring task this one is a due child of, and its due point (unique per recurring task). */
  @Property({ type: 'integer', nullable: true })
  recurringTaskId?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  dueKey?: string | null;

  /** When the task became COMPLETED and who completed it (cleared when it is reopened). */
  @Property({ type: 'Date', nullable: true })
  completedAt?: Date | null;

  @Property({ type: 'string', length: 200, nullable: true })
  completedBy?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
