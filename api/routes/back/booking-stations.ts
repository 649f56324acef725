// Booking stations for operators: which branches are booking stations and how they are configured
// (capacity, opening hours, categories, cooldowns), their categories and free vehicles, the conflicts
// among their bookings and their capacity forecast. A station's id is its branch's id.
import { Type, type Static } from '@sinclair/typebox';
import { Booking } from '../../../db/entities/Booking.js';
import { BookingStation } from '../../../db/entities/BookingStation.js';
import { Branch } from '../../../db/entities/Branch.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { loadStationFlows } from '../../../db/booking-availability.js';
import {
  capacityForecast,
  freeStationVehicleIds,
  loadBookingStation,
  stationConflicts,
  stationsUnder,
} from '../../../db/booking-search.js';
import {
  bookingConflictTypes,
  expectedVehicles,
  holdingBookingStates,
  openingHoursProblems,
  type Interval,
  type WeeklyOpeningHours,
} from '../../../domain/booking.js';
import { operationalServiceStates, serviceStatesV2, vehicleRentalStates } from '../../../domain/vehicle.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import {
  clampedInstant,
  component,
  DateTime,
  Dictionary,
  Id,
  Int,
  Nullable,
  Str,
  StringEnum,
} from '../../kernel/schemas.js';
import { OpeningHoursSchema } from '../../shared/booking-station-representation.js';

const tags = ['Booking stations'];

const CategoryCooldown = Type.Object(
  {
    startCooldownMinutes: Type.Optional(Int(0, 10_080)),
    endCooldownMinutes: Type.Optional(Int(0, 10_080)),
  },
  { additionalProperties: false },
);

const CategoryCooldowns = Dictionary(Str(10, { pattern: '^[1-9][0-9]{0,9}$' }), CategoryCooldown, {
  maxProperties: 200,
  description: 'Per vehicle category id: overrides of the station cooldowns.',
});

const stationConfigFields = {
  capacity: Nullable(Int(0, 100_000, { description: 'Parking spaces; null: unlimited.' })),
  openingHours: Nullable(OpeningHoursSchema),
  vehicleCategoryIds: Type.Array(Id(), {
    maxItems: 200,
    uniqueItems: true,
    description: 'Categories bookable here; empty: every bookable category.',
  }),
  startCooldownMinutes: Int(0, 10_080, { description: 'Preparation before a booking starting here.' }),
  endCooldownMinutes: Int(0, 10_080, { description: 'Cleaning and charging after a booking ending here.' }),
  categoryCooldowns: CategoryCooldowns,
};

const BookingStationConfig = component(
  'BookingStationConfig',
  Type.Object(
    {
      capacity: Type.Optional(stationConfigFields.capacity),
      openingHours: Type.Optional(stationConfigFields.openingHours),
      vehicleCategoryIds: Type.Optional(stationConfigFields.vehicleCategoryIds),
      startCooldownMinutes: Type.Optional(stationConfigFields.startCooldownMinutes),
      endCooldownMinutes: Type.Optional(stationConfigFields.endCooldownMinutes),
      categoryCooldowns: Type.Optional(stationConfigFields.categoryCooldowns),
    },
    {
      additionalProperties: false,
      description:
        'The whole configuration of a booking station (PUT replaces it); a field left out takes its default: unlimited capacity, always open, every bookable category, no cooldowns.',
    },
  ),
);

