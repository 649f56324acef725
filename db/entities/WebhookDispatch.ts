import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { WebhookOutbox } from './WebhookOutbox.js';
import { WebhookSubscription } from './WebhookSubscription.js';

export const webhookDispatchStates = ['PENDING', 'DELIVERED', 'FAILED'] as const;
/** PENDING until a 2xx answer (DELIVERED) or the last attempt failed (FAILED: given up). */
export type WebhookDispatchState = (typeof webhookDispatchStates)[number];

/**
 * One event's message to one subscription: its stable x-webhook-id, how many attempts it had and when the
 * next is due. Of one subscription's PENDING messages of one entity only the oldest is attempted.
 */
@Entity({ tableName: 'webhook_dispatch' })
@Unique({ properties: ['outbox', 'subscription'] })
@Index({
  name: 'webhook_dispatch_pending',
  properties: ['subscription', 'entityKey', 'outbox'],
  where: `"state" = 'PENDING'`,
})
export class WebhookDispatch extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @ManyToOne({ entity: () => WebhookOutbox, ref: false, deleteRule: 'cascade' })
  outbox!: WebhookOutbox;

  @ManyToOne({ entity: () => WebhookSubscription, ref: false, deleteRule: 'cascade' })
  subscription!: WebhookSubscription;

  /** x-webhook-id: the same on every attempt (`webhookMessageId`). */
  @Property({ type: 'string', length: 100 })
  webhookId!: string;

  @Property({ type: 'string', length: 60 })
  entityKey!: string;

  @Enum({ items: () => webhookDispatchStates, type: 'string' })
  state: Opt<WebhookDispatchState> = 'PENDING';

  /** Attempts made so far (x-webhook-dispatch-attempt-count of the last one). */
  @Property({ type: 'integer' })
  attempts: Opt<number> = 0;

  /** Failed attempts since the last manual redelivery: what the retry schedule counts. */
  @Property({ type: 'integer' })
  failuresSinceRedelivery: Opt<number> = 0;

  @Property({ type: 'Date' })
  nextAttemptAt!: Date;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  finishedAt?: Date | null;
}
