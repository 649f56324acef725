// The rental's shape on bare Temporal, for bench/temporal-baseline.ts: one workflow per rental whose
// start runs one activity (the reservation), then START, PARK, DRIVE and END as Workflow Updates running one
// activity each. The activities do nothing; what remains is Temporal's own cost per lifecycle.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';

export const BASELINE_WORKFLOW_TYPE = 'baselineRentalWorkflow';

type BaselineState = 'PENDING' | 'RESERVATION' | 'ACTIVE' | 'ENDED';

/** Like fleetflow's `awaitReservation`: answers once the reservation activity has run. */
export const baselineAwaitReservation = defineUpdate<BaselineState>('awaitReservation');

export type BaselineOperation = 'START' | 'PARK' | 'DRIVE' | 'END';

/** Like fleetflow's `rentalOperation`: START, PARK, DRIVE or END, one activity each. */
export const baselineOperation = defineUpdate<BaselineState, [BaselineOperation]>('rentalOperation');

export interface BaselineActivities {
  noop(step: string): Promise<void>;
}

// Same timeouts as fleetflow's record activities; a no-op never retries in practice.
const { noop } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '20 seconds' });

export async function baselineRentalWorkflow(): Promise<BaselineState> {
  let state: BaselineState = 'PENDING';
  let busy = false;

  setHandler(baselineAwaitReservation, async () => {
    await condition(() => state !== 'PENDING');
    return state;
  });

  setHandler(
    baselineOperation,
    async (operation) => {
      busy = true;
      try {
        await noop(operation);
        state = operation === 'END' ? 'ENDED' : 'ACTIVE';
        return state;
      } finally {
        busy = false;
      }
    },
    {
      // The same kind of check fleetflow's validator makes (one operation at a time, valid transition).
      validator: (operation) => {
        if (busy) throw ApplicationFailure.nonRetryable('operation in progress', 'R202');
        const expected: BaselineState = operation === 'START' ? 'RESERVATION' : 'ACTIVE';
        if (state !== expected) throw ApplicationFailure.nonRetryable(`${operation} in ${state}`, 'R201');
      },
    },
  );

  await noop('reserve');
  state = 'RESERVATION';
  await condition(() => state === 'ENDED');
  await condition(allHandlersFinished);
  return state;
}
