import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * The organisation's authentication of export webhooks (one row per tenant): when enabled, requests carry
 * x-api-key, webhook-timestamp and webhook-signature. The signing secret (`whsec_` + base64 of 32 bytes)
 * is needed in the clear to sign, so it is stored as issued, in this table only (never in a setting), and
 * shown once, when it is issued.
 */
@Entity({ tableName: 'export_webhook_authentication' })
@Unique({ properties: ['tenant'] })
export class ExportWebhookAuthentication extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'boolean' })
  enabled: Opt<boolean> = false;

  @Property({ type: 'string', length: 200, hidden: true })
  apiKey!: string;

  @Property({ type: 'string', length: 200, hidden: true })
  signingSecret!: string;

  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  secretRotatedAt: Opt<Date> = new Date();

  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  updatedAt: Opt<Date> = new Date();
}
