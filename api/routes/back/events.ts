import { Type, type Static } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from '../../../db/entities/Branch.js';
import { Event } from '../../../db/entities/Event.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import { ok, defineRoute, type AnyRoute, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Position, StringEnum } from '../../kernel/schemas.js';

const EventSchema = component(
  'Event',
  Type.Object(
    {
      id: Type.Integer({ format: 'int64', minimum: 1 }),
      type: Type.String(),
      createdAt: DateTime(),
      branchId: Nullable(Id()),
      vehicleId: Nullable(Id()),
      rentalId: Nullable(Id()),
      bookingId: Nullable(Id()),
      guserId: Nullable(Id()),
      adminGuser: Nullable(Type.String()),
      position: Nullable(Position),
      description: Nullable(Type.String()),
      payload: Nullable(Type.Object({})),
    },
    { additionalProperties: false },
  ),
);

/** The API's event representation; GPS positions only for callers holding POSITION_LOG_READ. */
export function toEventDto(event: Event, showPosition: boolean): Static<typeof EventSchema> {
  return {
    id: Number(event.id),
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    branchId: event.branchId ?? null,
    vehicleId: event.vehicleId ?? null,
    rentalId: event.rentalId ?? null,
    bookingId: event.bookingId ?? null,
    guserId: event.customerId ?? null,
    adminGuser: event.adminSubject ?? null,
    position: showPosition ? (event.position ?? null) : null,
    description: event.description ?? null,
    payload: event.payload ?? null,
  };
}

/**
 * A kind of entity whose event timeline `GET /{entityType}/{entityId}/events` serves. Each domain declares
 * its own (its registration's `timelines`); the route's entity types are theirs, in domain order.
 */
export interface EntityTimeline {
  /** The path value, e.g. `RENTALS`. */
  entityType: string;
  /** Answered when the entity does not exist. */
  notFound: ErrorCode;
  /**
   * The branches whose EVENT_READ the timeline needs: `one` branch (the entity's own), or `readable` for
   * entities of the whole tenant (customers), whose timeline shows the events of the branches the caller
   * holds EVENT_READ on and those of no branch. Null when the entity does not exist.
   */
  scope(em: EntityManager, entityId: number): Promise<{ branchId: number } | 'readable' | null>;
  /** The timeline's events; `includeRelatedEvents` as the query asks (a timeline may ignore it). */
  events(em: EntityManager, entityId: number, includeRelatedEvents: boolean): Promise<FilterQuery<Event>>;
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

  /** The branches (ids) on which the caller holds a permission, for timelines of tenant-wide entities. */
  async function branchesHolding(ctx: RouteContext, permission: string): Promise<number[]> {
    const branches = await ctx.em.find(Branch, {}, { fields: ['id'], orderBy: { id: 'asc' } });
    const holding: number[] = [];
    for (const branch of branches)
      if (await ctx.holds({ permission, branchId: branch.id })) holding.push(branch.id);
    return holding;
  }

  const entityEvents = defineRoute({
    operationId: 'entityEvents',
    method: 'get',
    path: '/{entityType}/{entityId}/events',
    interface: 'back',
    summary: "An entity's event timeline, oldest first",
    description:
      "Rentals, vehicles and bookings need EVENT_READ on the entity's branch. A customer belongs to the whole tenant: the customer's timeline needs EVENT_READ on some branch and shows the events of the branches the caller holds it on, and those of no branch (sign-in, profile). Positions are shown only to callers holding POSITION_LOG_READ on the event's branch.",
    tags: ['Events'],
    params: Type.Object({ entityType: StringEnum(entityTypes), entityId: Id() }),
    query: Type.Object({
      includeRelatedEvents: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            "RENTALS only: adds the rental's vehicle events of the trip (from reservation to end, or now while open).",
        }),
      ),
    }),
    paged: { defaultSize: 50 },
    access: {
      anyCaller:
        "the handler requires EVENT_READ on the entity's branch, or for a customer on the branches whose events it shows (AUTH002 when none).",
    },
    responses: { 200: { description: 'Events', schema: Type.Array(EventSchema) } },
    errors: ['AUTH002', 'B404', ...timelines.map((timeline) => timeline.notFound)],
    async handler(ctx) {
      const { em, params, query, page } = ctx;
      const timeline = timelineOf(params.entityType);
      const scope = await scopeOf(ctx);
      let where = await timeline.events(em, params.entityId, query.includeRelatedEvents ?? false);
      let positionBranches: (branchId: number | null | undefined) => boolean;
      if (scope === 'readable') {
        const readable = await branchesHolding(ctx, 'EVENT_READ');
        if (readable.length === 0)
          throw new DomainError('AUTH002', 'missing permission EVENT_READ on any branch');
        where = { $and: [where, { $or: [{ branchId: { $in: readable } }, { branchId: null }] }] };
        const positions = new Set(await branchesHolding(ctx, 'POSITION_LOG_READ'));
        positionBranches = (branchId) => branchId != null && positions.has(branchId);
      } else {
        await ctx.authorize('EVENT_READ', scope);
        const showPosition = await ctx.holds({ permission: 'POSITION_LOG_READ', branchId: scope.branchId });
        positionBranches = () => showPosition;
      }
      const [events, total] = await em.findAndCount(Event, where, {
        orderBy: { id: 'asc' },
        limit: page.size,
        offset: page.offset,
      });
      return ok(
        events.map((event) => toEventDto(event, positionBranches(event.branchId))),
        { total },
      );
    },
  });
  return [entityEvents];
}
