import { Migration } from '@mikro-orm/migrations';

export class Migration20261125031533_maintenance extends Migration {

  override name = 'Migration20261125031533_maintenance';

  override up(): void | Promise<void> {
    this.addSql(`create table "service_vehicle" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "name" varchar(200) not null, "licence_plate" varchar(20) not null, "plate_key" varchar(20) not null, "capacity" int not null, "state" text not null default 'ACTIVE', "latitude" double precision null, "longitude" double precision null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "service_vehicle_tenant_id_branch_id_index" on "service_vehicle" ("tenant_id", "branch_id");`);
    this.addSql(`alter table "service_vehicle" add constraint "service_vehicle_tenant_id_plate_key_unique" unique ("tenant_id", "plate_key");`);

    this.addSql(`create table "field_route_stop_item" ("id" serial primary key, "tenant_id" varchar(32) not null, "route_id" int not null, "stop_id" int not null, "sequence" int not null, "task_id" int null, "action" text null, "description" varchar(1000) null, "state" text not null default 'OPEN', "settled_at" timestamptz null, "settled_by" varchar(200) null);`);
    this.addSql(`create index "field_route_stop_item_tenant_id_task_id_index" on "field_route_stop_item" ("tenant_id", "task_id");`);
    this.addSql(`create index "field_route_stop_item_tenant_id_route_id_index" on "field_route_stop_item" ("tenant_id", "route_id");`);

    this.addSql(`create table "field_route_stop" ("id" serial primary key, "tenant_id" varchar(32) not null, "route_id" int not null, "sequence" int not null, "vehicle_id" int null, "station_id" int null, "latitude" double precision null, "longitude" double precision null, "note" varchar(1000) null, "state" text not null default 'PENDING', "arrived_at" timestamptz null, "settled_at" timestamptz null, "settled_by" varchar(200) null);`);
    this.addSql(`create index "field_route_stop_tenant_id_route_id_sequence_index" on "field_route_stop" ("tenant_id", "route_id", "sequence");`);

    this.addSql(`create table "field_route" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "name" varchar(200) not null, "assignee" varchar(200) null, "assignee_name" varchar(200) null, "service_vehicle_id" int null, "planned_for" date null, "state" text not null default 'PLANNED', "optimized" boolean not null default false, "start_latitude" double precision null, "start_longitude" double precision null, "created_by" varchar(200) null, "started_at" timestamptz null, "finished_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "field_route_tenant_id_service_vehicle_id_index" on "field_route" ("tenant_id", "service_vehicle_id");`);
    this.addSql(`create index "field_route_tenant_id_assignee_state_index" on "field_route" ("tenant_id", "assignee", "state");`);
    this.addSql(`create index "field_route_tenant_id_branch_id_state_index" on "field_route" ("tenant_id", "branch_id", "state");`);

    this.addSql(`alter table "service_vehicle" add constraint "service_vehicle_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "service_vehicle" add constraint "service_vehicle_state_check" check ("state" in ('ACTIVE', 'INACTIVE'));`);

    this.addSql(`alter table "field_route_stop_item" add constraint "field_route_stop_item_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "field_route_stop_item" add constraint "field_route_stop_item_action_check" check ("action" in ('BATTERY_SWAP', 'INSPECT', 'CLEAN', 'REPAIR', 'RELOCATE', 'COLLECT', 'DEPLOY', 'OTHER'));`);
    this.addSql(`alter table "field_route_stop_item" add constraint "field_route_stop_item_state_check" check ("state" in ('OPEN', 'COMPLETED', 'SKIPPED'));`);

    this.addSql(`alter table "field_route_stop" add constraint "field_route_stop_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "field_route_stop" add constraint "field_route_stop_state_check" check ("state" in ('PENDING', 'ARRIVED', 'COMPLETED', 'SKIPPED'));`);

    this.addSql(`alter table "field_route" add constraint "field_route_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "field_route" add constraint "field_route_state_check" check ("state" in ('PLANNED', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "service_vehicle" cascade;`);
    this.addSql(`drop table if exists "field_route_stop_item" cascade;`);
    this.addSql(`drop table if exists "field_route_stop" cascade;`);
    this.addSql(`drop table if exists "field_route" cascade;`);
  }

}
