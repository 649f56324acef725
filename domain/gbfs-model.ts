// The open mobility feeds' model of one published system (docs/feeds.md): what the database holds about
// the system's branches, vehicles, stations, areas and pricing, turned into what the GBFS files say —
// availability as the ready-to-rent rules compute it, station counts, pricing plans and zone rules. Pure:
// the rows come from db/gbfs-data.ts, the files are written by domain/gbfs-render.ts.
import { Decimal } from 'decimal.js';
import {
  geofenceContains,
  localWeekdayAndMinute,
  scheduleInForce,
  type AreaPolicy,
  type GeofenceGeometry,
} from './geofence.js';
import type { PricingRules, DistanceUnit, PricingBundleType } from './pricing.js';
import {
  vehicleReadiness,
  type ServiceStateV2,
  type VehicleCategoryConfiguration,
  type VehicleRentalState,
} from './vehicle.js';
import { isMotorised, type GbfsFormFactor, type GbfsPropulsionType } from './gbfs-vocabulary.js';

/** The published system's own settings (the feed_system row). */
export interface GbfsSystemSettings {
  systemId: string;
  name: string;
  shortName: string | null;
  operatorName: string | null;
  url: string | null;
  purchaseUrl: string | null;
  phoneNumber: string | null;
  email: string | null;
  feedContactEmail: string;
  startDate: string | null;
  licenseUrl: string | null;
  attributionOrganizationName: string | null;
  attributionUrl: string | null;
  privacyUrl: string | null;
  termsUrl: string | null;
  rentalApps: {
    android?: { storeUri: string; discoveryUri: string } | null;
    ios?: { storeUri: string; discoveryUri: string } | null;
  } | null;
  language: string;
  timezone: string;
  openingHours: string;
}

export interface GbfsBranchRow {
  id: number;
  name: string;
  parentId: number | null;
  state: string;
}

export interface GbfsVehicleTypeRow {
  categoryId: number;
  categoryName: string;
  categoryBookable: boolean;
  /** The category's effective configuration (parents merged). */
  configuration: VehicleCategoryConfiguration;
  formFactor: GbfsFormFactor;
  propulsionType: GbfsPropulsionType;
  maxRangeMeters: number | null;
  riderCapacity: number | null;
  make: string | null;
  model: string | null;
  wheelCount: number | null;
  maxPermittedSpeedKmh: number | null;
}

export interface GbfsVehicleRow {
  publicId: string;
  branchId: number;
  categoryId: number;
  latitude: number | null;
  longitude: number | null;
  rentalState: VehicleRentalState;
  serviceStateV2: ServiceStateV2;
  stateOfCharge: number | null;
  iotStateOfCharge: number | null;
  iotModuleLevel: number | null;
  offline: boolean;
  charging: boolean;
  lastReportAt: Date | null;
  /** A holding booking (BOOKED, APPROVED, DELIVERED) holds the vehicle now. */
  heldByBooking: boolean;
  /** The physical station whose slot the vehicle is docked in. */
  dockedAt: number | null;
}

export interface GbfsStationRow {
  id: number;
  branchId: number;
  name: string;
  type: string;
  capacity: number | null;
  latitude: number;
  longitude: number;
  radius: number | null;
  area: GeofenceGeometry | null;
}

export interface GbfsPhysicalStationRow {
  id: number;
  branchId: number;
  name: string;
  state: string;
  latitude: number;
  longitude: number;
  address: string | null;
  slots: { state: string; occupied: boolean }[];
  /** Newest docking change of its slots. */
  lastChangeAt: Date | null;
}

export interface GbfsAreaRow {
  id: string;
  name: string;
  vehicleTypeIds: readonly number[];
  geofence: GeofenceGeometry;
  policies: readonly AreaPolicy[];
}

export interface GbfsPricingRow {
  bundleId: number;
  name: string;
  description: string | null;
  type: PricingBundleType;
  currency: string;
  distanceUnit: DistanceUnit;
  version: number;
  rules: PricingRules;
}

export interface GbfsAssignmentRow {
  branchId: number;
  categoryId: number;
  bundleId: number;
  bundleType: PricingBundleType;
}

