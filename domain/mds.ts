// Pure rules of the MDS 2.0 provider interface (docs/mds.md): the vocabulary, the mode of a vehicle type,
// the MDS vehicle state machine as a function of fleetflow's rental, service, battery and connectivity
// states, and the fold that turns fleetflow's events into MDS events. No I/O, no Node built-ins.
import { Decimal } from 'decimal.js';
import {
  gbfsFormFactors,
  gbfsPropulsionTypes,
  type GbfsFormFactor,
  type GbfsPropulsionType,
} from './gbfs-vocabulary.js';
import { minorDigitsOf } from './money.js';
import type { BatteryLevel, ServiceStateV2, VehicleRentalState } from './vehicle.js';

/** The version served (`version` of every body) and its media type. */
export const MDS_VERSION = '2.0.0';
export const MDS_MEDIA_TYPE = 'application/vnd.mds+json';
export const MDS_CONTENT_TYPE = `${MDS_MEDIA_TYPE};version=2.0`;

/** The modes fleetflow's fleets fall into: cars are car share, everything smaller micromobility. */
export const mdsModes = ['micromobility', 'car-share'] as const;
export type MdsMode = (typeof mdsModes)[number];

/** MDS vehicle types fleetflow can publish: the GBFS form factors, which MDS 2.0 aligned to. */
export const mdsVehicleTypes = gbfsFormFactors;
export type MdsVehicleType = GbfsFormFactor;

/** MDS propulsion types: the same values as GBFS's. */
export const mdsPropulsionTypes = gbfsPropulsionTypes;
export type MdsPropulsionType = GbfsPropulsionType;

export const mdsVehicleStates = [
  'removed',
  'available',
  'non_operational',
  'reserved',
  'on_trip',
  'stopped',
  'non_contactable',
  'missing',
  'elsewhere',
] as const;
export type MdsVehicleState = (typeof mdsVehicleStates)[number];

/** The event types fleetflow emits (a subset of MDS's). */
export type MdsEventType =
  | 'agency_pick_up'
  | 'battery_charged'
  | 'battery_low'
  | 'comms_lost'
  | 'comms_restored'
  | 'customer_cancellation'
  | 'decommissioned'
  | 'located'
  | 'maintenance'
  | 'maintenance_end'
  | 'maintenance_pick_up'
  | 'not_located'
  | 'provider_cancellation'
  | 'provider_drop_off'
  | 'reservation_cancel'
  | 'reservation_start'
  | 'service_end'
  | 'service_start'
  | 'trip_end'
  | 'trip_resume'
  | 'trip_start'
  | 'trip_stop'
  | 'unspecified';

/** A vehicle type's mode: `car` is car share; bicycles, scooters, mopeds and others micromobility. */
export const modeOfVehicleType = (type: MdsVehicleType): MdsMode =>
  type === 'car' ? 'car-share' : 'micromobility';

/** The MDS vehicle type of a stored form factor, or undefined when it is none of them. */
export const asMdsVehicleType = (value: string): MdsVehicleType | undefined =>
  (mdsVehicleTypes as readonly string[]).includes(value) ? (value as MdsVehicleType) : undefined;

export const asMdsPropulsionType = (value: string): MdsPropulsionType | undefined =>
  (mdsPropulsionTypes as readonly string[]).includes(value) ? (value as MdsPropulsionType) : undefined;

/** How a fleetflow service state (V2) weighs in MDS: rentable, on the street but held, off the street, lost. */
export type ServiceClass = 'operational' | 'held' | 'removed' | 'lost';

/** The service state table of docs/mds.md. */
export const serviceClassOf: Readonly<Record<ServiceStateV2, ServiceClass>> = {
  FUNCTIONAL: 'operational',
  INSPECT: 'operational',
  RELOCATE: 'operational',
  COLLECT: 'held',
  COLLECT_EXTERNAL: 'held',
  SERVICE_ON_SITE: 'held',
  MAINTENANCE: 'held',
  OTHER: 'held',
  OPERATIONAL_HOLD: 'held',
  AWAITING_ACTION: 'held',
  REGULATORY_INSPECTION: 'held',
  SERVICE_WORKSHOP: 'removed',
  SERVICE_WORKSHOP_INSURANCE: 'removed',
  SERVICE_WORKSHOP_QUEUE: 'removed',
  SERVICE_EXTERNAL: 'removed',
  SERVICE_MECHANICS: 'removed',
  REPLACE: 'removed',
  WAITING_FOR_PARTS: 'removed',
  IMPOUNDED: 'removed',
  REGULATORY_INSPECTION_READY: 'removed',
  READY_FOR_DEPLOYMENT: 'removed',
  READY_FOR_DEPLOYMENT_NEW: 'removed',
  RETIRED: 'removed',
  DEFLEETED: 'removed',
  UNREPAIRABLE: 'removed',
  LOST: 'lost',
};

