import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * One text of the tenant's apps: a translation key in one language (a canonical BCP 47 tag such as `de`
 * or `de-CH`). Apps resolve keys through the fallback chain of the language they ask for
 * (domain/messages.ts); one text per key and language.
 */
@Entity({ tableName: 'localized_message' })
@Unique({ properties: ['tenant', 'key', 'locale'] })
@Index({ properties: ['tenant', 'locale'] })
export class LocalizedMessage extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  key!: string;

  @Property({ type: 'string', length: 35 })
  locale!: string;

  @Property({ type: 'string', length: 4000 })
  text!: string;

  @Property({ type: 'Date' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();

  /** The operator or API client subject that wrote the text last. */
  @Property({ type: 'string', length: 200 })
  updatedBy!: string;
}
