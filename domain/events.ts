// Events (pure rules, safe in workflows): the catalogue of event types (the spec's backend table, the
// app's APP_ types and the types this project writes beyond them), the families types belong to and the
// permission each family needs, the search's sort whitelist and count bound, and the monthly partitions
// of the event table. docs/events.md describes them.
import { bookingTransitions } from './booking.js';
import { invoiceEventTypes } from './invoice-events.js';
import { rentalTransitions } from './rental.js';

/** The families event types belong to; each needs its own read permission (`eventFamilyPermissions`). */
export const eventFamilies = ['RENTAL', 'BOOKING', 'VEHICLE', 'USER', 'GENERAL'] as const;
export type EventFamily = (typeof eventFamilies)[number];

/**
 * The permission a family's events need on their branch: the spec's "matching user/rental/booking/vehicle
 * event permission" for the four entity families, EVENT_READ for every other type (finance, pricing,
 * notifications, tasks, ...). EVENT_READ is also what `GET /events` needs on some branch.
 */
export const eventFamilyPermissions: Readonly<Record<EventFamily, string>> = {
  RENTAL: 'RENTAL_EVENT_READ',
  BOOKING: 'BOOKING_EVENT_READ',
  VEHICLE: 'VEHICLE_EVENT_READ',
  USER: 'USER_EVENT_READ',
  GENERAL: 'EVENT_READ',
};

/**
 * The type prefixes of each entity family; a type matching none is GENERAL. The search turns them into
 * `LIKE` patterns, so a family is one predicate over the stored type.
 */
export const eventFamilyPrefixes: Readonly<Record<Exclude<EventFamily, 'GENERAL'>, readonly string[]>> = {
  RENTAL: ['RENTAL_'],
  BOOKING: ['BOOKING_', 'GROUP_BOOKING_'],
  VEHICLE: ['VEHICLE_', 'PHYSICAL_STATION_', 'PARKING_RESERVATION_', 'GENERATE_BLUETOOTH_TOKEN'],
  USER: ['USER_', 'CUSTOMER_', 'DRIVING_LOG_', 'APP_'],
};

/** The family of any type, catalogued or not (types are open: apps post their own APP_ names). */
export function eventFamilyOf(type: string): EventFamily {
  for (const [family, prefixes] of Object.entries(eventFamilyPrefixes))
    if (prefixes.some((prefix) => type.startsWith(prefix))) return family as EventFamily;
  return 'GENERAL';
}

/** The LIKE pattern of a prefix (`RENTAL_` → `RENTAL\_%`): `_` and `%` taken literally. */
export const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const expand = (prefix: string, suffixes: readonly string[]) => suffixes.map((suffix) => prefix + suffix);

