/** Every command a vehicle may receive (the spec's VEHICLE_COMMAND_* event family). */
export const vehicleCommandNames = [
  'START',
  'STOP',
  'LOCK',
  'UNLOCK',
  'LOCATE',
  'OPEN_SADDLE',
  'OPEN_TAILBOX',
  'LOCK_TAILBOX',
  'UNLOCK_TAILBOX',
  'ALARM_ON',
  'ALARM_OFF',
  'SET_MAX_SPEED',
  'CUSTOM_COMMAND',
  'UNLOCK_BIKE_LOCK',
  'UNLOCK_STATION_PORT',
  'REBOOT',
  'DEBUG',
] as const;

/**
 * The raw debug channel: `params.input` is one line for the module's debug console, the OK reply's
 * `data.output` its text answer. Not an operator command (POST /vehicles/{id}/command/debug only).
 */
export const debugCommandName = 'DEBUG';

/** Name of a vehicle command, as carried in `VehicleCommandMessage.command`. */
export type VehicleCommandName = (typeof vehicleCommandNames)[number];

// Pure vehicle rules shared by the API, activities and workflows (no I/O, no Node built-ins).

export const vehicleRentalStates = ['AVAILABLE', 'RESERVATION', 'DRIVING', 'PARKING', 'DELIVERED'] as const;
export type VehicleRentalState = (typeof vehicleRentalStates)[number];

/** Service states named by the spec's VEHICLE_SERVICE_STATE_V2_ event family. */
export const serviceStatesV2 = [
  'FUNCTIONAL',
  'INSPECT',
  'RELOCATE',
  'COLLECT',
  'COLLECT_EXTERNAL',
  'SERVICE_ON_SITE',
  'SERVICE_WORKSHOP',
  'SERVICE_WORKSHOP_INSURANCE',
  'SERVICE_WORKSHOP_QUEUE',
  'SERVICE_EXTERNAL',
  'SERVICE_MECHANICS',
  'REPLACE',
  'IMPOUNDED',
  'LOST',
  'RETIRED',
  'MAINTENANCE',
  'OTHER',
  'WAITING_FOR_PARTS',
  'UNREPAIRABLE',
  'DEFLEETED',
  'OPERATIONAL_HOLD',
  'AWAITING_ACTION',
  'REGULATORY_INSPECTION',
  'REGULATORY_INSPECTION_READY',
  'READY_FOR_DEPLOYMENT',
  'READY_FOR_DEPLOYMENT_NEW',
] as const;
export type ServiceStateV2 = (typeof serviceStatesV2)[number];

/** Service states in which a vehicle may be rented (ready-to-rent rule 2). */
export const operationalServiceStates: readonly ServiceStateV2[] = ['FUNCTIONAL', 'INSPECT', 'RELOCATE'];

export const batteryLevels = ['HIGH', 'MEDIUM', 'LOW', 'CRITICAL', 'UNKNOWN'] as const;
export type BatteryLevel = (typeof batteryLevels)[number];

export const powerStates = ['ON', 'OFF', 'UNKNOWN'] as const;
export type PowerState = (typeof powerStates)[number];

export const unavailabilityReasons = [
  'OUT_OF_ORDER',
  'BATTERY_TOO_LOW',
  'OFFLINE',
  'MUST_REMAIN_ON_CHARGER',
] as const;
export type UnavailabilityReason = (typeof unavailabilityReasons)[number];

/** Lower bounds (state of charge, percent) of each battery level; configured per vehicle category. */
export interface SocLevels {
  high: number;
  medium: number;
  low: number;
}

export const defaultSocLevels: SocLevels = { high: 60, medium: 25, low: 10 };

/** Default IoT module voltage thresholds (volts) when a category uses useIoTBatteryLevel without its own. */
export const defaultIoTBatteryLevels: SocLevels = { high: 3.9, medium: 3.7, low: 3.5 };

