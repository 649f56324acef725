import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { UserGroup } from './UserGroup.js';

/** A cost center of a business account; business rentals and bookings are booked on one. */
@Entity({ tableName: 'cost_center' })
@Unique({ properties: ['tenant', 'group', 'code'] })
export class CostCenter extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => UserGroup, ref: false, deleteRule: 'cascade' })
  group!: UserGroup;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
