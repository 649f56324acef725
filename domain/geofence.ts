// Geofence rules (pure: no I/O, no Node built-ins; importable from workflows).
//
// Areas carry a GeoJSON MultiPolygon geofence ([lng, lat] positions, as GeoJSON says) and policies.
// A branch's areas are prepared once (`prepareAreas`: an R-tree over the bounding boxes of every
// polygon), then each lookup is cheap: `areasAt` finds the areas containing a position and
// `geofenceVerdict` answers what applies there to a vehicle category: may a rental end, is parking
// forbidden, which speed limit holds. A position on an area's edge (outer ring or hole ring) is inside.
import { booleanPointInPolygon, kinks } from '@turf/turf';
import type { Feature, MultiPolygon, Polygon, Position as GeoPosition } from 'geojson';
import RBush from 'rbush';

export const areaStatuses = ['ACTIVE', 'INACTIVE'] as const;
export type AreaStatus = (typeof areaStatuses)[number];

export const areaPolicyTypes = [
  'END_RENTAL_CAPACITY_POLICY',
  'SPEED_LIMIT_POLICY',
  'NO_PARKING_POLICY',
  'NO_END_RENTAL_POLICY',
  'ALLOW_END_RENTAL_POLICY',
  'NOTICE_AREA_POLICY',
] as const;
export type AreaPolicyType = (typeof areaPolicyTypes)[number];

export const weekdays = [
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
  'SUNDAY',
] as const;
export type Weekday = (typeof weekdays)[number];

/** Vehicle rental states a capacity policy may count (the vehicle's `rentalState`). */
export const capacityCountedStates = ['AVAILABLE', 'RESERVATION', 'DRIVING', 'PARKING', 'DELIVERED'] as const;
export type CapacityCountedState = (typeof capacityCountedStates)[number];

/**
 * When a policy is in force, in the area's local time: on these weekdays, from `startTime` (inclusive)
 * to `endTime` (exclusive), `HH:mm`. An end before the start spans midnight (22:00–06:00). No schedule:
 * always in force.
 */
export interface PolicySchedule {
  weekdays: readonly Weekday[];
  startTime: string;
  endTime: string;
}

interface PolicyBase {
  schedule?: PolicySchedule | null;
}

export type AreaPolicy =
  | (PolicyBase & {
      type: 'END_RENTAL_CAPACITY_POLICY';
      /** Vehicles (of every category) the area holds at most; null: no overall limit. */
      overallCapacity?: number | null;
      /** Vehicle states that occupy a place (e.g. AVAILABLE, PARKING). */
      applicableStates: readonly CapacityCountedState[];
      /** Per-category limits; the stricter of these and the overall limit wins. */
      capacityByCategories?: readonly { vehicleCategoryId: number; capacity: number }[];
    })
  | (PolicyBase & {
      type: 'SPEED_LIMIT_POLICY';
      /** km/h for every category without an override. */
      speedLimit: number;
      speedLimitOverrides?: readonly { vehicleCategoryId: number; speedLimit: number }[];
    })
  | (PolicyBase & {
      type: 'NO_PARKING_POLICY' | 'NO_END_RENTAL_POLICY' | 'ALLOW_END_RENTAL_POLICY' | 'NOTICE_AREA_POLICY';
    });

export interface GeofenceGeometry {
  type: 'MultiPolygon';
  /** Polygons → rings (first outer, then holes) → [lng, lat] positions, each ring closed. */
  coordinates: number[][][][];
}

/** What the rules need of an area. */
export interface GeofenceArea {
  id: string;
  status: AreaStatus;
  /** Vehicle categories the area applies to; empty: every category. */
  vehicleTypeIds: readonly number[];
  geofence: GeofenceGeometry;
  policies: readonly AreaPolicy[];
}

/** A WGS84 position as the API carries it. */
export interface LatLng {
  lat: number;
  lng: number;
}

// ---------------------------------------------------------------------------------------------------
// Validation

