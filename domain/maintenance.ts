// Pure rules of the maintenance service: which stored events make up the maintenance logs and which
// kind each is, the metrics buckets and their windows, the field route, stop and stop item state tables,
// service vehicle states, and the route optimiser (nearest neighbour then 2-opt over haversine distances).
import { serviceStatesV2, vehicleCommandNames } from './vehicle.js';

/** The spec's maintenance event kinds (the maintenance service's names). */
export const maintenanceEventKinds = [
  'APPROACH',
  'DEPLOY',
  'CLOSE',
  'VEHICLE_COMMAND',
  'SERVICE_STATE_CHANGE',
  'BATTERY_SWAP',
] as const;
export type MaintenanceEventKind = (typeof maintenanceEventKinds)[number];

/** The stored event type a battery swap is recorded with (a completed BATTERY_SWAP stop item). */
export const batterySwapEventType = 'BATTERY_SWAP';

/**
 * The stored event types of each kind: the VEHICLE_MAINTENANCE_* steps, the operators' vehicle commands
 * (VEHICLE_COMMAND_*, outside rentals: see `operatorCommandsOnly`), the service state changes
 * (VEHICLE_SERVICE_STATE_V2_*) and the battery swaps. Listed in full, not by prefix, so a read filters
 * on `type = any(...)` over the (tenant, type, created_at) index.
 */
export const maintenanceEventTypes: Readonly<Record<MaintenanceEventKind, readonly string[]>> = {
  APPROACH: ['VEHICLE_MAINTENANCE_APPROACH'],
  DEPLOY: ['VEHICLE_MAINTENANCE_DEPLOY'],
  CLOSE: ['VEHICLE_MAINTENANCE_CLOSE'],
  VEHICLE_COMMAND: vehicleCommandNames.map((command) => `VEHICLE_COMMAND_${command}`),
  SERVICE_STATE_CHANGE: serviceStatesV2.map((state) => `VEHICLE_SERVICE_STATE_V2_${state}`),
  BATTERY_SWAP: [batterySwapEventType],
};

/** Every stored type a maintenance log reads. */
export const allMaintenanceEventTypes: readonly string[] = maintenanceEventKinds.flatMap(
  (kind) => maintenanceEventTypes[kind],
);

/** The kind of a stored event type, or undefined when it is no maintenance event. */
export function maintenanceKindOf(type: string): MaintenanceEventKind | undefined {
  return maintenanceEventKinds.find((kind) => maintenanceEventTypes[kind].includes(type));
}

/** Metrics buckets (PostgreSQL `date_trunc` fields), per endpoint family. */
export const metricsIntervals = ['HOUR', 'DAY', 'WEEK', 'MONTH'] as const;
export type MetricsInterval = (typeof metricsIntervals)[number];
/** Battery swaps are counted per day at the finest. */
export const batterySwapIntervals = ['DAY', 'WEEK', 'MONTH'] as const;

/** Longest window of a log read, and of an hourly one (bounds the rows a read returns). */
export const maxWindowDays = 366;
export const maxHourlyWindowDays = 31;
/** Window of the lists when startDate/endDate are left out: the 30 days before now. */
export const defaultListWindowDays = 30;

const dayMs = 24 * 3600 * 1000;

/** Why a window cannot be read (answered MT100), or undefined. */
export function windowRefusal(from: Date, to: Date, interval?: MetricsInterval): string | undefined {
  const span = to.getTime() - from.getTime();
  if (!(span > 0)) return 'endDate must follow startDate';
  if (span > maxWindowDays * dayMs) return `the window is at most ${maxWindowDays} days`;
  if (interval === 'HOUR' && span > maxHourlyWindowDays * dayMs)
    return `hourly buckets cover at most ${maxHourlyWindowDays} days`;
  return undefined;
}

/**
 * An IANA time zone name as a client may send it (letters, digits, `/`, `_`, `+`, `-`); whether the
 * database knows it is checked against its own list (db/maintenance-logs.ts). Anything else is UTC.
 */
export const timeZoneNamePattern = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

// --- Field routes -------------------------------------------------------------------------------