/** The configuration keys of a vehicle category named by the spec; all optional, inherited from the parent. */
export interface VehicleCategoryConfiguration {
  socLevels?: SocLevels;
  ioTBatteryLevels?: SocLevels;
  useIoTSoCLevel?: boolean;
  useIoTBatteryLevel?: boolean;
  ignoreSoC?: boolean;
  /** Percent a charging vehicle must reach before it may be rented again. */
  chargingLimit?: number;
  stationChargingToggle?: boolean;
  rentalRequirementsKey?: string;
  priceCalcKey?: string;
  rentalAdditionPriceCalcs?: Record<string, string>;
  preEndRentalActionsKey?: string;
  /** Rental operations (START, END, PARK, DRIVE, RENEW_RESERVATION, OPEN_TAILBOX) this category refuses. */
  disallowedRentalOperations?: string[];
  /** Per-operation overrides, e.g. `{ "START": { "timeoutSeconds": 20 } }`. */
  rentalOperationOverrides?: Record<string, { timeoutSeconds?: number }>;
  /** Device commands operators may send to vehicles of this category. */
  commands?: string[];
  /** Whether vehicles of this category carry a tailbox (OPEN_TAILBOX). */
  hasTailbox?: boolean;
  /** Ids of the configured operations (actions, activities, composite activities) this category offers. */
  actions?: number[];
}

/** Merges a category's configuration over its parent's (child keys win). */
export function effectiveCategoryConfiguration(
  chain: readonly VehicleCategoryConfiguration[],
): VehicleCategoryConfiguration {
  return chain.reduceRight<VehicleCategoryConfiguration>((merged, own) => ({ ...merged, ...own }), {});
}

/** Battery level of a state of charge under the category's thresholds. */
export function batteryLevelFor(
  stateOfCharge: number | null | undefined,
  levels: SocLevels = defaultSocLevels,
): BatteryLevel {
  if (stateOfCharge === null || stateOfCharge === undefined || Number.isNaN(stateOfCharge)) return 'UNKNOWN';
  if (stateOfCharge >= levels.high) return 'HIGH';
  if (stateOfCharge >= levels.medium) return 'MEDIUM';
  if (stateOfCharge >= levels.low) return 'LOW';
  return 'CRITICAL';
}

/**
 * The battery level the rules use: from the IoT module's voltage through `ioTBatteryLevels` when
 * `useIoTBatteryLevel`, from the IoT-reported state of charge when `useIoTSoCLevel`, otherwise from the
 * vehicle's state of charge; always through the category's thresholds.
 */
export function effectiveBatteryLevel(
  input: { stateOfCharge?: number | null; iotStateOfCharge?: number | null; iotModuleLevel?: number | null },
  configuration: VehicleCategoryConfiguration,
): BatteryLevel {
  if (configuration.useIoTBatteryLevel)
    return batteryLevelFor(input.iotModuleLevel, configuration.ioTBatteryLevels ?? defaultIoTBatteryLevels);
  const levels = configuration.socLevels ?? defaultSocLevels;
  if (configuration.useIoTSoCLevel) return batteryLevelFor(input.iotStateOfCharge, levels);
  return batteryLevelFor(input.stateOfCharge, levels);
}

/** The state of charge the rules read (the IoT one when the category says so). */
export function effectiveStateOfCharge(
  input: { stateOfCharge?: number | null; iotStateOfCharge?: number | null },
  configuration: VehicleCategoryConfiguration,
): number | null {
  return (configuration.useIoTSoCLevel ? input.iotStateOfCharge : input.stateOfCharge) ?? null;
}

/** What the ready-to-rent rules look at. */
export interface VehicleReadinessInput {
  rentalState: VehicleRentalState;
  serviceStateV2: ServiceStateV2;
  stateOfCharge: number | null | undefined;
  iotStateOfCharge?: number | null;
  iotModuleLevel?: number | null;
  offline: boolean;
  charging: boolean;
  categoryBookable: boolean;
  configuration: VehicleCategoryConfiguration;
}

