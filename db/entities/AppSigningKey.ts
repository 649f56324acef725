import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * The request-signing secret of one app (named by its API client id). HMAC verification needs the
 * secret itself, so it is stored as issued (like a webhook signing secret); rotate by adding a row.
 */
@Entity({ tableName: 'app_signing_key' })
@Unique({ properties: ['tenant', 'appId'] })
export class AppSigningKey extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100 })
  appId!: string;

  /** base64 of at least 32 random bytes. */
  @Property({ type: 'string', length: 200, hidden: true })
  secret!: string;

  @Property({ type: 'boolean' })
  active: Opt<boolean> = true;

  /** When the current secret was issued (creation or the last rotation). */
  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  rotatedAt: Opt<Date> = new Date();
}
