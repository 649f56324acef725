// Vehicle simulator: runs SimulatedVehicle models behind real MQTT connections, for the local stack, demos and tests.
import type { IClientOptions, MqttClient } from 'mqtt';
import { errorMessage, silentDeviceLog, type DeviceLog } from './device-log.js';
import { connectMqtt, defaultMqttConnectTimeoutMs } from './mqtt-connection.js';
import {
  commandTopic,
  encodeMessage,
  isValidTopicSegment,
  parseSimulatorBehaviour,
  parseSimulatorBehaviourTopic,
  parseVehicleTopic,
  replyTopic,
  simulatorBehaviourFilter,
  simulatorBehaviourTopic,
  stateTopic,
  telemetryTopic,
  vehicleChannelDelivery,
  vehicleTopicFilter,
  type ConnectivityReason,
  type SimulatorMode,
  type VehicleChannel,
  type VehicleConnectivity,
} from './protocol.js';
import {
  SimulatedVehicle,
  type SimulatedVehicleSnapshot,
  type SimulatedVehicleSpec,
} from './simulated-vehicle.js';

export type { SimulatedVehicleSnapshot, SimulatedVehicleSpec } from './simulated-vehicle.js';

/** `per-vehicle` = one MQTT session per vehicle with its own last will (realistic); `shared` = one session for all. */
export type SimulatorConnectionMode = 'per-vehicle' | 'shared';

/** Options of `FleetSimulator`; only the broker, tenant and fleet are required. */
export interface FleetSimulatorOptions {
  mqttUrl: string;
  tenant: string;
  vehicles: SimulatedVehicleSpec[];
  /** Period of telemetry and movement; default 10 000 ms. */
  telemetryIntervalMs?: number;
  /** Default `per-vehicle`. In `shared` mode no last will exists, so crashes do not mark vehicles offline. */
  connectionMode?: SimulatorConnectionMode;
  /** How long `start()` waits for each connection; default 5 000 ms. */
  connectTimeoutMs?: number;
  /** Prefix of MQTT client ids; default `fleetflow-sim`. */
  clientIdPrefix?: string;
  log?: DeviceLog;
  /** Randomness for movement and sensor noise; inject a seeded one for reproducible runs. */
  random?: () => number;
  /** Clock for message timestamps and command expiry. */
  now?: () => Date;
  /** How late a vehicle in SLOW mode answers; default 3 000 ms. */
  slowReplyMs?: number;
}

/** Upper bound for publishing the offline state on `stop()`, so shutdown finishes even without a broker. */
const stopPublishTimeoutMs = 2000;

/** One MQTT session and the vehicles it speaks for. */
interface Link {
  readonly client: MqttClient;
  readonly vehicleIds: readonly string[];
}

/** Simulates a tenant's fleet: answers commands, honours behaviour modes and publishes telemetry and connectivity. */
export class FleetSimulator {
  private readonly tenant: string;
  private readonly mqttUrl: string;
  private readonly telemetryIntervalMs: number;
  private readonly connectionMode: SimulatorConnectionMode;
  private readonly connectTimeoutMs: number;
  private readonly clientIdPrefix: string;
  private readonly log: DeviceLog;
  private readonly now: () => Date;
  private readonly slowReplyMs: number;
  private readonly vehicles = new Map<string, SimulatedVehicle>();
  private readonly clientByVehicle = new Map<string, MqttClient>();
  private links: Link[] = [];
  private telemetryTimer: NodeJS.Timeout | undefined;
  private state: 'idle' | 'starting' | 'running' | 'stopping' | 'stopped' = 'idle';
  private startup: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(options: FleetSimulatorOptions) {
    validateOptions(options);
    this.tenant = options.tenant;
    this.mqttUrl = options.mqttUrl;
    this.telemetryIntervalMs = options.telemetryIntervalMs ?? 10_000;
    this.connectionMode = options.connectionMode ?? 'per-vehicle';
    this.connectTimeoutMs = options.connectTimeoutMs ?? defaultMqttConnectTimeoutMs;
    this.clientIdPrefix = options.clientIdPrefix ?? 'fleetflow-sim';
    this.log = options.log ?? silentDeviceLog;
    this.now = options.now ?? (() => new Date());
    this.slowReplyMs = options.slowReplyMs ?? 3000;
    for (const spec of options.vehicles) {
      this.vehicles.set(spec.vehicleId, new SimulatedVehicle(spec, { random: options.random }));
    }
  }

  /** Connects every vehicle, announces it online, publishes a first telemetry and starts the periodic tick. */
  start(): Promise<void> {
    if (this.state !== 'idle')
      return Promise.reject(new Error(`FleetSimulator cannot start when ${this.state}`));
    this.state = 'starting';
    this.startup = this.connectAndRun();
    return this.startup;
  }

