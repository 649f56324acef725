import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { UserGroup } from './UserGroup.js';

/** Where a setup stands: waiting for the gateway's confirmation, then saved or refused. */
export const paymentSetupStates = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type PaymentSetupState = (typeof paymentSetupStates)[number];

/**
 * A customer's start of saving a payment method with a gateway (Stripe: a SetupIntent): for the customer
 * or, started by its owner, for a business account (`group`), at a business unit. The gateway's webhook
 * confirming it (SETUP_SUCCEEDED) stores the payment source, whose `setup` is unique: a redelivered or
 * concurrent confirmation stores one source.
 */
@Entity({ tableName: 'payment_setup' })
@Unique({ properties: ['tenant', 'gateway', 'reference'] })
@Index({ properties: ['tenant', 'customer'] })
export class PaymentSetup extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The customer who started it (the account's owner for a business account's). */
  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @ManyToOne({ entity: () => UserGroup, nullable: true, ref: false, deleteRule: 'cascade' })
  group?: UserGroup | null;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  /** The adapter (`sandbox`, `stripe`). */
  @Property({ type: 'string', length: 32 })
  gateway!: string;

  /** The gateway's setup (`seti_…`); null until the gateway answered the creation. */
  @Property({ type: 'string', length: 200, nullable: true })
  reference?: string | null;

  /** The gateway's customer the method is saved for (Stripe `cus_…`), when the gateway keeps customers. */
  @Property({ type: 'string', length: 200, nullable: true })
  gatewayCustomer?: string | null;

  @Property({ type: 'string', length: 16 })
  state: Opt<PaymentSetupState> = 'PENDING';

  /** The catalogue code of a refusal (PGS103, PGS100) and the gateway's own code and words. */
  @Property({ type: 'string', length: 16, nullable: true })
  errorCode?: string | null;

  @Property({ type: 'string', length: 100, nullable: true })
  failureCode?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  failureMessage?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  completedAt?: Date | null;
}
