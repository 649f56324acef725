import { Migration } from '@mikro-orm/migrations';

export class Migration20261125033352_files extends Migration {

  override name = 'Migration20261125033352_files';

  override up(): void | Promise<void> {
    this.addSql(`create table "file" ("id" serial primary key, "tenant_id" varchar(32) not null, "uuid" uuid not null, "branch_id" int null, "customer_id" int null, "uploaded_by" varchar(200) not null, "file_name" varchar(200) not null, "content_type" varchar(200) not null, "size" int not null, "sha256" varchar(64) not null, "object_key" varchar(300) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "file_tenant_id_customer_id_index" on "file" ("tenant_id", "customer_id");`);
    this.addSql(`alter table "file" add constraint "file_object_key_unique" unique ("object_key");`);
    this.addSql(`alter table "file" add constraint "file_uuid_unique" unique ("uuid");`);

    this.addSql(`create table "file_link" ("id" serial primary key, "tenant_id" varchar(32) not null, "file_id" int not null, "entity_type" text not null, "entity_id" varchar(64) not null, "branch_id" int null, "customer_id" int null, "linked_by" varchar(200) not null, "linked_at" timestamptz not null);`);
    this.addSql(`create index "file_link_tenant_id_entity_type_entity_id_index" on "file_link" ("tenant_id", "entity_type", "entity_id");`);
    this.addSql(`alter table "file_link" add constraint "file_link_file_id_entity_type_entity_id_unique" unique ("file_id", "entity_type", "entity_id");`);

    this.addSql(`alter table "file" add constraint "file_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "file_link" add constraint "file_link_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "file_link" add constraint "file_link_file_id_foreign" foreign key ("file_id") references "file" ("id") on delete cascade;`);
    this.addSql(`alter table "file_link" add constraint "file_link_entity_type_check" check ("entity_type" in ('TASK', 'DAMAGE', 'ISSUE', 'COMMENT', 'RENTAL', 'VEHICLE', 'USER'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "file_link" drop constraint "file_link_file_id_foreign";`);

    this.addSql(`drop table if exists "file" cascade;`);
    this.addSql(`drop table if exists "file_link" cascade;`);
  }

}
