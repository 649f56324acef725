// Entity event timelines: `GET /{entityType}/{entityId}/events` for every timeline the domains declare
// (CUSTOMERS, RENTALS, BOOKINGS, VEHICLES), with `includeRelatedEvents` adding the trips' vehicle events.
// The search over every event is api/routes/back/event-search.ts.
import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { timelineEvents, type TimelineSelection } from '../../../db/event-search.js';
import { eventFamilyPermissions, type EventFamily } from '../../../domain/events.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import { ok, defineRoute, type AnyRoute, type RouteContext } from '../../kernel/route.js';
import { Id, StringEnum } from '../../kernel/schemas.js';
import { EventSchema, toEventDto } from './event-representation.js';
import { callerEventAccess, positionShown, timelineVisibility } from './event-visibility.js';

export { toEventDto } from './event-representation.js';

/**
 * A kind of entity whose event timeline `GET /{entityType}/{entityId}/events` serves. Each domain declares
 * its own (its registration's `timelines`); the route's entity types are theirs, in domain order.
 */
export interface EntityTimeline {
  /** The path value, e.g. `RENTALS`. */
  entityType: string;
  /** Answered when the entity does not exist. */
  notFound: ErrorCode;
  /** The event family whose permission the timeline needs (RENTAL → RENTAL_EVENT_READ, ...). */
  family: Exclude<EventFamily, 'GENERAL'>;
  /**
   * Where that permission is needed: the entity's own branch, or `readable` for entities of the whole
   * tenant (customers): some branch. Null when the entity does not exist.
   */
  scope(em: EntityManager, entityId: number): Promise<{ branchId: number } | 'readable' | null>;
  /** The timeline's events; `includeRelatedEvents` as the query asks. */
  selection(em: EntityManager, entityId: number, includeRelatedEvents: boolean): Promise<TimelineSelection>;
}

/** The route serving every declared timeline. */
export function entityEventRoutes(timelines: readonly EntityTimeline[]): AnyRoute[] {
  const entityTypes = timelines.map((timeline) => timeline.entityType);
  const timelineOf = (entityType: string) =>
    timelines.find((timeline) => timeline.entityType === entityType)!;

  /** The scope of the entity whose timeline is asked for, loaded once per request. */
  const scopeOf = (ctx: RouteContext<{ entityType: string; entityId: number }>) =>
    ctx.once('timeline-scope', async () => {
      const timeline = timelineOf(ctx.params.entityType);
      const scope = await timeline.scope(ctx.em, ctx.params.entityId);
      if (!scope) throw new DomainError(timeline.notFound);
      return scope;
    });

  const entityEvents = defineRoute({
    operationId: 'entityEvents',
    method: 'get',
    path: '/{entityType}/{entityId}/events',
    interface: 'back',
    summary: "An entity's event timeline, oldest first",
    description:
      "Needs the entity's event permission on its branch: RENTALS RENTAL_EVENT_READ, BOOKINGS BOOKING_EVENT_READ, VEHICLES VEHICLE_EVENT_READ; a customer belongs to the whole tenant, so CUSTOMERS needs USER_EVENT_READ on some branch. The timeline shows the events whose family permission the caller holds on the event's branch (an event of no branch: on some branch; types of no entity family need EVENT_READ). Positions only with POSITION_LOG_READ on the event's branch (tenant-wide for an event of no branch).",
    tags: ['Events'],
    params: Type.Object({ entityType: StringEnum(entityTypes), entityId: Id() }),
    query: Type.Object({
      includeRelatedEvents: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            "Adds the vehicle events of the entity's trips (a trip: a rental from its reservation to its end, or now while open): RENTALS its own, BOOKINGS its rental's, CUSTOMERS those of the customer's rentals; VEHICLES adds the events of the vehicle's rentals that do not name the vehicle.",
        }),
      ),
    }),
    paged: { defaultSize: 50 },
    access: {
      anyCaller:
        "the handler requires the entity's event permission on the entity's branch, or for a customer on some branch (AUTH002 otherwise), and shows only the events the caller's family permissions cover.",
    },
    responses: { 200: { description: 'Events', schema: Type.Array(EventSchema) } },
    errors: ['AUTH002', 'B404', ...timelines.map((timeline) => timeline.notFound)],
    async handler(ctx) {
      const { em, params, query, page } = ctx;
      const timeline = timelineOf(params.entityType);
      const scope = await scopeOf(ctx);
      const permission = eventFamilyPermissions[timeline.family];
      if (scope === 'readable') {
        if (!(await ctx.holds({ permission })))
          throw new DomainError('AUTH002', `missing permission ${permission} on any branch`);
      } else await ctx.authorize(permission, scope);
      const access = await callerEventAccess(ctx);
      const selection = await timeline.selection(em, params.entityId, query.includeRelatedEvents ?? false);
      const { rows, total } = await timelineEvents(em, ctx.tenant, selection, timelineVisibility(access), {
        limit: page.size,
        offset: page.offset,
      });
      return ok(
        rows.map((row) => toEventDto(row, positionShown(access, row.branch_id))),
        { total },
      );
    },
  });
  return [entityEvents];
}

/** The trip of a rental: its vehicle from its reservation to its end (now while it is open). */
export function tripOf(rental: { vehicle: { id: number }; reservedAt: Date; endedAt?: Date | null }) {
  return { vehicleId: rental.vehicle.id, from: rental.reservedAt, to: rental.endedAt ?? new Date() };
}
