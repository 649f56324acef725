import { Migration } from '@mikro-orm/migrations';

export class Migration20261125062500_user_subscriptions extends Migration {

  override name = 'Migration20261125062500_user_subscriptions';

  override up(): void | Promise<void> {
    this.addSql(`create table "user_subscription" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "branch_id" int not null, "business_unit_id" int not null, "voucherable_id" int not null, "state" text not null default 'RENEWING', "auto_renewal" text not null default 'ACTIVE', "interval" text not null, "price" numeric not null, "initial_price" numeric null, "initial_iterations" int null, "currency" varchar(3) not null, "time_zone_id" varchar(64) not null, "anchor_at" timestamptz not null, "anchor_period" int not null default 1, "current_period" int not null default 0, "period_started_at" timestamptz null, "valid_until" timestamptz null, "bought_at" timestamptz not null, "switching_target_voucherable_id" int null, "switch_mode" text null, "latest_invoice_id" int null, "ended_at" timestamptz null, "workflow_id" varchar(300) not null, "created_by" varchar(200) not null, "idempotency_key" varchar(300) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "user_subscription_tenant_id_business_unit_id_state_index" on "user_subscription" ("tenant_id", "business_unit_id", "state");`);
    this.addSql(`create index "user_subscription_tenant_id_customer_id_state_index" on "user_subscription" ("tenant_id", "customer_id", "state");`);
    this.addSql(`create unique index "user_subscription_one_running_per_plan" on "user_subscription" ("tenant_id", "customer_id", "voucherable_id") where "state" in ('RENEWING', 'SWITCHING', 'SWITCHED');`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);

    this.addSql(`create table "user_subscription_period" ("id" serial primary key, "tenant_id" varchar(32) not null, "user_subscription_id" int not null, "number" int not null, "kind" text not null, "voucherable_id" int not null, "starts_at" timestamptz not null, "ends_at" timestamptz not null, "price" numeric not null, "currency" varchar(3) not null, "state" text not null default 'CHARGING', "invoice_id" int null, "payment_id" int null, "granted_at" timestamptz null, "voucher_ids" jsonb null, "idempotency_key" varchar(300) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "user_subscription_period_tenant_id_user_subscripti_da972_index" on "user_subscription_period" ("tenant_id", "user_subscription_id", "number");`);
    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);

    this.addSql(`alter table "user_subscription" add constraint "user_subscription_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_customer_id_foreign" foreign key ("customer_id") references "customer" ("id");`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_latest_invoice_id_foreign" foreign key ("latest_invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_state_check" check ("state" in ('RENEWING', 'EXPIRED', 'SWITCHING', 'SWITCHED', 'CANCELLED'));`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_auto_renewal_check" check ("auto_renewal" in ('ACTIVE', 'INACTIVE', 'FAILED'));`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_interval_check" check ("interval" in ('DAILY', 'WEEKLY', 'MONTHLY', 'FIRST_OF_MONTH', 'YEARLY', 'FIRST_OF_YEAR'));`);
    this.addSql(`alter table "user_subscription" add constraint "user_subscription_switch_mode_check" check ("switch_mode" in ('IMMEDIATE', 'DELAYED'));`);

    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_user_subscription_id_foreign" foreign key ("user_subscription_id") references "user_subscription" ("id");`);
    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_payment_id_foreign" foreign key ("payment_id") references "payment" ("id") on delete set null;`);
    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_kind_check" check ("kind" in ('PURCHASE', 'RENEWAL', 'SWITCH'));`);
    this.addSql(`alter table "user_subscription_period" add constraint "user_subscription_period_state_check" check ("state" in ('CHARGING', 'PAID', 'FAILED'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "user_subscription_period" drop constraint "user_subscription_period_user_subscription_id_foreign";`);

    this.addSql(`drop table if exists "user_subscription" cascade;`);
    this.addSql(`drop table if exists "user_subscription_period" cascade;`);
  }

}
