// In-memory model of one vehicle's firmware: command semantics, idempotency, expiry, movement and telemetry.
// No I/O: FleetSimulator moves bytes, this decides what a vehicle does with them.
import {
  isCommandExpired,
  isVehicleCommandName,
  parseIncomingVehicleCommand,
  type EquipmentSensors,
  type FailureReason,
  type GeoPosition,
  type IncomingVehicleCommand,
  type SimulatorMode,
  type VehicleCommandName,
  type VehicleCommandReply,
  type VehicleTelemetry,
} from './protocol.js';

/** How a vehicle enters the simulation (also the shape of each entry of the fleet file). */
export interface SimulatedVehicleSpec {
  vehicleId: string;
  /** Human-readable code printed on the vehicle. */
  code: string;
  position: GeoPosition;
  /** Initial state of charge in percent, 0..100. */
  stateOfCharge: number;
  hasTailbox?: boolean;
  /** Plugged in: the battery charges while the vehicle stands (reported as `charging`). */
  charging?: boolean;
  /** What the odometer reads when the simulation starts (km, default 0): the vehicle's recorded reading. */
  odometerKm?: number;
}

/** Point-in-time copy of a simulated vehicle's state, for tests and logs. */
export interface SimulatedVehicleSnapshot {
  vehicleId: string;
  code: string;
  position: GeoPosition;
  /** Where the vehicle started; its random walk stays near it. */
  home: GeoPosition;
  stateOfCharge: number;
  odometerKm: number;
  powerState: 'ON' | 'OFF';
  locked: boolean;
  hasTailbox: boolean;
  tailboxOpen: boolean;
  tailboxLocked: boolean;
  alarmOn: boolean;
  maxSpeedKmh?: number;
  speedKmh: number;
  behaviour: SimulatorMode;
  /** Commands actually executed (replays of a known commandId do not count). */
  executedCommands: number;
}

/** What the vehicle did with an incoming command payload. */
export type CommandHandling =
  | { kind: 'reply'; reply: VehicleCommandReply; replayed: boolean }
  | { kind: 'dropped'; reason: 'MALFORMED' | 'EXPIRED' | 'SILENT'; commandId?: string };

/** Tunables of the vehicle model; defaults are realistic enough for demos. */
export interface SimulatedVehicleOptions {
  /** Source of randomness in [0, 1); inject a seeded one for reproducible runs. */
  random?: () => number;
  /** How many replies are remembered for idempotent replays. */
  replyCacheSize?: number;
  /** Radius in metres the random walk stays within around the start position. */
  wanderRadiusM?: number;
}

type CommandOutcome =
  | { status: 'OK'; data?: Record<string, unknown> }
  | { status: 'REFUSED' | 'ERROR'; failureReason: FailureReason };

type CommandHandler = (params: Record<string, unknown>) => CommandOutcome;

const metresPerDegreeLat = 111_320;
const defaultReplyCacheSize = 256;
const defaultWanderRadiusM = 300;
const maxSettableSpeedKmh = 100;
const defaultTopSpeedKmh = 25;

/** One simulated vehicle: a deterministic-given-`random` state machine driven by commands and ticks. */
export class SimulatedVehicle {
  readonly vehicleId: string;
  private readonly code: string;
  private readonly home: GeoPosition;
  private readonly hasTailbox: boolean;
  private readonly random: () => number;
  private readonly replyCacheSize: number;
  private readonly wanderRadiusM: number;
  private readonly replies = new Map<string, VehicleCommandReply>();
  private readonly handlers: Record<VehicleCommandName, CommandHandler>;
  private position: GeoPosition;
  private stateOfCharge: number;
  private odometerKm = 0;
  private powerState: 'ON' | 'OFF' = 'OFF';
  private locked = true;
  private tailboxOpen = false;
  private tailboxLocked = true;
  private alarmOn = false;
  private maxSpeedKmh: number | undefined;
  private speedKmh = 0;
  private headingDeg: number;
  private behaviour: SimulatorMode = 'NORMAL';
  private executedCommands = 0;
  private charging: boolean;

  constructor(spec: SimulatedVehicleSpec, options: SimulatedVehicleOptions = {}) {
    this.vehicleId = spec.vehicleId;
    this.code = spec.code;
    this.home = { ...spec.position };
    this.position = { ...spec.position };
    this.stateOfCharge = clamp(spec.stateOfCharge, 0, 100);
    this.hasTailbox = spec.hasTailbox ?? false;
    this.charging = spec.charging ?? false;
    this.odometerKm = Math.max(0, spec.odometerKm ?? 0);
    this.random = options.random ?? Math.random;
    this.replyCacheSize = Math.max(1, options.replyCacheSize ?? defaultReplyCacheSize);
    this.wanderRadiusM = options.wanderRadiusM ?? defaultWanderRadiusM;
    this.headingDeg = this.random() * 360;
    this.handlers = this.commandHandlers();
  }