export interface VehicleReadiness {
  available: boolean;
  batteryLevel: BatteryLevel;
  unavailabilityReasons: UnavailabilityReason[];
}

/**
 * The spec's ready-to-rent rules. Availability is never derived from rentalState alone:
 * a vehicle in AVAILABLE can still be out of order, flat, offline or tied to its charger.
 * MUST_REMAIN_ON_CHARGER: a charging vehicle below the category's chargingLimit stays on its charger,
 * unless the category turns station charging off (`stationChargingToggle: false`).
 */
export function vehicleReadiness(input: VehicleReadinessInput): VehicleReadiness {
  const reasons: UnavailabilityReason[] = [];
  const { configuration } = input;
  const batteryLevel = effectiveBatteryLevel(input, configuration);
  if (!operationalServiceStates.includes(input.serviceStateV2)) reasons.push('OUT_OF_ORDER');
  if (!configuration.ignoreSoC && batteryLevel !== 'HIGH' && batteryLevel !== 'MEDIUM') {
    reasons.push('BATTERY_TOO_LOW');
  }
  if (input.offline) reasons.push('OFFLINE');
  const limit = configuration.chargingLimit;
  if (
    input.charging &&
    limit !== undefined &&
    configuration.stationChargingToggle !== false &&
    (effectiveStateOfCharge(input, configuration) ?? 0) < limit
  ) {
    reasons.push('MUST_REMAIN_ON_CHARGER');
  }
  const available = input.rentalState === 'AVAILABLE' && input.categoryBookable && reasons.length === 0;
  return { available, batteryLevel, unavailabilityReasons: reasons };
}

/** What a vehicle reported about itself, in telemetry or in a command reply. */
/**
 * Equipment state a device may report beside position and charge; end requirements read it. Absent
 * means the vehicle has no such sensor (the requirement then cannot be proven and fails when configured).
 */
export interface VehicleSensors {
  doorsClosed?: boolean;
  tailboxClosed?: boolean;
  bikeLockLocked?: boolean;
  /** Helmets plugged into their holders. */
  helmetsPluggedIn?: number;
  keyInHolder?: boolean;
  parkBrakeOn?: boolean;
  /** RFID cards in the card holder. */
  rfidCardsInHolder?: number;
  /** The vehicle's status after the stop command (true when turned off). */
  statusTurnedOff?: boolean;
  /** Docked and locked in a station slot. */
  lockedInStation?: boolean;
}

export interface VehicleReport {
  /** ISO-8601 instant of the report (the device's clock: reports are applied in this order). */
  at: string;
  position?: { lat: number; lng: number };
  odometerKm?: number;
  stateOfCharge?: number;
  iotModuleLevel?: number;
  locked?: boolean;
  powerState?: PowerState;
  charging?: boolean;
  speedKmh?: number;
  hdop?: number;
  maxSpeedKmh?: number;
  /** Equipment sensors reported; merged key by key over what the vehicle reported before. */
  sensors?: VehicleSensors;
}

/** The vehicle fields a report updates (the Vehicle entity has them all). */
export interface ReportedVehicleFields {
  latitude?: number | null;
  longitude?: number | null;
  odometerKm?: number | null;
  stateOfCharge?: number | null;
  iotStateOfCharge?: number | null;
  iotModuleLevel?: number | null;
  batteryLevel: BatteryLevel;
  locked: boolean;
  powerState: PowerState;
  charging: boolean;
  speedKmh?: number | null;
  hdop?: number | null;
  maxSpeedKmh?: number | null;
  lastSeenAt?: Date | null;
  /** Device time of the newest report applied; an older report never overwrites what it set. */
  lastReportAt?: Date | null;
  sensors?: VehicleSensors;
}

/** Whether a report is older than what the row already holds (it must then not overwrite the row). */
export function isStaleReport(
  vehicle: Pick<ReportedVehicleFields, 'lastReportAt'>,
  reportAt: string,
): boolean {
  const at = Date.parse(reportAt);
  return Boolean(vehicle.lastReportAt && Number.isFinite(at) && at < vehicle.lastReportAt.getTime());
}

