import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000342_finance extends Migration {

  override name = 'Migration20261125000342_finance';

  override up(): void | Promise<void> {
    this.addSql(`create table "sandbox_gateway_operation" ("id" serial primary key, "idempotency_key" varchar(300) not null, "kind" varchar(16) not null, "reference" varchar(64) not null, "source_token" varchar(200) not null, "amount_minor" bigint not null, "currency" varchar(3) not null, "status" varchar(32) not null, "outcome" jsonb null, "created_at" timestamptz not null, "completed_at" timestamptz null);`);
    this.addSql(`alter table "sandbox_gateway_operation" add constraint "sandbox_gateway_operation_idempotency_key_unique" unique ("idempotency_key");`);

    this.addSql(`create table "payment_webhook_event" ("id" serial primary key, "tenant_id" varchar(32) not null, "gateway" varchar(32) not null, "event_id" varchar(200) not null, "type" varchar(100) not null, "payload" jsonb not null, "received_at" timestamptz not null);`);
    this.addSql(`alter table "payment_webhook_event" add constraint "payment_webhook_event_tenant_id_gateway_event_id_unique" unique ("tenant_id", "gateway", "event_id");`);

    this.addSql(`create table "invoice_line_template" ("id" serial primary key, "tenant_id" varchar(32) not null, "business_unit_id" int not null, "code" varchar(64) not null, "description" varchar(500) not null, "net" numeric null, "gross" numeric null, "enabled" boolean not null default true);`);
    this.addSql(`create index "invoice_line_template_tenant_id_business_unit_id_index" on "invoice_line_template" ("tenant_id", "business_unit_id");`);

    this.addSql(`create table "balance" ("id" serial primary key, "tenant_id" varchar(32) not null, "business_unit_id" int not null, "customer_id" int null, "user_group_id" int null, "name" varchar(200) not null, "currency" varchar(3) not null, "is_default" boolean not null default false, "system_created" boolean not null default false, "deleted_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`create index "balance_tenant_id_business_unit_id_index" on "balance" ("tenant_id", "business_unit_id");`);
    this.addSql(`create index "balance_tenant_id_user_group_id_index" on "balance" ("tenant_id", "user_group_id");`);
    this.addSql(`create index "balance_tenant_id_customer_id_index" on "balance" ("tenant_id", "customer_id");`);

    this.addSql(`create table "balance_access" ("id" serial primary key, "tenant_id" varchar(32) not null, "balance_id" int not null, "customer_id" int not null, "granted_at" timestamptz not null);`);
    this.addSql(`alter table "balance_access" add constraint "balance_access_balance_id_customer_id_unique" unique ("balance_id", "customer_id");`);

    this.addSql(`create table "payment" ("id" serial primary key, "tenant_id" varchar(32) not null, "purpose" text not null, "state" text not null default 'OPEN', "business_unit_id" int not null, "customer_id" int null, "user_group_id" int null, "invoice_id" int null, "balance_id" int null, "payment_source_id" int null, "gateway" varchar(32) not null, "amount" numeric not null, "currency" varchar(3) not null, "attempt_count" int not null default 0, "next_retry_at" timestamptz null, "challenge" jsonb null, "gateway_reference" varchar(200) null, "failure_code" varchar(64) null, "failure_message" varchar(500) null, "workflow_id" varchar(200) not null, "requested_by" varchar(200) not null, "idempotency_key" varchar(300) not null, "paid_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "payment_tenant_id_customer_id_index" on "payment" ("tenant_id", "customer_id");`);
    this.addSql(`create index "payment_tenant_id_business_unit_id_state_index" on "payment" ("tenant_id", "business_unit_id", "state");`);
    this.addSql(`create unique index "payment_one_running_per_balance" on "payment" ("tenant_id", "balance_id") where "state" in ('OPEN', 'IN_PAYMENT', 'AWAITING_RETRY', 'PUSH_WAITING_FOR_USER', 'THREE_DS_WAITING_FOR_USER', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED', 'THREE_DS_FAILED');`);
    this.addSql(`create unique index "payment_one_running_per_invoice" on "payment" ("tenant_id", "invoice_id") where "state" in ('OPEN', 'IN_PAYMENT', 'AWAITING_RETRY', 'PUSH_WAITING_FOR_USER', 'THREE_DS_WAITING_FOR_USER', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED', 'THREE_DS_FAILED');`);
    this.addSql(`alter table "payment" add constraint "payment_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);

    this.addSql(`create table "payment_attempt" ("id" serial primary key, "tenant_id" varchar(32) not null, "payment_id" int not null, "number" int not null, "state" text not null default 'PROCESSING', "trigger" varchar(16) not null, "idempotency_key" varchar(300) not null, "gateway_reference" varchar(200) null, "decline_code" varchar(64) null, "decline_message" varchar(500) null, "retry_after_seconds" int null, "started_at" timestamptz not null, "finished_at" timestamptz null);`);
    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);
    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_payment_id_number_unique" unique ("payment_id", "number");`);

    this.addSql(`create table "balance_update" ("id" serial primary key, "tenant_id" varchar(32) not null, "balance_id" int not null, "kind" text not null, "amount" numeric not null, "invoice_id" int null, "payment_id" int null, "voucher_id" int null, "description" varchar(500) not null, "created_by" varchar(200) not null, "idempotency_key" varchar(300) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "balance_update_balance_id_created_at_index" on "balance_update" ("balance_id", "created_at");`);
    this.addSql(`alter table "balance_update" add constraint "balance_update_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);

    this.addSql(`alter table "invoice" add "billed_at" timestamptz null, add "settled_at" timestamptz null, add "refund_reason" varchar(500) null;`);

    this.addSql(`alter table "invoice_line" add "template_id" int null, add "refunded_line_id" int null;`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_template_id_foreign" foreign key ("template_id") references "invoice_line_template" ("id") on delete set null;`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_refunded_line_id_foreign" foreign key ("refunded_line_id") references "invoice_line" ("id") on delete set null;`);

    this.addSql(`alter table "payment_webhook_event" add constraint "payment_webhook_event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "invoice_line_template" add constraint "invoice_line_template_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "invoice_line_template" add constraint "invoice_line_template_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);

    this.addSql(`alter table "balance" add constraint "balance_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "balance" add constraint "balance_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "balance" add constraint "balance_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete set null;`);
    this.addSql(`alter table "balance" add constraint "balance_user_group_id_foreign" foreign key ("user_group_id") references "user_group" ("id") on delete set null;`);

    this.addSql(`alter table "balance_access" add constraint "balance_access_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "balance_access" add constraint "balance_access_balance_id_foreign" foreign key ("balance_id") references "balance" ("id") on delete cascade;`);
    this.addSql(`alter table "balance_access" add constraint "balance_access_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "payment" add constraint "payment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "payment" add constraint "payment_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "payment" add constraint "payment_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete set null;`);
    this.addSql(`alter table "payment" add constraint "payment_user_group_id_foreign" foreign key ("user_group_id") references "user_group" ("id") on delete set null;`);
    this.addSql(`alter table "payment" add constraint "payment_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "payment" add constraint "payment_balance_id_foreign" foreign key ("balance_id") references "balance" ("id") on delete set null;`);
    this.addSql(`alter table "payment" add constraint "payment_payment_source_id_foreign" foreign key ("payment_source_id") references "payment_source" ("id") on delete set null;`);
    this.addSql(`alter table "payment" add constraint "payment_purpose_check" check ("purpose" in ('INVOICE', 'BALANCE_SETTLEMENT'));`);
    this.addSql(`alter table "payment" add constraint "payment_state_check" check ("state" in ('OPEN', 'IN_PAYMENT', 'AWAITING_RETRY', 'PAID', 'FAILED', 'DISPUTED', 'COLLECTIONS', 'PUSH_WAITING_FOR_USER', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED', 'THREE_DS_WAITING_FOR_USER', 'THREE_DS_FAILED'));`);

    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_payment_id_foreign" foreign key ("payment_id") references "payment" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_attempt" add constraint "payment_attempt_state_check" check ("state" in ('PROCESSING', 'SUCCEEDED', 'SOFT_DECLINED', 'HARD_DECLINED', 'THREE_DS_REQUIRED', 'PUSH_REQUIRED', 'THREE_DS_FAILED', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED', 'CHALLENGE_EXPIRED'));`);

    this.addSql(`alter table "balance_update" add constraint "balance_update_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "balance_update" add constraint "balance_update_balance_id_foreign" foreign key ("balance_id") references "balance" ("id");`);
    this.addSql(`alter table "balance_update" add constraint "balance_update_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "balance_update" add constraint "balance_update_payment_id_foreign" foreign key ("payment_id") references "payment" ("id") on delete set null;`);
    this.addSql(`alter table "balance_update" add constraint "balance_update_kind_check" check ("kind" in ('INVOICE', 'VOUCHER', 'SETTLEMENT', 'MANUAL_CREDIT', 'REFUND'));`);
    this.addSql(`create or replace function "balance_update_append_only_fn"() returns trigger as $$ begin raise exception 'balance_update is append-only: write a correcting row instead'; end; $$ language plpgsql;`);
    this.addSql(`create trigger "append_only" BEFORE UPDATE OR DELETE on "balance_update" for each STATEMENT execute function "balance_update_append_only_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice_line" drop constraint "invoice_line_template_id_foreign";`);
    this.addSql(`alter table "balance_access" drop constraint "balance_access_balance_id_foreign";`);
    this.addSql(`alter table "payment" drop constraint "payment_balance_id_foreign";`);
    this.addSql(`alter table "balance_update" drop constraint "balance_update_balance_id_foreign";`);
    this.addSql(`alter table "payment_attempt" drop constraint "payment_attempt_payment_id_foreign";`);
    this.addSql(`alter table "balance_update" drop constraint "balance_update_payment_id_foreign";`);

    this.addSql(`drop table if exists "sandbox_gateway_operation" cascade;`);
    this.addSql(`drop table if exists "payment_webhook_event" cascade;`);
    this.addSql(`drop table if exists "invoice_line_template" cascade;`);
    this.addSql(`drop table if exists "balance" cascade;`);
    this.addSql(`drop table if exists "balance_access" cascade;`);
    this.addSql(`drop table if exists "payment" cascade;`);
    this.addSql(`drop table if exists "payment_attempt" cascade;`);
    this.addSql(`drop trigger if exists "append_only" on "balance_update";`);
    this.addSql(`drop function if exists "balance_update_append_only_fn"();`);
    this.addSql(`drop table if exists "balance_update" cascade;`);

    this.addSql(`alter table "invoice_line" drop constraint "invoice_line_refunded_line_id_foreign";`);

    this.addSql(`alter table "invoice" drop column "billed_at", drop column "settled_at", drop column "refund_reason";`);

    this.addSql(`alter table "invoice_line" drop column "template_id", drop column "refunded_line_id";`);
  }

}
