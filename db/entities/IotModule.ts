import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { iotModuleStates, type IotModuleState } from '../../domain/vehicle.js';
import { TenantScoped } from './TenantScoped.js';

/** An IoT module (telematics box) that can be associated with one vehicle at a time. */
@Entity({ tableName: 'iot_module' })
@Unique({ properties: ['tenant', 'externalId'] })
@Unique({ properties: ['tenant', 'name'] })
@Unique({ properties: ['tenant', 'iccid'] })
@Unique({ properties: ['tenant', 'vehicleId'] })
export class IotModule extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The integration's identifier of the module (e.g. its IMEI). */
  @Property({ type: 'string', length: 100 })
  externalId!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** SIM card identifier. */
  @Property({ type: 'string', length: 32, nullable: true })
  iccid?: string | null;

  @Enum({ items: () => iotModuleStates, type: 'string' })
  state: Opt<IotModuleState> = 'NEW';

  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
