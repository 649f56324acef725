import { Migration } from '@mikro-orm/migrations';

export class Migration20261122165215_signing_key_rotation extends Migration {

  override name = 'Migration20261122165215_signing_key_rotation';

  override up(): void | Promise<void> {
    this.addSql(`alter table "app_signing_key" add "rotated_at" timestamptz not null default current_timestamp;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "app_signing_key" drop column "rotated_at";`);
  }

}
