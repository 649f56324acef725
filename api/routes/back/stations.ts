// Stations (VIRTUAL, DOCKING, RECOMMENDED, PROMOTION) of a branch: list, read, create, update, delete.
// Physical stations, their slots (docking) and parking areas are in physical-stations.ts,
// physical-station-slots.ts and parking-areas.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { Station } from '../../../db/entities/Station.js';
import { stationStates, stationTypes } from '../../../db/entities/Station.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { geofenceProblem, type GeofenceGeometry } from '../../../domain/geofence.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import { Geofence } from './areas.js';

const tags = ['Stations'];

const StationType = component('StationType', StringEnum(stationTypes));
const StationState = component('StationState', StringEnum(stationStates));
const Visibility = StringEnum(['public', 'private'] as const);

const StationReward = component(
  'StationReward',
  Type.Object(
    {
      description: Type.Optional(Str(500)),
      voucherableId: Type.Optional(Id()),
      freeMinutes: Type.Optional(Int(1, 1440)),
    },
    { additionalProperties: false, description: 'What ending a rental here earns.' },
  ),
);

const StationSchema = component(
  'Station',
  Type.Object(
    {
      id: Id(),
      branchId: Id(),
      name: Type.String(),
      type: StationType,
      capacity: Nullable(Type.Integer()),
      position: Position,
      radius: Nullable(Type.Integer({ description: 'Metres.' })),
      area: Nullable(Geofence),
      visibility: Visibility,
      state: StationState,
      validUntil: Nullable(DateTime()),
      reward: Nullable(StationReward),
    },
    { additionalProperties: false },
  ),
);

const stationFields = {
  branchId: Id(),
  name: Str(200, { minLength: 1 }),
  type: StationType,
  capacity: Nullable(Int(0, 100000)),
  position: Position,
  radius: Nullable(Int(1, 50000, { description: 'Catchment radius in metres.' })),
  area: Nullable(Geofence),
  visibility: Visibility,
  state: StationState,
  validUntil: Nullable(DateTime()),
  reward: Nullable(StationReward),
};

const StationCreate = component(
  'StationCreate',
  Type.Object(
    {
      branchId: stationFields.branchId,
      name: stationFields.name,
      type: stationFields.type,
      position: stationFields.position,
      capacity: Type.Optional(stationFields.capacity),
      radius: Type.Optional(stationFields.radius),
      area: Type.Optional(stationFields.area),
      visibility: Type.Optional(stationFields.visibility),
      state: Type.Optional(stationFields.state),
      validUntil: Type.Optional(stationFields.validUntil),
      reward: Type.Optional(stationFields.reward),
    },
    { additionalProperties: false, description: 'A station needs a radius or an area (STN100).' },
  ),
);

const StationPatch = component(
  'StationPatch',
  Type.Partial(Type.Object(stationFields, { additionalProperties: false }), {
    additionalProperties: false,
    description: 'Only the fields given change; null clears a nullable field.',
  }),
);

type StationDto = Static<typeof StationSchema>;

function toStationDto(station: Station): StationDto {
  return {
    id: station.id,
    branchId: station.branch.id,
    name: station.name,
    type: station.type,
    capacity: station.capacity ?? null,
    position: { lat: station.latitude, lng: station.longitude },
    radius: station.radius ?? null,
    area: station.area ?? null,
    visibility: station.visibility,
    state: station.state,
    validUntil: station.validUntil?.toISOString() ?? null,
    reward: station.reward ?? null,
  };
}

const stationOf = (ctx: RouteContext<{ stationId: number }>) =>
  ctx.once('station', async () => {
    const station = await ctx.em.findOne(Station, ctx.params.stationId);
    if (!station) throw new DomainError('STN404', `station ${ctx.params.stationId} not found`);
    return station;
  });

/** Refuses an invalid geofence with GF100. */
export function checkGeofence(geometry: unknown): void {
  const problem = geofenceProblem(geometry);
  if (problem)
    throw new DomainError('GF100', problem.message, { reason: problem.reason, path: problem.path });
}

/** Applies station fields (undefined: unchanged), checking the area and the radius-or-area rule. */
function applyStationFields(station: Station, fields: Partial<Static<typeof StationPatch>>): void {
  if (fields.area) checkGeofence(fields.area);
  if (fields.name !== undefined) station.name = fields.name;
  if (fields.type !== undefined) station.type = fields.type;
  if (fields.capacity !== undefined) station.capacity = fields.capacity;
  if (fields.position !== undefined) {
    station.latitude = fields.position.lat;
    station.longitude = fields.position.lng;
  }
  if (fields.radius !== undefined) station.radius = fields.radius;
  if (fields.area !== undefined) station.area = fields.area as GeofenceGeometry | null;
  if (fields.visibility !== undefined) station.visibility = fields.visibility;
  if (fields.state !== undefined) station.state = fields.state;
  if (fields.validUntil !== undefined)
    station.validUntil = fields.validUntil === null ? null : new Date(fields.validUntil);
  if (fields.reward !== undefined) station.reward = fields.reward;
  if ((station.radius ?? null) === null && (station.area ?? null) === null) throw new DomainError('STN100');
}

