// The MQTT contract between the fleetflow backend and vehicles (see docs/device-protocol.md).
// Pure: no I/O, no Node-only APIs, so workflows, activities, the API and devices can all import it.

import type { VehicleSensors } from '../domain/vehicle.js';
import { debugCommandName, vehicleCommandNames, type VehicleCommandName } from '../domain/vehicle.js';

/** Root of every fleetflow topic, so all traffic can be ACL'd and bridged with one prefix. */
export const topicRoot = 'fleetflow';

/** Per-vehicle channels under `fleetflow/{tenant}/vehicles/{vehicleId}/{channel}`. */
export const vehicleChannels = ['commands', 'replies', 'telemetry', 'state'] as const;

/** One of the per-vehicle channels; the last segment of a vehicle topic. */
export type VehicleChannel = (typeof vehicleChannels)[number];

/** MQTT quality of service levels this protocol uses (0 = at most once, 1 = at least once). */
export type MqttQos = 0 | 1;

/** Delivery rules per channel, so publishers on both sides cannot disagree on QoS or retain. */
export const vehicleChannelDelivery: Readonly<Record<VehicleChannel, { qos: MqttQos; retain: boolean }>> = {
  commands: { qos: 1, retain: false },
  replies: { qos: 1, retain: false },
  telemetry: { qos: 0, retain: false },
  state: { qos: 1, retain: true },
};

// The command vocabulary is the fleet domain's (domain/vehicle.ts); devices carry it.
export { vehicleCommandNames, debugCommandName, type VehicleCommandName };

/** Outcomes a vehicle can report for a command. */
export const vehicleCommandStatuses = ['OK', 'REFUSED', 'ERROR'] as const;

/** OK = done; REFUSED = understood but declined (precondition); ERROR = could not process. */
export type VehicleCommandStatus = (typeof vehicleCommandStatuses)[number];

/** Vehicle power states reported in telemetry. */
export const powerStates = ['ON', 'OFF', 'UNKNOWN'] as const;

/** Whether the vehicle's drive train is powered; UNKNOWN when the IoT module cannot tell. */
export type PowerState = (typeof powerStates)[number];

/** Why a connectivity message was published. */
export const connectivityReasons = ['CONNECTED', 'LAST_WILL', 'SHUTDOWN'] as const;

/** CONNECTED = session up; LAST_WILL = broker saw the link die; SHUTDOWN = orderly disconnect. */
export type ConnectivityReason = (typeof connectivityReasons)[number];

/** Simulator behaviour modes, for tests and demos that need misbehaving vehicles. */
export const simulatorModes = ['NORMAL', 'REFUSE', 'SILENT', 'SLOW', 'OFFLINE'] as const;

/**
 * NORMAL executes; REFUSE answers REFUSED to everything; SILENT drops commands without answering; SLOW
 * executes but answers late; OFFLINE goes offline (state channel), drops commands and sends no telemetry
 * until another mode brings it back online.
 */
export type SimulatorMode = (typeof simulatorModes)[number];

/** Longest commandId accepted, so a hostile payload cannot grow idempotency caches without bound. */
export const maxCommandIdLength = 256;

/** A WGS84 coordinate in decimal degrees. */
export interface GeoPosition {
  lat: number;
  lng: number;
}

/** Backend → vehicle command, on the `commands` channel. */
export interface VehicleCommandMessage {
  /** Correlation and idempotency key; retries of the same command reuse it. */
  commandId: string;
  command: VehicleCommandName;
  params?: Record<string, unknown>;
  /** ISO-8601 instant the backend issued this attempt. */
  issuedAt: string;
  /** ISO-8601 instant after which the vehicle must ignore this message. */
  expiresAt: string;
  /**
   * W3C trace context of the command's span when the backend traces (docs/observability.md); devices
   * may continue the trace with it and otherwise ignore it, like any unknown field.
   */
  traceparent?: string;
}

/** A structurally valid command whose name may be unknown to this device (answered with ERROR). */
export type IncomingVehicleCommand = Omit<VehicleCommandMessage, 'command'> & { command: string };

