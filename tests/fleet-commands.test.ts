// Vehicle commands through the real broker and the simulator: execute-command (SYNC and ASYNC, refusals,
// timeouts, retired modules, retries), the debug console, the simulator's slow and offline modes, and
// telemetry ordering with offline detection and commands queued for a silent vehicle.
import { Branch } from '../db/entities/Branch.js';
import { Event } from '../db/entities/Event.js';
import { IotModule } from '../db/entities/IotModule.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCommand } from '../db/entities/VehicleCommand.js';
import { VehicleTelemetry } from '../db/entities/VehicleTelemetry.js';
import { tenantEm } from '../db/orm.js';
import { commandTopic, encodeMessage, telemetryTopic } from '../devices/protocol.js';
import { markSilentVehiclesOffline } from '../workers/telemetry-ingestor.js';
import type { TestBackend } from './support/stack.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { executeCommand, sleep, until } from './support/fleet.js';

let session: Session;
let stack: HttpStack;
let backend: TestBackend;
let operator: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const em = () => tenantEm(backend.orm, backend.seed.tenant);
const vehicles = () => em().find(Vehicle, {}, { orderBy: { id: 'asc' } });
const command = (vehicleId: number, body: Record<string, unknown>, process = 'SYNC', ret = 'DATA') =>
  executeCommand(stack, operator, vehicleId, body, process, ret);

beforeAll(async () => {
  session = await startSession();
  ({ stack, backend, operatorToken: operator } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('execute-command through the broker and the simulator', () => {
  test('SYNC answers the data, ASYNC only sends; each is a VEHICLE_COMMAND_ event', async () => {
    const vehicle = (await vehicles())[12]!;
    const sync = await command(vehicle.id, { command: 'LOCATE' });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: 'OK', data: { locked: true } });
    const status = await command(vehicle.id, { command: 'ALARM_ON' }, 'SYNC', 'STATUS');
    expect(status.body).toMatchObject({ status: 'OK', data: null });
    const async = await command(vehicle.id, { command: 'ALARM_OFF' }, 'ASYNC', 'NONE');
    expect(async.body).toMatchObject({ status: null, data: null });
    await until(
      async () => (await em().findOne(VehicleCommand, { commandId: async.body.commandId }))?.status === 'OK',
    );
    expect(await em().count(Event, { vehicleId: vehicle.id, type: { $like: 'VEHICLE_COMMAND_%' } })).toBe(3);
    expect(backend.simulator.getVehicle(String(vehicle.id))?.alarmOn).toBe(false);
  });

  test('502 refused, 504 silent, 409 in progress, 410 retired module, A100 not configured, custom commands', async () => {
    const list = await vehicles();
    const refusing = list[15]!;
    backend.simulator.setBehaviour(String(refusing.id), 'REFUSE');
    const refused = await command(refusing.id, { command: 'LOCATE' });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({
      errorCode: 'V502',
      userMessage: expect.stringContaining('SIMULATED_REFUSAL'),
      httpStatus: 502,
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      failureReason: { code: 'SIMULATED_REFUSAL', description: expect.any(String) },
    });
    backend.simulator.setBehaviour(String(refusing.id), 'NORMAL');
    const failed = await em().findOneOrFail(VehicleCommand, { vehicleId: refusing.id, status: 'REFUSED' });
    expect(failed.failureReason).toEqual({ code: 'SIMULATED_REFUSAL', description: expect.any(String) });

    const silent = list[16]!;
    backend.simulator.setBehaviour(String(silent.id), 'SILENT');
    const first = command(silent.id, { command: 'LOCATE' });
    await sleep(300);
    expectError(await command(silent.id, { command: 'REBOOT' }, 'ASYNC'), 409, 'V409');
    expectError(await first, 504, 'V504');
    backend.simulator.setBehaviour(String(silent.id), 'NORMAL');

    // Scooters configure no OPEN_TAILBOX.
    expectError(await command(list[0]!.id, { command: 'OPEN_TAILBOX' }), 403, 'A100');

    const custom = await call(
      'POST',
      stack.back(
        `/vehicles/execute-command?process=SYNC&return=DATA&vehicleCode=${encodeURIComponent(list[13]!.code)}`,
      ),
      {
        token: operator,
        body: { command: 'CUSTOM_COMMAND', customCommandName: 'blink', namedParameters: { times: 3 } },
      },
    );
    expect(custom.body.data.custom).toEqual({ name: 'blink', parameters: { times: 3 } });
    const both = await call(
      'POST',
      stack.back(
        `/vehicles/execute-command?process=SYNC&return=DATA&vehicleId=${list[13]!.id}&vehicleCode=x`,
      ),
      { token: operator, body: { command: 'LOCATE' } },
    );
    expectError(both, 400, '0022');

    const retired = await em().findOneOrFail(IotModule, { vehicleId: list[2]!.id });
    const patch = await call('PATCH', stack.back(`/iot-modules/${retired.id}`), {
      token: operator,
      body: { state: 'RETIRED' },
    });
    expect(patch.body.state).toBe('RETIRED');
    expectError(await command(list[2]!.id, { command: 'LOCATE' }), 410, 'V410');
  }, 30_000);

  test('a retried command (same command id) never acts twice on the device', async () => {
    const vehicle = (await vehicles())[18]!;
    const done = await command(vehicle.id, { command: 'REBOOT' });
    const after = backend.simulator.getVehicle(String(vehicle.id))!.executedCommands;
    // What a retried activity does: the same command id again. The device answers from its cache.
    const now = new Date();
    const again = encodeMessage({
      commandId: done.body.commandId,
      command: 'REBOOT',
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 5000).toISOString(),
    });
    await backend.mqtt.publishAsync(commandTopic(backend.seed.tenant, String(vehicle.id)), again, { qos: 1 });
    await sleep(300);
    expect(backend.simulator.getVehicle(String(vehicle.id))!.executedCommands).toBe(after);
    expect(await em().count(VehicleCommand, { commandId: done.body.commandId })).toBe(1);
  });
});

