import { Migration } from '@mikro-orm/migrations';

export class Migration20261125062328_messages extends Migration {

  override name = 'Migration20261125062328_messages';

  override up(): void | Promise<void> {
    this.addSql(`create table "localized_message" ("id" serial primary key, "tenant_id" varchar(32) not null, "key" varchar(200) not null, "locale" varchar(35) not null, "text" varchar(4000) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "updated_by" varchar(200) not null);`);
    this.addSql(`create index "localized_message_tenant_id_locale_index" on "localized_message" ("tenant_id", "locale");`);
    this.addSql(`alter table "localized_message" add constraint "localized_message_tenant_id_key_locale_unique" unique ("tenant_id", "key", "locale");`);

    this.addSql(`alter table "localized_message" add constraint "localized_message_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "localized_message" cascade;`);
  }

}
