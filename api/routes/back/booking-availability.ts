// Booking availability for operators: availability days, validation of a create or update window, drop-off
// slots, the categories a window can be booked in, utilization and cooldowns. Every answer comes from the
// rules admission applies (db/booking-availability.ts, db/booking-search.ts), so what a search offers a
// creation accepts, unless another booking takes it first.
import { Type, type Static } from '@sinclair/typebox';
import { bookingConflicts, bookingStationOf, heldWindow } from '../../../db/booking-availability.js';
import {
  bookableCategories,
  bookingSettingsOf,
  stationsUnder,
  utilization,
} from '../../../db/booking-search.js';
import { bookingWindowRefusal } from '../../../domain/booking.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id } from '../../kernel/schemas.js';
import {
  DAY_MS,
  windowOf,
  AvailabilityDaySchema,
  AvailabilityQuery,
  answerAvailability,
  BookingConflictSchema,
  excludedBooking,
  DropoffSlotsBody,
  DropoffSlotsSchema,
  answerDropoffSlots,
  BookableCategorySchema,
  AvailableCategorySchema,
  toBookableCategoryDto,
  AvailableCategoriesQuery,
  answerAvailableCategories,
  BookableCategoriesQuery,
} from '../../shared/booking-availability.js';

const tags = ['Booking availability'];

export const getBookingAvailability = defineRoute({
  operationId: 'getBookingAvailability',
  method: 'get',
  path: '/bookings/availability',
  interface: 'back',
  summary: 'Availability days: per local day and category, how many bookings the station can take',
  tags,
  query: AvailabilityQuery,
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One entry per day', schema: Type.Array(AvailabilityDaySchema) } },
  errors: ['B315', 'B317'],
  async handler({ em, tenant, query }) {
    const filters = { withPricingOnly: false, withRentalRequirementsOnly: false, at: new Date() };
    return ok(await answerAvailability(em, tenant, query, filters));
  },
});

const windowFields = {
  branchId: Id({ description: 'Start station.' }),
  endBranchId: Type.Optional(Id({ description: 'Return station; default: the start station.' })),
  vehicleCategoryId: Id(),
  vehicleId: Type.Optional(Id({ description: 'A named vehicle (a delivered booking).' })),
  startTime: DateTime(),
  endTime: DateTime(),
};

