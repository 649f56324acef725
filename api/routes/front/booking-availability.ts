// Booking availability for apps: the same searches as the operator's (api/routes/back/booking-availability.ts)
// over the booking stations an app may see (public branches in service), plus the station, drop-off
// station and city searches of the app's booking flow. A customer may exclude only their own booking.
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { type BookingStation } from '../../../db/entities/BookingStation.js';
import type { EntityManager } from '../../../db/orm.js';
import { loadStationFlows } from '../../../db/booking-availability.js';
import { appVisibleStations, bookableCategories, categoryAvailability } from '../../../db/booking-search.js';
import { expectedVehicles, isOpenAt } from '../../../domain/booking.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable } from '../../kernel/schemas.js';
import {
  answerAvailability,
  answerAvailableCategories,
  answerDropoffSlots,
  AvailabilityDaySchema,
  AvailabilityQuery,
  AvailableCategoriesQuery,
  AvailableCategorySchema,
  BookableCategoriesQuery,
  BookableCategorySchema,
  CategoryFlags,
  DropoffSlotsBody,
  DropoffSlotsSchema,
  excludedBooking,
  toBookableCategoryDto,
  windowOf,
} from '../../shared/booking-availability.js';
import { OpeningHoursSchema } from '../../shared/booking-station-representation.js';

const tags = ['Booking availability'];

const appAccess = {
  anyCaller:
    'only booking stations of public branches in service are searched; a customer may exclude only their own booking (A104).',
} as const;

/** An app-visible booking station by its branch id, or S404. */
async function loadAppStation(em: EntityManager, branchId: number): Promise<BookingStation> {
  const station = (await appVisibleStations(em)).find((candidate) => candidate.branch.id === branchId);
  if (!station) throw new DomainError('S404', `booking station ${branchId} not found`);
  return station;
}

/** The booking a request excludes: any of the tenant's for an app's client, only their own for a customer. */
async function excludableBooking(
  ctx: RouteContext,
  bookingId: number | undefined,
): Promise<number | undefined> {
  const booking = await excludedBooking(ctx.em, bookingId);
  if (!booking) return undefined;
  if (ctx.principal?.subjectType === 'CUSTOMER' && String(booking.customer.id) !== ctx.principal.subjectId)
    throw new DomainError('A104', `booking ${booking.id} belongs to another customer`);
  return booking.id;
}

export const appGetBookingAvailability = defineRoute({
  operationId: 'appGetBookingAvailability',
  method: 'get',
  path: '/bookings/availability',
  interface: 'front',
  summary: 'Availability days of a station: per local day and category, whether it can be booked',
  tags,
  query: Type.Object({ ...AvailabilityQuery.properties, ...CategoryFlags }),
  access: appAccess,
  responses: { 200: { description: 'One entry per day', schema: Type.Array(AvailabilityDaySchema) } },
  errors: ['S404', 'B315', 'B317'],
  async handler({ em, tenant, query }) {
    await loadAppStation(em, query.branchId);
    const filters = {
      withPricingOnly: query.includeWithPricingOnly ?? true,
      withRentalRequirementsOnly: query.includeWithRentalRequirementsOnly ?? true,
      at: new Date(),
    };
    return ok(await answerAvailability(em, tenant, query, filters));
  },
});

export const appListAvailableCategories = defineRoute({
  operationId: 'appListAvailableCategories',
  method: 'get',
  path: '/bookings/available-categories',
  interface: 'front',
  summary: 'Categories with a bookable vehicle for a window at a station',
  tags,
  query: AvailableCategoriesQuery,
  access: appAccess,
  responses: { 200: { description: 'Categories, by name', schema: Type.Array(AvailableCategorySchema) } },
  errors: ['S404', 'B300', 'B301', 'B315', 'A104'],
  async handler(ctx) {
    await loadAppStation(ctx.em, ctx.query.branchId);
    if (ctx.query.endBranchId !== undefined) await loadAppStation(ctx.em, ctx.query.endBranchId);
    const excluded = await excludableBooking(ctx, ctx.query.excludeBookingId);
    return ok(await answerAvailableCategories(ctx, ctx.query, excluded));
  },
});

export const appListBookableCategories = defineRoute({
  operationId: 'appListBookableCategories',
  method: 'get',
  path: '/bookings/bookable-categories',
  interface: 'front',
  summary: 'Categories generally bookable at a station',
  tags,
  query: BookableCategoriesQuery,
  access: appAccess,
  responses: { 200: { description: 'Categories, by name', schema: Type.Array(BookableCategorySchema) } },
  errors: ['S404'],
  async handler({ em, tenant, query }) {
    const station = await loadAppStation(em, query.branchId);
    const categories = await bookableCategories(em, tenant, station, {
      withPricingOnly: query.includeWithPricingOnly ?? true,
      withRentalRequirementsOnly: query.includeWithRentalRequirementsOnly ?? true,
      at: new Date(),
    });
    return ok(categories.map(toBookableCategoryDto));
  },
});