/** Machine- and human-readable reason attached to REFUSED and ERROR replies. */
export interface FailureReason {
  code?: string;
  description?: string;
}

/** Vehicle → backend answer to a command, on the `replies` channel. */
export interface VehicleCommandReply {
  commandId: string;
  status: VehicleCommandStatus;
  failureReason?: FailureReason;
  data?: Record<string, unknown>;
  /** ISO-8601 instant the vehicle produced the reply. */
  at: string;
}

/** Periodic vehicle report, on the `telemetry` channel. */
export interface VehicleTelemetry {
  at: string;
  position: GeoPosition;
  /** Traction battery charge in percent, 0..100. */
  stateOfCharge?: number;
  /** Supply voltage of the IoT module in volts. */
  iotModuleVoltage?: number;
  powerState: PowerState;
  locked: boolean;
  tailboxOpen?: boolean;
  speedKmh?: number;
  odometerKm?: number;
  /** GNSS horizontal dilution of precision; lower is better. */
  hdop?: number;
  charging?: boolean;
  /** Speed limit configured on the device (SET_MAX_SPEED). */
  maxSpeedKmh?: number;
  /** Individual battery packs. */
  batteries?: BatteryInfo[];
  /** Maximum capacity of the traction battery in watt-hours. */
  batteryMaxCapacityWh?: number;
  /** Equipment sensors the vehicle has (end requirements read them); absent keys: no such sensor. */
  sensors?: EquipmentSensors;
}

/**
 * Equipment state a device may report, in telemetry and in command replies (`data.sensors`): the
 * backend's `VehicleSensors` (booleans, and counts 0..100 for helmets and RFID cards).
 */
export type EquipmentSensors = VehicleSensors;

const booleanSensors = [
  'doorsClosed',
  'tailboxClosed',
  'bikeLockLocked',
  'keyInHolder',
  'parkBrakeOn',
  'statusTurnedOff',
  'lockedInStation',
] as const;
const countSensors = ['helmetsPluggedIn', 'rfidCardsInHolder'] as const;

/** Validates a sensors object: only known keys, booleans and integer counts 0..100; undefined on junk. */
export function parseEquipmentSensors(value: unknown): EquipmentSensors | undefined {
  if (!isPlainObject(value)) return undefined;
  const sensors: EquipmentSensors = {};
  for (const [key, reading] of Object.entries(value)) {
    if ((booleanSensors as readonly string[]).includes(key)) {
      if (typeof reading !== 'boolean') return undefined;
      sensors[key as (typeof booleanSensors)[number]] = reading;
    } else if ((countSensors as readonly string[]).includes(key)) {
      if (!Number.isInteger(reading) || !isNumberInRange(reading, 0, 100)) return undefined;
      sensors[key as (typeof countSensors)[number]] = reading as number;
    } else return undefined;
  }
  return sensors;
}

/** One battery pack of a vehicle, as reported in telemetry. */
export interface BatteryInfo {
  id: string;
  stateOfCharge: number;
  voltage?: number;
  temperatureC?: number;
}

/** Retained online/offline status, on the `state` channel. */
export interface VehicleConnectivity {
  online: boolean;
  at: string;
  reason?: ConnectivityReason;
}

/** Control message for the simulator's per-vehicle behaviour. */
export interface SimulatorBehaviour {
  mode: SimulatorMode;
}

/** Result of parsing a per-vehicle topic. */
export interface VehicleTopic {
  tenant: string;
  vehicleId: string;
  channel: VehicleChannel;
}

/** Result of parsing a simulator behaviour topic. */
export interface SimulatorBehaviourTopic {
  tenant: string;
  vehicleId: string;
}

/** What a docking station reports about one of its slots. */
export const slotEvents = ['CONNECTED', 'DISCONNECTED'] as const;

/** CONNECTED = a vehicle locked into the slot; DISCONNECTED = the slot released or lost its vehicle. */
export type SlotEvent = (typeof slotEvents)[number];

/** Highest station id, slot number or vehicle id a station may report (the database's integer columns). */
export const maxReportedInteger = 2147483647;

/** Longest vehicle code a station may report (the vehicle entity's code column). */
export const maxVehicleCodeLength = 64;