export const BookingStationSchema = component(
  'BookingStation',
  Type.Object(
    {
      id: Id({ description: "The station's id: its branch's id." }),
      name: Type.String(),
      code: Type.String(),
      parentId: Nullable(Id()),
      timeZoneId: Type.String(),
      ...stationConfigFields,
      vehiclesNow: Type.Integer({
        minimum: 0,
        description: 'Vehicles at the station now (not gone for good).',
      }),
      expectedVehicles: Type.Integer({
        description: 'Vehicles expected once the holding one-way bookings have come and gone.',
      }),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The API's booking station: the branch's identity and the station's configuration and counts. */
export async function toBookingStationDto(
  ctx: Pick<RouteContext, 'em' | 'tenant'>,
  station: BookingStation,
): Promise<Static<typeof BookingStationSchema>> {
  const flows = await loadStationFlows(ctx.em, ctx.tenant, station.branch.id);
  return {
    id: station.branch.id,
    name: station.branch.name,
    code: station.branch.code,
    parentId: station.branch.parent?.id ?? null,
    timeZoneId: station.branch.timeZoneId,
    capacity: station.capacity ?? null,
    openingHours: (station.openingHours as Static<typeof OpeningHoursSchema> | null | undefined) ?? null,
    vehicleCategoryIds: [...station.vehicleCategoryIds],
    startCooldownMinutes: station.startCooldownMinutes,
    endCooldownMinutes: station.endCooldownMinutes,
    categoryCooldowns: { ...station.categoryCooldowns },
    vehiclesNow: flows.vehiclesNow,
    expectedVehicles: expectedVehicles(flows.vehiclesNow, flows.flows, Number.MAX_SAFE_INTEGER).atMs,
    updatedAt: station.updatedAt.toISOString(),
  };
}

const StationParams = Type.Object({ bookingStationId: Id({ description: "The station's branch id." }) });

/** The station of the path, loaded once per request (S404 when the branch is no booking station). */
const stationOf = (ctx: RouteContext<{ bookingStationId: number }>) =>
  ctx.once('bookingStation', () => loadBookingStation(ctx.em, ctx.params.bookingStationId));

const stationBranch = async (ctx: RouteContext<{ bookingStationId: number }>) =>
  (await stationOf(ctx)).branch.id;

/** `activeWithin`: exactly two date-times, start and end. */
export const ActiveWithin = Type.Array(DateTime(), {
  minItems: 2,
  maxItems: 2,
  description: 'Send twice: the start, then the end of the period.',
});

/** The period of an `activeWithin` pair (B317 when the end is not after the start, or the period too long). */
export function activeWithinSpan(
  values: readonly string[] | undefined,
  maxDays: number,
): Interval | undefined {
  if (!values) return undefined;
  const startMs = clampedInstant(values[0]!).getTime();
  const endMs = clampedInstant(values[1]!).getTime();
  if (endMs <= startMs) throw new DomainError('B317', 'activeWithin: the end must be after the start');
  if (endMs - startMs > maxDays * 86_400_000)
    throw new DomainError('B317', `activeWithin spans at most ${maxDays} days`);
  return { startMs, endMs };
}

export const listBookingStations = defineRoute({
  operationId: 'listBookingStations',
  method: 'get',
  path: '/booking-stations',
  interface: 'back',
  summary: 'Booking stations of a branch (and its child branches)',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: true })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'BOOKING_STATION_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: { description: 'One page of booking stations, by name', schema: Type.Array(BookingStationSchema) },
  },
  errors: [],
  async handler(ctx) {
    const stations = await stationsUnder(
      ctx.em,
      ctx.tenant,
      ctx.query.branchId,
      ctx.query.includeChildBranches ?? true,
    );
    const page = stations.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
    const dtos = [];
    for (const station of page) dtos.push(await toBookingStationDto(ctx, station));
    return ok(dtos, { total: stations.length });
  },
});

export const getBookingStation = defineRoute({
  operationId: 'getBookingStation',
  method: 'get',
  path: '/booking-stations/{bookingStationId}',
  interface: 'back',
  summary: 'One booking station',
  tags,
  params: StationParams,
  access: {
    permission: 'BOOKING_STATION_READ',
    branchOf: 'the station',
    branch: (ctx) => stationBranch(ctx),
  },
  responses: { 200: { description: 'The station', schema: BookingStationSchema } },
  errors: ['S404'],
  async handler(ctx) {
    return ok(await toBookingStationDto(ctx, await stationOf(ctx)));
  },
});

