// The operator's bookings: list with the spec's filters, create (ignoreTimeConstraints is privileged),
// detail, update, pickup into a rental, approval, cancellation, delivery and the billing overview. Every
// change runs as an update of the booking's workflow (workflows/booking.ts), which answers once it is
// recorded; the representation and the commands the app shares are in api/shared/booking-*.ts. See
// docs/bookings.md.
import { Type } from '@sinclair/typebox';
import { Booking } from '../../../db/entities/Booking.js';
import { Customer } from '../../../db/entities/Customer.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { InvoiceLine } from '../../../db/entities/InvoiceLine.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { bookingDirections, bookingStates } from '../../../domain/booking.js';
import { bookingApprovalUpdate, deliverBookingUpdate } from '../../../workflows/booking.messages.js';
import { PriceV4, PricingVersionRef } from '../../shared/pricing-estimates.js';
import { created, defineRoute, linksById, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  BookingState,
  BookingSchema,
  bookingOf,
  bookingPopulate,
  CancellationInformation,
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

/** The start station of the booking of the path: where its permissions are checked. */
const bookingBranch = async (ctx: RouteContext<{ bookingId: number }>) => (await bookingOf(ctx)).branch.id;

/** Access to the booking of the path: `permission` on its start station. */
const onTheBooking = (permission: string) => ({
  permission,
  branchOf: 'the booking (start station)',
  branch: bookingBranch,
});

const BookingIdParams = Type.Object({ bookingId: Id() });

const bookingLinks = linksById(
  'bookingId',
  { GetBooking: 'getBooking', CancelBooking: 'cancelBooking' },
  { link: 'BookingEvents', entityType: 'BOOKINGS' },
);

/** `%text%` for ILIKE with the LIKE wildcards of the text taken literally. */
const containing = (text: string) => `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const listBookings = defineRoute({
  operationId: 'listBookings',
  method: 'get',
  path: '/bookings',
  interface: 'back',
  summary: 'Bookings of a station (or a branch and its children), by start time',
  description:
    'Filters combine (AND). `activeWithin` is sent twice (start, end): bookings whose window overlaps it; `intersectTime`: bookings whose window contains that instant. `directionsRelativeToBranch` keeps bookings leaving (OUTBOUND), arriving at (INBOUND) or both (ROUND_TRIP) the branch. `onlyOverdueBookings`: picked-up bookings not returned past their end plus grace.',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildren: Type.Optional(Type.Boolean({ default: false })),
    includeChildBranches: Type.Optional(
      Type.Boolean({ default: false, description: 'Alias of includeChildren.' }),
    ),
    state: Type.Optional(
      Type.Array(BookingState, { maxItems: bookingStates.length, description: 'Repeatable.' }),
    ),
    activeWithin: Type.Optional(
      Type.Array(DateTime(), { minItems: 2, maxItems: 2, description: 'Sent twice: start and end.' }),
    ),
    intersectTime: Type.Optional(DateTime()),
    searchText: Type.Optional(
      Str(100, {
        minLength: 1,
        description:
          "Part of the customer's name or e-mail, the vehicle's code or plate, or the external reference.",
      }),
    ),
    onlyOverdueBookings: Type.Optional(Type.Boolean({ default: false })),
    hasRatingDescription: Type.Optional(Type.Boolean()),
    directionsRelativeToBranch: Type.Optional(
      Type.Array(StringEnum(bookingDirections), { maxItems: 3, description: 'Repeatable.' }),
    ),
    guserId: Type.Optional(Id()),
    vehicleId: Type.Optional(Id()),
  }),
  paged: { defaultSize: 20 },
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of bookings', schema: Type.Array(BookingSchema) } },
  errors: ['B301'],
  async handler({ em, tenant, query, page }) {
    const branches =
      query.includeChildren || query.includeChildBranches
        ? await branchWithDescendants(em, tenant, query.branchId)
        : [query.branchId];
    const and: Record<string, unknown>[] = [];
    const directions = query.directionsRelativeToBranch;
    if (directions?.length) {
      const or: Record<string, unknown>[] = [];
      if (directions.includes('OUTBOUND'))
        or.push({ branch: { $in: branches }, endBranch: { $nin: branches } });
      if (directions.includes('INBOUND'))
        or.push({ endBranch: { $in: branches }, branch: { $nin: branches } });
      if (directions.includes('ROUND_TRIP'))
        or.push({ branch: { $in: branches }, endBranch: { $in: branches } });
      and.push({ $or: or });
    } else and.push({ $or: [{ branch: { $in: branches } }, { endBranch: { $in: branches } }] });
    if (query.state) and.push({ state: { $in: query.state } });
    if (query.guserId) and.push({ customer: query.guserId });
    if (query.vehicleId) and.push({ vehicle: query.vehicleId });
    if (query.activeWithin) {
      const [from, to] = query.activeWithin.map(clampedInstant);
      if (!(from! < to!)) throw new DomainError('B301', 'activeWithin: the start must be before the end');
      and.push({ startTime: { $lt: to }, endTime: { $gt: from } });
    }
    if (query.intersectTime) {
      const at = clampedInstant(query.intersectTime);
      and.push({ startTime: { $lte: at }, endTime: { $gt: at } });
    }
    if (query.onlyOverdueBookings)
      and.push({ pickedUpAt: { $ne: null }, returnedAt: null, overdueSince: { $ne: null } });
    if (query.hasRatingDescription !== undefined)
      and.push({ ratingDescription: query.hasRatingDescription ? { $ne: null } : null });
    if (query.searchText?.trim()) {
      const text = containing(query.searchText);
      and.push({
        $or: [
          { customer: { firstName: { $ilike: text } } },
          { customer: { lastName: { $ilike: text } } },
          { customer: { email: { $ilike: text } } },
          { vehicle: { code: { $ilike: text } } },
          { vehicle: { licensePlate: { $ilike: text } } },
          { externalReference: { $ilike: text } },
        ],
      });
    }
    const [bookings, total] = await em.findAndCount(
      Booking,
      { $and: and },
      {
        populate: bookingPopulate,
        orderBy: { startTime: 'asc', id: 'asc' },
        limit: page.size,
        offset: page.offset,
      },
    );
    const now = Date.now();
    return ok(
      bookings.map((booking) => toBookingDto(booking, now)),
      { total },
    );
  },
});

const AdminAddBooking = component(
  'AdminAddBooking',
  Type.Object(
    {
      guserId: Id({ description: 'Customer the booking is for.' }),
      ...bookingCreationFields,
      vehicleId: Type.Optional(
        Id({ description: 'A vehicle of the station: the booking is DELIVERED at once.' }),
      ),
      notes: Type.Optional(Str(2000)),
      annotations: Type.Optional(Type.Array(Str(200), { maxItems: 50 })),
      ignoreTimeConstraints: Type.Optional(
        Type.Boolean({
          default: false,
          description: 'Lift lead time and advance limit; needs BOOKING_IGNORE_TIME_CONSTRAINTS (else B316).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const adminAddBooking = defineRoute({
  operationId: 'adminAddBooking',
  method: 'post',
  path: '/bookings',
  interface: 'back',
  summary: 'Create a booking for a customer (starts the booking workflow)',
  description:
    'BOOKED (or awaiting approval with `bookingRequest`), DELIVERED at once when `vehicleId` is given. Admission is serialised per station and category: of concurrent requests for the last vehicle exactly one wins (the others B302).',
  tags,
  body: AdminAddBooking,
  access: {
    permission: 'BOOKING_CREATE',
    branchOf: 'body branchId (the start station)',
    branch: (ctx) => ctx.body.branchId,
  },
  responses: {
    201: {
      description: 'Booking created',
      schema: BookingSchema,
      headers: { Location: { description: 'URL of the new booking.', schema: Str(200) } },
      links: bookingLinks,
    },
  },
  errors: [...bookingCreationErrors, 'B316'],
  async handler(ctx) {
    const { em, body } = ctx;
    if (body.ignoreTimeConstraints) {
      const allowed = await ctx.holds({
        permission: 'BOOKING_IGNORE_TIME_CONSTRAINTS',
        branchId: body.branchId,
      });
      if (!allowed) throw new DomainError('B316');
    }
    if (!(await em.findOne(Customer, body.guserId)))
      throw new DomainError('U106', `customer ${body.guserId} not found`);
    const booking = await createBooking(em, ctx.services, ctx.tenant, {
      customerId: body.guserId,
      requestedBy: ctx.actor,
      body,
      ignoreTimeConstraints: body.ignoreTimeConstraints ?? false,
    });
    return created(toBookingDto(booking), { Location: `${ctx.baseUrl}/bookings/${booking.id}` });
  },
});

export const getBooking = defineRoute({
  operationId: 'getBooking',
  method: 'get',
  path: '/bookings/{bookingId}',
  interface: 'back',
  summary: 'One booking',
  tags,
  params: BookingIdParams,
  access: onTheBooking('BOOKING_READ'),
  responses: { 200: { description: 'The booking', schema: BookingSchema } },
  errors: ['B300'],
  async handler(ctx) {
    return ok(toBookingDto(await bookingOf(ctx)));
  },
});

const AdminUpdateBooking = component(
  'AdminUpdateBooking',
  Type.Object(
    {
      ...bookingUpdateFields,
      notes: Type.Optional(Nullable(Str(2000))),
      annotations: Type.Optional(Type.Array(Str(200), { maxItems: 50 })),
      ratingDescription: Type.Optional(Nullable(Str(2000))),
      ignoreTimeConstraints: Type.Optional(
        Type.Boolean({ default: false, description: 'Needs BOOKING_IGNORE_TIME_CONSTRAINTS.' }),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const adminUpdateBooking = defineRoute({
  operationId: 'updateBooking',
  method: 'patch',
  path: '/bookings/{bookingId}',
  interface: 'back',
  summary: 'Update a booking',
  description:
    'A new window, category or return station is admitted again excluding the booking itself. A category change resets the additions; a category change or `pricingBundleId: null` without a bundle named falls back to the default bundle, noted in annotations. Not after pickup (B312).',
  tags,
  params: BookingIdParams,
  body: AdminUpdateBooking,
  access: onTheBooking('BOOKING_UPDATE'),
  responses: { 200: { description: 'The updated booking', schema: BookingSchema } },
  errors: [...bookingUpdateErrors, 'B316'],
  async handler(ctx) {
    const booking = await bookingOf(ctx);
    const { ignoreTimeConstraints, ...changes } = ctx.body;
    if (ignoreTimeConstraints) {
      const allowed = await ctx.holds({
        permission: 'BOOKING_IGNORE_TIME_CONSTRAINTS',
        branchId: booking.branch.id,
      });
      if (!allowed) throw new DomainError('B316');
    }
    return ok(await updateBooking(ctx, booking, changes, ignoreTimeConstraints ?? false));
  },
});

export const adminPickupBooking = defineRoute({
  operationId: 'pickupBooking',
  method: 'post',
  path: '/bookings/{bookingId}',
  interface: 'back',
  summary: 'Pick a booking up: starts the rental of the delivered vehicle',
  description:
    'DELIVERED, inside the pickup window, requirements met (unless `rentalAuthOverride`), payment ready, vehicle still suiting the booking, no rental yet. Answers once the rental is reserved and started (or its refusal).',
  tags,
  params: BookingIdParams,
  query: Type.Object({
    rentalAuthOverride: Type.Optional(
      Type.Boolean({ default: false, description: 'Administrative override of the start requirements.' }),
    ),
  }),
  access: onTheBooking('BOOKING_PICKUP'),
  responses: { 200: { description: 'The booking with its rental', schema: BookingSchema } },
  errors: bookingPickupErrors,
  async handler(ctx) {
    return ok(await pickupBooking(ctx, await bookingOf(ctx), ctx.query.rentalAuthOverride ?? false));
  },
});

const BookingApproval = component(
  'BookingApproval',
  Type.Object(
    {
      approvalState: StringEnum(['APPROVED', 'DECLINED'] as const, { description: 'Target state.' }),
      rejectionReason: Type.Optional(Str(1000, { description: 'Needed when declining (B308).' })),
    },
    { additionalProperties: false },
  ),
);

export const approveBooking = defineRoute({
  operationId: 'approveBooking',
  method: 'patch',
  path: '/bookings/{bookingId}/approval',
  interface: 'back',
  summary: 'Approve or decline a booking request',
  tags,
  params: BookingIdParams,
  body: BookingApproval,
  access: onTheBooking('BOOKING_APPROVE'),
  responses: { 200: { description: 'The booking', schema: BookingSchema } },
  errors: ['B300', 'B304', 'B307', 'B308', 'B312', 'B313'],
  async handler(ctx) {
    const booking = await bookingOf(ctx);
    if (ctx.body.approvalState === 'DECLINED' && !ctx.body.rejectionReason?.trim())
      throw new DomainError('B308');
    assertBookingRunning(booking);
    await bookingWorkflow(ctx, booking.id).executeUpdate(bookingApprovalUpdate, {
      args: [{ requestedBy: ctx.actor, ...ctx.body }],
    });
    return ok(await reloadBooking(ctx, booking.id));
  },
});

const AdminCancelBooking = component(
  'AdminCancelBooking',
  Type.Object(
    {
      waiveCancellationFee: Type.Optional(Type.Boolean({ default: false })),
      reason: Type.Optional(Str(1000)),
    },
    { additionalProperties: false },
  ),
);

export const adminCancelBooking = defineRoute({
  operationId: 'cancelBooking',
  method: 'post',
  path: '/bookings/{bookingId}/cancel',
  interface: 'back',
  summary: 'Cancel a booking',
  description:
    "The fee of the pinned pricing (free before the free-cancellation deadline) becomes the booking's invoice unless `waiveCancellationFee`. Operators may cancel a booking whose pricing is not cancellable.",
  tags,
  params: BookingIdParams,
  body: AdminCancelBooking,
  access: onTheBooking('BOOKING_CANCEL'),
  responses: { 200: { description: 'The cancelled booking', schema: BookingSchema } },
  errors: ['B300', 'B304', 'B312', 'B313', 'ODP101'],
  async handler(ctx) {
    return ok(
      await cancelBooking(ctx, await bookingOf(ctx), {
        waiveCancellationFee: ctx.body?.waiveCancellationFee ?? false,
        reason: ctx.body?.reason,
        enforceCancellable: false,
      }),
    );
  },
});

export const deliverBooking = defineRoute({
  operationId: 'deliverBooking',
  method: 'post',
  path: '/bookings/{bookingId}/deliver',
  interface: 'back',
  summary: 'Associate a vehicle with a booking (DELIVERED)',
  tags,
  params: BookingIdParams,
  query: Type.Object({ vehicleId: Id() }),
  access: onTheBooking('BOOKING_DELIVER'),
  responses: { 200: { description: 'The delivered booking', schema: BookingSchema } },
  errors: ['B300', 'B303', 'B304', 'B309', 'B312', 'B313', 'V404'],
  async handler(ctx) {
    const booking = await bookingOf(ctx);
    assertBookingRunning(booking);
    await bookingWorkflow(ctx, booking.id).executeUpdate(deliverBookingUpdate, {
      args: [{ requestedBy: ctx.actor, vehicleId: ctx.query.vehicleId }],
    });
    return ok(await reloadBooking(ctx, booking.id));
  },
});

const BillingOverview = component(
  'BookingBillingOverview',
  Type.Object(
    {
      bookingId: Id(),
      state: BookingState,
      pricingBundleVersion: Nullable(PricingVersionRef),
      estimatedPrice: Nullable(PriceV4),
      cancellationInformation: Nullable(CancellationInformation),
      invoice: Nullable(
        Type.Object(
          {
            id: Id(),
            number: Type.String(),
            state: Type.String(),
            currency: Type.String(),
            totalNet: Type.String(),
            totalTax: Type.String(),
            totalGross: Type.String(),
            rentalId: Nullable(Id()),
            lines: Type.Array(
              Type.Object(
                {
                  code: Type.String(),
                  description: Type.String(),
                  quantity: Type.String(),
                  unit: Type.String(),
                  unitPrice: Type.String(),
                  net: Type.String(),
                  tax: Type.String(),
                  gross: Type.String(),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const bookingBillingOverview = defineRoute({
  operationId: 'bookingBillingOverview',
  method: 'get',
  path: '/bookings/{bookingId}/billing-overview',
  interface: 'back',
  summary: "A booking's money: pinned version, estimate or final price, cancellation terms, invoice",
  tags,
  params: BookingIdParams,
  access: onTheBooking('BOOKING_READ'),
  responses: { 200: { description: 'The billing overview', schema: BillingOverview } },
  errors: ['B300'],
  async handler(ctx) {
    const booking = await bookingOf(ctx);
    const dto = toBookingDto(booking);
    const invoice = booking.invoice ? await ctx.em.findOne(Invoice, booking.invoice.id) : null;
    const lines = invoice
      ? await ctx.em.find(InvoiceLine, { invoice: invoice.id }, { orderBy: { position: 'asc' } })
      : [];
    return ok({
      bookingId: booking.id,
      state: booking.state,
      pricingBundleVersion: dto.pricingBundleVersion,
      estimatedPrice: booking.priceV4 ?? null,
      cancellationInformation: dto.cancellationInformation,
      invoice: invoice
        ? {
            id: invoice.id,
            number: invoice.number,
            state: invoice.state,
            currency: invoice.currency,
            totalNet: invoice.totalNet,
            totalTax: invoice.totalTax,
            totalGross: invoice.totalGross,
            rentalId: invoice.rental?.id ?? null,
            lines: lines.map((line) => ({
              code: line.code,
              description: line.description,
              quantity: line.quantity,
              unit: line.unit,
              unitPrice: line.unitPrice,
              net: line.net,
              tax: line.tax,
              gross: line.gross,
            })),
          }
        : null,
    });
  },
});

// Fixed paths first. The availability routes (another module) mount their fixed `/bookings/...` paths.
export const bookingRoutes = [
  listBookings,
  adminAddBooking,
  getBooking,
  adminUpdateBooking,
  adminPickupBooking,
  approveBooking,
  adminCancelBooking,
  deliverBooking,
  bookingBillingOverview,
];
