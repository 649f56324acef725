import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  autoRenewalStates,
  switchModes,
  userSubscriptionStates,
  type AutoRenewalState,
  type SwitchMode,
  type UserSubscriptionState,
} from '../../domain/subscription.js';
import { subscriptionIntervals, type SubscriptionInterval } from '../../domain/subscription-calendar.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { Invoice } from './Invoice.js';

/**
 * A customer's subscription to a plan (a voucherable of type Subscription), run by its workflow
 * `subscription:{tenant}:{id}`, which writes every change through the activities: the plan's terms pinned
 * at purchase (and at a switch), the calendar's anchor, the current period and where it ends. One running
 * subscription per customer and plan (SU103).
 */
@Entity({ tableName: 'user_subscription' })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Unique({
  name: 'user_subscription_one_running_per_plan',
  properties: ['tenant', 'customer', 'voucherableId'],
  where: `"state" in ('RENEWING', 'SWITCHING', 'SWITCHED')`,
})
@Index({ properties: ['tenant', 'customer', 'state'] })
@Index({ properties: ['tenant', 'businessUnit', 'state'] })
export class UserSubscription extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, ref: false })
  customer!: Customer;

  /** The branch it was bought for; its business unit bills it (the finance scope). */
  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  /** The plan: a voucherable of type Subscription (the benefits domain's). */
  @Property({ type: 'integer' })
  voucherableId!: number;

  @Enum({ items: () => userSubscriptionStates, type: 'string' })
  state: Opt<UserSubscriptionState> = 'RENEWING';

  @Enum({ items: () => autoRenewalStates, type: 'string' })
  autoRenewal: Opt<AutoRenewalState> = 'ACTIVE';

  /** The plan's terms, pinned when bought or switched to. */
  @Enum({ items: () => subscriptionIntervals, type: 'string' })
  interval!: SubscriptionInterval;

  @Property({ type: 'decimal', columnType: 'numeric' })
  price!: string;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  initialPrice?: string | null;

  @Property({ type: 'integer', nullable: true })
  initialIterations?: number | null;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  /** The calendar's zone: the billing business unit's, pinned at purchase. */
  @Property({ type: 'string', length: 64 })
  timeZoneId!: string;

  /** Start of the calendar: the purchase, or an immediate switch. */
  @Property({ type: 'Date' })
  anchorAt!: Date;

  /** The period number that starts at `anchorAt` (1 at purchase). */
  @Property({ type: 'integer' })
  anchorPeriod: Opt<number> = 1;

  /** The current period: 0 until the purchase is paid. */
  @Property({ type: 'integer' })
  currentPeriod: Opt<number> = 0;

  @Property({ type: 'Date', nullable: true })
  periodStartedAt?: Date | null;

  /** End of the current (paid) period; null until the purchase is paid. */
  @Property({ type: 'Date', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'Date' })
  boughtAt!: Date;

  /** A pending switch: the plan it switches to and how. */
  @Property({ type: 'integer', nullable: true })
  switchingTargetVoucherableId?: number | null;

  @Enum({ items: () => switchModes, type: 'string', nullable: true })
  switchMode?: SwitchMode | null;

  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true })
  latestInvoice?: Invoice | null;

  /** CANCELLED or EXPIRED: when. */
  @Property({ type: 'Date', nullable: true })
  endedAt?: Date | null;

  @Property({ type: 'string', length: 300 })
  workflowId!: string;

  /** Who bought it: `customer:{id}`, or the operator who bought it on the customer's behalf. */
  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  /** The key of the last step the workflow wrote: a retried step (steps run one at a time) writes nothing again. */
  @Property({ type: 'string', length: 300, nullable: true })
  lastStepKey?: string | null;

  /** The purchase request's key: a retried purchase finds the subscription it made. */
  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
