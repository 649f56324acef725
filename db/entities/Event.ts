import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * An immutable business event (RENTAL_START, VEHICLE_COMMAND_UNLOCK, ...). Related ids are plain
 * columns, not foreign keys, so events survive the rows they mention and stay cheap to append.
 * Activities pass an idempotency key so a retried activity never records an event twice.
 */
@Entity({ tableName: 'event' })
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Index({ properties: ['tenant', 'rentalId'] })
@Index({ properties: ['tenant', 'vehicleId'] })
@Index({ properties: ['tenant', 'bookingId'] })
@Index({ properties: ['tenant', 'type', 'createdAt'] })
export class Event extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @Property({ type: 'string', length: 100 })
  type!: string;

  @Property({ type: 'Date' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'integer', nullable: true })
  branchId?: number | null;

  @Property({ type: 'integer', nullable: true })
  vehicleId?: number | null;

  @Property({ type: 'integer', nullable: true })
  rentalId?: number | null;

  @Property({ type: 'integer', nullable: true })
  customerId?: number | null;

  /** The booking the event is about (BOOKING_* events, and the events of a booking's rental). */
  @Property({ type: 'integer', nullable: true })
  bookingId?: number | null;

  /** The operator or API client that caused the event (the spec's adminGuser). */
  @Property({ type: 'string', length: 200, nullable: true })
  adminSubject?: string | null;

  @Property({ type: 'json', nullable: true })
  position?: { lat: number; lng: number } | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Property({ type: 'json', nullable: true })
  payload?: Record<string, unknown> | null;

  @Property({ type: 'string', length: 300, nullable: true })
  idempotencyKey?: string | null;
}
