// Recurring tasks (the spec's /tasks/recurring): the taskData and taskObject each due child is created
// with, and when children are due, whichever comes first: by time (a Temporal Schedule
// `recurring-task:{tenant}:{id}`, visible in the Temporal UI, starting the due workflow), by ended rentals
// or by kilometres of the vehicle (the usage workflow `recurring-task-usage:{tenant}:{id}`).
import {
  ScheduleNotFoundError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { Type, type Static } from '@sinclair/typebox';
import { RecurringTask } from '../../../db/entities/RecurringTask.js';
import { Task } from '../../../db/entities/Task.js';
import { TaskCategory } from '../../../db/entities/TaskCategory.js';
import { DomainError } from '../../../domain/errors.js';
import { timeOfDayPattern, weekdays } from '../../../domain/work.js';
import {
  RECURRING_TASK_USAGE_WORKFLOW_TYPE,
  recurringTaskScheduleId,
  recurringTaskScheduleOptions,
  recurringTaskUsageStartOptions,
  recurringTaskUsageWorkflowId,
  type RecurringTaskTiming,
} from '../../../workflows/work.messages.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  AssigneeInput,
  assertCategory,
  assertTaskObject,
  listedBranches,
  tags,
  TaskPriority,
  TaskTags,
} from './task-representation.js';

const Weekday = component('Weekday', StringEnum(weekdays));
const Title = Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

const Recurrence = component(
  'TaskRecurrence',
  Type.Object(
    {
      daysOfWeek: Type.Array(Weekday, { minItems: 1, maxItems: 7, uniqueItems: true }),
      timeOfDay: Type.String({ pattern: timeOfDayPattern, maxLength: 5, description: 'HH:MM, 24 h.' }),
      timezone: Str(64, { minLength: 1, description: 'IANA time zone of timeOfDay, e.g. Europe/Berlin.' }),
    },
    { additionalProperties: false },
  ),
);

