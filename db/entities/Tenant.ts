import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/es';

/** A customer organisation of the platform; every other row belongs to exactly one tenant. */
@Entity({ tableName: 'tenant' })
export class Tenant {
  /** The tenant identifier used in URLs (`/v1/{tenant}/...`). */
  @PrimaryKey({ type: 'string', length: 32 })
  id!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
