// Demo and test data of the work domain: three task categories, an inspection template, tasks in each
// operator-reachable state (NEW, IN_PROGRESS, COMPLETED) and two recurring tasks (every Monday, every
// 500 km). The open tasks are branch tasks without a vehicle, so the vehicles' open-task views keep what
// the fleet tests expect; the completed one names a vehicle.
import type { EntityManager } from '@mikro-orm/postgresql';
import { RecurringTask } from '../entities/RecurringTask.js';
import { Task } from '../entities/Task.js';
import { TaskCategory } from '../entities/TaskCategory.js';
import { TaskTemplate } from '../entities/TaskTemplate.js';
import { Vehicle } from '../entities/Vehicle.js';
import type { DomainSeed, SeedBoard } from './board.js';

/** Categories, a template and a task per state on the tenant's first vehicles; runs after the seed's flush. */
export async function seedWork(tx: EntityManager, tenant: string): Promise<void> {
  const [inspection, cleaning] = ['Inspection', 'Cleaning', 'Repair'].map((name) =>
    tx.create(TaskCategory, { tenant, name, description: null }),
  );
  await tx.flush();
  tx.create(TaskTemplate, {
    tenant,
    name: 'Weekly inspection',
    title: 'Inspect brakes, lights and tyres',
    description: 'Check the brakes, the lights and the tyre pressure; report damages found.',
    priority: 'NORMAL',
    categoryId: inspection!.id,
    tags: ['inspection'],
  });
  const vehicle = await tx.findOne(Vehicle, { tenant }, { filters: false, orderBy: { id: 'asc' } });
  if (!vehicle) return;
  const base = { tenant, branchId: vehicle.branch.id, createdBy: 'seed' };
  tx.create(Task, {
    ...base,
    title: 'Clean the helmets at the depot',
    priority: 'LOW',
    categoryId: cleaning!.id,
    tags: ['cleaning'],
  });
  tx.create(Task, {
    ...base,
    title: 'Inspect the charging cabinet',
    priority: 'HIGH',
    taskState: 'IN_PROGRESS',
    categoryId: inspection!.id,
    assignedTo: 'seed-crew',
    assignedToName: 'Field Crew',
  });
  const done = new Date(Date.now() - 24 * 3600 * 1000);
  tx.create(Task, {
    ...base,
    vehicleId: vehicle.id,
    title: 'Swap the battery',
    priority: 'NORMAL',
    taskState: 'COMPLETED',
    category: 'CHARGING',
    assignedTo: 'seed-crew',
    assignedToName: 'Field Crew',
    completedAt: done,
    completedBy: 'seed-crew',
  });
  // Recurring: an inspection every Monday and a service every 500 km of the first vehicle. The seed writes
  // the rows only; the worker's recurring-task starter gives them their schedule and usage workflow.
  const now = new Date();
  tx.create(RecurringTask, {
    ...base,
    title: 'Weekly inspection of the depot fleet',
    priority: 'NORMAL',
    categoryId: inspection!.id,
    tags: ['inspection'],
    daysOfWeek: ['MONDAY'],
    timeOfDay: '07:00',
    timezone: 'Europe/Berlin',
    baselineAt: now,
  });
  tx.create(RecurringTask, {
    ...base,
    title: 'Service check every 500 km',
    priority: 'HIGH',
    categoryId: inspection!.id,
    vehicleId: vehicle.id,
    everyKm: 500,
    baselineAt: now,
    baselineOdometerKm: vehicle.odometerKm ?? null,
  });
}

/** Task categories, a template and tasks, once the vehicles exist (after the flush). */
export const workSeed: DomainSeed = {
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedWork(tx, board.tenantId),
};
