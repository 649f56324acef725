// Points of interest and their categories. PUT replaces every field, PATCH changes only those given.
import { Type, type Static, type TOptional, type TProperties } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { Poi } from '../../../db/entities/Poi.js';
import { PoiCategory } from '../../../db/entities/PoiCategory.js';
import { poiCategoryTypes } from '../../../db/entities/PoiCategory.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Str, StringEnum, Dictionary } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import { likePattern } from './branches.js';

const tags = ['POIs'];

const PoiCategoryType = component('PoiCategoryType', StringEnum(poiCategoryTypes));

export const GeoJsonPoint = component(
  'GeoJsonPoint',
  Type.Object(
    {
      type: StringEnum(['Point'] as const),
      coordinates: Type.Array(Type.Number({ minimum: -180, maximum: 180 }), {
        minItems: 2,
        maxItems: 2,
        description: '[longitude, latitude]; the latitude must lie in [-90, 90] (GF100 otherwise).',
      }),
    },
    { additionalProperties: false, description: 'GeoJSON point, coordinates [longitude, latitude].' },
  ),
);

const Images = Dictionary(
  Str(32, { pattern: '^(icon|mainImage|detailsImage_[A-Za-z0-9]{1,16})$' }),
  Str(1000, { format: 'uri' }),
  {
    maxProperties: 20,
    additionalProperties: false,
    description: 'Image role (icon, mainImage, detailsImage_*) → URL.',
  },
);
const TranslationKeys = Type.Object(
  { name: Type.Optional(Str(200)), description: Type.Optional(Str(200)) },
  { additionalProperties: false, description: 'Translation keys the apps resolve.' },
);

/** Every property optional (PUT bodies whose left-out fields take their defaults). */
const optionalAll = <T extends TProperties>(properties: T) =>
  Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]),
  ) as unknown as {
    [K in keyof T]: TOptional<T[K]>;
  };

const displayFields = {
  displayOnRental: Type.Boolean(),
  enabled: Type.Boolean(),
  mapZoomLevel: Nullable(Int(0, 22)),
  sizeFactor: Nullable(Type.Number({ minimum: 0.1, maximum: 10 })),
  useCustomIcon: Type.Boolean(),
  images: Images,
};

// ---------------------------------------------------------------------------------------------------
// POI categories

const PoiCategorySchema = component(
  'PoiCategory',
  Type.Object(
    {
      id: Id(),
      type: PoiCategoryType,
      name: Type.String(),
      description: Nullable(Type.String()),
      ...displayFields,
      defaultTranslationKeys: TranslationKeys,
      poiCount: Type.Integer(),
    },
    { additionalProperties: false },
  ),
);

const categoryFields = {
  type: PoiCategoryType,
  name: Str(200, { minLength: 1 }),
  description: Nullable(Str(2000)),
  ...displayFields,
  defaultTranslationKeys: TranslationKeys,
};
const { type: categoryType, name: categoryName, ...categoryOptional } = categoryFields;
const CategoryPut = component(
  'PoiCategoryWrite',
  Type.Object(
    { type: categoryType, name: categoryName, ...optionalAll(categoryOptional) },
    {
      additionalProperties: false,
      description: 'type and name are required; fields left out take their defaults.',
    },
  ),
);
const CategoryPatch = component(
  'PoiCategoryPatch',
  Type.Partial(Type.Object(categoryFields), { additionalProperties: false }),
);

type CategoryFields = Partial<Static<typeof CategoryPatch>>;

const categoryDefaults = {
  description: null,
  displayOnRental: false,
  enabled: true,
  mapZoomLevel: null,
  sizeFactor: null,
  useCustomIcon: false,
  images: {},
  defaultTranslationKeys: {},
};

async function toCategoryDto(
  em: EntityManager,
  category: PoiCategory,
): Promise<Static<typeof PoiCategorySchema>> {
  return {
    id: category.id,
    type: category.type,
    name: category.name,
    description: category.description ?? null,
    displayOnRental: category.displayOnRental,
    enabled: category.enabled,
    mapZoomLevel: category.mapZoomLevel ?? null,
    sizeFactor: category.sizeFactor ?? null,
    useCustomIcon: category.useCustomIcon,
    images: category.images,
    defaultTranslationKeys: category.defaultTranslationKeys as Static<typeof TranslationKeys>,
    poiCount: await em.count(Poi, { category: category.id }),
  };
}

