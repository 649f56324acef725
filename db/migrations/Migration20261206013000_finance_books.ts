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
    // Refunding invoices written before: the balance part is their REFUND row, the rest went back through
    // the gateway, or outside fleetflow when the original was paid externally.
    this.addSql(`update "invoice" r set
        "refund_to_balance" = coalesce((select sum(b."amount") from "balance_update" b where b."tenant_id" = r."tenant_id" and b."idempotency_key" = 'refund:' || r."id" || ':balance'), 0)
      where r."refunded_invoice_id" is not null and r."refund_to_balance" is null;`);
    this.addSql(`update "invoice" r set
        "refund_via_gateway" = case when o."paid_externally_gross" is null then -r."total_gross" - r."refund_to_balance" else 0 end,
        "refund_externally" = case when o."paid_externally_gross" is null then 0 else -r."total_gross" - r."refund_to_balance" end
      from "invoice" o
      where o."id" = r."refunded_invoice_id" and o."tenant_id" = r."tenant_id" and r."refund_via_gateway" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice" drop column "paid_externally_gross", drop column "refund_via_gateway", drop column "refund_to_balance", drop column "refund_externally";`);
  }

}
