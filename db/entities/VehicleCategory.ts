import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import type { VehicleCategoryConfiguration } from '../../domain/vehicle.js';
import { TenantScoped } from './TenantScoped.js';

/** A kind of vehicle (e.g. e-scooter, compact car) whose configuration drives rules and allowed operations. */
@Entity({ tableName: 'vehicle_category' })
@Unique({ properties: ['tenant', 'name'] })
export class VehicleCategory extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** Configuration is inherited from the parent; the child's own keys win. */
  @ManyToOne({ entity: () => VehicleCategory, nullable: true, ref: false })
  parent?: VehicleCategory | null;

  @Property({ type: 'boolean' })
  bookable: Opt<boolean> = true;

  @Property({ type: 'json' })
  configuration: Opt<VehicleCategoryConfiguration> = {};

  /** Free-form properties shown to the app and to the operator dashboard (not interpreted). */
  @Property({ type: 'json', defaultRaw: `'{}'` })
  appProperties: Opt<Record<string, unknown>> = {};

  @Property({ type: 'json', defaultRaw: `'{}'` })
  dashboardProperties: Opt<Record<string, unknown>> = {};
}
