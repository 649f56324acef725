import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import type { SettingArea } from '../../domain/settings.js';
import { TenantScoped } from './TenantScoped.js';

export type { SettingArea };

/**
 * A configuration value for some branches; branch id 0 marks the tenant-wide fallback.
 * The effective value for a branch is the first row found for the branch, then its ancestors, then 0.
 */
@Entity({ tableName: 'setting' })
@Index({ properties: ['tenant', 'key'] })
export class Setting extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  key!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 16 })
  area!: SettingArea;

  @Property({ type: 'string', length: 100 })
  valueType!: string;

  @Property({ type: 'json' })
  branchIds: Opt<number[]> = [0];

  @Property({ type: 'json' })
  value!: Record<string, unknown>;

  @Property({ type: 'boolean' })
  publicVisible: Opt<boolean> = false;
}
