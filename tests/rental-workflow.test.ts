// The rental workflow on the time-skipping test server, with real activities: PostgreSQL, MQTT broker
// and simulated vehicles. A 15-minute reservation expires in a few seconds of wall time.
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Customer } from '../db/entities/Customer.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { Rental } from '../db/entities/Rental.js';
import { Setting } from '../db/entities/Setting.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCommand } from '../db/entities/VehicleCommand.js';
import { RENTAL_RESERVATION_SETTING_KEY, defaultReservationSettings } from '../domain/rental.js';
import { tenantEm } from '../db/orm.js';
import {
  awaitReservationUpdate,
  buyReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalStatusQuery,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
  type RentalWorkflowInput,
} from '../workflows/rental.messages.js';
import type { rentalWorkflow } from '../workflows/rental.js';
import { startTestBackend, type TestBackend } from './support/stack.js';
import { eventually } from './support/invoices.js';

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

/**
 * A fresh customer of the seeded tenant: no earlier reservations count against their allowance. With a
 * payment source, as the shipped start requirements ask (P104).
 */
async function newCustomer(): Promise<number> {
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const seeded = await em.findOneOrFail(Customer, backend.seed.customerIds[0]!);
  const customer = em.create(Customer, {
    tenant: seeded.tenant,
    email: `rider-${nextRentalId}-${Date.now()}@example.com`,
    firstName: 'Test',
    lastName: 'Rider',
    homeBusinessUnit: seeded.homeBusinessUnit,
  });
  em.create(PaymentSource, {
    tenant: seeded.tenant,
    customer,
    businessUnit: seeded.homeBusinessUnit!,
    type: 'CARD',
    provider: 'test',
    providerReference: `pm_rider_${nextRentalId}_${Date.now()}`,
    label: 'Visa •••• 4242',
  });
  await em.flush();
  return customer.id;
}

/** Changes the tenant-wide `rental.reservation` setting for one test. */
async function reservationSettings(change: Partial<typeof defaultReservationSettings>): Promise<void> {
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const setting = await em.findOneOrFail(Setting, { key: RENTAL_RESERVATION_SETTING_KEY });
  setting.value = { ...defaultReservationSettings, ...change };
  await em.flush();
}

async function reserve(
  vehicleIndex: number,
  customer: number | { customerId: number },
): Promise<{ handle: WorkflowHandle<typeof rentalWorkflow>; input: RentalWorkflowInput }> {
  const vehicle = await vehicleOf(vehicleIndex);
  const input: RentalWorkflowInput = {
    tenant: backend.seed.tenant,
    rentalId: nextRentalId++,
    branchId: vehicle.branch.id,
    vehicleId: vehicle.id,
    customerId: typeof customer === 'number' ? backend.seed.customerIds[customer]! : customer.customerId,
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
  backend.simulator.ride(String(input.vehicleId), 400);

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
  // The rental's steps and commands; its invoice is billed after END answered (INVOICE_BILLED, once), and
  // its payment's events may follow on the same timeline.
  const types = await eventually(
    async () => {
      const now = await eventTypes(input.rentalId);
      return now.includes('INVOICE_BILLED') ? now : undefined;
    },
    60_000,
    'the ended rental billed',
  );
  expect(types.filter((type) => /^(RENTAL|VEHICLE)_/.test(type))).toEqual([
    'RENTAL_RESERVATION',
    'VEHICLE_COMMAND_UNLOCK',
    'RENTAL_START',
    'VEHICLE_COMMAND_LOCK',
    'RENTAL_END',
  ]);
  expect(types.filter((type) => type === 'INVOICE_BILLED')).toHaveLength(1);
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

const operate = (
  handle: WorkflowHandle<typeof rentalWorkflow>,
  operationType: 'START' | 'END' | 'PARK' | 'DRIVE' | 'RENEW_RESERVATION',
) => handle.executeUpdate(rentalOperationUpdate, { args: [{ operationType, requestedBy: 'client:test' }] });

test('a started rental that ends where it began, without distance, is ENDED_NO_MOVEMENT', async () => {
  const { handle, input } = await reserve(7, { customerId: await newCustomer() });
  await handle.executeUpdate(awaitReservationUpdate);
  await operate(handle, 'START');
  backend.simulator.ride(String(input.vehicleId), 10); // below 50 m and 0.1 km
  expect((await operate(handle, 'END')).state).toBe('ENDED_NO_MOVEMENT');
  const row = await rentalRow(input.rentalId);
  expect(row.state).toBe('ENDED_NO_MOVEMENT');
  // It ended where it began: in its own branch, named like every ended rental's end branch.
  expect(row.endBranch?.id).toBe(row.branch.id);
  expect((await vehicleOf(7)).rentalState).toBe('AVAILABLE');
});

test('renewals extend the free reservation up to the allowance of the window, then R203; a new reservation in the window is R106 until it resets', async () => {
  const customerId = await newCustomer();
  const { handle, input } = await reserve(8, { customerId });
  const reserved = await handle.executeUpdate(awaitReservationUpdate);
  expect(reserved.allowanceMinutes).toBe(30);
  await backend.testEnv!.sleep('10 minutes');
  const renewed = await operate(handle, 'RENEW_RESERVATION');
  expect(renewed.reservationExpiresAtMs! - reserved.reservedAtMs!).toBeGreaterThanOrEqual(
    25 * 60_000 - 1_000,
  );
  await backend.testEnv!.sleep('10 minutes');
  const capped = await operate(handle, 'RENEW_RESERVATION');
  expect(capped.reservationExpiresAtMs! - reserved.reservedAtMs!).toBe(30 * 60_000);
  expect(await failureType(operate(handle, 'RENEW_RESERVATION'))).toBe('R203');
  // Skip exactly past the expiry and read the outcome without `result()`: awaiting a result lets the
  // test server skip time freely (years, with no timer left), which would empty the reset window.
  await backend.testEnv!.sleep('11 minutes');
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  expect((await rentalRow(input.rentalId)).state).toBe('EXPIRED');
  expect((await rentalRow(input.rentalId)).reservationExpiresAt!.getTime() - reserved.reservedAtMs!).toBe(
    30 * 60_000,
  );

  // 30 free minutes used within the 60-minute window: nothing left until it resets.
  const refused = await reserve(9, { customerId });
  expect(await failureType(refused.handle.executeUpdate(awaitReservationUpdate))).toBe('R106');
  await backend.testEnv!.sleep('61 minutes');
  const again = await reserve(9, { customerId });
  expect((await again.handle.executeUpdate(awaitReservationUpdate)).allowanceMinutes).toBe(30);
  await again.handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] });
});

