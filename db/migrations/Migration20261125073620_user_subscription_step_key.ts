import { Migration } from '@mikro-orm/migrations';

export class Migration20261125073620_user_subscription_step_key extends Migration {

  override name = 'Migration20261125073620_user_subscription_step_key';

  override up(): void | Promise<void> {
    this.addSql(`alter table "user_subscription" add "last_step_key" varchar(300) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "user_subscription" drop column "last_step_key";`);
  }

}
