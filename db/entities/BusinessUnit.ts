import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** A billable branch: the scope of finance permissions, currency and tax. */
@Entity({ tableName: 'business_unit' })
@Unique({ properties: ['tenant', 'code'] })
export class BusinessUnit extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 64 })
  timeZoneId!: string;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'decimal', precision: 5, scale: 2 })
  taxPercentage!: string;

  @Property({ type: 'integer' })
  scale: Opt<number> = 2;
}
