import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/es';

/**
 * One caller's count in one rate-limit window (api/kernel/rate-limits.ts), shared by every API process so
 * a limit holds across replicas. The table is rate-limiter-flexible's PostgreSQL store, written only by it
 * with its own upsert; the key names the class, the limit, the tenant and the caller, so the table is not
 * tenant-scoped.
 */
@Entity({ tableName: 'rate_limit_count' })
export class RateLimitCount {
  /** `<class>:<points>:<seconds>:<tenant>/<subject>`. */
  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  /** Requests counted in the window. */
  @Property({ type: 'integer', default: 0 })
  points!: number;

  /** When the window ends, in milliseconds since the epoch. */
  @Property({ type: 'bigint', nullable: true })
  expire?: string | null;
}
