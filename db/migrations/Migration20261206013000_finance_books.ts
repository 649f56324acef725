import { Migration } from '@mikro-orm/migrations';

export class Migration20261206013000_finance_books extends Migration {

  override name = 'Migration20261206013000_finance_books';

  override up(): void | Promise<void> {
    this.addSql(`alter table "invoice" add column "paid_externally_gross" numeric null, add column "refund_via_gateway" numeric null, add column "refund_to_balance" numeric null, add column "refund_externally" numeric null;`);
    // Invoices set paid externally before: what neither the gateway charged nor a balance paid.
    this.addSql(`update "invoice" i set "paid_externally_gross" = greatest(i."total_gross"
        - coalesce((select sum(p."amount") from "payment" p where p."tenant_id" = i."tenant_id" and p."invoice_id" = i."id" and p."state" in ('PAID', 'DISPUTED') and p."gateway_reference" is not null), 0)
        + coalesce((select sum(b."amount") from "balance_update" b where b."tenant_id" = i."tenant_id" and b."invoice_id" = i."id" and b."kind" = 'INVOICE'), 0), 0)
      where i."state" = 'PAID_EXTERNALLY';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice" drop column "paid_externally_gross", drop column "refund_via_gateway", drop column "refund_to_balance", drop column "refund_externally";`);
  }

}
