// Platform webhooks (pure rules, safe in workflows): which event types a subscription may receive, the
// entity an event is ordered by, the retry schedule of a delivery, and the string a signature covers.
// docs/webhooks.md describes them for receivers.
import { bookingTransitions } from './booking.js';
import { rentalTransitions } from './rental.js';

const unique = (types: readonly string[]) => [...new Set(types)];

/** The rental transitions' event types, from the rental transition table (plus the reservation itself). */
export const rentalWebhookEventTypes = unique([
  'RENTAL_RESERVATION',
  ...Object.values(rentalTransitions).map((transition) => transition.event),
]);

/** The booking transitions' event types, from the booking transition table. */
export const bookingWebhookEventTypes = unique(
  Object.values(bookingTransitions).map((transition) => transition.event),
);

/**
 * Every event type a subscription may ask for: the spec's three named platform webhooks
 * (INVOICE_CREATED with rentalIds, BOOKING_PICKUP with additions, VEHICLE_BASE_DATA_CHANGED) and the
 * rental and booking transitions. Only events of these types get an outbox row.
 */
export const webhookEventTypes: readonly string[] = unique([
  'INVOICE_CREATED',
  'VEHICLE_BASE_DATA_CHANGED',
  ...rentalWebhookEventTypes,
  ...bookingWebhookEventTypes,
]);

const webhookEventTypeSet = new Set(webhookEventTypes);

/** Whether events of this type are written to the webhook outbox. */
export function isWebhookEventType(type: string): boolean {
  return webhookEventTypeSet.has(type);
}

/** The kinds of entity deliveries are ordered by. */
export type WebhookEntityType = 'RENTAL' | 'BOOKING' | 'VEHICLE' | 'INVOICE' | 'TENANT';

/** The entity an event is about: its deliveries to one subscription go out in event order, one at a time. */
export interface WebhookEntity {
  type: WebhookEntityType;
  id: number;
}

/** What `webhookEntityOf` reads of an event. */
export interface WebhookEntityFields {
  type: string;
  rentalId?: number | null;
  bookingId?: number | null;
  vehicleId?: number | null;
  payload?: Record<string, unknown> | null;
}

/**
 * The entity an event of a webhook type is ordered by: the rental of RENTAL_*, the booking of BOOKING_*,
 * the vehicle of VEHICLE_*, the invoice of INVOICE_* (`payload.invoiceId`). An event lacking its id is
 * ordered with the tenant's other such events (TENANT 0).
 */
export function webhookEntityOf(event: WebhookEntityFields): WebhookEntity {
  const id = (value: unknown): number | null =>
    typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
  const pick = (type: WebhookEntityType, value: unknown): WebhookEntity => {
    const entityId = id(value);
    return entityId === null ? { type: 'TENANT', id: 0 } : { type, id: entityId };
  };
  if (event.type.startsWith('RENTAL_')) return pick('RENTAL', event.rentalId);
  if (event.type.startsWith('BOOKING_')) return pick('BOOKING', event.bookingId);
  if (event.type.startsWith('VEHICLE_')) return pick('VEHICLE', event.vehicleId);
  if (event.type.startsWith('INVOICE_')) return pick('INVOICE', event.payload?.invoiceId);
  return { type: 'TENANT', id: 0 };
}

/** How many HTTP attempts a message gets before it is given up (and the entity's next message goes). */
export const WEBHOOK_MAX_ATTEMPTS = 12;
/** The wait after the first failed attempt; it doubles after each further failure… */
export const WEBHOOK_FIRST_RETRY_MS = 10_000;
/** …up to this wait. */
export const WEBHOOK_MAX_RETRY_MS = 60 * 60_000;

/**
 * The wait before attempt `failedAttempts + 1` after `failedAttempts` failures (1-based), or null when the
 * message is given up: 10 s, 20 s, 40 s, 80 s, 160 s, 320 s, 640 s, 1280 s, 2560 s, then 1 h twice —
 * about 3 h 33 min from the first attempt to the twelfth and last.
 */
export function webhookRetryDelayMs(failedAttempts: number): number | null {
  if (failedAttempts >= WEBHOOK_MAX_ATTEMPTS) return null;
  return Math.min(WEBHOOK_FIRST_RETRY_MS * 2 ** (failedAttempts - 1), WEBHOOK_MAX_RETRY_MS);
}

/** The bytes a signature covers: `{x-webhook-id}.{x-webhook-timestamp}.{raw body}`. */
export function webhookSignedContent(webhookId: string, timestamp: number, body: string): string {
  return `${webhookId}.${timestamp}.${body}`;
}

/** The x-webhook-id of one event's message to one subscription: stable across every attempt. */
export function webhookMessageId(subscriptionId: number, eventId: string | number): string {
  return `wh_${subscriptionId}_${eventId}`;
}

/** How many subscriptions a tenant may hold. */
export const WEBHOOK_SUBSCRIPTIONS_PER_TENANT = 50;

/** How long a rotated-out signing secret still signs (beside the new one), so receivers can switch. */
export const WEBHOOK_SECRET_ROTATION_GRACE_MS = 24 * 60 * 60_000;
