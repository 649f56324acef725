import { Migration } from '@mikro-orm/migrations';

export class Migration20261206030000_rate_limit_counts extends Migration {

  override name = 'Migration20261206030000_rate_limit_counts';

  override up(): void | Promise<void> {
    this.addSql(`create table "rate_limit_count" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, primary key ("key"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_count" cascade;`);
  }

}
