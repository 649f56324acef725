// How the recurring tasks' schedules start their due workflow: the schedule id, the workflow's type name,
// its input and the schedule's options. The API and the tests import these without importing workflow code.
import type { ScheduleOptions } from '@temporalio/client';
import { parseTimeOfDay, type Weekday } from '../domain/work.js';
import { TenantIdKey, BranchIdKey } from './search-attributes.js';

/** The due workflow's type name: each firing of a recurring task's schedule starts it. */
export const RECURRING_TASK_DUE_WORKFLOW_TYPE = 'recurringTaskDueWorkflow';

/** `recurring-task:{tenant}:{id}`: one Temporal Schedule per recurring task, readable in the Temporal UI. */
export function recurringTaskScheduleId(tenant: string, recurringTaskId: number): string {
  return `recurring-task:${tenant}:${recurringTaskId}`;
}

/**
 * `recurring-task-due:{tenant}:{id}`: the due workflows' id; Temporal appends each firing's scheduled
 * time, so every due point has its own id, which the child task records as its due key.
 */
export function recurringTaskDueWorkflowId(tenant: string, recurringTaskId: number): string {
  return `recurring-task-due:${tenant}:${recurringTaskId}`;
}

/** What each firing of the schedule hands the due workflow. */
export interface RecurringTaskDueInput {
  tenant: string;
  recurringTaskId: number;
}

/** When a time-based recurring task is due: weekdays at a local time of day. */
export interface RecurringTaskTiming {
  branchId: number;
  daysOfWeek: readonly Weekday[];
  timeOfDay: string;
  timezone: string;
}

/** How a recurring task's schedule treats overlapping and missed firings (see below). */
export const recurringTaskSchedulePolicies = { overlap: 'ALLOW_ALL', catchupWindow: '1 day' } as const;

/**
 * The schedule of a recurring task: a calendar on its weekdays and time in its time zone, starting the
 * due workflow; a firing missed while the cluster was down is caught up within a day. Every firing runs,
 * also while an earlier one still runs (overlap ALLOW_ALL): each due point has its own workflow id and
 * child, and a catch-up or backfill of several due points at once must create each of them (SKIP kept
 * one of a backfilled month's five).
 */
export function recurringTaskScheduleOptions(
  tenant: string,
  recurringTaskId: number,
  timing: RecurringTaskTiming,
  taskQueue: string,
): ScheduleOptions {
  const { hour, minute } = parseTimeOfDay(timing.timeOfDay);
  return {
    scheduleId: recurringTaskScheduleId(tenant, recurringTaskId),
    spec: {
      calendars: [{ dayOfWeek: [...timing.daysOfWeek], hour, minute, comment: 'recurring task due' }],
      timezone: timing.timezone,
    },
    action: {
      type: 'startWorkflow',
      workflowType: RECURRING_TASK_DUE_WORKFLOW_TYPE,
      workflowId: recurringTaskDueWorkflowId(tenant, recurringTaskId),
      taskQueue,
      args: [{ tenant, recurringTaskId } satisfies RecurringTaskDueInput],
      workflowExecutionTimeout: '1 hour',
      typedSearchAttributes: [
        { key: TenantIdKey, value: tenant },
        { key: BranchIdKey, value: String(timing.branchId) },
      ],
    },
    policies: recurringTaskSchedulePolicies,
    typedSearchAttributes: [
      { key: TenantIdKey, value: tenant },
      { key: BranchIdKey, value: String(timing.branchId) },
    ],
    memo: { recurringTaskId },
  };
}

/** The usage workflow's type name: it watches a recurring task's rental and kilometre triggers. */
export const RECURRING_TASK_USAGE_WORKFLOW_TYPE = 'recurringTaskUsageWorkflow';

/** How often the usage workflow reads the vehicle's ended rentals and odometer (seconds). */
export const RECURRING_TASK_USAGE_CHECK_SECONDS = 300;

/** `recurring-task-usage:{tenant}:{id}`: one usage workflow per recurring task with a rental or km trigger. */
export function recurringTaskUsageWorkflowId(tenant: string, recurringTaskId: number): string {
  return `recurring-task-usage:${tenant}:${recurringTaskId}`;
}

/** What the usage workflow watches, and how often it looks. */
export interface RecurringTaskUsageInput {
  tenant: string;
  recurringTaskId: number;
  checkIntervalSeconds: number;
}

/** How the API starts a usage workflow: a readable id, one at a time per recurring task. */
export function recurringTaskUsageStartOptions(
  tenant: string,
  recurringTaskId: number,
  branchId: number,
  taskQueue: string,
) {
  return {
    workflowId: recurringTaskUsageWorkflowId(tenant, recurringTaskId),
    taskQueue,
    args: [{ tenant, recurringTaskId, checkIntervalSeconds: RECURRING_TASK_USAGE_CHECK_SECONDS }] as [
      RecurringTaskUsageInput,
    ],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    typedSearchAttributes: [
      { key: TenantIdKey, value: tenant },
      { key: BranchIdKey, value: String(branchId) },
    ],
  };
}

/** What one usage check found: the recurring task is gone (or has no usage trigger), nothing is due, or a child was created. */
export interface RecurringTaskUsageCheck {
  outcome: 'GONE' | 'WAITING' | 'CREATED';
  taskId?: number;
  reason?: 'RENTALS' | 'KILOMETRES';
}
