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

/** What the ready-to-rent rules look at. */
export interface VehicleReadinessInput {
  rentalState: VehicleRentalState;
  serviceStateV2: ServiceStateV2;
  stateOfCharge: number | null | undefined;
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
 */
export function vehicleReadiness(input: VehicleReadinessInput): VehicleReadiness {
  const reasons: UnavailabilityReason[] = [];
  const levels = input.configuration.socLevels ?? defaultSocLevels;
  const batteryLevel = batteryLevelFor(input.stateOfCharge, levels);
  if (!operationalServiceStates.includes(input.serviceStateV2)) reasons.push('OUT_OF_ORDER');
  if (!input.configuration.ignoreSoC && batteryLevel !== 'HIGH' && batteryLevel !== 'MEDIUM') {
    reasons.push('BATTERY_TOO_LOW');
  }
  if (input.offline) reasons.push('OFFLINE');
  const limit = input.configuration.chargingLimit;
  if (input.charging && limit !== undefined && (input.stateOfCharge ?? 0) < limit) {
    reasons.push('MUST_REMAIN_ON_CHARGER');
  }
  const available = input.rentalState === 'AVAILABLE' && input.categoryBookable && reasons.length === 0;
  return { available, batteryLevel, unavailabilityReasons: reasons };
}

/** What a vehicle reported about itself, in telemetry or in a command reply. */
export interface VehicleReport {
  /** ISO-8601 instant of the report. */
  at: string;
  position?: { lat: number; lng: number };
  odometerKm?: number;
  stateOfCharge?: number;
  locked?: boolean;
  powerState?: PowerState;
  charging?: boolean;
}

/** The vehicle fields a report updates (the Vehicle entity has them all). */
export interface ReportedVehicleFields {
  latitude?: number | null;
  longitude?: number | null;
  odometerKm?: number | null;
  stateOfCharge?: number | null;
  batteryLevel: BatteryLevel;
  locked: boolean;
  powerState: PowerState;
  charging: boolean;
  lastSeenAt?: Date | null;
}

/**
 * Applies a device's report to the vehicle read model: the one place telemetry and command replies
 * change a vehicle's position, odometer, charge, battery level, lock, power and charging state.
 */
export function applyVehicleReport(
  vehicle: ReportedVehicleFields,
  report: VehicleReport,
  socLevels: SocLevels | undefined,
): void {
  if (report.position) {
    vehicle.latitude = report.position.lat;
    vehicle.longitude = report.position.lng;
  }
  if (report.odometerKm !== undefined) vehicle.odometerKm = report.odometerKm;
  if (report.stateOfCharge !== undefined) {
    vehicle.stateOfCharge = report.stateOfCharge;
    vehicle.batteryLevel = batteryLevelFor(report.stateOfCharge, socLevels);
  }
  if (report.locked !== undefined) vehicle.locked = report.locked;
  if (report.powerState !== undefined) vehicle.powerState = report.powerState;
  if (report.charging !== undefined) vehicle.charging = report.charging;
  vehicle.lastSeenAt = new Date(report.at);
}
