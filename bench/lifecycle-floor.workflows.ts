// The least a rental lifecycle of this spec asks of Temporal, for bench/lifecycle-floor.ts: the bare shape
// of bench/temporal-baseline.workflows.ts plus what fleetflow's processes must keep. The reservation is a
// local activity (its rows only), the rental's state is an `EntityState` search attribute for the ops in
// the Temporal UI, START, PARK, DRIVE and END are Updates running one activity each (the vehicle's command
// cannot hold the workflow task), and END's invoice is charged by a payment workflow of its own (payments
// retry for days) that runs one attempt and records its state too. What the activities do (rows in
// PostgreSQL, a command over MQTT, or nothing) is the bench's choice.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { EntityStateKey } from '../workflows/search-attributes.js';

export const FLOOR_RENTAL_WORKFLOW_TYPE = 'floorRentalWorkflow';
export const FLOOR_PAYMENT_WORKFLOW_TYPE = 'floorPaymentWorkflow';

type FloorState = 'PENDING' | 'RESERVATION' | 'ACTIVE' | 'PARKING' | 'ENDED';

export type FloorOperation = 'START' | 'PARK' | 'DRIVE' | 'END';

/** Like fleetflow's `awaitReservation`: answers once the reservation is recorded. */
export const floorAwaitReservation = defineUpdate<FloorState>('awaitReservation');

/** Like fleetflow's `rentalOperation`: one activity each, refused while another runs or out of order. */
export const floorOperation = defineUpdate<FloorState, [FloorOperation]>('rentalOperation');

/** The rental's and the payment's steps: what each does is the bench's (bench/lifecycle-floor.ts). */
export interface FloorActivities {
  reserve(rentalId: number): Promise<void>;
  operate(rentalId: number, operation: FloorOperation): Promise<void>;
  charge(rentalId: number): Promise<void>;
}

const { operate, charge } = proxyActivities<FloorActivities>({ startToCloseTimeout: '20 seconds' });
const { reserve } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '20 seconds' });

const nextState: Record<FloorOperation, FloorState> = {
  START: 'ACTIVE',
  PARK: 'PARKING',
  DRIVE: 'ACTIVE',
  END: 'ENDED',
};
const expectedState: Record<FloorOperation, FloorState> = {
  START: 'RESERVATION',
  PARK: 'ACTIVE',
  DRIVE: 'PARKING',
  END: 'ACTIVE',
};

/** One rental: the reservation, then the operations; END's payment starts from its activity. */
export async function floorRentalWorkflow(rentalId: number): Promise<FloorState> {
  let state: FloorState = 'PENDING';
  let busy = false;
  const moveTo = (next: FloorState) => {
    state = next;
    upsertSearchAttributes([{ key: EntityStateKey, value: next }]);
  };

  setHandler(floorAwaitReservation, async () => {
    await condition(() => state !== 'PENDING');
    return state;
  });
  setHandler(
    floorOperation,
    async (operation) => {
      busy = true;
      try {
        await operate(rentalId, operation);
        moveTo(nextState[operation]);
        return state;
      } finally {
        busy = false;
      }
    },
    {
      validator: (operation: FloorOperation) => {
        if (busy) throw ApplicationFailure.nonRetryable('operation in progress', 'R202');
        if (state !== expectedState[operation])
          throw ApplicationFailure.nonRetryable(`${operation} in ${state}`, 'R201');
      },
    },
  );

  await reserve(rentalId);
  moveTo('RESERVATION');
  await condition(() => state === 'ENDED');
  await condition(allHandlersFinished);
  return state;
}

/** One payment: one attempt that succeeds, and its state for the Temporal UI. */
export async function floorPaymentWorkflow(rentalId: number): Promise<'PAID'> {
  await charge(rentalId);
  upsertSearchAttributes([{ key: EntityStateKey, value: 'PAID' }]);
  return 'PAID';
}
