import { Migration } from '@mikro-orm/migrations';

export class Migration20261122164234_damages extends Migration {

  override name = 'Migration20261122164234_damages';

  override up(): void | Promise<void> {
    this.addSql(`create table "damage" ("id" serial primary key, "tenant_id" varchar(32) not null, "vehicle_id" int not null, "branch_id" int not null, "part" varchar(100) not null, "location" text null, "severity" text null, "state" text not null default 'NEW', "description" varchar(4000) null, "vehicle_position" jsonb null, "user_position" jsonb null, "rental_id" int null, "current_rental_id" int null, "previous_rental_id" int null, "caused_by_customer_id" int null, "reported_by" varchar(200) not null, "repair_code" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "resolved_at" timestamptz null);`);
    this.addSql(`create index "damage_tenant_id_branch_id_state_index" on "damage" ("tenant_id", "branch_id", "state");`);
    this.addSql(`create index "damage_tenant_id_vehicle_id_state_index" on "damage" ("tenant_id", "vehicle_id", "state");`);

    this.addSql(`alter table "damage" add constraint "damage_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "damage" add constraint "damage_location_check" check ("location" in ('FRONT', 'REAR', 'LEFT', 'RIGHT', 'TOP', 'UNDERSIDE', 'INTERIOR', 'OTHER'));`);
    this.addSql(`alter table "damage" add constraint "damage_severity_check" check ("severity" in ('MINOR', 'MEDIUM', 'HIGH', 'CRITICAL'));`);
    this.addSql(`alter table "damage" add constraint "damage_state_check" check ("state" in ('NEW', 'APPROVED', 'UNDER_REPAIR', 'REPAIRED', 'IGNORED'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "damage" cascade;`);
  }

}
