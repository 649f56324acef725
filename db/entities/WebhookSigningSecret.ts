import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { WebhookSubscription } from './WebhookSubscription.js';

/**
 * The HMAC-SHA1 signing secret of one webhook subscription, kept in its own table (never in a setting, never
 * in an answer but the one that creates or rotates it). HMAC needs the secret itself, so it is stored as
 * issued. After a rotation the previous secret keeps signing beside the new one until `previousUntil`.
 */
@Entity({ tableName: 'webhook_signing_secret' })
@Unique({ properties: ['subscription'] })
export class WebhookSigningSecret extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => WebhookSubscription, ref: false, deleteRule: 'cascade' })
  subscription!: WebhookSubscription;

  @Property({ type: 'string', length: 200 })
  secret!: string;

  @Property({ type: 'string', length: 200, nullable: true })
  previousSecret?: string | null;

  @Property({ type: 'Date', nullable: true })
  previousUntil?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  rotatedAt?: Date | null;
}
