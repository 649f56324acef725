// Activities of the work domain: the child task of a recurring task's due point, written once, and the
// usage check of its rental and kilometre triggers.
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction } from '../db/orm.js';
import { recordEvent } from '../db/events.js';
import { RecurringTask } from '../db/entities/RecurringTask.js';
import { Rental } from '../db/entities/Rental.js';
import { Task } from '../db/entities/Task.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import type { RecurringTaskUsageCheck } from '../workflows/work.messages.js';
import { asActivity } from './support.js';

export interface WorkActivityDeps {
  orm: MikroORM;
}

/** The child of a due point, copied from the recurring task's taskData and taskObject (flushed, with its event). */
async function writeChild(
  em: EntityManager,
  parent: RecurringTask,
  dueKey: string,
  reason: string,
): Promise<Task> {
  const task = em.create(Task, {
    title: parent.title,
    description: parent.description ?? null,
    priority: parent.priority,
    branchId: parent.branchId,
    categoryId: parent.categoryId ?? null,
    tags: [...parent.tags],
    assignedTo: parent.assignedTo ?? null,
    assignedToName: parent.assignedToName ?? null,
    vehicleId: parent.vehicleId ?? null,
    recurringTaskId: parent.id,
    dueKey,
    createdBy: `recurring-task:${parent.id}`,
  });
  await em.flush();
  recordEvent(em, {
    type: 'TASK_CREATED',
    branchId: task.branchId,
    vehicleId: task.vehicleId ?? null,
    adminSubject: task.createdBy,
    description: task.title,
    payload: { taskId: task.id, taskState: task.taskState, recurringTaskId: parent.id, dueKey, reason },
  });
  await em.flush();
  return task;
}

/** The time trigger's child of a due point, once. */
async function createChild(
  orm: MikroORM,
  input: { tenant: string; recurringTaskId: number; dueKey: string },
): Promise<{ taskId: number | null }> {
  return inTenantTransaction(orm, input.tenant, async (em) => {
    const existing = await em.findOne(Task, { recurringTaskId: input.recurringTaskId, dueKey: input.dueKey });
    if (existing) return { taskId: existing.id };
    // A recurring task deleted after its schedule fired creates nothing.
    const parent = await em.findOne(RecurringTask, input.recurringTaskId);
    if (!parent) return { taskId: null };
    return { taskId: (await writeChild(em, parent, input.dueKey, 'TIME')).id };
  });
}

/** Ended rentals count toward a rental trigger. */
const endedRentalStates = ['ENDED', 'ENDED_NO_MOVEMENT'] as const;

/**
 * One usage check: moves the baseline to the last child's completion (with the odometer read now), then
 * creates the child when the vehicle's ended rentals or kilometres since the baseline reach a trigger.
 * Nothing is due while a child is open: the next due point counts from its completion.
 */
async function checkUsage(
  orm: MikroORM,
  input: { tenant: string; recurringTaskId: number },
): Promise<RecurringTaskUsageCheck> {
  return inTenantTransaction(orm, input.tenant, async (em) => {
    const parent = await em.findOne(RecurringTask, input.recurringTaskId, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    if (!parent || parent.vehicleId == null || (!parent.everyRentals && !parent.everyKm))
      return { outcome: 'GONE' };
    const vehicle = await em.findOne(Vehicle, parent.vehicleId);
    if (!vehicle) return { outcome: 'GONE' };
    const open = await em.count(Task, {
      recurringTaskId: parent.id,
      taskState: { $in: ['NEW', 'IN_PROGRESS'] },
    });
    if (open) return { outcome: 'WAITING' };
    const completed = await em.findOne(
      Task,
      { recurringTaskId: parent.id, taskState: 'COMPLETED', completedAt: { $gt: parent.baselineAt } },
      { orderBy: { completedAt: 'desc' } },
    );
    if (completed?.completedAt) {
      parent.baselineAt = completed.completedAt;
      parent.baselineOdometerKm = vehicle.odometerKm ?? null;
    } else if (parent.baselineOdometerKm == null && vehicle.odometerKm != null)
      parent.baselineOdometerKm = vehicle.odometerKm;
    const rentals = parent.everyRentals
      ? await em.count(Rental, {
          vehicle: vehicle.id,
          state: { $in: [...endedRentalStates] },
          endedAt: { $gt: parent.baselineAt },
        })
      : 0;
    const km =
      vehicle.odometerKm != null && parent.baselineOdometerKm != null
        ? vehicle.odometerKm - parent.baselineOdometerKm
        : 0;
    const reason =
      parent.everyRentals && rentals >= parent.everyRentals
        ? 'RENTALS'
        : parent.everyKm && km >= parent.everyKm
          ? 'KILOMETRES'
          : undefined;
    if (!reason) {
      await em.flush();
      return { outcome: 'WAITING' };
    }
    const dueKey = `usage:${parent.baselineAt.toISOString()}`;
    const existing = await em.findOne(Task, { recurringTaskId: parent.id, dueKey });
    const task = existing ?? (await writeChild(em, parent, dueKey, reason));
    return { outcome: 'CREATED', taskId: task.id, reason };
  });
}

/** Runs `work` once more when a concurrent writer won the unique (recurring task, due key) race. */
async function onceMore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return work();
  }
}

/** Activities of the recurring tasks' workflows. */
export function createWorkActivities({ orm }: WorkActivityDeps) {
  return {
    /** A usage check of a recurring task's rental and km triggers; creates the due child once per baseline. */
    async checkRecurringTaskUsage(input: {
      tenant: string;
      recurringTaskId: number;
    }): Promise<RecurringTaskUsageCheck> {
      return asActivity(() => onceMore(() => checkUsage(orm, input)));
    },

    /**
     * Creates the due point's child task once: a retry (or a second firing with the same due key) finds
     * the row the unique (recurring task, due key) constraint keeps single.
     */
    async createRecurringTaskChild(input: {
      tenant: string;
      recurringTaskId: number;
      dueKey: string;
    }): Promise<{ taskId: number | null }> {
      return asActivity(() => onceMore(() => createChild(orm, input)));
    },
  };
}
