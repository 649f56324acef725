// The app's bookings: a signed-in customer books a category at a station, reads, updates, checks in,
// picks up (into a rental), cancels (DELETE; B306 when the pricing forbids it) and extends their own
// bookings, and reads their business account's. Another customer's booking is A104. The same booking
// workflow serves the operator interface; see docs/bookings.md.
import { Type } from '@sinclair/typebox';
import { Booking } from '../../../db/entities/Booking.js';
import { groupActivityScope } from './rentals.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { assertExtendable } from '../../../db/booking-lifecycle.js';
import {
  bookingEstimateOwner,
  estimateBookingPriceFor,
  pinnedBookingPricing,
} from '../../../db/booking-billing.js';
import { DomainError } from '../../../domain/errors.js';
import { formatAmount } from '../../../domain/money.js';
import { holdingBookingStates, type BookingState as BookingStateName } from '../../../domain/booking.js';
import { checkInBookingUpdate, extendBookingUpdate } from '../../../workflows/booking.messages.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Str } from '../../kernel/schemas.js';
import { PriceV4 } from '../../shared/pricing-estimates.js';
import {
  bookingOf,
  bookingPopulate,
  BookingSchema,
  BookingState,
  reloadBooking,
  toBookingDto,
} from '../../shared/booking-representation.js';
import {
  assertBookingRunning,
  bookingCreationErrors,
  bookingCreationFields,
  bookingPickupErrors,
  bookingUpdateErrors,
  bookingUpdateFields,
  bookingWorkflow,
  cancelBooking,
  createBooking,
  pickupBooking,
  updateBooking,
} from '../../shared/booking-commands.js';

const tags = ['Bookings'];

const BookingIdParams = Type.Object({ bookingId: Id() });

/** The booking of the path if it is the caller's: B300 when it does not exist, A104 when it is another's. */
const myBooking = (ctx: RouteContext<{ bookingId: number }>) =>
  ctx.once('my-booking', async () => {
    const [booking, customer] = await Promise.all([bookingOf(ctx), ctx.customer()]);
    if (booking.customer.id !== customer.id)
      throw new DomainError('A104', 'this booking belongs to another customer');
    return booking;
  });

const ownBooking = "only the caller's own bookings (another customer's is A104).";

/** Where a created booking leads in the app: read it, pick it up, check in, cancel. */
const appBookingLinks = Object.fromEntries(
  ['appGetBooking', 'appCheckInBooking', 'appCancelBooking'].map((operationId) => [
    operationId.replace(/^app/, ''),
    { operationId, parameters: { tenant: '$request.path.tenant', bookingId: '$response.body#/id' } },
  ]),
);

const AppAddBooking = component(
  'AppAddBooking',
  Type.Object(bookingCreationFields, {
    additionalProperties: false,
    description:
      'Book a vehicle category at a station for the signed-in customer; `bookingRequest` asks for approval first. A business booking names userGroupId (userGroupCode is deprecated), optionally costCenterId and reason.',
  }),
);

export const appAddBooking = defineRoute({
  operationId: 'appAddBooking',
  method: 'post',
  path: '/bookings',
  interface: 'front',
  summary: 'Book a vehicle category at a station for me',
  tags,
  body: AppAddBooking,
  access: { customer: 'the booking is created for the caller.' },
  responses: {
    201: {
      description: 'Booking created',
      schema: BookingSchema,
      headers: { Location: { description: 'URL of the new booking.', schema: Str(200) } },
      links: appBookingLinks,
    },
  },
  errors: [...bookingCreationErrors],
  async handler(ctx) {
    const customer = await ctx.customer();
    const booking = await createBooking(ctx.em, ctx.services, ctx.tenant, {
      customerId: customer.id,
      requestedBy: ctx.actor,
      body: ctx.body,
      ignoreTimeConstraints: false,
    });
    return created(toBookingDto(booking), { Location: `${ctx.baseUrl}/bookings/${booking.id}` });
  },
});

