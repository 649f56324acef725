// How the event partition workflow is called: its type, the platform schedule that starts it daily, its
// input and result. The worker's starter, the tests and the replay recorder import these without
// importing workflow code.
import type { ScheduleOptions } from '@temporalio/client';
import { EVENT_PARTITION_MONTHS_AHEAD } from '../domain/events.js';

/** The workflow's type name: one run per firing of the schedule. */
export const EVENT_PARTITIONS_WORKFLOW_TYPE = 'eventPartitionsWorkflow';

/**
 * `event-partitions`: the platform's one schedule (partitions belong to the table, not to a tenant) and
 * the prefix of its runs' ids (Temporal appends each firing's time).
 */
export const EVENT_PARTITIONS_SCHEDULE_ID = 'event-partitions';

/** How often the schedule fires. */
export const EVENT_PARTITIONS_INTERVAL = '1 day';

/** What a run is asked to do: the partitions of the current month and of this many months after it. */
export interface EventPartitionsInput {
  monthsAhead: number;
}

/** What the activity is asked: the months from `asOf`'s (the workflow's clock) to `monthsAhead` later. */
export interface EnsureEventPartitionsInput {
  asOf: string;
  monthsAhead: number;
}

/** What a run did. */
export interface EventPartitionsResult {
  /** The partitions it created (none when they existed). */
  created: string[];
  /** Events moved from the default partition into the created partitions. */
  movedEvents: number;
  /** Where the created-ahead partitions end (exclusive). */
  horizon: string;
}

/**
 * The daily schedule: runs do not overlap (SKIP), a firing missed while the cluster was down is caught up
 * within a day, and a run that cannot finish in an hour is abandoned (the next day's run does the work).
 */
export function eventPartitionsScheduleOptions(
  taskQueue: string,
  monthsAhead = EVENT_PARTITION_MONTHS_AHEAD,
): ScheduleOptions {
  return {
    scheduleId: EVENT_PARTITIONS_SCHEDULE_ID,
    spec: { intervals: [{ every: EVENT_PARTITIONS_INTERVAL }] },
    action: {
      type: 'startWorkflow',
      workflowType: EVENT_PARTITIONS_WORKFLOW_TYPE,
      workflowId: EVENT_PARTITIONS_SCHEDULE_ID,
      taskQueue,
      args: [{ monthsAhead } satisfies EventPartitionsInput],
      workflowExecutionTimeout: '1 hour',
    },
    policies: { overlap: 'SKIP', catchupWindow: '1 day' },
    memo: { monthsAhead },
  };
}
