import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { paymentAttemptStates, type PaymentAttemptState } from '../../domain/finance.js';
import { TenantScoped } from './TenantScoped.js';
import { Payment } from './Payment.js';

/**
 * One call of a payment to its gateway. `idempotencyKey` (from the workflow run and the attempt number)
 * is the key the gateway dedupes on, so a retried activity or a replaced worker reaches it once.
 */
@Entity({ tableName: 'payment_attempt' })
@Unique({ properties: ['payment', 'number'] })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
export class PaymentAttempt extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Payment, ref: false, deleteRule: 'cascade' })
  payment!: Payment;

  /** 1 for the first attempt. */
  @Property({ type: 'integer' })
  number!: number;

  @Enum({ items: () => paymentAttemptStates, type: 'string' })
  state: Opt<PaymentAttemptState> = 'PROCESSING';

  /** What started it: FIRST, SCHEDULED (retry schedule), MANUAL (an operator or the customer). */
  @Property({ type: 'string', length: 16 })
  trigger!: 'FIRST' | 'SCHEDULED' | 'MANUAL';

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'string', length: 200, nullable: true })
  gatewayReference?: string | null;

  /** The gateway's decline code (`insufficient_funds`, `stolen_card`, …). */
  @Property({ type: 'string', length: 64, nullable: true })
  declineCode?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  declineMessage?: string | null;

  /** A gateway's Retry-After, which wins over the retry schedule. */
  @Property({ type: 'integer', nullable: true })
  retryAfterSeconds?: number | null;

  @Property({ type: 'Date' })
  startedAt!: Date;

  @Property({ type: 'Date', nullable: true })
  finishedAt?: Date | null;
}
