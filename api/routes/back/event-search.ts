// The search over every stored event (`GET /events`, QueryDSL-style filters, sort, paging headers) and
// the event types the caller may read (`GET /events/types`). Both need EVENT_READ on some branch and show
// only what the caller's event family permissions cover; positions need POSITION_LOG_READ. docs/events.md.
import { Type } from '@sinclair/typebox';
import { branchDirectory } from '../../../db/branches.js';
import { searchEvents } from '../../../db/event-search.js';
import { DomainError } from '../../../domain/errors.js';
import {
  EVENT_SEARCH_COUNT_LIMIT,
  eventFamilies,
  eventFamilyPermissions,
  eventTypeCatalogue,
  type EventSortField,
} from '../../../domain/events.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Str, StringEnum } from '../../kernel/schemas.js';
import { EventSchema, toEventDto } from './event-representation.js';
import {
  callerEventAccess,
  positionShown,
  searchableFamilies,
  searchVisibility,
  type CallerEventAccess,
} from './event-visibility.js';

const tags = ['Events'];

/** Repeatable ids (`vehicle.id=1&vehicle.id=2`): any of them. */
const Ids = (what: string) =>
  Type.Optional(Type.Array(Id(), { maxItems: 100, description: `${what} (repeatable: any of them).` }));

/** A type name, or a comma-separated list of them. */
const typeList = '^[A-Z][A-Z0-9_]{0,99}(,[A-Z][A-Z0-9_]{0,99}){0,49}$';

const sortPattern = '^(id|createdAt|type)(,(asc|desc|ASC|DESC))?$';

/**
 * EVENT_READ on some branch, or AUTH002; the caller's access is loaded once for the access check and
 * the handler.
 */
async function searchAccess(ctx: RouteContext<unknown, unknown>): Promise<CallerEventAccess> {
  const access = await callerEventAccess(ctx);
  if ((access.family.get('GENERAL')?.size ?? 0) === 0)
    throw new DomainError('AUTH002', 'missing permission EVENT_READ on any branch');
  return access;
}

