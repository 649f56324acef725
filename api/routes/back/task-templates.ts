// Task templates (the spec's /tasks/templates): tenant-wide reusable setups a new task names by
// templateId (POST /tasks takes the fields the body leaves out from it).
import { Type, type Static } from '@sinclair/typebox';
import { TaskTemplate } from '../../../db/entities/TaskTemplate.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';
import { configurationReadAccess, configurationWriteAccess, requireAnywhere } from './task-categories.js';
import { assertCategory, TaskPriority, TaskTags } from './task-representation.js';

const tags = ['Tasks'];
const Text = (max: number) => Str(max, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

const TaskTemplateSchema = component(
  'TaskTemplate',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      title: Type.String(),
      description: Nullable(Type.String()),
      priority: TaskPriority,
      categoryId: Nullable(Id()),
      tags: Type.Array(Type.String()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const toTemplateDto = (template: TaskTemplate): Static<typeof TaskTemplateSchema> => ({
  id: template.id,
  name: template.name,
  title: template.title,
  description: template.description ?? null,
  priority: template.priority,
  categoryId: template.categoryId ?? null,
  tags: template.tags,
  createdAt: template.createdAt.toISOString(),
  updatedAt: template.updatedAt.toISOString(),
});

async function loadTemplate(em: EntityManager, id: number): Promise<TaskTemplate> {
  const template = await em.findOne(TaskTemplate, id);
  if (!template) throw new DomainError('TKT404', `task template ${id} not found`);
  return template;
}

const templateFields = {
  name: Text(200),
  title: Text(200),
  description: Type.Optional(Nullable(Str(4000))),
  priority: Type.Optional(TaskPriority),
  categoryId: Type.Optional(Nullable(Id())),
  tags: Type.Optional(TaskTags),
};
const TemplateCreate = component(
  'TaskTemplateCreate',
  Type.Object(templateFields, { additionalProperties: false }),
);
const TemplateUpdate = component(
  'TaskTemplateUpdate',
  Type.Partial(Type.Object(templateFields), { additionalProperties: false, minProperties: 1 }),
);
const TemplateParams = Type.Object({ id: Id() });

export const listTaskTemplates = defineRoute({
  operationId: 'listTaskTemplates',
  method: 'get',
  path: '/tasks/templates',
  interface: 'back',
  summary: 'Task templates, by name',
  tags,
  paged: { defaultSize: 50 },
  access: configurationReadAccess,
  responses: { 200: { description: 'One page of templates', schema: Type.Array(TaskTemplateSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_READ');
    const [rows, total] = await ctx.em.findAndCount(
      TaskTemplate,
      {},
      { orderBy: { name: 'asc', id: 'asc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(rows.map(toTemplateDto), { total });
  },
});

export const getTaskTemplate = defineRoute({
  operationId: 'getTaskTemplate',
  method: 'get',
  path: '/tasks/templates/{id}',
  interface: 'back',
  summary: 'One task template',
  tags,
  params: TemplateParams,
  access: configurationReadAccess,
  responses: { 200: { description: 'The template', schema: TaskTemplateSchema } },
  errors: ['AUTH002', 'TKT404'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_READ');
    return ok(toTemplateDto(await loadTemplate(ctx.em, ctx.params.id)));
  },
});

export const createTaskTemplate = defineRoute({
  operationId: 'createTaskTemplate',
  method: 'post',
  path: '/tasks/templates',
  interface: 'back',
  summary: 'Create a task template',
  tags,
  body: TemplateCreate,
  access: configurationWriteAccess,
  responses: { 201: { description: 'The template', schema: TaskTemplateSchema } },
  errors: ['AUTH002', 'TK101'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_CONFIGURE');
    await assertCategory(ctx.em, ctx.body.categoryId);
    const template = ctx.em.create(TaskTemplate, {
      name: ctx.body.name,
      title: ctx.body.title,
      description: ctx.body.description ?? null,
      priority: ctx.body.priority ?? 'NORMAL',
      categoryId: ctx.body.categoryId ?? null,
      tags: ctx.body.tags ? [...ctx.body.tags] : [],
    });
    await ctx.em.flush();
    return created(toTemplateDto(template), { Location: `${ctx.baseUrl}/tasks/templates/${template.id}` });
  },
});

export const updateTaskTemplate = defineRoute({
  operationId: 'updateTaskTemplate',
  method: 'patch',
  path: '/tasks/templates/{id}',
  interface: 'back',
  summary: 'Change some fields of a task template (tasks made from it keep theirs)',
  tags,
  params: TemplateParams,
  body: TemplateUpdate,
  access: configurationWriteAccess,
  responses: { 200: { description: 'The template', schema: TaskTemplateSchema } },
  errors: ['AUTH002', 'TKT404', 'TK101'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_CONFIGURE');
    const template = await loadTemplate(ctx.em, ctx.params.id);
    const body = ctx.body;
    if (body.categoryId != null) await assertCategory(ctx.em, body.categoryId);
    if (body.name !== undefined) template.name = body.name;
    if (body.title !== undefined) template.title = body.title;
    if (body.description !== undefined) template.description = body.description;
    if (body.priority !== undefined) template.priority = body.priority;
    if (body.categoryId !== undefined) template.categoryId = body.categoryId;
    if (body.tags !== undefined) template.tags = [...body.tags];
    template.updatedAt = new Date();
    await ctx.em.flush();
    return ok(toTemplateDto(template));
  },
});

export const deleteTaskTemplate = defineRoute({
  operationId: 'deleteTaskTemplate',
  method: 'delete',
  path: '/tasks/templates/{id}',
  interface: 'back',
  summary: 'Delete a task template (tasks made from it keep their fields and templateId)',
  tags,
  params: TemplateParams,
  access: configurationWriteAccess,
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'TKT404'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'TASK_CONFIGURE');
    ctx.em.remove(await loadTemplate(ctx.em, ctx.params.id));
    await ctx.em.flush();
    return noContent();
  },
});

export const taskTemplateRoutes = [
  listTaskTemplates,
  createTaskTemplate,
  getTaskTemplate,
  updateTaskTemplate,
  deleteTaskTemplate,
];
