import { Migration } from '@mikro-orm/migrations';

export class Migration20261201193000_feeds extends Migration {

  override name = 'Migration20261201193000_feeds';

  override up(): void | Promise<void> {
    this.addSql(`create table "feed_system" ("id" serial primary key, "tenant_id" varchar(32) not null, "system_id" varchar(64) not null, "name" varchar(200) not null, "short_name" varchar(100) null, "root_branch_id" int not null, "published" boolean not null default false, "published_at" timestamptz null, "language" varchar(35) not null, "timezone" varchar(64) not null, "opening_hours" varchar(500) not null default '24/7', "operator_name" varchar(200) null, "url" varchar(500) null, "purchase_url" varchar(500) null, "phone_number" varchar(40) null, "email" varchar(254) null, "feed_contact_email" varchar(254) not null, "start_date" varchar(10) null, "license_url" varchar(500) null, "attribution_organization_name" varchar(200) null, "attribution_url" varchar(500) null, "privacy_url" varchar(500) null, "terms_url" varchar(500) null, "rental_apps" jsonb null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "feed_system" add constraint "feed_system_tenant_id_system_id_unique" unique ("tenant_id", "system_id");`);

    this.addSql(`alter table "feed_system" add constraint "feed_system_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "feed_system" add constraint "feed_system_root_branch_id_foreign" foreign key ("root_branch_id") references "branch" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "feed_system" cascade;`);
  }

}
