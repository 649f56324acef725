// The app's own rental flow: a signed-in customer reserves a vehicle (by id, code or rotating uuid),
// starts, parks, drives, ends or cancels it, buys reservation minutes, rates its cleanliness and reads
// their rentals and their business account's. The same rental workflow serves the operator interface;
// another customer's rental is A102. See docs/rentals.md, "App rental flow".
import { Type } from '@sinclair/typebox';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { Rental } from '../../../db/entities/Rental.js';
import { recordEvent } from '../../../db/events.js';
import { assertPayerReady } from '../../../db/payer-readiness.js';
import { DomainError } from '../../../domain/errors.js';
import { terminalRentalStates, type RentalState as RentalStateName } from '../../../domain/rental.js';
import { buyReservationUpdate, rentalOperationUpdate } from '../../../workflows/rental.messages.js';
import {
  businessContextFields,
  checkBusinessContext,
  createRental,
  rentalRecord,
  rentalCreationErrors,
  rentalPopulate,
  vehicleOfRequest,
} from '../../shared/rental-creation.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Position, Str, StringEnum } from '../../kernel/schemas.js';
import {
  RentalSchema,
  RentalState,
  rentalOf,
  toRentalDto,
  toRentalDtoWithRunningPrice,
} from '../../shared/rental-representation.js';
import { cancelRental, rentalOperationErrors, workflowOf } from '../../shared/rental-commands.js';

const tags = ['Rentals'];

/** Most reservation minutes one buy-reservation call sells. */
export const MAX_BOUGHT_RESERVATION_MINUTES = 120;

const AppAddRental = component(
  'AppAddRental',
  Type.Object(
    {
      vehicleId: Type.Optional(Id()),
      vehicleCode: Type.Optional(Str(64, { minLength: 1 })),
      vehicleRotatingUuid: Type.Optional(
        Type.String({ format: 'uuid', maxLength: 36, description: "Scanned from the vehicle's display." }),
      ),
      ...businessContextFields,
    },
    {
      additionalProperties: false,
      description:
        'Reserve a vehicle for the signed-in customer: exactly one of vehicleId, vehicleCode and vehicleRotatingUuid; a business rental adds userGroupId (and optionally costCenterId and reason).',
      oneOf: [
        { required: ['vehicleId'] },
        { required: ['vehicleCode'] },
        { required: ['vehicleRotatingUuid'] },
      ],
    },
  ),
);

const AppRentalOperation = component(
  'AppRentalOperation',
  Type.Object(
    {
      operationType: StringEnum([
        'START',
        'END',
        'PARK',
        'DRIVE',
        'RENEW_RESERVATION',
        'OPEN_TAILBOX',
      ] as const),
      userPosition: Type.Optional(Position),
    },
    {
      additionalProperties: false,
      description:
        "A rental operation from the app. `userPosition` is the device's position (used by end requirements on the user's location); there is no administrative override.",
    },
  ),
);

const CleanlinessRating = component(
  'CleanlinessRating',
  Type.Object(
    {
      rating: Int(1, 5, { description: '1 (dirty) to 5 (spotless).' }),
      comment: Type.Optional(Str(1000)),
    },
    { additionalProperties: false },
  ),
);

const RentalIdParams = Type.Object({ rentalId: Id() });

/** From a new rental to what the app does with it next (clients and the fuzzer's stateful phase follow them). */
const appRentalLinks = Object.fromEntries(
  [
    'appGetRental',
    'appRentalOperation',
    'appCancelReservation',
    'appBuyReservation',
    'appRateRentalCleanliness',
  ].map((operationId) => [
    operationId.replace(/^app/, ''),
    { operationId, parameters: { tenant: '$request.path.tenant', rentalId: '$response.body#/id' } },
  ]),
);

/** The rental of the path if it is the caller's: R404 when it does not exist, A102 when it is another's. */
const myRental = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once('my-rental', async () => {
    const [rental, customer] = await Promise.all([rentalOf(ctx), ctx.customer()]);
    if (rental.customer.id !== customer.id)
      throw new DomainError('A102', 'this rental belongs to another customer');
    return rental;
  });

const ownRental = "only the caller's own rentals (another customer's is A102).";

