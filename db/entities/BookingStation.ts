import type { Opt } from '@mikro-orm/core';
import { Entity, OneToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';

/** Opening hours of a station: per ISO weekday (1 = Monday … 7 = Sunday), local "HH:mm" ranges; absent day: closed. */
export type OpeningHours = Partial<
  Record<'1' | '2' | '3' | '4' | '5' | '6' | '7', Array<{ from: string; to: string }>>
>;

/**
 * What makes a branch a booking station: where booked vehicles are picked up and returned. The branch
 * gives the name, address, time zone and tree position; this row adds capacity, opening hours, the
 * categories offered and the cooldowns between bookings.
 */
@Entity({ tableName: 'booking_station' })
export class BookingStation extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @OneToOne({ entity: () => Branch, ref: false, unique: true, owner: true })
  branch!: Branch;

  /** Parking spaces; null: unlimited. */
  @Property({ type: 'integer', nullable: true })
  capacity?: number | null;

  /** null: always open. */
  @Property({ type: 'json', nullable: true })
  openingHours?: OpeningHours | null;

  /** Vehicle categories bookable here; empty: every bookable category. */
  @Property({ type: 'json', defaultRaw: `'[]'` })
  vehicleCategoryIds: Opt<number[]> = [];

  /** Minutes a vehicle needs before a booking starting here (preparation). */
  @Property({ type: 'integer', default: 0 })
  startCooldownMinutes: Opt<number> = 0;

  /** Minutes a vehicle needs after a booking ending here (cleaning, charging). */
  @Property({ type: 'integer', default: 0 })
  endCooldownMinutes: Opt<number> = 0;

  /** Per-category overrides of the cooldowns, by category id. */
  @Property({ type: 'json', defaultRaw: `'{}'` })
  categoryCooldowns: Opt<Record<string, { startCooldownMinutes?: number; endCooldownMinutes?: number }>> = {};

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
