import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Voucherable } from './Voucherable.js';

/**
 * A reward of a branch (e.g. for ending a rental at a promotion station): a code a customer claims once
 * (RW101), granting its template (type Reward) whose one benefit is a rental rebate or a value (RW102,
 * RW103). The code is unique in the tenant regardless of case (RW100).
 */
@Entity({ tableName: 'reward' })
@Index({ properties: ['tenant', 'branchId'] })
@Index({
  name: 'reward_tenant_code_unique',
  expression: 'create unique index "reward_tenant_code_unique" on "reward" ("tenant_id", lower("code"))',
})
export class Reward extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  branchId!: number;

  @Property({ type: 'integer' })
  businessUnitId!: number;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @ManyToOne({ entity: () => Voucherable, ref: false })
  voucherable!: Voucherable;

  @Property({ type: 'Date', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
