import { Migration } from '@mikro-orm/migrations';

/**
 * Trigram indexes for the task list's searches (GET /tasks: `searchText` ILIKE anywhere in title and
 * description, `assignedTo.firstLastName` in the assignee's name); pg_trgm comes from the customer search
 * migration. The generator leaves the operator class out, so it is written here.
 */
export class Migration20261125033917_work_task_list_indexes extends Migration {

  override name = 'Migration20261125033917_work_task_list_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "task_assigned_to_name_trgm" on "task" using gin ("assigned_to_name" gin_trgm_ops);`);
    this.addSql(`create index "task_description_trgm" on "task" using gin ("description" gin_trgm_ops);`);
    this.addSql(`create index "task_title_trgm" on "task" using gin ("title" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "task_assigned_to_name_trgm";`);
    this.addSql(`drop index "task_description_trgm";`);
    this.addSql(`drop index "task_title_trgm";`);
  }

}