  /** Switches how the vehicle reacts to commands (NORMAL, REFUSE, SILENT). */
  setBehaviour(mode: SimulatorMode): void {
    this.behaviour = mode;
  }

  /**
   * Applies the device rules to a raw command payload, in order: drop malformed, drop expired,
   * drop everything when SILENT, replay the cached reply of a known commandId, refuse when
   * REFUSE, otherwise execute once and remember the reply.
   */
  receiveCommand(payload: unknown, now: Date): CommandHandling {
    const message = parseIncomingVehicleCommand(payload);
    if (!message) return { kind: 'dropped', reason: 'MALFORMED' };
    if (isCommandExpired(message, now))
      return { kind: 'dropped', reason: 'EXPIRED', commandId: message.commandId };
    if (this.behaviour === 'SILENT' || this.behaviour === 'OFFLINE')
      return { kind: 'dropped', reason: 'SILENT', commandId: message.commandId };
    const cached = this.replies.get(message.commandId);
    if (cached) return { kind: 'reply', reply: cached, replayed: true };
    const reply = toReply(message.commandId, this.decide(message), now);
    this.remember(reply);
    return { kind: 'reply', reply, replayed: false };
  }

  /** Moves an unlocked vehicle `metres` along its heading at once (tests and demos of a real trip). */
  ride(metres: number): void {
    if (!this.isRiding() || metres <= 0) return;
    this.position = offsetPosition(this.position, metres, this.headingDeg);
    this.odometerKm += metres / 1000;
    this.drainBattery(metres * 0.002);
  }

  /** Advances the simulation by one telemetry period: rides move, drain the battery and add distance. */
  advance(elapsedMs: number): void {
    if (!this.isRiding() || elapsedMs <= 0) {
      this.speedKmh = 0;
      // Standing on a charger: about 1 % per minute.
      if (this.charging && elapsedMs > 0)
        this.stateOfCharge = Math.min(100, this.stateOfCharge + elapsedMs / 60_000);
      return;
    }
    // A few metres per tick, but never faster than the speed limit allows for short tick periods.
    const topSpeedKmh = this.maxSpeedKmh ?? defaultTopSpeedKmh;
    const distanceM = Math.min(2 + this.random() * 6, (topSpeedKmh / 3.6) * (elapsedMs / 1000));
    this.steer();
    this.position = offsetPosition(this.position, distanceM, this.headingDeg);
    this.odometerKm += distanceM / 1000;
    this.speedKmh = (distanceM / (elapsedMs / 1000)) * 3.6;
    this.drainBattery(0.02 + distanceM * 0.002);
  }

  /** Telemetry message describing the current state. */
  telemetry(now: Date): VehicleTelemetry {
    return {
      at: now.toISOString(),
      position: { ...this.position },
      stateOfCharge: round(this.stateOfCharge, 1),
      iotModuleVoltage: round(4.05 + this.random() * 0.1, 2),
      powerState: this.powerState,
      locked: this.locked,
      ...(this.hasTailbox ? { tailboxOpen: this.tailboxOpen } : {}),
      speedKmh: round(this.speedKmh, 1),
      odometerKm: round(this.odometerKm, 3),
      hdop: round(0.7 + this.random() * 0.8, 1),
      charging: this.charging,
      sensors: this.sensors(),
    };
  }

  /**
   * Equipment sensors: a vehicle with a tailbox is modelled as a car (doors, key holder, parking
   * brake, RFID card holder, turned off with the engine), one without as a two-wheeler (bike lock
   * locked with the vehicle, one helmet in its holder).
   */
  sensors(): EquipmentSensors {
    if (this.hasTailbox)
      return {
        doorsClosed: true,
        tailboxClosed: !this.tailboxOpen,
        keyInHolder: true,
        parkBrakeOn: this.speedKmh === 0,
        statusTurnedOff: this.powerState === 'OFF',
        rfidCardsInHolder: 1,
      };
    return { bikeLockLocked: this.locked, helmetsPluggedIn: 1 };
  }

