import { Migration } from '@mikro-orm/migrations';

export class Migration20261207040000_invoice_open_rental extends Migration {

  override name = 'Migration20261207040000_invoice_open_rental';

  override up(): void | Promise<void> {
    // The payment starter's sweep: ended rentals' invoices still OPEN, by age (workers/payment-starter.ts).
    this.addSql(`create index "invoice_open_rental" on "invoice" ("created_at") where "state" = 'OPEN' and "rental_id" is not null and "refunded_invoice_id" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "invoice_open_rental";`);
  }

}