/** Service states that take a vehicle out of the fleet for good (MDS `decommissioned`). */
const decommissionedStates: readonly ServiceStateV2[] = ['RETIRED', 'DEFLEETED', 'UNREPAIRABLE'];

/** What fleetflow knows of a vehicle at one moment, as far as MDS is concerned. */
export interface MdsComponents {
  /** The vehicle's open rental: none, reserved, or active while driving or parked. */
  rental: 'none' | 'reserved' | 'driving' | 'parking';
  service: ServiceStateV2;
  /** Battery LOW or CRITICAL (the ready-to-rent rules refuse it unless the category ignores the charge). */
  batteryLow: boolean;
  offline: boolean;
}

/** The rental component of a vehicle's rental state (a delivered booking vehicle is held for its customer). */
export function rentalComponentOf(state: VehicleRentalState): MdsComponents['rental'] {
  if (state === 'RESERVATION' || state === 'DELIVERED') return 'reserved';
  if (state === 'DRIVING') return 'driving';
  if (state === 'PARKING') return 'parking';
  return 'none';
}

export const isBatteryLow = (level: BatteryLevel): boolean => level === 'LOW' || level === 'CRITICAL';

/**
 * The MDS vehicle state of a vehicle (docs/mds.md, "Vehicle states"), in this order: an open rental
 * decides (reserved; on a trip; a parked car share `stopped`, a parked micromobility vehicle still on its
 * trip), then the service state (off the street `removed`; lost `missing`, a lost car `non_contactable`),
 * then connectivity (`non_contactable`), then a service hold or, for micromobility, a low battery
 * (`non_operational`); otherwise `available`.
 */
export function mdsStateOf(components: MdsComponents, mode: MdsMode): MdsVehicleState {
  if (components.rental === 'reserved') return 'reserved';
  if (components.rental === 'driving') return 'on_trip';
  if (components.rental === 'parking') return mode === 'car-share' ? 'stopped' : 'on_trip';
  const service = serviceClassOf[components.service];
  if (service === 'removed') return 'removed';
  if (service === 'lost') return mode === 'micromobility' ? 'missing' : 'non_contactable';
  if (components.offline) return 'non_contactable';
  if (service === 'held') return 'non_operational';
  if (components.batteryLow && mode === 'micromobility') return 'non_operational';
  return 'available';
}

/**
 * The event types each mode allows per vehicle state, as the vendored MDS 2.0 schemas list them
 * (models/modes/{micromobility,car-share}/event.yaml): every event fleetflow emits is among them.
 */
export const allowedEventTypes: Readonly<
  Record<MdsMode, Partial<Record<MdsVehicleState, readonly string[]>>>
> = {
  micromobility: {
    removed: [
      'agency_pick_up',
      'comms_restored',
      'compliance_pick_up',
      'decommissioned',
      'located',
      'maintenance_pick_up',
      'rebalance_pick_up',
      'unspecified',
    ],
    available: [
      'agency_drop_off',
      'battery_charged',
      'comms_restored',
      'located',
      'maintenance',
      'on_hours',
      'provider_drop_off',
      'reservation_cancel',
      'system_resume',
      'trip_cancel',
      'trip_end',
      'unspecified',
    ],
    non_operational: [
      'battery_low',
      'comms_restored',
      'located',
      'maintenance',
      'off_hours',
      'system_suspend',
      'unspecified',
    ],
    reserved: ['comms_restored', 'located', 'reservation_start', 'unspecified'],
    on_trip: [
      'changed_geographies',
      'comms_restored',
      'located',
      'trip_enter_jurisdiction',
      'trip_start',
      'unspecified',
    ],
    non_contactable: ['comms_lost', 'unspecified'],
    missing: ['not_located', 'unspecified'],
    elsewhere: ['comms_restored', 'located', 'trip_leave_jurisdiction', 'unspecified'],
  },
  'car-share': {
    removed: ['comms_restored', 'decommissioned', 'maintenance', 'maintenance_pick_up'],
    available: [
      'comms_restored',
      'driver_cancellation',
      'customer_cancellation',
      'provider_cancellation',
      'service_start',
      'trip_end',
      'trip_enter_jurisdiction',
    ],
    non_operational: [
      'comms_restored',
      'maintenance_end',
      'recommissioned',
      'service_end',
      'trip_enter_jurisdiction',
    ],
    reserved: ['comms_restored', 'reservation_start', 'trip_enter_jurisdiction'],
    on_trip: ['comms_restored', 'trip_enter_jurisdiction', 'trip_resume', 'trip_start'],
    non_contactable: ['comms_lost'],
    stopped: [
      'charging_end',
      'charging_start',
      'comms_restored',
      'fueling_end',
      'fueling_start',
      'remote_end',
      'remote_start',
      'reservation_stop',
      'trip_stop',
    ],
    elsewhere: ['comms_restored', 'trip_leave_jurisdiction'],
  },
};