test('bought reservation minutes extend the expiry and are a RESERVATION_PAID phase; the purchase is capped (R205)', async () => {
  const { handle, input } = await reserve(10, { customerId: await newCustomer() });
  const reserved = await handle.executeUpdate(awaitReservationUpdate);
  const bought = await handle.executeUpdate(buyReservationUpdate, {
    args: [{ minutes: 10, requestedBy: 'client:test' }],
  });
  expect(bought.reservationExpiresAtMs! - reserved.reservedAtMs!).toBe(25 * 60_000);
  expect(bought.paidReservationMinutes).toBe(10);
  await expect(
    failureType(
      handle.executeUpdate(buyReservationUpdate, { args: [{ minutes: 200, requestedBy: 'client:test' }] }),
    ),
  ).resolves.toBe('R205');
  await backend.testEnv!.sleep('20 minutes'); // past the free 15, inside the bought 10
  expect((await handle.query(rentalStatusQuery)).state).toBe('RESERVATION');
  await operate(handle, 'START');
  backend.simulator.ride(String(input.vehicleId), 300);
  await operate(handle, 'PARK');
  await operate(handle, 'DRIVE');
  await operate(handle, 'END');
  const row = await rentalRow(input.rentalId);
  expect(row.paidReservationMinutes).toBe(10);
  expect(row.phases.map((phase) => phase.phase)).toEqual([
    'RESERVATION_FREE',
    'RESERVATION_PAID',
    'DRIVING',
    'PARKING',
    'DRIVING',
  ]);
  const [free, paid] = row.phases;
  expect(Date.parse(free!.endedAt!) - Date.parse(free!.startedAt)).toBe(15 * 60_000);
  expect(paid!.startedAt).toBe(free!.endedAt);
  expect(row.phases.every((phase) => phase.endedAt !== null)).toBe(true);
  expect(await eventTypes(input.rentalId)).toContain('RENTAL_BUY_RESERVATION');
  // END priced the whole rental with the version pinned at reservation and issued its invoice.
  expect(row.pricingBundleVersion).toBeTruthy();
  expect(row.priceV4!.pricingBundleVersion.pricingBundleVersionId).toBe(row.pricingBundleVersion!.id);
  const billingEm = tenantEm(backend.orm, backend.seed.tenant);
  const invoice = await billingEm.findOneOrFail(Invoice, { rental: input.rentalId });
  expect(invoice.totalGross).toBe(row.priceV4!.totals.gross);
  const lines = await billingEm.find(InvoiceLine, { invoice: invoice.id });
  expect(lines.map((line) => line.phase)).toContain('RESERVATION_PAID');
});

