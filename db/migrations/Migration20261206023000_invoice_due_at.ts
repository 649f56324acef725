import { Migration } from '@mikro-orm/migrations';

export class Migration20261206023000_invoice_due_at extends Migration {

  override name = 'Migration20261206023000_invoice_due_at';

  override up(): void | Promise<void> {
    // An invoice of a payer invoiced by transfer (paymentState INVOICING) waits for payment until here.
    this.addSql(`alter table "invoice" add column "due_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice" drop column "due_at";`);
  }

}