/**
 * Station → backend report of a vehicle connecting to or disconnecting from one slot, on the station's
 * `slots` topic. The vehicle is named by the backend id (`vehicleId`) or by the code printed on it /
 * read from its tag (`vehicleCode`): exactly one for CONNECTED, at most one for DISCONNECTED.
 */
export interface PhysicalStationSlotReport {
  /** The slot's number as painted on the station, ≥ 1. */
  slotNumber: number;
  event: SlotEvent;
  vehicleId?: number;
  vehicleCode?: string;
  /** ISO-8601 instant the station saw the change. */
  at: string;
}

/** Result of parsing a physical station topic. */
export interface PhysicalStationTopic {
  tenant: string;
  stationId: string;
}

// ---------------------------------------------------------------------------------------------
// Topics

/** True when `segment` can be a tenant or vehicle id inside a topic (non-empty, no separators or wildcards). */
export function isValidTopicSegment(segment: string): boolean {
  return segment.length > 0 && !/[/+#]/.test(segment) && !segment.includes('\0');
}

function assertTopicSegment(kind: string, segment: string): void {
  if (!isValidTopicSegment(segment)) {
    throw new Error(
      `Invalid ${kind} for an MQTT topic: "${segment}" (must be non-empty without / + # or NUL)`,
    );
  }
}

/** Builds `fleetflow/{tenant}/vehicles/{vehicleId}/{channel}`; throws on ids that would corrupt the topic. */
export function vehicleTopic(tenant: string, vehicleId: string, channel: VehicleChannel): string {
  assertTopicSegment('tenant', tenant);
  assertTopicSegment('vehicleId', vehicleId);
  return `${topicRoot}/${tenant}/vehicles/${vehicleId}/${channel}`;
}

/** Topic the backend publishes commands to for one vehicle. */
export function commandTopic(tenant: string, vehicleId: string): string {
  return vehicleTopic(tenant, vehicleId, 'commands');
}

/** Topic one vehicle publishes command replies to. */
export function replyTopic(tenant: string, vehicleId: string): string {
  return vehicleTopic(tenant, vehicleId, 'replies');
}

/** Topic one vehicle publishes periodic telemetry to. */
export function telemetryTopic(tenant: string, vehicleId: string): string {
  return vehicleTopic(tenant, vehicleId, 'telemetry');
}

/** Retained topic carrying one vehicle's online/offline status (and its last will). */
export function stateTopic(tenant: string, vehicleId: string): string {
  return vehicleTopic(tenant, vehicleId, 'state');
}

/** Subscription filter for a channel across vehicles and/or tenants; omitted ids become `+`. */
export function vehicleTopicFilter(
  channel: VehicleChannel,
  scope: { tenant?: string; vehicleId?: string } = {},
): string {
  const tenant = scope.tenant ?? '+';
  const vehicleId = scope.vehicleId ?? '+';
  if (tenant !== '+') assertTopicSegment('tenant', tenant);
  if (vehicleId !== '+') assertTopicSegment('vehicleId', vehicleId);
  return `${topicRoot}/${tenant}/vehicles/${vehicleId}/${channel}`;
}

/** Filter matching every vehicle's replies in every tenant; what the backend's command client subscribes to. */
export const allVehicleRepliesFilter = vehicleTopicFilter('replies');

/** Topic that switches one simulated vehicle's behaviour (simulator only, never real devices). */
export function simulatorBehaviourTopic(tenant: string, vehicleId: string): string {
  assertTopicSegment('tenant', tenant);
  assertTopicSegment('vehicleId', vehicleId);
  return `${topicRoot}/${tenant}/simulator/vehicles/${vehicleId}/behaviour`;
}

/** Subscription filter for behaviour control of all simulated vehicles of a tenant. */
export function simulatorBehaviourFilter(tenant: string): string {
  assertTopicSegment('tenant', tenant);
  return `${topicRoot}/${tenant}/simulator/vehicles/+/behaviour`;
}

/** Topic one physical (docking) station publishes its slot reports to. */
export function physicalStationSlotsTopic(tenant: string, stationId: string): string {
  assertTopicSegment('tenant', tenant);
  assertTopicSegment('stationId', stationId);
  return `${topicRoot}/${tenant}/physical-stations/${stationId}/slots`;
}

/** Subscription filter for slot reports across stations and/or tenants; omitted ids become `+`. */
export function physicalStationSlotsFilter(scope: { tenant?: string; stationId?: string } = {}): string {
  const tenant = scope.tenant ?? '+';
  const stationId = scope.stationId ?? '+';
  if (tenant !== '+') assertTopicSegment('tenant', tenant);
  if (stationId !== '+') assertTopicSegment('stationId', stationId);
  return `${topicRoot}/${tenant}/physical-stations/${stationId}/slots`;
}

/** Delivery rule of slot reports: at least once (each is a physical fact), never retained. */
export const physicalStationSlotsDelivery: Readonly<{ qos: MqttQos; retain: boolean }> = {
  qos: 1,
  retain: false,
};

/** Splits a concrete slot report topic; undefined for anything that is not one. */
export function parsePhysicalStationSlotsTopic(topic: string): PhysicalStationTopic | undefined {
  const parts = topic.split('/');
  if (parts.length !== 5) return undefined;
  const [root, tenant, stations, stationId, leaf] = parts as [string, string, string, string, string];
  if (root !== topicRoot || stations !== 'physical-stations' || leaf !== 'slots') return undefined;
  if (!isValidTopicSegment(tenant) || !isValidTopicSegment(stationId)) return undefined;
  return { tenant, stationId };
}

function isVehicleChannel(value: string): value is VehicleChannel {
  return (vehicleChannels as readonly string[]).includes(value);
}

/** Splits a concrete vehicle topic into its parts; undefined for anything that is not one. */
export function parseVehicleTopic(topic: string): VehicleTopic | undefined {
  const parts = topic.split('/');
  if (parts.length !== 5) return undefined;
  const [root, tenant, vehicles, vehicleId, channel] = parts as [string, string, string, string, string];
  if (root !== topicRoot || vehicles !== 'vehicles' || !isVehicleChannel(channel)) return undefined;
  if (!isValidTopicSegment(tenant) || !isValidTopicSegment(vehicleId)) return undefined;
  return { tenant, vehicleId, channel };
}

/** Splits a concrete simulator behaviour topic; undefined for anything that is not one. */
export function parseSimulatorBehaviourTopic(topic: string): SimulatorBehaviourTopic | undefined {
  const parts = topic.split('/');
  if (parts.length !== 6) return undefined;
  const [root, tenant, simulator, vehicles, vehicleId, leaf] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (root !== topicRoot || simulator !== 'simulator' || vehicles !== 'vehicles' || leaf !== 'behaviour') {
    return undefined;
  }
  if (!isValidTopicSegment(tenant) || !isValidTopicSegment(vehicleId)) return undefined;
  return { tenant, vehicleId };
}

// ---------------------------------------------------------------------------------------------
// Payloads

/** Serialises a protocol message for publishing (UTF-8 JSON, the only payload encoding). */
export function encodeMessage(
  message:
    | VehicleCommandMessage
    | VehicleCommandReply
    | VehicleTelemetry
    | VehicleConnectivity
    | SimulatorBehaviour
    | PhysicalStationSlotReport,
): string {
  return JSON.stringify(message);
}

/** True when the command's expiry has passed at `now`; devices must then drop it unanswered. */
export function isCommandExpired(message: Pick<VehicleCommandMessage, 'expiresAt'>, now: Date): boolean {
  return Date.parse(message.expiresAt) <= now.getTime();
}

/** Type guard for command names, so devices can answer unknown commands with ERROR instead of crashing. */
export function isVehicleCommandName(value: unknown): value is VehicleCommandName {
  return typeof value === 'string' && (vehicleCommandNames as readonly string[]).includes(value);
}

type JsonObject = Record<string, unknown>;

/** Accepts a raw MQTT payload (bytes or text) or an already-decoded value; undefined unless it is a JSON object. */
function decodeObject(payload: unknown): JsonObject | undefined {
  let value: unknown = payload;
  try {
    // ArrayBuffer.isView instead of instanceof: Buffers from another realm (jest, Temporal sandbox) still match.
    if (ArrayBuffer.isView(payload))
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload as Uint8Array));
    else if (typeof payload === 'string') value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  return isPlainObject(value) ? value : undefined;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON `null` is treated as "field absent", which many device firmwares emit for unknown values. */
function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function isIsoInstant(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value));
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isNumberInRange(value: unknown, min: number, max: number): value is number {
  return isFiniteNumber(value) && value >= min && value <= max;
}

