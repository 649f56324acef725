import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

export const annotationTypes = ['TAG', 'LABEL'] as const;
export type AnnotationType = (typeof annotationTypes)[number];

/**
 * A tag or label of a business unit that customers (and related models such as additions) carry;
 * templates gate on them (required / prohibited annotation ids). Name unique per unit and type.
 */
@Entity({ tableName: 'annotation' })
@Index({
  name: 'annotation_unit_type_name_unique',
  expression:
    'create unique index "annotation_unit_type_name_unique" on "annotation" ("tenant_id", "business_unit_id", "type", lower("name"))',
})
export class Annotation extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  businessUnitId!: number;

  @Enum({ items: () => annotationTypes, type: 'string' })
  type!: AnnotationType;

  @Property({ type: 'string', length: 100 })
  name!: string;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  /** `#rrggbb`. */
  @Property({ type: 'string', length: 7, nullable: true })
  color?: string | null;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
