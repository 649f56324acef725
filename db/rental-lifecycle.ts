// The rental's transitions as writes inside the caller's transaction (activities/rental-transition.ts
// opens it and talks to the vehicle): one row of the transition table (domain/rental.ts) with what the
// vehicle reported, the deposit or the bill it implies and its event; the end-requirements check of an
// END; the record of a failed operation. Each carries the activity's idempotency key, so a retried
// activity finds what its first attempt wrote. See docs/rentals.md and docs/rental-billing.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Rental } from './entities/Rental.js';
import { eventRecorded, insertEvents, recordEvent, type EventFields, type EventSink } from './events.js';
import { effectiveSetting, settingOrDefaults } from './settings.js';
import { preparedRows, updateTenantRow } from './prepared.js';
import { finaliseRentalBilling, holdRentalDeposit } from './rental-billing.js';
import { grantRentalGeofenceVouchers } from './geofence-pricing.js';
import { endRequirementsReport, type EndRequirementsReport } from './rental-requirements.js';
import { rentalJsonColumns, vehicleJsonColumns } from './rental-rows.js';
import { DomainError } from '../domain/errors.js';
import {
  advancePhases,
  rentalTransitions,
  vehicleStateForRental,
  type ActiveMode,
  type RentalPhaseRecord,
  type RentalState,
  type RentalTransitionName,
} from '../domain/rental.js';
import {
  RENTAL_NO_MOVEMENT_SETTING_KEY,
  defaultNoMovementSettings,
  movedMeaningfully,
  type RentalNoMovementSettings,
} from '../domain/rental-trip.js';
import type {
  BatteryLevel,
  PowerState,
  ReportedVehicleFields,
  VehicleReport,
  VehicleSensors,
} from '../domain/vehicle.js';
import { RENTAL_DEPOSIT_SETTING_KEY } from '../domain/rental-pricing.js';

export interface RecordRentalTransitionInput {
  tenant: string;
  rentalId: number;
  /** Which row of the transition table (domain/rental.ts) this is. */
  transition: RentalTransitionName;
  at: string;
  requestedBy: string;
  adminOverride: boolean;
  /** What the vehicle reported in its reply to the transition's command. */
  vehicleReport?: VehicleReport;
  position?: { lat: number; lng: number };
  reservationExpiresAt?: string;
  /** Free expiry at the time of the transition: reservation time past it is the paid phase. */
  freeReservationExpiresAt?: string;
  /** END only: what the end-requirements check decided (overridden requirements, end branch). */
  endCheck?: EndCheckOutcome;
}

/** What the end-requirements check of an END leaves for the recorded transition. */
export interface EndCheckOutcome {
  overridden: string[];
  endBranchId: number | null;
}

/** What recording a transition produced: END may become ENDED_NO_MOVEMENT. */
export interface RecordedTransition {
  state: RentalState;
  /** An earlier attempt of the activity recorded it: nothing was written now. */
  recordedBefore?: true;
  /** An ending transition's invoice (null for a zero total) and the branch whose settings bill it. */
  ended?: { invoiceId: number | null; branchId: number };
}

export interface RecordOperationFailureInput {
  tenant: string;
  rentalId: number;
  operation: RentalTransitionName;
  code: string;
  message: string;
  at: string;
  requestedBy: string;
}

/** The transition's vehicle as it reads it under the row lock, in the shape a device report changes. */
export type TransitionVehicle = ReportedVehicleFields & {
  id: number;
  branch: { id: number };
  category: { id: number };
};

/**
 * The vehicle's side of a transition, written by the fleet's code (activities/fleet.ts) in the same
 * transaction: the command's OK answer when it is still unrecorded, and the device's report applied to
 * the vehicle (answering whether it applied). Their events go into the step's `events`.
 */
export interface TransitionVehicleWrites {
  recordAnswer?: (events: EventSink) => Promise<void>;
  applyReport: (vehicle: TransitionVehicle, report: VehicleReport, events: EventSink) => Promise<boolean>;
}

/** What a transition reads of its rental and vehicle, under their row locks (`lockTransitionRows`). */
interface TransitionRow {
  recorded: boolean;
  state: RentalState;
  active_mode: ActiveMode | null;
  branch_id: number;
  customer_id: number;
  started_at: string | null;
  start_position: { lat: number; lng: number } | null;
  start_odometer_km: number | null;
  phases: RentalPhaseRecord[];
  deposit_id: number | null;
  vehicle_id: number;
  vehicle_branch_id: number;
  category_id: number;
  latitude: number | null;
  longitude: number | null;
  odometer_km: number | null;
  state_of_charge: number | null;
  iot_state_of_charge: number | null;
  iot_module_level: number | null;
  battery_level: BatteryLevel;
  locked: boolean;
  power_state: PowerState;
  charging: boolean;
  speed_kmh: number | null;
  hdop: number | null;
  max_speed_kmh: number | null;
  last_seen_at: string | null;
  last_report_at: string | null;
  sensors: VehicleSensors;
}

