import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { rentalStates, type ActiveMode, type RentalState } from '../../domain/rental.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { Vehicle } from './Vehicle.js';
import { Customer } from './Customer.js';

/**
 * Read model of a rental. The rental workflow owns its lifecycle and writes this row in the same
 * activity that performs each transition; at most one open (RESERVATION/ACTIVE) rental exists per
 * vehicle and per customer, enforced by partial unique indexes.
 */
@Entity({ tableName: 'rental' })
@Index({ properties: ['tenant', 'branch', 'state'] })
@Unique({
  name: 'rental_one_open_per_vehicle',
  properties: ['tenant', 'vehicle'],
  where: `"state" in ('RESERVATION', 'ACTIVE')`,
})
@Unique({
  name: 'rental_one_open_per_customer',
  properties: ['tenant', 'customer'],
  where: `"state" in ('RESERVATION', 'ACTIVE')`,
})
export class Rental extends TenantScoped {
  /** Allocated from `rental_id_seq` before the workflow starts, so the workflow id is known up front. */
  @PrimaryKey({ type: 'integer', autoincrement: false })
  id!: number;

  @Unique()
  @Property({ type: 'string', length: 200 })
  workflowId!: string;

  @Enum({ items: () => rentalStates, type: 'string' })
  state!: RentalState;

  @Property({ type: 'string', length: 16, nullable: true })
  activeMode?: ActiveMode | null;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @ManyToOne({ entity: () => Vehicle, ref: false })
  vehicle!: Vehicle;

  @ManyToOne({ entity: () => Customer, ref: false })
  customer!: Customer;

  /** Subject of the operator or API client that created the rental (AdminAddRental). */
  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date' })
  reservedAt!: Date;

  @Property({ type: 'Date', nullable: true })
  reservationExpiresAt?: Date | null;

  @Property({ type: 'Date', nullable: true })
  startedAt?: Date | null;

  @Property({ type: 'Date', nullable: true })
  endedAt?: Date | null;

  @Property({ type: 'json', nullable: true })
  startPosition?: { lat: number; lng: number } | null;

  @Property({ type: 'json', nullable: true })
  endPosition?: { lat: number; lng: number } | null;

  @Property({ type: 'double', nullable: true })
  startOdometerKm?: number | null;

  @Property({ type: 'double', nullable: true })
  endOdometerKm?: number | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