function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

function isCommandId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxCommandIdLength;
}

/** Marker for "present but invalid", distinct from "absent" (undefined). */
const invalid = Symbol('invalid');

/** Reads an optional field: undefined when absent, `invalid` when present with the wrong shape. */
function optionalField<T>(value: unknown, guard: (v: unknown) => v is T): T | undefined | typeof invalid {
  if (isAbsent(value)) return undefined;
  return guard(value) ? value : invalid;
}

function parsePosition(value: unknown): GeoPosition | undefined {
  if (!isPlainObject(value)) return undefined;
  const { lat, lng } = value;
  if (!isNumberInRange(lat, -90, 90) || !isNumberInRange(lng, -180, 180)) return undefined;
  return { lat, lng };
}

function parseFailureReason(value: unknown): FailureReason | undefined | typeof invalid {
  if (isAbsent(value)) return undefined;
  if (!isPlainObject(value)) return invalid;
  const code = optionalField(value.code, (v): v is string => typeof v === 'string');
  const description = optionalField(value.description, (v): v is string => typeof v === 'string');
  if (code === invalid || description === invalid) return invalid;
  return withoutUndefined({ code, description });
}

/** Drops undefined properties so parsed messages compare and serialise cleanly. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Validates a command payload. The command name is only checked to be a non-empty string, so a
 * device can answer commands it does not know with ERROR rather than ignoring them.
 */
