import { Migration } from '@mikro-orm/migrations';

export class Migration20261206104130_rental_customer_reserved extends Migration {

  override name = 'Migration20261206104130_rental_customer_reserved';

  override up(): void | Promise<void> {
    this.addSql(`create index "rental_customer_reserved" on "rental" ("tenant_id", "customer_id", "reserved_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "rental_customer_reserved";`);
  }

}