/** The query of a list of stations or physical stations: a branch, optionally with its descendants. */
export const branchListQuery = {
  branchId: Id(),
  includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
};

/** The branches such a list covers: the query's branch, and its descendants when asked. */
export async function branchesOf(
  ctx: RouteContext<unknown, { branchId: number; includeChildBranches?: boolean }>,
) {
  return ctx.query.includeChildBranches
    ? branchWithDescendants(ctx.em, ctx.tenant, ctx.query.branchId)
    : [ctx.query.branchId];
}

export const listStations = defineRoute({
  operationId: 'listStations',
  method: 'get',
  path: '/stations',
  interface: 'back',
  summary: 'Stations of a branch',
  tags,
  query: Type.Object({
    ...branchListQuery,
    type: Type.Optional(StationType),
    state: Type.Optional(StationState),
    sort: Type.Optional(
      Str(20, { pattern: '^(id|name|type|state)(,(asc|desc|ASC|DESC))?$', default: 'name' }),
    ),
  }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: {
    permission: 'STATION_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of stations', schema: Type.Array(StationSchema) } },
  errors: [],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const where: Record<string, unknown> = { branch: { $in: await branchesOf(ctx) } };
    if (query.type) where.type = query.type;
    if (query.state) where.state = query.state;
    const [rows, total] = await em.findAndCount(Station, where, {
      orderBy: orderBy(query.sort, 'name'),
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(toStationDto), { total });
  },
});

export const getStation = defineRoute({
  operationId: 'getStation',
  method: 'get',
  path: '/stations/{stationId}',
  interface: 'back',
  summary: 'One station',
  tags,
  params: Type.Object({ stationId: Id() }),
  access: {
    permission: 'STATION_READ',
    branchOf: 'the station',
    branch: async (ctx) => (await stationOf(ctx)).branch.id,
  },
  responses: { 200: { description: 'The station', schema: StationSchema } },
  errors: ['STN404'],
  async handler(ctx) {
    return ok(toStationDto(await stationOf(ctx)));
  },
});

export const createStation = defineRoute({
  operationId: 'createStation',
  method: 'post',
  path: '/stations',
  interface: 'back',
  summary: 'Create a station',
  tags,
  body: StationCreate,
  access: { permission: 'STATION_MANAGE', branchOf: 'body.branchId', branch: (ctx) => ctx.body.branchId },
  responses: {
    201: {
      description: 'Station created',
      schema: StationSchema,
      headers: { Location: { description: 'URL of the new station.', schema: Str(200) } },
    },
  },
  errors: ['GF100', 'STN100'],
  async handler(ctx) {
    const { em, body } = ctx;
    const station = em.create(Station, {
      branch: em.getReference(Branch, body.branchId),
      name: body.name,
      type: body.type,
      latitude: body.position.lat,
      longitude: body.position.lng,
    });
    applyStationFields(station, body);
    await em.flush();
    return created(toStationDto(station), { Location: `${ctx.baseUrl}/stations/${station.id}` });
  },
});

export const patchStation = defineRoute({
  operationId: 'patchStation',
  method: 'patch',
  path: '/stations/{stationId}',
  interface: 'back',
  summary: 'Change some fields of a station',
  description: 'Moving the station to another branch needs STATION_MANAGE there too.',
  tags,
  params: Type.Object({ stationId: Id() }),
  body: StationPatch,
  access: {
    permission: 'STATION_MANAGE',
    branchOf: 'the station',
    branch: async (ctx) => (await stationOf(ctx)).branch.id,
  },
  responses: { 200: { description: 'The station', schema: StationSchema } },
  errors: ['STN404', 'GF100', 'STN100'],
  async handler(ctx) {
    const station = await stationOf(ctx);
    if (ctx.body.branchId !== undefined && ctx.body.branchId !== station.branch.id) {
      await ctx.authorize('STATION_MANAGE', { branchId: ctx.body.branchId });
      station.branch = ctx.em.getReference(Branch, ctx.body.branchId);
    }
    applyStationFields(station, ctx.body);
    await ctx.em.flush();
    return ok(toStationDto(station));
  },
});

export const deleteStation = defineRoute({
  operationId: 'deleteStation',
  method: 'delete',
  path: '/stations/{stationId}',
  interface: 'back',
  summary: 'Delete a station',
  tags,
  params: Type.Object({ stationId: Id() }),
  access: {
    permission: 'STATION_MANAGE',
    branchOf: 'the station',
    branch: async (ctx) => (await stationOf(ctx)).branch.id,
  },
  responses: { 204: { description: 'Deleted' } },
  errors: ['STN404'],
  async handler(ctx) {
    ctx.em.remove(await stationOf(ctx));
    await ctx.em.flush();
    return noContent();
  },
});

export const stationRoutes = [listStations, getStation, createStation, patchStation, deleteStation];
