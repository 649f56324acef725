// The work domain's workflows: the due workflow of a recurring task's time trigger, started by its
// Temporal Schedule at each due point, and the usage workflow watching its rental and kilometre triggers;
// each due point creates its child task exactly once.
import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { createWorkActivities } from '../activities/work.js';
import type { RecurringTaskDueInput, RecurringTaskUsageInput } from './work.messages.js';

type WorkActivities = ReturnType<typeof createWorkActivities>;

const activities = proxyActivities<WorkActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One due point of a recurring task: creates its child task. The workflow id (the schedule's prefix plus
 * the scheduled time) is the due key, so a retried or repeated firing creates no second child.
 */
export async function recurringTaskDueWorkflow(
  input: RecurringTaskDueInput,
): Promise<{ taskId: number | null }> {
  return activities.createRecurringTaskChild({ ...input, dueKey: workflowInfo().workflowId });
}

/**
 * Watches a recurring task's usage triggers: every interval one activity counts the vehicle's ended
 * rentals and kilometres since the baseline and creates the due child (once per baseline). Ends when the
 * recurring task is deleted or keeps no usage trigger; continues as new when the history grows long.
 */
export async function recurringTaskUsageWorkflow(input: RecurringTaskUsageInput): Promise<void> {
  for (;;) {
    const check = await activities.checkRecurringTaskUsage({
      tenant: input.tenant,
      recurringTaskId: input.recurringTaskId,
    });
    if (check.outcome === 'GONE') return;
    await sleep(input.checkIntervalSeconds * 1000);
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof recurringTaskUsageWorkflow>(input);
  }
}