async function loadCategory(em: EntityManager, id: number): Promise<PoiCategory> {
  const category = await em.findOne(PoiCategory, id);
  if (!category) throw new DomainError('POC404', `POI category ${id} not found`);
  return category;
}

/** The category a POI body names: its absence is a refused body (POI100, 422), not a missing path resource. */
async function namedCategory(em: EntityManager, id: number): Promise<PoiCategory> {
  const category = await em.findOne(PoiCategory, id);
  if (!category) throw new DomainError('POI100', `POI category ${id} not found`);
  return category;
}

/** POI categories are tenant-wide: writing them needs POI_CATEGORY_MANAGE somewhere in the tenant. */
async function authorizeCategoryWrite(ctx: RouteContext): Promise<void> {
  if (!(await ctx.holds({ permission: 'POI_CATEGORY_MANAGE' })))
    throw new DomainError('AUTH002', 'missing permission POI_CATEGORY_MANAGE');
}

const CategoryParams = Type.Object({ poiCategoryId: Id() });
const categoryWriteAccess = {
  anyCaller: 'the handler requires POI_CATEGORY_MANAGE (a tenant-wide grant) before writing.',
};
const categoryReadAccess = {
  anyCaller: 'POI categories are tenant-wide map configuration without customer data.',
};

export const listPoiCategories = defineRoute({
  operationId: 'listPoiCategories',
  method: 'get',
  path: '/categories',
  interface: 'back',
  summary: 'POI categories',
  tags,
  query: Type.Object({ type: Type.Optional(PoiCategoryType), enabled: Type.Optional(Type.Boolean()) }),
  access: categoryReadAccess,
  responses: {
    200: { description: 'Categories, by name', schema: Type.Array(PoiCategorySchema, { maxItems: 1000 }) },
  },
  errors: [],
  async handler({ em, query }) {
    const where: Record<string, unknown> = {};
    if (query.type) where.type = query.type;
    if (query.enabled !== undefined) where.enabled = query.enabled;
    const rows = await em.find(PoiCategory, where, { orderBy: { name: 'asc', id: 'asc' }, limit: 1000 });
    return ok(await Promise.all(rows.map((row) => toCategoryDto(em, row))));
  },
});

export const getPoiCategory = defineRoute({
  operationId: 'getPoiCategory',
  method: 'get',
  path: '/categories/{poiCategoryId}',
  interface: 'back',
  summary: 'One POI category',
  tags,
  params: CategoryParams,
  access: categoryReadAccess,
  responses: { 200: { description: 'The category', schema: PoiCategorySchema } },
  errors: ['POC404'],
  async handler({ em, params }) {
    return ok(await toCategoryDto(em, await loadCategory(em, params.poiCategoryId)));
  },
});

export const createPoiCategory = defineRoute({
  operationId: 'createPoiCategory',
  method: 'post',
  path: '/categories',
  interface: 'back',
  summary: 'Create a POI category',
  tags,
  body: CategoryPut,
  access: categoryWriteAccess,
  responses: {
    201: {
      description: 'Category created',
      schema: PoiCategorySchema,
      headers: { Location: { description: 'URL of the new category.', schema: Str(200) } },
    },
  },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeCategoryWrite(ctx);
    const body = ctx.body as CategoryFields & { type: PoiCategory['type']; name: string };
    const category = ctx.em.create(PoiCategory, { ...categoryDefaults, ...body });
    await ctx.em.flush();
    return created(await toCategoryDto(ctx.em, category), {
      Location: `${ctx.baseUrl}/categories/${category.id}`,
    });
  },
});

