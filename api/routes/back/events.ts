import { Type, type Static } from '@sinclair/typebox';
import { Booking } from '../../../db/entities/Booking.js';
import { Event } from '../../../db/entities/Event.js';
import { Rental } from '../../../db/entities/Rental.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { DomainError } from '../../../domain/errors.js';
import { ok, defineRoute, type RouteContext } from '../../kernel/route.js';
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

const entityTypes = ['RENTALS', 'VEHICLES', 'BOOKINGS'] as const;

const notFound = { RENTALS: 'R404', VEHICLES: 'V404', BOOKINGS: 'B300' } as const;

/** The branch of the entity whose timeline is asked for, loaded once per request. */
const ownerBranchOf = (
  ctx: RouteContext<{ entityType: (typeof entityTypes)[number]; entityId: number }>,
): Promise<number> =>
  ctx.once('owner-branch', async () => {
    const { entityType, entityId } = ctx.params;
    const owner: { branch: { id: number } } | null =
      entityType === 'RENTALS'
        ? await ctx.em.findOne(Rental, entityId, { fields: ['branch'] })
        : entityType === 'BOOKINGS'
          ? await ctx.em.findOne(Booking, entityId, { fields: ['branch'] })
          : await ctx.em.findOne(Vehicle, entityId, { fields: ['branch'] });
    if (!owner) throw new DomainError(notFound[entityType]);
    return owner.branch.id;
  });

/** `GET /{entityType}/{entityId}/events`: an entity's timeline, for support and audits. */
export const entityEvents = defineRoute({
  operationId: 'entityEvents',
  method: 'get',
  path: '/{entityType}/{entityId}/events',
  interface: 'back',
  summary: "An entity's event timeline, oldest first",
  description: 'Positions are shown only to callers holding POSITION_LOG_READ on the branch.',
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
    permission: 'EVENT_READ',
    branchOf: 'the entity',
    branch: (ctx) => ownerBranchOf(ctx),
  },
  responses: { 200: { description: 'Events', schema: Type.Array(EventSchema) } },
  errors: ['R404', 'V404', 'B300'],
  async handler(ctx) {
    const { em, params, query, page } = ctx;
    const showPosition = await ctx.holds({
      permission: 'POSITION_LOG_READ',
      branchId: await ownerBranchOf(ctx),
    });
    let where: Record<string, unknown> =
      params.entityType === 'RENTALS'
        ? { rentalId: params.entityId }
        : params.entityType === 'BOOKINGS'
          ? { bookingId: params.entityId }
          : { vehicleId: params.entityId };
    if (params.entityType === 'RENTALS' && query.includeRelatedEvents) {
      const rental = await em.findOneOrFail(Rental, params.entityId, {
        fields: ['vehicle', 'reservedAt', 'endedAt'],
      });
      where = {
        $or: [
          { rentalId: params.entityId },
          {
            vehicleId: rental.vehicle.id,
            createdAt: { $gte: rental.reservedAt, ...(rental.endedAt ? { $lte: rental.endedAt } : {}) },
          },
        ],
      };
    }
    const [events, total] = await em.findAndCount(Event, where, {
      orderBy: { id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(
      events.map((event) => toEventDto(event, showPosition)),
      { total },
    );
  },
});

export const eventRoutes = [entityEvents];
