// Physical stations of a branch: list, read, create and update them. Their slots with docking are in
// physical-station-slots.ts, their parking area in parking-areas.ts; the representation apps share is in
// api/shared/physical-station-representation.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { PhysicalStation } from '../../../db/entities/PhysicalStation.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Position, Str } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import {
  AppIcons,
  ImageSchema,
  LocalizedText,
  PhysicalStationSchema,
  PhysicalStationState,
  toPhysicalStationDto,
} from '../../shared/physical-station-representation.js';
import { branchesOf, branchListQuery } from './stations.js';

const tags = ['Stations'];

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

export const StationParams = Type.Object({ stationId: Id() });

export const physicalStationOf = (ctx: RouteContext<{ stationId: number }>) =>
  ctx.once('physicalStation', async () => {
    const station = await ctx.em.findOne(PhysicalStation, ctx.params.stationId);
    if (!station) throw new DomainError('PS404', `physical station ${ctx.params.stationId} not found`);
    return station;
  });

const physicalStationBranch = async (ctx: RouteContext<{ stationId: number }>) =>
  (await physicalStationOf(ctx)).branch.id;

/** Access to the physical station of the path: `permission` on its branch. */
export const onThePhysicalStation = (permission: string) => ({
  permission,
  branchOf: 'the physical station',
  branch: physicalStationBranch,
});

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

export const physicalStationRoutes = [
  listPhysicalStations,
  getPhysicalStation,
  createPhysicalStation,
  patchPhysicalStation,
];