/** Why a geofence was refused; `path` points into the coordinates (polygon, ring, position). */
export interface GeofenceProblem {
  reason:
    | 'NOT_A_MULTIPOLYGON'
    | 'EMPTY'
    | 'RING_TOO_SHORT'
    | 'RING_NOT_CLOSED'
    | 'INVALID_POSITION'
    | 'COORDINATE_OUT_OF_RANGE'
    | 'SELF_INTERSECTION'
    | 'TOO_MANY_POSITIONS'
    | 'DEGENERATE_RING';
  message: string;
  path?: number[];
}

/** Positions a geofence may have in all (the crossing check is quadratic in a polygon's positions). */
export const maxGeofencePositions = 5000;

const isPosition = (value: unknown): value is [number, number] =>
  Array.isArray(value) &&
  (value.length === 2 || value.length === 3) &&
  value.every((n) => typeof n === 'number' && Number.isFinite(n));

/**
 * The first problem of a geofence, or null when it is a valid MultiPolygon of at most
 * `maxGeofencePositions` positions: every ring has at least four
 * positions, is closed, has longitudes in [-180, 180] and latitudes in [-90, 90], and no ring crosses
 * itself or another ring of its polygon.
 */
export function geofenceProblem(geometry: unknown): GeofenceProblem | null {
  const candidate = geometry as { type?: unknown; coordinates?: unknown } | null;
  if (!candidate || candidate.type !== 'MultiPolygon' || !Array.isArray(candidate.coordinates))
    return { reason: 'NOT_A_MULTIPOLYGON', message: 'the geofence must be a GeoJSON MultiPolygon' };
  const polygons = candidate.coordinates as unknown[];
  if (polygons.length === 0) return { reason: 'EMPTY', message: 'the geofence has no polygon' };
  const positions = polygons
    .flat()
    .reduce<number>((sum, ring) => sum + (Array.isArray(ring) ? ring.length : 0), 0);
  if (positions > maxGeofencePositions)
    return {
      reason: 'TOO_MANY_POSITIONS',
      message: `the geofence has ${positions} positions; at most ${maxGeofencePositions} are allowed`,
    };
  for (const [p, rings] of polygons.entries()) {
    if (!Array.isArray(rings) || rings.length === 0)
      return { reason: 'EMPTY', message: `polygon ${p} has no ring`, path: [p] };
    for (const [r, ring] of (rings as unknown[]).entries()) {
      if (!Array.isArray(ring) || ring.length < 4)
        return {
          reason: 'RING_TOO_SHORT',
          message: `ring ${r} of polygon ${p} needs at least 4 positions (closed)`,
          path: [p, r],
        };
      for (const [i, position] of (ring as unknown[]).entries()) {
        if (!isPosition(position))
          return {
            reason: 'INVALID_POSITION',
            message: `position ${i} of ring ${r} of polygon ${p} is not [lng, lat]`,
            path: [p, r, i],
          };
        const [lng, lat] = position;
        if (lng < -180 || lng > 180 || lat < -90 || lat > 90)
          return {
            reason: 'COORDINATE_OUT_OF_RANGE',
            message: `position ${i} of ring ${r} of polygon ${p} is out of range: [lng, lat] = [${lng}, ${lat}]`,
            path: [p, r, i],
          };
      }
      const first = ring[0] as number[];
      const last = ring[ring.length - 1] as number[];
      if (first[0] !== last[0] || first[1] !== last[1])
        return {
          reason: 'RING_NOT_CLOSED',
          message: `ring ${r} of polygon ${p} is not closed (its last position must equal its first)`,
          path: [p, r],
        };
      if (new Set((ring as number[][]).map(([lng, lat]) => `${lng},${lat}`)).size < 3)
        return {
          reason: 'DEGENERATE_RING',
          message: `ring ${r} of polygon ${p} has fewer than 3 distinct positions`,
          path: [p, r],
        };
    }
    const crossings = kinks({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates: rings as GeoPosition[][] },
    });
    const crossing = crossings.features[0]?.geometry.coordinates;
    if (crossing)
      return {
        reason: 'SELF_INTERSECTION',
        message: `polygon ${p} crosses itself at [${crossing.join(', ')}]`,
        path: [p],
      };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Prepared areas

interface IndexedPolygon {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  areaIndex: number;
  polygon: Feature<Polygon>;
}

/** A branch's active areas, indexed once for cheap lookups. Build with `prepareAreas`. */
export interface PreparedAreas {
  readonly areas: readonly GeofenceArea[];
  /** R-tree over the bounding box of every polygon of every active area. */
  readonly tree: RBush<IndexedPolygon>;
}

function boundsOf(ring: readonly GeoPosition[]): [number, number, number, number] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of ring) {
    if (x! < minX) minX = x!;
    if (x! > maxX) maxX = x!;
    if (y! < minY) minY = y!;
    if (y! > maxY) maxY = y!;
  }
  return [minX, minY, maxX, maxY];
}

