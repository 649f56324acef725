import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Customer } from './Customer.js';
import { TermsAndConditions } from './TermsAndConditions.js';

/** A customer accepted one version of terms (by themselves in the app, or recorded by an operator). */
@Entity({ tableName: 'terms_acceptance' })
@Unique({ properties: ['tenant', 'customer', 'terms'] })
export class TermsAcceptance extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @ManyToOne({ entity: () => TermsAndConditions, ref: false, deleteRule: 'cascade' })
  terms!: TermsAndConditions;

  /** `customer:{id}` or the operator's subject. */
  @Property({ type: 'string', length: 200 })
  acceptedBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  acceptedAt: Opt<Date> = new Date();
}
