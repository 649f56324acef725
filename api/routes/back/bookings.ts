// The operator's bookings: list with the spec's filters, create (ignoreTimeConstraints is privileged),
// detail, update, pickup into a rental, approval, cancellation, delivery and the billing overview. Every
// change runs as an update of the booking's workflow (workflows/booking.ts), which answers once it is
// recorded; see docs/bookings.md.
import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Booking } from '../../../db/entities/Booking.js';
import { Customer } from '../../../db/entities/Customer.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { InvoiceLine } from '../../../db/entities/InvoiceLine.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { bookingStationOf } from '../../../db/booking-availability.js';
import { bookingSettingsOf } from '../../../db/booking-lifecycle.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { pricedVersion, taxContextOf } from '../../../db/pricing.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import {
  bookingDirections,
  bookingRentalTypes,
  bookingStates,
  bookingTypes,
  bookingApprovalStates,
  bookingWindowRefusal,
  terminalBookingStates,
} from '../../../domain/booking.js';
import { bookingCancellation } from '../../../domain/pricing.js';
import { startRequirementCodes } from '../../../domain/rental-requirements.js';
import {
  awaitBookingUpdate,
  bookingApprovalUpdate,
  bookingWorkflowId,
  bookingWorkflowStartOptions,
  cancelBookingUpdate,
  deliverBookingUpdate,
  pickupBookingUpdate,
  updateBookingUpdate,
  BOOKING_WORKFLOW_TYPE,
  type BookingRequest,
} from '../../../workflows/booking.messages.js';
import { awaitReservationUpdate, rentalWorkflowId } from '../../../workflows/rental.messages.js';
import { checkBusinessContext } from '../../rental-creation.js';
import { Price, PriceV3, PriceV4, PricingVersionRef } from '../pricing-estimates.js';
import { created, defineRoute, linksById, ok, type RouteContext } from '../../kernel/route.js';
import {
  clampedInstant,
  component,
  DateTime,
  Id,
  Int,
  Nullable,
  Position,
  Str,
  StringEnum,
} from '../../kernel/schemas.js';
import type { ApiServices } from '../../kernel/mount.js';

const tags = ['Bookings'];

export const BookingState = component('BookingState', StringEnum(bookingStates));