/** One page of bookings matching `where` (and the query's states), by start time, latest first. */
async function bookingPage(
  ctx: RouteContext<unknown, { state?: BookingStateName[] }>,
  where: Record<string, unknown>,
) {
  const filter = ctx.query.state ? { ...where, state: { $in: ctx.query.state } } : where;
  const [bookings, total] = await ctx.em.findAndCount(Booking, filter, {
    populate: bookingPopulate,
    orderBy: { startTime: 'desc', id: 'desc' },
    limit: ctx.page.size,
    offset: ctx.page.offset,
  });
  const now = Date.now();
  return ok(
    bookings.map((booking) => toBookingDto(booking, now)),
    { total },
  );
}

const StateFilter = Type.Object({
  state: Type.Optional(Type.Array(BookingState, { maxItems: 8, description: 'Repeatable.' })),
});

export const appListBookings = defineRoute({
  operationId: 'appListBookings',
  method: 'get',
  path: '/bookings',
  interface: 'front',
  summary: 'My bookings, latest start first',
  tags,
  query: StateFilter,
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "lists the caller's own bookings." },
  responses: { 200: { description: 'One page of bookings', schema: Type.Array(BookingSchema) } },
  errors: [],
  async handler(ctx) {
    return bookingPage(ctx, { customer: await ctx.customer() });
  },
});

export const appActiveBookings = defineRoute({
  operationId: 'appActiveBookings',
  method: 'get',
  path: '/bookings/active',
  interface: 'front',
  summary: 'My upcoming and running bookings',
  description: 'BOOKED, APPROVED and DELIVERED bookings, and picked-up ones whose vehicle is not back yet.',
  tags,
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "lists the caller's own bookings." },
  responses: { 200: { description: 'One page of bookings', schema: Type.Array(BookingSchema) } },
  errors: [],
  async handler(ctx) {
    return bookingPage(ctx, { customer: await ctx.customer(), state: { $in: [...holdingBookingStates] } });
  },
});

export const appListGroupBookings = defineRoute({
  operationId: 'appListGroupBookings',
  method: 'get',
  path: '/bookings/user-group/{userGroupId}',
  interface: 'front',
  summary: 'Business bookings of my business account',
  description:
    'The owner and managing members see every business booking of the account; other members see their own. Non-members: UG404.',
  tags,
  params: Type.Object({ userGroupId: Id() }),
  query: StateFilter,
  paged: { defaultSize: 20, maxSize: 100 },
  access: { customer: "only the caller's own business account." },
  responses: { 200: { description: 'One page of bookings', schema: Type.Array(BookingSchema) } },
  errors: ['UG404'],
  async handler(ctx) {
    return bookingPage(ctx, await groupActivityScope(ctx, ctx.params.userGroupId));
  },
});

export const appGetBooking = defineRoute({
  operationId: 'appGetBooking',
  method: 'get',
  path: '/bookings/{bookingId}',
  interface: 'front',
  summary: 'One of my bookings',
  tags,
  params: BookingIdParams,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The booking', schema: BookingSchema } },
  errors: ['B300', 'A104'],
  async handler(ctx) {
    return ok(toBookingDto(await myBooking(ctx)));
  },
});