/**
 * Applies a device's report to the vehicle read model: the one place telemetry and command replies
 * change a vehicle's position, odometer, charge, battery level, lock, power and charging state.
 * Reports are applied in the device's order: one older than the newest applied (e.g. a batched
 * telemetry message produced before the reply to the last LOCK) is ignored; returns whether it applied.
 */
export function applyVehicleReport(
  vehicle: ReportedVehicleFields,
  report: VehicleReport,
  configuration: VehicleCategoryConfiguration | undefined,
): boolean {
  if (isStaleReport(vehicle, report.at)) return false;
  if (report.position) {
    vehicle.latitude = report.position.lat;
    vehicle.longitude = report.position.lng;
  }
  if (report.odometerKm !== undefined) vehicle.odometerKm = report.odometerKm;
  if (report.stateOfCharge !== undefined) {
    vehicle.stateOfCharge = report.stateOfCharge;
    // The device's own figure is also the IoT state of charge the category may prefer.
    vehicle.iotStateOfCharge = report.stateOfCharge;
  }
  if (report.iotModuleLevel !== undefined) vehicle.iotModuleLevel = report.iotModuleLevel;
  if (report.locked !== undefined) vehicle.locked = report.locked;
  if (report.powerState !== undefined) vehicle.powerState = report.powerState;
  if (report.charging !== undefined) vehicle.charging = report.charging;
  if (report.speedKmh !== undefined) vehicle.speedKmh = report.speedKmh;
  if (report.hdop !== undefined) vehicle.hdop = report.hdop;
  if (report.maxSpeedKmh !== undefined) vehicle.maxSpeedKmh = report.maxSpeedKmh;
  if (report.sensors) vehicle.sensors = { ...vehicle.sensors, ...report.sensors };
  vehicle.batteryLevel = effectiveBatteryLevel(vehicle, configuration ?? {});
  const at = new Date(report.at);
  vehicle.lastSeenAt = at;
  vehicle.lastReportAt = at;
  return true;
}

/** Whether a vehicle that last reported at `lastSeenAt` counts as offline at `now`. */
export function isSilentTooLong(
  lastSeenAt: Date | null | undefined,
  now: Date,
  offlineAfterMs: number,
): boolean {
  return !lastSeenAt || now.getTime() - lastSeenAt.getTime() > offlineAfterMs;
}

/** Predefined device commands (the VEHICLE_COMMAND_ family without UNKNOWN): the protocol's command names. */
export const predefinedVehicleCommands = vehicleCommandNames.filter(
  (name): name is Exclude<VehicleCommandName, typeof debugCommandName> => name !== debugCommandName,
);
export type PredefinedVehicleCommand = (typeof predefinedVehicleCommands)[number];

/** How execute-command waits: SYNC for the vehicle's answer, ASYNC only until the command is sent. */
export const commandProcesses = ['SYNC', 'ASYNC'] as const;
export type CommandProcess = (typeof commandProcesses)[number];

/** What execute-command answers with: the vehicle's data, the command status, or nothing. */
export const commandReturns = ['DATA', 'STATUS', 'NONE'] as const;
export type CommandReturn = (typeof commandReturns)[number];

/**
 * Why a command may not be sent, as a catalogue code: A100 when the category does not configure it
 * (the spec: available only if configured for the category), undefined when it may.
 */
export function commandRefusal(
  command: PredefinedVehicleCommand,
  configuration: VehicleCategoryConfiguration,
): 'A100' | undefined {
  const configured = configuration.commands;
  if (configured && !configured.includes(command)) return 'A100';
  return undefined;
}