const CancellationInformation = component(
  'BookingCancellationInformation',
  Type.Object(
    {
      cancellable: Type.Boolean({ description: 'Whether the pricing lets the customer cancel at all.' }),
      freeCancellationDeadline: DateTime({ description: 'Cancelling before this is free.' }),
      estimatedFee: Type.String({
        description: 'Fee if cancelled now (decimal string); present even when not cancellable.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const BookingSchema = component(
  'Booking',
  Type.Object(
    {
      id: Id(),
      state: BookingState,
      approvalState: Nullable(StringEnum(bookingApprovalStates)),
      rejectionReason: Nullable(Type.String()),
      type: StringEnum(bookingTypes),
      rentalType: StringEnum(bookingRentalTypes),
      guserId: Id({ description: 'The customer.' }),
      branchId: Id({ description: 'Start station.' }),
      endBranchId: Id({ description: 'Return station (the start station for a round trip).' }),
      vehicleCategoryId: Id(),
      vehicleId: Nullable(Id({ description: 'Delivered vehicle; null until delivery.' })),
      startTime: DateTime(),
      endTime: DateTime(),
      startStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes before the start.' }),
      endStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes after the end.' }),
      startPosition: Nullable(Position),
      startPositionRadius: Nullable(Type.Integer({ minimum: 0, description: 'Metres (FLOATING).' })),
      userGroupId: Nullable(Id()),
      costCenterId: Nullable(Id()),
      reason: Nullable(Type.String()),
      additions: Type.Array(Type.String()),
      pricingBundleId: Nullable(Id()),
      pricingBundleVersion: Nullable(PricingVersionRef),
      price: Nullable(Price),
      priceV3: Nullable(PriceV3),
      priceV4: Nullable(PriceV4),
      estimatedPrice: Nullable(
        Type.String({ description: 'Estimated total of the window (final price once the booking ended).' }),
      ),
      cancellationInformation: Nullable(CancellationInformation),
      notes: Nullable(Type.String()),
      externalReference: Nullable(Type.String()),
      annotations: Type.Array(Type.String()),
      ratingDescription: Nullable(Type.String()),
      checkedInAt: Nullable(DateTime()),
      pickedUpAt: Nullable(DateTime()),
      returnedAt: Nullable(DateTime()),
      overdueSince: Nullable(DateTime()),
      canceledAt: Nullable(DateTime()),
      cancellationReason: Nullable(Type.String()),
      cancellationFeeWaived: Type.Boolean(),
      rentalId: Nullable(Id({ description: 'The rental the pickup started.' })),
      invoiceId: Nullable(Id({ description: 'The trip, cancellation or no-show invoice.' })),
      workflowId: Type.String({ description: 'Id of the booking workflow in the Temporal UI.' }),
      createdBy: Nullable(Type.String()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

type BookingDto = Static<typeof BookingSchema>;

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/** Relations every booking DTO needs (the pinned version's bundle and the station's business unit for the terms). */
export const bookingPopulate = ['pricingBundleVersion.bundle', 'branch.businessUnit'] as const;

/** The API's booking representation (the `Booking` schema), shared by both interfaces. */
export function toBookingDto(booking: Booking, nowMs = Date.now()): BookingDto {
  const version = booking.pricingBundleVersion;
  const terms =
    version && booking.branch.businessUnit
      ? bookingCancellation(
          pricedVersion(version.bundle, version),
          booking.startTime.getTime(),
          nowMs,
          taxContextOf(booking.branch.businessUnit),
        )
      : null;
  return {
    id: booking.id,
    state: booking.state,
    approvalState: booking.approvalState ?? null,
    rejectionReason: booking.rejectionReason ?? null,
    type: booking.type,
    rentalType: booking.rentalType,
    guserId: booking.customer.id,
    branchId: booking.branch.id,
    endBranchId: booking.endBranch.id,
    vehicleCategoryId: booking.vehicleCategory.id,
    vehicleId: booking.vehicle?.id ?? null,
    startTime: booking.startTime.toISOString(),
    endTime: booking.endTime.toISOString(),
    startStationCooldown: booking.startStationCooldown,
    endStationCooldown: booking.endStationCooldown,
    startPosition: booking.startPosition ?? null,
    startPositionRadius: booking.startPositionRadius ?? null,
    userGroupId: booking.userGroup?.id ?? null,
    costCenterId: booking.costCenter?.id ?? null,
    reason: booking.reason ?? null,
    additions: [...booking.additions],
    pricingBundleId: version?.bundle.id ?? null,
    pricingBundleVersion: version
      ? {
          pricingBundleId: version.bundle.id,
          pricingBundleVersionId: version.id,
          version: version.version,
          name: version.bundle.name,
        }
      : null,
    price: booking.price ?? null,
    priceV3: booking.priceV3 ?? null,
    priceV4: booking.priceV4 ?? null,
    estimatedPrice: booking.price?.total ?? null,
    cancellationInformation: terms,
    notes: booking.notes ?? null,
    externalReference: booking.externalReference ?? null,
    annotations: [...booking.annotations],
    ratingDescription: booking.ratingDescription ?? null,
    checkedInAt: iso(booking.checkedInAt),
    pickedUpAt: iso(booking.pickedUpAt),
    returnedAt: iso(booking.returnedAt),
    overdueSince: iso(booking.overdueSince),
    canceledAt: iso(booking.canceledAt),
    cancellationReason: booking.cancellationReason ?? null,
    cancellationFeeWaived: booking.cancellationFeeWaived,
    rentalId: booking.rental?.id ?? null,
    invoiceId: booking.invoice?.id ?? null,
    workflowId: booking.workflowId,
    createdBy: booking.createdBy ?? null,
    createdAt: booking.createdAt.toISOString(),
    updatedAt: booking.updatedAt.toISOString(),
  };
}

/** Loads a booking with what its DTO needs; B300 when the tenant has no such booking. */
export async function loadBooking(em: EntityManager, bookingId: number): Promise<Booking> {
  const booking = await em.findOne(Booking, bookingId, { populate: bookingPopulate });
  if (!booking) throw new DomainError('B300', `booking ${bookingId} not found`);
  return booking;
}

/** The booking of the path, loaded once per request (the access check and the handler share it). */
export const bookingOf = (ctx: RouteContext<{ bookingId: number }>) =>
  ctx.once('booking', () => loadBooking(ctx.em, ctx.params.bookingId));

/** The start station of the booking of the path: where its permissions are checked. */
const bookingBranch = async (ctx: RouteContext<{ bookingId: number }>) => (await bookingOf(ctx)).branch.id;

/** Access to the booking of the path: `permission` on its start station. */
const onTheBooking = (permission: string) => ({
  permission,
  branchOf: 'the booking (start station)',
  branch: bookingBranch,
});

/** The booking workflow of a booking. */
export const bookingWorkflow = (ctx: RouteContext, bookingId: number) =>
  ctx.services.temporal.workflow.getHandle(bookingWorkflowId(ctx.tenant, bookingId));

/** Reloads a booking after its workflow changed it. */
export const reloadBooking = async (ctx: RouteContext, bookingId: number) =>
  toBookingDto(await loadBooking(ctx.em.fork(), bookingId));

/** Refuses an operation on a booking that ended, before reaching its (finished) workflow. */
export function assertBookingRunning(booking: Booking): void {
  if (terminalBookingStates.includes(booking.state))
    throw new DomainError('B304', `the booking is ${booking.state}`);
}

/** Fields of a creation common to both interfaces. */
export const bookingCreationFields = {
  branchId: Id({ description: 'Start station (a booking station).' }),
  endBranchId: Type.Optional(Id({ description: 'Return station; default: the start station.' })),
  vehicleCategoryId: Id(),
  startTime: DateTime(),
  endTime: DateTime(),
  type: Type.Optional(StringEnum(bookingTypes, { default: 'STATION' })),
  startPosition: Type.Optional(Position),
  startPositionRadius: Type.Optional(Int(0, 100_000, { description: 'Metres (FLOATING).' })),
  additions: Type.Optional(Type.Array(Str(64, { minLength: 1 }), { maxItems: 20 })),
  pricingBundleId: Type.Optional(Id({ description: 'A BOOKING bundle; default: the one assigned.' })),
  userGroupId: Type.Optional(Id({ description: 'Business account of a business booking.' })),
  userGroupCode: Type.Optional(
    Str(64, { minLength: 1, deprecated: true, description: 'Deprecated: use userGroupId.' }),
  ),
  costCenterId: Type.Optional(Id()),
  reason: Type.Optional(Str(500, { minLength: 1 })),
  externalReference: Type.Optional(Str(200)),
  bookingRequest: Type.Optional(
    Type.Boolean({ default: false, description: 'Create as a request awaiting approval.' }),
  ),
};

/** Codes a creation may answer (request checks, the first activity's refusals, the business context). */
export const bookingCreationErrors = [
  'B301',
  'B302',
  'B303',
  'B309',
  'B315',
  'B404',
  'S100',
  'S101',
  'V404',
  'VC404',
  'U106',
  'U131',
  'UG404',
  'R190',
  'R191',
  'R192',
  'ODP100',
  'ODP104',
  'ODP106',
  'ODP110',
  'ODP111',
] as const satisfies readonly ErrorCode[];

/** The body of a creation as both interfaces accept it. */
type CreationBody = Static<TObject<typeof bookingCreationFields>>;

/** What a creation asks for once the caller's rights are checked. */
export interface BookingCreation {
  customerId: number;
  requestedBy: string;
  body: CreationBody & {
    vehicleId?: number;
    notes?: string;
    annotations?: string[];
  };
  ignoreTimeConstraints: boolean;
}

/** The business account a deprecated userGroupCode names (UG404 when none). */
async function groupIdOfCode(em: EntityManager, code: string): Promise<number> {
  const group = await em.findOne(UserGroup, { code });
  if (!group) throw new DomainError('UG404', `business account ${code} not found`);
  return group.id;
}

/**
 * Creates a booking through its workflow: checks the business context, allocates the id, starts the
 * workflow and waits until the booking is recorded (or refused), then reloads the row.
 */
export async function createBooking(
  em: EntityManager,
  services: Pick<ApiServices, 'temporal' | 'taskQueue'>,
  tenant: string,
  creation: BookingCreation,
): Promise<Booking> {
  const { body } = creation;
  const userGroupId =
    body.userGroupId ?? (body.userGroupCode ? await groupIdOfCode(em, body.userGroupCode) : undefined);
  const business = await checkBusinessContext(em, creation.customerId, {
    userGroupId,
    costCenterId: body.costCenterId,
    reason: body.reason,
  });
  // Cheap refusals before a workflow starts (the first activity checks all of it again, authoritatively).
  const settings = await bookingSettingsOf(em, tenant, body.branchId);
  const refused = bookingWindowRefusal(
    { startMs: Date.parse(body.startTime), endMs: Date.parse(body.endTime) },
    Date.now(),
    settings,
    { ignoreTimeConstraints: creation.ignoreTimeConstraints },
  );
  if (refused) throw new DomainError(refused.code, refused.reason);
  if (!(await em.findOne(VehicleCategory, body.vehicleCategoryId)))
    throw new DomainError('VC404', `vehicle category ${body.vehicleCategoryId} not found`);
  await bookingStationOf(em, body.branchId, body.vehicleCategoryId);
  const [{ id: bookingId }] = await em.execute<[{ id: number }]>(
    `select nextval('booking_id_seq')::int as id`,
  );
  const request: BookingRequest = {
    customerId: creation.customerId,
    requestedBy: creation.requestedBy,
    type: body.type ?? 'STATION',
    rentalType: business.userGroupId ? 'BUSINESS' : 'PRIVATE',
    branchId: body.branchId,
    endBranchId: body.endBranchId,
    vehicleCategoryId: body.vehicleCategoryId,
    vehicleId: body.vehicleId,
    startTime: body.startTime,
    endTime: body.endTime,
    startPosition: body.startPosition,
    startPositionRadius: body.startPositionRadius,
    additions: body.additions,
    pricingBundleId: body.pricingBundleId,
    ...business,
    notes: body.notes,
    externalReference: body.externalReference,
    annotations: body.annotations,
    bookingRequest: body.bookingRequest ?? false,
    ignoreTimeConstraints: creation.ignoreTimeConstraints,
  };
  const handle = await services.temporal.workflow.start(
    BOOKING_WORKFLOW_TYPE,
    bookingWorkflowStartOptions({ tenant, bookingId, request }, services.taskQueue),
  );
  await handle.executeUpdate(awaitBookingUpdate);
  return loadBooking(em.fork(), bookingId);
}

/** Codes a pickup may answer: the booking's checks, then the reservation and start of its rental. */
export const bookingPickupErrors = [
  'B300',
  'B304',
  'B305',
  'B310',
  'B311',
  'B312',
  'B313',
  ...Object.values(startRequirementCodes),
  'RQ100',
  'U106',
  'U131',
  'R102',
  'R103',
  'R104',
  'R170',
  'R173',
  'ODP104',
] as const satisfies readonly ErrorCode[];

/**
 * Picks a booking up: the workflow checks it and starts the rental workflow of the delivered vehicle
 * (started at once); this waits until the rental's reservation (and start) is recorded or refused.
 */
export async function pickupBooking(
  ctx: RouteContext,
  booking: Booking,
  rentalAuthOverride: boolean,
): Promise<BookingDto> {
  assertBookingRunning(booking);
  const snapshot = await bookingWorkflow(ctx, booking.id).executeUpdate(pickupBookingUpdate, {
    args: [{ requestedBy: ctx.actor, rentalAuthOverride }],
  });
  if (snapshot.pickupRentalId !== undefined)
    await ctx.services.temporal.workflow
      .getHandle(rentalWorkflowId(ctx.tenant, snapshot.pickupRentalId))
      .executeUpdate(awaitReservationUpdate);
  return reloadBooking(ctx, booking.id);
}

/** Cancels a booking through its workflow (both interfaces). */
export async function cancelBooking(
  ctx: RouteContext,
  booking: Booking,
  request: { waiveCancellationFee: boolean; reason?: string; enforceCancellable: boolean },
): Promise<BookingDto> {
  assertBookingRunning(booking);
  await bookingWorkflow(ctx, booking.id).executeUpdate(cancelBookingUpdate, {
    args: [{ requestedBy: ctx.actor, ...request }],
  });
  return reloadBooking(ctx, booking.id);
}

/** Fields an update may change (both interfaces; operators may change more). */
export const bookingUpdateFields = {
  startTime: Type.Optional(DateTime()),
  endTime: Type.Optional(DateTime()),
  vehicleCategoryId: Type.Optional(Id({ description: 'A new category resets the additions.' })),
  endBranchId: Type.Optional(Id()),
  additions: Type.Optional(Type.Array(Str(64, { minLength: 1 }), { maxItems: 20 })),
  pricingBundleId: Type.Optional(
    Nullable(Id({ description: 'null: back to the default bundle (noted in annotations).' })),
  ),
  costCenterId: Type.Optional(Nullable(Id())),
  reason: Type.Optional(Nullable(Str(500))),
  externalReference: Type.Optional(Nullable(Str(200))),
};

export const bookingUpdateErrors = [
  'B300',
  'B301',
  'B302',
  'B303',
  'B304',
  'B312',
  'B313',
  'B315',
  'B404',
  'S100',
  'S101',
  'VC404',
  'R191',
  'ODP100',
  'ODP104',
  'ODP106',
  'ODP110',
  'ODP111',
] as const satisfies readonly ErrorCode[];

/** Updates a booking through its workflow (both interfaces). */
export async function updateBooking(
  ctx: RouteContext,
  booking: Booking,
  changes: Record<string, unknown>,
  ignoreTimeConstraints: boolean,
): Promise<BookingDto> {
  assertBookingRunning(booking);
  await bookingWorkflow(ctx, booking.id).executeUpdate(updateBookingUpdate, {
    args: [{ requestedBy: ctx.actor, changes, ignoreTimeConstraints }],
  });
  return reloadBooking(ctx, booking.id);
}

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
