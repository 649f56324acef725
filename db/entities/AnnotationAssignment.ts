import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Annotation } from './Annotation.js';

/** An annotation a customer carries (what the templates' customer gates read). */
@Entity({ tableName: 'annotation_assignment' })
@Unique({ properties: ['tenant', 'customerId', 'annotation'] })
@Index({ properties: ['tenant', 'annotation'] })
export class AnnotationAssignment extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  customerId!: number;

  @ManyToOne({ entity: () => Annotation, ref: false, deleteRule: 'cascade' })
  annotation!: Annotation;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
