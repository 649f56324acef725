import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Customer } from './Customer.js';
import { Branch } from './Branch.js';

/**
 * A customer's rental authority on a branch: where the RENTAL_AUTHORITY start requirement is
 * configured, only holders may rent there (a grant on a parent branch covers its children).
 */
@Entity({ tableName: 'rental_authority' })
@Unique({ properties: ['tenant', 'customer', 'branch'] })
@Index({ properties: ['tenant', 'branch'] })
export class RentalAuthority extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @ManyToOne({ entity: () => Branch, ref: false, deleteRule: 'cascade' })
  branch!: Branch;

  /** Subject of the operator or API client that granted it. */
  @Property({ type: 'string', length: 200 })
  grantedBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  grantedAt: Opt<Date> = new Date();
}