  /** Publishes every vehicle offline (reason SHUTDOWN, retained) and disconnects cleanly; safe to call twice. */
  async stop(): Promise<void> {
    if (this.state === 'starting') await this.startup?.catch(() => undefined);
    if (this.state === 'running') this.stopping ??= this.shutdown();
    if (this.state === 'idle') this.state = 'stopped';
    await this.stopping;
  }

  /** Changes one vehicle's behaviour directly (tests); the control topic does the same over MQTT. */
  setBehaviour(vehicleId: string, mode: SimulatorMode): void {
    const vehicle = this.requireVehicle(vehicleId);
    const was = vehicle.snapshot().behaviour;
    vehicle.setBehaviour(mode);
    if (this.state !== 'running' || (was === 'OFFLINE') === (mode === 'OFFLINE')) return;
    // Going offline or coming back is announced like a real module's connection would be.
    const announce = async () => {
      await this.publishConnectivity(
        vehicleId,
        mode !== 'OFFLINE',
        mode === 'OFFLINE' ? 'SHUTDOWN' : 'CONNECTED',
      );
      if (mode !== 'OFFLINE') await this.publishTelemetry(vehicleId);
    };
    announce().catch((error: unknown) =>
      this.log('warn', `vehicle ${vehicleId} could not announce ${mode}: ${errorMessage(error)}`),
    );
  }

  /** Moves an unlocked vehicle `metres` at once (tests, benchmarks): its next report shows the trip. */
  ride(vehicleId: string, metres: number): void {
    this.requireVehicle(vehicleId).ride(metres);
  }

  /** State snapshot of one vehicle, or undefined if the simulator does not know it. */
  getVehicle(vehicleId: string): SimulatedVehicleSnapshot | undefined {
    return this.vehicles.get(vehicleId)?.snapshot();
  }

  /** Snapshots of all vehicles, in fleet order. */
  listVehicles(): SimulatedVehicleSnapshot[] {
    return [...this.vehicles.values()].map((vehicle) => vehicle.snapshot());
  }

  /** Publishes current telemetry (without advancing the simulation) for one vehicle or all of them. */
  async publishTelemetryNow(vehicleId?: string): Promise<void> {
    this.requireRunning();
    const ids =
      vehicleId === undefined ? [...this.vehicles.keys()] : [this.requireVehicle(vehicleId).vehicleId];
    await Promise.all(ids.map((id) => this.publishTelemetry(id)));
  }

  private async connectAndRun(): Promise<void> {
    try {
      this.links = await this.connectLinks();
      await Promise.all(this.links.map((link) => this.activate(link)));
    } catch (error) {
      await this.closeLinks();
      this.state = 'stopped';
      throw error;
    }
    this.telemetryTimer = setInterval(() => this.tick(), this.telemetryIntervalMs);
    this.state = 'running';
    await this.publishTelemetryNow().catch((error: unknown) =>
      this.log('warn', `initial telemetry not sent: ${errorMessage(error)}`),
    );
    this.log(
      'info',
      `simulating ${this.vehicles.size} vehicles of tenant ${this.tenant} (${this.connectionMode})`,
    );
  }

  private async shutdown(): Promise<void> {
    this.state = 'stopping';
    clearInterval(this.telemetryTimer);
    const announcements = [...this.vehicles.keys()].map((id) =>
      this.publishConnectivity(id, false, 'SHUTDOWN'),
    );
    const announced = await settleWithin(Promise.all(announcements), stopPublishTimeoutMs);
    if (!announced) this.log('warn', 'could not publish every offline state before disconnecting');
    await this.closeLinks();
    this.state = 'stopped';
    this.log('info', `stopped simulating tenant ${this.tenant}`);
  }

