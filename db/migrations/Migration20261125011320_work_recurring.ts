import { Migration } from '@mikro-orm/migrations';

export class Migration20261125011320_work_recurring extends Migration {

  override name = 'Migration20261125011320_work_recurring';

  override up(): void | Promise<void> {
    this.addSql(`create table "recurring_task" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "title" varchar(200) not null, "description" varchar(4000) null, "priority" text not null default 'NORMAL', "category_id" int null, "tags" jsonb not null, "assigned_to" varchar(200) null, "assigned_to_name" varchar(200) null, "vehicle_id" int null, "days_of_week" jsonb null, "time_of_day" varchar(5) null, "timezone" varchar(64) null, "every_rentals" int null, "every_km" int null, "baseline_at" timestamptz not null, "baseline_odometer_km" double precision null, "created_by" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "recurring_task_tenant_id_category_id_index" on "recurring_task" ("tenant_id", "category_id");`);
    this.addSql(`create index "recurring_task_tenant_id_branch_id_index" on "recurring_task" ("tenant_id", "branch_id");`);

    this.addSql(`alter table "task" add "recurring_task_id" int null, add "due_key" varchar(200) null;`);
    this.addSql(`alter table "task" add constraint "task_recurring_due_unique" unique ("tenant_id", "recurring_task_id", "due_key");`);

    this.addSql(`alter table "recurring_task" add constraint "recurring_task_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "recurring_task" add constraint "recurring_task_priority_check" check ("priority" in ('LOW', 'NORMAL', 'HIGH', 'SEVERE'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "recurring_task" cascade;`);

    this.addSql(`alter table "task" drop constraint "task_recurring_due_unique";`);
    this.addSql(`alter table "task" drop column "recurring_task_id", drop column "due_key";`);
  }

}