/** What a fleetflow event changes of a vehicle's components, and why (the cause picks the MDS event type). */
export type MdsCause =
  | { kind: 'reservation_start' }
  | { kind: 'trip_start' }
  | { kind: 'trip_stop' }
  | { kind: 'trip_resume' }
  | { kind: 'trip_end' }
  | { kind: 'reservation_cancel'; by: 'customer' | 'provider' }
  | { kind: 'service'; to: ServiceStateV2 }
  | { kind: 'battery'; low: boolean }
  | { kind: 'connectivity'; online: boolean };

/** The fleetflow event types that can change an MDS state (the rental's transitions and the vehicle's). */
export const mdsSourceEventTypes: readonly string[] = [
  'RENTAL_RESERVATION',
  'RENTAL_START',
  'RENTAL_PARK',
  'RENTAL_DRIVE',
  'RENTAL_END',
  'RENTAL_CANCEL_RESERVATION',
  'RENTAL_RESERVATION_EXPIRED',
  'VEHICLE_ONLINE',
  'VEHICLE_OFFLINE',
];
/** Prefixes of the vehicle's service-state and battery-level event families. */
export const SERVICE_EVENT_PREFIX = 'VEHICLE_SERVICE_STATE_V2_';
export const BATTERY_EVENT_PREFIX = 'VEHICLE_BATTERY_LEVEL_';

/** The cause a fleetflow event type stands for, or undefined when it does not concern MDS. */
export function causeOf(type: string): MdsCause | undefined {
  switch (type) {
    case 'RENTAL_RESERVATION':
      return { kind: 'reservation_start' };
    case 'RENTAL_START':
      return { kind: 'trip_start' };
    case 'RENTAL_PARK':
      return { kind: 'trip_stop' };
    case 'RENTAL_DRIVE':
      return { kind: 'trip_resume' };
    case 'RENTAL_END':
      return { kind: 'trip_end' };
    case 'RENTAL_CANCEL_RESERVATION':
      return { kind: 'reservation_cancel', by: 'customer' };
    case 'RENTAL_RESERVATION_EXPIRED':
      return { kind: 'reservation_cancel', by: 'provider' };
    case 'VEHICLE_ONLINE':
      return { kind: 'connectivity', online: true };
    case 'VEHICLE_OFFLINE':
      return { kind: 'connectivity', online: false };
  }
  if (type.startsWith(SERVICE_EVENT_PREFIX)) {
    const to = type.slice(SERVICE_EVENT_PREFIX.length) as ServiceStateV2;
    if (to in serviceClassOf) return { kind: 'service', to };
  }
  if (type.startsWith(BATTERY_EVENT_PREFIX)) {
    const level = type.slice(BATTERY_EVENT_PREFIX.length) as BatteryLevel;
    if (level === 'UNKNOWN') return undefined;
    return { kind: 'battery', low: isBatteryLow(level) };
  }
  return undefined;
}

/** The components after a cause. */
export function applyCause(components: MdsComponents, cause: MdsCause): MdsComponents {
  switch (cause.kind) {
    case 'reservation_start':
      return { ...components, rental: 'reserved' };
    case 'trip_start':
    case 'trip_resume':
      return { ...components, rental: 'driving' };
    case 'trip_stop':
      return { ...components, rental: 'parking' };
    case 'trip_end':
    case 'reservation_cancel':
      return { ...components, rental: 'none' };
    case 'service':
      return { ...components, service: cause.to };
    case 'battery':
      return { ...components, batteryLow: cause.low };
    case 'connectivity':
      return { ...components, offline: !cause.online };
  }
}