export function parseIncomingVehicleCommand(payload: unknown): IncomingVehicleCommand | undefined {
  const value = decodeObject(payload);
  if (!value) return undefined;
  const { commandId, command, issuedAt, expiresAt } = value;
  if (!isCommandId(commandId) || typeof command !== 'string' || command.length === 0) return undefined;
  if (!isIsoInstant(issuedAt) || !isIsoInstant(expiresAt)) return undefined;
  const params = optionalField(value.params, isPlainObject);
  if (params === invalid) return undefined;
  return withoutUndefined({ commandId, command, params, issuedAt, expiresAt });
}

/** Validates a command payload including a known command name; undefined on junk. */
export function parseVehicleCommandMessage(payload: unknown): VehicleCommandMessage | undefined {
  const message = parseIncomingVehicleCommand(payload);
  if (!message || !isVehicleCommandName(message.command)) return undefined;
  return { ...message, command: message.command };
}

/** Validates a command reply payload; undefined on junk. */
export function parseVehicleCommandReply(payload: unknown): VehicleCommandReply | undefined {
  const value = decodeObject(payload);
  if (!value) return undefined;
  const { commandId, status, at } = value;
  if (!isCommandId(commandId) || !isOneOf(vehicleCommandStatuses, status) || !isIsoInstant(at))
    return undefined;
  const failureReason = parseFailureReason(value.failureReason);
  const data = optionalField(value.data, isPlainObject);
  if (failureReason === invalid || data === invalid) return undefined;
  return withoutUndefined({ commandId, status, failureReason, data, at });
}

