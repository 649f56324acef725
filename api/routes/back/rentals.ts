import { Type, type Static } from '@sinclair/typebox';
import { Customer, Rental, Vehicle } from '../../../db/entities/index.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import {
  rentalOperationTypes,
  rentalStates,
  terminalRentalStates,
  transitionRefusal,
} from '../../../domain/rental.js';
import {
  awaitReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalWorkflowId,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
} from '../../../workflows/rental.messages.js';
import { created, ok, defineRoute, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';

const RentalState = component('RentalState', StringEnum(rentalStates));
const RentalOperationType = component('RentalOperationType', StringEnum(rentalOperationTypes));

const RentalSchema = component(
  'Rental',
  Type.Object(
    {
      id: Id(),
      state: RentalState,
      activeMode: Nullable(StringEnum(['DRIVING', 'PARKING'] as const)),
      branchId: Id(),
      vehicle: Type.Object({
        id: Id(),
        code: Type.String(),
        categoryId: Id(),
        licensePlate: Nullable(Type.String()),
      }),
      user: Type.Object({
        id: Id(),
        firstName: Type.String(),
        lastName: Type.String(),
        email: Type.String(),
      }),
      createdBy: Nullable(Type.String()),
      reservedAt: DateTime(),
      reservationExpiresAt: Nullable(DateTime()),
      startedAt: Nullable(DateTime()),
      endedAt: Nullable(DateTime()),
      startPosition: Nullable(Position),
      endPosition: Nullable(Position),
      distanceKm: Nullable(Type.Number()),
      workflowId: Type.String({ description: 'Id of the rental workflow in the Temporal UI.' }),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

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
    },
    {
      additionalProperties: false,
      description:
        'Normal rental creation plus operator context: the operator creates a rental for a customer. Give exactly one of vehicleId and vehicleCode.',
      oneOf: [{ required: ['vehicleId'] }, { required: ['vehicleCode'] }],
    },
  ),
);

const RentalOperation = component(
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

const rentalLinks = {
  GetRental: {
    operationId: 'getRental',
    parameters: { tenant: '$request.path.tenant', rentalId: '$response.body#/id' },
  },
  RentalOperation: {
    operationId: 'rentalOperation',
    parameters: { tenant: '$request.path.tenant', rentalId: '$response.body#/id' },
  },
  CancelReservation: {
    operationId: 'cancelReservation',
    parameters: { tenant: '$request.path.tenant', rentalId: '$response.body#/id' },
  },
  RentalEvents: {
    operationId: 'entityEvents',
    parameters: { tenant: '$request.path.tenant', entityType: 'RENTALS', entityId: '$response.body#/id' },
  },
};

const populate = ['vehicle', 'customer'] as const;

/** The API's rental representation (the `Rental` schema). */
export function toRentalDto(rental: Rental): Static<typeof RentalSchema> {
  const km =
    rental.startOdometerKm != null && rental.endOdometerKm != null
      ? Math.round((rental.endOdometerKm - rental.startOdometerKm) * 1000) / 1000
      : null;
  return {
    id: rental.id,
    state: rental.state,
    activeMode: rental.activeMode ?? null,
    branchId: rental.branch.id,
    vehicle: {
      id: rental.vehicle.id,
      code: rental.vehicle.code,
      categoryId: rental.vehicle.category.id,
      licensePlate: rental.vehicle.licensePlate ?? null,
    },
    user: {
      id: rental.customer.id,
      firstName: rental.customer.firstName,
      lastName: rental.customer.lastName,
      email: rental.customer.email,
    },
    createdBy: rental.createdBy ?? null,
    reservedAt: rental.reservedAt.toISOString(),
    reservationExpiresAt: rental.reservationExpiresAt?.toISOString() ?? null,
    startedAt: rental.startedAt?.toISOString() ?? null,
    endedAt: rental.endedAt?.toISOString() ?? null,
    startPosition: rental.startPosition ?? null,
    endPosition: rental.endPosition ?? null,
    distanceKm: km,
    workflowId: rental.workflowId,
    createdAt: rental.createdAt.toISOString(),
    updatedAt: rental.updatedAt.toISOString(),
  };
}

async function loadRental(em: EntityManager, rentalId: number): Promise<Rental> {
  const rental = await em.findOne(Rental, rentalId, { populate });
  if (!rental) throw new DomainError('R404', `rental ${rentalId} not found`);
  return rental;
}

/** The rental of the path, loaded once per request (the access check and the handler share it). */
const rentalOf = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once('rental', () => loadRental(ctx.em, ctx.params.rentalId));

/** The branch of the rental of the path: where its permissions are checked. */
const rentalBranch = async (ctx: RouteContext<{ rentalId: number }>) => (await rentalOf(ctx)).branch.id;

/** The vehicle a creation names, loaded once per request. */
const vehicleOf = (ctx: RouteContext<unknown, unknown, { vehicleId?: number; vehicleCode?: string }>) =>
  ctx.once('vehicle', async () => {
    const { vehicleId, vehicleCode } = ctx.body;
    const vehicle =
      vehicleId !== undefined
        ? await ctx.em.findOne(Vehicle, vehicleId)
        : await ctx.em.findOne(Vehicle, { code: vehicleCode ?? '' });
    if (!vehicle) throw new DomainError('V404');
    return vehicle;
  });

const workflowOf = (ctx: RouteContext, rentalId: number) =>
  ctx.services.temporal.workflow.getHandle(rentalWorkflowId(ctx.tenant, rentalId));

const tags = ['Rentals'];

export const listRentals = defineRoute({
  operationId: 'listRentals',
  method: 'get',
  path: '/rentals',
  interface: 'back',
  summary: 'Rentals of a branch, newest first',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    state: Type.Optional(
      Type.Array(RentalState, { maxItems: rentalStates.length, description: 'Repeatable.' }),
    ),
    vehicleId: Type.Optional(Id()),
    guserId: Type.Optional(Id()),
    sort: Type.Optional(
      Type.String({
        pattern: '^(id|createdAt|reservedAt|state)(,(asc|desc|ASC|DESC))?$',
        maxLength: 20,
        default: 'createdAt,desc',
      }),
    ),
  }),
  paged: { defaultSize: 20 },
  access: {
    permission: 'RENTAL_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of rentals', schema: Type.Array(RentalSchema) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const where: Record<string, unknown> = { branch: { $in: branches } };
    if (query.state) where.state = { $in: query.state };
    if (query.vehicleId) where.vehicle = query.vehicleId;
    if (query.guserId) where.customer = query.guserId;
    const [rentals, total] = await em.findAndCount(Rental, where, {
      populate,
      orderBy: orderBy(query.sort, 'createdAt,desc'),
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
    return ok(toRentalDto(await rentalOf(ctx)));
  },
});

export const adminAddRental = defineRoute({
  operationId: 'adminAddRental',
  method: 'post',
  path: '/rentals',
  interface: 'back',
  summary: 'Create a rental for a customer (starts the rental workflow in RESERVATION)',
  description:
    'With `startImmediately` the caller also needs RENTAL_OPERATE on the branch; when the immediate start fails the rental stays in RESERVATION.',
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
  errors: ['V404', 'U106', 'U131', 'R102', 'R103', 'R104', 'R105', 'R170', 'R173'],
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
    if (!(await em.findOne(Customer, body.guserId)))
      throw new DomainError('U106', `customer ${body.guserId} not found`);

    const [{ id: rentalId }] = await em.execute<[{ id: number }]>(
      `select nextval('rental_id_seq')::int as id`,
    );
    const handle = await services.temporal.workflow.start(
      RENTAL_WORKFLOW_TYPE,
      rentalWorkflowStartOptions(
        {
          tenant,
          rentalId,
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          customerId: body.guserId,
          requestedBy: actor,
          startImmediately: body.startImmediately ?? false,
        },
        services.taskQueue,
      ),
    );
    // Answers once the reservation is made (and, with startImmediately, the start attempted) or refused.
    await handle.executeUpdate(awaitReservationUpdate);
    const rental = await loadRental(em.fork(), rentalId);
    return created(toRentalDto(rental), { Location: `${ctx.baseUrl}/rentals/${rentalId}` });
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
  access: { permission: 'RENTAL_OPERATE', branchOf: 'the rental', branch: (ctx) => rentalBranch(ctx) },
  responses: { 200: { description: 'The rental after the operation', schema: RentalSchema } },
  errors: ['R404', 'R201', 'R202', 'R203', 'R204', 'R173', 'R174', 'V502', 'V504'],
  async handler(ctx) {
    const rental = await rentalOf(ctx);
    if (terminalRentalStates.includes(rental.state))
      throw new DomainError('R201', `rental is ${rental.state}`);
    await workflowOf(ctx, rental.id).executeUpdate(rentalOperationUpdate, {
      args: [{ ...ctx.body, requestedBy: ctx.actor }],
    });
    return ok(toRentalDto(await loadRental(ctx.em.fork(), rental.id)));
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
    const rental = await rentalOf(ctx);
    if (transitionRefusal('CANCEL', rental.state, rental.activeMode ?? undefined))
      throw new DomainError('R201', `only a reservation can be cancelled; the rental is ${rental.state}`);
    await workflowOf(ctx, rental.id).executeUpdate(cancelReservationUpdate, {
      args: [{ requestedBy: ctx.actor }],
    });
    return ok(toRentalDto(await loadRental(ctx.em.fork(), rental.id)));
  },
});

export const rentalRoutes = [listRentals, getRental, adminAddRental, rentalOperation, cancelReservation];
