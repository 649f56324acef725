import { Migration } from '@mikro-orm/migrations';

export class Migration20261201203000_surcharge_price_lines extends Migration {

  override name = 'Migration20261201203000_surcharge_price_lines';

  override up(): void | Promise<void> {
    this.addSql(`alter table "invoice_line" drop constraint if exists "invoice_line_group_check";`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_group_check" check ("group" in ('RESERVATION', 'TIME', 'UNLOCK', 'DISTANCE', 'ADDITION', 'PENALTY', 'ADJUSTMENT', 'SURCHARGE', 'BENEFIT'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice_line" drop constraint if exists "invoice_line_group_check";`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_group_check" check ("group" in ('RESERVATION', 'TIME', 'UNLOCK', 'DISTANCE', 'ADDITION', 'PENALTY', 'ADJUSTMENT', 'BENEFIT'));`);
  }

}