/** Everything one snapshot of a system is built from, read in one transaction. */
export interface GbfsSource {
  tenant: string;
  system: GbfsSystemSettings;
  rootBranchId: number;
  /** The system's branches (root and descendants) and the root's ancestors (pricing and areas inherit). */
  branches: GbfsBranchRow[];
  systemBranchIds: number[];
  vehicleTypes: GbfsVehicleTypeRow[];
  vehicles: GbfsVehicleRow[];
  stations: GbfsStationRow[];
  physicalStations: GbfsPhysicalStationRow[];
  areas: GbfsAreaRow[];
  pricing: GbfsPricingRow[];
  assignments: GbfsAssignmentRow[];
}

/** Localised text in the model: rendered as one `{text, language}` (3.0) or a plain string (2.3). */
export type Text = string;

export interface VehicleTypeModel {
  id: string;
  formFactor: GbfsFormFactor;
  propulsionType: GbfsPropulsionType;
  name: Text;
  maxRangeMeters: number | null;
  riderCapacity: number | null;
  make: string | null;
  model: string | null;
  wheelCount: number | null;
  maxPermittedSpeedKmh: number | null;
  defaultPricingPlanId: string | null;
  pricingPlanIds: string[];
}

export interface VehicleModel {
  id: string;
  lat: number | null;
  lon: number | null;
  isReserved: boolean;
  isDisabled: boolean;
  vehicleTypeId: string;
  lastReported: Date | null;
  currentRangeMeters: number | null;
  currentFuelPercent: number | null;
  stationId: string | null;
  pricingPlanId: string | null;
}

export interface StationModel {
  id: string;
  name: Text;
  lat: number;
  lon: number;
  address: string | null;
  regionId: string;
  capacity: number | null;
  isVirtual: boolean;
  area: GeofenceGeometry | null;
  isInstalled: boolean;
  isRenting: boolean;
  isReturning: boolean;
  lastReported: Date;
  vehiclesAvailable: number;
  vehiclesDisabled: number;
  availableByType: Map<string, number>;
  docksAvailable: number | null;
  docksDisabled: number | null;
}

export interface PlanModel {
  id: string;
  name: Text;
  description: Text;
  currency: string;
  price: number;
  isTaxable: boolean;
  perMin: { start: number; rate: number; interval: number; end?: number }[];
  perKm: { start: number; rate: number; interval: number; end?: number }[];
}

export interface ZoneRule {
  vehicleTypeIds: string[] | null;
  rideStartAllowed: boolean;
  rideEndAllowed: boolean;
  rideThroughAllowed: boolean;
  maximumSpeedKph: number | null;
}

export interface ZoneModel {
  name: Text;
  geometry: GeofenceGeometry;
  rules: ZoneRule[];
}

export interface AlertModel {
  id: string;
  type: 'SYSTEM_CLOSURE' | 'STATION_CLOSURE' | 'STATION_MOVE' | 'OTHER';
  summary: Text;
  description: Text;
  stationIds: string[];
  regionIds: string[];
}

/** One system as every GBFS file of both versions sees it. */
export interface GbfsModel {
  system: GbfsSystemSettings;
  regions: { id: string; name: Text }[];
  vehicleTypes: VehicleTypeModel[];
  vehicles: VehicleModel[];
  stations: StationModel[];
  plans: PlanModel[];
  zones: ZoneModel[];
  globalRules: ZoneRule[];
  alerts: AlertModel[];
}

/** Service states in which a vehicle is off the street (workshop, impounded, gone): never published. */
export const offStreetServiceStates: readonly ServiceStateV2[] = [
  'LOST',
  'RETIRED',
  'UNREPAIRABLE',
  'DEFLEETED',
  'IMPOUNDED',
  'SERVICE_WORKSHOP',
  'SERVICE_WORKSHOP_INSURANCE',
  'SERVICE_WORKSHOP_QUEUE',
  'SERVICE_EXTERNAL',
  'COLLECT_EXTERNAL',
  'WAITING_FOR_PARTS',
  'REGULATORY_INSPECTION',
  'READY_FOR_DEPLOYMENT',
  'READY_FOR_DEPLOYMENT_NEW',
];