/** The event type of a transition into `state` for `cause` (docs/mds.md, "Events"). */
export function eventTypeFor(
  mode: MdsMode,
  state: MdsVehicleState,
  cause: MdsCause,
  before: MdsVehicleState,
): MdsEventType {
  const micro = mode === 'micromobility';
  const fallback: MdsEventType = micro ? 'unspecified' : 'comms_restored';
  switch (cause.kind) {
    case 'reservation_start':
      return 'reservation_start';
    case 'trip_start':
      return 'trip_start';
    case 'trip_resume':
      return micro ? 'unspecified' : 'trip_resume';
    case 'trip_stop':
      return micro ? 'unspecified' : 'trip_stop';
    case 'trip_end':
      return 'trip_end';
    case 'reservation_cancel':
      if (micro) return 'reservation_cancel';
      return cause.by === 'customer' ? 'customer_cancellation' : 'provider_cancellation';
    case 'connectivity':
      if (!cause.online) return 'comms_lost';
      return 'comms_restored';
    case 'battery':
      if (!micro) return fallback;
      return state === 'non_operational'
        ? 'battery_low'
        : state === 'available'
          ? 'battery_charged'
          : fallback;
    case 'service':
      return serviceEventType(mode, state, cause.to, before);
  }
}

function serviceEventType(
  mode: MdsMode,
  state: MdsVehicleState,
  to: ServiceStateV2,
  before: MdsVehicleState,
): MdsEventType {
  const micro = mode === 'micromobility';
  switch (state) {
    case 'removed':
      if (decommissionedStates.includes(to)) return 'decommissioned';
      if (to === 'IMPOUNDED') return micro ? 'agency_pick_up' : 'maintenance_pick_up';
      if (['READY_FOR_DEPLOYMENT', 'READY_FOR_DEPLOYMENT_NEW', 'REGULATORY_INSPECTION_READY'].includes(to))
        return micro ? 'unspecified' : 'maintenance';
      return 'maintenance_pick_up';
    case 'available':
      if (!micro) return 'service_start';
      if (before === 'removed') return 'provider_drop_off';
      if (before === 'missing') return 'located';
      return 'maintenance';
    case 'non_operational':
      if (!micro) return before === 'removed' ? 'maintenance_end' : 'service_end';
      return before === 'missing' ? 'located' : 'maintenance';
    case 'missing':
      return 'not_located';
    case 'non_contactable':
      return 'comms_lost';
    default:
      return micro ? 'unspecified' : 'comms_restored';
  }
}

/** One MDS state change the fold produced, before ids and positions are attached. */
export interface MdsTransition {
  state: MdsVehicleState;
  eventType: MdsEventType;
  /** 0 for the event's own transition; 1 for the follow-up after a rental ends into a state other than available. */
  step: number;
}

/**
 * The MDS events one fleetflow event produces for a vehicle in `components` (docs/mds.md): none when the
 * MDS state does not change; one otherwise; two when a rental ends (or a reservation is cancelled) into
 * anything but `available`, because MDS leaves a trip or reservation only towards `available`: first
 * `available` with the trip's event, then the state the vehicle is really in, with the reason.
 */
export function transitionsOf(
  components: MdsComponents,
  cause: MdsCause,
  mode: MdsMode,
): { components: MdsComponents; transitions: MdsTransition[] } {
  const before = mdsStateOf(components, mode);
  const after = applyCause(components, cause);
  const state = mdsStateOf(after, mode);
  const transitions: MdsTransition[] = [];
  const leavesRental = cause.kind === 'trip_end' || cause.kind === 'reservation_cancel';
  if (leavesRental && components.rental !== 'none') {
    transitions.push({
      state: 'available',
      eventType: eventTypeFor(mode, 'available', cause, before),
      step: 0,
    });
    if (state !== 'available')
      transitions.push({ state, eventType: residualEventType(mode, state, after), step: 1 });
  } else if (state !== before) {
    transitions.push({ state, eventType: eventTypeFor(mode, state, cause, before), step: 0 });
  }
  return { components: after, transitions };
}

/** Why a vehicle that just left a rental is not available: its service state, its connectivity or its battery. */
function residualEventType(mode: MdsMode, state: MdsVehicleState, components: MdsComponents): MdsEventType {
  if (state === 'non_contactable' && components.offline && serviceClassOf[components.service] !== 'lost')
    return 'comms_lost';
  if (state === 'non_operational' && serviceClassOf[components.service] === 'operational')
    return eventTypeFor(mode, state, { kind: 'battery', low: true }, 'available');
  return serviceEventType(mode, state, components.service, 'available');
}