const Usage = component(
  'TaskRecurrenceUsage',
  Type.Object(
    {
      everyRentals: Type.Optional(
        Nullable(Int(1, 100_000, { description: 'Due after this many ended rentals of the vehicle.' })),
      ),
      everyKm: Type.Optional(
        Nullable(Int(1, 1_000_000, { description: "Due after the vehicle's odometer grew this many km." })),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

const UsageOut = Type.Object(
  {
    everyRentals: Nullable(Type.Integer()),
    everyKm: Nullable(Type.Integer()),
    baselineAt: DateTime({ description: 'Usage counts from here: creation, then the last child completed.' }),
    baselineOdometerKm: Nullable(Type.Number()),
    workflowId: Type.String({ description: 'The usage workflow watching the triggers.' }),
  },
  { additionalProperties: false },
);

const RecurringTaskSchema = component(
  'RecurringTask',
  Type.Object(
    {
      id: Id(),
      taskData: Type.Object(
        {
          title: Type.String(),
          description: Nullable(Type.String()),
          priority: TaskPriority,
          taskState: Type.Literal('RECURRING'),
          branchId: Id(),
          assignedTo: Nullable(
            Type.Object(
              { userAuthId: Type.String(), firstLastName: Nullable(Type.String()) },
              { additionalProperties: false },
            ),
          ),
          categoryId: Nullable(Id()),
          categoryInfo: Nullable(
            Type.Object({ id: Id(), name: Type.String() }, { additionalProperties: false }),
          ),
          tags: Type.Array(Type.String()),
          createdBy: Nullable(Type.String()),
          createdAt: DateTime(),
          updatedAt: DateTime(),
        },
        { additionalProperties: false },
      ),
      taskObject: Type.Object({ vehicleId: Nullable(Id()) }, { additionalProperties: false }),
      recurrence: Nullable(Recurrence),
      scheduleId: Nullable(Type.String({ description: 'The Temporal Schedule of the time trigger.' })),
      usage: Nullable(UsageOut),
      openChildren: Type.Integer({ description: 'Children not COMPLETED.' }),
    },
    { additionalProperties: false },
  ),
);

type RecurringTaskDto = Static<typeof RecurringTaskSchema>;

async function toDto(ctx: RouteContext, row: RecurringTask): Promise<RecurringTaskDto> {
  const [category, openChildren] = await Promise.all([
    row.categoryId ? ctx.em.findOne(TaskCategory, row.categoryId) : null,
    ctx.em.count(Task, { recurringTaskId: row.id, taskState: { $ne: 'COMPLETED' } }),
  ]);
  return {
    id: row.id,
    taskData: {
      title: row.title,
      description: row.description ?? null,
      priority: row.priority,
      taskState: 'RECURRING',
      branchId: row.branchId,
      assignedTo: row.assignedTo
        ? { userAuthId: row.assignedTo, firstLastName: row.assignedToName ?? null }
        : null,
      categoryId: row.categoryId ?? null,
      categoryInfo: category ? { id: category.id, name: category.name } : null,
      tags: row.tags,
      createdBy: row.createdBy ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    },
    taskObject: { vehicleId: row.vehicleId ?? null },
    recurrence: timingOf(row)
      ? { daysOfWeek: row.daysOfWeek!, timeOfDay: row.timeOfDay!, timezone: row.timezone! }
      : null,
    scheduleId: timingOf(row) ? recurringTaskScheduleId(ctx.tenant, row.id) : null,
    usage: hasUsage(row)
      ? {
          everyRentals: row.everyRentals ?? null,
          everyKm: row.everyKm ?? null,
          baselineAt: row.baselineAt.toISOString(),
          baselineOdometerKm: row.baselineOdometerKm ?? null,
          workflowId: recurringTaskUsageWorkflowId(ctx.tenant, row.id),
        }
      : null,
    openChildren,
  };
}

/** Refuses a time zone the runtime does not know (TK108). */
function assertTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new DomainError('TK108', `unknown time zone ${timezone}`);
  }
}

const recurringById = (ctx: RouteContext<{ id: number }>) =>
  ctx.once('recurringTask', async () => {
    const row = await ctx.em.findOne(RecurringTask, ctx.params.id);
    if (!row) throw new DomainError('TK404', `recurring task ${ctx.params.id} not found`);
    return row;
  });

const onTheRecurringTask = (permission: string) => ({
  permission,
  branchOf: "the recurring task's branch",
  branch: async (ctx: RouteContext<{ id: number }>) => (await recurringById(ctx)).branchId,
});

/** The time trigger of a recurring task, or undefined without one. */
function timingOf(row: RecurringTask): RecurringTaskTiming | undefined {
  return row.daysOfWeek?.length && row.timeOfDay && row.timezone
    ? { branchId: row.branchId, daysOfWeek: row.daysOfWeek, timeOfDay: row.timeOfDay, timezone: row.timezone }
    : undefined;
}

const hasUsage = (row: RecurringTask) => Boolean(row.everyRentals || row.everyKm);

/** A recurring task needs a trigger, and usage triggers count on a vehicle (TK109). */
function assertTriggers(row: RecurringTask): void {
  if (!timingOf(row) && !hasUsage(row))
    throw new DomainError('TK109', 'a recurring task needs a recurrence, everyRentals or everyKm');
  if (hasUsage(row) && row.vehicleId == null)
    throw new DomainError('TK109', 'everyRentals and everyKm count on a vehicle: set taskObject.vehicleId');
}

/** Creates or updates the time trigger's schedule, or deletes it when the time trigger is gone. */
async function syncSchedule(ctx: RouteContext, row: RecurringTask, existed: boolean): Promise<void> {
  const timing = timingOf(row);
  const handle = ctx.services.temporal.schedule.getHandle(recurringTaskScheduleId(ctx.tenant, row.id));
  if (!timing) {
    if (existed) await handle.delete().catch(ignore(ScheduleNotFoundError));
    return;
  }
  const options = recurringTaskScheduleOptions(ctx.tenant, row.id, timing, ctx.services.taskQueue);
  if (existed)
    try {
      await handle.update((previous) => ({ ...previous, spec: options.spec }));
      return;
    } catch (error) {
      // A Temporal server that lost the schedule gets a new one.
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  await ctx.services.temporal.schedule.create(options);
}

/** Starts the usage workflow when usage triggers exist (a running one reads the new triggers itself). */
async function syncUsageWorkflow(ctx: RouteContext, row: RecurringTask): Promise<void> {
  const workflowId = recurringTaskUsageWorkflowId(ctx.tenant, row.id);
  if (!hasUsage(row)) {
    await ctx.services.temporal.workflow
      .getHandle(workflowId)
      .terminate('usage triggers removed')
      .catch(ignore(WorkflowNotFoundError));
    return;
  }
  await ctx.services.temporal.workflow
    .start(
      RECURRING_TASK_USAGE_WORKFLOW_TYPE,
      recurringTaskUsageStartOptions(ctx.tenant, row.id, row.branchId, ctx.services.taskQueue),
    )
    .catch(ignore(WorkflowExecutionAlreadyStartedError));
}

/** A catch handler swallowing one error class (an absent schedule or workflow, one already running). */
function ignore(kind: new (...args: never[]) => Error) {
  return (error: unknown) => {
    if (!(error instanceof kind)) throw error;
  };
}

const CreateRecurringTask = component(
  'RecurringTaskCreate',
  Type.Object(
    {
      taskData: Type.Object(
        {
          title: Title,
          description: Type.Optional(Str(4000)),
          priority: Type.Optional(TaskPriority),
          branchId: Id(),
          assignedTo: Type.Optional(AssigneeInput),
          categoryId: Type.Optional(Id()),
          tags: Type.Optional(TaskTags),
        },
        { additionalProperties: false },
      ),
      taskObject: Type.Optional(
        Type.Object({ vehicleId: Type.Optional(Id()) }, { additionalProperties: false }),
      ),
      recurrence: Type.Optional(Recurrence),
      usage: Type.Optional(Usage),
    },
    { additionalProperties: false },
  ),
);

export const listRecurringTasks = defineRoute({
  operationId: 'listRecurringTasks',
  method: 'get',
  path: '/tasks/recurring',
  interface: 'back',
  summary: "A branch's recurring tasks, newest first",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'TASK_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of recurring tasks', schema: Type.Array(RecurringTaskSchema) } },
  errors: [],
  async handler(ctx) {
    const branches = await listedBranches(
      ctx.em,
      ctx.tenant,
      ctx.query.branchId,
      ctx.query.includeChildBranches,
    );
    const [rows, total] = await ctx.em.findAndCount(
      RecurringTask,
      { branchId: { $in: branches } },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(await Promise.all(rows.map((row) => toDto(ctx, row))), { total });
  },
});

export const createRecurringTask = defineRoute({
  operationId: 'createRecurringTask',
  method: 'post',
  path: '/tasks/recurring',
  interface: 'back',
  summary: 'Create a recurring task and its schedule',
  description:
    'Each due point creates one child task (NEW) with the taskData and taskObject given here. Triggers, whichever comes first: recurrence (daysOfWeek at timeOfDay in timezone, a Temporal Schedule), usage.everyRentals (ended rentals of taskObject.vehicleId) and usage.everyKm (its odometer), both counted from the completion of the last child. At least one trigger (TK109).',
  tags,
  body: CreateRecurringTask,
  access: {
    permission: 'TASK_MANAGE',
    branchOf: 'taskData.branchId of the body',
    branch: (ctx) => ctx.body.taskData.branchId,
  },
  responses: { 201: { description: 'The recurring task', schema: RecurringTaskSchema } },
  errors: ['TK101', 'TK102', 'TK108', 'TK109'],
  async handler(ctx) {
    const { taskData, recurrence, usage } = ctx.body;
    if (recurrence) assertTimezone(recurrence.timezone);
    await assertCategory(ctx.em, taskData.categoryId);
    await assertTaskObject(ctx.em, ctx.tenant, taskData.branchId, {
      vehicleId: ctx.body.taskObject?.vehicleId,
    });
    const row = ctx.em.create(RecurringTask, {
      title: taskData.title,
      description: taskData.description ?? null,
      priority: taskData.priority ?? 'NORMAL',
      branchId: taskData.branchId,
      categoryId: taskData.categoryId ?? null,
      tags: taskData.tags ? [...taskData.tags] : [],
      assignedTo: taskData.assignedTo?.userAuthId ?? null,
      assignedToName: taskData.assignedTo?.firstLastName ?? null,
      vehicleId: ctx.body.taskObject?.vehicleId ?? null,
      daysOfWeek: recurrence ? [...recurrence.daysOfWeek] : null,
      timeOfDay: recurrence?.timeOfDay ?? null,
      timezone: recurrence?.timezone ?? null,
      everyRentals: usage?.everyRentals ?? null,
      everyKm: usage?.everyKm ?? null,
      baselineAt: new Date(),
      createdBy: ctx.actor,
    });
    assertTriggers(row);
    await ctx.em.flush();
    try {
      await syncSchedule(ctx, row, false);
      await syncUsageWorkflow(ctx, row);
    } catch (error) {
      // No recurring task without its schedule and usage workflow.
      await ctx.services.temporal.schedule
        .getHandle(recurringTaskScheduleId(ctx.tenant, row.id))
        .delete()
        .catch(() => undefined);
      ctx.em.remove(row);
      await ctx.em.flush();
      throw error;
    }
    return created(await toDto(ctx, row), { Location: `${ctx.baseUrl}/tasks/recurring/${row.id}` });
  },
});

const RecurringParams = Type.Object({ id: Id() });

export const getRecurringTask = defineRoute({
  operationId: 'getRecurringTask',
  method: 'get',
  path: '/tasks/recurring/{id}',
  interface: 'back',
  summary: 'One recurring task',
  tags,
  params: RecurringParams,
  access: onTheRecurringTask('TASK_READ'),
  responses: { 200: { description: 'The recurring task', schema: RecurringTaskSchema } },
  errors: ['TK404'],
  async handler(ctx) {
    return ok(await toDto(ctx, await recurringById(ctx)));
  },
});

/** Completes the open children of a recurring task (closeChildren / closeRecurringChildren). */
async function closeOpenChildren(ctx: RouteContext, row: RecurringTask): Promise<void> {
  const open = await ctx.em.find(Task, {
    recurringTaskId: row.id,
    taskState: { $in: ['NEW', 'IN_PROGRESS'] },
  });
  const now = new Date();
  for (const child of open) {
    child.taskState = 'COMPLETED';
    child.completedAt = now;
    child.completedBy = ctx.actor;
    child.updatedAt = now;
  }
}

export const updateRecurringTask = defineRoute({
  operationId: 'updateRecurringTask',
  method: 'patch',
  path: '/tasks/recurring/{id}',
  interface: 'back',
  summary: 'Change a recurring task (and its schedule)',
  description:
    'includeRecurringChildren=true applies the taskData changes to the open children too; closeRecurringChildren=true completes the open children. recurrence and usage replace the triggers (null removes one; at least one stays, TK109): the schedule and the usage workflow follow.',
  tags,
  params: RecurringParams,
  query: Type.Object({
    includeRecurringChildren: Type.Optional(Type.Boolean({ default: false })),
    closeRecurringChildren: Type.Optional(Type.Boolean({ default: false })),
  }),
  body: component(
    'RecurringTaskUpdate',
    Type.Object(
      {
        taskData: Type.Optional(
          Type.Object(
            {
              title: Type.Optional(Title),
              description: Type.Optional(Nullable(Str(4000))),
              priority: Type.Optional(TaskPriority),
              assignedTo: Type.Optional(Nullable(AssigneeInput)),
              categoryId: Type.Optional(Nullable(Id())),
              tags: Type.Optional(TaskTags),
            },
            { additionalProperties: false, minProperties: 1 },
          ),
        ),
        recurrence: Type.Optional(Nullable(Recurrence)),
        usage: Type.Optional(Nullable(Usage)),
      },
      { additionalProperties: false },
    ),
  ),
  access: onTheRecurringTask('TASK_MANAGE'),
  responses: { 200: { description: 'The recurring task', schema: RecurringTaskSchema } },
  errors: ['TK404', 'TK101', 'TK108', 'TK109'],
  async handler(ctx) {
    const row = await recurringById(ctx);
    const data = ctx.body.taskData ?? {};
    if (data.categoryId != null) await assertCategory(ctx.em, data.categoryId);
    if (ctx.body.recurrence) assertTimezone(ctx.body.recurrence.timezone);
    const scheduled = Boolean(timingOf(row));
    const fields: Partial<RecurringTask> = {};
    if (data.title !== undefined) fields.title = data.title;
    if (data.description !== undefined) fields.description = data.description;
    if (data.priority !== undefined) fields.priority = data.priority;
    if (data.categoryId !== undefined) fields.categoryId = data.categoryId;
    if (data.tags !== undefined) fields.tags = [...data.tags];
    if (data.assignedTo !== undefined) {
      fields.assignedTo = data.assignedTo?.userAuthId ?? null;
      fields.assignedToName = data.assignedTo?.firstLastName ?? null;
    }
    Object.assign(row, fields);
    if (ctx.query.includeRecurringChildren) {
      const open = await ctx.em.find(Task, {
        recurringTaskId: row.id,
        taskState: { $in: ['NEW', 'IN_PROGRESS'] },
      });
      for (const child of open) Object.assign(child, fields, { updatedAt: new Date() });
    }
    if (ctx.query.closeRecurringChildren) await closeOpenChildren(ctx, row);
    const { recurrence, usage } = ctx.body;
    if (recurrence !== undefined) {
      row.daysOfWeek = recurrence ? [...recurrence.daysOfWeek] : null;
      row.timeOfDay = recurrence?.timeOfDay ?? null;
      row.timezone = recurrence?.timezone ?? null;
    }
    if (usage !== undefined) {
      row.everyRentals = usage?.everyRentals ?? null;
      row.everyKm = usage?.everyKm ?? null;
    }
    assertTriggers(row);
    if (recurrence !== undefined) await syncSchedule(ctx, row, scheduled);
    if (usage !== undefined) await syncUsageWorkflow(ctx, row);
    row.updatedAt = new Date();
    await ctx.em.flush();
    return ok(await toDto(ctx, row));
  },
});

export const deleteRecurringTask = defineRoute({
  operationId: 'deleteRecurringTask',
  method: 'delete',
  path: '/tasks/recurring/{id}',
  interface: 'back',
  summary: 'Delete a recurring task, its schedule and its usage workflow',
  description:
    'children=true deletes its children as well; otherwise closeChildren=true completes the open ones; by default the children stay as they are (they keep recurringTaskId).',
  tags,
  params: RecurringParams,
  query: Type.Object({
    closeChildren: Type.Optional(Type.Boolean({ default: false })),
    children: Type.Optional(Type.Boolean({ default: false, description: 'Delete the children too.' })),
  }),
  access: onTheRecurringTask('TASK_MANAGE'),
  responses: { 204: { description: 'Deleted' } },
  errors: ['TK404'],
  async handler(ctx) {
    const row = await recurringById(ctx);
    // The schedule and the usage workflow go first: a firing already under way finds no recurring task
    // and creates nothing.
    if (timingOf(row))
      await ctx.services.temporal.schedule
        .getHandle(recurringTaskScheduleId(ctx.tenant, row.id))
        .delete()
        .catch(ignore(ScheduleNotFoundError));
    if (hasUsage(row))
      await ctx.services.temporal.workflow
        .getHandle(recurringTaskUsageWorkflowId(ctx.tenant, row.id))
        .terminate('recurring task deleted')
        .catch(ignore(WorkflowNotFoundError));
    if (ctx.query.children) await ctx.em.nativeDelete(Task, { recurringTaskId: row.id });
    else if (ctx.query.closeChildren) await closeOpenChildren(ctx, row);
    ctx.em.remove(row);
    await ctx.em.flush();
    return noContent();
  },
});

export const recurringTaskRoutes = [
  listRecurringTasks,
  createRecurringTask,
  getRecurringTask,
  updateRecurringTask,
  deleteRecurringTask,
];
