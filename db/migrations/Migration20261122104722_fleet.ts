import { Migration } from '@mikro-orm/migrations';

export class Migration20261122104722_fleet extends Migration {

  override name = 'Migration20261122104722_fleet';

  override up(): void | Promise<void> {
    this.addSql(`create table "task" ("id" serial primary key, "tenant_id" varchar(32) not null, "title" varchar(200) not null, "description" varchar(4000) null, "priority" text not null default 'NORMAL', "task_state" text not null default 'NEW', "branch_id" int not null, "assigned_to" varchar(200) null, "tags" jsonb not null, "vehicle_id" int null, "created_by" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "task_tenant_id_branch_id_task_state_index" on "task" ("tenant_id", "branch_id", "task_state");`);
    this.addSql(`create index "task_tenant_id_vehicle_id_task_state_index" on "task" ("tenant_id", "vehicle_id", "task_state");`);

    this.addSql(`create table "iot_module" ("id" serial primary key, "tenant_id" varchar(32) not null, "external_id" varchar(100) not null, "name" varchar(200) not null, "iccid" varchar(32) null, "state" text not null default 'NEW', "vehicle_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "iot_module" add constraint "iot_module_tenant_id_vehicle_id_unique" unique ("tenant_id", "vehicle_id");`);
    this.addSql(`alter table "iot_module" add constraint "iot_module_tenant_id_iccid_unique" unique ("tenant_id", "iccid");`);
    this.addSql(`alter table "iot_module" add constraint "iot_module_tenant_id_name_unique" unique ("tenant_id", "name");`);
    this.addSql(`alter table "iot_module" add constraint "iot_module_tenant_id_external_id_unique" unique ("tenant_id", "external_id");`);

    this.addSql(`create table "vehicle_action" ("id" serial primary key, "tenant_id" varchar(32) not null, "kind" text not null, "name" varchar(200) not null, "description" varchar(1000) null, "steps" jsonb not null, "role_names" jsonb not null);`);
    this.addSql(`alter table "vehicle_action" add constraint "vehicle_action_tenant_id_name_unique" unique ("tenant_id", "name");`);

    this.addSql(`create table "vehicle_note" ("id" serial primary key, "tenant_id" varchar(32) not null, "vehicle_id" int not null, "text" varchar(4000) not null, "created_by" varchar(200) null, "created_at" timestamptz not null);`);
    this.addSql(`create index "vehicle_note_tenant_id_vehicle_id_index" on "vehicle_note" ("tenant_id", "vehicle_id");`);

    this.addSql(`create table "vehicle_telemetry" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "vehicle_id" int not null, "reported_at" timestamptz not null, "received_at" timestamptz not null, "latitude" double precision not null, "longitude" double precision not null, "speed_kmh" double precision null, "max_speed_kmh" double precision null, "hdop" double precision null, "state_of_charge" double precision null, "batteries" jsonb null, "battery_max_capacity_wh" double precision null, "power_state" varchar(16) not null, "locked" boolean not null, "charging" boolean null, "odometer_km" double precision null, "iot_module_level" double precision null);`);
    this.addSql(`create index "vehicle_telemetry_tenant_id_vehicle_id_reported_at_index" on "vehicle_telemetry" ("tenant_id", "vehicle_id", "reported_at");`);

    this.addSql(`alter table "vehicle_category" add "app_properties" jsonb not null default '{}', add "dashboard_properties" jsonb not null default '{}';`);

    this.addSql(`alter table "vehicle" add "iot_state_of_charge" double precision null, add "iot_module_level" double precision null, add "speed_kmh" double precision null, add "hdop" double precision null, add "max_speed_kmh" double precision null, add "last_report_at" timestamptz null, add "rotating_uuid" uuid null, add "virtual" boolean not null default false;`);
    this.addSql(`alter table "vehicle" add constraint "vehicle_rotating_uuid_unique" unique ("rotating_uuid");`);

    this.addSql(`alter table "vehicle_command" add "params" jsonb null, add "expires_at" timestamptz null;`);
    // Queued commands are looked up per vehicle when it reconnects.
    this.addSql(`create index "vehicle_command_queued_index" on "vehicle_command" ("tenant_id", "vehicle_id") where status = 'QUEUED';`);

    this.addSql(`alter table "task" add constraint "task_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "task" add constraint "task_priority_check" check ("priority" in ('LOW', 'NORMAL', 'HIGH', 'SEVERE'));`);
    this.addSql(`alter table "task" add constraint "task_task_state_check" check ("task_state" in ('NEW', 'IN_PROGRESS', 'RECURRING', 'COMPLETED'));`);

    this.addSql(`alter table "iot_module" add constraint "iot_module_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "iot_module" add constraint "iot_module_state_check" check ("state" in ('NEW', 'NOT_READY', 'ASSIGNED', 'UNASSIGNED', 'RETIRED'));`);

    this.addSql(`alter table "vehicle_action" add constraint "vehicle_action_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "vehicle_action" add constraint "vehicle_action_kind_check" check ("kind" in ('ACTION', 'ACTIVITY', 'COMPOSITE_ACTIVITY'));`);

    this.addSql(`alter table "vehicle_note" add constraint "vehicle_note_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "vehicle_telemetry" add constraint "vehicle_telemetry_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "task" cascade;`);
    this.addSql(`drop table if exists "iot_module" cascade;`);
    this.addSql(`drop table if exists "vehicle_action" cascade;`);
    this.addSql(`drop table if exists "vehicle_note" cascade;`);
    this.addSql(`drop table if exists "vehicle_telemetry" cascade;`);

    this.addSql(`alter table "vehicle" drop constraint "vehicle_rotating_uuid_unique";`);
    this.addSql(`alter table "vehicle" drop column "iot_state_of_charge", drop column "iot_module_level", drop column "speed_kmh", drop column "hdop", drop column "max_speed_kmh", drop column "last_report_at", drop column "rotating_uuid", drop column "virtual";`);

    this.addSql(`alter table "vehicle_category" drop column "app_properties", drop column "dashboard_properties";`);

    this.addSql(`alter table "vehicle_command" drop column "params", drop column "expires_at";`);
  }

}