const AppBookingStation = component(
  'AppBookingStation',
  Type.Object(
    {
      id: Id({ description: "The station's branch id (the booking's branchId / endBranchId)." }),
      name: Type.String(),
      code: Type.String(),
      cityId: Nullable(Id({ description: 'The parent branch (see /bookings/cities).' })),
      timeZoneId: Type.String(),
      openingHours: Nullable(OpeningHoursSchema),
      contactInfo: Nullable(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
);

const toAppStationDto = (station: BookingStation): Static<typeof AppBookingStation> => ({
  id: station.branch.id,
  name: station.branch.name,
  code: station.branch.code,
  cityId: station.branch.parent?.id ?? null,
  timeZoneId: station.branch.timeZoneId,
  openingHours: (station.openingHours as Static<typeof OpeningHoursSchema> | null | undefined) ?? null,
  contactInfo: station.branch.contactInfo ?? null,
});

const AvailableStation = component(
  'AvailableBookingStation',
  Type.Object(
    {
      station: AppBookingStation,
      availableCategories: Type.Array(AvailableCategorySchema, {
        description: 'Categories bookable for the window.',
      }),
    },
    { additionalProperties: false },
  ),
);

const StationSearch = Type.Object(
  {
    startTime: DateTime(),
    endTime: DateTime(),
    vehicleCategoryId: Type.Optional(Id({ description: 'Only this category.' })),
    cityId: Type.Optional(Id({ description: 'Only stations of this city (parent branch).' })),
    excludeBookingId: Type.Optional(Id({ description: 'On update: the caller’s booking itself.' })),
    ...CategoryFlags,
  },
  { additionalProperties: false },
);

/** Round-trip availability of a window at every app-visible station (of a city), stations without any left out. */
async function availableStations(ctx: RouteContext, search: Static<typeof StationSearch>) {
  const window = windowOf(search.startTime, search.endTime);
  const excluded = await excludableBooking(ctx, search.excludeBookingId);
  const answers = [];
  for (const station of await appVisibleStations(ctx.em, search.cityId)) {
    const categories = (
      await bookableCategories(ctx.em, ctx.tenant, station, {
        withPricingOnly: search.includeWithPricingOnly ?? true,
        withRentalRequirementsOnly: search.includeWithRentalRequirementsOnly ?? true,
        at: new Date(window.startMs),
      })
    ).filter(
      (category) => search.vehicleCategoryId === undefined || category.id === search.vehicleCategoryId,
    );
    if (!categories.length) continue;
    const verdicts = await categoryAvailability(
      ctx.em,
      {
        tenant: ctx.tenant,
        branchId: station.branch.id,
        endBranchId: station.branch.id,
        window,
        excludeBookingId: excluded,
      },
      categories.map((category) => category.id),
      station,
    );
    const available = categories.flatMap((category, index) =>
      verdicts[index]!.conflicts.length
        ? []
        : [{ ...toBookableCategoryDto(category), availableVehicles: verdicts[index]!.remaining }],
    );
    if (available.length) answers.push({ station: toAppStationDto(station), availableCategories: available });
  }
  return answers;
}

const stationSearchDescription =
  'Stations (of `cityId`, or all) where a round trip of the window can be booked, with the categories that can; at most 500 stations are searched.';

export const appListAvailableStations = defineRoute({
  operationId: 'appListAvailableStations',
  method: 'get',
  path: '/bookings/available-stations',
  interface: 'front',
  summary: 'Stations with a bookable vehicle for a window',
  description: stationSearchDescription,
  tags,
  query: StationSearch,
  access: appAccess,
  responses: { 200: { description: 'Stations, by name', schema: Type.Array(AvailableStation) } },
  errors: ['B300', 'B301', 'A104'],
  async handler(ctx) {
    return ok(await availableStations(ctx, ctx.query));
  },
});

export const appSearchAvailableStations = defineRoute({
  operationId: 'appSearchAvailableStations',
  method: 'post',
  path: '/bookings/available-stations',
  interface: 'front',
  summary: 'Stations with a bookable vehicle for a window (search in the body)',
  description: stationSearchDescription,
  tags,
  body: StationSearch,
  access: appAccess,
  responses: { 200: { description: 'Stations, by name', schema: Type.Array(AvailableStation) } },
  errors: ['B300', 'B301', 'A104'],
  async handler(ctx) {
    return ok(await availableStations(ctx, ctx.body));
  },
});

const DropoffStation = component(
  'BookingDropoffStation',
  Type.Object(
    {
      station: AppBookingStation,
      oneWay: Type.Boolean({ description: 'Another station than the start.' }),
      freeSpaces: Nullable(
        Type.Integer({ description: 'Spaces left when the vehicle arrives; null: unlimited.' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const appListDropoffStations = defineRoute({
  operationId: 'appListDropoffStations',
  method: 'get',
  path: '/bookings/dropoff-stations',
  interface: 'front',
  summary: 'Stations a booking starting at a station may be returned to',
  description:
    "Stations of the start station's business unit offering the category (when given). With `endTime` only stations open then and, for one-way returns, with a free space when the vehicle arrives.",
  tags,
  query: Type.Object({
    branchId: Id({ description: 'Start station.' }),
    vehicleCategoryId: Type.Optional(Id()),
    endTime: Type.Optional(DateTime({ description: 'The planned return.' })),
    excludeBookingId: Type.Optional(Id({ description: 'On update: the caller’s booking itself.' })),
  }),
  access: appAccess,
  responses: { 200: { description: 'Stations, by name', schema: Type.Array(DropoffStation) } },
  errors: ['S404', 'B300', 'A104'],
  async handler(ctx) {
    const { em, tenant, query } = ctx;
    const start = await loadAppStation(em, query.branchId);
    const excluded = await excludableBooking(ctx, query.excludeBookingId);
    const endMs = query.endTime ? clampedInstant(query.endTime).getTime() : undefined;
    const answers = [];
    for (const station of await appVisibleStations(em)) {
      if (station.branch.businessUnit.id !== start.branch.businessUnit.id) continue;
      const offered = station.vehicleCategoryIds;
      if (
        query.vehicleCategoryId !== undefined &&
        offered.length &&
        !offered.includes(query.vehicleCategoryId)
      )
        continue;
      const oneWay = station.branch.id !== start.branch.id;
      let freeSpaces: number | null = null;
      if (endMs !== undefined) {
        if (!isOpenAt(station.openingHours, station.branch.timeZoneId, endMs, 'return')) continue;
      }
      if (station.capacity != null) {
        const flows = await loadStationFlows(em, tenant, station.branch.id);
        const peak = expectedVehicles(
          flows.vehiclesNow,
          flows.flows,
          endMs ?? Date.now(),
          excluded,
        ).peakAfter;
        freeSpaces = station.capacity - peak - (oneWay ? 1 : 0);
        if (oneWay && freeSpaces < 0) continue;
      }
      answers.push({ station: toAppStationDto(station), oneWay, freeSpaces });
    }
    return ok(answers);
  },
});

const City = component(
  'BookingCity',
  Type.Object(
    {
      id: Id({ description: 'The branch holding the stations (pass as cityId).' }),
      name: Type.String(),
      code: Type.String(),
      timeZoneId: Type.String(),
      stations: Type.Integer({ minimum: 1, description: 'Booking stations an app sees there.' }),
    },
    { additionalProperties: false },
  ),
);

export const appListBookingCities = defineRoute({
  operationId: 'appListBookingCities',
  method: 'get',
  path: '/bookings/cities',
  interface: 'front',
  summary: 'Cities with booking stations: the parent branches of the stations an app sees',
  tags,
  access: appAccess,
  responses: { 200: { description: 'Cities, by name', schema: Type.Array(City) } },
  errors: [],
  async handler({ em }) {
    const counts = new Map<number, number>();
    for (const station of await appVisibleStations(em)) {
      const parentId = station.branch.parent?.id;
      if (parentId !== undefined) counts.set(parentId, (counts.get(parentId) ?? 0) + 1);
    }
    const cities = counts.size
      ? await em.find(Branch, { id: { $in: [...counts.keys()] } }, { orderBy: { name: 'asc', id: 'asc' } })
      : [];
    return ok(
      cities.map((city) => ({
        id: city.id,
        name: city.name,
        code: city.code,
        timeZoneId: city.timeZoneId,
        stations: counts.get(city.id)!,
      })),
    );
  },
});

export const appAvailableDropoffTimeSlots = defineRoute({
  operationId: 'appAvailableDropoffTimeSlots',
  method: 'post',
  path: '/bookings/available-dropoff-time-slots',
  interface: 'front',
  summary: 'Return times at the end station for a booking start, each bookable or with its conflicts',
  tags,
  body: DropoffSlotsBody,
  access: appAccess,
  responses: { 200: { description: 'The slots', schema: DropoffSlotsSchema } },
  errors: ['S404', 'B300', 'B301', 'B315', 'A104'],
  async handler(ctx) {
    await loadAppStation(ctx.em, ctx.body.branchId);
    if (ctx.body.endBranchId !== undefined) await loadAppStation(ctx.em, ctx.body.endBranchId);
    const excluded = await excludableBooking(ctx, ctx.body.excludeBookingId);
    return ok(await answerDropoffSlots(ctx, ctx.body, excluded));
  },
});

export const appBookingAvailabilityRoutes = [
  appGetBookingAvailability,
  appListAvailableCategories,
  appListBookableCategories,
  appListAvailableStations,
  appSearchAvailableStations,
  appListDropoffStations,
  appListBookingCities,
  appAvailableDropoffTimeSlots,
];
