import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { serviceVehicleStates, type ServiceVehicleState } from '../../domain/maintenance.js';

/**
 * A crew's own van (not a rental vehicle): what a field route drives with. Scoped to a branch; the licence
 * plate is unique in the tenant, compared without case and spaces (`plateKey`).
 */
@Entity({ tableName: 'service_vehicle' })
@Index({ properties: ['tenant', 'branchId'] })
@Unique({ properties: ['tenant', 'plateKey'] })
export class ServiceVehicle extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  branchId!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 20 })
  licencePlate!: string;

  /** The plate upper-cased without spaces or dashes: what uniqueness compares. */
  @Property({ type: 'string', length: 20 })
  plateKey!: string;

  /** How many vehicles (or battery packs) it carries. */
  @Property({ type: 'integer' })
  capacity!: number;

  @Enum({ items: () => serviceVehicleStates, type: 'string' })
  state: Opt<ServiceVehicleState> = 'ACTIVE';

  @Property({ type: 'double', nullable: true })
  latitude?: number | null;

  @Property({ type: 'double', nullable: true })
  longitude?: number | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
