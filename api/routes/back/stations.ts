// Stations (VIRTUAL, DOCKING, RECOMMENDED, PROMOTION), physical stations with their slots and parking
// area, and docking (connect / disconnect a vehicle, db/docking.ts).
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { ParkingArea } from '../../../db/entities/ParkingArea.js';
import { PhysicalStation } from '../../../db/entities/PhysicalStation.js';
import { PhysicalStationSlot } from '../../../db/entities/PhysicalStationSlot.js';
import { Station } from '../../../db/entities/Station.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { stationStates, stationTypes } from '../../../db/entities/Station.js';
import { physicalStationStates } from '../../../db/entities/PhysicalStation.js';
import { slotStates } from '../../../db/entities/PhysicalStationSlot.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { connectVehicleToSlot, disconnectVehicleFromSlot } from '../../../db/docking.js';
import { DomainError } from '../../../domain/errors.js';
import { geofenceContains, geofenceProblem, type GeofenceGeometry } from '../../../domain/geofence.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import {
  component,
  DateTime,
  Id,
  Int,
  Nullable,
  Position,
  Str,
  StringEnum,
  Dictionary,
} from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import { Geofence } from './areas.js';
import { inRequestTransaction } from './branches.js';

const tags = ['Stations'];

// ---------------------------------------------------------------------------------------------------
// Stations

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
function checkGeofence(geometry: unknown): void {
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

const branchListQuery = {
  branchId: Id(),
  includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
};

async function branchesOf(ctx: RouteContext<unknown, { branchId: number; includeChildBranches?: boolean }>) {
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

// ---------------------------------------------------------------------------------------------------
// Physical stations

const PhysicalStationState = component('PhysicalStationState', StringEnum(physicalStationStates));
const SlotState = component('SlotState', StringEnum(slotStates));
const LocalizedText = Dictionary(Str(16, { pattern: '^[a-z]{2}(-[A-Z]{2})?$' }), Str(4000), {
  maxProperties: 30,
  additionalProperties: false,
  description: 'Language tag (en, de, de-CH) → text.',
});
const ImageSchema = Type.Object(
  {
    key: Str(64, { pattern: '^(icon|mainImage|detailsImage_[0-9]{1,2})$' }),
    url: Str(1000, { format: 'uri' }),
  },
  { additionalProperties: false },
);
const AppIcons = Dictionary(Str(32, { pattern: '^[A-Za-z][A-Za-z0-9_]*$' }), Str(1000, { format: 'uri' }), {
  maxProperties: 20,
  additionalProperties: false,
  description: 'Icon overrides for apps: role (vehicle, parking, …) → URL.',
});

export const PhysicalStationSchema = component(
  'PhysicalStation',
  Type.Object(
    {
      id: Id(),
      branchId: Id(),
      name: Type.String(),
      state: PhysicalStationState,
      position: Position,
      address: Nullable(Type.String()),
      description: LocalizedText,
      images: Type.Array(ImageSchema),
      appIcons: Nullable(AppIcons),
      slotCount: Type.Integer(),
      vacantSlotCount: Type.Integer(),
    },
    { additionalProperties: false },
  ),
);

const physicalStationFields = {
  branchId: Id(),
  name: Str(200, { minLength: 1 }),
  state: PhysicalStationState,
  position: Position,
  address: Nullable(Str(300)),
  description: LocalizedText,
  images: Type.Array(ImageSchema, { maxItems: 20 }),
  appIcons: Nullable(AppIcons),
};

const PhysicalStationCreate = component(
  'PhysicalStationCreate',
  Type.Object(
    {
      branchId: physicalStationFields.branchId,
      name: physicalStationFields.name,
      position: physicalStationFields.position,
      state: Type.Optional(physicalStationFields.state),
      address: Type.Optional(physicalStationFields.address),
      description: Type.Optional(physicalStationFields.description),
      images: Type.Optional(physicalStationFields.images),
      appIcons: Type.Optional(physicalStationFields.appIcons),
    },
    { additionalProperties: false },
  ),
);

const PhysicalStationPatch = component(
  'PhysicalStationPatch',
  Type.Partial(Type.Object(physicalStationFields), { additionalProperties: false }),
);

const SlotSchema = component(
  'PhysicalStationSlot',
  Type.Object(
    {
      id: Id(),
      physicalStationId: Id(),
      number: Type.Integer(),
      state: SlotState,
      vehicleId: Nullable(Id()),
      connectedAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

const ParkingAreaSchema = component(
  'ParkingArea',
  Type.Object(
    {
      physicalStationId: Id(),
      capacity: Type.Integer(),
      geometry: Geofence,
      reservedCount: Type.Integer(),
      parkedVehicleIds: Type.Array(Id(), {
        description: "Vehicles of the station's branch inside the geometry.",
      }),
      freeCount: Type.Integer({ description: 'capacity − parked − reserved, at least 0.' }),
    },
    { additionalProperties: false },
  ),
);

const parkingAreaFields = {
  capacity: Int(0, 100000),
  geometry: Geofence,
  reservedCount: Int(0, 100000),
};

const StationParams = Type.Object({ stationId: Id() });
const SlotParams = Type.Object({ stationId: Id(), slotId: Id() });

type PhysicalStationDto = Static<typeof PhysicalStationSchema>;

/** The API's physical station representation (back and front). */
export async function toPhysicalStationDto(
  em: EntityManager,
  station: PhysicalStation,
): Promise<PhysicalStationDto> {
  const slots = await em.find(PhysicalStationSlot, { physicalStation: station.id });
  return {
    id: station.id,
    branchId: station.branch.id,
    name: station.name,
    state: station.state,
    position: { lat: station.latitude, lng: station.longitude },
    address: station.address ?? null,
    description: station.description,
    images: station.images as PhysicalStationDto['images'],
    appIcons: station.appIcons ?? null,
    slotCount: slots.length,
    vacantSlotCount: slots.filter((slot) => slot.state === 'VACANT').length,
  };
}

function toSlotDto(slot: PhysicalStationSlot): Static<typeof SlotSchema> {
  return {
    id: slot.id,
    physicalStationId: slot.physicalStation.id,
    number: slot.number,
    state: slot.state,
    vehicleId: slot.vehicle?.id ?? null,
    connectedAt: slot.connectedAt?.toISOString() ?? null,
  };
}

async function toParkingAreaDto(
  em: EntityManager,
  station: PhysicalStation,
  area: ParkingArea,
): Promise<Static<typeof ParkingAreaSchema>> {
  const vehicles = await em.find(
    Vehicle,
    { branch: station.branch.id, latitude: { $ne: null }, longitude: { $ne: null } },
    { fields: ['id', 'latitude', 'longitude'] },
  );
  const parked = vehicles
    .filter((vehicle) => geofenceContains(area.geometry, { lat: vehicle.latitude!, lng: vehicle.longitude! }))
    .map((vehicle) => vehicle.id);
  return {
    physicalStationId: station.id,
    capacity: area.capacity,
    geometry: area.geometry,
    reservedCount: area.reservedCount,
    parkedVehicleIds: parked,
    freeCount: Math.max(0, area.capacity - parked.length - area.reservedCount),
  };
}

const physicalStationOf = (ctx: RouteContext<{ stationId: number }>) =>
  ctx.once('physicalStation', async () => {
    const station = await ctx.em.findOne(PhysicalStation, ctx.params.stationId);
    if (!station) throw new DomainError('PS404', `physical station ${ctx.params.stationId} not found`);
    return station;
  });

const physicalStationBranch = async (ctx: RouteContext<{ stationId: number }>) =>
  (await physicalStationOf(ctx)).branch.id;

/** Access to the physical station of the path: `permission` on its branch. */
const onThePhysicalStation = (permission: string) => ({
  permission,
  branchOf: 'the physical station',
  branch: physicalStationBranch,
});

async function slotOf(
  ctx: RouteContext<{ stationId: number; slotId: number }>,
): Promise<PhysicalStationSlot> {
  const slot = await ctx.em.findOne(PhysicalStationSlot, {
    id: ctx.params.slotId,
    physicalStation: ctx.params.stationId,
  });
  if (!slot) throw new DomainError('PS405', `slot ${ctx.params.slotId} not found`);
  return slot;
}

function applyPhysicalStationFields(
  station: PhysicalStation,
  fields: Partial<Static<typeof PhysicalStationPatch>>,
): void {
  if (fields.name !== undefined) station.name = fields.name;
  if (fields.state !== undefined) station.state = fields.state;
  if (fields.position !== undefined) {
    station.latitude = fields.position.lat;
    station.longitude = fields.position.lng;
  }
  if (fields.address !== undefined) station.address = fields.address;
  if (fields.description !== undefined) station.description = fields.description;
  if (fields.images !== undefined) station.images = fields.images;
  if (fields.appIcons !== undefined) station.appIcons = fields.appIcons;
}

export const listPhysicalStations = defineRoute({
  operationId: 'listPhysicalStations',
  method: 'get',
  path: '/physical-stations',
  interface: 'back',
  summary: 'Physical stations of a branch',
  tags,
  query: Type.Object({
    ...branchListQuery,
    state: Type.Optional(PhysicalStationState),
    sort: Type.Optional(Str(20, { pattern: '^(id|name|state)(,(asc|desc|ASC|DESC))?$', default: 'name' })),
  }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: {
    permission: 'STATION_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: { description: 'One page of physical stations', schema: Type.Array(PhysicalStationSchema) },
  },
  errors: [],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const where: Record<string, unknown> = { branch: { $in: await branchesOf(ctx) } };
    if (query.state) where.state = query.state;
    const [rows, total] = await em.findAndCount(PhysicalStation, where, {
      orderBy: orderBy(query.sort, 'name'),
      limit: page.size,
      offset: page.offset,
    });
    return ok(await Promise.all(rows.map((row) => toPhysicalStationDto(em, row))), { total });
  },
});

export const getPhysicalStation = defineRoute({
  operationId: 'getPhysicalStation',
  method: 'get',
  path: '/physical-stations/{stationId}',
  interface: 'back',
  summary: 'One physical station',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_READ'),
  responses: { 200: { description: 'The physical station', schema: PhysicalStationSchema } },
  errors: ['PS404'],
  async handler(ctx) {
    return ok(await toPhysicalStationDto(ctx.em, await physicalStationOf(ctx)));
  },
});

export const createPhysicalStation = defineRoute({
  operationId: 'createPhysicalStation',
  method: 'post',
  path: '/physical-stations',
  interface: 'back',
  summary: 'Create a physical station (IN_PREPARATION unless given)',
  tags,
  body: PhysicalStationCreate,
  access: { permission: 'STATION_MANAGE', branchOf: 'body.branchId', branch: (ctx) => ctx.body.branchId },
  responses: {
    201: {
      description: 'Physical station created',
      schema: PhysicalStationSchema,
      headers: { Location: { description: 'URL of the new station.', schema: Str(200) } },
    },
  },
  errors: [],
  async handler(ctx) {
    const { em, body } = ctx;
    const station = em.create(PhysicalStation, {
      branch: em.getReference(Branch, body.branchId),
      name: body.name,
      latitude: body.position.lat,
      longitude: body.position.lng,
    });
    applyPhysicalStationFields(station, body);
    await em.flush();
    return created(await toPhysicalStationDto(em, station), {
      Location: `${ctx.baseUrl}/physical-stations/${station.id}`,
    });
  },
});

export const patchPhysicalStation = defineRoute({
  operationId: 'patchPhysicalStation',
  method: 'patch',
  path: '/physical-stations/{stationId}',
  interface: 'back',
  summary: 'Change some fields of a physical station',
  description: 'Moving the station to another branch needs STATION_MANAGE there too.',
  tags,
  params: StationParams,
  body: PhysicalStationPatch,
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The physical station', schema: PhysicalStationSchema } },
  errors: ['PS404'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    if (ctx.body.branchId !== undefined && ctx.body.branchId !== station.branch.id) {
      await ctx.authorize('STATION_MANAGE', { branchId: ctx.body.branchId });
      station.branch = ctx.em.getReference(Branch, ctx.body.branchId);
    }
    applyPhysicalStationFields(station, ctx.body);
    await ctx.em.flush();
    return ok(await toPhysicalStationDto(ctx.em, station));
  },
});

export const listSlots = defineRoute({
  operationId: 'listPhysicalStationSlots',
  method: 'get',
  path: '/physical-stations/{stationId}/slots',
  interface: 'back',
  summary: 'Slots of a physical station, by number',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_READ'),
  responses: { 200: { description: 'Slots', schema: Type.Array(SlotSchema, { maxItems: 1000 }) } },
  errors: ['PS404'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const slots = await ctx.em.find(
      PhysicalStationSlot,
      { physicalStation: station.id },
      { orderBy: { number: 'asc' } },
    );
    return ok(slots.map(toSlotDto));
  },
});

export const createSlot = defineRoute({
  operationId: 'createPhysicalStationSlot',
  method: 'post',
  path: '/physical-stations/{stationId}/slots',
  interface: 'back',
  summary: 'Add a slot to a physical station',
  tags,
  params: StationParams,
  body: Type.Object(
    {
      number: Int(1, 10000, { description: 'The number painted on the slot (what devices report).' }),
      state: Type.Optional(StringEnum(['VACANT', 'OUT_OF_ORDER'] as const)),
    },
    { additionalProperties: false },
  ),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 201: { description: 'Slot created', schema: SlotSchema } },
  errors: ['PS404', 'PS102'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    if (await ctx.em.count(PhysicalStationSlot, { physicalStation: station.id, number: ctx.body.number }))
      throw new DomainError('PS102', `slot ${ctx.body.number} exists`);
    const slot = ctx.em.create(PhysicalStationSlot, {
      physicalStation: station,
      number: ctx.body.number,
      state: ctx.body.state ?? 'VACANT',
    });
    await ctx.em.flush();
    return created(toSlotDto(slot));
  },
});

export const patchSlot = defineRoute({
  operationId: 'patchPhysicalStationSlot',
  method: 'patch',
  path: '/physical-stations/{stationId}/slots/{slotId}',
  interface: 'back',
  summary: 'Renumber a slot or mark it VACANT / OUT_OF_ORDER',
  description:
    'OCCUPIED comes only from connect-vehicle; a slot holding a vehicle changes state only by disconnecting it (PS103).',
  tags,
  params: SlotParams,
  body: Type.Object(
    {
      number: Type.Optional(Int(1, 10000)),
      state: Type.Optional(StringEnum(['VACANT', 'OUT_OF_ORDER'] as const)),
    },
    { additionalProperties: false },
  ),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The slot', schema: SlotSchema } },
  errors: ['PS404', 'PS405', 'PS102', 'PS103'],
  async handler(ctx) {
    const slot = await slotOf(ctx);
    const { number, state } = ctx.body;
    if (number !== undefined && number !== slot.number) {
      if (await ctx.em.count(PhysicalStationSlot, { physicalStation: ctx.params.stationId, number }))
        throw new DomainError('PS102', `slot ${number} exists`);
      slot.number = number;
    }
    if (state !== undefined && state !== slot.state) {
      if (slot.vehicle) throw new DomainError('PS103');
      slot.state = state;
    }
    await ctx.em.flush();
    return ok(toSlotDto(slot));
  },
});

export const deleteSlot = defineRoute({
  operationId: 'deletePhysicalStationSlot',
  method: 'delete',
  path: '/physical-stations/{stationId}/slots/{slotId}',
  interface: 'back',
  summary: 'Remove an empty slot',
  tags,
  params: SlotParams,
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 204: { description: 'Deleted' } },
  errors: ['PS404', 'PS405', 'PS103'],
  async handler(ctx) {
    const slot = await slotOf(ctx);
    if (slot.vehicle) throw new DomainError('PS103');
    ctx.em.remove(slot);
    await ctx.em.flush();
    return noContent();
  },
});

export const connectVehicle = defineRoute({
  operationId: 'connectVehicleToSlot',
  method: 'post',
  path: '/physical-stations/{stationId}/slots/{slotId}/connect-vehicle',
  interface: 'back',
  summary: 'Dock a vehicle in a vacant slot',
  description:
    'Records PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED; a slot elsewhere still recording the vehicle is vacated with PHYSICAL_STATION_SLOT_VEHICLE_ORPHANED.',
  tags,
  params: SlotParams,
  body: Type.Object({ vehicleId: Id() }, { additionalProperties: false }),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The slot', schema: SlotSchema } },
  errors: ['PS404', 'PS405', 'PS100', 'PS105', 'V404'],
  async handler(ctx) {
    const result = await inRequestTransaction(ctx, (tx) =>
      connectVehicleToSlot(tx, {
        stationId: ctx.params.stationId,
        slot: { id: ctx.params.slotId },
        vehicleId: ctx.body.vehicleId,
        source: 'command',
        actor: ctx.actor,
      }),
    );
    if (result.outcome !== 'CONNECTED') throw new DomainError('PS405');
    return ok(toSlotDto(result.slot));
  },
});

export const disconnectVehicle = defineRoute({
  operationId: 'disconnectVehicleFromSlot',
  method: 'post',
  path: '/physical-stations/{stationId}/slots/{slotId}/disconnect-vehicle',
  interface: 'back',
  summary: 'Undock the vehicle of a slot',
  description:
    'Records PHYSICAL_STATION_SLOT_VEHICLE_DISCONNECTED. With vehicleId, only that vehicle is undocked.',
  tags,
  params: SlotParams,
  body: Type.Object({ vehicleId: Type.Optional(Id()) }, { additionalProperties: false }),
  bodyRequired: false,
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The slot', schema: SlotSchema } },
  errors: ['PS404', 'PS405', 'PS107'],
  async handler(ctx) {
    const slot = await inRequestTransaction(ctx, (tx) =>
      disconnectVehicleFromSlot(tx, {
        stationId: ctx.params.stationId,
        slot: { id: ctx.params.slotId },
        ...(ctx.body?.vehicleId !== undefined ? { vehicleId: ctx.body.vehicleId } : {}),
        source: 'command',
        actor: ctx.actor,
      }),
    );
    return ok(toSlotDto(slot!));
  },
});

async function parkingAreaOf(ctx: RouteContext<{ stationId: number }>): Promise<ParkingArea> {
  const area = await ctx.em.findOne(ParkingArea, { physicalStation: ctx.params.stationId });
  if (!area) throw new DomainError('PS406');
  return area;
}

function checkParkingArea(capacity: number, reservedCount: number, geometry: unknown): void {
  checkGeofence(geometry);
  if (reservedCount > capacity)
    throw new DomainError('PS106', `${reservedCount} reserved of ${capacity} places`);
}

export const getParkingArea = defineRoute({
  operationId: 'getParkingArea',
  method: 'get',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'The parking area of a physical station, with the vehicles parked in it',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_READ'),
  responses: { 200: { description: 'The parking area', schema: ParkingAreaSchema } },
  errors: ['PS404', 'PS406'],
  async handler(ctx) {
    return ok(await toParkingAreaDto(ctx.em, await physicalStationOf(ctx), await parkingAreaOf(ctx)));
  },
});

export const createParkingArea = defineRoute({
  operationId: 'createParkingArea',
  method: 'post',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'Give a physical station its parking area',
  tags,
  params: StationParams,
  body: Type.Object(
    {
      capacity: parkingAreaFields.capacity,
      geometry: parkingAreaFields.geometry,
      reservedCount: Type.Optional(parkingAreaFields.reservedCount),
    },
    { additionalProperties: false },
  ),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 201: { description: 'Parking area created', schema: ParkingAreaSchema } },
  errors: ['PS404', 'PS104', 'PS106', 'GF100'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const { capacity, geometry, reservedCount = 0 } = ctx.body;
    checkParkingArea(capacity, reservedCount, geometry);
    if (await ctx.em.count(ParkingArea, { physicalStation: station.id })) throw new DomainError('PS104');
    const area = ctx.em.create(ParkingArea, {
      physicalStation: station,
      capacity,
      geometry: geometry as GeofenceGeometry,
      reservedCount,
    });
    await ctx.em.flush();
    return created(await toParkingAreaDto(ctx.em, station, area));
  },
});

export const patchParkingArea = defineRoute({
  operationId: 'patchParkingArea',
  method: 'patch',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'Change the parking area of a physical station',
  tags,
  params: StationParams,
  body: Type.Partial(Type.Object(parkingAreaFields), { additionalProperties: false }),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The parking area', schema: ParkingAreaSchema } },
  errors: ['PS404', 'PS406', 'PS106', 'GF100'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const area = await parkingAreaOf(ctx);
    const capacity = ctx.body.capacity ?? area.capacity;
    const reservedCount = ctx.body.reservedCount ?? area.reservedCount;
    const geometry = (ctx.body.geometry as GeofenceGeometry | undefined) ?? area.geometry;
    checkParkingArea(capacity, reservedCount, geometry);
    Object.assign(area, { capacity, reservedCount, geometry });
    await ctx.em.flush();
    return ok(await toParkingAreaDto(ctx.em, station, area));
  },
});

export const deleteParkingArea = defineRoute({
  operationId: 'deleteParkingArea',
  method: 'delete',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'Remove the parking area of a physical station',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_MANAGE'),
  description: 'Idempotent: a station without a parking area answers 204 as well.',
  responses: { 204: { description: 'Deleted, or there was none' } },
  errors: ['PS404'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const area = await ctx.em.findOne(ParkingArea, { physicalStation: station.id });
    if (area) await ctx.em.remove(area).flush();
    return noContent();
  },
});

export const stationRoutes = [
  listStations,
  getStation,
  createStation,
  patchStation,
  deleteStation,
  listPhysicalStations,
  getPhysicalStation,
  createPhysicalStation,
  patchPhysicalStation,
  listSlots,
  createSlot,
  patchSlot,
  deleteSlot,
  connectVehicle,
  disconnectVehicle,
  getParkingArea,
  createParkingArea,
  patchParkingArea,
  deleteParkingArea,
];
