import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';

/**
 * The last invoice number given by a business unit in a year. It is incremented in the transaction that
 * inserts the invoice, so numbers are gapless (a rolled-back invoice gives its number back).
 */
@Entity({ tableName: 'invoice_number_sequence' })
@Unique({ properties: ['tenant', 'businessUnit', 'year'] })
export class InvoiceNumberSequence extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => BusinessUnit, ref: false, deleteRule: 'cascade' })
  businessUnit!: BusinessUnit;

  @Property({ type: 'integer' })
  year!: number;

  @Property({ type: 'integer' })
  lastNumber!: number;
}
