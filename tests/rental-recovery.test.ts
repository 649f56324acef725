// Crash recovery: the worker process is killed (SIGKILL) while a rental's START waits for the vehicle; a
// new worker process resumes the rental, the device applies the UNLOCK once, and the rental completes.
// And killed right after END answered, while the ended rental is billed and its payment starts and charges:
// the card is charged once, whether the bill and the payment's start came before the kill or the new
// worker's payment starter makes them. And killed while the bill that follows END's answer waits (for a
// lock this suite holds): the payment starter bills the invoice once.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentAttempt } from '../db/entities/PaymentAttempt.js';
import { Rental } from '../db/entities/Rental.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { Event } from '../db/entities/Event.js';
import { createBalance } from '../db/balances.js';
import { businessUnitOfBranch } from '../db/pricing.js';
import { PAYMENT_START_GRACE_MS } from '../workers/payment-starter.js';
import { VehicleCommand } from '../db/entities/VehicleCommand.js';
import { inTenantTransaction, tenantEm, type MikroORM } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { simulatorFleet } from '../db/fleet.js';
import { FleetSimulator } from '../devices/simulator.js';
import { startEmbeddedBroker, type EmbeddedBrokerHandle } from '../platform/embedded-broker.js';
import {
  awaitReservationUpdate,
  rentalOperationUpdate,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
} from '../workflows/rental.messages.js';
import type { rentalWorkflow } from '../workflows/rental.js';
import { uniqueTenant } from './support/stack.js';
import { connectOrm } from '../composition/orm.js';
import { seedTenant } from '../composition/seed.js';
import { startWorkerProcess as startWorkerProcessOf } from './support/worker-process.js';

let orm: MikroORM;
let seed: SeededTenant;
let simulator: FleetSimulator;
let broker: EmbeddedBrokerHandle;
let connection: Connection;
let client: Client;
const taskQueue = `recovery-${randomBytes(3).toString('hex')}`;
const workers: ChildProcess[] = [];

/**
 * Starts `composition/worker-main.ts` as its own process (one process: node with tsx as its loader, so SIGKILL
 * really kills the worker) and resolves once it polls the task queue.
 */
async function startWorkerProcess(): Promise<ChildProcess> {
  return startWorkerProcessOf(
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      // Its starters pick up this suite's tenant only, not the tenants of suites running beside it.
      WORKER_STARTER_TENANTS: seed.tenant,
      MQTT_URL: broker.url,
      VEHICLE_COMMAND_TIMEOUT_MS: '8000',
    },
    workers,
  );
}

beforeAll(async () => {
  // A broker of its own: suites running at once in other jest workers must not see this fleet's telemetry.
  broker = await startEmbeddedBroker({ port: 0 });
  orm = await connectOrm(process.env.DATABASE_URL!, { pool: { min: 0, max: 3 } });
  seed = await seedTenant(orm.em, uniqueTenant('recovery'), 'Recovery Mobility');
  simulator = new FleetSimulator({
    mqttUrl: broker.url,
    tenant: seed.tenant,
    vehicles: await simulatorFleet(tenantEm(orm, seed.tenant)),
    telemetryIntervalMs: 60_000,
    connectionMode: 'shared',
    slowReplyMs: 3_000,
  });
  await simulator.start();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: 'default' });
}, 120_000);

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await simulator?.stop();
  await connection?.close();
  await orm?.close();
  await broker?.stop();
});

/**
 * Starts the workflow of rental `rentalId` for the demo customer (whose default source is the sandbox's
 * always-approved card) on `vehicle`, optionally started at once.
 */
function reservedRental(vehicle: Vehicle, rentalId: number, startImmediately: boolean) {
  return client.workflow.start<typeof rentalWorkflow>(
    RENTAL_WORKFLOW_TYPE,
    rentalWorkflowStartOptions(
      {
        tenant: seed.tenant,
        rentalId,
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        customerId: seed.customerIds[0]!,
        requestedBy: 'client:recovery-test',
        startImmediately,
      },
      taskQueue,
    ),
  );
}