/** The spec's table of backend-generated event types (prefix followed by its suffixes). */
// prettier-ignore
const specTypes: readonly string[] = [
  ...expand('RENTAL_', [
    'RESERVATION', 'START', 'START_RFID', 'START_BLUETOOTH', 'END', 'END_RFID', 'END_RFID_IGNORED',
    'END_BLUETOOTH', 'END_DOCKED', 'END_INACTIVE', 'END_USER_BALANCE_DEPLETED', 'END_CHECK', 'FEEDBACK',
    'DRIVE', 'DRIVE_BLUETOOTH', 'PARK', 'PARK_BLUETOOTH', 'PARK_INACTIVE', 'RENEW_RESERVATION',
    'CANCEL_RESERVATION', 'BUY_RESERVATION', 'OPEN_TAILBOX', 'LIST', 'DETAILS', 'PRE_END_ACTIONS',
    'OPERATION_FAILED', 'UPDATE', 'DEPOSIT_RELEASE', 'REQUIREMENTS_START_CHECK', 'REQUIREMENTS_END_CHECK',
    'FILES_LINKED',
  ]),
  ...expand('BOOKING_', [
    'CREATED', 'UPDATED', 'CANCELED', 'CANCELED_PAYMENT_FAILURE', 'SUCCESSFUL', 'DETAILS', 'LIST', 'PICKUP',
    'PICKUP_RFID', 'PICKUP_BLUETOOTH', 'TIMESLOT', 'DELIVERED', 'CHECKED_IN', 'APPROVAL', 'CATEGORY_CHANGED',
    'AVAILABLE_CATEGORIES', 'AVAILABILITY', 'STATION_AVAILABILITY', 'ESTIMATE_EXTENSION', 'BOOKABLE_CATEGORIES',
  ]),
  ...expand('GROUP_BOOKING_', ['LIST', 'CREATED']),
  ...expand('VEHICLE_COMMAND_', [
    'START', 'STOP', 'LOCK', 'UNLOCK', 'LOCATE', 'OPEN_SADDLE', 'OPEN_TAILBOX', 'LOCK_TAILBOX',
    'UNLOCK_TAILBOX', 'ALARM_ON', 'ALARM_OFF', 'SET_MAX_SPEED', 'CUSTOM_COMMAND', 'UNLOCK_BIKE_LOCK',
    'UNLOCK_STATION_PORT', 'REBOOT', 'UNKNOWN',
  ]),
  ...expand('VEHICLE_', [
    'LOCATE', 'UPDATE', 'BRANCH_CHANGED', 'TAGS_UPDATE', 'MAINTENANCE', 'OFFLINE', 'ONLINE',
    'OUT_OF_RENTAL_ACTIVITY', 'LOST_SCANNED_BY_USER', 'IOT_NOT_POWERED', 'IOT_POWERED', 'BULK_UPDATE',
    'TASK_BULK_CREATE', 'NOTE_BULK_CREATE', 'TAGS_BULK_UPDATE', 'BASE_DATA_CHANGED',
  ]),
  ...expand('VEHICLE_SERVICE_STATE_', ['OPERATIONAL', 'OUT_OF_ORDER', 'RETIRED', 'LOW_SOC', 'UNKNOWN']),
  ...expand('VEHICLE_SERVICE_STATE_V2_', [
    'FUNCTIONAL', 'INSPECT', 'RELOCATE', 'COLLECT', 'COLLECT_EXTERNAL', 'SERVICE_ON_SITE', 'SERVICE_WORKSHOP',
    'SERVICE_WORKSHOP_INSURANCE', 'SERVICE_WORKSHOP_QUEUE', 'SERVICE_EXTERNAL', 'SERVICE_MECHANICS', 'REPLACE',
    'IMPOUNDED', 'LOST', 'RETIRED', 'MAINTENANCE', 'OTHER', 'WAITING_FOR_PARTS', 'UNREPAIRABLE', 'DEFLEETED',
    'OPERATIONAL_HOLD', 'AWAITING_ACTION', 'REGULATORY_INSPECTION', 'REGULATORY_INSPECTION_READY',
    'READY_FOR_DEPLOYMENT', 'READY_FOR_DEPLOYMENT_NEW',
  ]),
  ...expand('VEHICLE_FAULT_STATE_', ['FAULT', 'ILLEGAL_MOVEMENT', 'FALLEN_OVER', 'MODULE_REMOVED', 'LIFTED_UP', 'UNKNOWN']),
  ...expand('VEHICLE_BATTERY_LEVEL_', ['UNKNOWN', 'CRITICAL', 'LOW', 'MEDIUM', 'HIGH']),
  ...expand('VEHICLE_BLUETOOTH_', [
    'UNRECOGNIZED_INTERACTION', 'INVALID_TOKEN_USAGE', 'UNAUTHORIZED_TOKEN_USAGE', 'ACTION_UNLOCK',
    'ACTION_LOCK', 'ACTION_UNKNOWN', 'NO_ACTION_POSSIBLE',
  ]),
  ...expand('VEHICLE_', ['RFID_READER_NO_ACTION', 'CHARGING_STARTED', 'CHARGING_ENDED', 'CHARGING_RESTRICTION_IGNORED']),
  ...expand('VEHICLE_MAINTENANCE_', ['APPROACH', 'DEPLOY', 'CLOSE']),
  ...expand('USER_', [
    'PASSWORD_RESET_EMAIL', 'PASSWORD_CHANGED', 'EMAIL_VERIFIED', 'EMAIL_CHANGED', 'LICENCE_VERIFICATION',
    'ID_DOCUMENT_VERIFICATION', 'MANUAL_VERIFICATION', 'CUSTOM_EXTERNAL_VERIFICATION', 'PROFILE_DATA_CHANGED',
    'PAYMENT_METHOD_ADD', 'PAYMENT_METHOD_CHANGED', 'PAYMENT_METHOD_REMOVED', 'PHONE_REGISTRATION_DENIED',
    'PHONE_REGISTRATION_DENIED_SILENT', 'PHONE_REGISTRATION_NO_SMS_SENT', 'TERMS_AND_CONDITIONS_ACCEPTED',
  ]),
  'BALANCE_SETTLEMENT_FAILED', 'BALANCE_SETTLEMENT_SUCCESSFUL', 'INVOICE_RETRY_PAYMENT', 'PACKAGE_BUY',
  'PACKAGE_BUY_PUSH', 'RIDE_PASS_RENEW', 'NOTIFICATION', 'GENERATE_BLUETOOTH_TOKEN', 'GENERATE_BLUETOOTH_TOKENS',
  ...expand('CUSTOMER_IDENTITY_CARD_', ['CREATE', 'CREATE_BULK', 'UPDATE', 'ASSIGN', 'UNASSIGN']),
  ...expand('VEHICLE_CARD_', ['CREATE', 'CREATE_BULK', 'UPDATE', 'ASSIGN', 'UNASSIGN']),
  ...expand('DRIVING_LOG_', ['SUBMIT', 'ENTRY_CREATE', 'ENTRY_UPDATE', 'ENTRY_DELETE']),
  ...expand('PHYSICAL_STATION_SLOT_VEHICLE_', ['CONNECTED', 'DISCONNECTED', 'ORPHANED']),
  'VEHICLE_CONNECTED_TO_UNKNOWN_SLOT',
  ...expand('PARKING_RESERVATION_', ['CREATED', 'REMOVED', 'CHANGED']),
];

