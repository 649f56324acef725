import { Migration } from '@mikro-orm/migrations';

/** Trigram indexes for the operators' customer search (`searchText`: ILIKE prefixes of names, e-mail, phone). */
export class Migration20261122121500_customer_search extends Migration {

  override name = 'Migration20261122121500_customer_search';

  override up(): void | Promise<void> {
    // pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
    this.addSql(`create extension if not exists pg_trgm;`);
    for (const column of ['first_name', 'last_name', 'email', 'phone_number'])
      this.addSql(`create index "customer_${column}_trgm" on "customer" using gin ("${column}" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    for (const column of ['first_name', 'last_name', 'email', 'phone_number'])
      this.addSql(`drop index if exists "customer_${column}_trgm";`);
  }

}