/**
 * The transition's one read: the rental and its vehicle under their row locks, and whether this
 * activity's key was recorded. The key is looked up in `event_key`, whose unique index holds it; the
 * partitioned `event` table has no index on it, and a lookup there scanned every partition of the tenant
 * on every step (39 ms at 300,000 events, growing with the history: docs/performance-rental-lifecycle.md).
 */
export const lockTransitionRows = `
  select exists(select 1 from event_key k where k.tenant_id = r.tenant_id and k.idempotency_key = $1) as recorded,
         r.state, r.active_mode, r.branch_id, r.customer_id, r.started_at, r.start_position,
         r.start_odometer_km, r.phases, r.deposit_id,
         v.id as vehicle_id, v.branch_id as vehicle_branch_id, v.category_id, v.latitude, v.longitude,
         v.odometer_km, v.state_of_charge, v.iot_state_of_charge, v.iot_module_level, v.battery_level,
         v.locked, v.power_state, v.charging, v.speed_kmh, v.hdop, v.max_speed_kmh, v.last_seen_at,
         v.last_report_at, v.sensors
    from rental r join vehicle v on v.tenant_id = r.tenant_id and v.id = r.vehicle_id
   where r.tenant_id = $2 and r.id = $3
     for update of r, v`;

/** The vehicle columns a device report sets (domain/vehicle.ts `applyVehicleReport`), by column name. */
function reportedVehicleColumns(vehicle: TransitionVehicle): Record<string, unknown> {
  return {
    latitude: vehicle.latitude ?? null,
    longitude: vehicle.longitude ?? null,
    odometer_km: vehicle.odometerKm ?? null,
    state_of_charge: vehicle.stateOfCharge ?? null,
    iot_state_of_charge: vehicle.iotStateOfCharge ?? null,
    iot_module_level: vehicle.iotModuleLevel ?? null,
    battery_level: vehicle.batteryLevel,
    locked: vehicle.locked,
    power_state: vehicle.powerState,
    charging: vehicle.charging,
    speed_kmh: vehicle.speedKmh ?? null,
    hdop: vehicle.hdop ?? null,
    max_speed_kmh: vehicle.maxSpeedKmh ?? null,
    last_seen_at: vehicle.lastSeenAt ?? null,
    last_report_at: vehicle.lastReportAt ?? null,
    sensors: vehicle.sensors ?? {},
  };
}

/**
 * Records one row of the transition table (domain/rental.ts) with what the vehicle reported, the
 * billing it implies and its event, inside the caller's transaction; idempotent per activity. The rental
 * and its vehicle are read, locked and written as rows (every step of every rental runs this, and
 * loading, tracking and flushing the two entities cost more than the statements); only a deposit to hold
 * at the start loads the rental entity its rules work on, after the row is written. The bill at the end
 * reads the written row again with its pinned version (`finaliseRentalBilling`).
 */