export const putBookingStation = defineRoute({
  operationId: 'putBookingStation',
  method: 'put',
  path: '/booking-stations/{bookingStationId}',
  interface: 'back',
  summary: 'Make a branch a booking station, or replace its configuration',
  description:
    "The path id is the branch's id. The branch's operation mode becomes BOOKING. New limits apply to new decisions; bookings that no longer fit show in `/booking-stations/{id}/conflicts`.",
  tags,
  params: StationParams,
  body: BookingStationConfig,
  access: {
    permission: 'BOOKING_STATION_MANAGE',
    branchOf: 'the branch of the path',
    branch: (ctx) => ctx.params.bookingStationId,
  },
  responses: { 200: { description: 'The configured station', schema: BookingStationSchema } },
  errors: ['B404', 'S102', 'VC404'],
  async handler(ctx) {
    const { em, body, params } = ctx;
    const branch = await em.findOne(Branch, params.bookingStationId);
    if (!branch) throw new DomainError('B404', `branch ${params.bookingStationId} not found`);
    const openingHours = (body.openingHours ?? null) as WeeklyOpeningHours | null;
    const problems = openingHours ? openingHoursProblems(openingHours) : [];
    if (problems.length) throw new DomainError('S102', problems.join('; '), { problems });
    const categoryCooldowns = body.categoryCooldowns ?? {};
    const categoryIds = [
      ...new Set([...(body.vehicleCategoryIds ?? []), ...Object.keys(categoryCooldowns).map(Number)]),
    ];
    if (categoryIds.length) {
      const found = await em.find(VehicleCategory, { id: { $in: categoryIds } });
      const missing = categoryIds.filter((id) => !found.some((category) => category.id === id));
      if (missing.length)
        throw new DomainError('VC404', `vehicle categories not found: ${missing.join(', ')}`);
    }
    const station =
      (await em.findOne(BookingStation, { branch: branch.id }, { populate: ['branch'] })) ??
      em.create(BookingStation, { branch });
    em.assign(station, {
      capacity: body.capacity ?? null,
      openingHours: openingHours as BookingStation['openingHours'],
      vehicleCategoryIds: body.vehicleCategoryIds ?? [],
      startCooldownMinutes: body.startCooldownMinutes ?? 0,
      endCooldownMinutes: body.endCooldownMinutes ?? 0,
      categoryCooldowns,
    });
    branch.operationMode = 'BOOKING';
    await em.flush();
    return ok(await toBookingStationDto(ctx, station));
  },
});

export const deleteBookingStation = defineRoute({
  operationId: 'deleteBookingStation',
  method: 'delete',
  path: '/booking-stations/{bookingStationId}',
  interface: 'back',
  summary: 'Stop using a branch as a booking station (refused while bookings hold vehicles there)',
  description:
    'The branch stays; its operation mode returns to ON_DEMAND. S103 while any BOOKED, APPROVED or DELIVERED booking starts or ends there.',
  tags,
  params: StationParams,
  access: {
    permission: 'BOOKING_STATION_MANAGE',
    branchOf: 'the station',
    branch: (ctx) => stationBranch(ctx),
  },
  responses: { 204: { description: 'The branch is no booking station any more' } },
  errors: ['S404', 'S103'],
  async handler(ctx) {
    const station = await stationOf(ctx);
    const branchId = station.branch.id;
    const open = await ctx.em.count(Booking, {
      $or: [{ branch: branchId }, { endBranch: branchId }],
      state: { $in: [...holdingBookingStates] },
    });
    if (open) throw new DomainError('S103', `${open} open bookings start or end at station ${branchId}`);
    station.branch.operationMode = 'ON_DEMAND';
    ctx.em.remove(station);
    await ctx.em.flush();
    return noContent();
  },
});

const StationCategory = component(
  'BookingStationVehicleCategory',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      parentId: Nullable(Id()),
      vehicles: Type.Integer({
        minimum: 0,
        description: 'Vehicles of the category at the station (not gone for good).',
      }),
      operationalVehicles: Type.Integer({
        minimum: 0,
        description: 'Of those, vehicles not out of order now.',
      }),
      startCooldownMinutes: Type.Integer({ minimum: 0 }),
      endCooldownMinutes: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);