  /** Copy of the full state; mutating it does not affect the vehicle. */
  snapshot(): SimulatedVehicleSnapshot {
    return {
      vehicleId: this.vehicleId,
      code: this.code,
      position: { ...this.position },
      home: { ...this.home },
      stateOfCharge: this.stateOfCharge,
      odometerKm: this.odometerKm,
      powerState: this.powerState,
      locked: this.locked,
      hasTailbox: this.hasTailbox,
      tailboxOpen: this.tailboxOpen,
      tailboxLocked: this.tailboxLocked,
      alarmOn: this.alarmOn,
      ...(this.maxSpeedKmh !== undefined ? { maxSpeedKmh: this.maxSpeedKmh } : {}),
      speedKmh: this.speedKmh,
      behaviour: this.behaviour,
      executedCommands: this.executedCommands,
    };
  }

  private decide(message: IncomingVehicleCommand): CommandOutcome {
    if (this.behaviour === 'REFUSE') {
      return refused('SIMULATED_REFUSAL', 'Simulator behaviour REFUSE is active for this vehicle');
    }
    if (!isVehicleCommandName(message.command)) {
      return failed('UNKNOWN_COMMAND', `Command ${message.command} is not supported by this vehicle`);
    }
    const outcome = this.handlers[message.command](message.params ?? {});
    if (outcome.status === 'OK') this.executedCommands += 1;
    return outcome;
  }

  private remember(reply: VehicleCommandReply): void {
    this.replies.set(reply.commandId, reply);
    while (this.replies.size > this.replyCacheSize) {
      const oldest = this.replies.keys().next().value as string;
      this.replies.delete(oldest);
    }
  }

  private commandHandlers(): Record<VehicleCommandName, CommandHandler> {
    return {
      START: () => this.powerOn(),
      STOP: () => this.powerOff(),
      LOCK: () => this.lock(),
      UNLOCK: () => this.unlock(),
      LOCATE: () => this.ok({ hdop: round(0.7 + this.random() * 0.8, 1) }),
      OPEN_SADDLE: () => this.ok({ saddleOpened: true }),
      OPEN_TAILBOX: () => this.withTailbox(() => this.setTailbox({ open: true, locked: false })),
      LOCK_TAILBOX: () => this.withTailbox(() => this.setTailbox({ open: false, locked: true })),
      UNLOCK_TAILBOX: () =>
        this.withTailbox(() => this.setTailbox({ open: this.tailboxOpen, locked: false })),
      ALARM_ON: () => this.setAlarm(true),
      ALARM_OFF: () => this.setAlarm(false),
      SET_MAX_SPEED: (params) => this.setMaxSpeed(params),
      CUSTOM_COMMAND: (params) => this.ok({ custom: params }),
      UNLOCK_BIKE_LOCK: () => this.releaseBikeLock(),
      UNLOCK_STATION_PORT: (params) => this.ok({ stationPortId: params.portId ?? null }),
      REBOOT: () => this.ok({ rebooted: true }),
      DEBUG: (params) => this.debugConsole(params.input),
    };
  }

  /** A minimal module debug console: one line in, its text answer out (`data.output`). */
  private debugConsole(input: unknown): CommandOutcome {
    if (typeof input !== 'string') return failed('INVALID_PARAMS', 'DEBUG needs params.input (a string)');
    const [word = '', ...rest] = input.trim().split(/\s+/);
    const lines: Record<string, () => string[]> = {
      help: () => ['commands: help, version, status, gps, battery, echo <text>'],
      version: () => ['fleetflow-simulator 1.0 (protocol MQTT 3.1.1)'],
      status: () => [
        `vehicle=${this.vehicleId} code=${this.code}`,
        `power=${this.powerState} locked=${this.locked} alarm=${this.alarmOn} behaviour=${this.behaviour}`,
        `executedCommands=${this.executedCommands}`,
      ],
      gps: () => [`lat=${this.position.lat} lng=${this.position.lng} speedKmh=${this.speedKmh}`],
      battery: () => [`soc=${round(this.stateOfCharge, 1)}%`],
      echo: () => [rest.join(' ')],
    };
    const answer = Object.hasOwn(lines, word.toLowerCase()) ? lines[word.toLowerCase()]!() : undefined;
    return {
      status: 'OK',
      data: { output: (answer ?? [`ERR unknown debug command: ${word.slice(0, 64)}`]).join('\n') },
    };
  }

  private ok(extra: Record<string, unknown> = {}): CommandOutcome {
    return { status: 'OK', data: { ...this.stateData(), ...extra } };
  }

  /** State reported in every OK reply, so the backend learns the effect without waiting for telemetry. */
  private stateData(): Record<string, unknown> {
    return {
      locked: this.locked,
      powerState: this.powerState,
      position: { ...this.position },
      stateOfCharge: round(this.stateOfCharge, 1),
      odometerKm: round(this.odometerKm, 3),
      alarmOn: this.alarmOn,
      ...(this.maxSpeedKmh !== undefined ? { maxSpeedKmh: this.maxSpeedKmh } : {}),
      ...(this.hasTailbox ? { tailboxOpen: this.tailboxOpen, tailboxLocked: this.tailboxLocked } : {}),
      sensors: this.sensors(),
    };
  }

