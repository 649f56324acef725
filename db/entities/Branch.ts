import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';

export const branchStates = [
  'IN_PREPARATION',
  'OPERATIONAL',
  'MAINTENANCE',
  'HIBERNATION',
  'OUT_OF_BUSINESS',
] as const;
export type BranchState = (typeof branchStates)[number];

/** An operational location; branches form a tree and operational permissions are granted on them. */
@Entity({ tableName: 'branch' })
@Unique({ properties: ['tenant', 'code'] })
export class Branch extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Enum({ items: () => branchStates, type: 'string' })
  state: Opt<BranchState> = 'OPERATIONAL';

  @ManyToOne({ entity: () => Branch, nullable: true, ref: false })
  parent?: Branch | null;

  /** The billable branch behind this one: the scope of finance permissions. */
  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @Property({ type: 'string', length: 32 })
  operationMode: Opt<'ON_DEMAND' | 'BOOKING'> = 'ON_DEMAND';

  @Property({ type: 'string', length: 16 })
  visibility: Opt<'public' | 'private'> = 'public';

  @Property({ type: 'string', length: 64 })
  timeZoneId!: string;
}
