import { Migration } from '@mikro-orm/migrations';

export class Migration20261122105400_customers extends Migration {

  override name = 'Migration20261122105400_customers';

  override up(): void | Promise<void> {
    this.addSql(`create table "sign_in_throttle" ("id" serial primary key, "tenant_id" varchar(32) not null, "key" varchar(400) not null, "failures" int not null default 0, "blocked_until" timestamptz null);`);
    this.addSql(`alter table "sign_in_throttle" add constraint "sign_in_throttle_tenant_id_key_unique" unique ("tenant_id", "key");`);

    this.addSql(`create table "one_time_code" ("id" serial primary key, "tenant_id" varchar(32) not null, "purpose" varchar(32) not null, "target" varchar(320) not null, "code_digest" varchar(64) not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`create index "one_time_code_tenant_id_purpose_target_created_at_index" on "one_time_code" ("tenant_id", "purpose", "target", "created_at");`);

    this.addSql(`create table "refresh_token" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "token_digest" varchar(64) not null, "family" uuid not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`create index "refresh_token_tenant_id_customer_id_index" on "refresh_token" ("tenant_id", "customer_id");`);
    this.addSql(`alter table "refresh_token" add constraint "refresh_token_token_digest_unique" unique ("token_digest");`);

    this.addSql(`create table "credit_rating" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "provider" varchar(64) not null, "status" varchar(16) not null, "score" int null, "provider_reference" varchar(200) null, "checked_at" timestamptz not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "credit_rating_tenant_id_customer_id_checked_at_index" on "credit_rating" ("tenant_id", "customer_id", "checked_at");`);

    this.addSql(`create table "app_signing_key" ("id" serial primary key, "tenant_id" varchar(32) not null, "app_id" varchar(100) not null, "secret" varchar(200) not null, "active" boolean not null default true);`);
    this.addSql(`alter table "app_signing_key" add constraint "app_signing_key_tenant_id_app_id_unique" unique ("tenant_id", "app_id");`);

    this.addSql(`create table "terms_and_conditions" ("id" serial primary key, "tenant_id" varchar(32) not null, "branch_id" int null, "version" int not null, "name" varchar(200) not null, "url" varchar(2000) not null, "content" text null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "terms_and_conditions" add constraint "terms_and_conditions_tenant_id_branch_id_version_unique" unique ("tenant_id", "branch_id", "version");`);

    this.addSql(`create table "terms_acceptance" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int not null, "terms_id" int not null, "accepted_by" varchar(200) not null, "accepted_at" timestamptz not null);`);
    this.addSql(`alter table "terms_acceptance" add constraint "terms_acceptance_tenant_id_customer_id_terms_id_unique" unique ("tenant_id", "customer_id", "terms_id");`);

    this.addSql(`create table "user_group" ("id" serial primary key, "tenant_id" varchar(32) not null, "code" varchar(32) not null, "name" varchar(200) not null, "branch_id" int not null, "owner_id" int null, "billing_cycle" varchar(32) not null, "use_receipt_instead_of_invoice" boolean not null default false, "payment_state" varchar(16) not null default 'NONE', "default_cost_center_id" int null, "default_business_unit_id" int null, "check_rental_requirements" boolean not null default true, "require_driving_log" boolean not null default false, "should_ignore_bcategory_rental_requirement" boolean not null default false, "join_requires_approval" boolean not null default false, "max_members" int not null, "street" varchar(200) null, "house_number" varchar(32) null, "address_addition" varchar(200) null, "postcode" varchar(32) null, "city" varchar(100) null, "country" varchar(2) null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "user_group" add constraint "user_group_tenant_id_code_unique" unique ("tenant_id", "code");`);

    this.addSql(`create table "payment_source" ("id" serial primary key, "tenant_id" varchar(32) not null, "customer_id" int null, "group_id" int null, "business_unit_id" int not null, "type" varchar(16) not null, "provider" varchar(64) not null, "provider_reference" varchar(200) not null, "label" varchar(100) not null, "expiry" varchar(7) null, "is_default" boolean not null default false, "created_at" timestamptz not null);`);
    this.addSql(`create index "payment_source_tenant_id_group_id_index" on "payment_source" ("tenant_id", "group_id");`);
    this.addSql(`create index "payment_source_tenant_id_customer_id_index" on "payment_source" ("tenant_id", "customer_id");`);

    this.addSql(`create table "group_membership" ("id" serial primary key, "tenant_id" varchar(32) not null, "group_id" int not null, "customer_id" int not null, "state" varchar(16) not null, "cost_center_id" int null, "can_manage" boolean not null default false, "created_at" timestamptz not null);`);
    this.addSql(`create index "group_membership_tenant_id_group_id_state_index" on "group_membership" ("tenant_id", "group_id", "state");`);
    this.addSql(`alter table "group_membership" add constraint "group_membership_tenant_id_customer_id_unique" unique ("tenant_id", "customer_id");`);

    this.addSql(`create table "cost_center" ("id" serial primary key, "tenant_id" varchar(32) not null, "group_id" int not null, "code" varchar(64) not null, "name" varchar(200) not null, "description" varchar(1000) null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "cost_center" add constraint "cost_center_tenant_id_group_id_code_unique" unique ("tenant_id", "group_id", "code");`);

    this.addSql(`create table "verification" ("id" serial primary key, "tenant_id" varchar(32) not null, "attempt_uuid" uuid not null, "customer_id" int not null, "kind" varchar(32) not null, "state" varchar(32) not null, "provider" varchar(64) not null, "reason" varchar(1000) null, "decided_by" varchar(200) null, "decided_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`create index "verification_tenant_id_state_created_at_index" on "verification" ("tenant_id", "state", "created_at");`);
    this.addSql(`create index "verification_tenant_id_customer_id_kind_index" on "verification" ("tenant_id", "customer_id", "kind");`);
    this.addSql(`alter table "verification" add constraint "verification_attempt_uuid_unique" unique ("attempt_uuid");`);

    this.addSql(`create table "verification_media" ("id" serial primary key, "tenant_id" varchar(32) not null, "file_uuid" uuid not null, "verification_id" int not null, "label" varchar(32) not null, "content_type" varchar(64) not null, "data" bytea not null, "size_bytes" int not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "verification_media" add constraint "verification_media_file_uuid_unique" unique ("file_uuid");`);

    this.addSql(`alter table "customer" add "password_hash" varchar(300) null, add "email_is_verified" boolean not null default false, add "phone_is_verified" boolean not null default false, add "birth_date" date null, add "gender" varchar(16) null, add "street" varchar(200) null, add "house_number" varchar(32) null, add "address_addition" varchar(200) null, add "postcode" varchar(32) null, add "city" varchar(100) null, add "country" varchar(2) null, add "signup_settled" boolean not null default false, add "skip_pre_auth" boolean not null default false, add "payment_state" varchar(16) not null default 'NONE', add "license_verification_state" varchar(32) not null default 'UNVERIFIED', add "id_verification_state" varchar(32) not null default 'UNVERIFIED', add "manual_verification_state" varchar(32) not null default 'UNVERIFIED', add "custom_external_verification_state" varchar(32) not null default 'UNVERIFIED', add "external_reference" varchar(200) null, add "tags" jsonb not null default '[]';`);
    this.addSql(`create index "customer_tenant_id_birth_date_index" on "customer" ("tenant_id", "birth_date");`);
    this.addSql(`alter table "customer" add constraint "customer_tenant_id_phone_number_unique" unique ("tenant_id", "phone_number");`);


    this.addSql(`alter table "sign_in_throttle" add constraint "sign_in_throttle_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "one_time_code" add constraint "one_time_code_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "refresh_token" add constraint "refresh_token_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "refresh_token" add constraint "refresh_token_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "credit_rating" add constraint "credit_rating_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "credit_rating" add constraint "credit_rating_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "app_signing_key" add constraint "app_signing_key_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "terms_and_conditions" add constraint "terms_and_conditions_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "terms_and_conditions" add constraint "terms_and_conditions_branch_id_foreign" foreign key ("branch_id") references "branch" ("id") on delete set null;`);

    this.addSql(`alter table "terms_acceptance" add constraint "terms_acceptance_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "terms_acceptance" add constraint "terms_acceptance_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);
    this.addSql(`alter table "terms_acceptance" add constraint "terms_acceptance_terms_id_foreign" foreign key ("terms_id") references "terms_and_conditions" ("id") on delete cascade;`);

    this.addSql(`alter table "user_group" add constraint "user_group_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "user_group" add constraint "user_group_branch_id_foreign" foreign key ("branch_id") references "branch" ("id");`);
    this.addSql(`alter table "user_group" add constraint "user_group_owner_id_foreign" foreign key ("owner_id") references "customer" ("id") on delete set null;`);
    this.addSql(`alter table "user_group" add constraint "user_group_default_business_unit_id_foreign" foreign key ("default_business_unit_id") references "business_unit" ("id") on delete set null;`);

    this.addSql(`alter table "payment_source" add constraint "payment_source_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "payment_source" add constraint "payment_source_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_source" add constraint "payment_source_group_id_foreign" foreign key ("group_id") references "user_group" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_source" add constraint "payment_source_business_unit_id_foreign" foreign key ("business_unit_id") references "business_unit" ("id");`);

    this.addSql(`alter table "group_membership" add constraint "group_membership_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "group_membership" add constraint "group_membership_group_id_foreign" foreign key ("group_id") references "user_group" ("id") on delete cascade;`);
    this.addSql(`alter table "group_membership" add constraint "group_membership_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "cost_center" add constraint "cost_center_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "cost_center" add constraint "cost_center_group_id_foreign" foreign key ("group_id") references "user_group" ("id") on delete cascade;`);

    this.addSql(`alter table "verification" add constraint "verification_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "verification" add constraint "verification_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "verification_media" add constraint "verification_media_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "verification_media" add constraint "verification_media_verification_id_foreign" foreign key ("verification_id") references "verification" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "terms_acceptance" drop constraint "terms_acceptance_terms_id_foreign";`);
    this.addSql(`alter table "payment_source" drop constraint "payment_source_group_id_foreign";`);
    this.addSql(`alter table "group_membership" drop constraint "group_membership_group_id_foreign";`);
    this.addSql(`alter table "cost_center" drop constraint "cost_center_group_id_foreign";`);
    this.addSql(`alter table "verification_media" drop constraint "verification_media_verification_id_foreign";`);

    this.addSql(`drop table if exists "sign_in_throttle" cascade;`);
    this.addSql(`drop table if exists "one_time_code" cascade;`);
    this.addSql(`drop table if exists "refresh_token" cascade;`);
    this.addSql(`drop table if exists "credit_rating" cascade;`);
    this.addSql(`drop table if exists "app_signing_key" cascade;`);
    this.addSql(`drop table if exists "terms_and_conditions" cascade;`);
    this.addSql(`drop table if exists "terms_acceptance" cascade;`);
    this.addSql(`drop table if exists "user_group" cascade;`);
    this.addSql(`drop table if exists "payment_source" cascade;`);
    this.addSql(`drop table if exists "group_membership" cascade;`);
    this.addSql(`drop table if exists "cost_center" cascade;`);
    this.addSql(`drop table if exists "verification" cascade;`);
    this.addSql(`drop table if exists "verification_media" cascade;`);

    this.addSql(`drop index "customer_tenant_id_birth_date_index";`);
    this.addSql(`alter table "customer" drop constraint "customer_tenant_id_phone_number_unique";`);
    this.addSql(`alter table "customer" drop column "password_hash", drop column "email_is_verified", drop column "phone_is_verified", drop column "birth_date", drop column "gender", drop column "street", drop column "house_number", drop column "address_addition", drop column "postcode", drop column "city", drop column "country", drop column "signup_settled", drop column "skip_pre_auth", drop column "payment_state", drop column "license_verification_state", drop column "id_verification_state", drop column "manual_verification_state", drop column "custom_external_verification_state", drop column "external_reference", drop column "tags";`);

  }

}
