import { Migration } from '@mikro-orm/migrations';

export class Migration20261125074338_insight_indexes extends Migration {

  override name = 'Migration20261125074338_insight_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "rental_branch_started" on "rental" ("tenant_id", "branch_id", "started_at") where "started_at" is not null;`);
    this.addSql(`create index "rental_branch_ended" on "rental" ("tenant_id", "branch_id", "ended_at") where "ended_at" is not null;`);
    this.addSql(`create index "rental_vehicle_activity" on "rental" ("tenant_id", "vehicle_id", coalesce("ended_at", "started_at")) where "started_at" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "rental_branch_started";`);
    this.addSql(`drop index "rental_branch_ended";`);
    this.addSql(`drop index "rental_vehicle_activity";`);
  }

}
