import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * A category of tasks (the spec's task category, tasks name it by categoryId): tenant-wide, its name
 * unique in the tenant regardless of case; it cannot be deleted while tasks use it.
 */
@Entity({ tableName: 'task_category' })
@Index({
  name: 'task_category_tenant_name_unique',
  expression:
    'create unique index "task_category_tenant_name_unique" on "task_category" ("tenant_id", lower("name"))',
})
export class TaskCategory extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** Letters, digits and spaces, at least one letter or digit (domain/work.ts). */
  @Property({ type: 'string', length: 100 })
  name!: string;

  @Property({ type: 'string', length: 2000, nullable: true })
  description?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