describe('the debug console (POST /vehicles/{id}/command/debug)', () => {
  const debug = (vehicleId: number, line: string, contentType = 'text/plain') =>
    call('POST', stack.back(`/vehicles/${vehicleId}/command/debug`), {
      token: operator,
      rawBody: line,
      headers: { 'content-type': contentType },
    });

  test('sends one console line to the device through the command workflow and answers its text', async () => {
    const vehicle = (await vehicles())[19]!;
    const status = await debug(vehicle.id, 'status');
    expect(status.status).toBe(200);
    expect(status.body).toEqual(expect.stringContaining(`vehicle=${vehicle.id}`));
    expect((await debug(vehicle.id, 'echo hello  console')).body).toBe('hello console');
    expect((await debug(vehicle.id, 'frobnicate')).body).toBe('ERR unknown debug command: frobnicate');
    const rows = await em().find(VehicleCommand, { vehicleId: vehicle.id, command: 'DEBUG' });
    expect(rows.map((row) => row.status)).toEqual(['OK', 'OK', 'OK']);
    expect(await em().count(Event, { vehicleId: vehicle.id, type: 'VEHICLE_COMMAND_DEBUG' })).toBe(3);

    // DEBUG is not an operator command of execute-command.
    expectError(await command(vehicle.id, { command: 'DEBUG' }), 400, '0022');
    // Refusals, silence and offline vehicles answer like commands.
    backend.simulator.setBehaviour(String(vehicle.id), 'REFUSE');
    try {
      const refused = await debug(vehicle.id, 'status');
      expect(refused.status).toBe(502);
      expect(refused.body).toMatchObject({ errorCode: 'V502', failureReason: { code: 'SIMULATED_REFUSAL' } });
    } finally {
      backend.simulator.setBehaviour(String(vehicle.id), 'NORMAL');
    }
    expectError(await debug(2_000_000_000, 'status'), 404, 'V404');
    // Another branch's vehicle is refused (the one the branch test created; later tests expect no other
    // vehicle without a simulated device).
    const foreign = em();
    const other =
      (await foreign.findOne(Vehicle, { code: 'SPANDAU-1' })) ??
      foreign.create(Vehicle, {
        code: 'SPANDAU-1',
        branch: foreign.getReference(Branch, backend.seed.otherBranchId),
        category: vehicle.category,
      });
    await foreign.flush();
    expectError(await debug(other.id, 'status'), 403, 'AUTH002');
    // Hostile bodies: empty, NUL, too long, JSON instead of text.
    expectError(await debug(vehicle.id, ''), 400, '0022');
    expectError(await debug(vehicle.id, 'a\u0000b'), 400, '0022');
    expectError(await debug(vehicle.id, 'x'.repeat(1001)), 400, '0022');
    expectError(await debug(vehicle.id, '{"line":"status"}', 'application/json'), 415, '0023');
  }, 30_000);
});

