import { Migration } from '@mikro-orm/migrations';

export class Migration20261125031414_issues extends Migration {

  override name = 'Migration20261125031414_issues';

  override up(): void | Promise<void> {
    this.addSql(`create table "issue" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "title" varchar(200) not null, "description" varchar(4000) null, "category" text not null, "state" text not null default 'CREATED', "booking_id" int null, "rental_id" int null, "vehicle_id" int null, "customer_id" int null, "user_group_id" int null, "cost_center_id" int null, "deposit_id" int null, "created_by" varchar(200) not null, "assigned_to" varchar(200) null, "assigned_to_name" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "closed_at" timestamptz null);`);
    this.addSql(`create index "issue_tenant_id_customer_id_index" on "issue" ("tenant_id", "customer_id");`);
    this.addSql(`create index "issue_tenant_id_rental_id_index" on "issue" ("tenant_id", "rental_id");`);
    this.addSql(`create index "issue_tenant_id_vehicle_id_index" on "issue" ("tenant_id", "vehicle_id");`);
    this.addSql(`create index "issue_tenant_id_branch_id_state_index" on "issue" ("tenant_id", "branch_id", "state");`);

    this.addSql(`create table "issue_comment" ("id" serial primary key, "tenant_id" varchar(32) not null, "issue_id" int not null, "author_user_auth_id" varchar(200) not null, "text" varchar(4000) not null, "created_at" timestamptz not null, "edited_at" timestamptz null);`);
    this.addSql(`create index "issue_comment_tenant_id_issue_id_created_at_index" on "issue_comment" ("tenant_id", "issue_id", "created_at");`);

    this.addSql(`create table "issue_invoice" ("id" serial primary key, "tenant_id" varchar(32) not null, "issue_id" int not null, "invoice_id" int not null, "deposit_id" int null, "deposit_amount" numeric null, "created_by" varchar(200) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "issue_invoice_tenant_id_deposit_id_index" on "issue_invoice" ("tenant_id", "deposit_id");`);
    this.addSql(`create index "issue_invoice_tenant_id_issue_id_index" on "issue_invoice" ("tenant_id", "issue_id");`);
    this.addSql(`alter table "issue_invoice" add constraint "issue_invoice_tenant_id_invoice_id_unique" unique ("tenant_id", "invoice_id");`);

    this.addSql(`alter table "task" add "issue_id" int null;`);

    this.addSql(`alter table "damage" add "issue_id" int null;`);
    this.addSql(`create index "damage_tenant_id_issue_id_index" on "damage" ("tenant_id", "issue_id");`);

    this.addSql(`alter table "issue" add constraint "issue_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "issue" add constraint "issue_category_check" check ("category" in ('FINE', 'ACCIDENT', 'MISSING_PARTS', 'SERVICE_INSPECTION', 'DAMAGED_VEHICLE', 'COMMUNICATION', 'PARKING', 'PURCHASE', 'TOLL', 'INSURANCE', 'DELIVERY', 'CORRECTION'));`);
    this.addSql(`alter table "issue" add constraint "issue_state_check" check ("state" in ('CREATED', 'WAITING', 'IN_REPAIR', 'CLOSED'));`);

    this.addSql(`alter table "issue_comment" add constraint "issue_comment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "issue_comment" add constraint "issue_comment_issue_id_foreign" foreign key ("issue_id") references "issue" ("id") on delete cascade;`);

    this.addSql(`alter table "issue_invoice" add constraint "issue_invoice_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "issue_invoice" add constraint "issue_invoice_issue_id_foreign" foreign key ("issue_id") references "issue" ("id") on delete cascade;`);
    this.addSql(`alter table "issue_invoice" add constraint "issue_invoice_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "issue_comment" drop constraint "issue_comment_issue_id_foreign";`);
    this.addSql(`alter table "issue_invoice" drop constraint "issue_invoice_issue_id_foreign";`);

    this.addSql(`drop table if exists "issue" cascade;`);
    this.addSql(`drop table if exists "issue_comment" cascade;`);
    this.addSql(`drop table if exists "issue_invoice" cascade;`);

    this.addSql(`drop index "damage_tenant_id_issue_id_index";`);
    this.addSql(`alter table "damage" drop column "issue_id";`);

    this.addSql(`alter table "task" drop column "issue_id";`);
  }

}