/** Indexes the ACTIVE areas of a branch (inactive ones never apply); geofences must be valid. */
export function prepareAreas(areas: readonly GeofenceArea[]): PreparedAreas {
  const active = areas.filter((area) => area.status === 'ACTIVE');
  const entries: IndexedPolygon[] = [];
  active.forEach((area, areaIndex) => {
    for (const rings of area.geofence.coordinates) {
      const [minX, minY, maxX, maxY] = boundsOf(rings[0]!);
      entries.push({
        minX,
        minY,
        maxX,
        maxY,
        areaIndex,
        polygon: {
          type: 'Feature',
          properties: {},
          bbox: [minX, minY, maxX, maxY],
          geometry: { type: 'Polygon', coordinates: rings },
        },
      });
    }
  });
  const tree = new RBush<IndexedPolygon>();
  tree.load(entries);
  return { areas: active, tree };
}

/** The prepared (active) areas whose geofence contains the position, edges included. */
export function areasAt(prepared: PreparedAreas, position: LatLng): GeofenceArea[] {
  const { lng, lat } = position;
  const candidates = prepared.tree.search({ minX: lng, minY: lat, maxX: lng, maxY: lat });
  const found = new Set<number>();
  const point = [lng, lat];
  for (const candidate of candidates) {
    if (found.has(candidate.areaIndex)) continue;
    if (booleanPointInPolygon(point, candidate.polygon)) found.add(candidate.areaIndex);
  }
  return [...found].sort((a, b) => a - b).map((index) => prepared.areas[index]!);
}

/** Whether one area's geofence contains the position (no index; for single checks and baselines). */
export function geofenceContains(geofence: GeofenceGeometry, position: LatLng): boolean {
  const feature: Feature<MultiPolygon> = { type: 'Feature', properties: {}, geometry: geofence };
  return booleanPointInPolygon([position.lng, position.lat], feature);
}

// ---------------------------------------------------------------------------------------------------
// Policies

/** One formatter per time zone: building one costs more than a lookup. */
const localFormats = new Map<string, Intl.DateTimeFormat>();