describe('simulator modes through the broker', () => {
  test('a slow answer outlives the first attempt; the retry reuses the command id, so the vehicle acts once', async () => {
    const vehicle = (await vehicles())[1]!;
    const before = backend.simulator.getVehicle(String(vehicle.id))!.executedCommands;
    backend.simulator.setBehaviour(String(vehicle.id), 'SLOW');
    try {
      // 3 s answer, 1.5 s timeout: the second attempt (same command id) receives the first one's reply.
      expect((await command(vehicle.id, { command: 'ALARM_ON' })).body).toMatchObject({ status: 'OK' });
    } finally {
      backend.simulator.setBehaviour(String(vehicle.id), 'NORMAL');
    }
    expect(backend.simulator.getVehicle(String(vehicle.id))!.executedCommands).toBe(before + 1);
    const rows = await em().find(VehicleCommand, { vehicleId: vehicle.id, command: 'ALARM_ON' });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('OK');
  }, 20_000);

  test('a vehicle that goes offline and comes back is OFFLINE then ONLINE', async () => {
    const vehicle = (await vehicles())[4]!;
    backend.simulator.setBehaviour(String(vehicle.id), 'OFFLINE');
    await until(async () => (await em().findOneOrFail(Vehicle, vehicle.id)).offline);
    const offline = await call('GET', stack.back(`/vehicles/${vehicle.id}`), { token: operator });
    expect(offline.body).toMatchObject({ available: false, unavailabilityReasons: ['OFFLINE'] });
    backend.simulator.setBehaviour(String(vehicle.id), 'NORMAL');
    await until(async () => !(await em().findOneOrFail(Vehicle, vehicle.id)).offline);
    const types = (
      await em().find(
        Event,
        { vehicleId: vehicle.id, type: { $in: ['VEHICLE_OFFLINE', 'VEHICLE_ONLINE'] } },
        { orderBy: { id: 'asc' } },
      )
    ).map((e) => e.type);
    expect(types).toEqual(['VEHICLE_ONLINE', 'VEHICLE_OFFLINE', 'VEHICLE_ONLINE']);
  });
});

