import { Migration } from '@mikro-orm/migrations';

export class Migration20261121050909_initial extends Migration {

  override name = 'Migration20261121050909_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "tenant" ("id" varchar(32) not null, "name" varchar(200) not null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "setting" ("id" serial primary key, "tenant_id" varchar(32) not null, "key" varchar(200) not null, "name" varchar(200) not null, "area" varchar(16) not null, "value_type" varchar(100) not null, "branch_ids" jsonb not null, "value" jsonb not null, "public_visible" boolean not null default false);`);
    this.addSql(`create index "setting_tenant_id_key_index" on "setting" ("tenant_id", "key");`);

    this.addSql(`create table "role" ("id" serial primary key, "tenant_id" varchar(32) not null, "name" varchar(100) not null, "permissions" jsonb not null);`);
    this.addSql(`alter table "role" add constraint "role_tenant_id_name_unique" unique ("tenant_id", "name");`);

    this.addSql(`create table "event" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "type" varchar(100) not null, "created_at" timestamptz not null, "branch_id" int null, "vehicle_id" int null, "rental_id" int null, "customer_id" int null, "admin_subject" varchar(200) null, "position" jsonb null, "description" varchar(1000) null, "payload" jsonb null, "idempotency_key" varchar(300) null);`);
    this.addSql(`create index "event_tenant_id_type_created_at_index" on "event" ("tenant_id", "type", "created_at");`);
    this.addSql(`create index "event_tenant_id_vehicle_id_index" on "event" ("tenant_id", "vehicle_id");`);
    this.addSql(`create index "event_tenant_id_rental_id_index" on "event" ("tenant_id", "rental_id");`);
    this.addSql(`alter table "event" add constraint "event_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);

    this.addSql(`create table "business_unit" ("id" serial primary key, "tenant_id" varchar(32) not null, "code" varchar(64) not null, "name" varchar(200) not null, "time_zone_id" varchar(64) not null, "currency" varchar(3) not null, "tax_percentage" numeric(5,2) not null, "scale" int not null default 2);`);
    this.addSql(`alter table "business_unit" add constraint "business_unit_tenant_id_code_unique" unique ("tenant_id", "code");`);

    this.addSql(`create table "customer" ("id" serial primary key, "tenant_id" varchar(32) not null, "email" varchar(320) not null, "first_name" varchar(100) not null, "last_name" varchar(100) not null, "phone_number" varchar(32) null, "is_blocked" boolean not null default false, "home_business_unit_id" int null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "customer" add constraint "customer_tenant_id_email_unique" unique ("tenant_id", "email");`);

    this.addSql(`create table "branch" ("id" serial primary key, "tenant_id" varchar(32) not null, "name" varchar(200) not null, "code" varchar(64) not null, "state" text not null default 'OPERATIONAL', "parent_id" int null, "business_unit_id" int not null, "operation_mode" varchar(32) not null default 'ON_DEMAND', "visibility" varchar(16) not null default 'public', "time_zone_id" varchar(64) not null);`);
    this.addSql(`alter table "branch" add constraint "branch_tenant_id_code_unique" unique ("tenant_id", "code");`);

    this.addSql(`create table "role_assignment" ("id" serial primary key, "tenant_id" varchar(32) not null, "role_id" int not null, "subject_type" varchar(16) not null, "subject_id" varchar(200) not null, "branch_id" int null, "business_unit_id" int null);`);
    this.addSql(`create index "role_assignment_tenant_id_subject_type_subject_id_index" on "role_assignment" ("tenant_id", "subject_type", "subject_id");`);

    this.addSql(`create table "api_client" ("id" serial primary key, "tenant_id" varchar(32) not null, "client_id" varchar(100) not null, "name" varchar(200) not null, "secret_hash" varchar(300) not null, "scopes" jsonb not null, "active" boolean not null default true, "created_at" timestamptz not null);`);
    this.addSql(`alter table "api_client" add constraint "api_client_tenant_id_client_id_unique" unique ("tenant_id", "client_id");`);

    this.addSql(`create table "vehicle_category" ("id" serial primary key, "tenant_id" varchar(32) not null, "name" varchar(200) not null, "parent_id" int null, "bookable" boolean not null default true, "configuration" jsonb not null);`);
    this.addSql(`alter table "vehicle_category" add constraint "vehicle_category_tenant_id_name_unique" unique ("tenant_id", "name");`);

    this.addSql(`create table "vehicle" ("id" serial primary key, "tenant_id" varchar(32) not null, "code" varchar(64) not null, "license_plate" varchar(32) null, "branch_id" int not null, "category_id" int not null, "rental_state" text not null default 'AVAILABLE', "service_state_v2" text not null default 'FUNCTIONAL', "state_of_charge" double precision null, "battery_level" text not null default 'UNKNOWN', "power_state" text not null default 'UNKNOWN', "offline" boolean not null default true, "locked" boolean not null default true, "charging" boolean not null default false, "latitude" double precision null, "longitude" double precision null, "odometer_km" double precision null, "last_seen_at" timestamptz null, "legal_inspection_date" date null, "tags" jsonb not null, "custom_properties" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "vehicle_tenant_id_branch_id_index" on "vehicle" ("tenant_id", "branch_id");`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_tenant_id_code_unique" unique ("tenant_id", "code");`);

    this.addSql(`create table "rental" ("id" int not null, "tenant_id" varchar(32) not null, "workflow_id" varchar(200) not null, "state" text not null, "active_mode" varchar(16) null, "branch_id" int not null, "vehicle_id" int not null, "customer_id" int not null, "created_by" varchar(200) null, "reserved_at" timestamptz not null, "reservation_expires_at" timestamptz null, "started_at" timestamptz null, "ended_at" timestamptz null, "start_position" jsonb null, "end_position" jsonb null, "start_odometer_km" double precision null, "end_odometer_km" double precision null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "rental" add constraint "rental_workflow_id_unique" unique ("workflow_id");`);
    this.addSql(`create index "rental_tenant_id_branch_id_state_index" on "rental" ("tenant_id", "branch_id", "state");`);

    this.addSql(`create table "vehicle_command" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "command_id" varchar(300) not null, "vehicle_id" int not null, "command" varchar(64) not null, "status" varchar(16) not null default 'SENT', "rental_id" int null, "requested_by" varchar(200) null, "failure_reason" jsonb null, "data" jsonb null, "sent_at" timestamptz not null, "answered_at" timestamptz null);`);
    this.addSql(`create index "vehicle_command_tenant_id_vehicle_id_index" on "vehicle_command" ("tenant_id", "vehicle_id");`);
    this.addSql(`alter table "vehicle_command" add constraint "vehicle_command_tenant_id_command_id_unique" unique ("tenant_id", "command_id");`);

    this.addSql(`alter table "setting" add constraint "setting_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "role" add constraint "role_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "event" add constraint "event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "business_unit" add constraint "business_unit_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "customer" add constraint "customer_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "customer" add constraint "customer_home_business_unit_id_foreign" foreign key ("home_business_unit_id") references "business_unit" ("id") on delete set null;`);

    this.addSql(`alter table "branch" add constraint "branch_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "branch" add constraint "branch_parent_id_foreign" foreign key ("parent_id") references "branch" ("id") on delete set null;`);
    this.addSql(`alter table "branch" add constraint "branch_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "branch" add constraint "branch_state_check" check ("state" in ('IN_PREPARATION', 'OPERATIONAL', 'MAINTENANCE', 'HIBERNATION', 'OUT_OF_BUSINESS'));`);

    this.addSql(`alter table "role_assignment" add constraint "role_assignment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "role_assignment" add constraint "role_assignment_role_id_foreign" foreign key ("role_id") references "role" ("id");`);
    this.addSql(`alter table "role_assignment" add constraint "role_assignment_branch_id_foreign" foreign key ("branch_id") references "branch" ("id") on delete set null;`);
    this.addSql(`alter table "role_assignment" add constraint "role_assignment_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id") on delete set null;`);
    this.addSql(`alter table "role_assignment" add constraint "role_assignment_one_scope" check ((branch_id is null) <> (business_unit_id is null));`);

    this.addSql(`alter table "api_client" add constraint "api_client_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "vehicle_category" add constraint "vehicle_category_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "vehicle_category" add constraint "vehicle_category_parent_id_foreign" foreign key ("parent_id") references "vehicle_category" ("id") on delete set null;`);

    this.addSql(`alter table "vehicle" add constraint "vehicle_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_category_id_foreign" foreign key ("category_id") references "vehicle_category" ("id");`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_rental_state_check" check ("rental_state" in ('AVAILABLE', 'RESERVATION', 'DRIVING', 'PARKING', 'DELIVERED'));`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_service_state_v2_check" check ("service_state_v2" in ('FUNCTIONAL', 'INSPECT', 'RELOCATE', 'COLLECT', 'COLLECT_EXTERNAL', 'SERVICE_ON_SITE', 'SERVICE_WORKSHOP', 'SERVICE_WORKSHOP_INSURANCE', 'SERVICE_WORKSHOP_QUEUE', 'SERVICE_EXTERNAL', 'SERVICE_MECHANICS', 'REPLACE', 'IMPOUNDED', 'LOST', 'RETIRED', 'MAINTENANCE', 'OTHER', 'WAITING_FOR_PARTS', 'UNREPAIRABLE', 'DEFLEETED', 'OPERATIONAL_HOLD', 'AWAITING_ACTION', 'REGULATORY_INSPECTION', 'REGULATORY_INSPECTION_READY', 'READY_FOR_DEPLOYMENT', 'READY_FOR_DEPLOYMENT_NEW'));`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_battery_level_check" check ("battery_level" in ('HIGH', 'MEDIUM', 'LOW', 'CRITICAL', 'UNKNOWN'));`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_power_state_check" check ("power_state" in ('ON', 'OFF', 'UNKNOWN'));`);

    this.addSql(`alter table "rental" add constraint "rental_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "rental" add constraint "rental_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "rental" add constraint "rental_vehicle_id_foreign" foreign key ("vehicle_id") references "vehicle" ("id");`);
    this.addSql(`alter table "rental" add constraint "rental_customer_id_foreign" foreign key ("customer_id") references "customer" ("id");`);
    this.addSql(`alter table "rental" add constraint "rental_state_check" check ("state" in ('RESERVATION', 'ACTIVE', 'EXPIRED', 'CANCELLED', 'ENDED', 'ENDED_NO_MOVEMENT'));`);

    this.addSql(`alter table "vehicle_command" add constraint "vehicle_command_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    // Rental ids are allocated before the rental workflow starts (its id embeds the rental id).
    this.addSql(`create sequence "rental_id_seq" as int start with 1000;`);
    // At most one open rental per vehicle and per customer, whatever races the API or workflows run into.
    this.addSql(`create unique index "rental_one_open_per_vehicle" on "rental" ("tenant_id", "vehicle_id") where "state" in ('RESERVATION', 'ACTIVE');`);
    this.addSql(`create unique index "rental_one_open_per_customer" on "rental" ("tenant_id", "customer_id") where "state" in ('RESERVATION', 'ACTIVE');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "setting" drop constraint "setting_tenant_id_foreign";`);
    this.addSql(`alter table "role" drop constraint "role_tenant_id_foreign";`);
    this.addSql(`alter table "event" drop constraint "event_tenant_id_foreign";`);
    this.addSql(`alter table "business_unit" drop constraint "business_unit_tenant_id_foreign";`);
    this.addSql(`alter table "customer" drop constraint "customer_tenant_id_foreign";`);
    this.addSql(`alter table "branch" drop constraint "branch_tenant_id_foreign";`);
    this.addSql(`alter table "role_assignment" drop constraint "role_assignment_tenant_id_foreign";`);
    this.addSql(`alter table "api_client" drop constraint "api_client_tenant_id_foreign";`);
    this.addSql(`alter table "vehicle_category" drop constraint "vehicle_category_tenant_id_foreign";`);
    this.addSql(`alter table "vehicle" drop constraint "vehicle_tenant_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_tenant_id_foreign";`);
    this.addSql(`alter table "vehicle_command" drop constraint "vehicle_command_tenant_id_foreign";`);
    this.addSql(`alter table "role_assignment" drop constraint "role_assignment_role_id_foreign";`);
    this.addSql(`alter table "customer" drop constraint "customer_home_business_unit_id_foreign";`);
    this.addSql(`alter table "branch" drop constraint "branch_business_unit_id_foreign";`);
    this.addSql(`alter table "role_assignment" drop constraint "role_assignment_business_unit_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_customer_id_foreign";`);
    this.addSql(`alter table "branch" drop constraint "branch_parent_id_foreign";`);
    this.addSql(`alter table "role_assignment" drop constraint "role_assignment_branch_id_foreign";`);
    this.addSql(`alter table "vehicle" drop constraint "vehicle_branch_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_branch_id_foreign";`);
    this.addSql(`alter table "vehicle_category" drop constraint "vehicle_category_parent_id_foreign";`);
    this.addSql(`alter table "vehicle" drop constraint "vehicle_category_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_vehicle_id_foreign";`);

    this.addSql(`drop sequence if exists "rental_id_seq";`);
    this.addSql(`drop table if exists "tenant" cascade;`);
    this.addSql(`drop table if exists "setting" cascade;`);
    this.addSql(`drop table if exists "role" cascade;`);
    this.addSql(`drop table if exists "event" cascade;`);
    this.addSql(`drop table if exists "business_unit" cascade;`);
    this.addSql(`drop table if exists "customer" cascade;`);
    this.addSql(`drop table if exists "branch" cascade;`);
    this.addSql(`drop table if exists "role_assignment" cascade;`);
    this.addSql(`drop table if exists "api_client" cascade;`);
    this.addSql(`drop table if exists "vehicle_category" cascade;`);
    this.addSql(`drop table if exists "vehicle" cascade;`);
    this.addSql(`drop table if exists "rental" cascade;`);
    this.addSql(`drop table if exists "vehicle_command" cascade;`);
  }

}