export async function recordRentalTransition(
  em: EntityManager,
  input: RecordRentalTransitionInput,
  idempotencyKey: string,
  vehicleWrites: TransitionVehicleWrites,
): Promise<RecordedTransition> {
  const transition = rentalTransitions[input.transition];
  // One statement locks the rental and its vehicle, reads what the step needs of both and tells
  // whether an earlier attempt of this activity recorded the transition already.
  const [row] = await preparedRows<TransitionRow>(em, lockTransitionRows, [
    idempotencyKey,
    input.tenant,
    input.rentalId,
  ]);
  if (!row) throw new DomainError('R404');
  // Already recorded by an earlier attempt of this activity: answer what it recorded.
  if (row.recorded) return { state: row.state, recordedBefore: true };
  // The step's events, inserted together once the rows are written.
  const events: EventFields[] = [];
  const collect = (fields: EventFields) => void events.push(fields);
  // The command's OK answer is recorded with the transition, in one transaction.
  if (vehicleWrites.recordAnswer) await vehicleWrites.recordAnswer(collect);
  if (!transition.from.includes(row.state)) {
    throw new DomainError(
      'R201',
      `rental is ${row.state}; ${input.transition} needs ${transition.from.join(' or ')}`,
    );
  }
  const parseDate = (value: string | null) => (value === null ? null : em.getPlatform().parseDate(value));
  const vehicle: TransitionVehicle = {
    id: row.vehicle_id,
    branch: { id: row.vehicle_branch_id },
    category: { id: row.category_id },
    latitude: row.latitude,
    longitude: row.longitude,
    odometerKm: row.odometer_km,
    stateOfCharge: row.state_of_charge,
    iotStateOfCharge: row.iot_state_of_charge,
    iotModuleLevel: row.iot_module_level,
    batteryLevel: row.battery_level,
    locked: row.locked,
    powerState: row.power_state,
    charging: row.charging,
    speedKmh: row.speed_kmh,
    hdop: row.hdop,
    maxSpeedKmh: row.max_speed_kmh,
    lastSeenAt: parseDate(row.last_seen_at),
    lastReportAt: parseDate(row.last_report_at),
    sensors: row.sensors,
  };
  const reported = input.vehicleReport
    ? await vehicleWrites.applyReport(vehicle, input.vehicleReport, collect)
    : false;
  const at = new Date(input.at);
  const position =
    input.vehicleReport?.position ??
    (vehicle.latitude != null && vehicle.longitude != null
      ? { lat: vehicle.latitude, lng: vehicle.longitude }
      : null);
  const activeMode = transition.activeMode !== undefined ? transition.activeMode : row.active_mode;
  // The rental's columns this step sets, by column name.
  const changes: Record<string, unknown> = {
    active_mode: activeMode,
    phases: advancePhases(row.phases, input.transition, at.toISOString(), input.freeReservationExpiresAt),
  };
  if (input.reservationExpiresAt) changes.reservation_expires_at = new Date(input.reservationExpiresAt);
  if (transition.starts) {
    changes.started_at = at;
    changes.start_position = position;
    changes.start_odometer_km = vehicle.odometerKm ?? null;
    changes.start_vehicle_sensors = { ...vehicle.sensors };
  }
  let state: RentalState = transition.to;
  if (transition.ends) {
    changes.ended_at = at;
    if (row.started_at !== null) {
      changes.end_position = position;
      changes.end_odometer_km = vehicle.odometerKm ?? null;
      if (input.transition === 'END') {
        const thresholds = await settingOrDefaults<RentalNoMovementSettings>(
          em,
          input.tenant,
          RENTAL_NO_MOVEMENT_SETTING_KEY,
          row.branch_id,
          defaultNoMovementSettings,
        );
        const trip = {
          startPosition: row.start_position,
          endPosition: position,
          startOdometerKm: row.start_odometer_km,
          endOdometerKm: vehicle.odometerKm,
        };
        if (!movedMeaningfully(trip, thresholds)) state = 'ENDED_NO_MOVEMENT';
      }
    }
  }
  if (input.endCheck)
    changes.overridden_end_requirements = input.endCheck.overridden.length ? input.endCheck.overridden : null;
  // Every ended rental names where it ended: the compatible branch whose area took it, else its own.
  if (state === 'ENDED' || state === 'ENDED_NO_MOVEMENT')
    changes.end_branch_id = input.endCheck?.endBranchId ?? row.branch_id;
  changes.state = state;
  await updateTenantRow(em, 'rental', input.tenant, input.rentalId, changes, rentalJsonColumns);
  const rentalState = vehicleStateForRental(state, activeMode ?? undefined);
  await updateTenantRow(
    em,
    'vehicle',
    input.tenant,
    vehicle.id,
    reported
      ? { rental_state: rentalState, ...reportedVehicleColumns(vehicle) }
      : { rental_state: rentalState },
    vehicleJsonColumns,
  );
  collect({
    type: transition.event,
    createdAt: at,
    branchId: row.branch_id,
    vehicleId: vehicle.id,
    rentalId: input.rentalId,
    customerId: row.customer_id,
    adminSubject: input.requestedBy,
    position: input.position ?? position,
    vehiclePosition: position,
    description: input.adminOverride ? 'administrative override' : null,
    payload: { state, activeMode: activeMode ?? null },
    idempotencyKey,
  });
  await insertEvents(em, input.tenant, events);
  // The deposit works on the rental entity, read after the row was written; most branches hold no
  // deposit, and then the start reads nothing more.
  if (
    transition.starts &&
    row.deposit_id === null &&
    (await effectiveSetting(em, input.tenant, RENTAL_DEPOSIT_SETTING_KEY, row.branch_id))
  )
    await holdRentalDeposit(em, await em.findOneOrFail(Rental, input.rentalId, { populate: ['customer'] }), {
      at,
      idempotencyKey,
      locked: true,
    });
  // A start inside a geofence promotion or surcharge zone in its window: granted for this rental now, so
  // the running estimate shows it (the final price grants the end's and, had this missed, the start's).
  if (transition.starts && position)
    await grantRentalGeofenceVouchers(
      em,
      {
        rentalId: input.rentalId,
        customerId: row.customer_id,
        branchId: row.branch_id,
        vehicleCategoryId: row.category_id,
        start: { position, at },
      },
      at,
    );
  if (transition.ends) {
    const { invoiceId } = await finaliseRentalBilling(em, input.tenant, input.rentalId, {
      at,
      idempotencyKey,
    });
    return { state, ended: { invoiceId, branchId: row.branch_id } };
  }
  return { state };
}

