import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from './entities/Event.js';
import { bindColumn, preparedRows } from './prepared.js';

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

const eventJsonColumns = new Set(['position', 'payload']);

/** An event's columns as `recordEvent` would write them (the tenant aside). */
function eventRow(event: EventFields): Record<string, unknown> {
  return {
    type: event.type,
    created_at: event.createdAt ?? new Date(),
    branch_id: event.branchId,
    vehicle_id: event.vehicleId,
    rental_id: event.rentalId,
    customer_id: event.customerId,
    booking_id: event.bookingId,
    admin_subject: event.adminSubject,
    position: event.position,
    description: event.description,
    payload: event.payload,
    idempotency_key: event.idempotencyKey,
  };
}

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
  const rows = events.map(eventRow);
  const placeholders = rows.map(
    (row) =>
      `($1, ${Object.entries(row)
        .map(([column, value]) => bindColumn(values, column, value, eventJsonColumns))
        .join(', ')})`,
  );
  await preparedRows(
    em,
    `insert into event (tenant_id, ${Object.keys(rows[0]!).join(', ')}) values ${placeholders.join(', ')}`,
    values,
  );
}
