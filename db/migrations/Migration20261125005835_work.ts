import { Migration } from '@mikro-orm/migrations';

export class Migration20261125005835_work extends Migration {

  override name = 'Migration20261125005835_work';

  override up(): void | Promise<void> {
    this.addSql(`create table "task_template" ("id" serial primary key, "tenant_id" varchar(32) not null, "name" varchar(200) not null, "title" varchar(200) not null, "description" varchar(4000) null, "priority" text not null default 'NORMAL', "category_id" int null, "tags" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);

    this.addSql(`create table "task_category" ("id" serial primary key, "tenant_id" varchar(32) not null, "name" varchar(100) not null, "description" varchar(2000) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create unique index "task_category_tenant_name_unique" on "task_category" ("tenant_id", lower("name"));`);

    this.addSql(`alter table "task" add "assigned_to_name" varchar(200) null, add "category_id" int null, add "category" text null, add "template_id" int null, add "damage_id" int null, add "customer_id" int null, add "vehicle_category_id" int null, add "completed_at" timestamptz null, add "completed_by" varchar(200) null;`);
    this.addSql(`create index "task_tenant_id_category_id_index" on "task" ("tenant_id", "category_id");`);
    this.addSql(`create index "task_tenant_id_completed_by_completed_at_index" on "task" ("tenant_id", "completed_by", "completed_at");`);
    this.addSql(`create index "task_tenant_id_branch_id_completed_at_index" on "task" ("tenant_id", "branch_id", "completed_at");`);
    this.addSql(`alter table "task" add constraint "task_category_check" check ("category" in ('CLEANING', 'CHARGING', 'REPAIR', 'INSPECTION', 'RELOCATION', 'OTHER'));`);

    this.addSql(`alter table "task_template" add constraint "task_template_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "task_template" add constraint "task_template_priority_check" check ("priority" in ('LOW', 'NORMAL', 'HIGH', 'SEVERE'));`);

    this.addSql(`alter table "task_category" add constraint "task_category_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "task_template" cascade;`);
    this.addSql(`drop table if exists "task_category" cascade;`);

    this.addSql(`drop index "task_tenant_id_category_id_index";`);
    this.addSql(`drop index "task_tenant_id_completed_by_completed_at_index";`);
    this.addSql(`drop index "task_tenant_id_branch_id_completed_at_index";`);
    this.addSql(`alter table "task" drop constraint "task_category_check";`);
    this.addSql(`alter table "task" drop column "assigned_to_name", drop column "category_id", drop column "category", drop column "template_id", drop column "damage_id", drop column "customer_id", drop column "vehicle_category_id", drop column "completed_at", drop column "completed_by";`);
  }

}
