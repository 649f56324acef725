// Booking availability for operators: availability days, validation of a create or update window, drop-off
// slots, the categories a window can be booked in, utilization and cooldowns. Every answer comes from the
// rules admission applies (db/booking-availability.ts, db/booking-search.ts), so what a search offers a
// creation accepts, unless another booking takes it first.
import { Type, type Static } from '@sinclair/typebox';
import { Booking } from '../../../db/entities/Booking.js';
import { type VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { bookingConflicts, bookingStationOf, heldWindow } from '../../../db/booking-availability.js';
import {
  availabilityDays,
  bookableCategories,
  bookingSettingsOf,
  categoryAvailability,
  dropoffSlots,
  stationsUnder,
  utilization,
  type CategoryFilters,
} from '../../../db/booking-search.js';
import { bookingConflictTypes, bookingWindowRefusal, type Interval } from '../../../domain/booking.js';
import { DomainError, type ErrorCode } from '../../../domain/errors.js';
import type { EntityManager } from '../../../db/orm.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable } from '../../kernel/schemas.js';

const tags = ['Booking availability'];
const DAY_MS = 86_400_000;
/** Beyond any booking horizon, and far enough from year 9999 that holds and slots stay printable date-times. */
const LAST_BOOKABLE_MS = Date.UTC(9000, 0, 1);

/** A calendar date (YYYY-MM-DD) PostgreSQL and Intl both hold. */
export const CalendarDate = (description: string) =>
  Type.String({
    format: 'date',
    maxLength: 10,
    pattern: '^(19|20|21)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
    description,
  });

/** A checked range of local dates (B317 for a date that does not exist, an inverted or too long range). */
export function dateRange(from: string, to: string, maxDays: number): { from: string; to: string } {
  for (const value of [from, to]) {
    const parsed = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isFinite(parsed) || new Date(parsed).toISOString().slice(0, 10) !== value)
      throw new DomainError('B317', `${value} is not a calendar date`);
  }
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days < 1) throw new DomainError('B317', '`to` must not be before `from`');
  if (days > maxDays) throw new DomainError('B317', `at most ${maxDays} days at once`);
  return { from, to };
}

/** A window from two date-times of a request (B301 when the end is not after the start). */
export function windowOf(startTime: string, endTime: string): Interval {
  const window = { startMs: clampedInstant(startTime).getTime(), endMs: clampedInstant(endTime).getTime() };
  if (window.endMs <= window.startMs) throw new DomainError('B301', 'endTime must be after startTime');
  if (window.endMs > LAST_BOOKABLE_MS) throw new DomainError('B301', 'bookings end before the year 9000');
  return window;
}

