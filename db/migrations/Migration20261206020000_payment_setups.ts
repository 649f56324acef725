import { Migration } from '@mikro-orm/migrations';

export class Migration20261206020000_payment_setups extends Migration {

  override name = 'Migration20261206020000_payment_setups';

  override up(): void | Promise<void> {
    this.addSql(`create table "payment_setup" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "group_id" int null, "business_unit_id" int not null, "gateway" varchar(32) not null, "reference" varchar(200) null, "gateway_customer" varchar(200) null, "state" varchar(16) not null default 'PENDING', "error_code" varchar(16) null, "failure_code" varchar(100) null, "failure_message" varchar(500) null, "created_at" timestamptz not null, "completed_at" timestamptz null);`);
    this.addSql(`create index "payment_setup_tenant_id_customer_id_index" on "payment_setup" ("tenant_id", "customer_id");`);
    this.addSql(`alter table "payment_setup" add constraint "payment_setup_tenant_id_gateway_reference_unique" unique ("tenant_id", "gateway", "reference");`);
    this.addSql(`alter table "payment_setup" add constraint "payment_setup_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "payment_setup" add constraint "payment_setup_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_setup" add constraint "payment_setup_group_id_foreign" foreign key ("group_id") references "user_group" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_setup" add constraint "payment_setup_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);

    this.addSql(`alter table "payment_source" add column "setup_id" int null;`);
    this.addSql(`alter table "payment_source" add constraint "payment_source_setup_id_foreign" foreign key ("setup_id") references "payment_setup" ("id") on delete set null;`);
    this.addSql(`alter table "payment_source" add constraint "payment_source_setup_id_unique" unique ("setup_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payment_source" drop constraint "payment_source_setup_id_unique";`);
    this.addSql(`alter table "payment_source" drop constraint "payment_source_setup_id_foreign";`);
    this.addSql(`alter table "payment_source" drop column "setup_id";`);
    this.addSql(`drop table if exists "payment_setup" cascade;`);
  }

}
