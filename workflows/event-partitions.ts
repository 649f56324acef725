// The event table's partition keeper: each firing of the daily `event-partitions` schedule runs one
// workflow that asks its activity for the partitions from the current month (on the workflow's clock) to
// `monthsAhead` months later. The activity is idempotent: a month whose partition exists costs nothing.
import { proxyActivities } from '@temporalio/workflow';
import type { createEventPartitionActivities } from '../activities/event-partitions.js';
import type { EventPartitionsInput, EventPartitionsResult } from './event-partitions.messages.js';

const { ensureEventPartitionsAhead } = proxyActivities<ReturnType<typeof createEventPartitionActivities>>({
  // Creating a partition is a catalog change and at most a small move out of the default partition.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/** Creates the event table's partitions ahead of time; started daily by the `event-partitions` schedule. */
export async function eventPartitionsWorkflow(input: EventPartitionsInput): Promise<EventPartitionsResult> {
  return ensureEventPartitionsAhead({ asOf: new Date().toISOString(), monthsAhead: input.monthsAhead });
}