  private powerOn(): CommandOutcome {
    if (this.stateOfCharge <= 0) return refused('BATTERY_EMPTY', 'The traction battery is empty');
    this.powerState = 'ON';
    return this.ok();
  }

  private powerOff(): CommandOutcome {
    this.powerState = 'OFF';
    this.speedKmh = 0;
    return this.ok();
  }

  /** Unlocking makes the vehicle ready to ride: lock released and power on (when there is charge). */
  private unlock(): CommandOutcome {
    this.locked = false;
    if (this.stateOfCharge > 0) this.powerState = 'ON';
    return this.ok();
  }

  /** Locking immobilises the vehicle: lock engaged and power off. */
  private lock(): CommandOutcome {
    this.locked = true;
    this.powerState = 'OFF';
    this.speedKmh = 0;
    return this.ok();
  }

  /** Bikes: opens the mechanical lock without powering any motor. */
  private releaseBikeLock(): CommandOutcome {
    this.locked = false;
    return this.ok();
  }

  private withTailbox(action: () => CommandOutcome): CommandOutcome {
    return this.hasTailbox ? action() : refused('NO_TAILBOX', 'This vehicle has no tailbox');
  }

  private setTailbox(state: { open: boolean; locked: boolean }): CommandOutcome {
    this.tailboxOpen = state.open;
    this.tailboxLocked = state.locked;
    return this.ok();
  }

  private setAlarm(on: boolean): CommandOutcome {
    this.alarmOn = on;
    return this.ok();
  }

  private setMaxSpeed(params: Record<string, unknown>): CommandOutcome {
    const value = params.maxSpeedKmh;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > maxSettableSpeedKmh) {
      return failed('INVALID_PARAMS', `params.maxSpeedKmh must be a number in (0, ${maxSettableSpeedKmh}]`);
    }
    this.maxSpeedKmh = value;
    return this.ok();
  }

  private isRiding(): boolean {
    return !this.locked && this.powerState === 'ON' && this.stateOfCharge > 0;
  }

  /** Random heading drift, turned back home once the walk strays beyond the wander radius. */
  private steer(): void {
    if (distanceMetres(this.position, this.home) > this.wanderRadiusM) {
      this.headingDeg = bearingDegrees(this.position, this.home);
      return;
    }
    this.headingDeg = (this.headingDeg + (this.random() - 0.5) * 90 + 360) % 360;
  }

  private drainBattery(percent: number): void {
    this.stateOfCharge = Math.max(0, this.stateOfCharge - percent);
    if (this.stateOfCharge === 0) {
      this.powerState = 'OFF';
      this.speedKmh = 0;
    }
  }
}

function toReply(commandId: string, outcome: CommandOutcome, now: Date): VehicleCommandReply {
  return { commandId, ...outcome, at: now.toISOString() };
}

function refused(code: string, description: string): CommandOutcome {
  return { status: 'REFUSED', failureReason: { code, description } };
}

function failed(code: string, description: string): CommandOutcome {
  return { status: 'ERROR', failureReason: { code, description } };
}

function offsetPosition(from: GeoPosition, distanceM: number, headingDeg: number): GeoPosition {
  const heading = toRadians(headingDeg);
  const metresPerDegreeLng = metresPerDegreeLat * Math.cos(toRadians(from.lat));
  return {
    lat: round(from.lat + (distanceM * Math.cos(heading)) / metresPerDegreeLat, 7),
    lng: round(from.lng + (distanceM * Math.sin(heading)) / metresPerDegreeLng, 7),
  };
}

/** Equirectangular distance; accurate to well under a metre at the few hundred metres used here. */
function distanceMetres(a: GeoPosition, b: GeoPosition): number {
  const dy = (b.lat - a.lat) * metresPerDegreeLat;
  const dx = (b.lng - a.lng) * metresPerDegreeLat * Math.cos(toRadians((a.lat + b.lat) / 2));
  return Math.hypot(dx, dy);
}

function bearingDegrees(from: GeoPosition, to: GeoPosition): number {
  const dy = to.lat - from.lat;
  const dx = (to.lng - from.lng) * Math.cos(toRadians((from.lat + to.lat) / 2));
  return (toDegrees(Math.atan2(dx, dy)) + 360) % 360;
}

function toRadians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

function toDegrees(radians: number): number {
  return (radians * 180) / Math.PI;
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
