import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from './entities/index.js';

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
