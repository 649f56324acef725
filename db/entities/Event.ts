import { BigIntType, PrimaryKeyProp, type Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * An immutable business event (RENTAL_START, VEHICLE_COMMAND_UNLOCK, ...). Related ids are plain
 * columns, not foreign keys, so events survive the rows they mention and stay cheap to append.
 *
 * The table is partitioned by month of `created_at` (PostgreSQL declarative RANGE partitioning, a default
 * partition, partitions created ahead by the `event-partitions` schedule; docs/events.md). The entity
 * declares no `partitionBy`: the partitions change every month, and MikroORM leaves the partitioning of a
 * table whose entity omits it alone. The primary key includes the partition key, so it is
 * (id, created_at), and the idempotency key's uniqueness lives in `event_key` (EventKey).
 */
@Entity({ tableName: 'event' })
@Index({ properties: ['tenant', 'createdAt'] })
@Index({ properties: ['tenant', 'type', 'createdAt'] })
@Index({ properties: ['tenant', 'branchId', 'createdAt'] })
@Index({ properties: ['tenant', 'vehicleId', 'createdAt'] })
@Index({ properties: ['tenant', 'customerId', 'createdAt'] })
@Index({ properties: ['tenant', 'rentalId'] })
@Index({ properties: ['tenant', 'bookingId'] })
export class Event extends TenantScoped {
  [PrimaryKeyProp]?: ['id', 'createdAt'];

  /**
   * A string, as declared: `'bigint'` alone would give a freshly inserted event a JS bigint id, which the
   * keys and outbox rows flushed with it snapshot, and every later flush of their EntityManager (an
   * `em.transactional` flushes again at its end) found them changed and updated them with the same values.
   */
  @PrimaryKey({ type: new BigIntType('string'), autoincrement: true })
  id!: string;

  /** The partition key (part of the primary key). */
  @PrimaryKey({ type: 'Date' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'string', length: 100 })
  type!: string;

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

  /** The user's or device's position (hidden without POSITION_LOG_READ). */
  @Property({ type: 'json', nullable: true })
  position?: { lat: number; lng: number } | null;

  /** The vehicle's position when the event happened (hidden without POSITION_LOG_READ). */
  @Property({ type: 'json', nullable: true })
  vehiclePosition?: { lat: number; lng: number } | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  description?: string | null;

  @Property({ type: 'json', nullable: true })
  payload?: Record<string, unknown> | null;

  /** The writing activity's idempotency key; unique per tenant through `event_key`. */
  @Property({ type: 'string', length: 300, nullable: true })
  idempotencyKey?: string | null;
}
