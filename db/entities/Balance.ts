import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { UserGroup } from './UserGroup.js';

/**
 * A ledger of a customer or a business account at one business unit. Its value is never stored: it is
 * the sum of its `balance_update` rows (negative: owed; positive: credit).
 */
@Entity({ tableName: 'balance' })
@Index({ properties: ['tenant', 'customer'] })
@Index({ properties: ['tenant', 'userGroup'] })
@Index({ properties: ['tenant', 'businessUnit'] })
export class Balance extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  /** The owner: a customer, or (userGroup set) the business account's owner is not stored here. */
  @ManyToOne({ entity: () => Customer, ref: false, nullable: true })
  customer?: Customer | null;

  @ManyToOne({ entity: () => UserGroup, ref: false, nullable: true })
  userGroup?: UserGroup | null;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  /** The owner's default balance at this business unit. */
  @Property({ type: 'boolean' })
  isDefault: Opt<boolean> = false;

  /** Created by the system (first invoice, operator); such balances cannot be deleted by the app (J106). */
  @Property({ type: 'boolean' })
  systemCreated: Opt<boolean> = false;

  @Property({ type: 'Date', nullable: true })
  deletedAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
