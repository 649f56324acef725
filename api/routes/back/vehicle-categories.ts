// Vehicle categories: the category lists and categories-management (configuration with inheritance).
import { Type, type Static } from '@sinclair/typebox';
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleAction } from '../../../db/entities/VehicleAction.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { resolvedCategories, wouldCreateCycle, type ResolvedCategory } from '../../../db/categories.js';
import { DomainError } from '../../../domain/errors.js';
import {
  categoryConfigurationProblems,
  predefinedVehicleCommands,
  type VehicleCategoryConfiguration,
} from '../../../domain/vehicle.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import {
  component,
  Id,
  Nullable,
  Str,
  StringEnum,
  Dictionary,
  ScalarProperties,
} from '../../kernel/schemas.js';

const tags = ['Vehicles'];

const Configuration = Dictionary(Str(64), Type.Unknown(), {
  maxProperties: 32,
  description:
    'Spec keys: socLevels, ioTBatteryLevels, useIoTSoCLevel, useIoTBatteryLevel, ignoreSoC, chargingLimit, stationChargingToggle, rentalRequirementsKey, priceCalcKey, rentalAdditionPriceCalcs, preEndRentalActionsKey, disallowedRentalOperations, rentalOperationOverrides; project keys: commands, hasTailbox.',
});

const CategorySchema = component(
  'VehicleCategory',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      parentId: Nullable(Id()),
      bookable: Type.Boolean(),
      configuration: Type.Record(Type.String(), Type.Unknown(), {
        description: "The category's own keys.",
      }),
      effectiveConfiguration: Type.Record(Type.String(), Type.Unknown(), {
        description: "Own keys over the parent's (inherited) keys.",
      }),
      appProperties: Type.Record(Type.String(), Type.Unknown()),
      dashboardProperties: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
);

function toCategoryDto(resolved: ResolvedCategory): Static<typeof CategorySchema> {
  const { category, configuration } = resolved;
  return {
    id: category.id,
    name: category.name,
    parentId: category.parent?.id ?? null,
    bookable: category.bookable,
    configuration: { ...category.configuration },
    effectiveConfiguration: { ...configuration },
    appProperties: category.appProperties,
    dashboardProperties: category.dashboardProperties,
  };
}

const ManageAccess = {
  anyCaller:
    'categories are tenant-wide configuration; reads need VEHICLE_READ and changes VEHICLE_CATEGORY_MANAGE on at least one branch (checked by the handler)',
} as const;

async function requirePermission(ctx: RouteContext, permission: string): Promise<void> {
  if (!(await ctx.holds({ permission })))
    throw new DomainError('AUTH002', `${permission} is needed on at least one branch`);
}

async function loadCategory(ctx: RouteContext<{ id: number }>): Promise<VehicleCategory> {
  const category = await ctx.em.findOne(VehicleCategory, ctx.params.id);
  if (!category) throw new DomainError('VC404', `vehicle category ${ctx.params.id} not found`);
  return category;
}

async function dtoOf(ctx: RouteContext, id: number): Promise<Static<typeof CategorySchema>> {
  return toCategoryDto((await resolvedCategories(ctx.em)).get(id)!);
}

function validateConfiguration(configuration: Record<string, unknown>): VehicleCategoryConfiguration {
  const problems = categoryConfigurationProblems(configuration);
  if (problems.length) throw new DomainError('VC102', problems.join('; '));
  return configuration as VehicleCategoryConfiguration;
}