const ValidateBody = component(
  'BookingAvailabilityValidation',
  Type.Object(
    {
      ...windowFields,
      bookingId: Type.Optional(
        Id({ description: 'On update: the booking itself, whose own hold does not count.' }),
      ),
      ignoreTimeConstraints: Type.Optional(
        Type.Boolean({
          default: false,
          description: 'Lift lead time and advance limit (BOOKING_IGNORE_TIME_CONSTRAINTS).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const ValidationResult = component(
  'BookingAvailabilityValidationResult',
  Type.Object(
    {
      valid: Type.Boolean(),
      conflicts: Type.Array(BookingConflictSchema),
      startStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes.' }),
      endStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes.' }),
      heldFrom: DateTime({ description: 'The hold: startTime minus the start cooldown.' }),
      heldUntil: DateTime({ description: 'endTime plus the end cooldown.' }),
    },
    { additionalProperties: false },
  ),
);

/** Validation of a window: the window rules (B301), then every conflict, cooldowns and hold. */
export async function validateWindow(
  ctx: Pick<RouteContext, 'em' | 'tenant'>,
  body: Static<typeof ValidateBody> & { excludeBookingId?: number },
  ignoreTimeConstraints: boolean,
) {
  const window = windowOf(body.startTime, body.endTime);
  const endBranchId = body.endBranchId ?? body.branchId;
  const settings = await bookingSettingsOf(ctx.em, ctx.tenant, body.branchId);
  const refusal = bookingWindowRefusal(window, Date.now(), settings, { ignoreTimeConstraints });
  if (refusal) throw new DomainError(refusal.code, refusal.reason);
  const { held, cooldowns } = await heldWindow(ctx.em, {
    ...window,
    branchId: body.branchId,
    endBranchId,
    vehicleCategoryId: body.vehicleCategoryId,
  });
  const conflicts = await bookingConflicts(ctx.em, {
    tenant: ctx.tenant,
    branchId: body.branchId,
    endBranchId,
    window,
    vehicleCategoryId: body.vehicleCategoryId,
    vehicleId: body.vehicleId,
    held,
    excludeBookingId: body.excludeBookingId,
  });
  return {
    valid: conflicts.length === 0,
    conflicts,
    startStationCooldown: cooldowns.startStationCooldownMinutes,
    endStationCooldown: cooldowns.endStationCooldownMinutes,
    heldFrom: new Date(held.startMs).toISOString(),
    heldUntil: new Date(held.endMs).toISOString(),
  };
}

export const validationErrors: ErrorCode[] = ['B300', 'B301', 'B309', 'B315', 'V404'];

/** The handler both validation routes share. */
async function validateHandler(ctx: RouteContext<unknown, unknown, Static<typeof ValidateBody>>) {
  const { body } = ctx;
  const excluded = await excludedBooking(ctx.em, body.bookingId);
  if (excluded) await ctx.authorize('BOOKING_READ', { branchId: excluded.branch.id });
  if (
    body.ignoreTimeConstraints &&
    !(await ctx.holds({ permission: 'BOOKING_IGNORE_TIME_CONSTRAINTS', branchId: body.branchId }))
  )
    throw new DomainError('B316');
  return ok(
    await validateWindow(
      ctx,
      { ...body, excludeBookingId: excluded?.id },
      body.ignoreTimeConstraints ?? false,
    ),
  );
}

/** What both validation routes declare alike: body, access, answer and codes. */
const validation = {
  tags,
  body: ValidateBody,
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'body field branchId (the start station)',
    branch: (ctx: RouteContext<unknown, unknown, Static<typeof ValidateBody>>) => ctx.body.branchId,
  },
  responses: { 200: { description: 'The verdict', schema: ValidationResult } },
  errors: [...validationErrors, 'B316'] as ErrorCode[],
  handler: validateHandler,
};

export const validateBookingAvailability = defineRoute({
  operationId: 'validateBookingAvailability',
  method: 'post',
  path: '/bookings/availability/validate',
  interface: 'back',
  summary: 'Validate a create or update window: every conflict, each with its conflictType',
  description:
    'Answers what admission would decide now (without holding anything): STATION_CLOSED (S101), VEHICLE_UNAVAILABLE (B303), CATEGORY_UNAVAILABLE (B302), COOLDOWN_OVERLAP (CD100), STATION_CAPACITY_EXCEEDED (S100). On update pass `bookingId` so the booking does not conflict with itself. A window the rules refuse (order, duration, lead time, advance) answers B301.',
  ...validation,
});

export const stationAvailability = defineRoute({
  operationId: 'stationAvailability',
  method: 'post',
  path: '/bookings/station-availability',
  interface: 'back',
  summary: 'Station availability of a window (deprecated: use POST /bookings/availability/validate)',
  description: 'The same check and answer as POST /bookings/availability/validate, kept for older clients.',
  ...validation,
  deprecated: { replacement: 'POST /bookings/availability/validate' },
});

export const availableDropoffTimeSlots = defineRoute({
  operationId: 'availableDropoffTimeSlots',
  method: 'post',
  path: '/bookings/available-dropoff-time-slots',
  interface: 'back',
  summary: 'Return times at the end station for a booking start, each bookable or with its conflicts',
  description:
    "Every `dropoffSlotMinutes` of the start station's booking settings, from the shortest booking on, up to `until` (default 24 hours; never beyond the longest booking; at most 2000 slots).",
  tags,
  body: DropoffSlotsBody,
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'body field branchId (the start station)',
    branch: (ctx) => ctx.body.branchId,
  },
  responses: { 200: { description: 'The slots', schema: DropoffSlotsSchema } },
  errors: ['B300', 'B301', 'B315'],
  async handler(ctx) {
    const excluded = await excludedBooking(ctx.em, ctx.body.excludeBookingId);
    if (excluded) await ctx.authorize('BOOKING_READ', { branchId: excluded.branch.id });
    return ok(await answerDropoffSlots(ctx, ctx.body, excluded?.id));
  },
});

export const listAvailableCategories = defineRoute({
  operationId: 'listAvailableCategories',
  method: 'get',
  path: '/bookings/available-categories',
  interface: 'back',
  summary: 'Categories with a bookable vehicle for a window at a station',
  tags,
  query: AvailableCategoriesQuery,
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Categories, by name', schema: Type.Array(AvailableCategorySchema) } },
  errors: ['B300', 'B301', 'B315'],
  async handler(ctx) {
    const excluded = await excludedBooking(ctx.em, ctx.query.excludeBookingId);
    if (excluded) await ctx.authorize('BOOKING_READ', { branchId: excluded.branch.id });
    return ok(await answerAvailableCategories(ctx, ctx.query, excluded?.id));
  },
});

export const listBookableCategories = defineRoute({
  operationId: 'listBookableCategories',
  method: 'get',
  path: '/bookings/bookable-categories',
  interface: 'back',
  summary: 'Categories generally bookable at a station (whatever the window)',
  tags,
  query: BookableCategoriesQuery,
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Categories, by name', schema: Type.Array(BookableCategorySchema) } },
  errors: ['B315'],
  async handler({ em, tenant, query }) {
    const station = await bookingStationOf(em, query.branchId);
    const categories = await bookableCategories(em, tenant, station, {
      withPricingOnly: query.includeWithPricingOnly ?? true,
      withRentalRequirementsOnly: query.includeWithRentalRequirementsOnly ?? true,
      at: new Date(),
    });
    return ok(categories.map(toBookableCategoryDto));
  },
});

const Utilization = component(
  'BookingUtilization',
  Type.Object(
    {
      branchId: Id({ description: 'The station.' }),
      vehicleCategoryId: Id(),
      vehicles: Type.Integer({ minimum: 0 }),
      bookings: Type.Integer({
        minimum: 0,
        description: 'Open or successful bookings holding in the period.',
      }),
      heldHours: Type.Number({
        minimum: 0,
        description: 'Held vehicle-hours (cooldowns included), clipped to the period.',
      }),
      availableHours: Type.Number({ minimum: 0, description: 'Vehicles times the hours of the period.' }),
      utilization: Type.Number({
        minimum: 0,
        description: 'heldHours / availableHours (can exceed 1 when overbooked).',
      }),
    },
    { additionalProperties: false },
  ),
);

export const getBookingUtilization = defineRoute({
  operationId: 'getBookingUtilization',
  method: 'get',
  path: '/bookings/utilization',
  interface: 'back',
  summary: 'Utilization per station and category over a period',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: true })),
    vehicleCategoryId: Type.Optional(Id()),
    from: DateTime(),
    to: DateTime({ description: 'After `from`; at most 93 days later.' }),
  }),
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Per station and category', schema: Type.Array(Utilization) } },
  errors: ['B317'],
  async handler({ em, tenant, query }) {
    const span = { startMs: clampedInstant(query.from).getTime(), endMs: clampedInstant(query.to).getTime() };
    if (span.endMs <= span.startMs) throw new DomainError('B317', '`to` must be after `from`');
    if (span.endMs - span.startMs > 93 * DAY_MS) throw new DomainError('B317', 'at most 93 days at once');
    const stations = await stationsUnder(em, tenant, query.branchId, query.includeChildBranches ?? true);
    return ok(await utilization(em, tenant, stations, span, query.vehicleCategoryId));
  },
});

