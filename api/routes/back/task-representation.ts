// The operator's task representation (taskData + taskObject, the spec's names), the task lookups the
// task routes share, and the checks of what a task body names (category, template, task object).
import { Type, type Static } from '@sinclair/typebox';
import { Customer } from '../../../db/entities/Customer.js';
import { Damage } from '../../../db/entities/Damage.js';
import { Issue } from '../../../db/entities/Issue.js';
import { Task } from '../../../db/entities/Task.js';
import { TaskCategory } from '../../../db/entities/TaskCategory.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { branchWithDescendants } from '../../../db/branches.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { legacyTaskCategories, taskPriorities, taskStates } from '../../../domain/work.js';
import { filesLinkedTo } from '../../../db/files.js';
import { FileReferenceSchema } from '../../shared/file-representation.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

export const tags = ['Tasks'];

export const TaskPriority = component('TaskPriority', StringEnum(taskPriorities));
export const TaskState = component('TaskState', StringEnum(taskStates));
export const LegacyTaskCategory = component(
  'LegacyTaskCategory',
  StringEnum(legacyTaskCategories, {
    description: 'Deprecated: use categoryId (it wins when both are sent).',
  }),
);
/** One tag: 1–64 characters, no NUL. */
export const TaskTag = Str(64, { minLength: 1 });
export const TaskTags = Type.Array(TaskTag, { maxItems: 20, uniqueItems: true });

const Assignee = component(
  'TaskAssignee',
  Type.Object(
    {
      userAuthId: Str(200, { minLength: 1, description: "The assignee's user auth id (operator subject)." }),
      firstLastName: Nullable(Str(200)),
    },
    { additionalProperties: false },
  ),
);
export const AssigneeInput = Type.Object(
  { userAuthId: Str(200, { minLength: 1 }), firstLastName: Type.Optional(Nullable(Str(200))) },
  { additionalProperties: false },
);

export const TaskObject = component(
  'TaskObject',
  Type.Object(
    {
      vehicleId: Nullable(Id()),
      damageId: Nullable(Id()),
      issueId: Nullable(Id({ description: 'The issue the task is about.' })),
      guserId: Nullable(Id({ description: 'The customer the task is about.' })),
      vehicleCategoryId: Nullable(Id()),
    },
    { additionalProperties: false },
  ),
);

export const TaskObjectInput = Type.Partial(TaskObject, { additionalProperties: false });

export const TaskSchema = component(
  'Task',
  Type.Object(
    {
      id: Id(),
      taskData: Type.Object(
        {
          title: Type.String(),
          description: Nullable(Type.String()),
          priority: TaskPriority,
          taskState: TaskState,
          branchId: Id(),
          assignedTo: Nullable(Assignee),
          categoryId: Nullable(Id()),
          categoryInfo: Nullable(
            Type.Object({ id: Id(), name: Type.String() }, { additionalProperties: false }),
          ),
          category: Nullable(LegacyTaskCategory),
          templateId: Nullable(Id()),
          tags: Type.Array(Type.String()),
          files: Type.Array(FileReferenceSchema, {
            description: 'Files linked to the task (uploaded first, POST /files).',
          }),
          createdBy: Nullable(Type.String()),
          createdAt: DateTime(),
          updatedAt: DateTime(),
          completedAt: Nullable(DateTime()),
          completedBy: Nullable(Type.String()),
          recurringTaskId: Nullable(
            Id({ description: 'The recurring task that created this one (GET /tasks?recurringTaskId=…).' }),
          ),
          dueKey: Nullable(
            Type.String({ description: 'Which due point of its recurring task created it (one task each).' }),
          ),
        },
        { additionalProperties: false },
      ),
      taskObject: TaskObject,
    },
    { additionalProperties: false },
  ),
);

export type TaskDto = Static<typeof TaskSchema>;

