// Device protocol, command client and simulator against a real (embedded aedes) MQTT broker.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type Client as BrokerClient } from 'aedes';
import type { MqttClient } from 'mqtt';
import {
  connectMqtt,
  MqttConnectError,
  VehicleCommandClient,
  VehicleCommandTimeoutError,
} from '../devices/command-client.js';
import {
  commandTopic,
  encodeMessage,
  parseSimulatorBehaviourTopic,
  parseVehicleCommandMessage,
  parseVehicleCommandReply,
  parseVehicleConnectivity,
  parseVehicleTelemetry,
  parseVehicleTopic,
  replyTopic,
  simulatorBehaviourTopic,
  stateTopic,
  telemetryTopic,
  vehicleCommandNames,
  type VehicleCommandReply,
} from '../devices/protocol.js';
import { SimulatedVehicle } from '../devices/simulated-vehicle.js';
import { FleetSimulator, type SimulatedVehicleSpec } from '../devices/simulator.js';

interface TestBroker {
  url: string;
  /** Closes a client's connection from the broker side, as a network failure would (the will fires). */
  dropClient(clientId: string): void;
  close(): Promise<void>;
}

async function startBroker(): Promise<TestBroker> {
  const broker = await Aedes.createBroker();
  const clients = new Map<string, BrokerClient>();
  broker.on('client', (client) => clients.set(client.id, client));
  // noDelay: without it every QoS 1 round trip waits ~40 ms for delayed ACKs.
  const server = net.createServer({ noDelay: true }, broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    dropClient(clientId) {
      const client = clients.get(clientId);
      if (!client) throw new Error(`broker has no client ${clientId}`);
      client.conn.destroy();
    },
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves with the first message on `topic` whose payload satisfies `accept`. */
function nextMessage<T>(
  client: MqttClient,
  topic: string,
  parse: (payload: Buffer) => T | undefined,
  accept: (message: T) => boolean = () => true,
  timeoutMs = 1500,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.removeListener('message', onMessage);
      reject(new Error(`no matching message on ${topic} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (received: string, payload: Buffer): void => {
      if (received !== topic) return;
      const message = parse(payload);
      if (message === undefined || !accept(message)) return;
      clearTimeout(timer);
      client.removeListener('message', onMessage);
      resolve(message);
    };
    client.on('message', onMessage);
    client.subscribe(topic, { qos: 1 }, (error) => {
      if (error) reject(error);
    });
  });
}

function publish(client: MqttClient, topic: string, payload: string): Promise<void> {
  return new Promise((resolve, reject) =>
    client.publish(topic, payload, { qos: 1 }, (error) => (error ? reject(error) : resolve())),
  );
}

function endClient(client: MqttClient): Promise<void> {
  return new Promise((resolve) => client.end(false, {}, () => resolve()));
}

const scooter: SimulatedVehicleSpec = {
  vehicleId: '101',
  code: 'SC-101',
  position: { lat: 52.52, lng: 13.405 },
  stateOfCharge: 80,
};
const moped: SimulatedVehicleSpec = {
  vehicleId: '202',
  code: 'MP-202',
  position: { lat: 52.5, lng: 13.4 },
  stateOfCharge: 55,
  hasTailbox: true,
};

describe('device protocol', () => {
  it('builds and parses vehicle topics', () => {
    expect(commandTopic('acme', '7')).toBe('fleetflow/acme/vehicles/7/commands');
    expect(parseVehicleTopic('fleetflow/acme/vehicles/7/replies')).toEqual({
      tenant: 'acme',
      vehicleId: '7',
      channel: 'replies',
    });
    expect(parseVehicleTopic('fleetflow/acme/vehicles/7/unknown')).toBeUndefined();
    expect(parseVehicleTopic('fleetflow/acme/vehicles/7')).toBeUndefined();
    expect(parseVehicleTopic('other/acme/vehicles/7/state')).toBeUndefined();
    expect(parseSimulatorBehaviourTopic(simulatorBehaviourTopic('acme', '7'))).toEqual({
      tenant: 'acme',
      vehicleId: '7',
    });
    expect(() => commandTopic('ac/me', '7')).toThrow(/tenant/);
    expect(() => commandTopic('acme', '+')).toThrow(/vehicleId/);
  });

  it('parses valid payloads and returns undefined on junk', () => {
    const command = {
      commandId: 'c-1',
      command: 'UNLOCK',
      issuedAt: '2025-01-01T10:00:00.000Z',
      expiresAt: '2025-01-01T10:00:08.000Z',
    };
    expect(parseVehicleCommandMessage(Buffer.from(JSON.stringify(command)))).toEqual(command);
    expect(parseVehicleCommandMessage({ ...command, command: 'FLY' })).toBeUndefined();
    expect(parseVehicleCommandMessage({ ...command, expiresAt: 'soon' })).toBeUndefined();
    expect(parseVehicleCommandReply('not json')).toBeUndefined();
    expect(parseVehicleCommandReply(Buffer.from([0xff, 0xfe]))).toBeUndefined();
    expect(parseVehicleCommandReply('[]')).toBeUndefined();
    expect(
      parseVehicleCommandReply({
        commandId: 'c',
        status: 'REFUSED',
        failureReason: { code: 7 },
        at: command.issuedAt,
      }),
    ).toBeUndefined();
    expect(
      parseVehicleTelemetry({
        at: command.issuedAt,
        position: { lat: 91, lng: 0 },
        powerState: 'ON',
        locked: true,
      }),
    ).toBeUndefined();
    expect(
      parseVehicleTelemetry({
        at: command.issuedAt,
        position: { lat: 52, lng: 13 },
        powerState: 'OFF',
        locked: true,
        stateOfCharge: null,
        extra: 'dropped',
      }),
    ).toEqual({ at: command.issuedAt, position: { lat: 52, lng: 13 }, powerState: 'OFF', locked: true });
    expect(parseVehicleConnectivity({ online: false, at: command.issuedAt, reason: 'NAP' })).toBeUndefined();
    expect(vehicleCommandNames).toContain('UNLOCK_STATION_PORT');
  });
});

describe('simulated vehicle model', () => {
  it('moves only while unlocked and powered, draining the battery and adding distance', () => {
    const vehicle = new SimulatedVehicle(scooter);
    vehicle.advance(10_000);
    expect(vehicle.snapshot().position).toEqual(scooter.position);

    const now = new Date();
    const unlock = {
      commandId: 'u',
      command: 'UNLOCK',
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 5000).toISOString(),
    };
    expect(vehicle.receiveCommand(unlock, now)).toMatchObject({ kind: 'reply', reply: { status: 'OK' } });
    for (let i = 0; i < 5; i += 1) vehicle.advance(10_000);
    const riding = vehicle.snapshot();
    expect(riding.position).not.toEqual(scooter.position);
    expect(riding.odometerKm).toBeGreaterThan(0.009);
    expect(riding.stateOfCharge).toBeLessThan(scooter.stateOfCharge);
    expect(riding.speedKmh).toBeGreaterThan(0);
  });
});

describe('simulated vehicle commands', () => {
  const command = (commandId: string, name: string, params?: Record<string, unknown>) => {
    const now = Date.now();
    return {
      commandId,
      command: name,
      ...(params ? { params } : {}),
      issuedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 5000).toISOString(),
    };
  };

  it('validates SET_MAX_SPEED params and drops malformed commands', () => {
    const vehicle = new SimulatedVehicle(moped);
    const now = new Date();

    expect(
      vehicle.receiveCommand(command('s1', 'SET_MAX_SPEED', { maxSpeedKmh: 'fast' }), now),
    ).toMatchObject({
      reply: { status: 'ERROR', failureReason: { code: 'INVALID_PARAMS' } },
    });
    expect(vehicle.receiveCommand(command('s2', 'SET_MAX_SPEED', { maxSpeedKmh: 20 }), now)).toMatchObject({
      reply: { status: 'OK', data: { maxSpeedKmh: 20 } },
    });
    expect(vehicle.receiveCommand('{"command":"LOCK"}', now)).toEqual({
      kind: 'dropped',
      reason: 'MALFORMED',
    });
    expect(vehicle.snapshot()).toMatchObject({ maxSpeedKmh: 20, executedCommands: 1 });
  });
});

describe('devices over MQTT', () => {
  let broker: TestBroker;
  let backend: MqttClient;
  let commands: VehicleCommandClient;
  let observer: MqttClient;
  let simulator: FleetSimulator;
  let tenantCounter = 0;
  let tenant: string;

  beforeAll(async () => {
    broker = await startBroker();
    backend = await connectMqtt(broker.url, 'test-backend');
    observer = await connectMqtt(broker.url, 'test-observer');
    commands = new VehicleCommandClient(backend);
    await commands.ready();
  });

  afterAll(async () => {
    commands.close();
    await endClient(backend);
    await endClient(observer);
    await broker.close();
  });

  beforeEach(async () => {
    tenantCounter += 1;
    tenant = `t${tenantCounter}`;
    simulator = new FleetSimulator({
      mqttUrl: broker.url,
      tenant,
      vehicles: [scooter, moped],
      telemetryIntervalMs: 60_000,
    });
    await simulator.start();
  });

  afterEach(async () => {
    await simulator.stop();
  });

  const send = (
    vehicleId: string,
    command: (typeof vehicleCommandNames)[number],
    commandId: string,
    timeoutMs = 1000,
  ) => commands.send({ tenant, vehicleId, command, commandId, timeoutMs });

  it('UNLOCK round trip answers OK and unlocks the simulated vehicle', async () => {
    expect(simulator.getVehicle('101')).toMatchObject({ locked: true, powerState: 'OFF' });

    const reply = await send('101', 'UNLOCK', 'unlock-1');

    expect(reply).toMatchObject({
      commandId: 'unlock-1',
      status: 'OK',
      data: { locked: false, powerState: 'ON' },
    });
    expect(simulator.getVehicle('101')).toMatchObject({ locked: false, powerState: 'ON' });
    expect(commands.pendingCount).toBe(0);
  });

  it('works the same over one shared connection', async () => {
    const shared = new FleetSimulator({
      mqttUrl: broker.url,
      tenant: `${tenant}-shared`,
      vehicles: [scooter, moped],
      telemetryIntervalMs: 60_000,
      connectionMode: 'shared',
    });
    await shared.start();
    try {
      const reply = await commands.send({
        tenant: `${tenant}-shared`,
        vehicleId: '202',
        command: 'UNLOCK',
        commandId: 'shared-1',
        timeoutMs: 1000,
      });
      expect(reply.status).toBe('OK');
      expect(shared.getVehicle('202')?.locked).toBe(false);
      expect(simulator.getVehicle('202')?.locked).toBe(true);
    } finally {
      await shared.stop();
    }
  });

  it('LOCATE answers the position and OPEN_TAILBOX is refused on a vehicle without tailbox', async () => {
    const located = await send('101', 'LOCATE', 'locate-1');
    expect(located.data?.position).toEqual(scooter.position);

    const refused = await send('101', 'OPEN_TAILBOX', 'tailbox-1');
    expect(refused).toMatchObject({ status: 'REFUSED', failureReason: { code: 'NO_TAILBOX' } });

    const opened = await send('202', 'OPEN_TAILBOX', 'tailbox-2');
    expect(opened).toMatchObject({ status: 'OK', data: { tailboxOpen: true } });
  });

  it('REFUSE behaviour answers REFUSED with a failure reason, also when set over the control topic', async () => {
    simulator.setBehaviour('101', 'REFUSE');
    const direct = await send('101', 'UNLOCK', 'refuse-1');
    expect(direct.status).toBe('REFUSED');
    expect(direct.failureReason?.code).toBe('SIMULATED_REFUSAL');
    expect(simulator.getVehicle('101')?.locked).toBe(true);

    await publish(observer, simulatorBehaviourTopic(tenant, '202'), encodeMessage({ mode: 'REFUSE' }));
    const viaTopic = await send('202', 'LOCK', 'refuse-2');
    expect(viaTopic).toMatchObject({ status: 'REFUSED', failureReason: { code: 'SIMULATED_REFUSAL' } });
  });

  it('SILENT behaviour makes send reject with VehicleCommandTimeoutError within the timeout', async () => {
    simulator.setBehaviour('101', 'SILENT');
    const startedAt = Date.now();

    const error = await send('101', 'UNLOCK', 'silent-1', 300).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(VehicleCommandTimeoutError);
    expect(error).toMatchObject({ commandId: 'silent-1', vehicleId: '101', timeoutMs: 300 });
    expect(Date.now() - startedAt).toBeLessThan(800);
    expect(simulator.getVehicle('101')).toMatchObject({ locked: true, executedCommands: 0 });
    expect(commands.pendingCount).toBe(0);
  });

  it('a repeated commandId is executed once and answered with the same reply', async () => {
    const first = await send('202', 'ALARM_ON', 'alarm-1');
    const retry = await send('202', 'ALARM_ON', 'alarm-1');

    expect(retry).toEqual(first);
    expect(simulator.getVehicle('202')).toMatchObject({ alarmOn: true, executedCommands: 1 });
  });

  it('concurrent sends of one commandId share a single pending command', async () => {
    const [a, b] = await Promise.all([send('202', 'START', 'start-1'), send('202', 'START', 'start-1')]);

    expect(a).toBe(b);
    expect(simulator.getVehicle('202')?.executedCommands).toBe(1);
  });

  it('expired commands are ignored and unknown commands answered with ERROR', async () => {
    const lateClient = new VehicleCommandClient(backend, { now: () => new Date(Date.now() - 60_000) });
    try {
      const late = await lateClient
        .send({ tenant, vehicleId: '101', command: 'UNLOCK', commandId: 'late-1', timeoutMs: 300 })
        .catch((e: unknown) => e);
      expect(late).toBeInstanceOf(VehicleCommandTimeoutError);
      expect(simulator.getVehicle('101')?.locked).toBe(true);
    } finally {
      lateClient.close();
    }

    const replyArrives = nextMessage<VehicleCommandReply>(
      observer,
      replyTopic(tenant, '101'),
      parseVehicleCommandReply,
    );
    const now = Date.now();
    const unknown = {
      commandId: 'fly-1',
      command: 'FLY',
      issuedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 5000).toISOString(),
    };
    await new Promise((resolve) => setTimeout(resolve, 50));
    await publish(observer, commandTopic(tenant, '101'), JSON.stringify(unknown));
    expect(await replyArrives).toMatchObject({
      commandId: 'fly-1',
      status: 'ERROR',
      failureReason: { code: 'UNKNOWN_COMMAND' },
    });
  });

  it('publishes telemetry that parses on the telemetry topic', async () => {
    const arrives = nextMessage(observer, telemetryTopic(tenant, '202'), parseVehicleTelemetry);
    await new Promise((resolve) => setTimeout(resolve, 50));

    await simulator.publishTelemetryNow('202');

    const telemetry = await arrives;
    expect(telemetry).toMatchObject({
      position: moped.position,
      stateOfCharge: moped.stateOfCharge,
      powerState: 'OFF',
      locked: true,
      tailboxOpen: false,
    });
  });

  it('stop() leaves a retained offline state with reason SHUTDOWN', async () => {
    const online = await nextMessage(observer, stateTopic(tenant, '101'), parseVehicleConnectivity);
    expect(online).toMatchObject({ online: true, reason: 'CONNECTED' });
    observer.unsubscribe(stateTopic(tenant, '101'));

    await simulator.stop();

    // Subscribing after the fact receives the retained message.
    const retained = await nextMessage(observer, stateTopic(tenant, '101'), parseVehicleConnectivity);
    expect(retained).toMatchObject({ online: false, reason: 'SHUTDOWN' });
  });

  it('the broker publishes the last will when a vehicle connection dies', async () => {
    const wentOffline = nextMessage(
      observer,
      stateTopic(tenant, '202'),
      parseVehicleConnectivity,
      (state) => state.reason === 'LAST_WILL',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));

    broker.dropClient(`fleetflow-sim-${tenant}-202`);

    expect(await wentOffline).toMatchObject({ online: false, reason: 'LAST_WILL' });
    // The simulator reconnects on its own and announces the vehicle online again.
    const back = await nextMessage(
      observer,
      stateTopic(tenant, '202'),
      parseVehicleConnectivity,
      (s) => s.online,
      3000,
    );
    expect(back.reason).toBe('CONNECTED');
  });
});

describe('connectMqtt', () => {
  it('rejects with MqttConnectError when no broker answers', async () => {
    const unused = net.createServer();
    await new Promise<void>((resolve) => unused.listen(0, '127.0.0.1', resolve));
    const { port } = unused.address() as AddressInfo;
    await new Promise<void>((resolve) => unused.close(() => resolve()));

    const error = await connectMqtt(`mqtt://127.0.0.1:${port}`, 'nobody', { timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(MqttConnectError);
    expect((error as Error).message).toMatch(/within 300 ms/);
  });
});
