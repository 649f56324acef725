import type { Opt } from '@mikro-orm/core';
import {
  Check,
  Entity,
  Enum,
  Index,
  ManyToOne,
  PrimaryKey,
  Property,
  Unique,
} from '@mikro-orm/decorators/es';
import {
  bookingApprovalStates,
  bookingRentalTypes,
  bookingStates,
  bookingTypes,
  type BookingApprovalState,
  type BookingRentalType,
  type BookingState,
  type BookingType,
} from '../../domain/booking.js';
import type { PriceResult } from '../../domain/pricing.js';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { VehicleCategory } from './VehicleCategory.js';
import { Vehicle } from './Vehicle.js';
import { Customer } from './Customer.js';
import { PricingBundleVersion } from './PricingBundleVersion.js';
import { UserGroup } from './UserGroup.js';
import { CostCenter } from './CostCenter.js';
import { Rental } from './Rental.js';
import { Invoice } from './Invoice.js';

/**
 * Read model of a booking. The booking workflow owns its timeline and writes this row from its activities.
 * While a booking holds (BOOKED, APPROVED, DELIVERED) its vehicle is reserved for `heldFrom`–`heldUntil`
 * (the window widened by the stations' cooldowns); an exclusion constraint in PostgreSQL (migration
 * `bookings`) makes two holding bookings of one vehicle with overlapping holds impossible, whatever the
 * concurrency.
 */
@Entity({ tableName: 'booking' })
@Index({ properties: ['tenant', 'branch', 'startTime'] })
@Index({ properties: ['tenant', 'endBranch', 'endTime'] })
@Index({ properties: ['tenant', 'customer'] })
@Index({ properties: ['tenant', 'vehicleCategory', 'heldFrom'] })
@Unique({ name: 'booking_one_rental', properties: ['rental'] })
@Check({ name: 'booking_window_check', expression: '(end_time > start_time) AND (held_until > held_from)' })
// Declared so schema diffs know it; PostgreSQL reports the exclusion constraint's definition as its "expression".
@Check({
  name: 'booking_vehicle_hold_excl',
  expression:
    "EXCLUDE USING gist (tenant_id WITH =, vehicle_id WITH =, tstzrange(held_from, held_until) WITH &&) WHERE (((vehicle_id IS NOT NULL) AND (state = ANY (ARRAY['BOOKED'::text, 'APPROVED'::text, 'DELIVERED'::text]))))",
})
export class Booking extends TenantScoped {
  /** Allocated from `booking_id_seq` before the workflow starts, so the workflow id is known up front. */
  @PrimaryKey({ type: 'integer', autoincrement: false })
  id!: number;

  @Unique()
  @Property({ type: 'string', length: 200 })
  workflowId!: string;

  @Enum({ items: () => bookingStates, type: 'string' })
  state!: BookingState;

  @Enum({ items: () => bookingTypes, type: 'string' })
  type: Opt<BookingType> = 'STATION';

  @Enum({ items: () => bookingRentalTypes, type: 'string' })
  rentalType: Opt<BookingRentalType> = 'PRIVATE';

  /** Set for a booking created as a request (bookingRequest): PENDING until approved or declined. */
  @Enum({ items: () => bookingApprovalStates, type: 'string', nullable: true })
  approvalState?: BookingApprovalState | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  rejectionReason?: string | null;

  @ManyToOne({ entity: () => Customer, ref: false })
  customer!: Customer;

  /** Start station (a branch). */
  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  /** Return station; the start station for a round trip. */
  @ManyToOne({ entity: () => Branch, ref: false })
  endBranch!: Branch;

  @ManyToOne({ entity: () => VehicleCategory, ref: false })
  vehicleCategory!: VehicleCategory;

  /** The delivered vehicle; null until delivery. */
  @ManyToOne({ entity: () => Vehicle, ref: false, nullable: true })
  vehicle?: Vehicle | null;

  @Property({ type: 'Date' })
  startTime!: Date;

  @Property({ type: 'Date' })
  endTime!: Date;

  /** Cooldowns (minutes) of the start and end stations applied to this booking's hold. */
  @Property({ type: 'integer', default: 0 })
  startStationCooldown: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  endStationCooldown: Opt<number> = 0;

  /** The hold on the vehicle or the category: startTime − startStationCooldown to endTime + endStationCooldown. */
  @Property({ type: 'Date' })
  heldFrom!: Date;

  @Property({ type: 'Date' })
  heldUntil!: Date;

  /** FLOATING bookings: where the customer wants the vehicle, and how far from it it may be (metres). */
  @Property({ type: 'json', nullable: true })
  startPosition?: { lat: number; lng: number } | null;

  @Property({ type: 'integer', nullable: true })
  startPositionRadius?: number | null;

  /** Addition codes of the pricing version (child seat, insurance...). */
  @Property({ type: 'json', defaultRaw: `'[]'` })
  additions: Opt<string[]> = [];

  /** The BOOKING pricing version applied at creation (or at the last change of category/pricing). */
  @ManyToOne({ entity: () => PricingBundleVersion, ref: false, nullable: true })
  pricingBundleVersion?: PricingBundleVersion | null;

  /** Estimated price of the window (all three shapes); replaced by the final price when the booking ends. */
  @Property({ type: 'json', nullable: true })
  price?: PriceResult['price'] | null;

  @Property({ type: 'json', nullable: true })
  priceV3?: PriceResult['priceV3'] | null;

  @Property({ type: 'json', nullable: true })
  priceV4?: PriceResult['priceV4'] | null;

  @ManyToOne({ entity: () => UserGroup, ref: false, nullable: true })
  userGroup?: UserGroup | null;

  @ManyToOne({ entity: () => CostCenter, ref: false, nullable: true })
  costCenter?: CostCenter | null;

  @Property({ type: 'string', length: 500, nullable: true })
  reason?: string | null;

  @Property({ type: 'string', length: 2000, nullable: true })
  notes?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  externalReference?: string | null;

  @Property({ type: 'json', defaultRaw: `'[]'` })
  annotations: Opt<string[]> = [];

  /** The customer's free-text rating of the trip. */
  @Property({ type: 'string', length: 2000, nullable: true })
  ratingDescription?: string | null;

  @Property({ type: 'Date', nullable: true })
  checkedInAt?: Date | null;

  /** The rental the pickup started; null until pickup. */
  @ManyToOne({ entity: () => Rental, ref: false, nullable: true })
  rental?: Rental | null;

  @Property({ type: 'Date', nullable: true })
  pickedUpAt?: Date | null;

  /** When the vehicle came back (the rental's end). */
  @Property({ type: 'Date', nullable: true })
  returnedAt?: Date | null;

  /** Set by the workflow when the rental runs past endTime plus the grace period. */
  @Property({ type: 'Date', nullable: true })
  overdueSince?: Date | null;

  @Property({ type: 'Date', nullable: true })
  canceledAt?: Date | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  cancellationReason?: string | null;

  @Property({ type: 'boolean', default: false })
  cancellationFeeWaived: Opt<boolean> = false;

  /** The invoice of the booking: the trip, or the cancellation or no-show fee. */
  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true, deleteRule: 'set null' })
  invoice?: Invoice | null;

  /** Subject that created it (`operator:…`, `client:…`, `customer:…`). */
  @Property({ type: 'string', length: 200, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
