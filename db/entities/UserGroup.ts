import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Customer } from './Customer.js';
import type { BillingCycle } from '../../domain/customer.js';

/** A business account (the spec's user group, the only kind): an owner, members and cost centers. */
@Entity({ tableName: 'user_group' })
@Unique({ properties: ['tenant', 'code'] })
export class UserGroup extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The code members join with (`POST /front/groups/{groupCode}/join`). */
  @Property({ type: 'string', length: 32 })
  code!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** The branch the account is managed in: operator permissions are checked on it. */
  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @ManyToOne({ entity: () => Customer, nullable: true, ref: false })
  owner?: Customer | null;

  @Property({ type: 'string', length: 32 })
  billingCycle!: BillingCycle;

  @Property({ type: 'boolean' })
  useReceiptInsteadOfInvoice: Opt<boolean> = false;

  @Property({ type: 'string', length: 16 })
  paymentState: Opt<'NONE' | 'SOURCE_ADDED' | 'INVOICING'> = 'NONE';

  /** Set after the cost center exists (`cost_center.group_id` points back here). */
  @Property({ type: 'integer', nullable: true })
  defaultCostCenterId?: number | null;

  @ManyToOne({ entity: () => BusinessUnit, nullable: true, ref: false })
  defaultBusinessUnit?: BusinessUnit | null;

  @Property({ type: 'boolean' })
  checkRentalRequirements: Opt<boolean> = true;

  @Property({ type: 'boolean' })
  requireDrivingLog: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  shouldIgnoreBCategoryRentalRequirement: Opt<boolean> = false;

  /** Members' business rentals start without a payment pre-authorization (the spec's skipPreAuth). */
  @Property({ type: 'boolean', default: false })
  skipPreAuth: Opt<boolean> = false;

  /** Joining by code creates a request the owner approves (true) or a membership at once (false). */
  @Property({ type: 'boolean' })
  joinRequiresApproval: Opt<boolean> = false;

  @Property({ type: 'integer' })
  maxMembers!: number;

  @Property({ type: 'string', length: 200, nullable: true })
  street?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  houseNumber?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  addressAddition?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  postcode?: string | null;

  @Property({ type: 'string', length: 100, nullable: true })
  city?: string | null;

  @Property({ type: 'string', length: 2, nullable: true })
  country?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
