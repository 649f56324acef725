import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  vehicleActionKinds,
  type VehicleActionKind,
  type VehicleOperationStep,
} from '../../domain/vehicle.js';
import { TenantScoped } from './TenantScoped.js';

/**
 * A configured vehicle operation (action, activity or composite activity): its steps and the roles that
 * may run it. Set up by the platform operator (seed, migration or console), not through the API;
 * categories offer it by listing its id in their `actions` configuration.
 */
@Entity({ tableName: 'vehicle_action' })
@Unique({ properties: ['tenant', 'name'] })
export class VehicleAction extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Enum({ items: () => vehicleActionKinds, type: 'string' })
  kind!: VehicleActionKind;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Property({ type: 'json' })
  steps!: VehicleOperationStep[];

  /** Role names allowed to run it (on the vehicle's branch); empty: every holder of VEHICLE_COMMAND. */
  @Property({ type: 'json' })
  roleNames: Opt<string[]> = [];
}
