import { Migration } from '@mikro-orm/migrations';

export class Migration20261122103242_geography extends Migration {

  override name = 'Migration20261122103242_geography';

  override up(): void | Promise<void> {
    this.addSql(`create table "poi_category" ("id" serial primary key, "tenant_id" varchar(32) not null, "type" text not null, "name" varchar(200) not null, "description" varchar(2000) null, "display_on_rental" boolean not null default false, "enabled" boolean not null default true, "map_zoom_level" int null, "size_factor" double precision null, "use_custom_icon" boolean not null default false, "images" jsonb not null, "default_translation_keys" jsonb not null);`);

    this.addSql(`create table "station" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "name" varchar(200) not null, "type" text not null, "capacity" int null, "latitude" double precision not null, "longitude" double precision not null, "radius" int null, "area" jsonb null, "visibility" varchar(16) not null default 'public', "state" text not null default 'ACTIVE', "valid_until" timestamptz null, "reward" jsonb null);`);
    this.addSql(`create index "station_tenant_id_branch_id_index" on "station" ("tenant_id", "branch_id");`);

    this.addSql(`create table "poi" ("id" serial primary key, "tenant_id" varchar(32) not null, "category_id" int not null, "branch_id" int not null, "name" varchar(200) not null, "description" varchar(2000) null, "latitude" double precision not null, "longitude" double precision not null, "address" varchar(300) not null, "city" varchar(100) null, "url" varchar(500) null, "phone_number" varchar(32) null, "display_on_rental" boolean not null default false, "enabled" boolean not null default true, "map_zoom_level" int null, "size_factor" double precision null, "use_custom_icon" boolean not null default false, "opening_information" varchar(1000) null, "images" jsonb not null, "translation_keys" jsonb not null);`);
    this.addSql(`create index "poi_tenant_id_branch_id_index" on "poi" ("tenant_id", "branch_id");`);

    this.addSql(`create table "physical_station" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "name" varchar(200) not null, "state" text not null default 'IN_PREPARATION', "latitude" double precision not null, "longitude" double precision not null, "address" varchar(300) null, "description" jsonb not null, "images" jsonb not null, "app_icons" jsonb null);`);
    this.addSql(`create index "physical_station_tenant_id_branch_id_index" on "physical_station" ("tenant_id", "branch_id");`);

    this.addSql(`create table "parking_area" ("id" serial primary key, "tenant_id" varchar(32) not null, "physical_station_id" int not null, "capacity" int not null, "geometry" jsonb not null, "reserved_count" int not null default 0);`);
    this.addSql(`alter table "parking_area" add constraint "parking_area_physical_station_id_unique" unique ("physical_station_id");`);

    this.addSql(`create table "compatible_branch" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "compatible_id" int not null, "is_incoming" boolean not null default false, "is_outgoing" boolean not null default false);`);
    this.addSql(`alter table "compatible_branch" add constraint "compatible_branch_branch_id_compatible_id_unique" unique ("branch_id", "compatible_id");`);

    this.addSql(`create table "area_type" ("id" uuid not null, "tenant_id" varchar(32) not null, "name" varchar(200) not null, "description" varchar(2000) null, "style" jsonb not null, "policy_types" jsonb not null, "read_only" boolean not null default false, "tags" jsonb not null, "labels" jsonb not null, primary key ("id"));`);

    this.addSql(`create table "area" ("id" uuid not null, "tenant_id" varchar(32) not null, "name" varchar(200) not null, "branch_id" int not null, "area_type_id" uuid not null, "status" text not null default 'ACTIVE', "vehicle_type_ids" jsonb not null, "geofence" jsonb not null, "policies" jsonb not null, "tags" jsonb not null, "labels" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "area_tenant_id_branch_id_index" on "area" ("tenant_id", "branch_id");`);

    this.addSql(`create table "physical_station_slot" ("id" serial primary key, "tenant_id" varchar(32) not null, "physical_station_id" int not null, "number" int not null, "state" text not null default 'VACANT', "vehicle_id" int null, "connected_at" timestamptz null);`);
    this.addSql(`alter table "physical_station_slot" add constraint "physical_station_slot_vehicle_id_unique" unique ("vehicle_id");`);
    this.addSql(`alter table "physical_station_slot" add constraint "physical_station_slot_physical_station_id_number_unique" unique ("physical_station_id", "number");`);

    this.addSql(`alter table "business_unit" add "contact_info" jsonb null, add "ui_settings" jsonb null, add "terms_and_conditions_id" int null, add "merchant_account_override" varchar(200) null, add "reserve_amount_on_cc" numeric(12,2) null, add "sepa_handling_fee_net" numeric(12,2) null, add "signup_voucherable_id" int null, add "referrer_voucherable_id" int null, add "referee_voucherable_id" int null, add "app_properties" jsonb null, add "dashboard_properties" jsonb null;`);

    this.addSql(`alter table "branch" add "type" varchar(64) null, add "is_billable" boolean not null default false, add "terms_and_conditions_id" int null, add "currency" varchar(3) null, add "tax_percentage" numeric(5,2) null, add "contact_info" jsonb null, add "business_area" jsonb null, add "map_overlay_prohibited" jsonb null, add "map_overlay_warning" jsonb null;`);


    this.addSql(`alter table "poi_category" add constraint "poi_category_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "poi_category" add constraint "poi_category_type_check" check ("type" in ('PARKING', 'DOCKING_STATION', 'CHARGING_STATION', 'FUEL_STATION', 'TOURISTIC_SPOT', 'BUSINESS'));`);

    this.addSql(`alter table "station" add constraint "station_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "station" add constraint "station_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "station" add constraint "station_type_check" check ("type" in ('VIRTUAL', 'DOCKING', 'RECOMMENDED', 'PROMOTION'));`);
    this.addSql(`alter table "station" add constraint "station_state_check" check ("state" in ('ACTIVE', 'INACTIVE'));`);

    this.addSql(`alter table "poi" add constraint "poi_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "poi" add constraint "poi_category_id_foreign" foreign key ("category_id") references "poi_category" ("id");`);
    this.addSql(`alter table "poi" add constraint "poi_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);

    this.addSql(`alter table "physical_station" add constraint "physical_station_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "physical_station" add constraint "physical_station_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "physical_station" add constraint "physical_station_state_check" check ("state" in ('OPERATIONAL', 'TEMPORARY_CLOSED', 'PERMANENTLY_CLOSED', 'IN_PREPARATION'));`);

    this.addSql(`alter table "parking_area" add constraint "parking_area_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "parking_area" add constraint "parking_area_physical_station_id_foreign" foreign key ("physical_station_id") references "physical_station" ("id") on delete cascade;`);

    this.addSql(`alter table "compatible_branch" add constraint "compatible_branch_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "compatible_branch" add constraint "compatible_branch_branch_id_foreign" foreign key ("branch_id") references "branch" ("id") on delete cascade;`);
    this.addSql(`alter table "compatible_branch" add constraint "compatible_branch_compatible_id_foreign" foreign key ("compatible_id") references "branch" ("id") on delete cascade;`);

    this.addSql(`alter table "area_type" add constraint "area_type_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "area" add constraint "area_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "area" add constraint "area_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "area" add constraint "area_area_type_id_foreign" foreign key ("area_type_id") references "area_type" ("id");`);
    this.addSql(`alter table "area" add constraint "area_status_check" check ("status" in ('ACTIVE', 'INACTIVE'));`);

    this.addSql(`alter table "physical_station_slot" add constraint "physical_station_slot_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "physical_station_slot" add constraint "physical_station_slot_physical_station_id_foreign" foreign key ("physical_station_id") references "physical_station" ("id") on delete cascade;`);
    this.addSql(`alter table "physical_station_slot" add constraint "physical_station_slot_vehicle_id_foreign" foreign key ("vehicle_id") references "vehicle" ("id") on delete set null;`);
    this.addSql(`alter table "physical_station_slot" add constraint "physical_station_slot_state_check" check ("state" in ('OCCUPIED', 'VACANT', 'OUT_OF_ORDER'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "poi" drop constraint "poi_category_id_foreign";`);
    this.addSql(`alter table "parking_area" drop constraint "parking_area_physical_station_id_foreign";`);
    this.addSql(`alter table "physical_station_slot" drop constraint "physical_station_slot_physical_station_id_foreign";`);
    this.addSql(`alter table "area" drop constraint "area_area_type_id_foreign";`);

    this.addSql(`drop table if exists "poi_category" cascade;`);
    this.addSql(`drop table if exists "station" cascade;`);
    this.addSql(`drop table if exists "poi" cascade;`);
    this.addSql(`drop table if exists "physical_station" cascade;`);
    this.addSql(`drop table if exists "parking_area" cascade;`);
    this.addSql(`drop table if exists "compatible_branch" cascade;`);
    this.addSql(`drop table if exists "area_type" cascade;`);
    this.addSql(`drop table if exists "area" cascade;`);
    this.addSql(`drop table if exists "physical_station_slot" cascade;`);

    this.addSql(`alter table "branch" drop column "type", drop column "is_billable", drop column "terms_and_conditions_id", drop column "currency", drop column "tax_percentage", drop column "contact_info", drop column "business_area", drop column "map_overlay_prohibited", drop column "map_overlay_warning";`);

    this.addSql(`alter table "business_unit" drop column "contact_info", drop column "ui_settings", drop column "terms_and_conditions_id", drop column "merchant_account_override", drop column "reserve_amount_on_cc", drop column "sepa_handling_fee_net", drop column "signup_voucherable_id", drop column "referrer_voucherable_id", drop column "referee_voucherable_id", drop column "app_properties", drop column "dashboard_properties";`);

  }

}