export const listBookingStationCategories = defineRoute({
  operationId: 'listBookingStationCategories',
  method: 'get',
  path: '/booking-stations/{bookingStationId}/vehicle-categories',
  interface: 'back',
  summary: 'The bookable vehicle categories a station offers, with its vehicles and cooldowns of each',
  tags,
  params: StationParams,
  access: {
    permission: 'BOOKING_STATION_READ',
    branchOf: 'the station',
    branch: (ctx) => stationBranch(ctx),
  },
  responses: { 200: { description: 'Categories, by name', schema: Type.Array(StationCategory) } },
  errors: ['S404'],
  async handler(ctx) {
    const station = await stationOf(ctx);
    const offered = station.vehicleCategoryIds;
    const categories = await ctx.em.find(
      VehicleCategory,
      offered.length ? { bookable: true, id: { $in: offered } } : { bookable: true },
      { orderBy: { name: 'asc', id: 'asc' } },
    );
    const vehicles = await ctx.em.find(Vehicle, {
      branch: station.branch.id,
      virtual: false,
      serviceStateV2: { $nin: ['RETIRED', 'DEFLEETED', 'LOST', 'UNREPAIRABLE'] },
    });
    return ok(
      categories.map((category) => {
        const own = vehicles.filter((vehicle) => vehicle.category.id === category.id);
        const override = station.categoryCooldowns[String(category.id)];
        return {
          id: category.id,
          name: category.name,
          parentId: category.parent?.id ?? null,
          vehicles: own.length,
          operationalVehicles: own.filter((vehicle) =>
            operationalServiceStates.includes(vehicle.serviceStateV2),
          ).length,
          startCooldownMinutes: override?.startCooldownMinutes ?? station.startCooldownMinutes,
          endCooldownMinutes: override?.endCooldownMinutes ?? station.endCooldownMinutes,
        };
      }),
    );
  },
});

const StationVehicle = component(
  'BookingStationVehicle',
  Type.Object(
    {
      id: Id(),
      code: Type.String(),
      licensePlate: Nullable(Type.String()),
      vehicleCategoryId: Id(),
      serviceStateV2: StringEnum(serviceStatesV2),
      rentalState: StringEnum(vehicleRentalStates),
      outOfOrder: Type.Boolean({ description: 'Not in an operational service state now.' }),
    },
    { additionalProperties: false },
  ),
);

export const listBookingStationVehicles = defineRoute({
  operationId: 'listBookingStationVehicles',
  method: 'get',
  path: '/booking-stations/{bookingStationId}/vehicles',
  interface: 'back',
  summary: "A station's vehicles, free over the period when activeWithin is given",
  description:
    'With `activeWithin` (sent twice: start and end, at most 93 days) vehicles held by a booking whose hold (window plus cooldowns) overlaps the period are left out: a vehicle leaving on a booking is not offered while it is prepared, away or cleaned.',
  tags,
  params: StationParams,
  query: Type.Object({ activeWithin: Type.Optional(ActiveWithin), vehicleCategoryId: Type.Optional(Id()) }),
  paged: { defaultSize: 100, maxSize: 500 },
  access: {
    permission: 'BOOKING_STATION_READ',
    branchOf: 'the station',
    branch: (ctx) => stationBranch(ctx),
  },
  responses: { 200: { description: 'One page of vehicles, by id', schema: Type.Array(StationVehicle) } },
  errors: ['S404', 'B317'],
  async handler(ctx) {
    const station = await stationOf(ctx);
    const span = activeWithinSpan(ctx.query.activeWithin, 93);
    const ids = await freeStationVehicleIds(
      ctx.em,
      ctx.tenant,
      station.branch.id,
      span,
      ctx.query.vehicleCategoryId,
    );
    const pageIds = ids.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
    const vehicles = pageIds.length
      ? await ctx.em.find(Vehicle, { id: { $in: pageIds } }, { orderBy: { id: 'asc' } })
      : [];
    return ok(
      vehicles.map((vehicle) => ({
        id: vehicle.id,
        code: vehicle.code,
        licensePlate: vehicle.licensePlate ?? null,
        vehicleCategoryId: vehicle.category.id,
        serviceStateV2: vehicle.serviceStateV2,
        rentalState: vehicle.rentalState,
        outOfOrder: !operationalServiceStates.includes(vehicle.serviceStateV2),
      })),
      { total: ids.length },
    );
  },
});

