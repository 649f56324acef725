import { Migration } from '@mikro-orm/migrations';

export class Migration20261122134223_rental_authority extends Migration {

  override name = 'Migration20261122134223_rental_authority';

  override up(): void | Promise<void> {
    this.addSql(`create table "rental_authority" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "branch_id" int not null, "granted_by" varchar(200) not null, "granted_at" timestamptz not null);`);
    this.addSql(`create index "rental_authority_tenant_id_branch_id_index" on "rental_authority" ("tenant_id", "branch_id");`);
    this.addSql(`alter table "rental_authority" add constraint "rental_authority_tenant_id_customer_id_branch_id_unique" unique ("tenant_id", "customer_id", "branch_id");`);

    this.addSql(`alter table "customer" add "driving_license_categories" jsonb null;`);

    this.addSql(`alter table "user_group" add "skip_pre_auth" boolean not null default false;`);

    this.addSql(`alter table "rental_authority" add constraint "rental_authority_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "rental_authority" add constraint "rental_authority_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);
    this.addSql(`alter table "rental_authority" add constraint "rental_authority_branch_id_foreign" foreign key ("branch_id") references "branch" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rental_authority" cascade;`);

    this.addSql(`alter table "customer" drop column "driving_license_categories";`);

    this.addSql(`alter table "user_group" drop column "skip_pre_auth";`);
  }

}