const AppUpdateBooking = component(
  'AppUpdateBooking',
  Type.Object(
    { ...bookingUpdateFields, ratingDescription: Type.Optional(Str(2000)) },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const appUpdateBooking = defineRoute({
  operationId: 'appUpdateBooking',
  method: 'patch',
  path: '/bookings/{bookingId}',
  interface: 'front',
  summary: 'Update one of my bookings',
  description: 'As the operator update, always within the lead time and advance limit.',
  tags,
  params: BookingIdParams,
  body: AppUpdateBooking,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The updated booking', schema: BookingSchema } },
  errors: [...bookingUpdateErrors, 'A104'],
  async handler(ctx) {
    return ok(await updateBooking(ctx, await myBooking(ctx), ctx.body, false));
  },
});

export const appPickupBooking = defineRoute({
  operationId: 'appPickupBooking',
  method: 'post',
  path: '/bookings/{bookingId}',
  interface: 'front',
  summary: 'Pick up my booking: starts the rental of its vehicle',
  tags,
  params: BookingIdParams,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The booking with its rental', schema: BookingSchema } },
  errors: [...bookingPickupErrors, 'A104'],
  async handler(ctx) {
    return ok(await pickupBooking(ctx, await myBooking(ctx), false));
  },
});

export const appCancelBooking = defineRoute({
  operationId: 'appCancelBooking',
  method: 'delete',
  path: '/bookings/{bookingId}',
  interface: 'front',
  summary: 'Cancel my booking',
  description:
    'Free before the free-cancellation deadline, then the fee of the pricing (invoiced). B306 when the pricing does not allow cancelling.',
  tags,
  params: BookingIdParams,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The cancelled booking', schema: BookingSchema } },
  errors: ['B300', 'A104', 'B304', 'B306', 'B312', 'B313'],
  async handler(ctx) {
    return ok(
      await cancelBooking(ctx, await myBooking(ctx), {
        waiveCancellationFee: false,
        enforceCancellable: true,
      }),
    );
  },
});

export const appCheckInBooking = defineRoute({
  operationId: 'appCheckInBooking',
  method: 'post',
  path: '/bookings/{bookingId}/check-in',
  interface: 'front',
  summary: 'Check in at the station (within the pickup window)',
  tags,
  params: BookingIdParams,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The booking', schema: BookingSchema } },
  errors: ['B300', 'A104', 'B304', 'B305', 'B312', 'B313'],
  async handler(ctx) {
    const booking = await myBooking(ctx);
    assertBookingRunning(booking);
    await bookingWorkflow(ctx, booking.id).executeUpdate(checkInBookingUpdate, {
      args: [{ requestedBy: ctx.actor }],
    });
    return ok(await reloadBooking(ctx, booking.id));
  },
});

const ExtensionQuery = Type.Object({
  endTime: DateTime({ description: 'The new end of the booking.' }),
});

const Extendable = component(
  'BookingExtendable',
  Type.Object(
    {
      extendable: Type.Boolean(),
      endTime: DateTime(),
      reason: Type.Union([Type.String(), Type.Null()], { description: 'Why not, when not extendable.' }),
    },
    { additionalProperties: false },
  ),
);

/**
 * The checks extend runs, nothing written: the booking still running (B304), then the window rules
 * (B301: a later end, the duration limit) and the longer hold (B314).
 */
async function assertExtensionAllowed(
  ctx: RouteContext<{ bookingId: number }, { endTime: string }>,
  booking: Booking,
): Promise<void> {
  assertBookingRunning(booking);
  await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
    const fresh = await tx.findOneOrFail(Booking, booking.id);
    await assertExtendable(tx, ctx.tenant, fresh, Date.parse(ctx.query.endTime), Date.now());
  });
}

/** Whether the caller's booking can be extended to `endTime`: extend's refusal as a reason. */
async function extensionCheck(ctx: RouteContext<{ bookingId: number }, { endTime: string }>) {
  const booking = await myBooking(ctx);
  try {
    await assertExtensionAllowed(ctx, booking);
    return { booking, reason: null };
  } catch (error) {
    if (error instanceof DomainError && ['B301', 'B304', 'B314'].includes(error.code))
      return { booking, reason: `${error.code}: ${error.message}` };
    throw error;
  }
}

export const appBookingExtendable = defineRoute({
  operationId: 'appBookingExtendable',
  method: 'get',
  path: '/bookings/{bookingId}/extendable',
  interface: 'front',
  summary: 'Whether my booking can be extended to a later end',
  description:
    "extend's checks, nothing written: `extendable` false with the refusal extend would answer as `reason` (`B301: …` window rules, `B304: …` a finished booking, `B314: …` the longer hold).",
  tags,
  params: BookingIdParams,
  query: ExtensionQuery,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The answer', schema: Extendable } },
  errors: ['B300', 'A104'],
  async handler(ctx) {
    const { reason } = await extensionCheck(ctx);
    return ok({ extendable: reason === null, endTime: ctx.query.endTime, reason });
  },
});

