import { Migration } from '@mikro-orm/migrations';

export class Migration20261122133618_rentals extends Migration {

  override name = 'Migration20261122133618_rentals';

  override up(): void | Promise<void> {
    this.addSql(`alter table "vehicle" add "sensors" jsonb not null default '{}';`);

    this.addSql(`alter table "rental" add "end_branch_id" int null, add "pricing_bundle_version_id" int null, add "phases" jsonb not null default '[]', add "paid_reservation_minutes" int not null default 0, add "price" jsonb null, add "price_v3" jsonb null, add "price_v4" jsonb null, add "user_group_id" int null, add "cost_center_id" int null, add "reason" varchar(500) null, add "start_vehicle_sensors" jsonb null, add "overridden_end_requirements" jsonb null, add "cleanliness_rating" smallint null, add "cleanliness_comment" varchar(1000) null, add "annotations" jsonb not null default '[]';`);
    this.addSql(`alter table "rental" add constraint "rental_end_branch_id_foreign" foreign key ("end_branch_id") references "branch" ("id") on delete set null;`);
    this.addSql(`alter table "rental" add constraint "rental_pricing_bundle_version_id_foreign" foreign key ("pricing_bundle_version_id") references "pricing_bundle_version" ("id") on delete set null;`);
    this.addSql(`alter table "rental" add constraint "rental_user_group_id_foreign" foreign key ("user_group_id") references "user_group" ("id") on delete set null;`);
    this.addSql(`alter table "rental" add constraint "rental_cost_center_id_foreign" foreign key ("cost_center_id") references "cost_center" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rental" drop constraint "rental_end_branch_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_pricing_bundle_version_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_user_group_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_cost_center_id_foreign";`);

    this.addSql(`alter table "rental" drop column "end_branch_id", drop column "pricing_bundle_version_id", drop column "phases", drop column "paid_reservation_minutes", drop column "price", drop column "price_v3", drop column "price_v4", drop column "user_group_id", drop column "cost_center_id", drop column "reason", drop column "start_vehicle_sensors", drop column "overridden_end_requirements", drop column "cleanliness_rating", drop column "cleanliness_comment", drop column "annotations";`);

    this.addSql(`alter table "vehicle" drop column "sensors";`);
  }

}
