import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Customer } from './Customer.js';
import { UserGroup } from './UserGroup.js';
import type { MembershipState } from '../../domain/customer.js';

/**
 * A customer's membership of a business account, or their request to join (PENDING). A customer belongs
 * to one group only: the unique index on (tenant, customer) makes that hold under concurrency too.
 */
@Entity({ tableName: 'group_membership' })
@Unique({ properties: ['tenant', 'customer'] })
@Index({ properties: ['tenant', 'group', 'state'] })
export class GroupMembership extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => UserGroup, ref: false, deleteRule: 'cascade' })
  group!: UserGroup;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @Property({ type: 'string', length: 16 })
  state!: MembershipState;

  /** Cost center the member's business trips go to by default. */
  @Property({ type: 'integer', nullable: true })
  costCenterId?: number | null;

  @Property({ type: 'boolean' })
  canManage: Opt<boolean> = false;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
