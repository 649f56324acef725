import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';

/** A reusable line item (cleaning fee, lost key, …) of a business unit: exactly one of net or gross. */
@Entity({ tableName: 'invoice_line_template' })
@Index({ properties: ['tenant', 'businessUnit'] })
export class InvoiceLineTemplate extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'string', length: 500 })
  description!: string;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  net?: string | null;

  @Property({ type: 'decimal', columnType: 'numeric', nullable: true })
  gross?: string | null;

  @Property({ type: 'boolean' })
  enabled: Opt<boolean> = true;
}
