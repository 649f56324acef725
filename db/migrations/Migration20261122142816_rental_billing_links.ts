import { Migration } from '@mikro-orm/migrations';

export class Migration20261122142816_rental_billing_links extends Migration {

  override name = 'Migration20261122142816_rental_billing_links';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rental" add "invoice_id" int null, add "deposit_id" int null;`);
    this.addSql(`alter table "rental" add constraint "rental_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete set null;`);
    this.addSql(`alter table "rental" add constraint "rental_deposit_id_foreign" foreign key ("deposit_id") references "deposit" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rental" drop constraint "rental_invoice_id_foreign";`);
    this.addSql(`alter table "rental" drop constraint "rental_deposit_id_foreign";`);

    this.addSql(`alter table "rental" drop column "invoice_id", drop column "deposit_id";`);
  }

}
