// POI categories: tenant-wide, written with POI_CATEGORY_MANAGE somewhere in the tenant. PUT replaces every
// field, PATCH changes only those given.
import { Type, type Static, type TOptional, type TProperties } from '@sinclair/typebox';
import { Poi } from '../../../db/entities/Poi.js';
import { PoiCategory } from '../../../db/entities/PoiCategory.js';
import { poiCategoryTypes } from '../../../db/entities/PoiCategory.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { TranslationKeys, displayFields } from '../../shared/poi-representation.js';

const tags = ['POIs'];

const PoiCategoryType = component('PoiCategoryType', StringEnum(poiCategoryTypes));

/** Every property optional (PUT bodies whose left-out fields take their defaults). */
export const optionalAll = <T extends TProperties>(properties: T) =>
  Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]),
  ) as unknown as {
    [K in keyof T]: TOptional<T[K]>;
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
export async function namedCategory(em: EntityManager, id: number): Promise<PoiCategory> {
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

export const poiCategoryRoutes = [
  listPoiCategories,
  getPoiCategory,
  createPoiCategory,
  replacePoiCategory,
  patchPoiCategory,
  deletePoiCategory,
];
