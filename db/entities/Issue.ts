import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { issueCategories, issueStates, type IssueCategory, type IssueState } from '../../domain/issues.js';

/**
 * A case of the service desk (the spec's Issue): a fine, an accident, a damaged vehicle…, in a state from
 * CREATED to CLOSED, with what it concerns. Linked records are plain id columns like the task's and the
 * damage's, so an issue survives the rows it mentions; damages and tasks point at it (their `issueId`),
 * its invoices are `IssueInvoice` rows and its comments `IssueComment` rows.
 */
@Entity({ tableName: 'issue' })
@Index({ properties: ['tenant', 'branchId', 'state'] })
@Index({ properties: ['tenant', 'vehicleId'] })
@Index({ properties: ['tenant', 'rentalId'] })
@Index({ properties: ['tenant', 'customerId'] })
export class Issue extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The branch the issue is handled by (access is checked on it). */
  @Property({ type: 'integer' })
  branchId!: number;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'string', length: 4000, nullable: true })
  description?: string | null;

  @Enum({ items: () => issueCategories, type: 'string' })
  category!: IssueCategory;

  @Enum({ items: () => issueStates, type: 'string' })
  state: Opt<IssueState> = 'CREATED';

  @Property({ type: 'integer', nullable: true })
  bookingId?: number | null;

  @Property({ type: 'integer', nullable: true })
  rentalId?: number | null;

  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  /** The affected customer (guser): whom the issue's invoices are addressed to. */
  @Property({ type: 'integer', nullable: true })
  customerId?: number | null;

  /** The business account (group) concerned; its invoices are BUSINESS invoices. */
  @Property({ type: 'integer', nullable: true })
  userGroupId?: number | null;

  /** A cost center of that business account. */
  @Property({ type: 'integer', nullable: true })
  costCenterId?: number | null;

  /** The rental's deposit the issue may charge against (see docs/issues.md). */
  @Property({ type: 'integer', nullable: true })
  depositId?: number | null;

  /** Operator or API client subject that created it. */
  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  /** The assignee's user auth id (operator subject) and name as shown. */
  @Property({ type: 'string', length: 200, nullable: true })
  assignedTo?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  assignedToName?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();

  /** When it became CLOSED; cleared when it is reopened. */
  @Property({ type: 'Date', nullable: true })
  closedAt?: Date | null;
}