/** The service states and battery levels that name event types (VEHICLE_SERVICE_STATE_V2_*, VEHICLE_BATTERY_LEVEL_*). */
export const serviceStateEventType = (state: ServiceStateV2) => `VEHICLE_SERVICE_STATE_V2_${state}`;
export const batteryLevelEventType = (level: BatteryLevel) => `VEHICLE_BATTERY_LEVEL_${level}`;

const rentalOperationNames = ['START', 'END', 'PARK', 'DRIVE', 'RENEW_RESERVATION', 'OPEN_TAILBOX'];

/**
 * Checks every configuration key the spec names, and the project's own (commands, hasTailbox); returns
 * the problems (empty when valid). Unknown keys are refused so a typo never silently does nothing.
 */
export function categoryConfigurationProblems(configuration: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const percent = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100;
  const levels = (key: string, max: number) => {
    const value = configuration[key];
    if (value === undefined) return;
    const ok =
      isObject(value) &&
      Object.keys(value).every((name) => ['high', 'medium', 'low'].includes(name)) &&
      ['high', 'medium', 'low'].every(
        (name) =>
          typeof value[name] === 'number' && (value[name] as number) >= 0 && (value[name] as number) <= max,
      );
    if (!ok) problems.push(`${key} needs numeric high, medium and low thresholds between 0 and ${max}`);
    else if (!(
      (value.high as number) >= (value.medium as number) && (value.medium as number) >= (value.low as number)
    ))
      problems.push(`${key} thresholds must satisfy high >= medium >= low`);
  };
  const booleanKeys = [
    'useIoTSoCLevel',
    'useIoTBatteryLevel',
    'ignoreSoC',
    'stationChargingToggle',
    'hasTailbox',
  ];
  const stringKeys = ['rentalRequirementsKey', 'priceCalcKey', 'preEndRentalActionsKey'];
  const known = new Set([
    ...booleanKeys,
    ...stringKeys,
    'socLevels',
    'ioTBatteryLevels',
    'chargingLimit',
    'rentalAdditionPriceCalcs',
    'disallowedRentalOperations',
    'rentalOperationOverrides',
    'commands',
    'actions',
  ]);
  for (const key of Object.keys(configuration))
    if (!known.has(key)) problems.push(`unknown configuration key ${key}`);
  levels('socLevels', 100);
  levels('ioTBatteryLevels', 100);
  for (const key of booleanKeys)
    if (configuration[key] !== undefined && typeof configuration[key] !== 'boolean')
      problems.push(`${key} must be a boolean`);
  for (const key of stringKeys) {
    const value = configuration[key];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > 100))
      problems.push(`${key} must be a string of 1 to 100 characters`);
  }
  if (configuration.chargingLimit !== undefined && !percent(configuration.chargingLimit))
    problems.push('chargingLimit must be a percentage between 0 and 100');
  const calcs = configuration.rentalAdditionPriceCalcs;
  if (
    calcs !== undefined &&
    !(
      isObject(calcs) &&
      Object.values(calcs).every((value) => typeof value === 'string' && value.length <= 100)
    )
  )
    problems.push('rentalAdditionPriceCalcs maps addition codes to price calculation keys');
  const disallowed = configuration.disallowedRentalOperations;
  if (
    disallowed !== undefined &&
    !(
      Array.isArray(disallowed) &&
      disallowed.every((operation) => rentalOperationNames.includes(operation as string))
    )
  )
    problems.push(`disallowedRentalOperations lists rental operations (${rentalOperationNames.join(', ')})`);
  const overrides = configuration.rentalOperationOverrides;
  if (
    overrides !== undefined &&
    !(
      isObject(overrides) &&
      Object.entries(overrides).every(
        ([operation, value]) =>
          rentalOperationNames.includes(operation) &&
          isObject(value) &&
          Object.keys(value).every((name) => name === 'timeoutSeconds') &&
          (value.timeoutSeconds === undefined ||
            (Number.isInteger(value.timeoutSeconds) &&
              (value.timeoutSeconds as number) >= 1 &&
              (value.timeoutSeconds as number) <= 300)),
      )
    )
  )
    problems.push('rentalOperationOverrides maps rental operations to { timeoutSeconds: 1..300 }');
  const commands = configuration.commands;
  if (
    commands !== undefined &&
    !(
      Array.isArray(commands) &&
      commands.every((command) =>
        (predefinedVehicleCommands as readonly string[]).includes(command as string),
      )
    )
  )
    problems.push('commands lists predefined vehicle commands');
  const actions = configuration.actions;
  if (
    actions !== undefined &&
    !(
      Array.isArray(actions) &&
      actions.length <= 100 &&
      actions.every((id) => Number.isInteger(id) && (id as number) > 0)
    )
  )
    problems.push('actions lists operation ids');
  return problems;
}