/** The representation of tasks, with the names of their categories and their files (one query each). */
export async function toTaskDtos(em: EntityManager, tasks: readonly Task[]): Promise<TaskDto[]> {
  const categoryIds = [...new Set(tasks.flatMap((task) => (task.categoryId ? [task.categoryId] : [])))];
  const categories = categoryIds.length ? await em.find(TaskCategory, { id: { $in: categoryIds } }) : [];
  const files = await filesLinkedTo(
    em,
    'TASK',
    tasks.map((task) => task.id),
  );
  const names = new Map(categories.map((category) => [category.id, category.name]));
  return tasks.map((task) => ({
    id: task.id,
    taskData: {
      title: task.title,
      description: task.description ?? null,
      priority: task.priority,
      taskState: task.taskState,
      branchId: task.branchId,
      assignedTo: task.assignedTo
        ? { userAuthId: task.assignedTo, firstLastName: task.assignedToName ?? null }
        : null,
      categoryId: task.categoryId ?? null,
      categoryInfo:
        task.categoryId && names.has(task.categoryId)
          ? { id: task.categoryId, name: names.get(task.categoryId)! }
          : null,
      category: task.category ?? null,
      templateId: task.templateId ?? null,
      tags: task.tags,
      files: files.get(String(task.id)) ?? [],
      createdBy: task.createdBy ?? null,
      createdAt: task.createdAt.toISOString(),
      updatedAt: task.updatedAt.toISOString(),
      completedAt: task.completedAt?.toISOString() ?? null,
      completedBy: task.completedBy ?? null,
      recurringTaskId: task.recurringTaskId ?? null,
      dueKey: task.dueKey ?? null,
    },
    taskObject: {
      vehicleId: task.vehicleId ?? null,
      damageId: task.damageId ?? null,
      issueId: task.issueId ?? null,
      guserId: task.customerId ?? null,
      vehicleCategoryId: task.vehicleCategoryId ?? null,
    },
  }));
}

/** One task's representation. */
export async function toTaskDto(em: EntityManager, task: Task): Promise<TaskDto> {
  return (await toTaskDtos(em, [task]))[0]!;
}

/** The task of the path's `id`, loaded once (the access check and the handler share it). */
export const taskById = (ctx: RouteContext<{ id: number }>) =>
  ctx.once('task', async () => {
    const task = await ctx.em.findOne(Task, ctx.params.id);
    if (!task) throw new DomainError('TK404', `task ${ctx.params.id} not found`);
    return task;
  });

/** Access on the task of the path: `permission` on its branch. */
export const onTheTask = (permission: string) => ({
  permission,
  branchOf: "the task's branch",
  branch: async (ctx: RouteContext<{ id: number }>) => (await taskById(ctx)).branchId,
});

/** Refuses a category id unknown in the tenant (TK101: a body naming it, not a missing path resource). */
export async function assertCategory(
  em: EntityManager,
  categoryId: number | null | undefined,
): Promise<void> {
  if (categoryId != null && !(await em.count(TaskCategory, categoryId)))
    throw new DomainError('TK101', `task category ${categoryId} not found`);
}

/**
 * Refuses a task object naming rows unknown in the tenant, or a vehicle, damage or issue outside the
 * task's branch and its descendants (TK102).
 */
export async function assertTaskObject(
  em: EntityManager,
  tenant: string,
  branchId: number,
  object: Partial<Static<typeof TaskObject>>,
): Promise<void> {
  const refuse = (what: string) => {
    throw new DomainError('TK102', what);
  };
  const branches =
    object.vehicleId != null || object.damageId != null || object.issueId != null
      ? new Set(await branchWithDescendants(em, tenant, branchId))
      : new Set<number>();
  if (object.vehicleId != null) {
    const vehicle = await em.findOne(Vehicle, object.vehicleId);
    if (!vehicle) refuse(`vehicle ${object.vehicleId} not found`);
    else if (!branches.has(vehicle.branch.id))
      refuse(`vehicle ${object.vehicleId} is not in branch ${branchId} or below it`);
  }
  if (object.damageId != null) {
    const damage = await em.findOne(Damage, object.damageId);
    if (!damage) refuse(`damage ${object.damageId} not found`);
    else if (!branches.has(damage.branchId))
      refuse(`damage ${object.damageId} is not in branch ${branchId} or below it`);
  }
  if (object.issueId != null) {
    const issue = await em.findOne(Issue, object.issueId);
    if (!issue) refuse(`issue ${object.issueId} not found`);
    else if (!branches.has(issue.branchId))
      refuse(`issue ${object.issueId} is not in branch ${branchId} or below it`);
  }
  if (object.guserId != null && !(await em.count(Customer, object.guserId)))
    refuse(`customer ${object.guserId} not found`);
  if (object.vehicleCategoryId != null && !(await em.count(VehicleCategory, object.vehicleCategoryId)))
    refuse(`vehicle category ${object.vehicleCategoryId} not found`);
}

/** `text` as a LIKE pattern matching it anywhere (its wildcards escaped). */
export function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

/** The branch of a query, with its descendants when `includeChildBranches` asks for them. */
export async function listedBranches(
  em: EntityManager,
  tenant: string,
  branchId: number,
  includeChildBranches: boolean | undefined,
): Promise<number[]> {
  return includeChildBranches ? branchWithDescendants(em, tenant, branchId) : [branchId];
}
