import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Event } from './Event.js';

/**
 * The idempotency key of a keyed event (an activity's), unique per tenant: a partitioned table's unique
 * constraints must include its partition key, so the key's uniqueness lives here, written with the event
 * (db/events.ts), so a retried activity records its event once.
 */
@Entity({ tableName: 'event_key' })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
export class EventKey extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  /**
   * The event (its primary key is (id, created_at)). No foreign key constraint: moving events out of the
   * default partition, or dropping an old partition, must not cascade into their keys.
   */
  @ManyToOne({
    entity: () => Event,
    ref: false,
    joinColumns: ['event_id', 'event_created_at'],
    createForeignKeyConstraint: false,
  })
  event!: Event;
}
