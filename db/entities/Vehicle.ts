import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import {
  batteryLevels,
  powerStates,
  serviceStatesV2,
  vehicleRentalStates,
  type BatteryLevel,
  type PowerState,
  type ServiceStateV2,
  type VehicleRentalState,
  type VehicleSensors,
} from '../../domain/vehicle.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { VehicleCategory } from './VehicleCategory.js';

/** A rentable vehicle; its row is the read model of what the fleet and the rental workflows last saw. */
@Entity({ tableName: 'vehicle' })
@Unique({ properties: ['tenant', 'code'] })
@Index({ properties: ['tenant', 'branch'] })
export class Vehicle extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'string', length: 32, nullable: true })
  licensePlate?: string | null;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @ManyToOne({ entity: () => VehicleCategory, ref: false })
  category!: VehicleCategory;

  @Enum({ items: () => vehicleRentalStates, type: 'string' })
  rentalState: Opt<VehicleRentalState> = 'AVAILABLE';

  @Enum({ items: () => serviceStatesV2, type: 'string' })
  serviceStateV2: Opt<ServiceStateV2> = 'FUNCTIONAL';

  @Property({ type: 'double', nullable: true })
  stateOfCharge?: number | null;

  @Enum({ items: () => batteryLevels, type: 'string' })
  batteryLevel: Opt<BatteryLevel> = 'UNKNOWN';

  @Enum({ items: () => powerStates, type: 'string' })
  powerState: Opt<PowerState> = 'UNKNOWN';

  @Property({ type: 'boolean' })
  offline: Opt<boolean> = true;

  @Property({ type: 'boolean' })
  locked: Opt<boolean> = true;

  @Property({ type: 'boolean' })
  charging: Opt<boolean> = false;

  /** Equipment state from the device (doors, tailbox, bike lock, helmets, key, brake, cards). */
  @Property({ type: 'json', defaultRaw: `'{}'` })
  sensors: Opt<VehicleSensors> = {};

  /** State of charge as the IoT module reports it (used when the category sets useIoTSoCLevel). */
  @Property({ type: 'double', nullable: true })
  iotStateOfCharge?: number | null;

  /** IoT module supply voltage signal (used with ioTBatteryLevels when the category sets useIoTBatteryLevel). */
  @Property({ type: 'double', nullable: true })
  iotModuleLevel?: number | null;

  @Property({ type: 'double', nullable: true })
  speedKmh?: number | null;

  @Property({ type: 'double', nullable: true })
  hdop?: number | null;

  /** Maximum speed configured on the device (SET_MAX_SPEED). */
  @Property({ type: 'double', nullable: true })
  maxSpeedKmh?: number | null;

  /** Device time of the newest report applied; older reports never overwrite the row. */
  @Property({ type: 'Date', nullable: true })
  lastReportAt?: Date | null;

  /** Rotating identifier the app may scan instead of the code (GET /vehicles/rotating-uuid/{uuid}). */
  @Property({ type: 'uuid', nullable: true, unique: true })
  rotatingUuid?: string | null;

  /** Virtual vehicles (placeholders, tests) never show on the operations map. */
  @Property({ type: 'boolean' })
  virtual: Opt<boolean> = false;

  @Property({ type: 'double', nullable: true })
  latitude?: number | null;

  @Property({ type: 'double', nullable: true })
  longitude?: number | null;

  @Property({ type: 'double', nullable: true })
  odometerKm?: number | null;

  @Property({ type: 'Date', nullable: true })
  lastSeenAt?: Date | null;

  @Property({ type: 'date', nullable: true })
  legalInspectionDate?: string | null;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];

  @Property({ type: 'json' })
  customProperties: Opt<Record<string, unknown>> = {};

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
