import { Migration } from '@mikro-orm/migrations';

export class Migration20261125062708_benefits extends Migration {

  override name = 'Migration20261125062708_benefits';

  override up(): void | Promise<void> {
    this.addSql(`create table "annotation" ("id" serial primary key, "tenant_id" varchar(32) not null, "business_unit_id" int not null, "type" text not null, "name" varchar(100) not null, "description" varchar(1000) null, "color" varchar(7) null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create unique index "annotation_unit_type_name_unique" on "annotation" ("tenant_id", "business_unit_id", "type", lower("name"));`);

    this.addSql(`create table "annotation_assignment" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "annotation_id" int not null, "created_by" varchar(200) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "annotation_assignment_tenant_id_annotation_id_index" on "annotation_assignment" ("tenant_id", "annotation_id");`);
    this.addSql(`alter table "annotation_assignment" add constraint "annotation_assignment_tenant_id_customer_id_annot_7ed40_unique" unique ("tenant_id", "customer_id", "annotation_id");`);

    this.addSql(`create table "voucherable" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "business_unit_id" int not null, "type" text not null, "status" text not null default 'INACTIVE', "code" varchar(64) null, "name" varchar(200) not null, "description" varchar(2000) null, "invoice_description" varchar(500) null, "icon_url" varchar(2000) null, "currency" varchar(3) not null, "value" numeric null, "discount" numeric null, "rental_rebate" numeric null, "addition_entitlement_id" int null, "benefits" jsonb not null default '[]', "valid_until" timestamptz null, "validity_period" int null, "validity_time_unit" text null, "number_of_rentals" int null, "applicable_branch_ids" jsonb null, "applicable_vehicle_category_ids" jsonb null, "applicable_price_type" text null, "cost_sources" jsonb null, "guser_required_annotation_ids" jsonb not null default '[]', "guser_prohibited_annotation_ids" jsonb not null default '[]', "required_annotation_ids" jsonb not null default '[]', "prohibited_annotation_ids" jsonb not null default '[]', "price" numeric null, "interval" varchar(32) null, "initial_price" numeric null, "initial_iterations" int null, "initial" boolean not null default false, "highlight" boolean not null default false, "show_in_user_app" boolean not null default false, "max_redeems" int null, "redeem_count" int not null default 0, "redeem_from" timestamptz null, "redeem_until" timestamptz null, "referrer_voucherable_id" int null, "referrer_needs_ride" boolean not null default false, "geofence" jsonb null, "weekdays" jsonb null, "recurrence_start" timestamptz null, "duration_minutes" int null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null);`);
    this.addSql(`create unique index "voucherable_tenant_code_unique" on "voucherable" ("tenant_id", lower("code")) where "code" is not null and "deleted_at" is null;`);
    this.addSql(`create index "voucherable_tenant_id_business_unit_id_type_index" on "voucherable" ("tenant_id", "business_unit_id", "type");`);

    this.addSql(`create table "voucher" ("id" serial primary key, "tenant_id" varchar(32) not null, "voucherable_id" int not null, "business_unit_id" int not null, "customer_id" int null, "user_group_id" int null, "status" text not null, "source_kind" text not null, "source_reference" varchar(200) not null, "benefit_index" int not null, "benefit_type" text not null, "code" varchar(64) null, "currency" varchar(3) not null, "value_gross" numeric null, "remaining_value_gross" numeric null, "discount" numeric null, "rental_rebate" numeric null, "free_minutes" int null, "remaining_free_minutes" int null, "free_unlocks" int null, "remaining_free_unlocks" int null, "number_of_rentals" int null, "remaining_number_of_rentals" int null, "addition_entitlement_id" int null, "applicable_price_type" text null, "cost_sources" jsonb null, "branch_ids" jsonb null, "vehicle_category_ids" jsonb null, "valid_from" timestamptz null, "valid_until" timestamptz null, "validity_period" int null, "validity_time_unit" text null, "credited_at" timestamptz null, "credited_balance_id" int null, "redeemed_at" timestamptz null, "canceled_at" timestamptz null, "created_by" varchar(200) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "voucher_tenant_code_index" on "voucher" ("tenant_id", lower("code")) where "code" is not null;`);
    this.addSql(`create index "voucher_tenant_id_voucherable_id_index" on "voucher" ("tenant_id", "voucherable_id");`);
    this.addSql(`create index "voucher_tenant_id_business_unit_id_status_index" on "voucher" ("tenant_id", "business_unit_id", "status");`);
    this.addSql(`create index "voucher_tenant_id_user_group_id_status_index" on "voucher" ("tenant_id", "user_group_id", "status");`);
    this.addSql(`create index "voucher_tenant_id_customer_id_status_index" on "voucher" ("tenant_id", "customer_id", "status");`);
    this.addSql(`alter table "voucher" add constraint "voucher_grant_unique" unique ("tenant_id", "source_kind", "source_reference", "voucherable_id", "benefit_index");`);

    this.addSql(`create table "reward" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int not null, "business_unit_id" int not null, "code" varchar(64) not null, "name" varchar(200) not null, "voucherable_id" int not null, "valid_until" timestamptz null, "created_by" varchar(200) not null, "created_at" timestamptz not null);`);
    this.addSql(`create unique index "reward_tenant_code_unique" on "reward" ("tenant_id", lower("code"));`);
    this.addSql(`create index "reward_tenant_id_branch_id_index" on "reward" ("tenant_id", "branch_id");`);

    this.addSql(`create table "voucher_code" ("id" serial primary key, "tenant_id" varchar(32) not null, "voucherable_id" int not null, "business_unit_id" int not null, "code" varchar(64) not null, "max_redeems" int null, "redeem_count" int not null default 0, "valid_from" timestamptz null, "valid_until" timestamptz null, "created_by" varchar(200) not null, "created_at" timestamptz not null);`);
    this.addSql(`create unique index "voucher_code_tenant_code_unique" on "voucher_code" ("tenant_id", lower("code"));`);
    this.addSql(`create index "voucher_code_tenant_id_voucherable_id_index" on "voucher_code" ("tenant_id", "voucherable_id");`);

    this.addSql(`create table "voucher_consumption" ("id" serial primary key, "tenant_id" varchar(32) not null, "voucher_id" int not null, "idempotency_key" varchar(300) not null, "value" numeric not null default '0', "minutes" int not null default 0, "unlocks" int not null default 0, "rentals" int not null default 0, "rental_id" int null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "voucher_consumption" add constraint "voucher_consumption_tenant_id_voucher_id_idempotency_key_unique" unique ("tenant_id", "voucher_id", "idempotency_key");`);

    this.addSql(`create table "voucher_package_purchase" ("id" serial primary key, "tenant_id" varchar(32) not null, "voucherable_id" int not null, "customer_id" int not null, "business_unit_id" int not null, "invoice_id" int not null, "state" varchar(16) not null default 'BILLED', "initial" boolean not null default false, "price" numeric not null, "currency" varchar(3) not null, "idempotency_key" varchar(300) not null, "created_by" varchar(200) not null, "granted_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`create index "voucher_package_purchase_tenant_id_customer_id_state_index" on "voucher_package_purchase" ("tenant_id", "customer_id", "state");`);
    this.addSql(`alter table "voucher_package_purchase" add constraint "voucher_package_purchase_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);
    this.addSql(`alter table "voucher_package_purchase" add constraint "voucher_package_purchase_tenant_id_invoice_id_unique" unique ("tenant_id", "invoice_id");`);

    this.addSql(`alter table "annotation" add constraint "annotation_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "annotation" add constraint "annotation_type_check" check ("type" in ('TAG', 'LABEL'));`);

    this.addSql(`alter table "annotation_assignment" add constraint "annotation_assignment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "annotation_assignment" add constraint "annotation_assignment_annotation_id_foreign" foreign key ("annotation_id") references "annotation" ("id") on delete cascade;`);

    this.addSql(`alter table "voucherable" add constraint "voucherable_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "voucherable" add constraint "voucherable_type_check" check ("type" in ('Promotion', 'GeoFencePromotion', 'Package', 'Subscription', 'Reward', 'SignupReferral', 'Triggered', 'CustomerCare', 'VehiclePromotion', 'GeoFenceSurcharge', 'RidePass', 'PricedPromotion'));`);
    this.addSql(`alter table "voucherable" add constraint "voucherable_status_check" check ("status" in ('ACTIVE', 'INACTIVE'));`);
    this.addSql(`alter table "voucherable" add constraint "voucherable_validity_time_unit_check" check ("validity_time_unit" in ('HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS'));`);
    this.addSql(`alter table "voucherable" add constraint "voucherable_applicable_price_type_check" check ("applicable_price_type" in ('TIME_PRICE', 'DRIVING_PRICE', 'PARKING_PRICE', 'DISTANCE_PRICE', 'RESERVATION_PRICE', 'UNLOCK_FEE'));`);

    this.addSql(`alter table "voucher" add constraint "voucher_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_voucherable_id_foreign" foreign key ("voucherable_id") references "voucherable" ("id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_status_check" check ("status" in ('NOT_REDEEMED', 'PENDING', 'ACTIVE', 'USED_UP', 'EXPIRED', 'CANCELED'));`);
    this.addSql(`alter table "voucher" add constraint "voucher_source_kind_check" check ("source_kind" in ('SUBSCRIPTION', 'PACKAGE', 'OPERATOR', 'CODE', 'REFERRAL', 'REWARD', 'PROMOTION'));`);
    this.addSql(`alter table "voucher" add constraint "voucher_benefit_type_check" check ("benefit_type" in ('Value', 'Discount', 'RentalRebate', 'FreeUnlocks', 'DiscountOnPackages', 'AdditionEntitlement', 'FreeMinutes'));`);
    this.addSql(`alter table "voucher" add constraint "voucher_applicable_price_type_check" check ("applicable_price_type" in ('TIME_PRICE', 'DRIVING_PRICE', 'PARKING_PRICE', 'DISTANCE_PRICE', 'RESERVATION_PRICE', 'UNLOCK_FEE'));`);
    this.addSql(`alter table "voucher" add constraint "voucher_validity_time_unit_check" check ("validity_time_unit" in ('HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS'));`);

    this.addSql(`alter table "reward" add constraint "reward_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "reward" add constraint "reward_voucherable_id_foreign" foreign key ("voucherable_id") references "voucherable" ("id");`);

    this.addSql(`alter table "voucher_code" add constraint "voucher_code_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "voucher_code" add constraint "voucher_code_voucherable_id_foreign" foreign key ("voucherable_id") references "voucherable" ("id");`);

    this.addSql(`alter table "voucher_consumption" add constraint "voucher_consumption_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "voucher_consumption" add constraint "voucher_consumption_voucher_id_foreign" foreign key ("voucher_id") references "voucher" ("id") on delete cascade;`);

    this.addSql(`alter table "voucher_package_purchase" add constraint "voucher_package_purchase_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "voucher_package_purchase" add constraint "voucher_package_purchase_voucherable_id_foreign" foreign key ("voucherable_id") references "voucherable" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "annotation_assignment" drop constraint "annotation_assignment_annotation_id_foreign";`);
    this.addSql(`alter table "voucher" drop constraint "voucher_voucherable_id_foreign";`);
    this.addSql(`alter table "reward" drop constraint "reward_voucherable_id_foreign";`);
    this.addSql(`alter table "voucher_code" drop constraint "voucher_code_voucherable_id_foreign";`);
    this.addSql(`alter table "voucher_package_purchase" drop constraint "voucher_package_purchase_voucherable_id_foreign";`);
    this.addSql(`alter table "voucher_consumption" drop constraint "voucher_consumption_voucher_id_foreign";`);

    this.addSql(`drop table if exists "annotation" cascade;`);
    this.addSql(`drop table if exists "annotation_assignment" cascade;`);
    this.addSql(`drop table if exists "voucherable" cascade;`);
    this.addSql(`drop table if exists "voucher" cascade;`);
    this.addSql(`drop table if exists "reward" cascade;`);
    this.addSql(`drop table if exists "voucher_code" cascade;`);
    this.addSql(`drop table if exists "voucher_consumption" cascade;`);
    this.addSql(`drop table if exists "voucher_package_purchase" cascade;`);
  }

}
