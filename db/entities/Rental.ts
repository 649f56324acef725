import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { rentalStates, type ActiveMode, type RentalState } from '../../domain/rental.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { Vehicle } from './Vehicle.js';
import { Customer } from './Customer.js';
import { PricingBundleVersion } from './PricingBundleVersion.js';
import { UserGroup } from './UserGroup.js';
import { CostCenter } from './CostCenter.js';
import { Invoice } from './Invoice.js';
import { Deposit } from './Deposit.js';
import type { PriceResult } from '../../domain/pricing.js';
import type { RentalPhaseRecord } from '../../domain/rental.js';
import type { VehicleSensors } from '../../domain/vehicle.js';

/**
 * Read model of a rental. The rental workflow owns its lifecycle and writes this row in the same
 * activity that performs each transition; at most one open (RESERVATION/ACTIVE) rental exists per
 * vehicle and per customer, enforced by partial unique indexes.
 */
@Entity({ tableName: 'rental' })
// The insight domain's statements (db/kpis.ts, db/analytics.ts): a vehicle's last rental activity
// (IDLE_VEHICLES), a branch's rentals ended since midnight (SUCCESSFULLY_ENDED_RENTALS_TODAY) and started in
// a period (rental start positions).
@Index({
  name: 'rental_vehicle_activity',
  expression:
    'create index "rental_vehicle_activity" on "rental" ("tenant_id", "vehicle_id", coalesce("ended_at", "started_at")) where "started_at" is not null',
})
@Index({
  name: 'rental_branch_ended',
  expression:
    'create index "rental_branch_ended" on "rental" ("tenant_id", "branch_id", "ended_at") where "ended_at" is not null',
})
@Index({
  name: 'rental_branch_started',
  expression:
    'create index "rental_branch_started" on "rental" ("tenant_id", "branch_id", "started_at") where "started_at" is not null',
})
@Index({ properties: ['tenant', 'branch', 'state'] })
// A customer's rentals: every reservation reads her recent ones (db/rental-reservation.ts), the app lists
// them. Without it each reservation scanned the tenant's whole rental history.
@Index({ name: 'rental_customer_reserved', properties: ['tenant', 'customer', 'reservedAt'] })
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

  /** Branch whose business area holds the end position (differs from `branch` for passed-through rentals). */
  @ManyToOne({ entity: () => Branch, ref: false, nullable: true })
  endBranch?: Branch | null;

  /** The pricing version applied at creation; every later price of this rental uses exactly it. */
  @ManyToOne({ entity: () => PricingBundleVersion, ref: false, nullable: true })
  pricingBundleVersion?: PricingBundleVersion | null;

  /** Price phases on the clock (RESERVATION_FREE, RESERVATION_PAID, DRIVING, PARKING), the open one last. */
  @Property({ type: 'json', defaultRaw: `'[]'` })
  phases: Opt<RentalPhaseRecord[]> = [];

  /** Reservation minutes bought with buy-reservation (the RESERVATION_PAID phase). */
  @Property({ type: 'integer', default: 0 })
  paidReservationMinutes: Opt<number> = 0;

  /** The three price shapes of the spec; the running estimate while open, the final price once ended. */
  @Property({ type: 'json', nullable: true })
  price?: PriceResult['price'] | null;

  @Property({ type: 'json', nullable: true })
  priceV3?: PriceResult['priceV3'] | null;

  @Property({ type: 'json', nullable: true })
  priceV4?: PriceResult['priceV4'] | null;

  /** Business-account context of a business rental (null for a private rental). */
  @ManyToOne({ entity: () => UserGroup, ref: false, nullable: true })
  userGroup?: UserGroup | null;

  @ManyToOne({ entity: () => CostCenter, ref: false, nullable: true })
  costCenter?: CostCenter | null;

  @Property({ type: 'string', length: 500, nullable: true })
  reason?: string | null;

  /** The vehicle's equipment at START (helmets, cards): EXISTING_* end requirements compare with it. */
  @Property({ type: 'json', nullable: true })
  startVehicleSensors?: VehicleSensors | null;

  /** End requirements that failed and were overridden by an operator at END. */
  @Property({ type: 'json', nullable: true })
  overriddenEndRequirements?: string[] | null;

  /** The invoice issued when the rental ended (null: not ended, or nothing to charge). */
  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true, deleteRule: 'set null' })
  invoice?: Invoice | null;

  /** The deposit held at START, when the branch configures one. */
  @ManyToOne({ entity: () => Deposit, ref: false, nullable: true, deleteRule: 'set null' })
  deposit?: Deposit | null;

  /** The customer's cleanliness rating of the vehicle (1–5) and comment, once. */
  @Property({ type: 'smallint', nullable: true })
  cleanlinessRating?: number | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  cleanlinessComment?: string | null;

  @Property({ type: 'json', defaultRaw: `'[]'` })
  annotations: Opt<string[]> = [];

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
