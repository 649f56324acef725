// Operator endpoints of tasks (the spec's Work table): list a branch's tasks, create one (or one per
// vehicle of a branch, the deprecated variant), read, edit, move through the state table, delete, bulk
// complete, replace tags, and the completed-tasks reads by branch and by user.
import { LockMode } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { ApiClient } from '../../../db/entities/ApiClient.js';
import { RoleAssignment } from '../../../db/entities/RoleAssignment.js';
import { Task } from '../../../db/entities/Task.js';
import { TaskTemplate } from '../../../db/entities/TaskTemplate.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { recordEvent } from '../../../db/events.js';
import { linkFiles, setLinkedFiles, unlinkAllFiles } from '../../../db/files.js';
import { FileUuid } from '../../shared/file-representation.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import {
  taskCompletionRefusal,
  taskTransitionRefusal,
  type TaskState as TaskStateValue,
} from '../../../domain/work.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum, UserAuthId } from '../../kernel/schemas.js';
import {
  AssigneeInput,
  assertCategory,
  assertTaskObject,
  containing,
  LegacyTaskCategory,
  listedBranches,
  onTheTask,
  tags,
  TaskObjectInput,
  TaskPriority,
  TaskSchema,
  TaskState,
  TaskTags,
  taskById,
  toTaskDto,
  toTaskDtos,
} from './task-representation.js';

const Title = Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

/** The states a task may be created in: RECURRING belongs to recurring tasks' parents only. */
const CreatableState = StringEnum(['NEW', 'IN_PROGRESS', 'COMPLETED'] as const);

