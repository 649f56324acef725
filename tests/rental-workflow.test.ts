// The rental workflow on the time-skipping test server, with real activities: PostgreSQL, MQTT broker
// and simulated vehicles. A 15-minute reservation expires in a few seconds of wall time.
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Event, Rental, Vehicle, VehicleCommand } from '../db/entities/index.js';
import { tenantEm } from '../db/orm.js';
import {
  awaitReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalStatusQuery,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
  type RentalWorkflowInput,
} from '../workflows/rental.messages.js';
import type { rentalWorkflow } from '../workflows/rental.js';
import { startTestBackend, type TestBackend } from './support/stack.js';

let backend: TestBackend;
let nextRentalId = 1;

beforeAll(async () => {
  backend = await startTestBackend({ timeSkipping: true });
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

async function vehicleOf(index: number) {
  const vehicles = await tenantEm(backend.orm, backend.seed.tenant).find(
    Vehicle,
    {},
    { orderBy: { id: 'asc' } },
  );
  return vehicles[index]!;
}

async function reserve(
  vehicleIndex: number,
  customerIndex: number,
): Promise<{ handle: WorkflowHandle<typeof rentalWorkflow>; input: RentalWorkflowInput }> {
  const vehicle = await vehicleOf(vehicleIndex);
  const input: RentalWorkflowInput = {
    tenant: backend.seed.tenant,
    rentalId: nextRentalId++,
    branchId: vehicle.branch.id,
    vehicleId: vehicle.id,
    customerId: backend.seed.customerIds[customerIndex]!,
    requestedBy: 'client:test',
    startImmediately: false,
  };
  const handle = await backend.client.workflow.start<typeof rentalWorkflow>(
    RENTAL_WORKFLOW_TYPE,
    rentalWorkflowStartOptions(input, backend.taskQueue),
  );
  return { handle, input };
}

async function failureType(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (error as WorkflowUpdateFailedError).cause;
    return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
  }
  throw new Error('expected the update to fail');
}

const rentalRow = (rentalId: number) =>
  tenantEm(backend.orm, backend.seed.tenant).findOneOrFail(Rental, rentalId);
const eventTypes = async (rentalId: number) =>
  (
    await tenantEm(backend.orm, backend.seed.tenant).find(Event, { rentalId }, { orderBy: { id: 'asc' } })
  ).map((event) => event.type);

test('an untouched reservation expires after rental.reservation minutes (time-skipped)', async () => {
  const { handle, input } = await reserve(0, 0);
  const reserved = await handle.executeUpdate(awaitReservationUpdate);
  expect(reserved.state).toBe('RESERVATION');
  expect(reserved.reservationExpiresAtMs! - reserved.reservedAtMs!).toBe(15 * 60_000);
  expect((await vehicleOf(0)).rentalState).toBe('RESERVATION');

  const startedAt = Date.now();
  const result = await handle.result(); // the test server skips the 15 minutes
  expect(Date.now() - startedAt).toBeLessThan(10_000);
  expect(result.state).toBe('EXPIRED');
  expect((await rentalRow(input.rentalId)).state).toBe('EXPIRED');
  expect((await vehicleOf(0)).rentalState).toBe('AVAILABLE');
  expect(await eventTypes(input.rentalId)).toEqual(['RENTAL_RESERVATION', 'RENTAL_RESERVATION_EXPIRED']);
});

test('START unlocks the vehicle over MQTT, END locks it; the timer no longer applies once ACTIVE', async () => {
  const { handle, input } = await reserve(1, 1);
  await handle.executeUpdate(awaitReservationUpdate);
  const started = await handle.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'START', requestedBy: 'client:test' }],
  });
  expect(started.state).toBe('ACTIVE');
  expect(backend.simulator.getVehicle(String(input.vehicleId))?.locked).toBe(false);
  await backend.testEnv!.sleep('1 hour');
  expect((await handle.query(rentalStatusQuery)).state).toBe('ACTIVE');

  expect(
    await failureType(
      handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] }),
    ),
  ).toBe('R201');
  const ended = await handle.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'END', requestedBy: 'client:test' }],
  });
  expect(ended.state).toBe('ENDED');
  expect(backend.simulator.getVehicle(String(input.vehicleId))?.locked).toBe(true);
  expect((await handle.result()).state).toBe('ENDED');
  const row = await rentalRow(input.rentalId);
  expect(row.startedAt).toBeTruthy();
  expect(row.endedAt).toBeTruthy();
  expect(await eventTypes(input.rentalId)).toEqual([
    'RENTAL_RESERVATION',
    'VEHICLE_COMMAND_UNLOCK',
    'RENTAL_START',
    'VEHICLE_COMMAND_LOCK',
    'RENTAL_END',
  ]);
});

test('a vehicle that refuses to unlock fails START with R173 and leaves the reservation intact', async () => {
  const { handle, input } = await reserve(3, 2);
  await handle.executeUpdate(awaitReservationUpdate);
  backend.simulator.setBehaviour(String(input.vehicleId), 'REFUSE');
  try {
    expect(
      await failureType(
        handle.executeUpdate(rentalOperationUpdate, {
          args: [{ operationType: 'START', requestedBy: 'client:test' }],
        }),
      ),
    ).toBe('R173');
  } finally {
    backend.simulator.setBehaviour(String(input.vehicleId), 'NORMAL');
  }
  expect((await handle.query(rentalStatusQuery)).state).toBe('RESERVATION');
  const renewed = await handle.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'RENEW_RESERVATION', requestedBy: 'client:test' }],
  });
  expect(renewed.reservationExpiresAtMs).toBeGreaterThan(renewed.reservedAtMs! + 15 * 60_000 - 1);
  const cancelled = await handle.executeUpdate(cancelReservationUpdate, {
    args: [{ requestedBy: 'client:test' }],
  });
  expect(cancelled.state).toBe('CANCELLED');
  expect((await vehicleOf(3)).rentalState).toBe('AVAILABLE');
});

test('a customer with an open rental cannot reserve a second vehicle (R102); the workflow ends REJECTED', async () => {
  const first = await reserve(4, 3);
  await first.handle.executeUpdate(awaitReservationUpdate);
  const second = await reserve(5, 3);
  expect(await failureType(second.handle.executeUpdate(awaitReservationUpdate))).toBe('R102');
  expect(
    (await first.handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] }))
      .state,
  ).toBe('CANCELLED');
  expect((await second.handle.result()).state).toBe('REJECTED');
});

test('a silent vehicle is retried with the same command id, then START fails with R173', async () => {
  const { handle, input } = await reserve(6, 0);
  await handle.executeUpdate(awaitReservationUpdate);
  backend.simulator.setBehaviour(String(input.vehicleId), 'SILENT');
  try {
    const start = handle.executeUpdate(rentalOperationUpdate, {
      args: [{ operationType: 'START', requestedBy: 'client:test' }],
    });
    expect(await failureType(start)).toBe('R173');
  } finally {
    backend.simulator.setBehaviour(String(input.vehicleId), 'NORMAL');
  }
  const commands = await tenantEm(backend.orm, backend.seed.tenant).find(VehicleCommand, {
    rentalId: input.rentalId,
  });
  expect(commands).toHaveLength(1); // both attempts used one command id
  expect(commands[0]).toMatchObject({ command: 'UNLOCK', status: 'TIMEOUT' });
  expect(backend.simulator.getVehicle(String(input.vehicleId))?.locked).toBe(true);
  expect(
    (await handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] })).state,
  ).toBe('CANCELLED');
});