const StationConflict = component(
  'BookingStationConflict',
  Type.Object(
    {
      conflictType: StringEnum(bookingConflictTypes),
      errorCode: Type.String({
        description: 'The code a new booking would be refused with (S100, S101, B302, B303).',
      }),
      at: DateTime({ description: 'When it happens: the pickup or return concerned.' }),
      bookingIds: Type.Array(Id()),
      message: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const listBookingStationConflicts = defineRoute({
  operationId: 'listBookingStationConflicts',
  method: 'get',
  path: '/booking-stations/{bookingStationId}/conflicts',
  interface: 'back',
  summary: "What no longer fits among a station's open bookings over a period",
  description:
    'Arrivals beyond capacity (STATION_CAPACITY_EXCEEDED), pickups or returns outside the opening hours (STATION_CLOSED), more bookings without a vehicle than vehicles (CATEGORY_UNAVAILABLE), delivered vehicles out of order or gone (VEHICLE_UNAVAILABLE). `activeWithin`: exactly two date-times, at most 93 days.',
  tags,
  params: StationParams,
  query: Type.Object({ activeWithin: ActiveWithin }),
  access: {
    permission: 'BOOKING_STATION_READ',
    branchOf: 'the station',
    branch: (ctx) => stationBranch(ctx),
  },
  responses: { 200: { description: 'Conflicts, in time order', schema: Type.Array(StationConflict) } },
  errors: ['S404', 'B317'],
  async handler(ctx) {
    const station = await stationOf(ctx);
    const span = activeWithinSpan(ctx.query.activeWithin, 93)!;
    return ok(await stationConflicts(ctx.em, ctx.tenant, station, span));
  },
});

const ForecastPoint = Type.Object(
  {
    at: DateTime(),
    expectedVehicles: Type.Integer({ description: 'Vehicles expected that are not out of order.' }),
    occupiedCapacity: Type.Integer({
      description: 'Spaces taken, counting vehicles out of order (they stay parked).',
    }),
    outOfOrderVehicles: Type.Integer({ minimum: 0 }),
    freeCapacity: Nullable(Type.Integer({ description: 'Capacity minus occupied; null: unlimited.' })),
  },
  { additionalProperties: false },
);

const CapacityForecast = component(
  'BookingStationCapacityForecast',
  Type.Object(
    {
      bookingStationId: Id(),
      capacity: Nullable(Type.Integer({ minimum: 0 })),
      stepMinutes: Type.Integer({ minimum: 1 }),
      points: Type.Array(ForecastPoint),
    },
    { additionalProperties: false },
  ),
);

export const bookingStationCapacityForecast = defineRoute({
  operationId: 'bookingStationCapacityForecast',
  method: 'get',
  path: '/booking-stations/{bookingStationId}/capacity-forecast',
  interface: 'back',
  summary: "The station's expected occupancy over a period",
  description:
    'Every `stepMinutes` (default 60) from the start of `activeWithin` (exactly two date-times) to its end: the vehicles there now, plus one-way bookings returning, minus one-way bookings leaving. `occupiedCapacity` counts vehicles out of order now. At most 2000 points.',
  tags,
  params: StationParams,
  query: Type.Object({
    activeWithin: ActiveWithin,
    stepMinutes: Type.Optional(Int(5, 1440, { default: 60 })),
  }),
  access: {
    permission: 'BOOKING_STATION_READ',
    branchOf: 'the station',
    branch: (ctx) => stationBranch(ctx),
  },
  responses: { 200: { description: 'The forecast', schema: CapacityForecast } },
  errors: ['S404', 'B317'],
  async handler(ctx) {
    const station = await stationOf(ctx);
    const span = activeWithinSpan(ctx.query.activeWithin, 93)!;
    const stepMinutes = ctx.query.stepMinutes ?? 60;
    return ok({
      bookingStationId: station.branch.id,
      capacity: station.capacity ?? null,
      stepMinutes,
      points: await capacityForecast(ctx.em, ctx.tenant, station, span, stepMinutes),
    });
  },
});

export const bookingStationRoutes = [
  listBookingStations,
  getBookingStation,
  putBookingStation,
  deleteBookingStation,
  listBookingStationCategories,
  listBookingStationVehicles,
  listBookingStationConflicts,
  bookingStationCapacityForecast,
];