/** Waits until the vehicle is recorded online (a reservation of an offline vehicle is refused). */
async function untilOnline(vehicle: Vehicle): Promise<void> {
  // The new worker's ingestor records the vehicle online from its retained status; on a loaded machine
  // that may come after the worker polls.
  for (const deadline = Date.now() + 90_000; ;) {
    if (!(await tenantEm(orm, seed.tenant).findOneOrFail(Vehicle, vehicle.id)).offline) return;
    if (Date.now() > deadline) throw new Error(`vehicle ${vehicle.code} did not come online`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a worker killed while START waits for the vehicle: a new worker finishes the rental, the device unlocks once', async () => {
  const first = await startWorkerProcess();
  const em = tenantEm(orm, seed.tenant);
  const vehicle = (await em.find(Vehicle, {}, { orderBy: { id: 'asc' }, limit: 1 }))[0]!;
  await untilOnline(vehicle);
  const rentalId = 900_001;
  const handle = await reservedRental(vehicle, rentalId, false);
  expect((await handle.executeUpdate(awaitReservationUpdate)).state).toBe('RESERVATION');

  // The vehicle executes commands at once but answers 3 s late: kill the worker in that gap.
  const vehicleKey = String(vehicle.id);
  const executedBefore = simulator.getVehicle(vehicleKey)!.executedCommands;
  simulator.setBehaviour(vehicleKey, 'SLOW');
  const start = handle.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'START', requestedBy: 'client:recovery-test' }],
  });
  const deadline = Date.now() + 20_000;
  while (simulator.getVehicle(vehicleKey)?.locked !== false && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(simulator.getVehicle(vehicleKey)?.locked).toBe(false);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  simulator.setBehaviour(vehicleKey, 'NORMAL');

  await startWorkerProcess();
  const started = await start; // the accepted update completes on the new worker
  expect(started.state).toBe('ACTIVE');
  simulator.ride(vehicleKey, 300);
  const ended = await handle.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'END', requestedBy: 'client:recovery-test' }],
  });
  expect(ended.state).toBe('ENDED');
  expect((await handle.result()).state).toBe('ENDED');

  const commands = await tenantEm(orm, seed.tenant).find(
    VehicleCommand,
    { rentalId },
    { orderBy: { id: 'asc' } },
  );
  // One UNLOCK (the retried attempt re-sent the same command id) and one LOCK.
  expect(commands.map((command) => [command.command, command.status])).toEqual([
    ['UNLOCK', 'OK'],
    ['LOCK', 'OK'],
  ]);
  const snapshot = simulator.getVehicle(vehicleKey)!;
  expect(snapshot.locked).toBe(true);
  expect(snapshot.executedCommands - executedBefore).toBe(2); // UNLOCK and LOCK, each executed once
  const row = await tenantEm(orm, seed.tenant).findOneOrFail(Rental, rentalId);
  expect(row.state).toBe('ENDED');
  expect(row.phases.map((phase) => phase.phase)).toEqual(['RESERVATION_FREE', 'DRIVING']);
}, 180_000);

/** The tenant's vehicle at `index`, in id order. */
async function vehicleAt(index: number): Promise<Vehicle> {
  const em = tenantEm(orm, seed.tenant);
  return (await em.find(Vehicle, {}, { orderBy: { id: 'asc' }, limit: index + 1 }))[index]!;
}

/**
 * A running worker (the last one started, or a new one), and a rental of the vehicle at `vehicleIndex`
 * started at once, ridden and ended: its handle once END answered.
 */
async function endedRental(vehicleIndex: number, rentalId: number) {
  const vehicle = await vehicleAt(vehicleIndex);
  let worker = workers.at(-1);
  if (!worker || worker.exitCode !== null || worker.signalCode !== null) worker = await startWorkerProcess();
  await untilOnline(vehicle);
  const handle = await reservedRental(vehicle, rentalId, true);
  expect((await handle.executeUpdate(awaitReservationUpdate)).state).toBe('ACTIVE');
  simulator.ride(String(vehicle.id), 300);
  const ended = await handle.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'END', requestedBy: 'client:recovery-test' }],
  });
  expect(ended.state).toBe('ENDED');
  return { handle, worker };
}

