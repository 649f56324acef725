import { Migration } from '@mikro-orm/migrations';

export class Migration20261201194500_feeds_gbfs extends Migration {

  override name = 'Migration20261201194500_feeds_gbfs';

  override up(): void | Promise<void> {
    this.addSql(`create table "feed_vehicle_type" ("id" serial primary key, "tenant_id" varchar(32) not null, "category_id" int not null, "form_factor" varchar(32) not null, "propulsion_type" varchar(32) not null, "battery_model" varchar(200) null, "max_range_meters" int null, "rider_capacity" int null, "make" varchar(200) null, "model" varchar(200) null, "wheel_count" int null, "max_permitted_speed_kmh" int null);`);
    this.addSql(`alter table "feed_vehicle_type" add constraint "feed_vehicle_type_tenant_id_category_id_unique" unique ("tenant_id", "category_id");`);

    this.addSql(`create table "feed_vehicle_id" ("id" bigserial primary key, "tenant_id" varchar(32) not null, "vehicle_id" int not null, "public_id" uuid not null, "trip_mark" timestamptz null, "rotated_at" timestamptz not null);`);
    this.addSql(`alter table "feed_vehicle_id" add constraint "feed_vehicle_id_public_id_unique" unique ("public_id");`);
    this.addSql(`alter table "feed_vehicle_id" add constraint "feed_vehicle_id_tenant_id_vehicle_id_unique" unique ("tenant_id", "vehicle_id");`);

    this.addSql(`alter table "feed_vehicle_type" add constraint "feed_vehicle_type_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "feed_vehicle_type" add constraint "feed_vehicle_type_category_id_foreign" foreign key ("category_id") references "vehicle_category" ("id") on delete cascade;`);

    this.addSql(`alter table "feed_vehicle_id" add constraint "feed_vehicle_id_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "feed_vehicle_type" cascade;`);
    this.addSql(`drop table if exists "feed_vehicle_id" cascade;`);
  }

}