export const replacePoiCategory = defineRoute({
  operationId: 'replacePoiCategory',
  method: 'put',
  path: '/categories/{poiCategoryId}',
  interface: 'back',
  summary: 'Replace a POI category',
  tags,
  params: CategoryParams,
  body: CategoryPut,
  access: categoryWriteAccess,
  responses: { 200: { description: 'The category', schema: PoiCategorySchema } },
  errors: ['AUTH002', 'POC404'],
  async handler(ctx) {
    await authorizeCategoryWrite(ctx);
    const category = await loadCategory(ctx.em, ctx.params.poiCategoryId);
    ctx.em.assign(category, { ...categoryDefaults, ...(ctx.body as CategoryFields) });
    await ctx.em.flush();
    return ok(await toCategoryDto(ctx.em, category));
  },
});

export const patchPoiCategory = defineRoute({
  operationId: 'patchPoiCategory',
  method: 'patch',
  path: '/categories/{poiCategoryId}',
  interface: 'back',
  summary: 'Change some fields of a POI category (enabled=false retires a category in use)',
  tags,
  params: CategoryParams,
  body: CategoryPatch,
  access: categoryWriteAccess,
  responses: { 200: { description: 'The category', schema: PoiCategorySchema } },
  errors: ['AUTH002', 'POC404'],
  async handler(ctx) {
    await authorizeCategoryWrite(ctx);
    const category = await loadCategory(ctx.em, ctx.params.poiCategoryId);
    ctx.em.assign(category, ctx.body as CategoryFields);
    await ctx.em.flush();
    return ok(await toCategoryDto(ctx.em, category));
  },
});

export const deletePoiCategory = defineRoute({
  operationId: 'deletePoiCategory',
  method: 'delete',
  path: '/categories/{poiCategoryId}',
  interface: 'back',
  summary: 'Delete an unused POI category',
  description: 'A category with POIs cannot be deleted (POC409): set enabled=false instead.',
  tags,
  params: CategoryParams,
  access: categoryWriteAccess,
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'POC404', 'POC409'],
  async handler(ctx) {
    await authorizeCategoryWrite(ctx);
    const category = await loadCategory(ctx.em, ctx.params.poiCategoryId);
    const used = await ctx.em.count(Poi, { category: category.id });
    if (used) throw new DomainError('POC409', `${used} POIs use category ${category.name}`);
    ctx.em.remove(category);
    await ctx.em.flush();
    return noContent();
  },
});

// ---------------------------------------------------------------------------------------------------
// POIs

export const PoiSchema = component(
  'Poi',
  Type.Object(
    {
      id: Id(),
      categoryId: Id(),
      branchId: Id(),
      name: Type.String(),
      description: Nullable(Type.String()),
      position: GeoJsonPoint,
      address: Type.String(),
      city: Nullable(Type.String()),
      url: Nullable(Type.String()),
      phoneNumber: Nullable(Type.String()),
      ...displayFields,
      openingInformation: Nullable(Type.String()),
      translationKeys: TranslationKeys,
    },
    { additionalProperties: false },
  ),
);

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

/** The API's POI representation (back and front). */
export function toPoiDto(poi: Poi): Static<typeof PoiSchema> {
  return {
    id: poi.id,
    categoryId: poi.category.id,
    branchId: poi.branch.id,
    name: poi.name,
    description: poi.description ?? null,
    position: { type: 'Point', coordinates: [poi.longitude, poi.latitude] },
    address: poi.address,
    city: poi.city ?? null,
    url: poi.url ?? null,
    phoneNumber: poi.phoneNumber ?? null,
    displayOnRental: poi.displayOnRental,
    enabled: poi.enabled,
    mapZoomLevel: poi.mapZoomLevel ?? null,
    sizeFactor: poi.sizeFactor ?? null,
    useCustomIcon: poi.useCustomIcon,
    images: poi.images,
    openingInformation: poi.openingInformation ?? null,
    translationKeys: poi.translationKeys as Static<typeof TranslationKeys>,
  };
}

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

export const poiRoutes = [
  listPoiCategories,
  getPoiCategory,
  createPoiCategory,
  replacePoiCategory,
  patchPoiCategory,
  deletePoiCategory,
  listPois,
  getPoi,
  createPoi,
  replacePoi,
  patchPoi,
  deletePoi,
];