/** Kills a worker as a crash would and waits until it is gone. */
async function killed(worker: ChildProcess): Promise<void> {
  worker.kill('SIGKILL');
  await new Promise((resolve) => (worker.exitCode !== null ? resolve(null) : worker.once('exit', resolve)));
}

/**
 * Waits until the rental's invoice is PAID (a bill or a payment start the kill lost waits for the payment
 * starter: its grace, then its next pass) and checks it was billed once and charged once; answers its
 * payment.
 */
async function paidOnce(rentalId: number): Promise<Payment> {
  const rental = await tenantEm(orm, seed.tenant).findOneOrFail(Rental, rentalId);
  const invoiceId = rental.invoice!.id;
  for (const deadline = Date.now() + PAYMENT_START_GRACE_MS + 120_000; ;) {
    if ((await tenantEm(orm, seed.tenant).findOneOrFail(Invoice, invoiceId)).state === 'PAID') break;
    if (Date.now() > deadline) throw new Error(`invoice ${invoiceId} was not paid`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const reader = tenantEm(orm, seed.tenant);
  const payments = await reader.find(Payment, { invoice: invoiceId });
  expect(payments).toHaveLength(1);
  expect(await reader.count(PaymentAttempt, { payment: payments[0]!.id })).toBe(1);
  expect(payments[0]!.state).toBe('PAID');
  expect(await reader.count(Event, { type: 'INVOICE_BILLED', rentalId })).toBe(1);
  return payments[0]!;
}

test('a worker killed right after END answered: the ended rental is billed once, its card charged once', async () => {
  const rentalId = 900_002;
  const { handle, worker } = await endedRental(1, rentalId);
  // END has answered once the step committed; its bill, its payment's start and the charge follow it.
  // Kill the worker somewhere in that gap.
  await killed(worker);

  await startWorkerProcess();
  expect((await handle.result()).state).toBe('ENDED');
  await paidOnce(rentalId);
}, 300_000);

test('a worker killed after END answered and before its bill committed: the payment starter bills it once', async () => {
  // The customer's default balance at the unit: a bill locks it, so while this test's transaction holds it
  // the bill that follows END's answer cannot commit.
  const customerId = seed.customerIds[0]!;
  const vehicleIndex = 2;
  const vehicle = await vehicleAt(vehicleIndex);
  const balance = await inTenantTransaction(orm, seed.tenant, async (tx) =>
    createBalance(tx, {
      owner: { customerId },
      // The unit the rental's invoice belongs to: its vehicle's branch's.
      businessUnitId: (await businessUnitOfBranch(tx, vehicle.branch.id)).id,
      name: 'Recovery credit',
      systemCreated: false,
      makeDefault: true,
      createdBy: 'client:recovery-test',
    }),
  );
  const pool = (await orm.em.getConnection().getNativeClient()) as unknown as {
    connect(): Promise<{ query(text: string, values?: unknown[]): Promise<unknown>; release(): void }>;
  };
  const holder = await pool.connect();
  const rentalId = 900_003;
  let ended: Awaited<ReturnType<typeof endedRental>>['handle'] | undefined;
  try {
    await holder.query('begin');
    await holder.query('select id from balance where id = $1 for update', [balance.id]);
    const { handle, worker } = await endedRental(vehicleIndex, rentalId);
    await killed(worker);
    // The kill came before the bill's commit: the invoice is still OPEN.
    const rental = await tenantEm(orm, seed.tenant).findOneOrFail(Rental, rentalId);
    expect(rental.invoice).toBeTruthy();
    expect((await tenantEm(orm, seed.tenant).findOneOrFail(Invoice, rental.invoice!.id)).state).toBe('OPEN');
    ended = handle;
  } finally {
    await holder.query('rollback');
    holder.release();
  }

  // The new worker's payment starter bills the invoice (after its grace) and starts its payment.
  await startWorkerProcess();
  expect((await ended!.result()).state).toBe('ENDED');
  const payment = await paidOnce(rentalId);
  expect(payment.idempotencyKey).toBe(`payment-starter:bill:rental:${rentalId}/auto-bill`);
}, 300_000);
