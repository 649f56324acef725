import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Customer } from './Customer.js';
import type { VerificationKind, VerificationState } from '../../domain/customer.js';

/**
 * One verification attempt of a customer (licence, ID document, manual, custom external). Its state
 * uses the spec's set for its kind; the customer's `…VerificationState` follows the newest attempt.
 */
@Entity({ tableName: 'verification' })
@Unique({ properties: ['attemptUuid'] })
@Index({ properties: ['tenant', 'customer', 'kind'] })
@Index({ properties: ['tenant', 'state', 'createdAt'] })
export class Verification extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'uuid' })
  attemptUuid!: string;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @Property({ type: 'string', length: 32 })
  kind!: VerificationKind;

  @Property({ type: 'string', length: 32 })
  state!: VerificationState;

  /** `operator` for manual review, otherwise the provider adapter that decided. */
  @Property({ type: 'string', length: 64 })
  provider!: string;

  @Property({ type: 'string', length: 1000, nullable: true })
  reason?: string | null;

  /** Subject of the operator who decided a manual attempt. */
  @Property({ type: 'string', length: 200, nullable: true })
  decidedBy?: string | null;

  @Property({ type: 'Date', nullable: true })
  decidedAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
