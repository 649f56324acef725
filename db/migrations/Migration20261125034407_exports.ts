import { Migration } from '@mikro-orm/migrations';

export class Migration20261125034407_exports extends Migration {

  override name = 'Migration20261125034407_exports';

  override up(): void | Promise<void> {
    this.addSql(`create table "export_webhook_authentication" ("id" serial primary key, "tenant_id" varchar(32) not null, "enabled" boolean not null default false, "api_key" varchar(200) not null, "signing_secret" varchar(200) not null, "secret_rotated_at" timestamptz not null default current_timestamp, "updated_at" timestamptz not null default current_timestamp);`);
    this.addSql(`alter table "export_webhook_authentication" add constraint "export_webhook_authentication_tenant_id_unique" unique ("tenant_id");`);

    this.addSql(`create table "export_run" ("id" serial primary key, "tenant_id" varchar(32) not null, "export_id" int not null, "query_id" int not null, "trigger" text not null, "state" text not null default 'RUNNING', "schedule_key" varchar(300) null, "replay_of_run_id" int null, "period_from" timestamptz null, "period_to" timestamptz null, "workflow_id" varchar(200) not null, "created_by" varchar(200) not null, "created_at" timestamptz not null default current_timestamp, "completed_at" timestamptz null, "row_count" int null, "byte_size" double precision null, "object_key" varchar(300) null, "expires_at" timestamptz null, "file_deleted_at" timestamptz null, "error_code" varchar(16) null, "error_message" varchar(1000) null, "download_key" varchar(64) not null);`);
    this.addSql(`create index "export_run_lapsing" on "export_run" ("expires_at") where "file_deleted_at" is null and "expires_at" is not null;`);
    this.addSql(`create index "export_run_tenant_id_export_id_index" on "export_run" ("tenant_id", "export_id");`);
    this.addSql(`alter table "export_run" add constraint "export_run_tenant_id_schedule_key_unique" unique ("tenant_id", "schedule_key");`);

    this.addSql(`create table "export_delivery" ("id" serial primary key, "tenant_id" varchar(32) not null, "run_id" int not null, "channel" text not null, "target" varchar(2000) not null, "dispatch_key" varchar(400) not null, "attempt" int not null, "manual" boolean not null default false, "webhook_id" varchar(200) null, "outcome" text not null default 'SENDING', "http_status" int null, "error" varchar(1000) null, "started_at" timestamptz not null default current_timestamp, "finished_at" timestamptz null);`);
    this.addSql(`create index "export_delivery_tenant_id_run_id_index" on "export_delivery" ("tenant_id", "run_id");`);
    this.addSql(`alter table "export_delivery" add constraint "export_delivery_tenant_id_dispatch_key_unique" unique ("tenant_id", "dispatch_key");`);

    this.addSql(`create table "data_export" ("id" serial primary key, "tenant_id" varchar(32) not null, "name" varchar(200) not null, "query_id" int not null, "branch_ids" jsonb not null, "period_from" timestamptz null, "period_to" timestamptz null, "period_last_days" int null, "format" varchar(8) not null default 'CSV', "retention_days" int not null, "cron" varchar(120) null, "timezone" varchar(64) null, "state" text not null default 'ACTIVE', "emails" jsonb not null, "webhook_url" varchar(2000) null, "owner_subject_type" varchar(16) not null, "owner_subject_id" varchar(200) not null, "created_by" varchar(200) not null, "created_at" timestamptz not null default current_timestamp, "updated_at" timestamptz not null default current_timestamp, "deleted_at" timestamptz null);`);
    this.addSql(`create index "data_export_tenant_id_deleted_at_index" on "data_export" ("tenant_id", "deleted_at");`);

    this.addSql(`alter table "export_webhook_authentication" add constraint "export_webhook_authentication_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "export_run" add constraint "export_run_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "export_run" add constraint "export_run_trigger_check" check ("trigger" in ('ONE_TIME', 'SCHEDULE', 'MANUAL', 'REPLAY'));`);
    this.addSql(`alter table "export_run" add constraint "export_run_state_check" check ("state" in ('RUNNING', 'SUCCEEDED', 'FAILED'));`);

    this.addSql(`alter table "export_delivery" add constraint "export_delivery_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "export_delivery" add constraint "export_delivery_channel_check" check ("channel" in ('EMAIL', 'WEBHOOK'));`);
    this.addSql(`alter table "export_delivery" add constraint "export_delivery_outcome_check" check ("outcome" in ('SENDING', 'DELIVERED', 'HTTP_ERROR', 'NETWORK_ERROR', 'TIMEOUT', 'INTERRUPTED', 'SMTP_ERROR'));`);

    this.addSql(`alter table "data_export" add constraint "data_export_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "data_export" add constraint "data_export_state_check" check ("state" in ('ACTIVE', 'PAUSED'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "export_webhook_authentication" cascade;`);
    this.addSql(`drop table if exists "export_run" cascade;`);
    this.addSql(`drop table if exists "export_delivery" cascade;`);
    this.addSql(`drop table if exists "data_export" cascade;`);
  }

}
