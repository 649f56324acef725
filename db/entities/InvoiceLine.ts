import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { priceLineGroups, pricePhases, type PriceLineGroup, type PricePhase } from '../../domain/pricing.js';
import { InvoiceLineTemplate } from './InvoiceLineTemplate.js';
import { TenantScoped } from './TenantScoped.js';
import { Invoice } from './Invoice.js';

/** One line item of an invoice, copied from a priceV4 line: net, tax and gross as numerics. */
@Entity({ tableName: 'invoice_line' })
@Unique({ properties: ['invoice', 'position'] })
export class InvoiceLine extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Invoice, ref: false, deleteRule: 'cascade' })
  invoice!: Invoice;

  /** Order of the line within the invoice, from 1. */
  @Property({ type: 'integer' })
  position!: number;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Enum({ items: () => priceLineGroups, type: 'string' })
  group!: PriceLineGroup;

  @Enum({ items: () => pricePhases, type: 'string', nullable: true })
  phase?: PricePhase | null;

  @Property({ type: 'string', length: 500 })
  description!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  quantity!: string;

  @Property({ type: 'string', length: 16 })
  unit!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  unitPrice!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  net!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  tax!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  gross!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  taxPercentage!: string;

  /** The template a manual line was made from. */
  @ManyToOne({ entity: () => InvoiceLineTemplate, ref: false, nullable: true, deleteRule: 'set null' })
  template?: InvoiceLineTemplate | null;

  /** On a refunding invoice: the line of the refunded invoice this line gives money back for. */
  @ManyToOne({ entity: () => InvoiceLine, ref: false, nullable: true })
  refundedLine?: InvoiceLine | null;
}