const ExtensionEstimate = component(
  'BookingExtensionEstimate',
  Type.Object(
    {
      extendable: Type.Boolean(),
      endTime: DateTime(),
      reason: Type.Union([Type.String(), Type.Null()]),
      currentTotal: Type.Union([Type.String(), Type.Null()], {
        description: 'Estimated total of the current window.',
      }),
      estimatedPrice: PriceV4,
      additionalCost: Type.String({ description: 'Extended total minus current total (decimal string).' }),
    },
    { additionalProperties: false },
  ),
);

export const appEstimateExtension = defineRoute({
  operationId: 'appEstimateBookingExtension',
  method: 'get',
  path: '/bookings/{bookingId}/estimate-extension',
  interface: 'front',
  summary: 'The price of my booking extended to a later end',
  description:
    'Answers like `POST /bookings/{bookingId}/extend` would: an extension extend refuses is refused here with the same code (B304 a finished booking, B301 the window rules: a later end, the duration limit; B314 the longer hold), whatever its length; an extension extend accepts is priced (`extendable` true).',
  tags,
  params: BookingIdParams,
  query: ExtensionQuery,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The estimate', schema: ExtensionEstimate } },
  errors: ['B300', 'A104', 'B301', 'B304', 'B314', 'ODP101', 'ODP104', 'ODP111'],
  async handler(ctx) {
    const booking = await myBooking(ctx);
    await assertExtensionAllowed(ctx, booking);
    const endMs = Date.parse(ctx.query.endTime);
    const pricing = await pinnedBookingPricing(ctx.em, booking);
    // With the customer's applicable vouchers, read only, like the booking's own price.
    const price = await estimateBookingPriceFor(
      ctx.em,
      pricing,
      { startMs: booking.startTime.getTime(), endMs },
      booking.additions,
      bookingEstimateOwner(booking),
    );
    const current = booking.price?.total ?? null;
    const { Decimal } = await import('decimal.js');
    return ok({
      extendable: true,
      endTime: ctx.query.endTime,
      reason: null,
      currentTotal: current,
      estimatedPrice: price.priceV4,
      additionalCost: formatAmount(
        new Decimal(price.price.total).minus(current ?? '0'),
        price.price.currency,
      ),
    });
  },
});

const AppExtendBooking = component(
  'AppExtendBooking',
  Type.Object({ endTime: DateTime({ description: 'The new, later end.' }) }, { additionalProperties: false }),
);

export const appExtendBooking = defineRoute({
  operationId: 'appExtendBooking',
  method: 'post',
  path: '/bookings/{bookingId}/extend',
  interface: 'front',
  summary: 'Extend my booking to a later end (also while its rental runs)',
  tags,
  params: BookingIdParams,
  body: AppExtendBooking,
  access: { customer: ownBooking },
  responses: { 200: { description: 'The extended booking', schema: BookingSchema } },
  errors: ['B300', 'A104', 'B301', 'B304', 'B313', 'B314'],
  async handler(ctx) {
    const booking = await myBooking(ctx);
    assertBookingRunning(booking);
    await bookingWorkflow(ctx, booking.id).executeUpdate(extendBookingUpdate, {
      args: [{ requestedBy: ctx.actor, endTime: ctx.body.endTime }],
    });
    return ok(await reloadBooking(ctx, booking.id));
  },
});

// Fixed paths first: the kernel matches `/bookings/active` before `/bookings/{bookingId}`.
export const appBookingRoutes = [
  appListBookings,
  appAddBooking,
  appActiveBookings,
  appListGroupBookings,
  appGetBooking,
  appUpdateBooking,
  appPickupBooking,
  appCancelBooking,
  appCheckInBooking,
  appBookingExtendable,
  appEstimateExtension,
  appExtendBooking,
];
