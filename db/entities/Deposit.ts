import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  depositAuthorizationStates,
  depositStates,
  type DepositAuthorizationState,
  type DepositState,
} from '../../domain/rental-pricing.js';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import { Rental } from './Rental.js';
import { UserGroup } from './UserGroup.js';
import { CostCenter } from './CostCenter.js';

/**
 * The deposit of a rental, held at START when the branch's `rental.deposit` setting asks for one and
 * released by an operator. `authorizationState` says whether a payment provider reserved the money
 * (NOT_REQUESTED until the finance issue connects one).
 */
@Entity({ tableName: 'deposit' })
@Unique({ properties: ['tenant', 'rental'] })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Index({ properties: ['tenant', 'businessUnit', 'state'] })
export class Deposit extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Rental, ref: false })
  rental!: Rental;

  @ManyToOne({ entity: () => Customer, ref: false })
  customer!: Customer;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @ManyToOne({ entity: () => UserGroup, ref: false, nullable: true })
  userGroup?: UserGroup | null;

  @ManyToOne({ entity: () => CostCenter, ref: false, nullable: true })
  costCenter?: CostCenter | null;

  @Property({ type: 'decimal', columnType: 'numeric' })
  amount!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Enum({ items: () => depositStates, type: 'string' })
  state: Opt<DepositState> = 'ACTIVE';

  @Enum({ items: () => depositAuthorizationStates, type: 'string' })
  authorizationState: Opt<DepositAuthorizationState> = 'NOT_REQUESTED';

  /** The payment provider's authorisation reference; null while no provider is connected. */
  @Property({ type: 'string', length: 200, nullable: true })
  providerReference?: string | null;

  @Property({ type: 'Date' })
  heldAt!: Date;

  @Property({ type: 'Date', nullable: true })
  releasedAt?: Date | null;

  /** Operator or API client that released it. */
  @Property({ type: 'string', length: 200, nullable: true })
  releasedBy?: string | null;

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
