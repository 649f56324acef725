// Pure rules of the insight domain (KPIs and analytics): the eighteen KPI types of the operator interface
// with the entity each counts, the state sets their definitions use, the `insight.kpis` setting (idle
// threshold, charging target) and the analytics period and position precision. The SQL that computes
// each KPI lives in db/kpis.ts; each definition is documented in docs/insight.md.
import { operationalServiceStates, type ServiceStateV2 } from './vehicle.js';

/** The spec's KPI types, in the spec's order (fleet availability, operations, location, activity, work). */
export const kpiTypes = [
  'AVAILABLE_VEHICLES',
  'LOW_BATTERY_VEHICLES',
  'OFFLINE_VEHICLES',
  'AVERAGE_STATE_OF_CHARGE',
  'VEHICLES_IN_SERVICE',
  'VEHICLES_TO_RELOCATE',
  'IDLE_VEHICLES',
  'VEHICLES_CHARGING_OVER_TARGET_LEVEL',
  'VEHICLES_OUTSIDE_BUSINESS_AREAS',
  'VEHICLES_OUTSIDE_ON_DEMAND_STATION',
  'ON_DEMAND_STATIONS_AT_FULL_CAPACITY',
  'VEHICLES_IN_ACTIVE_BOOKINGS',
  'VEHICLES_IN_ACTIVE_ON_DEMAND_RENTALS',
  'VEHICLES_IN_OVERDUE_BOOKINGS',
  'SUCCESSFULLY_ENDED_RENTALS_TODAY',
  'VEHICLES_WITH_OPEN_DAMAGE',
  'VEHICLES_WITH_CRITICAL_NEW_DAMAGE',
  'VEHICLES_WITH_OPEN_TASK',
] as const;
export type KpiType = (typeof kpiTypes)[number];

/** What a KPI's `entityIds` name (the spec's KPI item entity). */
export const kpiEntities = ['VEHICLE', 'RENTAL', 'ON_DEMAND_STATION'] as const;
export type KpiEntity = (typeof kpiEntities)[number];

/** The entity of each KPI type: vehicles, but for the stations at capacity and the rentals ended today. */
export function kpiEntity(type: KpiType): KpiEntity {
  if (type === 'ON_DEMAND_STATIONS_AT_FULL_CAPACITY') return 'ON_DEMAND_STATION';
  if (type === 'SUCCESSFULLY_ENDED_RENTALS_TODAY') return 'RENTAL';
  return 'VEHICLE';
}

/** The requested types in the spec's order, each once (all of them when none is asked for). */
export function requestedKpiTypes(types: readonly KpiType[] | undefined): KpiType[] {
  if (!types || types.length === 0) return [...kpiTypes];
  const asked = new Set(types);
  return kpiTypes.filter((type) => asked.has(type));
}

/**
 * Service states of vehicles taken out of the fleet for good: they count in no KPI (a retired scooter with
 * a flat battery is nobody's task).
 */
export const decommissionedServiceStates: readonly ServiceStateV2[] = ['RETIRED', 'DEFLEETED'];

/**
 * VEHICLES_IN_SERVICE: service states in which a vehicle is being collected, repaired, maintained or
 * inspected by the authorities, i.e. out of rental for service work. Operational states (FUNCTIONAL,
 * INSPECT, RELOCATE), holds and losses (IMPOUNDED, LOST, OPERATIONAL_HOLD, AWAITING_ACTION, OTHER,
 * UNREPAIRABLE), deployment states and the decommissioned ones are not service work.
 */
export const serviceWorkStates: readonly ServiceStateV2[] = [
  'COLLECT',
  'COLLECT_EXTERNAL',
  'SERVICE_ON_SITE',
  'SERVICE_WORKSHOP',
  'SERVICE_WORKSHOP_INSURANCE',
  'SERVICE_WORKSHOP_QUEUE',
  'SERVICE_EXTERNAL',
  'SERVICE_MECHANICS',
  'REPLACE',
  'MAINTENANCE',
  'WAITING_FOR_PARTS',
  'REGULATORY_INSPECTION',
  'REGULATORY_INSPECTION_READY',
];

/** The service states in which a vehicle may be rented (ready-to-rent rule 2); IDLE_VEHICLES looks at these. */
export const rentableServiceStates: readonly ServiceStateV2[] = operationalServiceStates;

/** Station types vehicles are returned to (their catchment is where an on-demand rental may end). */
export const returnStationTypes = ['VIRTUAL', 'DOCKING'] as const;

/** The setting holding the KPI thresholds (per branch, the tenant fallback on branch 0; area DASHBOARD). */
export const INSIGHT_KPI_SETTING_KEY = 'insight.kpis';

/** The values of `insight.kpis`. */
export interface KpiSettings {
  /** IDLE_VEHICLES: hours without a rental started or ended on the vehicle (1–8,760). */
  idleAfterHours: number;
  /**
   * VEHICLES_CHARGING_OVER_TARGET_LEVEL: the target state of charge (percent, 1–100) for vehicles whose
   * category sets no `chargingLimit` (the category's limit wins).
   */
  chargingTargetPercent: number;
}

export const defaultKpiSettings: KpiSettings = { idleAfterHours: 48, chargingTargetPercent: 80 };

/**
 * The KPI settings of a branch from a stored value laid over the defaults; a key missing or out of range
 * keeps its default (settings are configuration written by operators: a bad value never fails a KPI).
 */
export function kpiSettingsFrom(value: Readonly<Record<string, unknown>> | undefined): KpiSettings {
  const bounded = (raw: unknown, min: number, max: number, integer: boolean): number | undefined =>
    typeof raw === 'number' &&
    Number.isFinite(raw) &&
    raw >= min &&
    raw <= max &&
    (!integer || Number.isInteger(raw))
      ? raw
      : undefined;
  return {
    idleAfterHours: bounded(value?.idleAfterHours, 1, 8760, true) ?? defaultKpiSettings.idleAfterHours,
    chargingTargetPercent:
      bounded(value?.chargingTargetPercent, 1, 100, false) ?? defaultKpiSettings.chargingTargetPercent,
  };
}

// ---------------------------------------------------------------------------------------------------
// Analytics

/** Analytics periods: the default length (the last 24 hours) and the longest allowed (31 days). */
export const defaultAnalyticsPeriodMs = 24 * 3600 * 1000;
export const maxAnalyticsPeriodMs = 31 * 24 * 3600 * 1000;

/**
 * The period of an analytics request: `to` defaults to now, `from` to 24 hours before `to`; null when the
 * period is empty, reversed or longer than 31 days (answered as ANL100).
 */
export function analyticsPeriod(
  input: { from?: Date; to?: Date },
  now: Date,
): { from: Date; to: Date } | null {
  const to = input.to ?? now;
  const from = input.from ?? new Date(to.getTime() - defaultAnalyticsPeriodMs);
  const length = to.getTime() - from.getTime();
  if (!(length > 0) || length > maxAnalyticsPeriodMs) return null;
  return { from, to };
}

/**
 * Decimal places positions are rounded to in analytics: 4 (≈ 11 m) for callers holding POSITION_LOG_READ
 * on the branch, 2 (≈ 1.1 km north–south) otherwise, so that without the position-log permission no
 * answer places a single customer closer than a neighbourhood (docs/insight.md).
 */
export function analyticsPrecision(holdsPositionLog: boolean): number {
  return holdsPositionLog ? 4 : 2;
}