const Cooldowns = component(
  'BookingCooldowns',
  Type.Object(
    {
      branchId: Id(),
      endBranchId: Id(),
      vehicleCategoryId: Id(),
      startStationCooldown: Type.Integer({
        minimum: 0,
        description: 'Minutes before the start (start station).',
      }),
      endStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes after the end (end station).' }),
    },
    { additionalProperties: false },
  ),
);

export const getBookingCooldowns = defineRoute({
  operationId: 'getBookingCooldowns',
  method: 'get',
  path: '/bookings/cooldowns',
  interface: 'back',
  summary: 'The cooldowns a booking of a category between two stations gets',
  tags,
  query: Type.Object({
    branchId: Id({ description: 'Start station.' }),
    endBranchId: Type.Optional(Id({ description: 'Return station; default: the start station.' })),
    vehicleCategoryId: Id(),
  }),
  access: {
    permission: 'BOOKING_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'The cooldowns', schema: Cooldowns } },
  errors: ['B315'],
  async handler({ em, query }) {
    const endBranchId = query.endBranchId ?? query.branchId;
    const { cooldowns } = await heldWindow(em, {
      startMs: 0,
      endMs: 0,
      branchId: query.branchId,
      endBranchId,
      vehicleCategoryId: query.vehicleCategoryId,
    });
    return ok({
      branchId: query.branchId,
      endBranchId,
      vehicleCategoryId: query.vehicleCategoryId,
      startStationCooldown: cooldowns.startStationCooldownMinutes,
      endStationCooldown: cooldowns.endStationCooldownMinutes,
    });
  },
});

export const bookingAvailabilityRoutes = [
  getBookingAvailability,
  validateBookingAvailability,
  stationAvailability,
  availableDropoffTimeSlots,
  listAvailableCategories,
  listBookableCategories,
  getBookingUtilization,
  getBookingCooldowns,
];
