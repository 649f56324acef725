import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';

/**
 * A branch another branch exchanges vehicles or trips with: incoming (trips from `compatible` may end in
 * `branch`) and outgoing (trips from `branch` may end in `compatible`), independently.
 */
@Entity({ tableName: 'compatible_branch' })
@Unique({ properties: ['branch', 'compatible'] })
export class CompatibleBranch extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Branch, ref: false, deleteRule: 'cascade' })
  branch!: Branch;

  @ManyToOne({ entity: () => Branch, ref: false, deleteRule: 'cascade' })
  compatible!: Branch;

  @Property({ type: 'boolean' })
  isIncoming: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  isOutgoing: Opt<boolean> = false;
}