/** Rental states of a vehicle in a trip (started, driving or parked): GBFS never lists it. */
const inTrip: readonly VehicleRentalState[] = ['DRIVING', 'PARKING'];
/** Rental states holding the vehicle for someone: listed, `is_reserved`. */
const heldStates: readonly VehicleRentalState[] = ['RESERVATION', 'DELIVERED'];

export const vehicleTypeIdOf = (categoryId: number) => `cat-${categoryId}`;
export const stationIdOf = (stationId: number) => `st-${stationId}`;
export const physicalStationIdOf = (stationId: number) => `ps-${stationId}`;
export const regionIdOf = (branchId: number) => `br-${branchId}`;
export const planIdOf = (bundleId: number) => `plan-${bundleId}`;

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** Distance between two positions in metres (haversine). */
function metresBetween(aLat: number, aLng: number, bLat: number, bLng: number): number {
  const rad = Math.PI / 180;
  const dLat = (bLat - aLat) * rad;
  const dLng = (bLng - aLng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(aLat * rad) * Math.cos(bLat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The bounding box of a station's catchment (its area, or its radius around it): a cheap first filter. */
function catchmentBox(station: GbfsStationRow): { south: number; north: number; west: number; east: number } {
  if (station.area) {
    const box = { south: 90, north: -90, west: 180, east: -180 };
    for (const polygon of station.area.coordinates)
      for (const ring of polygon)
        for (const [lng, lat] of ring) {
          box.south = Math.min(box.south, lat!);
          box.north = Math.max(box.north, lat!);
          box.west = Math.min(box.west, lng!);
          box.east = Math.max(box.east, lng!);
        }
    return box;
  }
  const radius = station.radius ?? 0;
  const dLat = radius / 111_000 + 1e-6;
  const dLng = radius / (111_000 * Math.max(0.01, Math.cos((station.latitude * Math.PI) / 180))) + 1e-6;
  return {
    south: station.latitude - dLat,
    north: station.latitude + dLat,
    west: station.longitude - dLng,
    east: station.longitude + dLng,
  };
}

/** The nearest assignment of a bundle type for a category, walking up from a branch. */
function assignedPlan(
  source: GbfsSource,
  parents: Map<number, number | null>,
  branchId: number,
  categoryId: number,
  published: Set<number>,
): string | null {
  const types: PricingBundleType[] = ['ON_DEMAND_LEGACY', 'BOOKING'];
  for (const type of types) {
    let at: number | null | undefined = branchId;
    for (let depth = 0; at != null && depth < 33; depth += 1) {
      const found = source.assignments.find(
        (a) => a.branchId === at && a.categoryId === categoryId && a.bundleType === type,
      );
      if (found && published.has(found.bundleId)) return planIdOf(found.bundleId);
      at = parents.get(at);
    }
  }
  return null;
}

/** A pricing version as a GBFS plan: base price the unlock fee, per-minute and per-km segments. */
export function planOf(row: GbfsPricingRow): PlanModel {
  const toKm = (rate: string) =>
    row.distanceUnit === 'MILE'
      ? new Decimal(rate).div('1.609344').toDecimalPlaces(6).toNumber()
      : new Decimal(rate).toNumber();
  const kmStart = (distance: number) =>
    row.distanceUnit === 'MILE' ? Math.ceil(distance * 1.609344) : Math.ceil(distance);
  const base = {
    id: planIdOf(row.bundleId),
    name: row.name,
    description: row.description ?? row.name,
    currency: row.currency,
    isTaxable: !row.rules.pricesIncludeTax,
  };
  const onDemand = row.rules.onDemand;
  if (row.type === 'ON_DEMAND_LEGACY' && onDemand) {
    const slots = [...onDemand.timeSlots].sort((a, b) => a.fromMinute - b.fromMinute);
    const perMin = slots.map((slot, index) => {
      const next = slots[index + 1];
      return {
        start: slot.fromMinute,
        rate: new Decimal(slot.drivingPerMinute).toNumber(),
        interval: 1,
        ...(next ? { end: next.fromMinute } : {}),
      };
    });
    const perKm = new Decimal(onDemand.distancePerUnit).isZero()
      ? []
      : [{ start: kmStart(onDemand.includedDistance), rate: toKm(onDemand.distancePerUnit), interval: 1 }];
    return { ...base, price: new Decimal(onDemand.unlockFee).toNumber(), perMin, perKm };
  }
  const booking = row.rules.booking;
  if (booking) {
    const perKm = new Decimal(booking.distancePerUnit).isZero()
      ? []
      : [
          {
            start: kmStart(booking.includedDistancePerDay),
            rate: toKm(booking.distancePerUnit),
            interval: 1,
          },
        ];
    return {
      ...base,
      price: new Decimal(booking.unlockFee).toNumber(),
      perMin: [{ start: 0, rate: new Decimal(booking.hourlyRate).toNumber(), interval: 60 }],
      perKm,
    };
  }
  return { ...base, price: 0, perMin: [], perKm: [] };
}

/** The rules one area's policies in force give (category overrides of a speed limit first). */
function zoneRules(
  area: GbfsAreaRow,
  local: ReturnType<typeof localWeekdayAndMinute>,
  publishedTypes: Set<number>,
): ZoneRule[] {
  const inForce = area.policies.filter((policy) => scheduleInForce(policy.schedule, local));
  const kinds = new Set(inForce.map((policy) => policy.type));
  const speed = inForce.find((policy) => policy.type === 'SPEED_LIMIT_POLICY');
  const ruled =
    kinds.has('NO_PARKING_POLICY') ||
    kinds.has('NO_END_RENTAL_POLICY') ||
    kinds.has('ALLOW_END_RENTAL_POLICY') ||
    speed !== undefined;
  if (!ruled) return [];
  const scope = area.vehicleTypeIds.length
    ? area.vehicleTypeIds.filter((id) => publishedTypes.has(id)).map(vehicleTypeIdOf)
    : null;
  if (scope && scope.length === 0) return [];
  const endForbidden = kinds.has('NO_PARKING_POLICY') || kinds.has('NO_END_RENTAL_POLICY');
  const rule = (kmh: number | null, types: string[] | null): ZoneRule => ({
    vehicleTypeIds: types,
    // Rentals start wherever their vehicle stands (no area refuses a start); a speed limit of 0 km/h would
    // be a no-ride zone, though the areas' limits start at 1 km/h today.
    rideStartAllowed: kmh !== 0,
    rideEndAllowed: kmh !== 0 && !endForbidden,
    rideThroughAllowed: kmh !== 0,
    maximumSpeedKph: kmh === null ? null : Math.floor(kmh),
  });
  const rules: ZoneRule[] = [];
  if (speed?.type === 'SPEED_LIMIT_POLICY')
    for (const override of speed.speedLimitOverrides ?? []) {
      if (!publishedTypes.has(override.vehicleCategoryId)) continue;
      if (scope && !scope.includes(vehicleTypeIdOf(override.vehicleCategoryId))) continue;
      rules.push(rule(override.speedLimit, [vehicleTypeIdOf(override.vehicleCategoryId)]));
    }
  rules.push(rule(speed?.type === 'SPEED_LIMIT_POLICY' ? speed.speedLimit : null, scope));
  return rules;
}

/** The model of one system at `now`: every GBFS file of both versions is written from it. */
export function gbfsModel(source: GbfsSource, now: Date): GbfsModel {
  const parents = new Map(source.branches.map((b) => [b.id, b.parentId] as const));
  const systemBranches = new Set(source.systemBranchIds);
  const published = new Set(source.pricing.map((p) => p.bundleId));
  const types = new Map(source.vehicleTypes.map((t) => [t.categoryId, t] as const));
  const publishedTypes = new Set(types.keys());
  const closedBranches = new Set(
    source.branches.filter((b) => systemBranches.has(b.id) && b.state !== 'OPERATIONAL').map((b) => b.id),
  );

  const vehicleTypes: VehicleTypeModel[] = source.vehicleTypes.map((t) => {
    const plans = new Set<string>();
    for (const branchId of source.systemBranchIds) {
      const plan = assignedPlan(source, parents, branchId, t.categoryId, published);
      if (plan) plans.add(plan);
    }
    return {
      id: vehicleTypeIdOf(t.categoryId),
      formFactor: t.formFactor,
      propulsionType: t.propulsionType,
      name: t.categoryName,
      maxRangeMeters: isMotorised(t.propulsionType) ? (t.maxRangeMeters ?? 0) : t.maxRangeMeters,
      riderCapacity: t.riderCapacity,
      make: t.make,
      model: t.model,
      wheelCount: t.wheelCount,
      maxPermittedSpeedKmh: t.maxPermittedSpeedKmh,
      defaultPricingPlanId: assignedPlan(source, parents, source.rootBranchId, t.categoryId, published),
      pricingPlanIds: [...plans].sort(),
    };
  });

  // One lookup per branch and category, however many vehicles share them.
  const plans = new Map<string, string | null>();
  const planFor = (branchId: number, categoryId: number): string | null => {
    const key = `${branchId}:${categoryId}`;
    if (!plans.has(key)) plans.set(key, assignedPlan(source, parents, branchId, categoryId, published));
    return plans.get(key) ?? null;
  };
  const vehicles: VehicleModel[] = [];
  for (const v of source.vehicles) {
    const type = types.get(v.categoryId);
    if (!type || inTrip.includes(v.rentalState) || offStreetServiceStates.includes(v.serviceStateV2))
      continue;
    const hasPosition = v.latitude !== null && v.longitude !== null;
    if (!hasPosition && v.dockedAt === null) continue;
    const readiness = vehicleReadiness({
      ...v,
      rentalState: 'AVAILABLE',
      categoryBookable: type.categoryBookable,
      configuration: type.configuration,
    });
    const soc = type.configuration.useIoTSoCLevel ? v.iotStateOfCharge : v.stateOfCharge;
    const motorised = isMotorised(type.propulsionType);
    const fuel = motorised && soc !== null ? Math.min(1, Math.max(0, soc / 100)) : null;
    vehicles.push({
      id: v.publicId,
      lat: hasPosition ? round(v.latitude!, 6) : null,
      lon: hasPosition ? round(v.longitude!, 6) : null,
      isReserved: heldStates.includes(v.rentalState) || v.heldByBooking,
      isDisabled: !readiness.available || closedBranches.has(v.branchId),
      vehicleTypeId: vehicleTypeIdOf(v.categoryId),
      lastReported: v.lastReportAt,
      currentRangeMeters:
        fuel !== null && type.maxRangeMeters !== null ? Math.round(fuel * type.maxRangeMeters) : null,
      currentFuelPercent: fuel === null ? null : round(fuel, 2),
      stationId: v.dockedAt === null ? null : physicalStationIdOf(v.dockedAt),
      pricingPlanId: planFor(v.branchId, v.categoryId),
    });
  }

  const rentable = (vehicle: VehicleModel) => !vehicle.isReserved && !vehicle.isDisabled;
  const stations: StationModel[] = [];
  for (const s of source.stations) {
    const box = catchmentBox(s);
    const inside = vehicles.filter(
      (vehicle) =>
        vehicle.stationId === null &&
        vehicle.lat !== null &&
        vehicle.lon !== null &&
        vehicle.lat >= box.south &&
        vehicle.lat <= box.north &&
        vehicle.lon >= box.west &&
        vehicle.lon <= box.east &&
        (s.area
          ? geofenceContains(s.area, { lat: vehicle.lat, lng: vehicle.lon })
          : metresBetween(s.latitude, s.longitude, vehicle.lat, vehicle.lon) <= (s.radius ?? 0)),
    );
    const available = inside.filter(rentable);
    const byType = new Map<string, number>();
    for (const vehicle of available)
      byType.set(vehicle.vehicleTypeId, (byType.get(vehicle.vehicleTypeId) ?? 0) + 1);
    const open = !closedBranches.has(s.branchId);
    stations.push({
      id: stationIdOf(s.id),
      name: s.name,
      lat: round(s.latitude, 6),
      lon: round(s.longitude, 6),
      address: null,
      regionId: regionIdOf(s.branchId),
      capacity: s.capacity,
      isVirtual: true,
      area: s.area,
      isInstalled: true,
      isRenting: open,
      isReturning: open && (s.capacity === null || inside.length < s.capacity),
      lastReported: now,
      vehiclesAvailable: available.length,
      vehiclesDisabled: inside.filter((vehicle) => vehicle.isDisabled).length,
      availableByType: byType,
      docksAvailable: null,
      docksDisabled: null,
    });
  }
  for (const p of source.physicalStations) {
    const id = physicalStationIdOf(p.id);
    const docked = vehicles.filter((vehicle) => vehicle.stationId === id);
    const available = docked.filter(rentable);
    const byType = new Map<string, number>();
    for (const vehicle of available)
      byType.set(vehicle.vehicleTypeId, (byType.get(vehicle.vehicleTypeId) ?? 0) + 1);
    const operational = p.state === 'OPERATIONAL' && !closedBranches.has(p.branchId);
    const vacant = p.slots.filter((slot) => slot.state === 'VACANT' && !slot.occupied).length;
    stations.push({
      id,
      name: p.name,
      lat: round(p.latitude, 6),
      lon: round(p.longitude, 6),
      address: p.address,
      regionId: regionIdOf(p.branchId),
      capacity: p.slots.length,
      isVirtual: false,
      area: null,
      isInstalled: p.state !== 'IN_PREPARATION',
      isRenting: operational,
      isReturning: operational && vacant > 0,
      lastReported: p.lastChangeAt ?? now,
      vehiclesAvailable: available.length,
      vehiclesDisabled: docked.filter((vehicle) => vehicle.isDisabled).length,
      availableByType: byType,
      docksAvailable: operational ? vacant : 0,
      docksDisabled: p.slots.filter((slot) => slot.state === 'OUT_OF_ORDER').length,
    });
  }

  const local = localWeekdayAndMinute(now, source.system.timezone);
  const zones: ZoneModel[] = [];
  for (const area of source.areas) {
    const rules = zoneRules(area, local, publishedTypes);
    if (rules.length) zones.push({ name: area.name, geometry: area.geofence, rules });
  }
  // Ending outside every allow-end area is refused for a category that has any (endRentalRestricted).
  const restricted = [...publishedTypes].filter((categoryId) =>
    source.areas.some(
      (area) =>
        (area.vehicleTypeIds.length === 0 || area.vehicleTypeIds.includes(categoryId)) &&
        area.policies.some((policy) => policy.type === 'ALLOW_END_RENTAL_POLICY'),
    ),
  );
  const globalRules: ZoneRule[] = [];
  if (restricted.length)
    globalRules.push({
      vehicleTypeIds: restricted.map(vehicleTypeIdOf),
      rideStartAllowed: true,
      rideEndAllowed: false,
      rideThroughAllowed: true,
      maximumSpeedKph: null,
    });
  globalRules.push({
    vehicleTypeIds: null,
    rideStartAllowed: true,
    rideEndAllowed: true,
    rideThroughAllowed: true,
    maximumSpeedKph: null,
  });

  const alerts: AlertModel[] = [];
  for (const branch of source.branches)
    if (closedBranches.has(branch.id))
      alerts.push({
        id: `branch-${branch.id}-${branch.state.toLowerCase()}`,
        type: 'SYSTEM_CLOSURE',
        summary: `${branch.name} is closed`,
        description: `${branch.name} is not operating (${branch.state.toLowerCase().replace(/_/g, ' ')}); its vehicles and stations cannot be rented.`,
        stationIds: [],
        regionIds: [regionIdOf(branch.id)],
      });
  for (const p of source.physicalStations)
    if (p.state === 'TEMPORARY_CLOSED')
      alerts.push({
        id: `station-${p.id}-closed`,
        type: 'STATION_CLOSURE',
        summary: `${p.name} is temporarily closed`,
        description: `The station ${p.name} neither rents nor takes back vehicles for the time being.`,
        stationIds: [physicalStationIdOf(p.id)],
        regionIds: [regionIdOf(p.branchId)],
      });

  return {
    system: source.system,
    regions: source.branches
      .filter((branch) => systemBranches.has(branch.id))
      .map((branch) => ({ id: regionIdOf(branch.id), name: branch.name })),
    vehicleTypes,
    vehicles,
    stations,
    plans: source.pricing.map(planOf),
    zones,
    globalRules,
    alerts,
  };
}