export const appAddRental = defineRoute({
  operationId: 'appAddRental',
  method: 'post',
  path: '/rentals',
  interface: 'front',
  summary: 'Reserve a vehicle for me (starts the rental workflow in RESERVATION)',
  tags,
  body: AppAddRental,
  access: { customer: 'the rental is created for the caller.' },
  responses: {
    201: {
      description: 'Rental created',
      schema: RentalSchema,
      headers: { Location: { description: 'URL of the new rental.', schema: Str(200) } },
      links: appRentalLinks,
    },
  },
  errors: [...rentalCreationErrors],
  async handler(ctx) {
    const customer = await ctx.customer();
    const vehicle = await vehicleOfRequest(ctx.em, ctx.tenant, ctx.body, { appVisible: true });
    const business = await checkBusinessContext(ctx.em, customer.id, ctx.body);
    const rental = await createRental(ctx.em, ctx.services, {
      tenant: ctx.tenant,
      vehicle,
      customerId: customer.id,
      requestedBy: ctx.actor,
      startImmediately: false,
      business,
    });
    return created(toRentalDto(rental), { Location: `${ctx.baseUrl}/rentals/${rental.id}` });
  },
});

export const appListRentals = defineRoute({
  operationId: 'appListRentals',
  method: 'get',
  path: '/rentals',
  interface: 'front',
  summary: 'My rentals, newest first',
  tags,
  query: Type.Object({
    state: Type.Optional(Type.Array(RentalState, { maxItems: 6, description: 'Repeatable.' })),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "lists the caller's own rentals." },
  responses: { 200: { description: 'One page of rentals', schema: Type.Array(RentalSchema) } },
  errors: [],
  async handler(ctx) {
    const customer = await ctx.customer();
    const where: Record<string, unknown> = { customer };
    return rentalPage(ctx, where);
  },
});

/** One page of rentals matching `where` (and the query's states), newest first. */
async function rentalPage(
  ctx: RouteContext<unknown, { state?: RentalStateName[] }>,
  where: Record<string, unknown>,
) {
  const filter = ctx.query.state ? { ...where, state: { $in: ctx.query.state } } : where;
  const [rentals, total] = await ctx.em.findAndCount(Rental, filter, {
    populate: rentalPopulate,
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: ctx.page.size,
    offset: ctx.page.offset,
  });
  return ok(rentals.map(toRentalDto), { total });
}

/**
 * What the caller sees of a business account's activity (rentals, bookings): everything for its owner
 * and managing members, their own for other members; UG404 for non-members.
 */
export async function groupActivityScope(
  ctx: RouteContext,
  userGroupId: number,
): Promise<Record<string, unknown>> {
  const customer = await ctx.customer();
  const membership = await ctx.em.findOne(
    GroupMembership,
    { customer, group: userGroupId, state: 'ACTIVE' },
    { populate: ['group'] },
  );
  if (!membership) throw new DomainError('UG404');
  const managesAll = membership.canManage || membership.group.owner?.id === customer.id;
  const where: Record<string, unknown> = { userGroup: membership.group };
  if (!managesAll) where.customer = customer;
  return where;
}

export const appListGroupRentals = defineRoute({
  operationId: 'appListGroupRentals',
  method: 'get',
  path: '/rentals/user-group/{userGroupId}',
  interface: 'front',
  summary: 'Business rentals of my business account',
  description:
    'The owner and managing members see every business rental of the account; other members see their own. Non-members: UG404.',
  tags,
  params: Type.Object({ userGroupId: Id() }),
  query: Type.Object({
    state: Type.Optional(Type.Array(RentalState, { maxItems: 6, description: 'Repeatable.' })),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "only the caller's own business account." },
  responses: { 200: { description: 'One page of rentals', schema: Type.Array(RentalSchema) } },
  errors: ['UG404'],
  async handler(ctx) {
    return rentalPage(ctx, await groupActivityScope(ctx, ctx.params.userGroupId));
  },
});

export const appGetRental = defineRoute({
  operationId: 'appGetRental',
  method: 'get',
  path: '/rentals/{rentalId}',
  interface: 'front',
  summary: 'One of my rentals',
  tags,
  params: RentalIdParams,
  access: { customer: ownRental },
  responses: { 200: { description: 'The rental', schema: RentalSchema } },
  errors: ['R404', 'A102'],
  async handler(ctx) {
    return ok(await toRentalDtoWithRunningPrice(ctx.em, await myRental(ctx)));
  },
});

export const appRentalOperation = defineRoute({
  operationId: 'appRentalOperation',
  method: 'post',
  path: '/rentals/{rentalId}/operation',
  interface: 'front',
  summary: 'START, END, PARK, DRIVE, RENEW_RESERVATION or OPEN_TAILBOX on my rental',
  description: 'A Workflow Update: answers once the vehicle has acted and the transition is recorded.',
  tags,
  params: RentalIdParams,
  body: AppRentalOperation,
  access: { customer: ownRental },
  responses: { 200: { description: 'The rental after the operation', schema: RentalSchema } },
  errors: [...rentalOperationErrors, 'A102'],
  async handler(ctx) {
    const rental = await myRental(ctx);
    if (terminalRentalStates.includes(rental.state))
      throw new DomainError('R201', `rental is ${rental.state}`);
    await workflowOf(ctx, rental.id).executeUpdate(rentalOperationUpdate, {
      args: [{ ...ctx.body, adminOverride: false, requestedBy: ctx.actor }],
    });
    return ok(toRentalDto(await rentalRecord(ctx.em, ctx.tenant, rental.id)));
  },
});

export const appCancelReservation = defineRoute({
  operationId: 'appCancelReservation',
  method: 'delete',
  path: '/rentals/{rentalId}',
  interface: 'front',
  summary: 'Cancel my reservation',
  tags,
  params: RentalIdParams,
  access: { customer: ownRental },
  responses: { 200: { description: 'The cancelled rental', schema: RentalSchema } },
  errors: ['R404', 'A102', 'R201', 'R202'],
  async handler(ctx) {
    return ok(toRentalDto(await cancelRental(ctx, await myRental(ctx))));
  },
});

export const appBuyReservation = defineRoute({
  operationId: 'appBuyReservation',
  method: 'post',
  path: '/rentals/{rentalId}/buy-reservation',
  interface: 'front',
  summary: 'Buy reservation minutes for my reservation',
  description: `Sells \`minutes\` (1 to ${MAX_BOUGHT_RESERVATION_MINUTES}) of paid reservation while the rental is in RESERVATION: the expiry moves by that much and the time past the free reservation is a RESERVATION_PAID phase, priced by the rental's pricing version. P104 (nothing bought) unless the rental's payer has a payment method or pays by invoice.`,
  tags,
  params: RentalIdParams,
  query: Type.Object({ minutes: Int(1, MAX_BOUGHT_RESERVATION_MINUTES) }),
  access: { customer: ownRental },
  responses: { 200: { description: 'The rental with its new expiry', schema: RentalSchema } },
  errors: ['R404', 'A102', 'R201', 'R202', 'R205', 'P104'],
  async handler(ctx) {
    const rental = await myRental(ctx);
    if (rental.state !== 'RESERVATION')
      throw new DomainError(
        'R201',
        `reservation minutes are sold only in RESERVATION; the rental is ${rental.state}`,
      );
    // Readiness before anything is written: the minutes are billed with the rental, to its payer.
    await assertPayerReady(ctx.em, {
      customerId: rental.customer.id,
      userGroupId: rental.userGroup?.id ?? null,
    });
    await workflowOf(ctx, rental.id).executeUpdate(buyReservationUpdate, {
      args: [{ minutes: ctx.query.minutes, requestedBy: ctx.actor }],
    });
    return ok(toRentalDto(await rentalRecord(ctx.em, ctx.tenant, rental.id)));
  },
});

export const appRateRentalCleanliness = defineRoute({
  operationId: 'appRateRentalCleanliness',
  method: 'post',
  path: '/rentals/{rentalId}/cleanliness-rating',
  interface: 'front',
  summary: "Rate the vehicle's cleanliness after my rental",
  description:
    'Once per rental, only after it ended (ENDED or ENDED_NO_MOVEMENT); records a RENTAL_FEEDBACK event for the operator.',
  tags,
  params: RentalIdParams,
  body: CleanlinessRating,
  access: { customer: ownRental },
  responses: { 200: { description: 'The rated rental', schema: RentalSchema } },
  errors: ['R404', 'A102', 'R201', 'R210'],
  async handler(ctx) {
    const rental = await myRental(ctx);
    if (rental.state !== 'ENDED' && rental.state !== 'ENDED_NO_MOVEMENT')
      throw new DomainError('R201', `only an ended rental can be rated; the rental is ${rental.state}`);
    const comment = ctx.body.comment?.trim() || null;
    // One transaction with a conditional write: two concurrent ratings cannot both win.
    await ctx.em.transactional(async (tx) => {
      const updated = await tx.nativeUpdate(
        Rental,
        { id: rental.id, cleanlinessRating: null },
        { cleanlinessRating: ctx.body.rating, cleanlinessComment: comment },
      );
      if (!updated) throw new DomainError('R210');
      recordEvent(tx, {
        type: 'RENTAL_FEEDBACK',
        adminSubject: ctx.actor,
        branchId: rental.branch.id,
        vehicleId: rental.vehicle.id,
        rentalId: rental.id,
        customerId: rental.customer.id,
        description: `cleanliness rated ${ctx.body.rating}/5`,
        payload: { cleanlinessRating: ctx.body.rating, comment },
      });
    });
    return ok(toRentalDto(await rentalRecord(ctx.em, ctx.tenant, rental.id)));
  },
});

// Fixed paths first: the kernel matches `/rentals/user-group/…` before `/rentals/{rentalId}`.
export const appRentalRoutes = [
  appAddRental,
  appListRentals,
  appListGroupRentals,
  appGetRental,
  appRentalOperation,
  appCancelReservation,
  appBuyReservation,
  appRateRentalCleanliness,
];