/** Local weekday and minute of the day of an instant in a time zone (Intl is available in workflows). */
export function localWeekdayAndMinute(at: Date, timeZoneId: string): { weekday: Weekday; minute: number } {
  let format = localFormats.get(timeZoneId);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: timeZoneId,
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    localFormats.set(timeZoneId, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const weekday = part('weekday').toUpperCase() as Weekday;
  return { weekday, minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

const minuteOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
};

/** Whether a policy is in force at a local weekday and minute (see `PolicySchedule`). */
export function scheduleInForce(
  schedule: PolicySchedule | null | undefined,
  local: { weekday: Weekday; minute: number },
): boolean {
  if (!schedule) return true;
  const start = minuteOf(schedule.startTime);
  const end = minuteOf(schedule.endTime);
  if (start === end) return schedule.weekdays.includes(local.weekday);
  if (start < end)
    return schedule.weekdays.includes(local.weekday) && local.minute >= start && local.minute < end;
  // Spans midnight: the evening part belongs to the listed day, the morning part to the day after it.
  const previous = weekdays[(weekdays.indexOf(local.weekday) + 6) % 7]!;
  return (
    (schedule.weekdays.includes(local.weekday) && local.minute >= start) ||
    (schedule.weekdays.includes(previous) && local.minute < end)
  );
}

/** A vehicle other than the one asking, as capacity policies count them. */
export interface VehicleSnapshot {
  position: LatLng;
  vehicleCategoryId: number;
  rentalState: string;
}

/** What the rules are asked about: a vehicle of a category at a position, at an instant. */
export interface GeofenceQuery {
  position: LatLng;
  vehicleCategoryId: number;
  /** Instant the answer is for (schedules); defaults to now. */
  at?: Date;
  /** Time zone of the branch, for schedules (default UTC). */
  timeZoneId?: string;
  /**
   * The branch's other vehicles, for END_RENTAL_CAPACITY_POLICY; leave out when no capacity policy
   * matters (then every capacity counts as empty).
   */
  otherVehicles?: readonly VehicleSnapshot[];
}

export type EndRentalRefusal = 'NO_END_RENTAL_AREA' | 'OUTSIDE_END_RENTAL_AREA' | 'CAPACITY_REACHED';

/** What applies at a position to a vehicle category. */
export interface GeofenceVerdict {
  /** Ids of the active areas containing the position that apply to the category. */
  areaIds: string[];
  endRental: { allowed: boolean; refusal: EndRentalRefusal | null; areaIds: string[] };
  noParking: { forbidden: boolean; areaIds: string[] };
  /** The strictest speed limit in force (km/h), or null when none. */
  speedLimit: { kmh: number; areaId: string } | null;
  noticeAreaIds: string[];
}

const appliesTo = (area: GeofenceArea, vehicleCategoryId: number) =>
  area.vehicleTypeIds.length === 0 || area.vehicleTypeIds.includes(vehicleCategoryId);

/**
 * Whether ending a rental is restricted to ALLOW_END_RENTAL areas for a category: true as soon as one
 * active area applying to the category has such a policy (then ending outside every allowing area is
 * refused). A branch without allowing areas lets rentals end anywhere not forbidden.
 */
export function endRentalRestricted(prepared: PreparedAreas, vehicleCategoryId: number): boolean {
  return prepared.areas.some(
    (area) =>
      appliesTo(area, vehicleCategoryId) &&
      area.policies.some((policy) => policy.type === 'ALLOW_END_RENTAL_POLICY'),
  );
}

/** Vehicles a capacity policy counts in an area: overall and of the asking vehicle's category. */
function occupancy(
  area: GeofenceArea,
  policy: Extract<AreaPolicy, { type: 'END_RENTAL_CAPACITY_POLICY' }>,
  vehicles: readonly VehicleSnapshot[],
  vehicleCategoryId: number,
): { overall: number; ofCategory: number } {
  let overall = 0;
  let ofCategory = 0;
  for (const vehicle of vehicles) {
    if (!(policy.applicableStates as readonly string[]).includes(vehicle.rentalState)) continue;
    if (!geofenceContains(area.geofence, vehicle.position)) continue;
    overall += 1;
    if (vehicle.vehicleCategoryId === vehicleCategoryId) ofCategory += 1;
  }
  return { overall, ofCategory };
}

/**
 * What the areas say at a position for a vehicle category. Ending a rental: refused inside a
 * NO_END_RENTAL area (whatever else applies), refused outside every ALLOW_END_RENTAL area when the
 * category has any (`endRentalRestricted`), refused where a capacity policy is full (overall or for the
 * category: the stricter limit wins). Parking is forbidden inside NO_PARKING areas. The speed limit is
 * the lowest in force, a category override replacing the policy's default. Policies out of their
 * schedule and areas not applying to the category are ignored.
 */
export function geofenceVerdict(prepared: PreparedAreas, query: GeofenceQuery): GeofenceVerdict {
  const local = localWeekdayAndMinute(query.at ?? new Date(), query.timeZoneId ?? 'UTC');
  const category = query.vehicleCategoryId;
  const here = areasAt(prepared, query.position).filter((area) => appliesTo(area, category));
  const verdict: GeofenceVerdict = {
    areaIds: here.map((area) => area.id),
    endRental: { allowed: true, refusal: null, areaIds: [] },
    noParking: { forbidden: false, areaIds: [] },
    speedLimit: null,
    noticeAreaIds: [],
  };
  const noEnd: string[] = [];
  const allow: string[] = [];
  const full: string[] = [];
  for (const area of here) {
    for (const policy of area.policies) {
      if (!scheduleInForce(policy.schedule, local)) continue;
      switch (policy.type) {
        case 'NO_END_RENTAL_POLICY':
          noEnd.push(area.id);
          break;
        case 'ALLOW_END_RENTAL_POLICY':
          allow.push(area.id);
          break;
        case 'NO_PARKING_POLICY':
          verdict.noParking.forbidden = true;
          verdict.noParking.areaIds.push(area.id);
          break;
        case 'NOTICE_AREA_POLICY':
          verdict.noticeAreaIds.push(area.id);
          break;
        case 'SPEED_LIMIT_POLICY': {
          const kmh =
            policy.speedLimitOverrides?.find((o) => o.vehicleCategoryId === category)?.speedLimit ??
            policy.speedLimit;
          if (!verdict.speedLimit || kmh < verdict.speedLimit.kmh)
            verdict.speedLimit = { kmh, areaId: area.id };
          break;
        }
        case 'END_RENTAL_CAPACITY_POLICY': {
          const categoryLimit = policy.capacityByCategories?.find(
            (c) => c.vehicleCategoryId === category,
          )?.capacity;
          const overallLimit = policy.overallCapacity ?? undefined;
          if (categoryLimit === undefined && overallLimit === undefined) break;
          const count = occupancy(area, policy, query.otherVehicles ?? [], category);
          if (
            (overallLimit !== undefined && count.overall >= overallLimit) ||
            (categoryLimit !== undefined && count.ofCategory >= categoryLimit)
          )
            full.push(area.id);
          break;
        }
      }
    }
  }
  if (noEnd.length) verdict.endRental = { allowed: false, refusal: 'NO_END_RENTAL_AREA', areaIds: noEnd };
  else if (allow.length === 0 && endRentalRestricted(prepared, category))
    verdict.endRental = { allowed: false, refusal: 'OUTSIDE_END_RENTAL_AREA', areaIds: [] };
  else if (full.length) verdict.endRental = { allowed: false, refusal: 'CAPACITY_REACHED', areaIds: full };
  else verdict.endRental = { allowed: true, refusal: null, areaIds: allow };
  return verdict;
}

/**
 * The first inconsistency of an area's policies, or null: one policy per type, a capacity policy needs
 * an overall or a category limit and at least one counted state, and no category is listed twice.
 */
export function policiesProblem(policies: readonly AreaPolicy[]): string | null {
  const seen = new Set<string>();
  for (const policy of policies) {
    if (seen.has(policy.type)) return `${policy.type} is given twice`;
    seen.add(policy.type);
    if (policy.type === 'END_RENTAL_CAPACITY_POLICY') {
      if ((policy.overallCapacity ?? null) === null && !policy.capacityByCategories?.length)
        return 'END_RENTAL_CAPACITY_POLICY needs overallCapacity or capacityByCategories';
      if (policy.applicableStates.length === 0)
        return 'END_RENTAL_CAPACITY_POLICY needs at least one applicable state';
      const categories = policy.capacityByCategories?.map((c) => c.vehicleCategoryId) ?? [];
      if (new Set(categories).size !== categories.length)
        return 'capacityByCategories lists a category twice';
    }
    if (policy.type === 'SPEED_LIMIT_POLICY') {
      const categories = policy.speedLimitOverrides?.map((o) => o.vehicleCategoryId) ?? [];
      if (new Set(categories).size !== categories.length) return 'speedLimitOverrides lists a category twice';
    }
    if (policy.schedule && new Set(policy.schedule.weekdays).size !== policy.schedule.weekdays.length)
      return 'a schedule lists a weekday twice';
  }
  return null;
}
