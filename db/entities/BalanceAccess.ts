import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Balance } from './Balance.js';
import { Customer } from './Customer.js';

/** A customer the balance's owner shared it with (by the customer's referral code). */
@Entity({ tableName: 'balance_access' })
@Unique({ properties: ['balance', 'customer'] })
export class BalanceAccess extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Balance, ref: false, deleteRule: 'cascade' })
  balance!: Balance;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @Property({ type: 'Date', onCreate: () => new Date() })
  grantedAt: Opt<Date> = new Date();
}
