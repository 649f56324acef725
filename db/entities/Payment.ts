import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  paymentPurposes,
  paymentStates,
  type PaymentChallenge,
  type PaymentPurpose,
  type PaymentState,
} from '../../domain/finance.js';
import { TenantScoped } from './TenantScoped.js';
import { Balance } from './Balance.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { Invoice } from './Invoice.js';
import { PaymentSource } from './PaymentSource.js';
import { UserGroup } from './UserGroup.js';

/**
 * One collection of money: an invoice or the settlement of a negative balance, charged to one payment
 * source through one gateway in one or more attempts. Its workflow, `payment:{tenant}:{id}`, moves it
 * along `paymentTransitions` (domain/finance.ts); at most one runs per invoice and per balance.
 */
@Entity({ tableName: 'payment' })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Unique({
  name: 'payment_one_running_per_invoice',
  properties: ['tenant', 'invoice'],
  where: `"state" in ('OPEN', 'IN_PAYMENT', 'AWAITING_RETRY', 'PUSH_WAITING_FOR_USER', 'THREE_DS_WAITING_FOR_USER', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED', 'THREE_DS_FAILED')`,
})
@Unique({
  name: 'payment_one_running_per_balance',
  properties: ['tenant', 'balance'],
  where: `"state" in ('OPEN', 'IN_PAYMENT', 'AWAITING_RETRY', 'PUSH_WAITING_FOR_USER', 'THREE_DS_WAITING_FOR_USER', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED', 'THREE_DS_FAILED')`,
})
@Index({ properties: ['tenant', 'businessUnit', 'state'] })
@Index({ properties: ['tenant', 'customer'] })
export class Payment extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Enum({ items: () => paymentPurposes, type: 'string' })
  purpose!: PaymentPurpose;

  @Enum({ items: () => paymentStates, type: 'string' })
  state: Opt<PaymentState> = 'OPEN';

  /** The finance scope: the invoice's or the balance's business unit. */
  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @ManyToOne({ entity: () => Customer, ref: false, nullable: true })
  customer?: Customer | null;

  @ManyToOne({ entity: () => UserGroup, ref: false, nullable: true })
  userGroup?: UserGroup | null;

  /** purpose INVOICE: the invoice collected. */
  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true })
  invoice?: Invoice | null;

  /** purpose BALANCE_SETTLEMENT: the balance settled. */
  @ManyToOne({ entity: () => Balance, ref: false, nullable: true })
  balance?: Balance | null;

  /** The source charged; null when the customer has none (the attempt then declines softly, P104). */
  @ManyToOne({ entity: () => PaymentSource, ref: false, nullable: true, deleteRule: 'set null' })
  paymentSource?: PaymentSource | null;

  /** The adapter that charges it: `sandbox` or `stripe`. */
  @Property({ type: 'string', length: 32 })
  gateway!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  amount!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'integer' })
  attemptCount: Opt<number> = 0;

  /** AWAITING_RETRY: when the next automatic attempt runs. */
  @Property({ type: 'Date', nullable: true })
  nextRetryAt?: Date | null;

  /** PUSH_/THREE_DS_WAITING_FOR_USER: what the customer must complete. */
  @Property({ type: 'json', nullable: true })
  challenge?: PaymentChallenge | null;

  /** The gateway's id of the charge that succeeded. */
  @Property({ type: 'string', length: 200, nullable: true })
  gatewayReference?: string | null;

  @Property({ type: 'string', length: 64, nullable: true })
  failureCode?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  failureMessage?: string | null;

  /** `payment:{tenant}:{id}`. */
  @Property({ type: 'string', length: 200 })
  workflowId!: string;

  /** Who started it: the operator, the customer, or `system` for automatic billing. */
  @Property({ type: 'string', length: 200 })
  requestedBy!: string;

  /** The key of the request or activity that created it: a retried creation finds it. */
  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'Date', nullable: true })
  paidAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
