import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** A named bundle of permissions, granted through role assignments. */
@Entity({ tableName: 'role' })
@Unique({ properties: ['tenant', 'name'] })
export class Role extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100 })
  name!: string;

  @Property({ type: 'json' })
  permissions: Opt<string[]> = [];
}