export const listCategories = defineRoute({
  operationId: 'listVehicleCategories',
  method: 'get',
  path: '/vehicles/categories',
  interface: 'back',
  summary: 'Every vehicle category with its effective configuration',
  tags,
  access: ManageAccess,
  responses: { 200: { description: 'Categories', schema: Type.Array(CategorySchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_READ');
    const categories = [...(await resolvedCategories(ctx.em)).values()].sort(
      (a, b) => a.category.id - b.category.id,
    );
    return ok(categories.map(toCategoryDto));
  },
});

const CategoryCommands = component(
  'VehicleCategoryCommands',
  Type.Object(
    { categoryId: Id(), name: Type.String(), commands: Type.Array(StringEnum(predefinedVehicleCommands)) },
    { additionalProperties: false },
  ),
);

export const listCategoryCommands = defineRoute({
  operationId: 'listVehicleCategoryCommands',
  method: 'get',
  path: '/vehicles/categories/commands',
  interface: 'back',
  summary: 'The commands configured for each category (all predefined commands when it configures none)',
  tags,
  access: ManageAccess,
  responses: { 200: { description: 'Commands per category', schema: Type.Array(CategoryCommands) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_READ');
    const categories = [...(await resolvedCategories(ctx.em)).values()].sort(
      (a, b) => a.category.id - b.category.id,
    );
    return ok(
      categories.map(({ category, configuration }) => ({
        categoryId: category.id,
        name: category.name,
        commands: (configuration.commands ?? [
          ...predefinedVehicleCommands,
        ]) as (typeof predefinedVehicleCommands)[number][],
      })),
    );
  },
});

const CategoryActions = component(
  'VehicleCategoryActions',
  Type.Object(
    {
      categoryId: Id(),
      name: Type.String(),
      actions: Type.Array(
        Type.Object(
          { id: Id(), kind: Type.String(), name: Type.String(), roleNames: Type.Array(Type.String()) },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const listCategoryActions = defineRoute({
  operationId: 'listVehicleCategoryActions',
  method: 'get',
  path: '/vehicles/categories/actions',
  interface: 'back',
  summary: 'The actions, activities and composite activities configured for each category',
  tags,
  access: ManageAccess,
  responses: { 200: { description: 'Operations per category', schema: Type.Array(CategoryActions) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_READ');
    const [categories, operations] = await Promise.all([
      resolvedCategories(ctx.em),
      ctx.em.find(VehicleAction, {}, { orderBy: { id: 'asc' } }),
    ]);
    return ok(
      [...categories.values()]
        .sort((a, b) => a.category.id - b.category.id)
        .map(({ category, configuration }) => ({
          categoryId: category.id,
          name: category.name,
          actions: operations
            .filter((operation) => (configuration.actions ?? []).includes(operation.id))
            .map((operation) => ({
              id: operation.id,
              kind: operation.kind,
              name: operation.name,
              roleNames: operation.roleNames,
            })),
        })),
    );
  },
});

export const manageListCategories = defineRoute({
  operationId: 'manageListVehicleCategories',
  method: 'get',
  path: '/vehicles/categories-management',
  interface: 'back',
  summary: 'Paged, searchable category list',
  tags,
  query: Type.Object({ search: Type.Optional(Str(100, { minLength: 1, description: 'Part of the name.' })) }),
  paged: { defaultSize: 20 },
  access: ManageAccess,
  responses: { 200: { description: 'One page of categories', schema: Type.Array(CategorySchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_READ');
    const where: Record<string, unknown> = {};
    if (ctx.query.search)
      where.name = { $ilike: `%${ctx.query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
    const [rows, total] = await ctx.em.findAndCount(VehicleCategory, where, {
      orderBy: { id: 'asc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    const resolved = await resolvedCategories(ctx.em);
    return ok(
      rows.map((row) => toCategoryDto(resolved.get(row.id)!)),
      { total },
    );
  },
});

const CategoryCreate = component(
  'VehicleCategoryCreate',
  Type.Object(
    {
      name: Str(200, { minLength: 1 }),
      parentId: Type.Optional(Nullable(Id())),
      bookable: Type.Optional(Type.Boolean()),
      configuration: Type.Optional(Configuration),
      appProperties: Type.Optional(ScalarProperties(32)),
      dashboardProperties: Type.Optional(ScalarProperties(32)),
    },
    { additionalProperties: false },
  ),
);

const CategoryPatch = component(
  'VehicleCategoryPatch',
  Type.Object(
    {
      name: Type.Optional(Str(200, { minLength: 1 })),
      parentId: Type.Optional(Nullable(Id())),
      bookable: Type.Optional(Type.Boolean()),
      configuration: Type.Optional(Configuration),
      appProperties: Type.Optional(ScalarProperties(32)),
      dashboardProperties: Type.Optional(ScalarProperties(32)),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const createCategory = defineRoute({
  operationId: 'createVehicleCategory',
  method: 'post',
  path: '/vehicles/categories-management',
  interface: 'back',
  summary: 'Create a category (configuration validated; unset keys inherit from the parent)',
  tags,
  body: CategoryCreate,
  access: ManageAccess,
  responses: { 201: { description: 'The category', schema: CategorySchema } },
  errors: ['AUTH002', 'VC404', 'VC101', 'VC102'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_CATEGORY_MANAGE');
    const { em, body } = ctx;
    const configuration = validateConfiguration(body.configuration ?? {});
    if (await em.count(VehicleCategory, { name: body.name })) throw new DomainError('VC101');
    let parent: VehicleCategory | null = null;
    if (body.parentId) {
      parent = await em.findOne(VehicleCategory, body.parentId);
      if (!parent) throw new DomainError('VC404', `parent category ${body.parentId} not found`);
    }
    const category = em.create(VehicleCategory, {
      name: body.name,
      parent,
      bookable: body.bookable ?? true,
      configuration,
      appProperties: body.appProperties ?? {},
      dashboardProperties: body.dashboardProperties ?? {},
    });
    await em.flush();
    return created(await dtoOf(ctx, category.id));
  },
});

const IdParams = Type.Object({ id: Id() });

export const reloadCategories = defineRoute({
  operationId: 'reloadVehicleCategories',
  method: 'post',
  path: '/vehicles/categories-management/reload',
  interface: 'back',
  summary: 'Reload the category configuration',
  description:
    'Categories are read from the database on every request (no cache to go stale), so a reload answers with the current effective configuration of every category.',
  tags,
  access: ManageAccess,
  responses: { 200: { description: 'Categories as now in effect', schema: Type.Array(CategorySchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_CATEGORY_MANAGE');
    const categories = [...(await resolvedCategories(ctx.em)).values()].sort(
      (a, b) => a.category.id - b.category.id,
    );
    return ok(categories.map(toCategoryDto));
  },
});

export const getCategory = defineRoute({
  operationId: 'getVehicleCategory',
  method: 'get',
  path: '/vehicles/categories-management/{id}',
  interface: 'back',
  summary: 'One category with its own and effective configuration',
  tags,
  params: IdParams,
  access: ManageAccess,
  responses: { 200: { description: 'The category', schema: CategorySchema } },
  errors: ['AUTH002', 'VC404'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_READ');
    const category = await loadCategory(ctx);
    return ok(await dtoOf(ctx, category.id));
  },
});

export const updateCategory = defineRoute({
  operationId: 'updateVehicleCategory',
  method: 'patch',
  path: '/vehicles/categories-management/{id}',
  interface: 'back',
  summary: "Update a category; `configuration` replaces the category's own keys (null parent detaches it)",
  tags,
  params: IdParams,
  body: CategoryPatch,
  access: ManageAccess,
  responses: { 200: { description: 'The category', schema: CategorySchema } },
  errors: ['AUTH002', 'VC404', 'VC101', 'VC102'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_CATEGORY_MANAGE');
    const { em, body } = ctx;
    const category = await loadCategory(ctx);
    if (body.configuration) category.configuration = validateConfiguration(body.configuration);
    if (body.name !== undefined && body.name !== category.name) {
      if (await em.count(VehicleCategory, { name: body.name })) throw new DomainError('VC101');
      category.name = body.name;
    }
    if (body.parentId !== undefined) {
      if (body.parentId === null) category.parent = null;
      else {
        const parent = await em.findOne(VehicleCategory, body.parentId);
        if (!parent) throw new DomainError('VC404', `parent category ${body.parentId} not found`);
        if (await wouldCreateCycle(em, category.id, parent.id))
          throw new DomainError('VC102', 'a category cannot descend from itself');
        category.parent = parent;
      }
    }
    if (body.bookable !== undefined) category.bookable = body.bookable;
    if (body.appProperties) category.appProperties = body.appProperties;
    if (body.dashboardProperties) category.dashboardProperties = body.dashboardProperties;
    await em.flush();
    return ok(await dtoOf(ctx, category.id));
  },
});

export const deleteCategory = defineRoute({
  operationId: 'deleteVehicleCategory',
  method: 'delete',
  path: '/vehicles/categories-management/{id}',
  interface: 'back',
  summary: 'Delete a category no vehicle or child category uses',
  tags,
  params: IdParams,
  access: ManageAccess,
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'VC404', 'VC100'],
  async handler(ctx) {
    await requirePermission(ctx, 'VEHICLE_CATEGORY_MANAGE');
    const category = await loadCategory(ctx);
    const [vehicles, children] = await Promise.all([
      ctx.em.count(Vehicle, { category: category.id }),
      ctx.em.count(VehicleCategory, { parent: category.id }),
    ]);
    if (vehicles || children)
      throw new DomainError('VC100', `used by ${vehicles} vehicle(s) and ${children} child categor(ies)`);
    // Other domains reference categories too (pricing assignments, …): their foreign keys refuse the
    // delete, which is the same conflict.
    try {
      await ctx.em.remove(category).flush();
    } catch (error) {
      if (error instanceof ForeignKeyConstraintViolationException)
        throw new DomainError('VC100', 'the category is still referenced (e.g. by pricing assignments)');
      throw error;
    }
    return noContent();
  },
});

/** Static paths before parametrised ones. */
export const vehicleCategoryRoutes = [
  listCategories,
  listCategoryCommands,
  listCategoryActions,
  manageListCategories,
  createCategory,
  reloadCategories,
  getCategory,
  updateCategory,
  deleteCategory,
];
