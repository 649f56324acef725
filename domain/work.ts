// Pure rules of the work domain: task priorities and states, the task state table (which moves the
// operator's PATCH and the bulk completion may make), the legacy category enum and the category name rule.
/** A task's priority (the spec's taskData.priority). */
export const taskPriorities = ['LOW', 'NORMAL', 'HIGH', 'SEVERE'] as const;
export type TaskPriority = (typeof taskPriorities)[number];

/** A task's state (the spec's taskData.taskState); RECURRING belongs to a recurring task's parent only. */
export const taskStates = ['NEW', 'IN_PROGRESS', 'RECURRING', 'COMPLETED'] as const;
export type TaskState = (typeof taskStates)[number];

/**
 * The deprecated category enum older clients send instead of categoryId (the spec names the enum but not
 * its values; these are the kinds of work the fleet crews record). categoryId wins when both are sent.
 */
export const legacyTaskCategories = [
  'CLEANING',
  'CHARGING',
  'REPAIR',
  'INSPECTION',
  'RELOCATION',
  'OTHER',
] as const;
export type LegacyTaskCategory = (typeof legacyTaskCategories)[number];

/**
 * The moves a task may make, from state to the states it may go to. The spec names NEW → IN_PROGRESS →
 * COMPLETED; the project adds: NEW → COMPLETED (done at once), IN_PROGRESS → NEW (handed back),
 * COMPLETED → IN_PROGRESS (reopened, the completion is cleared). RECURRING is never entered or left by
 * an operator's edit: it marks a recurring task's parent.
 */
export const taskTransitions: Readonly<Record<TaskState, readonly TaskState[]>> = {
  NEW: ['IN_PROGRESS', 'COMPLETED'],
  IN_PROGRESS: ['NEW', 'COMPLETED'],
  COMPLETED: ['IN_PROGRESS'],
  RECURRING: [],
};

/** Why a task may not move from `from` to `to` (answered as TK100), or undefined when it may (staying is no move). */
export function taskTransitionRefusal(from: TaskState, to: TaskState): string | undefined {
  if (from === to && from !== 'RECURRING') return undefined;
  return taskTransitions[from].includes(to)
    ? undefined
    : `a ${from} task cannot become ${to} (allowed: ${taskTransitions[from].join(', ') || 'none'})`;
}

/**
 * Why the bulk completion refuses a task (TK100 for a RECURRING parent), or undefined; a COMPLETED task
 * stays as it is (completing twice is no error, so a repeated request answers the same).
 */
export function taskCompletionRefusal(state: TaskState): string | undefined {
  return state === 'COMPLETED' ? undefined : taskTransitionRefusal(state, 'COMPLETED');
}

/** Task category names: letters, digits and spaces only, at least one letter or digit (spec, Limits 4). */
export const taskCategoryNamePattern = '^[\\p{L}\\p{N} ]*[\\p{L}\\p{N}][\\p{L}\\p{N} ]*$';

/** Whether a category name follows the rule (the schema checks it; the seed and tests use this). */
export function isTaskCategoryName(name: string): boolean {
  return new RegExp(taskCategoryNamePattern, 'u').test(name);
}

/** The weekdays a time-based recurring task may fall on (Temporal's calendar names). */
export const weekdays = [
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
  'SUNDAY',
] as const;
export type Weekday = (typeof weekdays)[number];

/** A recurring task's time of day, HH:MM (24 h). */
export const timeOfDayPattern = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

/** Hour and minute of an HH:MM time of day. */
export function parseTimeOfDay(time: string): { hour: number; minute: number } {
  const [hour, minute] = time.split(':').map(Number);
  return { hour: hour!, minute: minute! };
}