  private async connectLinks(): Promise<Link[]> {
    const plans =
      this.connectionMode === 'shared'
        ? [
            {
              clientId: `${this.clientIdPrefix}-${this.tenant}-${randomSuffix()}`,
              vehicleIds: [...this.vehicles.keys()],
            },
          ]
        : [...this.vehicles.keys()].map((id) => ({
            clientId: `${this.clientIdPrefix}-${this.tenant}-${id}`,
            vehicleIds: [id],
          }));
    const results = await Promise.allSettled(
      plans.map((plan) => this.connectLink(plan.clientId, plan.vehicleIds)),
    );
    const links = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) {
      await Promise.all(links.map((link) => endClient(link.client)));
      throw failure.reason;
    }
    return links;
  }

  private async connectLink(clientId: string, vehicleIds: readonly string[]): Promise<Link> {
    const [onlyVehicle] = vehicleIds;
    const will =
      vehicleIds.length === 1 && onlyVehicle !== undefined ? this.lastWill(onlyVehicle) : undefined;
    const client = await connectMqtt(this.mqttUrl, clientId, {
      timeoutMs: this.connectTimeoutMs,
      will,
      log: this.log,
    });
    return { client, vehicleIds };
  }

  /** Retained offline message the broker publishes for a vehicle whose session dies without DISCONNECT. */
  private lastWill(vehicleId: string): IClientOptions['will'] {
    const { qos, retain } = vehicleChannelDelivery.state;
    const payload: VehicleConnectivity = { online: false, at: this.now().toISOString(), reason: 'LAST_WILL' };
    return {
      topic: stateTopic(this.tenant, vehicleId),
      payload: Buffer.from(encodeMessage(payload)),
      qos,
      retain,
    };
  }

  /** Wires a connected session: routing, subscriptions, online state now and after every reconnect. */
  private async activate(link: Link): Promise<void> {
    link.client.on('message', (topic, payload) => this.route(topic, payload));
    for (const vehicleId of link.vehicleIds) this.clientByVehicle.set(vehicleId, link.client);
    await subscribe(link.client, this.subscriptionsFor(link));
    await this.announceOnline(link);
    // mqtt.js restores subscriptions itself on reconnect; only the online state needs repeating.
    link.client.on('connect', () => {
      this.announceOnline(link).catch((error: unknown) =>
        this.log('warn', `could not announce vehicles online after reconnect: ${errorMessage(error)}`),
      );
    });
  }

  private subscriptionsFor(link: Link): string[] {
    if (this.connectionMode === 'shared') {
      return [vehicleTopicFilter('commands', { tenant: this.tenant }), simulatorBehaviourFilter(this.tenant)];
    }
    return link.vehicleIds.flatMap((id) => [
      commandTopic(this.tenant, id),
      simulatorBehaviourTopic(this.tenant, id),
    ]);
  }

  private async announceOnline(link: Link): Promise<void> {
    await Promise.all(link.vehicleIds.map((id) => this.publishConnectivity(id, true, 'CONNECTED')));
  }

  private route(topic: string, payload: Buffer): void {
    const vehicleTopic = parseVehicleTopic(topic);
    if (vehicleTopic) {
      if (vehicleTopic.channel === 'commands' && this.isOurs(vehicleTopic.tenant, vehicleTopic.vehicleId)) {
        this.handleCommand(vehicleTopic.vehicleId, payload);
      }
      return;
    }
    const behaviourTopic = parseSimulatorBehaviourTopic(topic);
    if (behaviourTopic && this.isOurs(behaviourTopic.tenant, behaviourTopic.vehicleId)) {
      this.handleBehaviour(behaviourTopic.vehicleId, payload);
    }
  }

  private isOurs(tenant: string, vehicleId: string): boolean {
    return tenant === this.tenant && this.vehicles.has(vehicleId);
  }

  private handleCommand(vehicleId: string, payload: Buffer): void {
    const vehicle = this.requireVehicle(vehicleId);
    const handling = vehicle.receiveCommand(payload, this.now());
    if (handling.kind === 'dropped') {
      const level = handling.reason === 'MALFORMED' ? 'warn' : 'info';
      this.log(
        level,
        `vehicle ${vehicleId} dropped command ${handling.commandId ?? '(unparseable)'}: ${handling.reason}`,
      );
      return;
    }
    const { reply, replayed } = handling;
    const replayNote = replayed ? ' (replayed, not executed again)' : '';
    this.log('info', `vehicle ${vehicleId} answered ${reply.commandId} with ${reply.status}${replayNote}`);
    const send = () =>
      this.publish(vehicleId, 'replies', replyTopic(this.tenant, vehicleId), encodeMessage(reply)).catch(
        (error: unknown) =>
          this.log('warn', `vehicle ${vehicleId} could not publish reply: ${errorMessage(error)}`),
      );
    if (vehicle.snapshot().behaviour === 'SLOW') setTimeout(() => void send(), this.slowReplyMs);
    else void send();
  }

  private handleBehaviour(vehicleId: string, payload: Buffer): void {
    const behaviour = parseSimulatorBehaviour(payload);
    if (!behaviour) {
      this.log('warn', `ignoring malformed behaviour for vehicle ${vehicleId}`);
      return;
    }
    this.setBehaviour(vehicleId, behaviour.mode);
    this.log('info', `vehicle ${vehicleId} behaviour is now ${behaviour.mode}`);
  }

  private tick(): void {
    for (const [vehicleId, vehicle] of this.vehicles) {
      vehicle.advance(this.telemetryIntervalMs);
      if (vehicle.snapshot().behaviour === 'OFFLINE') continue;
      this.publishTelemetry(vehicleId).catch((error: unknown) =>
        this.log('debug', `vehicle ${vehicleId} telemetry not sent: ${errorMessage(error)}`),
      );
    }
  }

  private publishTelemetry(vehicleId: string): Promise<void> {
    const telemetry = this.requireVehicle(vehicleId).telemetry(this.now());
    return this.publish(
      vehicleId,
      'telemetry',
      telemetryTopic(this.tenant, vehicleId),
      encodeMessage(telemetry),
    );
  }

  private publishConnectivity(vehicleId: string, online: boolean, reason: ConnectivityReason): Promise<void> {
    const message: VehicleConnectivity = { online, at: this.now().toISOString(), reason };
    return this.publish(vehicleId, 'state', stateTopic(this.tenant, vehicleId), encodeMessage(message));
  }

  private publish(vehicleId: string, channel: VehicleChannel, topic: string, payload: string): Promise<void> {
    const client = this.clientByVehicle.get(vehicleId);
    if (!client) return Promise.reject(new Error(`vehicle ${vehicleId} has no MQTT connection`));
    const { qos, retain } = vehicleChannelDelivery[channel];
    return new Promise((resolve, reject) => {
      client.publish(topic, payload, { qos, retain }, (error) => (error ? reject(error) : resolve()));
    });
  }

  private async closeLinks(): Promise<void> {
    const links = this.links;
    this.links = [];
    this.clientByVehicle.clear();
    await Promise.all(links.map((link) => endClient(link.client)));
  }

  private requireVehicle(vehicleId: string): SimulatedVehicle {
    const vehicle = this.vehicles.get(vehicleId);
    if (!vehicle) throw new Error(`Vehicle ${vehicleId} is not part of this simulation`);
    return vehicle;
  }

  private requireRunning(): void {
    if (this.state !== 'running') throw new Error(`FleetSimulator is ${this.state}, not running`);
  }
}

