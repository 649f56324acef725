// Booking availability searches, which both interfaces answer: availability days, drop-off slots and the
// categories a window can be booked in, with their queries and answers. Every answer comes from the rules
// admission applies (db/booking-availability.ts, db/booking-search.ts), so what a search offers a creation
// accepts, unless another booking takes it first.
import { Type, type Static } from '@sinclair/typebox';
import { Booking } from '../../db/entities/Booking.js';
import type { VehicleCategory } from '../../db/entities/VehicleCategory.js';
import { bookingStationOf } from '../../db/booking-availability.js';
import {
  availabilityDays,
  bookableCategories,
  categoryAvailability,
  dropoffSlots,
  type CategoryFilters,
} from '../../db/booking-search.js';
import { bookingConflictTypes, type Interval } from '../../domain/booking.js';
import { DomainError } from '../../domain/errors.js';
import type { EntityManager } from '../../db/orm.js';
import type { RouteContext } from '../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable } from '../kernel/schemas.js';

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;
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

export const BookableCategoriesQuery = Type.Object({
  branchId: Id({ description: 'The booking station.' }),
  ...CategoryFlags,
});
