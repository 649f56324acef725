import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { UserGroup } from './UserGroup.js';
import { PaymentSetup } from './PaymentSetup.js';

/**
 * A stored means of payment of a customer or a business account, as the payment provider knows it
 * (`providerReference`); registered with the business unit whose merchant account holds it, which is
 * also the finance scope that may see it. The provider integration itself belongs to finance.
 */
@Entity({ tableName: 'payment_source' })
@Index({ properties: ['tenant', 'customer'] })
@Index({ properties: ['tenant', 'group'] })
@Unique({ properties: ['setup'] })
export class PaymentSource extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, nullable: true, ref: false, deleteRule: 'cascade' })
  customer?: Customer | null;

  @ManyToOne({ entity: () => UserGroup, nullable: true, ref: false, deleteRule: 'cascade' })
  group?: UserGroup | null;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @Property({ type: 'string', length: 16 })
  type!: 'CARD' | 'SEPA' | 'PAYPAL';

  @Property({ type: 'string', length: 64 })
  provider!: string;

  /** The provider's id of the stored method (token), never card or account numbers. */
  @Property({ type: 'string', length: 200 })
  providerReference!: string;

  /** What people see: `Visa •••• 4242`, `DE89 •••• 3000`. */
  @Property({ type: 'string', length: 100 })
  label!: string;

  @Property({ type: 'string', length: 7, nullable: true })
  expiry?: string | null;

  /** The app's setup that stored it (null for sources from elsewhere): one source per setup. */
  @ManyToOne({ entity: () => PaymentSetup, nullable: true, ref: false, deleteRule: 'set null' })
  setup?: PaymentSetup | null;

  @Property({ type: 'boolean' })
  isDefault: Opt<boolean> = false;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
