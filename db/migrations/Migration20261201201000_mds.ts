import { Migration } from '@mikro-orm/migrations';

export class Migration20261201201000_mds extends Migration {

  override name = 'Migration20261201201000_mds';

  override up(): void | Promise<void> {
    this.addSql(`create table "mds_agency" ("id" serial primary key, "tenant_id" varchar(32) not null, "client_id" varchar(100) not null, "name" varchar(200) not null, "secret_hash" varchar(300) not null, "active" boolean not null default true, "created_by" varchar(200) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, "revoked_by" varchar(200) null, "last_token_at" timestamptz null);`);
    this.addSql(`alter table "mds_agency" add constraint "mds_agency_tenant_id_client_id_unique" unique ("tenant_id", "client_id");`);

    this.addSql(`alter table "mds_agency" add constraint "mds_agency_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mds_agency" cascade;`);
  }

}
