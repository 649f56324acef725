import { Migration } from '@mikro-orm/migrations';

/**
 * Partitions `event` by month of `created_at` (hand-written: MikroORM's schema diff cannot express
 * partitioning; the entity declares no `partitionBy`, so the diff leaves the partitions alone). The old
 * table is parked in a scratch schema (its indexes, constraints and sequence move with it, freeing their
 * names), the partitioned table is created with a default partition and one partition per month from
 * the oldest stored event (at most 24 months back) to three months ahead, every row is copied, and the
 * indexes are built once over the copied rows. The primary key becomes (id, created_at). The
 * idempotency keys move to `event_key` (a partitioned table's unique constraints must include the
 * partition key), and the webhook outbox references events by (event_id, event_created_at); neither
 * carries a foreign key constraint, so partition maintenance never cascades into them. Roles holding
 * EVENT_READ get the four event family permissions the timelines now need.
 * docs/events.md, "Partitions".
 */
export class Migration20261125064648_events_partitioning extends Migration {

  override name = 'Migration20261125064648_events_partitioning';

  override up(): void | Promise<void> {
    this.addSql(`create schema if not exists "event_partitioning_swap";`);
    this.addSql(`alter table "webhook_outbox" drop constraint "webhook_outbox_event_id_foreign";`);
    this.addSql(`alter table "webhook_outbox" drop constraint "webhook_outbox_event_id_unique";`);
    this.addSql(`alter table "event" set schema "event_partitioning_swap";`);
    this.addSql(`create table "event" ("id" bigserial not null, "tenant_id" varchar(32) not null, "type" varchar(100) not null, "created_at" timestamptz not null, "branch_id" int null, "vehicle_id" int null, "rental_id" int null, "customer_id" int null, "admin_subject" varchar(200) null, "position" jsonb null, "description" varchar(1000) null, "payload" jsonb null, "idempotency_key" varchar(300) null, "booking_id" int null, "vehicle_position" jsonb null, constraint "event_pkey" primary key ("id", "created_at")) partition by range ("created_at");`);
    this.addSql(`create table "event_default" partition of "event" default;`);
    // Month partitions [first day 00:00 UTC, next month's): from the oldest stored event's month (not
    // more than 24 months back; older rows stay in the default partition) to three months ahead.
    this.addSql(`do $$
      declare
        this_month timestamp := date_trunc('month', now() at time zone 'UTC');
        oldest timestamp := (select date_trunc('month', min(created_at) at time zone 'UTC') from "event_partitioning_swap"."event");
        month timestamp := greatest(coalesce(oldest, this_month), this_month - interval '24 months');
      begin
        while month <= this_month + interval '3 months' loop
          execute format(
            'create table if not exists %I partition of "event" for values from (%L) to (%L)',
            'event_p' || to_char(month, 'YYYY_MM'),
            (month at time zone 'UTC'),
            ((month + interval '1 month') at time zone 'UTC'));
          month := month + interval '1 month';
        end loop;
      end $$;`);
    this.addSql(`insert into "event" ("id", "tenant_id", "type", "created_at", "branch_id", "vehicle_id", "rental_id", "customer_id", "admin_subject", "position", "description", "payload", "idempotency_key", "booking_id") select "id", "tenant_id", "type", "created_at", "branch_id", "vehicle_id", "rental_id", "customer_id", "admin_subject", "position", "description", "payload", "idempotency_key", "booking_id" from "event_partitioning_swap"."event";`);
    this.addSql(`select setval('"event_id_seq"', coalesce((select max("id") from "event_partitioning_swap"."event"), 0) + 1, false);`);
    this.addSql(`create index "event_tenant_id_created_at_index" on "event" ("tenant_id", "created_at");`);
    this.addSql(`create index "event_tenant_id_type_created_at_index" on "event" ("tenant_id", "type", "created_at");`);
    this.addSql(`create index "event_tenant_id_branch_id_created_at_index" on "event" ("tenant_id", "branch_id", "created_at");`);
    this.addSql(`create index "event_tenant_id_vehicle_id_created_at_index" on "event" ("tenant_id", "vehicle_id", "created_at");`);
    this.addSql(`create index "event_tenant_id_customer_id_created_at_index" on "event" ("tenant_id", "customer_id", "created_at");`);
    this.addSql(`create index "event_tenant_id_rental_id_index" on "event" ("tenant_id", "rental_id");`);
    this.addSql(`create index "event_tenant_id_booking_id_index" on "event" ("tenant_id", "booking_id");`);
    this.addSql(`alter table "event" add constraint "event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`create table "event_key" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "idempotency_key" varchar(300) not null, "event_id" bigint not null, "event_created_at" timestamptz not null);`);
    this.addSql(`insert into "event_key" ("tenant_id", "idempotency_key", "event_id", "event_created_at") select "tenant_id", "idempotency_key", "id", "created_at" from "event_partitioning_swap"."event" where "idempotency_key" is not null order by "id";`);
    this.addSql(`alter table "event_key" add constraint "event_key_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);
    this.addSql(`alter table "event_key" add constraint "event_key_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "webhook_outbox" add "event_created_at" timestamptz null;`);
    this.addSql(`update "webhook_outbox" o set "event_created_at" = e."created_at" from "event_partitioning_swap"."event" e where e."id" = o."event_id";`);
    this.addSql(`alter table "webhook_outbox" alter column "event_created_at" set not null;`);
    this.addSql(`alter table "webhook_outbox" add constraint "webhook_outbox_event_id_event_created_at_unique" unique ("event_id", "event_created_at");`);

    this.addSql(`drop schema "event_partitioning_swap" cascade;`);
    // Timelines now need the entity family's event permission: roles that read events keep reading them.
    this.addSql(`update "role" set "permissions" = "permissions" || coalesce((select jsonb_agg(p) from unnest(array['RENTAL_EVENT_READ', 'BOOKING_EVENT_READ', 'VEHICLE_EVENT_READ', 'USER_EVENT_READ']) as p where not ("role"."permissions" ? p)), '[]'::jsonb) where "permissions" ? 'EVENT_READ';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_outbox" drop constraint "webhook_outbox_event_id_event_created_at_unique";`);
    this.addSql(`alter table "webhook_outbox" drop column "event_created_at";`);
    this.addSql(`alter table "event" rename to "event_partitioned";`);
    this.addSql(`alter table "event_partitioned" drop constraint "event_pkey";`);
    this.addSql(`alter table "event_partitioned" drop constraint "event_tenant_id_foreign";`);
    this.addSql(`drop index "event_tenant_id_created_at_index", "event_tenant_id_type_created_at_index", "event_tenant_id_branch_id_created_at_index", "event_tenant_id_vehicle_id_created_at_index", "event_tenant_id_customer_id_created_at_index", "event_tenant_id_rental_id_index", "event_tenant_id_booking_id_index";`);
    this.addSql(`alter sequence "event_id_seq" rename to "event_partitioned_id_seq";`);
    this.addSql(`create table "event" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "type" varchar(100) not null, "created_at" timestamptz not null, "branch_id" int null, "vehicle_id" int null, "rental_id" int null, "customer_id" int null, "admin_subject" varchar(200) null, "position" jsonb null, "description" varchar(1000) null, "payload" jsonb null, "idempotency_key" varchar(300) null, "booking_id" int null);`);
    this.addSql(`insert into "event" ("id", "tenant_id", "type", "created_at", "branch_id", "vehicle_id", "rental_id", "customer_id", "admin_subject", "position", "description", "payload", "idempotency_key", "booking_id") select "id", "tenant_id", "type", "created_at", "branch_id", "vehicle_id", "rental_id", "customer_id", "admin_subject", "position", "description", "payload", "idempotency_key", "booking_id" from "event_partitioned";`);
    this.addSql(`select setval('"event_id_seq"', coalesce((select max("id") from "event"), 0) + 1, false);`);
    this.addSql(`drop table "event_key" cascade;`);
    this.addSql(`drop table "event_partitioned" cascade;`);
    this.addSql(`create index "event_tenant_id_rental_id_index" on "event" ("tenant_id", "rental_id");`);
    this.addSql(`create index "event_tenant_id_vehicle_id_index" on "event" ("tenant_id", "vehicle_id");`);
    this.addSql(`create index "event_tenant_id_booking_id_index" on "event" ("tenant_id", "booking_id");`);
    this.addSql(`create index "event_tenant_id_type_created_at_index" on "event" ("tenant_id", "type", "created_at");`);
    this.addSql(`alter table "event" add constraint "event_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);
    this.addSql(`alter table "event" add constraint "event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "webhook_outbox" add constraint "webhook_outbox_event_id_unique" unique ("event_id");`);
    this.addSql(`alter table "webhook_outbox" add constraint "webhook_outbox_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);
  }

}
