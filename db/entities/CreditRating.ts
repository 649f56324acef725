import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Customer } from './Customer.js';

/** One credit check of a customer by the tenant's credit provider; the newest gives the customer's creditStatus. */
@Entity({ tableName: 'credit_rating' })
@Index({ properties: ['tenant', 'customer', 'checkedAt'] })
export class CreditRating extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @Property({ type: 'string', length: 64 })
  provider!: string;

  @Property({ type: 'string', length: 16 })
  status!: 'GOOD' | 'MEDIUM' | 'BAD' | 'UNKNOWN';

  /** Provider score, when it gives one. */
  @Property({ type: 'integer', nullable: true })
  score?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  providerReference?: string | null;

  @Property({ type: 'Date' })
  checkedAt!: Date;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
