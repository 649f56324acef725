import { Migration } from '@mikro-orm/migrations';

export class Migration20261125042741_webhooks_notify extends Migration {

  override name = 'Migration20261125042741_webhooks_notify';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "webhook_outbox_webhook_outbox_notify_fn"() returns trigger as $$ begin perform pg_notify('fleetflow_webhook_outbox', new.tenant_id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "webhook_outbox_notify" AFTER INSERT on "webhook_outbox" for each ROW execute function "webhook_outbox_webhook_outbox_notify_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "webhook_outbox_notify" on "webhook_outbox";`);
    this.addSql(`drop function if exists "webhook_outbox_webhook_outbox_notify_fn"();`);
  }

}