export const searchEventsRoute = defineRoute({
  operationId: 'searchEvents',
  method: 'get',
  path: '/events',
  interface: 'back',
  summary: 'Search every stored event',
  description: [
    'QueryDSL-style filters, combined with AND; a repeated filter matches any of its values: `type` (repeatable, or a comma-separated list), `guser.id`, `rental.id`, `booking.id`, `vehicle.id`, `branch.id` (repeatable; `includeChildBranches` adds their descendants), and the time range `createdAt.from` (inclusive) to `createdAt.to` (exclusive). Sort: `createdAt` (default, newest first), `id` or `type`, each `,asc` or `,desc`.',
    "Needs EVENT_READ on some branch. The result holds the events of the branches on which the caller holds EVENT_READ and the permission of the event's family (RENTAL_EVENT_READ for RENTAL_* types, BOOKING_EVENT_READ, VEHICLE_EVENT_READ, USER_EVENT_READ; EVENT_READ alone for types of no entity family; `GET /events/types`). Events of no branch (app events, sign-ins) appear when no `branch.id` is given, for the families the caller reads on some branch. A `branch.id` the caller may not read is AUTH002. Positions are null without POSITION_LOG_READ on the event's branch (tenant-wide for an event of no branch).",
    `X-Total-Count is exact below ${EVENT_SEARCH_COUNT_LIMIT.toLocaleString('en')} matches; from there it says ${EVENT_SEARCH_COUNT_LIMIT.toLocaleString('en')} with \`X-Total-Count-Exact: false\`, and pages end there (a page starting beyond is 0022): narrow the search with a time range.`,
  ].join('\n\n'),
  tags,
  query: Type.Object({
    type: Type.Optional(
      Type.Array(Str(5000, { pattern: typeList }), {
        maxItems: 50,
        description: 'Event types, e.g. `RENTAL_START` (repeatable, or comma-separated).',
      }),
    ),
    'guser.id': Ids('Customers'),
    'rental.id': Ids('Rentals'),
    'booking.id': Ids('Bookings'),
    'vehicle.id': Ids('Vehicles'),
    'branch.id': Ids('Branches'),
    includeChildBranches: Type.Optional(
      Type.Boolean({ default: false, description: "With `branch.id`: also the branches' descendants." }),
    ),
    'createdAt.from': Type.Optional(DateTime({ description: 'createdAt at or after.' })),
    'createdAt.to': Type.Optional(DateTime({ description: 'createdAt before.' })),
    sort: Type.Optional(Type.String({ pattern: sortPattern, maxLength: 20, default: 'createdAt,desc' })),
  }),
  paged: { defaultSize: 50 },
  rateLimit: 'search',
  access: {
    anyCaller:
      'the handler requires EVENT_READ on some branch (AUTH002 otherwise) and shows only the events the caller may read (see the description).',
  },
  responses: {
    200: {
      description: 'One page of events',
      schema: Type.Array(EventSchema),
      headers: {
        'X-Total-Count-Exact': {
          description: `false when X-Total-Count stopped counting at ${EVENT_SEARCH_COUNT_LIMIT}.`,
          schema: Type.Boolean(),
        },
      },
    },
  },
  errors: ['AUTH002', 'B404'],
  async handler(ctx) {
    const { query, page } = ctx;
    const access = await searchAccess(ctx);
    if (page.offset >= EVENT_SEARCH_COUNT_LIMIT)
      throw new DomainError(
        '0022',
        `pages end at the first ${EVENT_SEARCH_COUNT_LIMIT} matches; narrow the search with createdAt.from / createdAt.to`,
      );
    let branches: Set<number> | undefined;
    if (query['branch.id']?.length) {
      const { branches: directory } = await branchDirectory(ctx.em, ctx.tenant);
      branches = new Set();
      for (const branchId of query['branch.id']) {
        if (!directory.has(branchId)) throw new DomainError('B404', `branch ${branchId} not found`);
        if (!access.family.get('GENERAL')!.has(branchId))
          throw new DomainError('AUTH002', `missing permission EVENT_READ on branch ${branchId}`);
        branches.add(branchId);
      }
      if (query.includeChildBranches)
        for (const [id] of directory) {
          // A branch whose ancestry reaches a requested one is its descendant.
          let parent = directory.get(id)?.parentId ?? null;
          for (let depth = 0; parent !== null && depth <= 32; depth += 1) {
            if (query['branch.id'].includes(parent)) {
              branches.add(id);
              break;
            }
            parent = directory.get(parent)?.parentId ?? null;
          }
        }
    }
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [EventSortField, string?];
    const { rows, total, exact } = await searchEvents(
      ctx.em,
      ctx.tenant,
      {
        types: query.type ? [...new Set(query.type.flatMap((list) => list.split(',')))] : undefined,
        customerIds: query['guser.id'],
        rentalIds: query['rental.id'],
        bookingIds: query['booking.id'],
        vehicleIds: query['vehicle.id'],
        from: query['createdAt.from'] === undefined ? undefined : clampedInstant(query['createdAt.from']),
        to: query['createdAt.to'] === undefined ? undefined : clampedInstant(query['createdAt.to']),
        sort: { field, direction: direction?.toLowerCase() === 'desc' ? 'desc' : 'asc' },
        limit: page.size,
        offset: page.offset,
        countLimit: EVENT_SEARCH_COUNT_LIMIT,
      },
      searchVisibility(access, branches),
    );
    return ok(
      rows.map((row) => toEventDto(row, positionShown(access, row.branch_id))),
      { total, headers: { 'X-Total-Count-Exact': String(exact) } },
    );
  },
});

const EventTypeSchema = component(
  'EventType',
  Type.Object(
    {
      type: Type.String(),
      family: StringEnum(eventFamilies),
      permission: Type.String({ description: "The permission the family's events need on their branch." }),
      source: StringEnum(['spec', 'app', 'project'] as const, {
        description:
          "Where the type is defined: the spec's backend table, the app's APP_ types, or this project.",
      }),
    },
    { additionalProperties: false },
  ),
);

export const listEventTypes = defineRoute({
  operationId: 'listEventTypes',
  method: 'get',
  path: '/events/types',
  interface: 'back',
  summary: 'The event types the caller may read',
  description:
    "The catalogued types (the spec's backend table, the app's APP_ types and the types this project writes) of the families whose events the search shows the caller: a family's types when the caller holds its permission (RENTAL_EVENT_READ, BOOKING_EVENT_READ, VEHICLE_EVENT_READ, USER_EVENT_READ; EVENT_READ for the GENERAL family) together with EVENT_READ on some branch. Apps may post other APP_ names; they are searchable like any type. Needs EVENT_READ on some branch. In name order.",
  tags,
  access: {
    anyCaller:
      'the handler requires EVENT_READ on some branch (AUTH002 otherwise) and lists what the caller reads.',
  },
  responses: { 200: { description: 'Event types', schema: Type.Array(EventTypeSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    const families = new Set(searchableFamilies(await searchAccess(ctx)));
    return ok(
      eventTypeCatalogue
        .filter((entry) => families.has(entry.family))
        .map((entry) => ({ ...entry, permission: eventFamilyPermissions[entry.family] })),
    );
  },
});

/** `/events` and `/events/types` (the fixed path is mounted before nothing else at `/events`). */
export const eventSearchRoutes = [listEventTypes, searchEventsRoute];