/** Validates a telemetry payload; undefined on junk, including out-of-range values. */
export function parseVehicleTelemetry(payload: unknown): VehicleTelemetry | undefined {
  const value = decodeObject(payload);
  if (!value) return undefined;
  const position = parsePosition(value.position);
  const { at, powerState, locked } = value;
  if (!position || !isIsoInstant(at) || !isOneOf(powerStates, powerState) || typeof locked !== 'boolean') {
    return undefined;
  }
  const optional = {
    stateOfCharge: optionalField(value.stateOfCharge, (v): v is number => isNumberInRange(v, 0, 100)),
    iotModuleVoltage: optionalField(value.iotModuleVoltage, isFiniteNumber),
    tailboxOpen: optionalField(value.tailboxOpen, (v): v is boolean => typeof v === 'boolean'),
    speedKmh: optionalField(value.speedKmh, (v): v is number => isNumberInRange(v, 0, 1000)),
    odometerKm: optionalField(value.odometerKm, (v): v is number => isNumberInRange(v, 0, Number.MAX_VALUE)),
    hdop: optionalField(value.hdop, (v): v is number => isNumberInRange(v, 0, Number.MAX_VALUE)),
    charging: optionalField(value.charging, (v): v is boolean => typeof v === 'boolean'),
    maxSpeedKmh: optionalField(value.maxSpeedKmh, (v): v is number => isNumberInRange(v, 0, 1000)),
    batteries: optionalField(value.batteries, isBatteryList),
    batteryMaxCapacityWh: optionalField(value.batteryMaxCapacityWh, (v): v is number =>
      isNumberInRange(v, 0, 10_000_000),
    ),
    sensors: optionalField(
      value.sensors,
      (v): v is EquipmentSensors => parseEquipmentSensors(v) !== undefined,
    ),
  };
  if (Object.values(optional).some((v) => v === invalid)) return undefined;
  return withoutUndefined({ at, position, powerState, locked, ...(optional as Partial<VehicleTelemetry>) });
}

function isBatteryList(value: unknown): value is BatteryInfo[] {
  return (
    Array.isArray(value) &&
    value.length <= 16 &&
    value.every(
      (battery) =>
        isPlainObject(battery) &&
        typeof battery.id === 'string' &&
        battery.id.length > 0 &&
        battery.id.length <= 64 &&
        isNumberInRange(battery.stateOfCharge, 0, 100) &&
        (isAbsent(battery.voltage) || isNumberInRange(battery.voltage, 0, 10_000)) &&
        (isAbsent(battery.temperatureC) || isNumberInRange(battery.temperatureC, -100, 200)),
    )
  );
}

/** Validates a connectivity (state channel) payload; undefined on junk. */
export function parseVehicleConnectivity(payload: unknown): VehicleConnectivity | undefined {
  const value = decodeObject(payload);
  if (!value) return undefined;
  const { online, at } = value;
  if (typeof online !== 'boolean' || !isIsoInstant(at)) return undefined;
  const reason = optionalField(value.reason, (v): v is ConnectivityReason => isOneOf(connectivityReasons, v));
  if (reason === invalid) return undefined;
  return withoutUndefined({ online, at, reason });
}

/** Validates a simulator behaviour control payload; undefined on junk. */
export function parseSimulatorBehaviour(payload: unknown): SimulatorBehaviour | undefined {
  const value = decodeObject(payload);
  if (!value || !isOneOf(simulatorModes, value.mode)) return undefined;
  return { mode: value.mode };
}

function isPositiveId(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= maxReportedInteger
  );
}

function isVehicleCode(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxVehicleCodeLength &&
    !value.includes('\0')
  );
}

/**
 * Validates a slot report; undefined on junk: a slot number that is not a positive integer, an unknown
 * event, a bad instant, a vehicle named both by id and code, or a CONNECTED report naming no vehicle.
 */
export function parsePhysicalStationSlotReport(payload: unknown): PhysicalStationSlotReport | undefined {
  const value = decodeObject(payload);
  if (!value) return undefined;
  const { slotNumber, event, at } = value;
  if (!isPositiveId(slotNumber) || !isOneOf(slotEvents, event) || !isIsoInstant(at)) return undefined;
  const vehicleId = optionalField(value.vehicleId, isPositiveId);
  const vehicleCode = optionalField(value.vehicleCode, isVehicleCode);
  if (vehicleId === invalid || vehicleCode === invalid) return undefined;
  if (vehicleId !== undefined && vehicleCode !== undefined) return undefined;
  if (event === 'CONNECTED' && vehicleId === undefined && vehicleCode === undefined) return undefined;
  return withoutUndefined({ slotNumber, event, vehicleId, vehicleCode, at });
}
