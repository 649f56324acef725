// Task categories (the spec's /task-categories): tenant-wide; names of letters, digits and spaces with at
// least one letter or digit, unique in the tenant regardless of case; a category in use cannot be deleted.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { RecurringTask } from '../../../db/entities/RecurringTask.js';
import { Task } from '../../../db/entities/Task.js';
import { TaskCategory } from '../../../db/entities/TaskCategory.js';
import { TaskTemplate } from '../../../db/entities/TaskTemplate.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { taskCategoryNamePattern } from '../../../domain/work.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';

const tags = ['Tasks'];

const CategoryName = Str(100, {
  minLength: 1,
  pattern: taskCategoryNamePattern,
  description: 'Letters, digits and spaces only, at least one letter or digit.',
});

const TaskCategorySchema = component(
  'TaskCategory',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      description: Nullable(Type.String()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const toCategoryDto = (category: TaskCategory): Static<typeof TaskCategorySchema> => ({
  id: category.id,
  name: category.name,
  description: category.description ?? null,
  createdAt: category.createdAt.toISOString(),
  updatedAt: category.updatedAt.toISOString(),
});

/** Task configuration (categories, templates) is tenant-wide: reading it needs `permission` somewhere in the tenant. */
export async function requireAnywhere(ctx: RouteContext, permission: string): Promise<void> {
  if (!(await ctx.holds({ permission })))
    throw new DomainError('AUTH002', `missing permission ${permission}`);
}

export const configurationReadAccess = {
  anyCaller: 'the handler requires TASK_READ somewhere in the tenant (task configuration is tenant-wide)',
};
export const configurationWriteAccess = {
  anyCaller:
    'the handler requires TASK_CONFIGURE somewhere in the tenant (task configuration is tenant-wide)',
};

async function loadCategory(em: EntityManager, id: number): Promise<TaskCategory> {
  const category = await em.findOne(TaskCategory, id);
  if (!category) throw new DomainError('TKC404', `task category ${id} not found`);
  return category;
}

/** Refuses a name another category of the tenant has, case ignored (TKC410). */
async function assertNameFree(ctx: RouteContext, name: string, except?: number): Promise<void> {
  const rows = await ctx.em.execute<{ id: number }[]>(
    'select id from task_category where tenant_id = ? and lower(name) = lower(?) and id <> ?',
    [ctx.tenant, name, except ?? 0],
  );
  if (rows.length) throw new DomainError('TKC410', `a task category named ${name} exists`);
}

/** Flushes a category write; two writers racing for one name meet the unique index (TKC410). */
async function flushCategory(ctx: RouteContext, name: string): Promise<void> {
  try {
    await ctx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('TKC410', `a task category named ${name} exists`);
    throw error;
  }
}

const CategoryParams = Type.Object({ id: Id() });

export const listTaskCategories = defineRoute({
  operationId: 'listTaskCategories',
  method: 'get',
  path: '/task-categories',
  interface: 'back',
  summary: 'Task categories, by name',
  tags,
  query: Type.Object({ searchText: Type.Optional(Str(100, { minLength: 1 })) }),
  access: configurationReadAccess,
  responses: {
    200: { description: 'Categories', schema: Type.Array(TaskCategorySchema, { maxItems: 1000 }) },
  },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_READ');
    const where = ctx.query.searchText
      ? { name: { $ilike: `%${ctx.query.searchText.replace(/[\\%_]/g, (m) => `\\${m}`)}%` } }
      : {};
    const rows = await ctx.em.find(TaskCategory, where, { orderBy: { name: 'asc', id: 'asc' }, limit: 1000 });
    return ok(rows.map(toCategoryDto));
  },
});

export const getTaskCategory = defineRoute({
  operationId: 'getTaskCategory',
  method: 'get',
  path: '/task-categories/{id}',
  interface: 'back',
  summary: 'One task category',
  tags,
  params: CategoryParams,
  access: configurationReadAccess,
  responses: { 200: { description: 'The category', schema: TaskCategorySchema } },
  errors: ['AUTH002', 'TKC404'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_READ');
    return ok(toCategoryDto(await loadCategory(ctx.em, ctx.params.id)));
  },
});

const CategoryBody = Type.Object(
  { name: CategoryName, description: Type.Optional(Nullable(Str(2000))) },
  { additionalProperties: false },
);

export const createTaskCategory = defineRoute({
  operationId: 'createTaskCategory',
  method: 'post',
  path: '/task-categories',
  interface: 'back',
  summary: 'Create a task category',
  tags,
  body: component('TaskCategoryCreate', CategoryBody),
  access: configurationWriteAccess,
  responses: { 201: { description: 'The category', schema: TaskCategorySchema } },
  errors: ['AUTH002', 'TKC410'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_CONFIGURE');
    const name = ctx.body.name.trim();
    await assertNameFree(ctx, name);
    const category = ctx.em.create(TaskCategory, { name, description: ctx.body.description ?? null });
    await flushCategory(ctx, name);
    return created(toCategoryDto(category), { Location: `${ctx.baseUrl}/task-categories/${category.id}` });
  },
});

export const updateTaskCategory = defineRoute({
  operationId: 'updateTaskCategory',
  method: 'patch',
  path: '/task-categories/{id}',
  interface: 'back',
  summary: 'Rename or describe a task category',
  tags,
  params: CategoryParams,
  body: component(
    'TaskCategoryUpdate',
    Type.Partial(CategoryBody, { additionalProperties: false, minProperties: 1 }),
  ),
  access: configurationWriteAccess,
  responses: { 200: { description: 'The category', schema: TaskCategorySchema } },
  errors: ['AUTH002', 'TKC404', 'TKC410'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_CONFIGURE');
    const category = await loadCategory(ctx.em, ctx.params.id);
    if (ctx.body.name !== undefined) {
      const name = ctx.body.name.trim();
      await assertNameFree(ctx, name, category.id);
      category.name = name;
    }
    if (ctx.body.description !== undefined) category.description = ctx.body.description;
    category.updatedAt = new Date();
    await flushCategory(ctx, category.name);
    return ok(toCategoryDto(category));
  },
});

export const deleteTaskCategory = defineRoute({
  operationId: 'deleteTaskCategory',
  method: 'delete',
  path: '/task-categories/{id}',
  interface: 'back',
  summary: 'Delete a task category no task, recurring task or template uses',
  description:
    'A category named by tasks (of any state), recurring tasks or templates cannot be deleted (TKC409).',
  tags,
  params: CategoryParams,
  access: configurationWriteAccess,
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'TKC404', 'TKC409'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_CONFIGURE');
    const category = await loadCategory(ctx.em, ctx.params.id);
    const [tasks, recurring, templates] = await Promise.all([
      ctx.em.count(Task, { categoryId: category.id }),
      ctx.em.count(RecurringTask, { categoryId: category.id }),
      ctx.em.count(TaskTemplate, { categoryId: category.id }),
    ]);
    if (tasks || recurring || templates)
      throw new DomainError(
        'TKC409',
        `${tasks} tasks, ${recurring} recurring tasks and ${templates} templates use category ${category.name}`,
      );
    ctx.em.remove(category);
    await ctx.em.flush();
    return noContent();
  },
});

export const taskCategoryRoutes = [
  listTaskCategories,
  createTaskCategory,
  getTaskCategory,
  updateTaskCategory,
  deleteTaskCategory,
];
