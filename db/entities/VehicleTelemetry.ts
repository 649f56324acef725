import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * One telemetry message as a vehicle sent it: the history behind GET /vehicles/{id}/telemetry. Written in
 * batches by the telemetry ingestor (`insert … select from unnest`), never updated.
 */
@Entity({ tableName: 'vehicle_telemetry' })
@Index({ properties: ['tenant', 'vehicleId', 'reportedAt'] })
export class VehicleTelemetry extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @Property({ type: 'integer' })
  vehicleId!: number;

  /** Device time of the message. */
  @Property({ type: 'Date' })
  reportedAt!: Date;

  @Property({ type: 'Date' })
  receivedAt!: Date;

  @Property({ type: 'double' })
  latitude!: number;

  @Property({ type: 'double' })
  longitude!: number;

  @Property({ type: 'double', nullable: true })
  speedKmh?: number | null;

  @Property({ type: 'double', nullable: true })
  maxSpeedKmh?: number | null;

  @Property({ type: 'double', nullable: true })
  hdop?: number | null;

  @Property({ type: 'double', nullable: true })
  stateOfCharge?: number | null;

  /** Individual battery packs: [{ id, stateOfCharge, voltage?, temperatureC? }]. */
  @Property({ type: 'json', nullable: true })
  batteries?: Array<Record<string, unknown>> | null;

  @Property({ type: 'double', nullable: true })
  batteryMaxCapacityWh?: number | null;

  @Property({ type: 'string', length: 16 })
  powerState!: string;

  @Property({ type: 'boolean' })
  locked!: boolean;

  @Property({ type: 'boolean', nullable: true })
  charging?: boolean | null;

  @Property({ type: 'double', nullable: true })
  odometerKm?: number | null;

  /** IoT module supply voltage. */
  @Property({ type: 'double', nullable: true })
  iotModuleLevel?: number | null;
}