/** A field route's states. */
export const fieldRouteStates = ['PLANNED', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED'] as const;
export type FieldRouteState = (typeof fieldRouteStates)[number];

/** What the crew does with a route (POST /api/routes/{routeId}/action). */
export const fieldRouteActions = ['START', 'STOP', 'COMPLETE', 'CANCEL'] as const;
export type FieldRouteAction = (typeof fieldRouteActions)[number];

/**
 * The route's transition table: per action, the states it starts from and the state it leads to.
 * START begins (or resumes) the work, STOP pauses it, COMPLETE ends it (every stop settled: completed
 * or skipped), CANCEL abandons it. COMPLETED and CANCELLED are final.
 */
export const fieldRouteTransitions: Readonly<
  Record<FieldRouteAction, { from: readonly FieldRouteState[]; to: FieldRouteState }>
> = {
  START: { from: ['PLANNED', 'PAUSED'], to: 'IN_PROGRESS' },
  STOP: { from: ['IN_PROGRESS'], to: 'PAUSED' },
  COMPLETE: { from: ['IN_PROGRESS', 'PAUSED'], to: 'COMPLETED' },
  CANCEL: { from: ['PLANNED', 'IN_PROGRESS', 'PAUSED'], to: 'CANCELLED' },
};

/** Why a route in `state` refuses `action` (answered MT409), or undefined. */
export function fieldRouteRefusal(state: FieldRouteState, action: FieldRouteAction): string | undefined {
  const { from } = fieldRouteTransitions[action];
  return from.includes(state)
    ? undefined
    : `a ${state} route cannot ${action} (from ${from.join(', ')} only)`;
}

/** Whether a route is finished (COMPLETED or CANCELLED): no action or edit moves it any more. */
export const isFinalRouteState = (state: FieldRouteState) => state === 'COMPLETED' || state === 'CANCELLED';

/** A stop's states. */
export const fieldRouteStopStates = ['PENDING', 'ARRIVED', 'COMPLETED', 'SKIPPED'] as const;
export type FieldRouteStopState = (typeof fieldRouteStopStates)[number];

export const fieldRouteStopActions = ['ARRIVE', 'COMPLETE', 'SKIP'] as const;
export type FieldRouteStopAction = (typeof fieldRouteStopActions)[number];

/**
 * The stop's transition table. ARRIVE at a pending stop; COMPLETE an arrived one (its items settled);
 * SKIP a stop not yet completed. Stop actions need the route IN_PROGRESS.
 */
export const fieldRouteStopTransitions: Readonly<
  Record<FieldRouteStopAction, { from: readonly FieldRouteStopState[]; to: FieldRouteStopState }>
> = {
  ARRIVE: { from: ['PENDING'], to: 'ARRIVED' },
  COMPLETE: { from: ['ARRIVED'], to: 'COMPLETED' },
  SKIP: { from: ['PENDING', 'ARRIVED'], to: 'SKIPPED' },
};

/** Why a stop in `state` refuses `action` (answered MT410), or undefined. */
export function fieldRouteStopRefusal(
  state: FieldRouteStopState,
  action: FieldRouteStopAction,
): string | undefined {
  const { from } = fieldRouteStopTransitions[action];
  return from.includes(state) ? undefined : `a ${state} stop cannot ${action} (from ${from.join(', ')} only)`;
}

/** A stop item's states and actions. */
export const fieldRouteItemStates = ['OPEN', 'COMPLETED', 'SKIPPED'] as const;
export type FieldRouteItemState = (typeof fieldRouteItemStates)[number];
export const fieldRouteItemActions = ['COMPLETE', 'SKIP'] as const;
export type FieldRouteItemAction = (typeof fieldRouteItemActions)[number];

/** Why an item in `state` refuses `action` (answered MT411), or undefined: only OPEN items move. */
export function fieldRouteItemRefusal(
  state: FieldRouteItemState,
  action: FieldRouteItemAction,
): string | undefined {
  return state === 'OPEN' ? undefined : `a ${state} item cannot ${action} (OPEN items only)`;
}

/**
 * What a stop item asks the crew to do: a task (completing the item completes the task) or an action.
 * A BATTERY_SWAP action, completed at a vehicle's stop, records the BATTERY_SWAP event.
 */
export const fieldRouteItemActionKinds = [
  'BATTERY_SWAP',
  'INSPECT',
  'CLEAN',
  'REPAIR',
  'RELOCATE',
  'COLLECT',
  'DEPLOY',
  'OTHER',
] as const;
export type FieldRouteItemActionKind = (typeof fieldRouteItemActionKinds)[number];

/** Service vehicles (the crews' own vans). */
export const serviceVehicleStates = ['ACTIVE', 'INACTIVE'] as const;
export type ServiceVehicleState = (typeof serviceVehicleStates)[number];

// --- Route optimisation -------------------------------------------------------------------------

/** The tenant setting that enables optimisation (per branch, tenant fallback on branch 0). */
export const routingSettingKey = 'maintenance.routing';
export interface RoutingSetting {
  enabled: boolean;
  maxStops: number;
}
export const routingDefaults: RoutingSetting = { enabled: false, maxStops: 50 };
/** The most stops the optimiser takes whatever the setting says (2-opt is quadratic per pass). */
export const routingStopLimit = 200;

export interface LatLng {
  lat: number;
  lng: number;
}

/** Great-circle distance in kilometres (mean Earth radius 6371.0088 km). */
export function haversineKm(a: LatLng, b: LatLng): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Length of a path visiting `points` in order, from `start` when given. */
export function pathLengthKm(points: readonly LatLng[], start?: LatLng): number {
  const all = start ? [start, ...points] : points;
  let total = 0;
  for (let index = 1; index < all.length; index += 1) total += haversineKm(all[index - 1]!, all[index]!);
  return total;
}

/** Why the optimiser cannot order these stops (answered RO103), or undefined. */
export function optimisationRefusal(
  points: readonly (LatLng | null | undefined)[],
  maxStops: number,
): string | undefined {
  const limit = Math.min(maxStops, routingStopLimit);
  if (points.length > limit) return `at most ${limit} stops can be optimised, ${points.length} given`;
  const missing = points.findIndex((point) => !point);
  if (missing >= 0) return `stop ${missing + 1} has no position to optimise by`;
  return undefined;
}

/**
 * A short visiting order of `points` (indexes into it), an open path from `start` (or from the first
 * point when no start is given): nearest neighbour, then 2-opt until no reversal shortens the path.
 * Deterministic: ties go to the lower index, and improvements must beat a small epsilon.
 */
export function optimiseOrder(points: readonly LatLng[], start?: LatLng): number[] {
  const count = points.length;
  if (count <= 1) return points.map((_point, index) => index);
  // Nearest neighbour.
  const order: number[] = [];
  const visited = new Array<boolean>(count).fill(false);
  let here: LatLng;
  if (start) here = start;
  else {
    order.push(0);
    visited[0] = true;
    here = points[0]!;
  }
  while (order.length < count) {
    let best = -1;
    let bestDistance = Infinity;
    for (let index = 0; index < count; index += 1) {
      if (visited[index]) continue;
      const distance = haversineKm(here, points[index]!);
      if (distance < bestDistance - 1e-12) {
        best = index;
        bestDistance = distance;
      }
    }
    visited[best] = true;
    order.push(best);
    here = points[best]!;
  }
  // 2-opt over the open path: position 0 is fixed when it is the start (no start point given).
  const node = (position: number): LatLng | undefined =>
    position < 0 ? start : position < count ? points[order[position]!] : undefined;
  const first = start ? 0 : 1;
  let improved = true;
  for (let pass = 0; improved && pass < 100; pass += 1) {
    improved = false;
    for (let i = first; i < count - 1; i += 1) {
      for (let j = i + 1; j < count; j += 1) {
        // Reverse order[i..j]: edges (i-1, i) and (j, j+1) become (i-1, j) and (i, j+1).
        const before = node(i - 1);
        const after = node(j + 1);
        const a = points[order[i]!]!;
        const b = points[order[j]!]!;
        const removed = (before ? haversineKm(before, a) : 0) + (after ? haversineKm(b, after) : 0);
        const added = (before ? haversineKm(before, b) : 0) + (after ? haversineKm(a, after) : 0);
        if (added < removed - 1e-9) {
          order.splice(i, j - i + 1, ...order.slice(i, j + 1).reverse());
          improved = true;
        }
      }
    }
  }
  return order;
}
