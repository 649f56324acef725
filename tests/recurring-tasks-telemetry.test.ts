// The kilometre trigger of a recurring task fed by simulated telemetry, on the time-skipping server. The
// odometer reaches the usage check the way it does in production: the operator unlocks the vehicle (a
// command through the broker to the simulated device), the device rides and adds the distance to its own
// odometer, its report on the MQTT telemetry topic is stored by the telemetry ingestor in
// `vehicle.odometer_km` (the test waits for that before locking), and the usage workflow reads it at its
// next check (every 5 minutes, skipped).
// Nothing here writes the odometer. Asserted: one child when the threshold is crossed, none while it is
// open, and the next threshold counted from the odometer at its completion.
import { Event } from '../db/entities/Event.js';
import { Task } from '../db/entities/Task.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { executeCommand, until } from './support/fleet.js';
import type { CallOptions, Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, { token: session.operatorToken, ...options });
const back = (path: string) => session.stack.back(path);
const FIVE_MINUTES = 5 * 60_000;

beforeAll(async () => {
  session = await startSession({ timeSkipping: true });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

test('a vehicle riding past everyKm gets one child; the next threshold counts from its completion', async () => {
  const { simulator } = session.backend;
  const em = () => session.em();
  // A simulated vehicle of the operator's branch with charge for the trips (2 % per km).
  const inBranch = new Set(
    (await em().find(Vehicle, { branch: session.seed.branchId })).map((vehicle) => String(vehicle.id)),
  );
  const device = simulator
    .listVehicles()
    .filter((vehicle) => inBranch.has(vehicle.vehicleId) && vehicle.stateOfCharge >= 50)
    .sort((a, b) => b.stateOfCharge - a.stateOfCharge)[0]!;
  expect(device).toBeDefined();
  const vehicleId = Number(device.vehicleId);
  const odometer = async () => (await em().findOneOrFail(Vehicle, vehicleId)).odometerKm;
  const start = await odometer();
  expect(start).toBe(device.odometerKm); // the device's first report set it

  /**
   * One trip: unlock over the broker, ride `km`, the device's telemetry report reaches the vehicle row, lock
   * (the LOCK reply carries the same reading).
   */
  async function trip(km: number): Promise<number> {
    const command = (name: string) =>
      executeCommand(session.stack, session.operatorToken, vehicleId, { command: name });
    expect((await command('UNLOCK')).status).toBe(200);
    simulator.ride(device.vehicleId, km * 1000);
    await simulator.publishTelemetryNow(device.vehicleId);
    const reported = simulator.getVehicle(device.vehicleId)!.odometerKm;
    const stored = await until(async () => {
      const value = await odometer();
      return value != null && Math.abs(value - reported) < 0.001 && { value };
    });
    expect((await command('LOCK')).status).toBe(200);
    return stored.value;
  }

  /** Skips to the usage workflow's next check and gives its activity time to run. */
  async function nextCheck(): Promise<void> {
    await session.backend.testEnv!.sleep(FIVE_MINUTES);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
  const children = () => em().find(Task, { recurringTaskId: id }, { orderBy: { id: 'asc' } });

  const created = await call('POST', back('/tasks/recurring'), {
    body: {
      taskData: { title: 'Brake check', branchId: session.seed.branchId },
      taskObject: { vehicleId },
      usage: { everyKm: 5 },
    },
  });
  expect(created.status).toBe(201);
  const id: number = created.body.id;
  // The workflow's first check took the odometer the device last reported as the baseline.
  const baseline = await until(async () => {
    const shown = await call('GET', back(`/tasks/recurring/${id}`));
    const km = shown.body.usage.baselineOdometerKm as number | null;
    return km != null && { km };
  });
  expect(baseline.km).toBeCloseTo(start!, 3);

  // 3 km: below the threshold.
  await trip(3);
  await nextCheck();
  expect(await children()).toHaveLength(0);
  // 2.5 km more: 5.5 km since the baseline, one child.
  await trip(2.5);
  await nextCheck();
  const [first] = await until(async () => {
    const rows = await children();
    return rows.length > 0 && rows;
  });
  expect(first).toMatchObject({ title: 'Brake check', vehicleId, taskState: 'NEW' });
  const createdEvent = await em().findOneOrFail(Event, {
    type: 'TASK_CREATED',
    vehicleId,
    description: 'Brake check',
  });
  expect(createdEvent.payload).toMatchObject({ taskId: first!.id, reason: 'KILOMETRES' });

  // While it is open, further kilometres create nothing.
  const atCompletion = await trip(3);
  await nextCheck();
  expect(await children()).toHaveLength(1);

  // Completed at 8.5 km: the next threshold is 5 km from there (13.5), not from the first baseline (10).
  const done = await call('PATCH', back(`/tasks/${first!.id}`), {
    body: { taskData: { taskState: 'COMPLETED' } },
  });
  expect(done.status).toBe(200);
  await nextCheck();
  const rebased = await call('GET', back(`/tasks/recurring/${id}`));
  expect(rebased.body.usage.baselineAt).toBe(done.body.taskData.completedAt);
  expect(rebased.body.usage.baselineOdometerKm).toBeCloseTo(atCompletion, 3);
  await trip(3); // 11.5: past 10, 3 km since the completion
  await nextCheck();
  expect(await children()).toHaveLength(1);
  await trip(2.5); // 14: 5.5 km since the completion
  await nextCheck();
  const rows = await until(async () => {
    const found = await children();
    return found.length > 1 && found;
  });
  expect(rows).toHaveLength(2);
  expect(rows[1]).toMatchObject({ taskState: 'NEW', dueKey: `usage:${done.body.taskData.completedAt}` });
  await nextCheck();
  expect(await children()).toHaveLength(2);

  expect((await call('DELETE', back(`/tasks/recurring/${id}`))).status).toBe(204);
});
