// Points of interest on branches (their categories: poi-categories.ts). PUT replaces every field, PATCH
// changes only those given.
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { Poi } from '../../../db/entities/Poi.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import { likePattern } from '../../shared/branch-representation.js';
import {
  GeoJsonPoint,
  TranslationKeys,
  displayFields,
  PoiSchema,
  toPoiDto,
} from '../../shared/poi-representation.js';

import { namedCategory, optionalAll } from './poi-categories.js';

const tags = ['POIs'];

// ---------------------------------------------------------------------------------------------------
// POIs

const poiOptionalFields = {
  description: Nullable(Str(2000)),
  city: Nullable(Str(100)),
  url: Nullable(Str(500, { format: 'uri' })),
  phoneNumber: Nullable(Str(32, { pattern: '^\\+?[0-9 ()/-]{3,31}$' })),
  ...displayFields,
  openingInformation: Nullable(Str(1000)),
  translationKeys: TranslationKeys,
};
const poiRequiredFields = {
  categoryId: Id(),
  branchId: Id(),
  name: Str(200, { minLength: 1 }),
  position: GeoJsonPoint,
  address: Str(300, { minLength: 1 }),
};

const PoiPut = component(
  'PoiWrite',
  Type.Object(
    {
      ...poiRequiredFields,
      ...optionalAll(poiOptionalFields),
    },
    {
      additionalProperties: false,
      description:
        'categoryId, branchId, name, position and address are required; PUT resets what is left out.',
    },
  ),
);
const PoiPatch = component(
  'PoiPatch',
  Type.Partial(Type.Object({ ...poiRequiredFields, ...poiOptionalFields }), { additionalProperties: false }),
);

type PoiFields = Partial<Static<typeof PoiPatch>>;

const poiDefaults: Omit<Required<PoiFields>, keyof typeof poiRequiredFields> = {
  description: null,
  city: null,
  url: null,
  phoneNumber: null,
  displayOnRental: false,
  enabled: true,
  mapZoomLevel: null,
  sizeFactor: null,
  useCustomIcon: false,
  images: {},
  openingInformation: null,
  translationKeys: {},
};

/** Applies the fields given (undefined: unchanged); a new category must exist (POI100). */
async function applyPoiFields(em: EntityManager, poi: Poi, fields: PoiFields): Promise<void> {
  const { categoryId, branchId, position, ...rest } = fields;
  if (categoryId !== undefined) poi.category = await namedCategory(em, categoryId);
  if (branchId !== undefined) poi.branch = em.getReference(Branch, branchId);
  if (position !== undefined) {
    const [lng, lat] = position.coordinates as [number, number];
    if (lat < -90 || lat > 90)
      throw new DomainError('GF100', `latitude ${lat} is out of range: give [lng, lat]`);
    [poi.longitude, poi.latitude] = [lng, lat];
  }
  for (const [key, value] of Object.entries(rest))
    if (value !== undefined) (poi as unknown as Record<string, unknown>)[key] = value;
}

const poiOf = (ctx: RouteContext<{ poiId: number }>) =>
  ctx.once('poi', async () => {
    const poi = await ctx.em.findOne(Poi, ctx.params.poiId);
    if (!poi) throw new DomainError('POI404', `POI ${ctx.params.poiId} not found`);
    return poi;
  });

/** Moving a POI to another branch needs POI_MANAGE there too. */
async function authorizeMove(ctx: RouteContext, poi: Poi, branchId: number | undefined): Promise<void> {
  if (branchId !== undefined && branchId !== poi.branch.id) await ctx.authorize('POI_MANAGE', { branchId });
}

const PoiParams = Type.Object({ poiId: Id() });
const poiBranch = async (ctx: RouteContext<{ poiId: number }>) => (await poiOf(ctx)).branch.id;

export const listPois = defineRoute({
  operationId: 'listPois',
  method: 'get',
  path: '/pois',
  interface: 'back',
  summary: 'POIs of a branch',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    categoryId: Type.Optional(Id()),
    enabled: Type.Optional(Type.Boolean()),
    searchText: Type.Optional(Str(100, { minLength: 1 })),
    sort: Type.Optional(Str(20, { pattern: '^(id|name|city)(,(asc|desc|ASC|DESC))?$', default: 'name' })),
  }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: {
    permission: 'POI_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of POIs', schema: Type.Array(PoiSchema) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const where: Record<string, unknown> = { branch: { $in: branches } };
    if (query.categoryId) where.category = query.categoryId;
    if (query.enabled !== undefined) where.enabled = query.enabled;
    if (query.searchText) where.name = { $ilike: likePattern(query.searchText) };
    const [rows, total] = await em.findAndCount(Poi, where, {
      orderBy: orderBy(query.sort, 'name'),
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(toPoiDto), { total });
  },
});

