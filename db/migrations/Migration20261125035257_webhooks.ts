import { Migration } from '@mikro-orm/migrations';

export class Migration20261125035257_webhooks extends Migration {

  override name = 'Migration20261125035257_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_outbox" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "event_id" bigint not null, "event_type" varchar(100) not null, "entity_key" varchar(60) not null, "branch_id" int null, "occurred_at" timestamptz not null, "fanned_out_at" timestamptz null);`);
    this.addSql(`create index "webhook_outbox_pending" on "webhook_outbox" ("tenant_id", "id") where "fanned_out_at" is null;`);
    this.addSql(`alter table "webhook_outbox" add constraint "webhook_outbox_event_id_unique" unique ("event_id");`);

    this.addSql(`create table "webhook_subscription" ("id" serial primary key, "tenant_id" varchar(32) not null, "url" varchar(2000) not null, "event_types" jsonb not null, "branch_id" int null, "active" boolean not null default true, "description" varchar(500) null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "webhook_subscription_tenant_id_active_index" on "webhook_subscription" ("tenant_id", "active");`);

    this.addSql(`create table "webhook_signing_secret" ("id" serial primary key, "tenant_id" varchar(32) not null, "subscription_id" int not null, "secret" varchar(200) not null, "previous_secret" varchar(200) null, "previous_until" timestamptz null, "created_at" timestamptz not null, "rotated_at" timestamptz null);`);
    this.addSql(`alter table "webhook_signing_secret" add constraint "webhook_signing_secret_subscription_id_unique" unique ("subscription_id");`);

    this.addSql(`create table "webhook_dispatch" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "outbox_id" bigint not null, "subscription_id" int not null, "webhook_id" varchar(100) not null, "entity_key" varchar(60) not null, "state" text not null default 'PENDING', "attempts" int not null default 0, "failures_since_redelivery" int not null default 0, "next_attempt_at" timestamptz not null, "created_at" timestamptz not null, "finished_at" timestamptz null);`);
    this.addSql(`create index "webhook_dispatch_pending" on "webhook_dispatch" ("subscription_id", "entity_key", "outbox_id") where "state" = 'PENDING';`);
    this.addSql(`alter table "webhook_dispatch" add constraint "webhook_dispatch_outbox_id_subscription_id_unique" unique ("outbox_id", "subscription_id");`);

    this.addSql(`create table "webhook_delivery" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "dispatch_id" bigint not null, "subscription_id" int not null, "attempt" int not null, "success" boolean not null, "http_status" int null, "error" varchar(1000) null, "response_excerpt" varchar(1000) null, "signed_at" bigint not null, "started_at" timestamptz not null, "duration_ms" int not null, "next_attempt_at" timestamptz null, "manual" boolean not null default false);`);
    this.addSql(`create index "webhook_delivery_tenant_id_subscription_id_id_index" on "webhook_delivery" ("tenant_id", "subscription_id", "id");`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_dispatch_id_attempt_unique" unique ("dispatch_id", "attempt");`);

    this.addSql(`alter table "webhook_outbox" add constraint "webhook_outbox_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "webhook_outbox" add constraint "webhook_outbox_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);

    this.addSql(`alter table "webhook_subscription" add constraint "webhook_subscription_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "webhook_signing_secret" add constraint "webhook_signing_secret_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "webhook_signing_secret" add constraint "webhook_signing_secret_subscription_id_foreign" foreign key ("subscription_id") references "webhook_subscription" ("id") on delete cascade;`);

    this.addSql(`alter table "webhook_dispatch" add constraint "webhook_dispatch_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "webhook_dispatch" add constraint "webhook_dispatch_outbox_id_foreign" foreign key ("outbox_id") references "webhook_outbox" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_dispatch" add constraint "webhook_dispatch_subscription_id_foreign" foreign key ("subscription_id") references "webhook_subscription" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_dispatch" add constraint "webhook_dispatch_state_check" check ("state" in ('PENDING', 'DELIVERED', 'FAILED'));`);

    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_dispatch_id_foreign" foreign key ("dispatch_id") references "webhook_dispatch" ("id") on delete cascade;`);

  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_dispatch" drop constraint "webhook_dispatch_outbox_id_foreign";`);
    this.addSql(`alter table "webhook_signing_secret" drop constraint "webhook_signing_secret_subscription_id_foreign";`);
    this.addSql(`alter table "webhook_dispatch" drop constraint "webhook_dispatch_subscription_id_foreign";`);
    this.addSql(`alter table "webhook_delivery" drop constraint "webhook_delivery_dispatch_id_foreign";`);

    this.addSql(`drop table if exists "webhook_outbox" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
    this.addSql(`drop table if exists "webhook_signing_secret" cascade;`);
    this.addSql(`drop table if exists "webhook_dispatch" cascade;`);
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
  }

}