/**
 * The last event of a vehicle's current state, for `/vehicles/status` (docs/mds.md): the event type a
 * transition into that state would carry for the component that decides it.
 */
export function currentEventType(components: MdsComponents, mode: MdsMode): MdsEventType {
  const state = mdsStateOf(components, mode);
  const micro = mode === 'micromobility';
  switch (state) {
    case 'reserved':
      return 'reservation_start';
    case 'on_trip':
      return components.rental === 'parking' ? 'unspecified' : 'trip_start';
    case 'stopped':
      return 'trip_stop';
    case 'available':
      return micro ? 'unspecified' : 'service_start';
    default:
      return residualEventType(mode, state, components);
  }
}

/** The family of a source event type: which component it moves. */
export function familyOf(type: string): 'rental' | 'service' | 'battery' | 'connectivity' | undefined {
  const cause = causeOf(type);
  if (!cause) return undefined;
  if (cause.kind === 'service' || cause.kind === 'battery' || cause.kind === 'connectivity')
    return cause.kind;
  return 'rental';
}

/**
 * A vehicle's components at the start of a window (docs/mds.md, "Events"), so that a past window always
 * answers the same: each family from its last event before the window; without one, from its first event
 * after the window start, which changed it (going offline means it was online; a service change names the
 * state it left; a battery level changes towards or away from low); without any, the vehicle's current
 * value, which no event has changed since. A rental is open only after its reservation event.
 */
export function componentsAt(
  current: MdsComponents,
  lastBefore: readonly string[],
  firstAfter: ReadonlyArray<{ type: string; payload?: Record<string, unknown> | null }>,
): MdsComponents {
  let components: MdsComponents = { ...current, rental: 'none' };
  const known = new Set(lastBefore.map(familyOf));
  for (const next of firstAfter) {
    const cause = causeOf(next.type);
    if (!cause || known.has(familyOf(next.type))) continue;
    if (cause.kind === 'connectivity') components = { ...components, offline: cause.online };
    else if (cause.kind === 'battery') components = { ...components, batteryLow: !cause.low };
    else if (cause.kind === 'service') {
      const from = next.payload?.from;
      if (typeof from === 'string' && from in serviceClassOf)
        components = { ...components, service: from as ServiceStateV2 };
    }
  }
  for (const type of lastBefore) {
    const cause = causeOf(type);
    if (cause) components = applyCause(components, cause);
  }
  return components;
}

/** The MDS transitions a vehicle's source events produce from `start`, each with the event it came from. */
export function foldEvents<E extends { type: string }>(
  start: MdsComponents,
  mode: MdsMode,
  events: readonly E[],
): Array<{ source: E; transition: MdsTransition }> {
  let components = start;
  const out: Array<{ source: E; transition: MdsTransition }> = [];
  for (const source of events) {
    const cause = causeOf(source.type);
    if (!cause) continue;
    const step = transitionsOf(components, cause, mode);
    components = step.components;
    for (const transition of step.transitions) out.push({ source, transition });
  }
  return out;
}

const EARTH_RADIUS_M = 6_371_008.8;
const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** Length in whole metres of a route (great-circle distance between consecutive points). */
export function routeLengthMeters(points: ReadonlyArray<{ lat: number; lng: number }>): number {
  let total = 0;
  for (let index = 1; index < points.length; index++) {
    const a = points[index - 1]!;
    const b = points[index]!;
    const h =
      Math.sin(radians(b.lat - a.lat) / 2) ** 2 +
      Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(radians(b.lng - a.lng) / 2) ** 2;
    total += 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
  }
  return Math.round(total);
}

/**
 * An invoice total as MDS writes costs: integer minor units of its currency (half-up), or undefined for a
 * negative or unreadable amount (MDS costs are never negative).
 */
export function costInMinorUnits(total: string, currency: string): number | undefined {
  let amount: Decimal;
  try {
    amount = new Decimal(total);
  } catch {
    return undefined;
  }
  if (!amount.isFinite() || amount.isNegative()) return undefined;
  return amount
    .times(new Decimal(10).pow(minorDigitsOf(currency)))
    .toDecimalPlaces(0, Decimal.ROUND_HALF_UP)
    .toNumber();
}

/** A count of the monthly report: MDS hides counts from 1 to 10 (privacy) as -1. */
export const reportCount = (count: number): number => (count >= 1 && count <= 10 ? -1 : count);
