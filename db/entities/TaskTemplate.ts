import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { taskPriorities, type TaskPriority } from '../../domain/work.js';

/**
 * A reusable task setup (the spec's task template): the taskData a new task starts from when it names
 * the template (title, description, priority, category, tags). Tenant-wide.
 */
@Entity({ tableName: 'task_template' })
export class TaskTemplate extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'string', length: 4000, nullable: true })
  description?: string | null;

  @Enum({ items: () => taskPriorities, type: 'string' })
  priority: Opt<TaskPriority> = 'NORMAL';

  /** A TaskCategory id (plain column like the task's; deleting a category in use is refused). */
  @Property({ type: 'integer', nullable: true })
  categoryId?: number | null;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