/** IoT module states (the spec's module.state). */
export const iotModuleStates = ['NEW', 'NOT_READY', 'ASSIGNED', 'UNASSIGNED', 'RETIRED'] as const;
export type IotModuleState = (typeof iotModuleStates)[number];

/**
 * Whether a module may change from one state to another, as a catalogue code when not: a retired module
 * may only go back to UNASSIGNED (MO104); ASSIGNED is reached only by associating it with a vehicle.
 */
export function iotModuleTransitionRefusal(from: IotModuleState, to: IotModuleState): 'MO104' | undefined {
  if (from === 'RETIRED' && to !== 'UNASSIGNED' && to !== 'RETIRED') return 'MO104';
  return undefined;
}

/** Kinds of configured vehicle operations (the spec's operations model). */
export const vehicleActionKinds = ['ACTION', 'ACTIVITY', 'COMPOSITE_ACTIVITY'] as const;
export type VehicleActionKind = (typeof vehicleActionKinds)[number];

/**
 * One step of a configured operation: a device command, or a platform-side state change (an activity).
 * Activities only update platform state; composite activities and actions may mix both.
 */
export type VehicleOperationStep =
  | { type: 'COMMAND'; command: VehicleCommandName; params?: Record<string, unknown> }
  | { type: 'SET_SERVICE_STATE'; serviceStateV2: ServiceStateV2 }
  | { type: 'ADD_TAG'; tag: string }
  | { type: 'REMOVE_TAG'; tag: string };

/** Why a configured operation's steps are invalid for its kind (empty when valid). */
export function vehicleOperationProblems(
  kind: VehicleActionKind,
  steps: readonly VehicleOperationStep[],
): string[] {
  const problems: string[] = [];
  if (steps.length === 0 || steps.length > 20) problems.push('an operation has 1 to 20 steps');
  if (kind === 'ACTIVITY' && steps.some((step) => step.type === 'COMMAND'))
    problems.push(
      'an activity only changes platform state; use a composite activity or an action for commands',
    );
  for (const step of steps) {
    if (step.type === 'COMMAND' && !(predefinedVehicleCommands as readonly string[]).includes(step.command))
      problems.push(`unknown command ${String(step.command)}`);
    if (step.type === 'SET_SERVICE_STATE' && !serviceStatesV2.includes(step.serviceStateV2))
      problems.push(`unknown service state ${String(step.serviceStateV2)}`);
  }
  return problems;
}

/**
 * Why the caller may not run a configured operation on a vehicle of this category (catalogue code A100),
 * undefined when it may: it must be listed in the category's `actions` and, when it names roles, the
 * caller must hold one of them on the vehicle's branch.
 */
export function vehicleOperationRefusal(
  operation: { id: number; roleNames: readonly string[] },
  configuration: VehicleCategoryConfiguration,
  callerRoles: readonly string[],
): string | undefined {
  if (!(configuration.actions ?? []).includes(operation.id))
    return `operation ${operation.id} is not configured for this vehicle's category`;
  if (operation.roleNames.length && !operation.roleNames.some((role) => callerRoles.includes(role)))
    return `operation ${operation.id} is limited to the roles ${operation.roleNames.join(', ')}`;
  return undefined;
}