const CreateTask = component(
  'TaskCreate',
  Type.Object(
    {
      taskData: Type.Object(
        {
          title: Type.Optional(Title),
          description: Type.Optional(Str(4000)),
          priority: Type.Optional(TaskPriority),
          taskState: Type.Optional(CreatableState),
          branchId: Id(),
          assignedTo: Type.Optional(AssigneeInput),
          categoryId: Type.Optional(Id()),
          category: Type.Optional(LegacyTaskCategory),
          templateId: Type.Optional(Id({ description: 'Fields not sent are taken from the template.' })),
          tags: Type.Optional(TaskTags),
          files: Type.Optional(
            Type.Array(FileUuid, {
              maxItems: 20,
              description: 'Files uploaded before (POST /files) to link.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      taskObject: Type.Optional(TaskObjectInput),
    },
    { additionalProperties: false },
  ),
);

type CreateBody = Static<typeof CreateTask>;

/** The task a create body describes (its template's fields fill in what the body leaves out). */
async function taskFields(ctx: RouteContext, body: CreateBody) {
  const data = body.taskData;
  const template =
    data.templateId === undefined ? undefined : await ctx.em.findOne(TaskTemplate, data.templateId);
  if (data.templateId !== undefined && !template)
    throw new DomainError('TK103', `task template ${data.templateId} not found`);
  const title = data.title ?? template?.title;
  if (!title) throw new DomainError('TK105', 'a task needs a title (or a template giving one)');
  // categoryId wins over the deprecated enum: with both, the enum is not recorded.
  const categoryId = data.categoryId ?? (data.category ? undefined : template?.categoryId) ?? null;
  await assertCategory(ctx.em, categoryId);
  const state: TaskStateValue = data.taskState ?? 'NEW';
  return {
    title,
    description: data.description ?? template?.description ?? null,
    priority: data.priority ?? template?.priority ?? 'NORMAL',
    taskState: state,
    branchId: data.branchId,
    assignedTo: data.assignedTo?.userAuthId ?? null,
    assignedToName: data.assignedTo?.firstLastName ?? null,
    categoryId,
    category: categoryId ? null : (data.category ?? null),
    templateId: template?.id ?? null,
    tags: data.tags ?? template?.tags ?? [],
    damageId: body.taskObject?.damageId ?? null,
    issueId: body.taskObject?.issueId ?? null,
    customerId: body.taskObject?.guserId ?? null,
    vehicleCategoryId: body.taskObject?.vehicleCategoryId ?? null,
    createdBy: ctx.actor,
    completedAt: state === 'COMPLETED' ? new Date() : null,
    completedBy: state === 'COMPLETED' ? ctx.actor : null,
  };
}

/** Appends the event of a task write to `em`'s unit of work (the vehicle's and branch's timelines show it). */
export function recordTaskEvent(
  em: EntityManager,
  actor: string,
  type: string,
  task: Task,
  payload: Record<string, unknown> = {},
) {
  recordEvent(em, {
    type,
    branchId: task.branchId,
    vehicleId: task.vehicleId ?? null,
    customerId: task.customerId ?? null,
    adminSubject: actor,
    description: task.title,
    payload: { taskId: task.id, taskState: task.taskState, ...payload },
  });
}

export const createTask = defineRoute({
  operationId: 'createTask',
  method: 'post',
  path: '/tasks',
  interface: 'back',
  summary: 'Create a task (or, deprecated, one per vehicle of the branch)',
  description:
    'With forAllVehiclesByBranch=true (deprecated: use POST /vehicles/tasks/bulk-create) one task per vehicle of taskData.branchId (that branch only) is created in one transaction and the answer is the list; taskObject.vehicleId is then refused (TK106). categoryId wins over the deprecated category enum.',
  tags,
  query: Type.Object({
    forAllVehiclesByBranch: Type.Optional(
      Type.Boolean({
        default: false,
        deprecated: true,
        description: 'Deprecated: one task per vehicle of the branch.',
      }),
    ),
  }),
  body: CreateTask,
  access: {
    permission: 'TASK_MANAGE',
    branchOf: 'taskData.branchId of the body',
    branch: (ctx) => ctx.body.taskData.branchId,
  },
  responses: {
    201: {
      description: 'The task, or the tasks of the deprecated variant',
      schema: Type.Union([TaskSchema, Type.Array(TaskSchema)]),
    },
  },
  errors: ['TK101', 'TK102', 'TK103', 'TK104', 'TK105', 'TK106', 'L404', 'L407'],
  async handler(ctx) {
    const { body, em } = ctx;
    const linkTo = (tx: EntityManager, task: Task) =>
      linkFiles(tx, {
        entityType: 'TASK',
        entityId: task.id,
        fileUuids: body.taskData.files ?? [],
        linkedBy: ctx.actor,
        scope: { branchId: task.branchId },
      });
    const fields = await taskFields(ctx, body);
    if (ctx.query.forAllVehiclesByBranch) {
      if (body.taskObject?.vehicleId != null)
        throw new DomainError(
          'TK106',
          "forAllVehiclesByBranch creates the vehicles' tasks itself: leave out taskObject.vehicleId",
        );
      await assertTaskObject(em, ctx.tenant, fields.branchId, { ...body.taskObject, vehicleId: null });
      const vehicles = await em.find(Vehicle, { branch: fields.branchId }, { orderBy: { id: 'asc' } });
      if (!vehicles.length) throw new DomainError('TK104', `branch ${fields.branchId} has no vehicles`);
      // One transaction: every vehicle's task and event, or none.
      const tasks = await em.transactional(async (tx) => {
        const rows = vehicles.map((vehicle) => tx.create(Task, { ...fields, vehicleId: vehicle.id }));
        await tx.flush();
        for (const task of rows) {
          await linkTo(tx, task);
          recordTaskEvent(tx, ctx.actor, 'TASK_CREATED', task);
        }
        return rows;
      });
      return created(await toTaskDtos(em, tasks));
    }
    await assertTaskObject(em, ctx.tenant, fields.branchId, body.taskObject ?? {});
    const task = await em.transactional(async (tx) => {
      const row = tx.create(Task, { ...fields, vehicleId: body.taskObject?.vehicleId ?? null });
      await tx.flush();
      await linkTo(tx, row);
      recordTaskEvent(tx, ctx.actor, 'TASK_CREATED', row);
      return row;
    });
    return created(await toTaskDto(em, task), { Location: `${ctx.baseUrl}/tasks/${task.id}` });
  },
});

const TaskPage = Type.Array(TaskSchema);
const Search = Str(200, { minLength: 1 });

export const listTasks = defineRoute({
  operationId: 'listTasks',
  method: 'get',
  path: '/tasks',
  interface: 'back',
  summary: "A branch's tasks, newest first",
  description:
    "searchText matches title and description, assignedTo.firstLastName the assignee's name (both case-insensitive, anywhere in the text).",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    'assignedTo.firstLastName': Type.Optional(Search),
    searchText: Type.Optional(Search),
    taskState: Type.Optional(Type.Array(TaskState, { maxItems: 4, uniqueItems: true })),
    categoryId: Type.Optional(Id()),
    vehicleId: Type.Optional(Id()),
    recurringTaskId: Type.Optional(Id({ description: 'Only the children of this recurring task.' })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'TASK_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of tasks', schema: TaskPage } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const where: Record<string, unknown> = {
      branchId: { $in: await listedBranches(em, tenant, query.branchId, query.includeChildBranches) },
    };
    const name = query['assignedTo.firstLastName'];
    if (name) where.assignedToName = { $ilike: containing(name) };
    if (query.searchText) {
      const pattern = containing(query.searchText);
      where.$or = [{ title: { $ilike: pattern } }, { description: { $ilike: pattern } }];
    }
    if (query.taskState) where.taskState = { $in: [...query.taskState] };
    if (query.categoryId) where.categoryId = query.categoryId;
    if (query.vehicleId) where.vehicleId = query.vehicleId;
    if (query.recurringTaskId) where.recurringTaskId = query.recurringTaskId;
    const [rows, total] = await em.findAndCount(Task, where, {
      orderBy: { id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await toTaskDtos(em, rows), { total });
  },
});

const TaskParams = Type.Object({ id: Id() });

export const getTask = defineRoute({
  operationId: 'getTask',
  method: 'get',
  path: '/tasks/{id}',
  interface: 'back',
  summary: 'One task',
  tags,
  params: TaskParams,
  access: onTheTask('TASK_READ'),
  responses: { 200: { description: 'The task', schema: TaskSchema } },
  errors: ['TK404'],
  async handler(ctx) {
    return ok(await toTaskDto(ctx.em, await taskById(ctx)));
  },
});

const UpdateTask = component(
  'TaskUpdate',
  Type.Object(
    {
      taskData: Type.Optional(
        Type.Object(
          {
            title: Type.Optional(Title),
            description: Type.Optional(Nullable(Str(4000))),
            priority: Type.Optional(TaskPriority),
            taskState: Type.Optional(TaskState),
            assignedTo: Type.Optional(Nullable(AssigneeInput)),
            categoryId: Type.Optional(Nullable(Id())),
            category: Type.Optional(Nullable(LegacyTaskCategory)),
            tags: Type.Optional(TaskTags),
            files: Type.Optional(
              Type.Array(FileUuid, {
                maxItems: 20,
                description: "The task's files from now on: new uuids are linked, left-out ones unlinked.",
              }),
            ),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
      ),
      taskObject: Type.Optional(
        Type.Object(
          {
            vehicleId: Type.Optional(Nullable(Id())),
            damageId: Type.Optional(Nullable(Id())),
            issueId: Type.Optional(Nullable(Id())),
            guserId: Type.Optional(Nullable(Id())),
            vehicleCategoryId: Type.Optional(Nullable(Id())),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

/** Moves a task to `state` through the state table (TK100), stamping or clearing its completion. */
function moveTask(task: Task, state: TaskStateValue, actor: string): boolean {
  const refusal = taskTransitionRefusal(task.taskState, state);
  if (refusal) throw new DomainError('TK100', `task ${task.id}: ${refusal}`);
  if (task.taskState === state) return false;
  task.taskState = state;
  task.completedAt = state === 'COMPLETED' ? new Date() : null;
  task.completedBy = state === 'COMPLETED' ? actor : null;
  return true;
}

export const updateTask = defineRoute({
  operationId: 'updateTask',
  method: 'patch',
  path: '/tasks/{id}',
  interface: 'back',
  summary: 'Edit a task or move it to another state',
  description:
    'Moves: NEW → IN_PROGRESS | COMPLETED; IN_PROGRESS → NEW | COMPLETED; COMPLETED → IN_PROGRESS (reopen, clears completedAt/completedBy); RECURRING is never entered or left here (TK100). categoryId wins over the deprecated category enum (setting categoryId clears the enum). The branch of a task does not change.',
  tags,
  params: TaskParams,
  body: UpdateTask,
  access: onTheTask('TASK_MANAGE'),
  responses: { 200: { description: 'The task', schema: TaskSchema } },
  errors: ['TK404', 'TK100', 'TK101', 'TK102', 'L404', 'L407'],
  async handler(ctx) {
    const task = await taskById(ctx);
    const data = ctx.body.taskData ?? {};
    if (data.files !== undefined)
      await setLinkedFiles(ctx.em, {
        entityType: 'TASK',
        entityId: task.id,
        fileUuids: data.files,
        linkedBy: ctx.actor,
        scope: { branchId: task.branchId },
      });
    const object = ctx.body.taskObject ?? {};
    if (data.categoryId != null) await assertCategory(ctx.em, data.categoryId);
    await assertTaskObject(ctx.em, ctx.tenant, task.branchId, {
      vehicleId: object.vehicleId,
      damageId: object.damageId,
      issueId: object.issueId,
      guserId: object.guserId,
      vehicleCategoryId: object.vehicleCategoryId,
    });
    const moved = data.taskState ? moveTask(task, data.taskState, ctx.actor) : false;
    if (data.title !== undefined) task.title = data.title;
    if (data.description !== undefined) task.description = data.description;
    if (data.priority !== undefined) task.priority = data.priority;
    if (data.tags !== undefined) task.tags = [...data.tags];
    if (data.assignedTo !== undefined) {
      task.assignedTo = data.assignedTo?.userAuthId ?? null;
      task.assignedToName = data.assignedTo?.firstLastName ?? null;
    }
    if (data.category !== undefined) task.category = data.category;
    if (data.categoryId !== undefined) task.categoryId = data.categoryId;
    if (task.categoryId) task.category = null;
    if (object.vehicleId !== undefined) task.vehicleId = object.vehicleId;
    if (object.damageId !== undefined) task.damageId = object.damageId;
    if (object.issueId !== undefined) task.issueId = object.issueId;
    if (object.guserId !== undefined) task.customerId = object.guserId;
    if (object.vehicleCategoryId !== undefined) task.vehicleCategoryId = object.vehicleCategoryId;
    task.updatedAt = new Date();
    recordTaskEvent(
      ctx.em,
      ctx.actor,
      moved && task.taskState === 'COMPLETED' ? 'TASK_COMPLETED' : 'TASK_UPDATED',
      task,
      {
        fields: [...Object.keys(data), ...Object.keys(object)],
      },
    );
    await ctx.em.flush();
    return ok(await toTaskDto(ctx.em, task));
  },
});

export const deleteTask = defineRoute({
  operationId: 'deleteTask',
  method: 'delete',
  path: '/tasks/{id}',
  interface: 'back',
  summary: 'Delete a task',
  tags,
  params: TaskParams,
  access: onTheTask('TASK_MANAGE'),
  responses: { 204: { description: 'Deleted' } },
  errors: ['TK404'],
  async handler(ctx) {
    const task = await taskById(ctx);
    recordTaskEvent(ctx.em, ctx.actor, 'TASK_DELETED', task);
    await unlinkAllFiles(ctx.em, 'TASK', task.id);
    ctx.em.remove(task);
    await ctx.em.flush();
    return noContent();
  },
});

export const replaceTaskTags = defineRoute({
  operationId: 'replaceTaskTags',
  method: 'put',
  path: '/tasks/{id}/tags',
  interface: 'back',
  summary: "Replace a task's tags",
  tags,
  params: TaskParams,
  body: TaskTags,
  access: onTheTask('TASK_MANAGE'),
  responses: { 200: { description: 'The task', schema: TaskSchema } },
  errors: ['TK404'],
  async handler(ctx) {
    const task = await taskById(ctx);
    task.tags = [...ctx.body];
    task.updatedAt = new Date();
    recordTaskEvent(ctx.em, ctx.actor, 'TASK_UPDATED', task, { fields: ['tags'] });
    await ctx.em.flush();
    return ok(await toTaskDto(ctx.em, task));
  },
});

export const completeTasks = defineRoute({
  operationId: 'completeTasks',
  method: 'patch',
  path: '/tasks/complete',
  interface: 'back',
  summary: 'Complete several tasks at once (all or none)',
  description:
    "Every task must exist (TK404) and the caller must hold TASK_MANAGE on every task's branch (AUTH002); a RECURRING parent is refused (TK100). Tasks already COMPLETED stay as they are, so repeating the request answers the same.",
  tags,
  body: Type.Object(
    { taskIds: Type.Array(Id(), { minItems: 1, maxItems: 200, uniqueItems: true }) },
    { additionalProperties: false },
  ),
  access: { anyCaller: 'the handler requires TASK_MANAGE on the branch of every task named' },
  responses: { 200: { description: 'The tasks, by id', schema: TaskPage } },
  errors: ['TK404', 'TK100', 'AUTH002'],
  async handler(ctx) {
    const { em } = ctx;
    const ids = ctx.body.taskIds;
    const tasks = await em.transactional(async (tx) => {
      const rows = await tx.find(
        Task,
        { id: { $in: [...ids] } },
        { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      const missing = ids.filter((id) => !rows.some((row) => row.id === id));
      if (missing.length) throw new DomainError('TK404', `tasks ${missing.join(', ')} not found`);
      for (const branchId of new Set(rows.map((row) => row.branchId)))
        await ctx.authorize('TASK_MANAGE', { branchId });
      for (const task of rows) {
        const refusal = taskCompletionRefusal(task.taskState);
        if (refusal) throw new DomainError('TK100', `task ${task.id}: ${refusal}`);
        if (task.taskState === 'COMPLETED') continue;
        moveTask(task, 'COMPLETED', ctx.actor);
        task.updatedAt = new Date();
        recordTaskEvent(tx, ctx.actor, 'TASK_COMPLETED', task, { bulk: true });
      }
      return rows;
    });
    return ok(await toTaskDtos(em, tasks));
  },
});

/** The completed-tasks window: startDate inclusive, endDate exclusive, at most 366 days. */
const CompletedWindow = {
  startDate: Type.String({
    format: 'date-time',
    maxLength: 40,
    description: 'Completed at or after (inclusive).',
  }),
  endDate: Type.String({
    format: 'date-time',
    maxLength: 40,
    description: 'Completed before (exclusive); at most 366 days after startDate.',
  }),
  includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  categoryId: Type.Optional(Id()),
};

const maxWindowMs = 366 * 24 * 3600 * 1000;

/** The window of the query (TK107 when it is empty, reversed or longer than 366 days). */
function completedWindow(query: { startDate: string; endDate: string }): { from: Date; to: Date } {
  const from = new Date(query.startDate);
  const to = new Date(query.endDate);
  if (
    Number.isNaN(from.getTime()) ||
    Number.isNaN(to.getTime()) ||
    to <= from ||
    to.getTime() - from.getTime() > maxWindowMs
  )
    throw new DomainError('TK107', 'endDate must follow startDate, at most 366 days later');
  return { from, to };
}

/** One page of completed tasks in the window, most recently completed first. */
async function completedTasks(
  ctx: RouteContext,
  where: Record<string, unknown>,
  query: { startDate: string; endDate: string; categoryId?: number },
) {
  const { from, to } = completedWindow(query);
  const filter: Record<string, unknown> = {
    ...where,
    taskState: 'COMPLETED',
    completedAt: { $gte: from, $lt: to },
  };
  if (query.categoryId) filter.categoryId = query.categoryId;
  const [rows, total] = await ctx.em.findAndCount(Task, filter, {
    orderBy: { completedAt: 'desc', id: 'desc' },
    limit: ctx.page.size,
    offset: ctx.page.offset,
  });
  return ok(await toTaskDtos(ctx.em, rows), { total });
}

export const branchCompletedTasks = defineRoute({
  operationId: 'branchCompletedTasks',
  method: 'get',
  path: '/tasks/branch/{branchId}/completed-tasks',
  interface: 'back',
  summary: "A branch's tasks completed in a window, most recently completed first",
  tags,
  params: Type.Object({ branchId: Id() }),
  query: Type.Object(CompletedWindow),
  paged: { defaultSize: 50 },
  access: {
    permission: 'TASK_READ',
    branchOf: 'path parameter branchId',
    branch: (ctx) => ctx.params.branchId,
  },
  responses: { 200: { description: 'One page of tasks', schema: TaskPage } },
  errors: ['TK107'],
  async handler(ctx) {
    const branches = await listedBranches(
      ctx.em,
      ctx.tenant,
      ctx.params.branchId,
      ctx.query.includeChildBranches,
    );
    return completedTasks(ctx, { branchId: { $in: branches } }, ctx.query);
  },
});

export const userCompletedTasks = defineRoute({
  operationId: 'userCompletedTasks',
  method: 'get',
  path: '/tasks/user/{userAuthId}/completed-tasks',
  interface: 'back',
  summary: 'The tasks a user completed in a window, in a branch, most recently completed first',
  description:
    'branchId is required: task reads are granted per branch, so the answer is confined to the branch (and its descendants with includeChildBranches).',
  tags,
  params: Type.Object({
    userAuthId: UserAuthId({
      description:
        'Who completed the tasks: client:<id> or operator:<id> (the acting subject), or a crew name; malformed ids (numbers, ..) answer 0022, unknown users AUTH052.',
    }),
  }),
  query: Type.Object({ branchId: Id(), ...CompletedWindow }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'TASK_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of tasks', schema: TaskPage } },
  errors: ['TK107', 'AUTH052'],
  async handler(ctx) {
    if (!(await knownUserAuthId(ctx.em, ctx.params.userAuthId)))
      throw new DomainError('AUTH052', `no user ${ctx.params.userAuthId} in this tenant`);
    const branches = await listedBranches(
      ctx.em,
      ctx.tenant,
      ctx.query.branchId,
      ctx.query.includeChildBranches,
    );
    return completedTasks(
      ctx,
      { branchId: { $in: branches }, completedBy: ctx.params.userAuthId },
      ctx.query,
    );
  },
});

/**
 * Whether the tenant knows the user: an API client (`client:<clientId>`), an operator holding a role
 * (`operator:<id>`), or anyone a task was assigned to or completed by (crews and former users keep their
 * history).
 */
async function knownUserAuthId(em: EntityManager, userAuthId: string): Promise<boolean> {
  const [kind, ...rest] = userAuthId.split(':');
  const id = rest.join(':');
  if (kind === 'client' && id && (await em.count(ApiClient, { clientId: id })) > 0) return true;
  if (
    kind === 'operator' &&
    id &&
    (await em.count(RoleAssignment, { subjectType: 'OPERATOR', subjectId: id })) > 0
  )
    return true;
  const task = await em.findOne(
    Task,
    { $or: [{ completedBy: userAuthId }, { assignedTo: userAuthId }] },
    { fields: ['id'] },
  );
  return task !== null;
}

/** Static paths (/tasks/complete, /tasks/branch/…, /tasks/user/…) before /tasks/{id}. */
export const taskRoutes = [
  listTasks,
  createTask,
  completeTasks,
  branchCompletedTasks,
  userCompletedTasks,
  getTask,
  updateTask,
  deleteTask,
  replaceTaskTags,
];
