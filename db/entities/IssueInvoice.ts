import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Invoice } from './Invoice.js';
import { Issue } from './Issue.js';

/**
 * An invoice charged on an issue (the invoice itself is finance's, OPEN → BILLED → paid like any other).
 * An invoice belongs to at most one issue. When it was billed against the issue's deposit, the deposit
 * and the amount it took from it are kept here: what a deposit has left is its amount less these.
 */
@Entity({ tableName: 'issue_invoice' })
@Unique({ properties: ['tenant', 'invoice'] })
@Index({ properties: ['tenant', 'issue'] })
@Index({ properties: ['tenant', 'depositId'] })
export class IssueInvoice extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Issue, ref: false, deleteRule: 'cascade' })
  issue!: Issue;

  @ManyToOne({ entity: () => Invoice, ref: false, deleteRule: 'cascade' })
  invoice!: Invoice;

  /** The deposit the invoice was charged against, and the gross it took from it. */
  @Property({ type: 'integer', nullable: true })
  depositId?: number | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  depositAmount?: string | null;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
