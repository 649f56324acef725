import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';

/** An end user who rents vehicles (the spec's "guser"). */
@Entity({ tableName: 'customer' })
@Unique({ properties: ['tenant', 'email'] })
export class Customer extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 320 })
  email!: string;

  @Property({ type: 'string', length: 100 })
  firstName!: string;

  @Property({ type: 'string', length: 100 })
  lastName!: string;

  @Property({ type: 'string', length: 32, nullable: true })
  phoneNumber?: string | null;

  @Property({ type: 'boolean' })
  isBlocked: Opt<boolean> = false;

  @ManyToOne({ entity: () => BusinessUnit, nullable: true, ref: false })
  homeBusinessUnit?: BusinessUnit | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
