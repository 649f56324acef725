import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from './entities/index.js';
import { preparedRows } from './prepared.js';

/** The columns of one event row that callers choose; tenant and defaults come from the EntityManager. */
export interface EventFields {
  type: string;
  createdAt?: Date;
  branchId?: number | null;
  vehicleId?: number | null;
  rentalId?: number | null;
  customerId?: number | null;
  bookingId?: number | null;
  /** Operator, API client or system component that caused the event (the spec's adminGuser). */
  adminSubject?: string | null;
  position?: { lat: number; lng: number } | null;
  description?: string | null;
  payload?: Record<string, unknown> | null;
  /** Set by activities (their idempotency key), so a retried activity never records an event twice. */
  idempotencyKey?: string | null;
}

/**
 * Appends one event to the unit of work of a tenant-confined EntityManager; it is written with the
 * caller's other changes when the EntityManager flushes. Every event row is created here.
 */
export function recordEvent(em: EntityManager, fields: EventFields): Event {
  return em.create(Event, { createdAt: new Date(), ...fields });
}

/** Where a step's events go: by default into the EntityManager's unit of work (`recordEvent`). */
export type EventSink = (fields: EventFields) => void;

const eventColumns = [
  'type',
  'created_at',
  'branch_id',
  'vehicle_id',
  'rental_id',
  'customer_id',
  'booking_id',
  'admin_subject',
  'position',
  'description',
  'payload',
  'idempotency_key',
] as const;

/**
 * Inserts events at once, in one statement on the caller's transaction, for the steps that write their
 * rows without entities (a rental's transitions): the same rows `recordEvent` would flush.
 */
export async function insertEvents(
  em: EntityManager,
  tenant: string,
  events: readonly EventFields[],
): Promise<void> {
  if (events.length === 0) return;
  const values: unknown[] = [tenant];
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const rows = events.map((event) => {
    values.push(
      event.type,
      event.createdAt ?? new Date(),
      event.branchId ?? null,
      event.vehicleId ?? null,
      event.rentalId ?? null,
      event.customerId ?? null,
      event.bookingId ?? null,
      event.adminSubject ?? null,
      json(event.position),
      event.description ?? null,
      json(event.payload),
      event.idempotencyKey ?? null,
    );
    const first = values.length - eventColumns.length + 1;
    const placeholders = eventColumns.map((column, index) =>
      column === 'position' || column === 'payload' ? `$${first + index}::jsonb` : `$${first + index}`,
    );
    return `($1, ${placeholders.join(', ')})`;
  });
  await preparedRows(
    em,
    `insert into event (tenant_id, ${eventColumns.join(', ')}) values ${rows.join(', ')}`,
    values,
  );
}
