import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** A free-text annotation an operator left on a vehicle. */
@Entity({ tableName: 'vehicle_note' })
@Index({ properties: ['tenant', 'vehicleId'] })
export class VehicleNote extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  vehicleId!: number;

  @Property({ type: 'string', length: 4000 })
  text!: string;

  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