/** What the end-requirements check reads of the rental and its vehicle's last reported state. */
interface EndCheckRow {
  branch_id: number;
  customer_id: number;
  start_vehicle_sensors: VehicleSensors | null;
  vehicle_id: number;
  category_id: number;
  latitude: number | null;
  longitude: number | null;
  charging: boolean;
  power_state: PowerState;
  sensors: VehicleSensors;
}

const endCheckRows = `
  select r.branch_id, r.customer_id, r.start_vehicle_sensors, v.id as vehicle_id, v.category_id,
         v.latitude, v.longitude, v.charging, v.power_state, v.sensors
    from rental r join vehicle v on v.tenant_id = r.tenant_id and v.id = r.vehicle_id
   where r.tenant_id = $1 and r.id = $2`;

/** An END's end-requirements report, with the rental's ids its event names. */
export interface EndRequirementsCheck {
  report: EndRequirementsReport;
  branchId: number;
  vehicleId: number;
  customerId: number;
}

/**
 * The end requirements of an END, from the rental's row and its vehicle's last reported state (reads
 * only: no transaction needed); R404 for an unknown rental.
 */
export async function endRequirementsOfRental(
  em: EntityManager,
  input: Pick<RecordRentalTransitionInput, 'tenant' | 'rentalId' | 'position' | 'at'>,
): Promise<EndRequirementsCheck> {
  const [row] = await preparedRows<EndCheckRow>(em, endCheckRows, [input.tenant, input.rentalId]);
  if (!row) throw new DomainError('R404');
  const rental = {
    id: input.rentalId,
    branch: { id: row.branch_id },
    customer: { id: row.customer_id },
    startVehicleSensors: row.start_vehicle_sensors,
  };
  const vehicle = {
    id: row.vehicle_id,
    category: { id: row.category_id },
    latitude: row.latitude,
    longitude: row.longitude,
    charging: row.charging,
    powerState: row.power_state,
    sensors: row.sensors,
  };
  const report = await endRequirementsReport(em, input.tenant, {
    rental,
    vehicle,
    userPosition: input.position,
    at: new Date(input.at),
  });
  return { report, branchId: rental.branch.id, vehicleId: vehicle.id, customerId: rental.customer.id };
}

/**
 * Records an END's end-requirements check (RENTAL_REQUIREMENTS_END_CHECK) inside the caller's
 * transaction, so a refused END still leaves it on the timeline; nothing when a retry finds it written.
 */
export async function recordEndRequirementsCheck(
  em: EntityManager,
  input: Pick<RecordRentalTransitionInput, 'rentalId' | 'at' | 'requestedBy' | 'position'>,
  check: EndRequirementsCheck,
  overridden: readonly string[],
  idempotencyKey: string,
): Promise<void> {
  if (await eventRecorded(em, idempotencyKey)) return;
  const { report } = check;
  recordEvent(em, {
    type: 'RENTAL_REQUIREMENTS_END_CHECK',
    createdAt: new Date(input.at),
    branchId: check.branchId,
    vehicleId: check.vehicleId,
    rentalId: input.rentalId,
    customerId: check.customerId,
    adminSubject: input.requestedBy,
    position: input.position ?? null,
    description: report.passed
      ? 'end requirements passed'
      : overridden.length
        ? `end requirements overridden: ${overridden.join(', ')}`
        : 'end requirements failed',
    payload: { passed: report.passed, overridden, requirements: report.requirements },
    idempotencyKey,
  });
}

/**
 * Records a failed operation (RENTAL_OPERATION_FAILED) inside the caller's transaction, so the timeline
 * shows what was tried and why; nothing for an unknown rental or when a retry finds it written.
 */
export async function recordRentalOperationFailure(
  em: EntityManager,
  input: RecordOperationFailureInput,
  idempotencyKey: string,
): Promise<void> {
  if (await eventRecorded(em, idempotencyKey)) return;
  const rental = await em.findOne(Rental, input.rentalId);
  if (!rental) return;
  recordEvent(em, {
    type: 'RENTAL_OPERATION_FAILED',
    createdAt: new Date(input.at),
    branchId: rental.branch.id,
    vehicleId: rental.vehicle.id,
    rentalId: rental.id,
    customerId: rental.customer.id,
    adminSubject: input.requestedBy,
    description: `${input.operation} failed: ${input.message}`,
    payload: { operation: input.operation, errorCode: input.code },
    idempotencyKey,
  });
}
