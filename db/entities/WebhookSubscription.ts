import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * An operator's subscription to platform webhooks (docs/webhooks.md): where to POST, which event types,
 * optionally only events of one branch and its descendants. Its signing secret lives in
 * `webhook_signing_secret`, never here; each subscription has a dispatcher workflow
 * (`webhook-dispatch:{tenant}:{id}`) while it is active.
 */
@Entity({ tableName: 'webhook_subscription' })
@Index({ properties: ['tenant', 'active'] })
export class WebhookSubscription extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** Absolute http(s) URL the messages are POSTed to. */
  @Property({ type: 'string', length: 2000 })
  url!: string;

  /** Event types it receives (domain/webhooks.ts `webhookEventTypes`). */
  @Property({ type: 'json' })
  eventTypes!: string[];

  /** Only events of this branch and its descendants; null: every branch of the tenant. */
  @Property({ type: 'integer', nullable: true })
  branchId?: number | null;

  @Property({ type: 'boolean' })
  active: Opt<boolean> = true;

  @Property({ type: 'string', length: 500, nullable: true })
  description?: string | null;

  /** The operator or API client that created it. */
  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  /** Events recorded before this instant are never sent to it. */
  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
