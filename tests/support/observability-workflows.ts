// Test-only workflows for tests/observability.test.ts (bundled into the workflow sandbox). The
// activities they call are implemented in the test file.
import { condition, continueAsNew, log, proxyActivities, workflowInfo } from '@temporalio/workflow';

export interface ObservabilityTestActivities {
  /** Logs through the activity Context logger and answers a greeting. */
  greet(name: string): Promise<string>;
  /** Throws a non-retryable ApplicationFailure of that type. */
  refuse(type: string): Promise<void>;
  /** Throws a plain (retryable) error. */
  crash(): Promise<void>;
}

const activities = proxyActivities<ObservabilityTestActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '10 milliseconds', maximumAttempts: 2 },
});

export async function greetingWorkflow(name: string): Promise<string> {
  log.info('greeting workflow started', { person: name });
  return await activities.greet(name);
}

/** Fails with the activity's refusal (an ActivityFailure whose cause carries the type). */
export async function refusingWorkflow(type: string): Promise<void> {
  await activities.refuse(type);
}

export async function crashingWorkflow(): Promise<void> {
  await activities.crash();
}

export async function continuingWorkflow(iteration: number): Promise<number> {
  if (iteration === 0) await continueAsNew<typeof continuingWorkflow>(iteration + 1);
  return workflowInfo().continuedFromExecutionRunId ? iteration : -1;
}

export async function waitingWorkflow(): Promise<void> {
  await condition(() => false);
}