describe('telemetry, ordering and connectivity', () => {
  test('every message lands in the history; an older report never overwrites the row', async () => {
    const vehicle = (await vehicles())[20]!;
    const topic = telemetryTopic(backend.seed.tenant, String(vehicle.id));
    const base = Date.now() + 60_000;
    const message = (offsetMs: number, locked: boolean, soc: number) =>
      encodeMessage({
        at: new Date(base + offsetMs).toISOString(),
        position: { lat: 52.5, lng: 13.4 },
        powerState: 'OFF',
        locked,
        stateOfCharge: soc,
        hdop: 0.9,
        speedKmh: 0,
        maxSpeedKmh: 20,
        batteries: [{ id: 'A', stateOfCharge: soc }],
        batteryMaxCapacityWh: 550,
      });
    // The simulated vehicle keeps reporting on its own; the test's two reports are those dated ahead.
    const ours = () =>
      em().count(VehicleTelemetry, { vehicleId: vehicle.id, reportedAt: { $gte: new Date(base) } });
    const stored = await em().count(VehicleTelemetry, { vehicleId: vehicle.id });
    await backend.mqtt.publishAsync(topic, message(2000, true, 66), { qos: 1 });
    await until(async () => (await em().findOneOrFail(Vehicle, vehicle.id)).stateOfCharge === 66);
    await backend.mqtt.publishAsync(topic, message(1000, false, 64), { qos: 1 });
    await until(async () => (await ours()) >= 2);
    await sleep(200);
    expect(await em().findOneOrFail(Vehicle, vehicle.id)).toMatchObject({ locked: true, stateOfCharge: 66 });
    const history = await call('GET', stack.back(`/vehicles/${vehicle.id}/telemetry`), { token: operator });
    expect(history.body[0]).toMatchObject({
      stateOfCharge: 66,
      hdop: 0.9,
      maxSpeedKmh: 20,
      batteryMaxCapacityWh: 550,
    });
    expect(await ours()).toBe(2);
    expect(Number(history.headers.get('x-total-count'))).toBeGreaterThanOrEqual(stored + 2);
  });

  test('a silent vehicle goes offline; SYNC is refused at once (409 V103); ASYNC queues and delivers once on reconnect', async () => {
    const vehicle = (await vehicles())[19]!;
    await sleep(300);
    expect(
      await markSilentVehiclesOffline(backend.orm, 200, new Date(), backend.seed.tenant),
    ).toBeGreaterThan(0);
    expect((await em().findOneOrFail(Vehicle, vehicle.id)).offline).toBe(true);
    const started = Date.now();
    expectError(await command(vehicle.id, { command: 'LOCATE' }), 409, 'V103');
    expect(Date.now() - started).toBeLessThan(1000);
    const before = backend.simulator.getVehicle(String(vehicle.id))!.executedCommands;
    const queued = await command(
      vehicle.id,
      { command: 'ALARM_ON', queueIfOffline: true },
      'ASYNC',
      'STATUS',
    );
    expect(queued.body.status).toBe('QUEUED');
    const cancelled = await command(
      vehicle.id,
      { command: 'ALARM_OFF', queueIfOffline: true },
      'ASYNC',
      'STATUS',
    );
    const cancel = await call(
      'DELETE',
      stack.back(`/vehicles/${vehicle.id}/activity/${encodeURIComponent(cancelled.body.commandId)}`),
      { token: operator },
    );
    expect(cancel.body.status).toBe('CANCELLED');
    const activity = await call('GET', stack.back(`/vehicles/${vehicle.id}/activity?status=QUEUED`), {
      token: operator,
    });
    expect(activity.body).toHaveLength(1);
    await backend.simulator.publishTelemetryNow(String(vehicle.id));
    await until(
      async () =>
        (await em().findOneOrFail(VehicleCommand, { commandId: queued.body.commandId })).status === 'OK',
    );
    await backend.simulator.publishTelemetryNow(String(vehicle.id));
    await sleep(300);
    expect(backend.simulator.getVehicle(String(vehicle.id))).toMatchObject({
      alarmOn: true,
      executedCommands: before + 1,
    });
    // Every other vehicle of the tenant went silent too: bring them back for the following tests.
    await backend.simulator.publishTelemetryNow();
    await until(async () => (await em().count(Vehicle, { offline: true, code: { $ne: 'SPANDAU-1' } })) === 0);
    expect(await em().count(Event, { vehicleId: vehicle.id, type: 'VEHICLE_OFFLINE' })).toBe(1);
    expect(await em().count(Event, { vehicleId: vehicle.id, type: 'VEHICLE_ONLINE' })).toBe(2); // at start and on reconnect
  });
});
