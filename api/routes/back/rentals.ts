// The operator's rentals: list, export and passed-through lists with their filters, one rental and its
// route, create a rental for a customer, run an operation and cancel a reservation. The rental
// representation and the commands the app shares are in api/shared/rental-*.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Rental } from '../../../db/entities/Rental.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { preparedRows } from '../../../db/prepared.js';
import { DomainError } from '../../../domain/errors.js';
import {
  rentalOperationTypes,
  rentalStates,
  terminalRentalStates,
  type RentalState as RentalStateName,
} from '../../../domain/rental.js';
import { rentalOperationUpdate } from '../../../workflows/rental.messages.js';
import {
  businessContextFields,
  checkBusinessContext,
  createRental,
  rentalRecord,
  rentalCreationErrors,
  rentalPopulate,
  vehicleOfRequest,
  customerExists,
} from '../../shared/rental-creation.js';
import { created, ok, defineRoute, linksById, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import {
  RentalSchema,
  RentalState,
  rentalOf,
  toRentalDto,
  toRentalDtoWithRunningPrice,
} from '../../shared/rental-representation.js';
import { cancelRental, rentalOperationErrors, workflowOf } from '../../shared/rental-commands.js';

const RentalOperationType = component('RentalOperationType', StringEnum(rentalOperationTypes));

const AdminAddRental = component(
  'AdminAddRental',
  Type.Object(
    {
      guserId: Id({ description: 'Customer the rental is for.' }),
      vehicleId: Type.Optional(Id()),
      vehicleCode: Type.Optional(Str(64, { minLength: 1 })),
      branchId: Type.Optional(Id({ description: "Optional; must be the vehicle's branch when given." })),
      startImmediately: Type.Optional(
        Type.Boolean({ default: false, description: 'Create an ACTIVE rental (unlocks the vehicle).' }),
      ),
      ...businessContextFields,
    },
    {
      additionalProperties: false,
      description:
        'Normal rental creation plus operator context: the operator creates a rental for a customer. Give exactly one of vehicleId and vehicleCode.',
      oneOf: [{ required: ['vehicleId'] }, { required: ['vehicleCode'] }],
    },
  ),
);

export const RentalOperation = component(
  'RentalOperation',
  Type.Object(
    {
      operationType: RentalOperationType,
      adminOverride: Type.Optional(
        Type.Boolean({ default: false, description: 'Administrative override of failed end requirements.' }),
      ),
      userPosition: Type.Optional(Position),
    },
    { additionalProperties: false },
  ),
);

const RentalIdParams = Type.Object({ rentalId: Id() });

const rentalLinks = linksById(
  'rentalId',
  {
    GetRental: 'getRental',
    RentalOperation: 'rentalOperation',
    CancelReservation: 'cancelReservation',
    RentalRoute: 'rentalRoute',
  },
  { link: 'RentalEvents', entityType: 'RENTALS' },
);

/** The branch of the rental of the path: where its permissions are checked. */
const rentalBranch = async (ctx: RouteContext<{ rentalId: number }>) => (await rentalOf(ctx)).branch.id;

/**
 * What an operation needs of the rental of the path before its workflow runs (its branch for the access
 * check, its state), read once per request without loading the entity: the answer reloads it anyway.
 */
const rentalSummaryOf = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once('rental-summary', async () => {
    const [row] = await preparedRows<{ branch_id: number; state: RentalStateName }>(
      ctx.em,
      'select branch_id, state from rental where tenant_id = $1 and id = $2',
      [ctx.tenant, ctx.params.rentalId],
    );
    if (!row) throw new DomainError('R404', `rental ${ctx.params.rentalId} not found`);
    return { id: ctx.params.rentalId, branchId: Number(row.branch_id), state: row.state };
  });

/** The vehicle a creation names, loaded once per request. */
const vehicleOf = (ctx: RouteContext<unknown, unknown, { vehicleId?: number; vehicleCode?: string }>) =>
  ctx.once('vehicle', () => vehicleOfRequest(ctx.em, ctx.tenant, ctx.body));

const tags = ['Rentals'];

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/** Time-range filters on the rental's clock: `from` inclusive, `to` exclusive. */
const timeRanges = {
  reservedFrom: Type.Optional(DateTime({ description: 'reservedAt at or after.' })),
  reservedTo: Type.Optional(DateTime({ description: 'reservedAt before.' })),
  startedFrom: Type.Optional(DateTime({ description: 'startedAt at or after.' })),
  startedTo: Type.Optional(DateTime({ description: 'startedAt before.' })),
  endedFrom: Type.Optional(DateTime({ description: 'endedAt at or after.' })),
  endedTo: Type.Optional(DateTime({ description: 'endedAt before.' })),
};

/** The filters of the rental list, shared by the export. */
const RentalFilters = Type.Object({
  branchId: Id(),
  includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  state: Type.Optional(
    Type.Array(RentalState, { maxItems: rentalStates.length, description: 'Repeatable.' }),
  ),
  vehicleId: Type.Optional(Id()),
  guserId: Type.Optional(Id()),
  userGroupId: Type.Optional(Id({ description: 'Business rentals of this business account.' })),
  ...timeRanges,
  searchText: Type.Optional(
    Str(100, {
      minLength: 1,
      description: "Part of the vehicle's code or licence plate, or of the customer's first or last name.",
    }),
  ),
});

type RentalFilterQuery = Static<typeof RentalFilters>;

/** `%text%` for ILIKE with the LIKE wildcards of the text taken literally. */
const containing = (text: string) => `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A time range condition, or undefined when neither end is given. */
function range(from: string | undefined, to: string | undefined) {
  if (from === undefined && to === undefined) return undefined;
  return {
    ...(from === undefined ? {} : { $gte: new Date(from) }),
    ...(to === undefined ? {} : { $lt: new Date(to) }),
  };
}

/** The branches a query covers: the branch, and its descendants with includeChildBranches. */
const branchesOf = (
  em: EntityManager,
  tenant: string,
  query: { branchId: number; includeChildBranches?: boolean },
) =>
  query.includeChildBranches
    ? branchWithDescendants(em, tenant, query.branchId)
    : Promise.resolve([query.branchId]);

/** The MikroORM condition of the list filters (AND of every filter given). */
async function rentalWhere(
  em: EntityManager,
  tenant: string,
  query: RentalFilterQuery,
): Promise<Record<string, unknown>> {
  const where: Record<string, unknown> = { branch: { $in: await branchesOf(em, tenant, query) } };
  if (query.state) where.state = { $in: query.state };
  if (query.vehicleId) where.vehicle = query.vehicleId;
  if (query.guserId) where.customer = query.guserId;
  if (query.userGroupId) where.userGroup = query.userGroupId;
  const ranges = {
    reservedAt: range(query.reservedFrom, query.reservedTo),
    startedAt: range(query.startedFrom, query.startedTo),
    endedAt: range(query.endedFrom, query.endedTo),
  };
  for (const [field, condition] of Object.entries(ranges)) if (condition) where[field] = condition;
  if (query.searchText?.trim()) {
    const text = containing(query.searchText);
    where.$or = [
      { vehicle: { code: { $ilike: text } } },
      { vehicle: { licensePlate: { $ilike: text } } },
      { customer: { firstName: { $ilike: text } } },
      { customer: { lastName: { $ilike: text } } },
    ];
  }
  return where;
}

export const listRentals = defineRoute({
  operationId: 'listRentals',
  method: 'get',
  path: '/rentals',
  interface: 'back',
  summary: 'Rentals of a branch, newest first',
  description:
    'Filters combine (AND); `state` is repeatable; time ranges are `from` inclusive, `to` exclusive; `searchText` matches part of the vehicle code or plate or the customer name.',
  tags,
  query: Type.Object({
    ...RentalFilters.properties,
    sort: Type.Optional(
      Type.String({
        pattern: '^(id|createdAt|reservedAt|startedAt|endedAt|state)(,(asc|desc|ASC|DESC))?$',
        maxLength: 20,
        default: 'createdAt,desc',
      }),
    ),
  }),
  paged: { defaultSize: 20 },
  rateLimit: 'search',
  access: {
    permission: 'RENTAL_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of rentals', schema: Type.Array(RentalSchema) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const [rentals, total] = await em.findAndCount(Rental, await rentalWhere(em, tenant, query), {
      populate: rentalPopulate,
      orderBy: orderBy(query.sort, 'createdAt,desc'),
      limit: page.size,
      offset: page.offset,
    });
    return ok(rentals.map(toRentalDto), { total });
  },
});

/** `GET /rentals/export`: the synchronous JSON export of the list's filters, in id order with a cursor. */
export const exportRentals = defineRoute({
  operationId: 'exportRentals',
  method: 'get',
  path: '/rentals/export',
  interface: 'back',
  summary: 'Export rentals (synchronous JSON)',
  description:
    'The filters of `GET /rentals`; up to `limit` rentals (default 1000, at most 10,000) after `afterId`, in id order. Pass the last id as `afterId` for the next part.',
  tags,
  query: Type.Object({
    ...RentalFilters.properties,
    afterId: Type.Optional(Int(0, 2147483647)),
    limit: Type.Optional(Int(1, 10_000, { default: 1000 })),
  }),
  access: {
    permission: 'RENTAL_EXPORT',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Rentals', schema: Type.Array(RentalSchema) } },
  errors: [],
  async handler({ em, tenant, query }) {
    const where = await rentalWhere(em, tenant, query);
    const rentals = await em.find(
      Rental,
      { $and: [where, { id: { $gt: query.afterId ?? 0 } }] },
      { populate: rentalPopulate, orderBy: { id: 'asc' }, limit: query.limit ?? 1000 },
    );
    return ok(rentals.map(toRentalDto));
  },
});

/** `GET /rentals/passed-through`: rentals of other branches that ended in this one (docs/rentals.md). */
export const listPassedThroughRentals = defineRoute({
  operationId: 'listPassedThroughRentals',
  method: 'get',
  path: '/rentals/passed-through',
  interface: 'back',
  summary: 'Rentals of other branches that ended in this branch',
  description:
    "Rentals whose end position lay in this branch's business area (`endBranchId`) while they belong to another branch: the vehicles this branch now holds for others. With `includeChildBranches` the branch's subtree counts as one. Newest end first.",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    endedFrom: timeRanges.endedFrom,
    endedTo: timeRanges.endedTo,
  }),
  paged: { defaultSize: 20 },
  access: {
    permission: 'RENTAL_READ',
    branchOf: 'query parameter branchId (the end branch)',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of rentals', schema: Type.Array(RentalSchema) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = await branchesOf(em, tenant, query);
    const where: Record<string, unknown> = {
      endBranch: { $in: branches },
      branch: { $nin: branches },
    };
    const ended = range(query.endedFrom, query.endedTo);
    if (ended) where.endedAt = ended;
    const [rentals, total] = await em.findAndCount(Rental, where, {
      populate: rentalPopulate,
      orderBy: { endedAt: 'desc', id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(rentals.map(toRentalDto), { total });
  },
});

export const getRental = defineRoute({
  operationId: 'getRental',
  method: 'get',
  path: '/rentals/{rentalId}',
  interface: 'back',
  summary: 'One rental',
  tags,
  params: RentalIdParams,
  access: { permission: 'RENTAL_READ', branchOf: 'the rental', branch: (ctx) => rentalBranch(ctx) },
  responses: { 200: { description: 'The rental', schema: RentalSchema } },
  errors: ['R404'],
  async handler(ctx) {
    return ok(await toRentalDtoWithRunningPrice(ctx.em, await rentalOf(ctx)));
  },
});

const Waypoint = component(
  'RentalWaypoint',
  Type.Object(
    {
      time: DateTime({ description: 'Device time of the telemetry message.' }),
      lat: Type.Number(),
      lng: Type.Number(),
      speedKmh: Nullable(Type.Number()),
    },
    { additionalProperties: false },
  ),
);

const RentalRoute = component(
  'RentalRoute',
  Type.Object(
    {
      rentalId: Id(),
      vehicleId: Id(),
      from: Nullable(DateTime({ description: 'startedAt; null before the rental started.' })),
      to: Nullable(DateTime({ description: 'endedAt, or the time of the request while the rental runs.' })),
      totalPoints: Type.Integer({ minimum: 0, description: 'Telemetry messages in the window.' }),
      sampled: Type.Boolean({
        description: 'Whether evenly spaced points were kept because there were more than maxPoints.',
      }),
      waypoints: Type.Array(Waypoint),
    },
    { additionalProperties: false },
  ),
);

/** `GET /rentals/{rentalId}/routes`: the trip's waypoints from the vehicle's telemetry history. */
export const rentalRoute = defineRoute({
  operationId: 'rentalRoute',
  method: 'get',
  path: '/rentals/{rentalId}/routes',
  interface: 'back',
  summary: "The rental's route: waypoints from its vehicle's telemetry between start and end",
  description:
    'Ordered by device time. More than `maxPoints` messages are thinned to evenly spaced ones (the last is always kept). A rental that never started has no route.',
  tags,
  params: RentalIdParams,
  query: Type.Object({
    maxPoints: Type.Optional(Int(2, 5000, { default: 1000, description: 'Most waypoints returned.' })),
  }),
  access: { permission: 'RENTAL_READ', branchOf: 'the rental', branch: (ctx) => rentalBranch(ctx) },
  responses: { 200: { description: 'The route', schema: RentalRoute } },
  errors: ['R404'],
  async handler(ctx) {
    const rental = await rentalOf(ctx);
    const from = rental.startedAt ?? null;
    const to = from ? (rental.endedAt ?? new Date()) : null;
    const maxPoints = ctx.query.maxPoints ?? 1000;
    const rows = from
      ? await ctx.em.execute<
          {
            reported_at: Date;
            latitude: number;
            longitude: number;
            speed_kmh: number | null;
            total: string;
          }[]
        >(
          `select reported_at, latitude, longitude, speed_kmh, total from (
             select reported_at, latitude, longitude, speed_kmh,
                    row_number() over (order by reported_at, id) as rn, count(*) over () as total
               from vehicle_telemetry
              where tenant_id = ? and vehicle_id = ? and reported_at >= ? and reported_at <= ?
           ) points
           where (rn - 1) % greatest(1, ceil(total::numeric / ?))::bigint = 0 or rn = total
           order by rn`,
          [ctx.tenant, rental.vehicle.id, from, to, maxPoints - 1],
        )
      : [];
    const totalPoints = Number(rows[0]?.total ?? 0);
    return ok({
      rentalId: rental.id,
      vehicleId: rental.vehicle.id,
      from: iso(from),
      to: iso(to),
      totalPoints,
      sampled: totalPoints > rows.length,
      waypoints: rows.map((row) => ({
        time: new Date(row.reported_at).toISOString(),
        lat: row.latitude,
        lng: row.longitude,
        speedKmh: row.speed_kmh ?? null,
      })),
    });
  },
});

export const adminAddRental = defineRoute({
  operationId: 'adminAddRental',
  method: 'post',
  path: '/rentals',
  interface: 'back',
  summary: 'Create a rental for a customer (starts the rental workflow in RESERVATION)',
  description:
    'With `startImmediately` the caller also needs RENTAL_OPERATE on the branch; when the immediate start fails the rental stays in RESERVATION. A business rental names `userGroupId` (the customer must be an active member), optionally `costCenterId` and `reason` (see docs/rentals.md).',
  tags,
  body: AdminAddRental,
  access: {
    permission: 'RENTAL_CREATE',
    branchOf: 'the vehicle',
    branch: async (ctx) => (await vehicleOf(ctx)).branch.id,
  },
  responses: {
    201: {
      description: 'Rental created',
      schema: RentalSchema,
      headers: { Location: { description: 'URL of the new rental.', schema: Str(200) } },
      links: rentalLinks,
    },
  },
  errors: [...rentalCreationErrors, 'R105'],
  async handler(ctx) {
    const { em, tenant, body, actor, services } = ctx;
    const vehicle = await vehicleOf(ctx);
    if (body.startImmediately) await ctx.authorize('RENTAL_OPERATE', { branchId: vehicle.branch.id });
    if (body.branchId !== undefined && body.branchId !== vehicle.branch.id) {
      throw new DomainError(
        'R105',
        `vehicle ${vehicle.code} belongs to branch ${vehicle.branch.id}, not ${body.branchId}`,
      );
    }
    if (!(await customerExists(em, tenant, body.guserId)))
      throw new DomainError('U106', `customer ${body.guserId} not found`);
    const business = await checkBusinessContext(em, body.guserId, body);
    const rental = await createRental(em, services, {
      tenant,
      vehicle,
      customerId: body.guserId,
      requestedBy: actor,
      startImmediately: body.startImmediately ?? false,
      business,
    });
    return created(toRentalDto(rental), { Location: `${ctx.baseUrl}/rentals/${rental.id}` });
  },
});

export const rentalOperation = defineRoute({
  operationId: 'rentalOperation',
  method: 'post',
  path: '/rentals/{rentalId}/operation',
  interface: 'back',
  summary: 'Run START, END, PARK, DRIVE, RENEW_RESERVATION or OPEN_TAILBOX',
  description: 'A Workflow Update: answers once the vehicle has acted and the transition is recorded.',
  tags,
  params: RentalIdParams,
  body: RentalOperation,
  access: {
    permission: 'RENTAL_OPERATE',
    branchOf: 'the rental',
    branch: async (ctx) => (await rentalSummaryOf(ctx)).branchId,
  },
  responses: { 200: { description: 'The rental after the operation', schema: RentalSchema } },
  errors: rentalOperationErrors,
  async handler(ctx) {
    const rental = await rentalSummaryOf(ctx);
    if (terminalRentalStates.includes(rental.state))
      throw new DomainError('R201', `rental is ${rental.state}`);
    await workflowOf(ctx, rental.id).executeUpdate(rentalOperationUpdate, {
      args: [{ ...ctx.body, requestedBy: ctx.actor }],
    });
    return ok(toRentalDto(await rentalRecord(ctx.em, ctx.tenant, rental.id)));
  },
});

export const cancelReservation = defineRoute({
  operationId: 'cancelReservation',
  method: 'delete',
  path: '/rentals/{rentalId}',
  interface: 'back',
  summary: 'Cancel a rental in RESERVATION',
  tags,
  params: RentalIdParams,
  access: { permission: 'RENTAL_CANCEL', branchOf: 'the rental', branch: (ctx) => rentalBranch(ctx) },
  responses: { 200: { description: 'The cancelled rental', schema: RentalSchema } },
  errors: ['R404', 'R201', 'R202'],
  async handler(ctx) {
    return ok(toRentalDto(await cancelRental(ctx, await rentalOf(ctx))));
  },
});

// Fixed paths first: the kernel matches `/rentals/export` before `/rentals/{rentalId}`.
export const rentalRoutes = [
  listRentals,
  exportRentals,
  listPassedThroughRentals,
  getRental,
  rentalRoute,
  adminAddRental,
  rentalOperation,
  cancelReservation,
];
