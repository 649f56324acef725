import { Migration } from '@mikro-orm/migrations';

/** A template's redemptions per customer across all its codes (issue 33): once unless it says otherwise. */
export class Migration20261206024000_voucherable_redeems_per_customer extends Migration {

  override name = 'Migration20261206024000_voucherable_redeems_per_customer';

  override up(): void | Promise<void> {
    this.addSql(`alter table "voucherable" add column "max_redeems_per_customer" int null default 1;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "voucherable" drop column "max_redeems_per_customer";`);
  }

}