export const getPoi = defineRoute({
  operationId: 'getPoi',
  method: 'get',
  path: '/pois/{poiId}',
  interface: 'back',
  summary: 'One POI',
  tags,
  params: PoiParams,
  access: {
    permission: 'POI_READ',
    branchOf: 'the POI',
    branch: async (ctx) => (await poiOf(ctx)).branch.id,
  },
  responses: { 200: { description: 'The POI', schema: PoiSchema } },
  errors: ['POI404'],
  async handler(ctx) {
    return ok(toPoiDto(await poiOf(ctx)));
  },
});

export const createPoi = defineRoute({
  operationId: 'createPoi',
  method: 'post',
  path: '/pois',
  interface: 'back',
  summary: 'Create a POI',
  tags,
  body: PoiPut,
  access: { permission: 'POI_MANAGE', branchOf: 'body.branchId', branch: (ctx) => ctx.body.branchId },
  responses: {
    201: {
      description: 'POI created',
      schema: PoiSchema,
      headers: { Location: { description: 'URL of the new POI.', schema: Str(200) } },
    },
  },
  errors: ['POI100', 'GF100'],
  async handler(ctx) {
    const { em, body } = ctx;
    const poi = em.create(Poi, {
      category: await namedCategory(em, body.categoryId),
      branch: em.getReference(Branch, body.branchId),
      name: body.name,
      address: body.address,
      longitude: 0,
      latitude: 0,
    });
    await applyPoiFields(em, poi, { ...poiDefaults, ...(body as PoiFields) });
    await em.flush();
    return created(toPoiDto(poi), { Location: `${ctx.baseUrl}/pois/${poi.id}` });
  },
});

export const replacePoi = defineRoute({
  operationId: 'replacePoi',
  method: 'put',
  path: '/pois/{poiId}',
  interface: 'back',
  summary: 'Replace a POI',
  tags,
  params: PoiParams,
  body: PoiPut,
  access: { permission: 'POI_MANAGE', branchOf: 'the POI', branch: (ctx) => poiBranch(ctx) },
  responses: { 200: { description: 'The POI', schema: PoiSchema } },
  errors: ['POI404', 'POI100', 'GF100'],
  async handler(ctx) {
    const poi = await poiOf(ctx);
    await authorizeMove(ctx, poi, ctx.body.branchId);
    await applyPoiFields(ctx.em, poi, { ...poiDefaults, ...(ctx.body as PoiFields) });
    await ctx.em.flush();
    return ok(toPoiDto(poi));
  },
});

export const patchPoi = defineRoute({
  operationId: 'patchPoi',
  method: 'patch',
  path: '/pois/{poiId}',
  interface: 'back',
  summary: 'Change some fields of a POI',
  tags,
  params: PoiParams,
  body: PoiPatch,
  access: { permission: 'POI_MANAGE', branchOf: 'the POI', branch: (ctx) => poiBranch(ctx) },
  responses: { 200: { description: 'The POI', schema: PoiSchema } },
  errors: ['POI404', 'POI100', 'GF100'],
  async handler(ctx) {
    const poi = await poiOf(ctx);
    await authorizeMove(ctx, poi, ctx.body.branchId);
    await applyPoiFields(ctx.em, poi, ctx.body as PoiFields);
    await ctx.em.flush();
    return ok(toPoiDto(poi));
  },
});

export const deletePoi = defineRoute({
  operationId: 'deletePoi',
  method: 'delete',
  path: '/pois/{poiId}',
  interface: 'back',
  summary: 'Delete a POI',
  tags,
  params: PoiParams,
  access: { permission: 'POI_MANAGE', branchOf: 'the POI', branch: (ctx) => poiBranch(ctx) },
  responses: { 204: { description: 'Deleted' } },
  errors: ['POI404'],
  async handler(ctx) {
    ctx.em.remove(await poiOf(ctx));
    await ctx.em.flush();
    return noContent();
  },
});

export const poiRoutes = [listPois, getPoi, createPoi, replacePoi, patchPoi, deletePoi];