/** The app's types (document 2, "App-posted events"); apps may post other APP_ names too. */
// prettier-ignore
const appTypes: readonly string[] = expand('APP_', [
  'START', 'LOGIN', 'SIGNUP', 'LOGOUT', 'CLOSE', 'INACTIVATE', 'ACTIVATE', 'MAP_NAVIGATION',
  'VEHICLE_SELECTION', 'BT_ACTION', 'BT_ACTION_FAIL', 'BT_LOCK', 'BT_UNLOCK',
]);

/**
 * Types this project writes beyond the spec's table: the rental and booking transitions' own names, the
 * invoice lifecycle, balances, pricing, damages, tasks, business accounts and rental authority.
 */
// prettier-ignore
const projectTypes: readonly string[] = [
  ...Object.values(rentalTransitions).map((transition) => transition.event),
  ...Object.values(bookingTransitions).map((transition) => transition.event),
  ...invoiceEventTypes,
  'INVOICE_CREATED', 'INVOICE_BILLED', 'INVOICE_RESENT',
  ...expand('BALANCE_', [
    'CREATED', 'UPDATED', 'DELETED', 'DEFAULT_SET', 'ACCESS_GRANTED', 'ACCESS_REVOKED', 'SETTLEMENT_STARTED',
    'SETTLED_BY_COLLECTION_INVOICE', 'DEPLETED',
  ]),
  ...expand('PRICING_', ['ASSIGNED', 'UNASSIGNED', 'BUNDLE_DELETED', 'VERSION_PUBLISHED', 'VERSION_APPLIED', 'VERSION_EXPIRED']),
  'DAMAGE_CREATED', 'DAMAGE_UPDATED',
  'TASK_CREATED', 'TASK_UPDATED', 'TASK_COMPLETED', 'TASK_DELETED',
  'USER_GROUP_CREATED',
  ...expand('USER_RENTAL_AUTHORITY_', ['GRANTED', 'REVOKED']),
];

/** One catalogued type: its name, family, and where it is defined. */
export interface EventTypeEntry {
  type: string;
  family: EventFamily;
  source: 'spec' | 'app' | 'project';
}

/** Every catalogued type once (the spec's first), in name order. */
export const eventTypeCatalogue: readonly EventTypeEntry[] = (() => {
  const entries = new Map<string, EventTypeEntry>();
  const add = (types: readonly string[], source: EventTypeEntry['source']) => {
    for (const type of types)
      if (!entries.has(type)) entries.set(type, { type, family: eventFamilyOf(type), source });
  };
  add(specTypes, 'spec');
  add(appTypes, 'app');
  add(projectTypes, 'project');
  return [...entries.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
})();

/** The sort keys of `GET /events` (`field` or `field,asc|desc`); the default is `createdAt,desc`. */
export const eventSortFields = ['id', 'createdAt', 'type'] as const;
export type EventSortField = (typeof eventSortFields)[number];

/**
 * `GET /events` counts matches up to this bound: X-Total-Count is exact below it and says this number
 * (with `X-Total-Count-Exact: false`) at or above it, and pages end there. Counting ten million rows for a
 * header would cost more than the search itself; a time range narrows a search to what it needs.
 */
export const EVENT_SEARCH_COUNT_LIMIT = 10_000;

/** How many months of partitions the schedule keeps created ahead of the current one. */
export const EVENT_PARTITION_MONTHS_AHEAD = 3;

/** One month's partition of the event table: `[from, to)` in UTC. */
export interface EventPartition {
  name: string;
  from: Date;
  to: Date;
}

/** The partition holding `at` (`event_p2026_11` holds November 2026, UTC). */
export function eventPartitionOf(at: Date): EventPartition {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  const month = String(from.getUTCMonth() + 1).padStart(2, '0');
  return { name: `event_p${from.getUTCFullYear()}_${month}`, from, to };
}

/** The partitions of the month of `at` and the `monthsAhead` months after it, oldest first. */
export function eventPartitionsAhead(at: Date, monthsAhead: number): EventPartition[] {
  const partitions: EventPartition[] = [];
  let month = eventPartitionOf(at);
  for (let i = 0; i <= monthsAhead; i += 1) {
    partitions.push(month);
    month = eventPartitionOf(month.to);
  }
  return partitions;
}