/** Rejects configurations that would produce broken topics or ambiguous routing, before any connection. */
function validateOptions(options: FleetSimulatorOptions): void {
  if (!isValidTopicSegment(options.tenant)) throw new Error(`Invalid simulator tenant "${options.tenant}"`);
  const interval = options.telemetryIntervalMs;
  if (interval !== undefined && !(interval > 0 && Number.isFinite(interval))) {
    throw new Error(`telemetryIntervalMs must be a positive number, got ${interval}`);
  }
  const seen = new Set<string>();
  for (const spec of options.vehicles) {
    validateVehicleSpec(spec);
    if (seen.has(spec.vehicleId)) throw new Error(`Duplicate vehicleId ${spec.vehicleId} in simulator fleet`);
    seen.add(spec.vehicleId);
  }
}

/** Checks one fleet entry; exported for the CLI so a bad fleet file fails with a precise message. */
export function validateVehicleSpec(spec: SimulatedVehicleSpec): void {
  const label = `vehicle ${JSON.stringify(spec.vehicleId)}`;
  if (typeof spec.vehicleId !== 'string' || !isValidTopicSegment(spec.vehicleId)) {
    throw new Error(`${label}: vehicleId must be a non-empty string without / + #`);
  }
  if (typeof spec.code !== 'string') throw new Error(`${label}: code must be a string`);
  const { lat, lng } = spec.position ?? {};
  if (!isFiniteIn(lat, -90, 90) || !isFiniteIn(lng, -180, 180)) {
    throw new Error(`${label}: position must be { lat: -90..90, lng: -180..180 }`);
  }
  if (!isFiniteIn(spec.stateOfCharge, 0, 100)) throw new Error(`${label}: stateOfCharge must be 0..100`);
  if (spec.odometerKm !== undefined && !isFiniteIn(spec.odometerKm, 0, Number.MAX_VALUE)) {
    throw new Error(`${label}: odometerKm must be a number of km, 0 or more, when present`);
  }
  if (spec.hasTailbox !== undefined && typeof spec.hasTailbox !== 'boolean') {
    throw new Error(`${label}: hasTailbox must be a boolean when present`);
  }
}

function isFiniteIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function subscribe(client: MqttClient, topics: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    client.subscribe(topics, { qos: 1 }, (error, granted) => {
      if (error) return reject(error);
      const refused = granted?.filter((grant) => grant.qos === 128).map((grant) => grant.topic) ?? [];
      if (refused.length > 0) return reject(new Error(`Broker refused subscriptions: ${refused.join(', ')}`));
      resolve();
    });
  });
}

function endClient(client: MqttClient): Promise<void> {
  return new Promise((resolve) => {
    // A connected client flushes in-flight packets and sends DISCONNECT; an offline one is torn down at once.
    client.end(!client.connected, {}, () => resolve());
  });
}

/** Waits for `promise` at most `ms`; true when it settled successfully in time. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}
