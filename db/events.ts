import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from './entities/Event.js';
import { EventKey } from './entities/EventKey.js';
import { WebhookOutbox } from './entities/WebhookOutbox.js';
import { preparedRows } from './prepared.js';
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
  /** The user's or device's position (the app's Device-Position, an operator's given position). */
  position?: { lat: number; lng: number } | null;
  /** The vehicle's reported position when the event happened. */
  vehiclePosition?: { lat: number; lng: number } | null;
  description?: string | null;
  payload?: Record<string, unknown> | null;
  /**
   * Set by activities (their idempotency key), so a retried activity never records an event twice: the
   * key is unique per tenant in `event_key`, written with the event.
   */
  idempotencyKey?: string | null;
}

/** The outbox row's entity key (`RENTAL:42`): the entity its webhook deliveries are ordered by. */
function outboxEntityKey(event: Parameters<typeof webhookEntityOf>[0]): string {
  const entity = webhookEntityOf(event);
  return `${entity.type}:${entity.id}`;
}

/**
 * Appends one event to the unit of work of a tenant-confined EntityManager; it is written with the
 * caller's other changes when the EntityManager flushes. Every event row is created here or by
 * `insertEvents`. A keyed event gets its `event_key` row (a second event with the key fails the flush,
 * as the unique constraint did when it lived on the event table); an event of a platform webhook type
 * (domain/webhooks.ts) gets its webhook outbox row in the same unit of work, so both commit together or
 * neither does.
 */
export function recordEvent(em: EntityManager, fields: EventFields): Event {
  const event = em.create(Event, { createdAt: new Date(), ...fields });
  if (event.idempotencyKey) em.create(EventKey, { idempotencyKey: event.idempotencyKey, event });
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

/** Whether an event with this idempotency key was recorded (an earlier attempt of the step wrote it). */
export async function eventRecorded(em: EntityManager, idempotencyKey: string): Promise<boolean> {
  return (await em.count(EventKey, { idempotencyKey })) > 0;
}

/** The event recorded with this idempotency key, or null. */
export async function recordedEvent(em: EntityManager, idempotencyKey: string): Promise<Event | null> {
  const key = await em.findOne(EventKey, { idempotencyKey }, { populate: ['event'] });
  return key?.event ?? null;
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * One statement for any number of events (the arrays of `unnest`, one per column): ids are drawn first,
 * a keyed event's key goes into `event_key` with ON CONFLICT DO NOTHING and the event is inserted only
 * when its key was new (an event without key always), and events of a webhook type get their outbox
 * row: always ($16), as `recordEvent` writes it, or only when the tenant has an active subscription
 * (nothing else would want them). The foreign keys of `event_key` and `webhook_outbox` are checked at the
 * end of the statement, when the events exist.
 */
const insertEventsStatement = `
  with input as (
    select nextval('event_id_seq') as id, r.*
    from unnest($2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[],
                $9::text[], $10::jsonb[], $11::jsonb[], $12::text[], $13::jsonb[], $14::text[], $15::text[])
      with ordinality as r(type, created_at, branch_id, vehicle_id, rental_id, customer_id, booking_id,
                           admin_subject, position, vehicle_position, description, payload, idempotency_key,
                           outbox_entity_key, n)
  ),
  ${eventWrites('$1', '$16::boolean')}
  select (select count(*) from events)::int as events, (select count(*) from outbox)::int as outbox`;

/**
 * The CTEs that write the events of a CTE named `input` (id drawn from `event_id_seq`, type, created_at,
 * branch_id, vehicle_id, rental_id, customer_id, booking_id, admin_subject, position, vehicle_position,
 * description, payload, idempotency_key, outbox_entity_key, n), as {@link insertEvents} writes them:
 * `new_keys`, `written`, `events` and `outbox`. `tenant` and `outboxAlways` are SQL expressions of
 * the statement they join (its parameters), so another statement can write its events itself.
 */
export function eventWrites(tenant: string, outboxAlways: string): string {
  return `new_keys as (
    insert into event_key (tenant_id, idempotency_key, event_id, event_created_at)
    select ${tenant}, idempotency_key, id, created_at from input where idempotency_key is not null
    on conflict (tenant_id, idempotency_key) do nothing
    returning event_id
  ),
  written as (
    select * from input where idempotency_key is null or id in (select event_id from new_keys)
  ),
  events as (
    insert into event (id, tenant_id, type, created_at, branch_id, vehicle_id, rental_id, customer_id,
                       booking_id, admin_subject, position, vehicle_position, description, payload, idempotency_key)
    select id, ${tenant}, type, created_at, branch_id, vehicle_id, rental_id, customer_id, booking_id, admin_subject,
           position, vehicle_position, description, payload, idempotency_key
    from written order by n
    returning id
  ),
  outbox as (
    insert into webhook_outbox (tenant_id, event_id, event_created_at, event_type, entity_key, branch_id, occurred_at)
    select ${tenant}, id, created_at, type, outbox_entity_key, branch_id, created_at
    from written
    where outbox_entity_key is not null
      and (${outboxAlways} or exists (select 1 from webhook_subscription s where s.tenant_id = ${tenant} and s.active))
    order by n
    returning id
  )`;
}

/** Which events of a webhook type get their outbox row (docs/webhooks.md, "Transactional outbox"). */
export type OutboxRows =
  /** Only while the tenant has an active subscription: the rental steps' hot path. */
  | 'whenSubscribed'
  /** Always, as `recordEvent` writes them (the sweep settles rows nobody wants). */
  | 'always';

/**
 * Inserts events at once, in one statement, for the steps that write their rows without entities (a
 * rental's transitions) or need no Event entity back: the same rows `recordEvent` would flush, with their
 * `event_key` and webhook outbox rows (`outbox`: by default only when the tenant has an active
 * subscription). A keyed event whose key was recorded before is skipped (its step wrote it in an earlier
 * attempt). Runs on the caller's transaction, or, outside one, as a statement of its own (which commits
 * all its rows or none). Answers nothing; the rows are visible to the transaction.
 */
export async function insertEvents(
  em: EntityManager,
  tenant: string,
  events: readonly EventFields[],
  options: { outbox?: OutboxRows } = {},
): Promise<void> {
  if (events.length === 0) return;
  const now = new Date();
  const column = <T>(pick: (event: EventFields) => T) => events.map(pick);
  await preparedRows(em, insertEventsStatement, [
    tenant,
    column((event) => event.type),
    column((event) => event.createdAt ?? now),
    column((event) => event.branchId ?? null),
    column((event) => event.vehicleId ?? null),
    column((event) => event.rentalId ?? null),
    column((event) => event.customerId ?? null),
    column((event) => event.bookingId ?? null),
    column((event) => event.adminSubject ?? null),
    column((event) => json(event.position)),
    column((event) => json(event.vehiclePosition)),
    column((event) => event.description ?? null),
    column((event) => json(event.payload)),
    column((event) => event.idempotencyKey ?? null),
    column((event) => (isWebhookEventType(event.type) ? outboxEntityKey(event) : null)),
    options.outbox === 'always',
  ]);
}
