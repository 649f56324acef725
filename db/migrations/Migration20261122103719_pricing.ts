import { Migration } from '@mikro-orm/migrations';

export class Migration20261122103719_pricing extends Migration {

  override name = 'Migration20261122103719_pricing';

  override up(): void | Promise<void> {
    this.addSql(`create table "pricing_bundle" ("id" serial primary key, "tenant_id" varchar(32) not null, "business_unit_id" int not null, "name" varchar(200) not null, "description" varchar(1000) null, "type" text not null, "currency" varchar(3) not null, "distance_unit" text not null default 'KILOMETER', "created_at" timestamptz not null, "updated_at" timestamptz not null, "archived_at" timestamptz null);`);
    this.addSql(`create index "pricing_bundle_tenant_id_business_unit_id_index" on "pricing_bundle" ("tenant_id", "business_unit_id");`);

    this.addSql(`create table "pricing_bundle_version" ("id" serial primary key, "tenant_id" varchar(32) not null, "bundle_id" int not null, "version" int not null, "status" text not null default 'DRAFT', "notes" varchar(1000) null, "rules" jsonb not null, "based_on_version" int null, "effective_from" timestamptz null, "valid_until" timestamptz null, "published_at" timestamptz null, "published_by" varchar(200) null, "ended_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "pricing_bundle_version_tenant_id_bundle_id_status_index" on "pricing_bundle_version" ("tenant_id", "bundle_id", "status");`);
    this.addSql(`alter table "pricing_bundle_version" add constraint "pricing_bundle_version_tenant_id_bundle_id_version_unique" unique ("tenant_id", "bundle_id", "version");`);

    this.addSql(`create table "pricing_assignment" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "vehicle_category_id" int not null, "bundle_id" int not null, "bundle_type" text not null, "created_at" timestamptz not null, "created_by" varchar(200) null);`);
    this.addSql(`alter table "pricing_assignment" add constraint "pricing_assignment_tenant_id_branch_id_vehicle_ca_494c4_unique" unique ("tenant_id", "branch_id", "vehicle_category_id", "bundle_type");`);

    // Live bundle names are unique per tenant; archived bundles keep theirs without blocking reuse.
    this.addSql(`create unique index "pricing_bundle_live_name" on "pricing_bundle" ("tenant_id", "name") where archived_at is null;`);
    this.addSql(`create index "pricing_assignment_tenant_id_bundle_id_index" on "pricing_assignment" ("tenant_id", "bundle_id");`);

    this.addSql(`alter table "pricing_bundle" add constraint "pricing_bundle_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "pricing_bundle" add constraint "pricing_bundle_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "pricing_bundle" add constraint "pricing_bundle_type_check" check ("type" in ('BOOKING', 'ON_DEMAND_LEGACY'));`);
    this.addSql(`alter table "pricing_bundle" add constraint "pricing_bundle_distance_unit_check" check ("distance_unit" in ('KILOMETER', 'MILE'));`);

    this.addSql(`alter table "pricing_bundle_version" add constraint "pricing_bundle_version_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "pricing_bundle_version" add constraint "pricing_bundle_version_bundle_id_foreign" foreign key ("bundle_id") references "pricing_bundle" ("id");`);
    this.addSql(`alter table "pricing_bundle_version" add constraint "pricing_bundle_version_status_check" check ("status" in ('DRAFT', 'PUBLISHED', 'SUPERSEDED', 'ARCHIVED', 'EXPIRED'));`);

    this.addSql(`alter table "pricing_assignment" add constraint "pricing_assignment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "pricing_assignment" add constraint "pricing_assignment_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "pricing_assignment" add constraint "pricing_assignment_vehicle_category_id_foreign" foreign key ("vehicle_category_id") references "vehicle_category" ("id");`);
    this.addSql(`alter table "pricing_assignment" add constraint "pricing_assignment_bundle_id_foreign" foreign key ("bundle_id") references "pricing_bundle" ("id");`);
    this.addSql(`alter table "pricing_assignment" add constraint "pricing_assignment_bundle_type_check" check ("bundle_type" in ('BOOKING', 'ON_DEMAND_LEGACY'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "pricing_bundle_version" drop constraint "pricing_bundle_version_bundle_id_foreign";`);
    this.addSql(`alter table "pricing_assignment" drop constraint "pricing_assignment_bundle_id_foreign";`);

    this.addSql(`drop table if exists "pricing_bundle" cascade;`);
    this.addSql(`drop table if exists "pricing_bundle_version" cascade;`);
    this.addSql(`drop table if exists "pricing_assignment" cascade;`);
  }

}
