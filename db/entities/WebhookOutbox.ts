import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Event } from './Event.js';

/**
 * The transactional outbox of platform webhooks: one row per event of a webhook type
 * (domain/webhooks.ts), written by `db/events.ts` in the same transaction as the event, so an event
 * exists exactly when its outbox row does. A dispatcher fans it out to the matching subscriptions
 * (`webhook_dispatch`) and sets `fannedOutAt`.
 */
@Entity({
  tableName: 'webhook_outbox',
  // Wakes the dispatchers when the row's transaction commits (NOTIFY is delivered only on commit; one
  // notification per tenant and transaction, PostgreSQL folds repeats): workers/webhook-dispatch-starter.ts.
  triggers: [
    {
      name: 'webhook_outbox_notify',
      timing: 'after',
      events: ['insert'],
      forEach: 'row',
      body: `perform pg_notify('fleetflow_webhook_outbox', new.tenant_id); return null`,
    },
  ],
})
@Unique({ properties: ['event'] })
@Index({ name: 'webhook_outbox_pending', properties: ['tenant', 'id'], where: `"fanned_out_at" is null` })
export class WebhookOutbox extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  /**
   * The event; its primary key is (id, created_at), as the event table is partitioned by month
   * (docs/events.md). No foreign key constraint: moving events out of the default partition, or dropping
   * an old partition, must not cascade into the outbox; db/events.ts writes both in one statement.
   */
  @ManyToOne({
    entity: () => Event,
    ref: false,
    joinColumns: ['event_id', 'event_created_at'],
    createForeignKeyConstraint: false,
  })
  event!: Event;

  @Property({ type: 'string', length: 100 })
  eventType!: string;

  /** The entity its deliveries are ordered by (`webhookEntityOf`): `RENTAL:42`, `VEHICLE:7` … */
  @Property({ type: 'string', length: 60 })
  entityKey!: string;

  @Property({ type: 'integer', nullable: true })
  branchId?: number | null;

  /** The event's time (subscriptions created after it never get it). */
  @Property({ type: 'Date' })
  occurredAt!: Date;

  @Property({ type: 'Date', nullable: true })
  fannedOutAt?: Date | null;
}
