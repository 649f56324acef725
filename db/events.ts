import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from './entities/Event.js';
import { WebhookOutbox } from './entities/WebhookOutbox.js';
import { bindColumn, preparedRows } from './prepared.js';
import { isWebhookEventType, webhookEntityOf } from '../domain/webhooks.js';

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

/** The outbox row's entity key (`RENTAL:42`): the entity its webhook deliveries are ordered by. */
function outboxEntityKey(event: Parameters<typeof webhookEntityOf>[0]): string {
  const entity = webhookEntityOf(event);
  return `${entity.type}:${entity.id}`;
}

/**
 * Appends one event to the unit of work of a tenant-confined EntityManager; it is written with the
 * caller's other changes when the EntityManager flushes. Every event row is created here. An event of a
 * platform webhook type (domain/webhooks.ts) gets its webhook outbox row in the same unit of work, so
 * both commit together or neither does.
 */
export function recordEvent(em: EntityManager, fields: EventFields): Event {
  const event = em.create(Event, { createdAt: new Date(), ...fields });
  if (isWebhookEventType(event.type))
    em.create(WebhookOutbox, {
      event,
      eventType: event.type,
      entityKey: outboxEntityKey(event),
      branchId: event.branchId ?? null,
      occurredAt: event.createdAt,
    });
  return event;
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

interface InsertedEvent {
  id: string;
  type: string;
  created_at: Date;
  branch_id: number | null;
  rental_id: number | null;
  booking_id: number | null;
  vehicle_id: number | null;
  payload: Record<string, unknown> | null;
}

/**
 * Inserts events at once, in one statement on the caller's transaction, for the steps that write their
 * rows without entities (a rental's transitions): the same rows `recordEvent` would flush. Events of a
 * platform webhook type get their outbox rows in the same transaction (a second statement, skipped when
 * the tenant has no active subscription: nothing would want them).
 */
export async function insertEvents(
  em: EntityManager,
  tenant: string,
  events: readonly EventFields[],
): Promise<void> {
  if (events.length === 0) return;
  if (!em.isInTransaction()) {
    await em.transactional((tx) => insertEvents(tx, tenant, events));
    return;
  }
  const values: unknown[] = [tenant];
  const rows = events.map(eventRow);
  const placeholders = rows.map(
    (row) =>
      `($1, ${Object.entries(row)
        .map(([column, value]) => bindColumn(values, column, value, eventJsonColumns))
        .join(', ')})`,
  );
  const forWebhooks = events.some((event) => isWebhookEventType(event.type));
  const inserted = await preparedRows<InsertedEvent>(
    em,
    `insert into event (tenant_id, ${Object.keys(rows[0]!).join(', ')}) values ${placeholders.join(', ')}` +
      (forWebhooks
        ? ' returning id, type, created_at, branch_id, rental_id, booking_id, vehicle_id, payload'
        : ''),
    values,
  );
  const outbox = inserted.filter((row) => isWebhookEventType(row.type));
  if (outbox.length === 0) return;
  await preparedRows(
    em,
    `insert into webhook_outbox (tenant_id, event_id, event_type, entity_key, branch_id, occurred_at)
     select $1::text, o.event_id, o.event_type, o.entity_key, o.branch_id, o.occurred_at
     from unnest($2::bigint[], $3::text[], $4::text[], $5::int[], $6::timestamptz[])
       as o(event_id, event_type, entity_key, branch_id, occurred_at)
     where exists (select 1 from webhook_subscription s where s.tenant_id = $1::text and s.active)`,
    [
      tenant,
      outbox.map((row) => row.id),
      outbox.map((row) => row.type),
      outbox.map((row) =>
        outboxEntityKey({
          type: row.type,
          rentalId: row.rental_id,
          bookingId: row.booking_id,
          vehicleId: row.vehicle_id,
          payload: row.payload,
        }),
      ),
      outbox.map((row) => row.branch_id),
      outbox.map((row) => row.created_at),
    ],
  );
}
