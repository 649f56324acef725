import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** A verified gateway webhook, kept once per gateway and event id: a redelivery is acknowledged, not applied twice. */
@Entity({ tableName: 'payment_webhook_event' })
@Unique({ properties: ['tenant', 'gateway', 'eventId'] })
export class PaymentWebhookEvent extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 32 })
  gateway!: string;

  @Property({ type: 'string', length: 200 })
  eventId!: string;

  @Property({ type: 'string', length: 100 })
  type!: string;

  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  @Property({ type: 'Date', onCreate: () => new Date() })
  receivedAt: Opt<Date> = new Date();
}
