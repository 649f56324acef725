import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  subscriptionChargeKinds,
  subscriptionChargeStates,
  type SubscriptionChargeKind,
  type SubscriptionChargeState,
} from '../../domain/subscription.js';
import { TenantScoped } from './TenantScoped.js';
import { Invoice } from './Invoice.js';
import { Payment } from './Payment.js';
import { UserSubscription } from './UserSubscription.js';

/**
 * One charge of a user subscription for one period (the purchase, a renewal, an immediate switch): its
 * invoice and payment, what came of it, and the vouchers its period granted. Written once per step of the
 * workflow (unique on the step's key), so a retried activity or a replaced worker charges once.
 */
@Entity({ tableName: 'user_subscription_period' })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Index({ properties: ['tenant', 'userSubscription', 'number'] })
export class UserSubscriptionPeriod extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => UserSubscription, ref: false })
  userSubscription!: UserSubscription;

  /** The period the charge pays for. */
  @Property({ type: 'integer' })
  number!: number;

  @Enum({ items: () => subscriptionChargeKinds, type: 'string' })
  kind!: SubscriptionChargeKind;

  /** The plan the period is of. */
  @Property({ type: 'integer' })
  voucherableId!: number;

  @Property({ type: 'Date' })
  startsAt!: Date;

  @Property({ type: 'Date' })
  endsAt!: Date;

  /** Gross charged, decimal string (0: no invoice). */
  @Property({ type: 'decimal', columnType: 'numeric' })
  price!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Enum({ items: () => subscriptionChargeStates, type: 'string' })
  state: Opt<SubscriptionChargeState> = 'CHARGING';

  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true })
  invoice?: Invoice | null;

  /** The payment collecting the invoice (null: free, or paid by the balance's credit). */
  @ManyToOne({ entity: () => Payment, ref: false, nullable: true })
  payment?: Payment | null;

  /** When the period's vouchers were granted, and their ids. */
  @Property({ type: 'Date', nullable: true })
  grantedAt?: Date | null;

  @Property({ type: 'json', nullable: true })
  voucherIds?: number[] | null;

  /** The workflow step's key (workflow id, period, kind). */
  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