export const AvailabilityDaySchema = component(
  'BookingAvailabilityDay',
  Type.Object(
    {
      date: Type.String({ description: "Local date in the station's time zone." }),
      open: Type.Boolean(),
      openFrom: Nullable(DateTime({ description: 'Earliest opening of the day.' })),
      openUntil: Nullable(DateTime({ description: 'Latest closing of the day.' })),
      categories: Type.Array(
        Type.Object(
          {
            vehicleCategoryId: Id(),
            vehicles: Type.Integer({ minimum: 0 }),
            bookableForWholeDay: Type.Integer({
              minimum: 0,
              description: 'Bookings covering the whole open span (cooldowns included) the pool still takes.',
            }),
            bookableAtSomeTime: Type.Integer({
              minimum: 0,
              description: 'Most vehicles free at one moment of the open span.',
            }),
            available: Type.Boolean({ description: 'Open, and a vehicle is free at some time of the day.' }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const AvailabilityQuery = Type.Object({
  branchId: Id({ description: 'The booking station.' }),
  vehicleCategoryId: Type.Optional(
    Id({ description: 'One category; default: every category the station offers.' }),
  ),
  from: CalendarDate('First local date.'),
  to: CalendarDate('Last local date (inclusive); at most 62 days after `from`.'),
});

/** Availability days of a station for the query's categories (all offered ones, filtered as given). */
export async function answerAvailability(
  em: EntityManager,
  tenant: string,
  query: Static<typeof AvailabilityQuery>,
  filters: CategoryFilters,
) {
  const range = dateRange(query.from, query.to, 62);
  const station = await bookingStationOf(em, query.branchId, query.vehicleCategoryId);
  const categoryIds =
    query.vehicleCategoryId !== undefined
      ? [query.vehicleCategoryId]
      : (await bookableCategories(em, tenant, station, filters)).map((category) => category.id);
  return availabilityDays(em, tenant, station, categoryIds, range.from, range.to);
}

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

export const BookingConflictSchema = component(
  'BookingConflict',
  Type.Object(
    {
      conflictType: Type.Unsafe<(typeof bookingConflictTypes)[number]>({
        type: 'string',
        enum: [...bookingConflictTypes],
      }),
      errorCode: Type.String({ description: 'The code a create or update would be refused with.' }),
      message: Type.String(),
    },
    { additionalProperties: false },
  ),
);

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

/** The booking a request excludes (B300 when the tenant has none such); the caller checks ownership. */
export async function excludedBooking(
  em: EntityManager,
  bookingId: number | undefined,
): Promise<Booking | undefined> {
  if (bookingId === undefined) return undefined;
  const booking = await em.findOne(Booking, bookingId);
  if (!booking) throw new DomainError('B300', `booking ${bookingId} not found`);
  return booking;
}

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

export const DropoffSlotsBody = component(
  'BookingDropoffSlotSearch',
  Type.Object(
    {
      branchId: Id({ description: 'Start station.' }),
      endBranchId: Type.Optional(Id({ description: 'Return station; default: the start station.' })),
      vehicleCategoryId: Id(),
      vehicleId: Type.Optional(Id()),
      bookingStartTime: DateTime({ description: 'When the booking starts.' }),
      until: Type.Optional(
        DateTime({
          description:
            'Offer returns up to then; default 24 hours after the start, at most the longest booking.',
        }),
      ),
      excludeBookingId: Type.Optional(Id({ description: 'On update: the booking itself.' })),
    },
    { additionalProperties: false },
  ),
);

export const DropoffSlotsSchema = component(
  'BookingDropoffSlots',
  Type.Object(
    {
      slotMinutes: Type.Integer({ minimum: 1 }),
      slots: Type.Array(
        Type.Object(
          {
            endTime: DateTime(),
            available: Type.Boolean(),
            conflicts: Type.Array(BookingConflictSchema),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/** Drop-off slots of a search body (the booking excluded already checked by the caller). */
export async function answerDropoffSlots(
  ctx: Pick<RouteContext, 'em' | 'tenant'>,
  body: Static<typeof DropoffSlotsBody>,
  excludeBookingId: number | undefined,
) {
  const startMs = clampedInstant(body.bookingStartTime).getTime();
  const untilMs = body.until ? clampedInstant(body.until).getTime() : startMs + DAY_MS;
  if (untilMs <= startMs) throw new DomainError('B301', '`until` must be after bookingStartTime');
  if (untilMs > LAST_BOOKABLE_MS) throw new DomainError('B301', 'bookings end before the year 9000');
  return dropoffSlots(ctx.em, {
    tenant: ctx.tenant,
    branchId: body.branchId,
    endBranchId: body.endBranchId ?? body.branchId,
    vehicleCategoryId: body.vehicleCategoryId,
    vehicleId: body.vehicleId,
    startMs,
    untilMs,
    excludeBookingId,
  });
}

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

export const CategoryFlags = {
  includeWithPricingOnly: Type.Optional(
    Type.Boolean({ default: true, description: 'Only categories with BOOKING pricing at the station.' }),
  ),
  includeWithRentalRequirementsOnly: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'Only categories whose rental requirements resolve at the station.',
    }),
  ),
};

export const BookableCategorySchema = component(
  'BookableVehicleCategory',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      parentId: Nullable(Id()),
      appProperties: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
);

export const AvailableCategorySchema = component(
  'AvailableVehicleCategory',
  Type.Object(
    {
      ...BookableCategorySchema.properties,
      availableVehicles: Type.Integer({
        minimum: 1,
        description: 'More bookings of this window the pool takes.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const toBookableCategoryDto = (category: VehicleCategory): Static<typeof BookableCategorySchema> => ({
  id: category.id,
  name: category.name,
  parentId: category.parent?.id ?? null,
  appProperties: { ...category.appProperties },
});

export const AvailableCategoriesQuery = Type.Object({
  branchId: Id({ description: 'Start station.' }),
  endBranchId: Type.Optional(Id({ description: 'Return station; default: the start station.' })),
  startTime: DateTime(),
  endTime: DateTime(),
  excludeBookingId: Type.Optional(Id({ description: 'On update: the booking itself.' })),
  ...CategoryFlags,
});

/** Categories with a bookable vehicle for the window (no conflict at all). */
export async function answerAvailableCategories(
  ctx: Pick<RouteContext, 'em' | 'tenant'>,
  query: Static<typeof AvailableCategoriesQuery>,
  excludeBookingId: number | undefined,
) {
  const window = windowOf(query.startTime, query.endTime);
  const station = await bookingStationOf(ctx.em, query.branchId);
  const categories = await bookableCategories(ctx.em, ctx.tenant, station, {
    withPricingOnly: query.includeWithPricingOnly ?? true,
    withRentalRequirementsOnly: query.includeWithRentalRequirementsOnly ?? true,
    at: new Date(window.startMs),
  });
  const answers = await categoryAvailability(
    ctx.em,
    {
      tenant: ctx.tenant,
      branchId: query.branchId,
      endBranchId: query.endBranchId ?? query.branchId,
      window,
      excludeBookingId,
    },
    categories.map((category) => category.id),
    station,
  );
  return categories.flatMap((category, index) => {
    const answer = answers[index]!;
    return answer.conflicts.length
      ? []
      : [{ ...toBookableCategoryDto(category), availableVehicles: answer.remaining }];
  });
}

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

export const BookableCategoriesQuery = Type.Object({
  branchId: Id({ description: 'The booking station.' }),
  ...CategoryFlags,
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
