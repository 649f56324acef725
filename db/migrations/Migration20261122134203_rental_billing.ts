import { Migration } from '@mikro-orm/migrations';

export class Migration20261122134203_rental_billing extends Migration {

  override name = 'Migration20261122134203_rental_billing';

  override up(): void | Promise<void> {
    this.addSql(`create table "invoice_number_sequence" ("id" serial primary key, "tenant_id" varchar(32) not null, "business_unit_id" int not null, "year" int not null, "last_number" int not null);`);
    this.addSql(`alter table "invoice_number_sequence" add constraint "invoice_number_sequence_tenant_id_business_unit_id_year_unique" unique ("tenant_id", "business_unit_id", "year");`);

    this.addSql(`create table "invoice" ("id" serial primary key, "tenant_id" varchar(32) not null, "number" varchar(100) not null, "type" text not null, "state" text not null default 'OPEN', "business_unit_id" int not null, "customer_id" int not null, "rental_id" int null, "user_group_id" int null, "cost_center_id" int null, "refunded_invoice_id" int null, "title" varchar(200) not null, "description" varchar(1000) null, "currency" varchar(3) not null, "total_net" numeric not null, "total_tax" numeric not null, "total_gross" numeric not null, "pricing_bundle_version" jsonb null, "payment_reference" varchar(200) null, "issued_at" timestamptz not null, "idempotency_key" varchar(300) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "invoice_tenant_id_customer_id_index" on "invoice" ("tenant_id", "customer_id");`);
    this.addSql(`create index "invoice_tenant_id_business_unit_id_state_index" on "invoice" ("tenant_id", "business_unit_id", "state");`);
    this.addSql(`create unique index "invoice_one_per_rental" on "invoice" ("tenant_id", "rental_id") where "refunded_invoice_id" is null;`);
    this.addSql(`alter table "invoice" add constraint "invoice_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);
    this.addSql(`alter table "invoice" add constraint "invoice_tenant_id_number_unique" unique ("tenant_id", "number");`);

    this.addSql(`create table "invoice_line" ("id" serial primary key, "tenant_id" varchar(32) not null, "invoice_id" int not null, "position" int not null, "code" varchar(64) not null, "group" text not null, "phase" text null, "description" varchar(500) not null, "quantity" numeric not null, "unit" varchar(16) not null, "unit_price" numeric not null, "net" numeric not null, "tax" numeric not null, "gross" numeric not null, "tax_percentage" numeric not null);`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_invoice_id_position_unique" unique ("invoice_id", "position");`);

    this.addSql(`create table "deposit" ("id" serial primary key, "tenant_id" varchar(32) not null, "rental_id" int not null, "customer_id" int not null, "business_unit_id" int not null, "user_group_id" int null, "cost_center_id" int null, "amount" numeric not null, "currency" varchar(3) not null, "state" text not null default 'ACTIVE', "authorization_state" text not null default 'NOT_REQUESTED', "provider_reference" varchar(200) null, "held_at" timestamptz not null, "released_at" timestamptz null, "released_by" varchar(200) null, "idempotency_key" varchar(300) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "deposit_tenant_id_business_unit_id_state_index" on "deposit" ("tenant_id", "business_unit_id", "state");`);
    this.addSql(`alter table "deposit" add constraint "deposit_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);
    this.addSql(`alter table "deposit" add constraint "deposit_tenant_id_rental_id_unique" unique ("tenant_id", "rental_id");`);

    this.addSql(`alter table "invoice_number_sequence" add constraint "invoice_number_sequence_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "invoice_number_sequence" add constraint "invoice_number_sequence_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id") on delete cascade;`);

    this.addSql(`alter table "invoice" add constraint "invoice_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "invoice" add constraint "invoice_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "invoice" add constraint "invoice_customer_id_foreign" foreign key ("customer_id") references "customer" ("id");`);
    this.addSql(`alter table "invoice" add constraint "invoice_rental_id_foreign" foreign key ("rental_id") references "rental" ("id") on delete set null;`);
    this.addSql(`alter table "invoice" add constraint "invoice_user_group_id_foreign" foreign key ("user_group_id") references "user_group" ("id") on delete set null;`);
    this.addSql(`alter table "invoice" add constraint "invoice_cost_center_id_foreign" foreign key ("cost_center_id") references "cost_center" ("id") on delete set null;`);
    this.addSql(`alter table "invoice" add constraint "invoice_refunded_invoice_id_foreign" foreign key ("refunded_invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "invoice" add constraint "invoice_type_check" check ("type" in ('REGULAR', 'BUSINESS'));`);
    this.addSql(`alter table "invoice" add constraint "invoice_state_check" check ("state" in ('OPEN', 'CLOSED', 'BILLED', 'IN_PAYMENT', 'PAID', 'PAID_EXTERNALLY', 'EXCEPTION_BILLING', 'EXCEPTION_SEPA', 'EXCEPTION_PAYING', 'PUSH_BANK_REFUSED', 'THREE_DS_FAILED', 'PUSH_WAITING_FOR_USER', 'THREE_DS_WAITING_FOR_USER', 'ALLOWS_REFUND', 'REFUND_IN_PROGRESS', 'REFUNDED', 'EXCEPTION_REFUND', 'IS_REFUND', 'COLLECTION', 'DISPUTED', 'IGNORE'));`);

    this.addSql(`alter table "invoice_line" add constraint "invoice_line_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete cascade;`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_group_check" check ("group" in ('RESERVATION', 'TIME', 'UNLOCK', 'DISTANCE', 'ADDITION', 'PENALTY', 'ADJUSTMENT'));`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_phase_check" check ("phase" in ('RESERVATION_FREE', 'RESERVATION_PAID', 'DRIVING', 'PARKING'));`);

    this.addSql(`alter table "deposit" add constraint "deposit_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "deposit" add constraint "deposit_rental_id_foreign" foreign key ("rental_id") references "rental" ("id");`);
    this.addSql(`alter table "deposit" add constraint "deposit_customer_id_foreign" foreign key ("customer_id") references "customer" ("id");`);
    this.addSql(`alter table "deposit" add constraint "deposit_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);
    this.addSql(`alter table "deposit" add constraint "deposit_user_group_id_foreign" foreign key ("user_group_id") references "user_group" ("id") on delete set null;`);
    this.addSql(`alter table "deposit" add constraint "deposit_cost_center_id_foreign" foreign key ("cost_center_id") references "cost_center" ("id") on delete set null;`);
    this.addSql(`alter table "deposit" add constraint "deposit_state_check" check ("state" in ('ACTIVE', 'RELEASED'));`);
    this.addSql(`alter table "deposit" add constraint "deposit_authorization_state_check" check ("authorization_state" in ('NOT_REQUESTED'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice" drop constraint "invoice_refunded_invoice_id_foreign";`);
    this.addSql(`alter table "invoice_line" drop constraint "invoice_line_invoice_id_foreign";`);

    this.addSql(`drop table if exists "invoice_number_sequence" cascade;`);
    this.addSql(`drop table if exists "invoice" cascade;`);
    this.addSql(`drop table if exists "invoice_line" cascade;`);
    this.addSql(`drop table if exists "deposit" cascade;`);
  }

}
