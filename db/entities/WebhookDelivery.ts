import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { WebhookDispatch } from './WebhookDispatch.js';

/**
 * One HTTP attempt of a webhook message: unique per message (outbox row + subscription) and attempt, so
 * a retried activity never records one attempt twice. Listed per subscription.
 */
@Entity({ tableName: 'webhook_delivery' })
@Unique({ properties: ['dispatch', 'attempt'] })
@Index({ properties: ['tenant', 'subscriptionId', 'id'] })
export class WebhookDelivery extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @ManyToOne({ entity: () => WebhookDispatch, ref: false, deleteRule: 'cascade' })
  dispatch!: WebhookDispatch;

  @Property({ type: 'integer' })
  subscriptionId!: number;

  /** x-webhook-dispatch-attempt-count, from 1. */
  @Property({ type: 'integer' })
  attempt!: number;

  @Property({ type: 'boolean' })
  success!: boolean;

  /** The receiver's status code; null when no answer came (network error, timeout, refused target). */
  @Property({ type: 'integer', nullable: true })
  httpStatus?: number | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  error?: string | null;

  /** The first bytes of the receiver's answer. */
  @Property({ type: 'string', length: 1000, nullable: true })
  responseExcerpt?: string | null;

  /** x-webhook-timestamp of the attempt (Unix seconds). */
  @Property({ type: 'bigint' })
  signedAt!: string;

  @Property({ type: 'Date' })
  startedAt!: Date;

  @Property({ type: 'integer' })
  durationMs!: number;

  /** When the next attempt is due after this failure; null after a success or the last attempt. */
  @Property({ type: 'Date', nullable: true })
  nextAttemptAt?: Date | null;

  @Property({ type: 'boolean' })
  manual: Opt<boolean> = false;
}
