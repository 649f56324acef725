import { Migration } from '@mikro-orm/migrations';

export class Migration20261122164150_bookings extends Migration {

  override name = 'Migration20261122164150_bookings';

  override up(): void | Promise<void> {
    this.addSql(`create table "booking_station" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "capacity" int null, "opening_hours" jsonb null, "vehicle_category_ids" jsonb not null default '[]', "start_cooldown_minutes" int not null default 0, "end_cooldown_minutes" int not null default 0, "category_cooldowns" jsonb not null default '{}', "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "booking_station" add constraint "booking_station_branch_id_unique" unique ("branch_id");`);

    this.addSql(`create table "booking" ("id" int not null, "tenant_id" varchar(32) not null, "workflow_id" varchar(200) not null, "state" text not null, "type" text not null default 'STATION', "rental_type" text not null default 'PRIVATE', "approval_state" text null, "rejection_reason" varchar(1000) null, "customer_id" int not null, "branch_id" int not null, "end_branch_id" int not null, "vehicle_category_id" int not null, "vehicle_id" int null, "start_time" timestamptz not null, "end_time" timestamptz not null, "start_station_cooldown" int not null default 0, "end_station_cooldown" int not null default 0, "held_from" timestamptz not null, "held_until" timestamptz not null, "start_position" jsonb null, "start_position_radius" int null, "additions" jsonb not null default '[]', "pricing_bundle_version_id" int null, "price" jsonb null, "price_v3" jsonb null, "price_v4" jsonb null, "user_group_id" int null, "cost_center_id" int null, "reason" varchar(500) null, "notes" varchar(2000) null, "external_reference" varchar(200) null, "annotations" jsonb not null default '[]', "rating_description" varchar(2000) null, "checked_in_at" timestamptz null, "rental_id" int null, "picked_up_at" timestamptz null, "returned_at" timestamptz null, "overdue_since" timestamptz null, "canceled_at" timestamptz null, "cancellation_reason" varchar(1000) null, "cancellation_fee_waived" boolean not null default false, "invoice_id" int null, "created_by" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "booking" add constraint "booking_workflow_id_unique" unique ("workflow_id");`);
    this.addSql(`create index "booking_tenant_id_vehicle_category_id_held_from_index" on "booking" ("tenant_id", "vehicle_category_id", "held_from");`);
    this.addSql(`create index "booking_tenant_id_customer_id_index" on "booking" ("tenant_id", "customer_id");`);
    this.addSql(`create index "booking_tenant_id_end_branch_id_end_time_index" on "booking" ("tenant_id", "end_branch_id", "end_time");`);
    this.addSql(`create index "booking_tenant_id_branch_id_start_time_index" on "booking" ("tenant_id", "branch_id", "start_time");`);
    this.addSql(`alter table "booking" add constraint "booking_one_rental" unique ("rental_id");`);

    this.addSql(`alter table "invoice" add "booking_id" int null;`);
    this.addSql(`alter table "invoice" add constraint "invoice_booking_id_foreign" foreign key ("booking_id") references "booking" ("id") on delete set null;`);
    this.addSql(`create unique index "invoice_one_per_booking" on "invoice" ("tenant_id", "booking_id") where "refunded_invoice_id" is null;`);

    this.addSql(`alter table "booking_station" add constraint "booking_station_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "booking_station" add constraint "booking_station_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);

    this.addSql(`alter table "booking" add constraint "booking_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "booking" add constraint "booking_customer_id_foreign" foreign key ("customer_id") references "customer" ("id");`);
    this.addSql(`alter table "booking" add constraint "booking_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "booking" add constraint "booking_end_branch_id_foreign" foreign key ("end_branch_id") references "branch" ("id");`);
    this.addSql(`alter table "booking" add constraint "booking_vehicle_category_id_foreign" foreign key ("vehicle_category_id") references "vehicle_category" ("id");`);
    this.addSql(`alter table "booking" add constraint "booking_vehicle_id_foreign" foreign key ("vehicle_id") references "vehicle" ("id") on delete set null;`);
    this.addSql(`alter table "booking" add constraint "booking_pricing_bundle_version_id_foreign" foreign key ("pricing_bundle_version_id") references "pricing_bundle_version" ("id") on delete set null;`);
    this.addSql(`alter table "booking" add constraint "booking_user_group_id_foreign" foreign key ("user_group_id") references "user_group" ("id") on delete set null;`);
    this.addSql(`alter table "booking" add constraint "booking_cost_center_id_foreign" foreign key ("cost_center_id") references "cost_center" ("id") on delete set null;`);
    this.addSql(`alter table "booking" add constraint "booking_rental_id_foreign" foreign key ("rental_id") references "rental" ("id") on delete set null;`);
    this.addSql(`alter table "booking" add constraint "booking_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "booking" add constraint "booking_state_check" check ("state" in ('BOOKED', 'APPROVED', 'DELIVERED', 'SUCCESSFUL', 'CANCELED', 'ABORTED', 'EXPIRED', 'DECLINED'));`);
    this.addSql(`alter table "booking" add constraint "booking_type_check" check ("type" in ('STATION', 'FLOATING'));`);
    this.addSql(`alter table "booking" add constraint "booking_rental_type_check" check ("rental_type" in ('PRIVATE', 'BUSINESS'));`);
    this.addSql(`alter table "booking" add constraint "booking_approval_state_check" check ("approval_state" in ('PENDING', 'APPROVED', 'DECLINED'));`);

    // Booking ids are allocated before the booking workflow starts (its id names the booking).
    this.addSql(`create sequence "booking_id_seq" as int start with 5000;`);
    // Two holding bookings never hold one vehicle for overlapping intervals, whatever the concurrency.
    this.addSql(`create extension if not exists btree_gist;`);
    this.addSql(`alter table "booking" add constraint "booking_vehicle_hold_excl" exclude using gist ("tenant_id" with =, "vehicle_id" with =, tstzrange("held_from", "held_until") with &&) where ("vehicle_id" is not null and "state" in ('BOOKED', 'APPROVED', 'DELIVERED'));`);
    this.addSql(`alter table "booking" add constraint "booking_window_check" check ("end_time" > "start_time" and "held_until" > "held_from");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice" drop constraint "invoice_booking_id_foreign";`);

    this.addSql(`drop table if exists "booking_station" cascade;`);
    this.addSql(`drop table if exists "booking" cascade;`);
    this.addSql(`drop sequence if exists "booking_id_seq";`);

    this.addSql(`drop index "invoice_one_per_booking";`);
    this.addSql(`alter table "invoice" drop column "booking_id";`);
  }

}