test('blockRentalForSameVehicleMinutes keeps a customer from re-renting the vehicle they just returned (R107)', async () => {
  await reservationSettings({ blockRentalForSameVehicleMinutes: 30 });
  try {
    const customerId = await newCustomer();
    const first = await reserve(11, { customerId });
    await first.handle.executeUpdate(awaitReservationUpdate);
    await operate(first.handle, 'START');
    backend.simulator.ride(String(first.input.vehicleId), 300);
    await operate(first.handle, 'END');
    const blocked = await reserve(11, { customerId });
    expect(await failureType(blocked.handle.executeUpdate(awaitReservationUpdate))).toBe('R107');
    // Another customer may take it at once; the same customer after the block.
    const other = await reserve(11, { customerId: await newCustomer() });
    await other.handle.executeUpdate(awaitReservationUpdate);
    await other.handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] });
    await backend.testEnv!.sleep('31 minutes');
    const later = await reserve(11, { customerId });
    expect((await later.handle.executeUpdate(awaitReservationUpdate)).state).toBe('RESERVATION');
    await later.handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] });
  } finally {
    await reservationSettings({});
  }
});

/** Gives the seeded branch its own row of a setting for one test; the returned function removes it. */
async function branchSetting(key: string, value: Record<string, unknown>): Promise<() => Promise<void>> {
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const template = await em.findOneOrFail(Setting, { key: RENTAL_RESERVATION_SETTING_KEY });
  const row = em.create(Setting, {
    tenant: template.tenant,
    key,
    name: `${key} (test)`,
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [backend.seed.branchId],
    value,
  });
  await em.flush();
  return async () => {
    // Through the unit of work, as every settings write: the read cache sees it and forgets the key.
    await em.remove(row).flush();
  };
}

test('a failed end requirement refuses END with its code and leaves the vehicle unlocked; an operator override ends it and records what was overridden', async () => {
  const removeSetting = await branchSetting('rental.requirements', {
    default: { start: [], end: ['POWER_STATE_OFF', 'IS_CHARGING'] },
  });
  try {
    const { handle, input } = await reserve(12, { customerId: await newCustomer() });
    await handle.executeUpdate(awaitReservationUpdate);
    await operate(handle, 'START');
    backend.simulator.ride(String(input.vehicleId), 300);
    const refused = await failureType(operate(handle, 'END'));
    expect(['RQ206', 'RQ211']).toContain(refused);
    expect((await handle.query(rentalStatusQuery)).state).toBe('ACTIVE');
    expect(backend.simulator.getVehicle(String(input.vehicleId))?.locked).toBe(false); // no LOCK was sent

    const ended = await handle.executeUpdate(rentalOperationUpdate, {
      args: [{ operationType: 'END', adminOverride: true, requestedBy: 'client:test' }],
    });
    expect(ended.state).toBe('ENDED');
    const row = await rentalRow(input.rentalId);
    expect(row.overriddenEndRequirements).toEqual(expect.arrayContaining(['IS_CHARGING']));
    const types = await eventTypes(input.rentalId);
    expect(types.filter((type) => type === 'RENTAL_REQUIREMENTS_END_CHECK')).toHaveLength(2);
  } finally {
    await removeSetting();
  }
});

test('start requirements are checked at reservation: a failing one refuses it with its code and leaves the check on the timeline', async () => {
  const removeSetting = await branchSetting('rental.requirements', {
    default: { start: ['PHONE_VERIFIED'], end: [] },
  });
  try {
    const customerId = await newCustomer();
    const { handle } = await reserve(13, { customerId });
    expect(await failureType(handle.executeUpdate(awaitReservationUpdate))).toBe('RQ102');
    const checks = await tenantEm(backend.orm, backend.seed.tenant).find(Event, {
      customerId,
      type: 'RENTAL_REQUIREMENTS_START_CHECK',
    });
    expect(checks).toHaveLength(1);
    expect(checks[0]!.payload).toMatchObject({ passed: false, code: 'RQ102' });
  } finally {
    await removeSetting();
  }
});

test('a second operation while one runs is the concurrent-processing rejection (R202)', async () => {
  const { handle, input } = await reserve(14, { customerId: await newCustomer() });
  await handle.executeUpdate(awaitReservationUpdate);
  backend.simulator.setBehaviour(String(input.vehicleId), 'SILENT');
  try {
    const first = operate(handle, 'START');
    const deadline = Date.now() + 5_000;
    while ((await handle.query(rentalStatusQuery)).operationInProgress !== 'START' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await failureType(operate(handle, 'RENEW_RESERVATION'))).toBe('R202');
    expect(
      await failureType(
        handle.executeUpdate(cancelReservationUpdate, { args: [{ requestedBy: 'client:test' }] }),
      ),
    ).toBe('R202');
    expect(
      await failureType(
        handle.executeUpdate(buyReservationUpdate, { args: [{ minutes: 5, requestedBy: 'client:test' }] }),
      ),
    ).toBe('R202');
    expect(await failureType(first)).toBe('R173');
  } finally {
    backend.simulator.setBehaviour(String(input.vehicleId), 'NORMAL');
  }
  const cancelled = await handle.executeUpdate(cancelReservationUpdate, {
    args: [{ requestedBy: 'client:test' }],
  });
  expect(cancelled.state).toBe('CANCELLED');
});
