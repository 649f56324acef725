import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';

/**
 * The sandbox gateway's own book (platform/payment-gateway/sandbox.ts), standing for the card network's
 * side: one row per idempotency key, so a charge or refund retried with its key is performed once. Not
 * tenant-scoped, as an external gateway is not; the adapter writes it with raw SQL.
 */
@Entity({ tableName: 'sandbox_gateway_operation' })
@Unique({ properties: ['idempotencyKey'] })
export class SandboxGatewayOperation {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  /** CHARGE or REFUND. */
  @Property({ type: 'string', length: 16 })
  kind!: string;

  /** The sandbox's id of the charge or refund (`ch_…`, `re_…`). */
  @Property({ type: 'string', length: 64 })
  reference!: string;

  @Property({ type: 'string', length: 200 })
  sourceToken!: string;

  @Property({ type: 'bigint' })
  amountMinor!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  /** PROCESSING while the call runs, then the outcome's status. */
  @Property({ type: 'string', length: 32 })
  status!: string;

  /** The answer given (and given again to a retry with the same key). */
  @Property({ type: 'json', nullable: true })
  outcome?: Record<string, unknown> | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  completedAt?: Date | null;
}
