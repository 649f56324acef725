import { LockMode } from '@mikro-orm/core';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { branchDirectory } from '../db/branches.js';
import { CostCenter } from '../db/entities/CostCenter.js';
import { Customer } from '../db/entities/Customer.js';
import { Event } from '../db/entities/Event.js';
import { Rental } from '../db/entities/Rental.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { insertEvents, recordEvent, type EventFields } from '../db/events.js';
import { effectiveSetting, settingOrDefaults, warmSettings } from '../db/settings.js';
import { insertTenantRow, preparedRows, updateTenantRow } from '../db/prepared.js';
import { categoryConfiguration, categoryReadiness } from '../db/categories.js';
import { DomainError } from '../domain/errors.js';
import {
  RENTAL_RESERVATION_SETTING_KEY,
  advancePhases,
  defaultReservationSettings,
  freeReservationAllowanceMinutes,
  grantedReservationMinutes,
  rentalTransitions,
  sameVehicleBlockRemainingMs,
  type ActiveMode,
  type RentalPhaseRecord,
  vehicleStateForRental,
  type RentalReservationSettings,
  type RentalState,
  type RentalTransitionName,
} from '../domain/rental.js';
import {
  RENTAL_NO_MOVEMENT_SETTING_KEY,
  defaultNoMovementSettings,
  movedMeaningfully,
  type RentalNoMovementSettings,
} from '../domain/rental-trip.js';
import {
  vehicleReadiness,
  type BatteryLevel,
  type PowerState,
  type ServiceStateV2,
  type VehicleRentalState,
  type VehicleReport,
  type VehicleSensors,
} from '../domain/vehicle.js';
import { RENTAL_DEPOSIT_SETTING_KEY } from '../domain/rental-pricing.js';
import { RENTAL_REQUIREMENTS_SETTING_KEY } from '../domain/rental-requirements.js';
import { Context, ApplicationFailure } from '@temporalio/activity';
import { activityIdempotencyKey, asActivity, withHeartbeat } from './support.js';
import { isUniqueViolation } from '../db/constraints.js';
import {
  applyReportToVehicle,
  createCommandDelivery,
  recordCommandOutcomeIn,
  type AnsweredStepCommand,
  type ReportableVehicle,
} from './fleet.js';
import type { ActivityDeps } from './deps.js';
import { finaliseRentalBilling, holdRentalDeposit, pinRentalPricing } from '../db/rental-billing.js';
import { assertStartRequirements, endRequirementsReport } from '../db/rental-requirements.js';
import { applyEndOverrides, assertRequirementsPassed } from '../domain/rental-requirements.js';
import { isDomainError } from '../domain/errors.js';
import { rentalWorkflowId } from '../workflows/rental.messages.js';
import { bookingPricingVersionOf, linkBookingRental } from '../db/booking-lifecycle.js';

export type RentalActivityDeps = ActivityDeps;

export interface ReserveRentalInput {
  tenant: string;
  rentalId: number;
  branchId: number;
  vehicleId: number;
  customerId: number;
  requestedBy: string;
  /** Workflow time of the reservation, so the read model and the workflow timer agree. */
  at: string;
  userGroupId?: number;
  costCenterId?: number;
  reason?: string;
  /** A booking's pickup: the booking already holds the vehicle (no allowance, no same-vehicle block). */
  bookingId?: number;
}

export interface ReservationResult {
  reservedAtMs: number;
  reservationExpiresAtMs: number;
  /** Free reservation minutes the customer had left in the reset window when reserving (caps renewals). */
  allowanceMinutes: number;
  settings: RentalReservationSettings;
  disallowedOperations: string[];
  hasTailbox: boolean;
  startTimeoutSeconds?: number;
}

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

/** A transition with its vehicle command: the command is sent, then the transition recorded, in one activity. */
export interface PerformRentalTransitionInput extends Omit<RecordRentalTransitionInput, 'vehicleReport'> {
  vehicleId: number;
  vehicleCommand?: 'UNLOCK' | 'LOCK' | 'OPEN_TAILBOX';
  /** Reply timeout of the command (the category's override); the fleet default otherwise. */
  commandTimeoutMs?: number;
}

/** What recording a transition produced: END may become ENDED_NO_MOVEMENT. */
export interface RecordedTransition {
  state: RentalState;
}

export interface RecordReservationPurchaseInput {
  tenant: string;
  rentalId: number;
  minutes: number;
  reservationExpiresAt: string;
  at: string;
  requestedBy: string;
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

const lockTransitionRows = `
  select exists(select 1 from event e where e.tenant_id = r.tenant_id and e.idempotency_key = $1) as recorded,
         r.state, r.active_mode, r.branch_id, r.customer_id, r.started_at, r.start_position,
         r.start_odometer_km, r.phases, r.deposit_id,
         v.id as vehicle_id, v.branch_id as vehicle_branch_id, v.category_id, v.latitude, v.longitude,
         v.odometer_km, v.state_of_charge, v.iot_state_of_charge, v.iot_module_level, v.battery_level,
         v.locked, v.power_state, v.charging, v.speed_kmh, v.hdop, v.max_speed_kmh, v.last_seen_at,
         v.last_report_at, v.sensors
    from rental r join vehicle v on v.tenant_id = r.tenant_id and v.id = r.vehicle_id
   where r.tenant_id = $2 and r.id = $3
     for update of r, v`;

const rentalJsonColumns = new Set([
  'phases',
  'start_position',
  'end_position',
  'start_vehicle_sensors',
  'overridden_end_requirements',
]);
const vehicleJsonColumns = new Set(['sensors']);
const noJsonColumns = new Set<string>();

/** What a reservation reads of its vehicle under the row lock, and of its rental if an earlier attempt made it. */
interface ReservationRow {
  id: number;
  code: string;
  branch_id: number;
  category_id: number;
  rental_state: VehicleRentalState;
  service_state_v2: ServiceStateV2;
  state_of_charge: number | null;
  iot_state_of_charge: number | null;
  iot_module_level: number | null;
  offline: boolean;
  charging: boolean;
  existing_reserved_at: string | null;
  existing_expires_at: string | null;
}

const lockReservationRows = `
  select v.id, v.code, v.branch_id, v.category_id, v.rental_state, v.service_state_v2, v.state_of_charge,
         v.iot_state_of_charge, v.iot_module_level, v.offline, v.charging,
         r.reserved_at as existing_reserved_at, r.reservation_expires_at as existing_expires_at
    from vehicle v left join rental r on r.tenant_id = v.tenant_id and r.id = $3
   where v.tenant_id = $1 and v.id = $2
     for update of v`;

/** The vehicle columns a device report sets (domain/vehicle.ts `applyVehicleReport`), by column name. */
function reportedVehicleColumns(vehicle: ReportableVehicle): Record<string, unknown> {
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

/** Free reservation minutes in these rentals' closed RESERVATION_FREE phases. */
function freeReservationMinutesOf(rentals: ReadonlyArray<{ phases: Rental['phases'] }>): number {
  let ms = 0;
  for (const rental of rentals)
    for (const phase of rental.phases)
      if (phase.phase === 'RESERVATION_FREE' && phase.endedAt)
        ms += Date.parse(phase.endedAt) - Date.parse(phase.startedAt);
  return ms / 60_000;
}

/** Free reservation minutes a customer consumed in reservations made since `since` (closed phases). */
async function consumedFreeReservationMinutes(
  em: Parameters<Parameters<typeof inTenantTransaction>[2]>[0],
  customerId: number,
  since: Date,
): Promise<number> {
  return freeReservationMinutesOf(
    await em.find(Rental, { customer: customerId, reservedAt: { $gte: since } }, { fields: ['phases'] }),
  );
}

/**
 * What a reservation checks of the customer's rentals, in one statement: how many are open (R102), when
 * their last trip on this vehicle ended (R107) and the free reservation minutes used since `since` (R106).
 */
async function customerRentalFacts(
  em: Parameters<Parameters<typeof inTenantTransaction>[2]>[0],
  query: { tenant: string; customerId: number; vehicleId: number; since: Date },
): Promise<{ open: number; lastEndedOnVehicle?: Date; consumedFreeMinutes: number }> {
  const [facts] = await em.execute<
    { open: string; last_ended_at: string | null; recent_phases: Array<Rental['phases']> }[]
  >(
    `select (select count(*) from rental where tenant_id = ? and customer_id = ? and state in ('RESERVATION', 'ACTIVE')) as open,
            (select max(ended_at) from rental where tenant_id = ? and customer_id = ? and vehicle_id = ?
                and ended_at is not null and started_at is not null) as last_ended_at,
            (select coalesce(json_agg(phases), '[]'::json) from rental
              where tenant_id = ? and customer_id = ? and reserved_at >= ?) as recent_phases`,
    [
      ...[query.tenant, query.customerId],
      ...[query.tenant, query.customerId, query.vehicleId],
      ...[query.tenant, query.customerId, query.since],
    ],
  );
  return {
    open: Number(facts!.open),
    lastEndedOnVehicle:
      facts!.last_ended_at === null ? undefined : em.getPlatform().parseDate(facts!.last_ended_at),
    consumedFreeMinutes: freeReservationMinutesOf(facts!.recent_phases.map((phases) => ({ phases }))),
  };
}

/** Activities of the rental workflow: each writes the rental row, the vehicle row and an event in one step. */
export function createRentalActivities(deps: RentalActivityDeps) {
  const { orm } = deps;
  const delivery = createCommandDelivery(deps);

  /**
   * Fills the read cache (categories, branch tree and the setting keys the step reads) outside any
   * transaction: a transaction serves what the cache holds but never stores into it, so without this every
   * transition would read them all again.
   */
  async function warmReadCache(tenant: string, settingKeys: readonly string[]): Promise<void> {
    const em = tenantEm(orm, tenant);
    await categoryReadiness(em);
    await branchDirectory(em, tenant);
    await warmSettings(em, tenant, settingKeys);
  }

  /**
   * Records one row of the transition table (domain/rental.ts) with what the vehicle reported, the
   * billing it implies and its event, in one transaction; idempotent per activity. The rental and its
   * vehicle are read, locked and written as rows (every step of every rental runs this, and loading,
   * tracking and flushing the two entities cost more than the statements); only a deposit to hold at the
   * start and the bill at the end load the rental entity their rules work on, after the row is written.
   */
  async function recordTransition(
    input: RecordRentalTransitionInput,
    idempotencyKey: string,
    command?: { name: 'UNLOCK' | 'LOCK' | 'OPEN_TAILBOX'; vehicleId: number; answered: AnsweredStepCommand },
  ): Promise<RecordedTransition> {
    const transition = rentalTransitions[input.transition];
    return inTenantTransaction(orm, input.tenant, async (em) => {
      // One statement locks the rental and its vehicle, reads what the step needs of both and tells
      // whether an earlier attempt of this activity recorded the transition already.
      const [row] = await preparedRows<TransitionRow>(em, lockTransitionRows, [
        idempotencyKey,
        input.tenant,
        input.rentalId,
      ]);
      if (!row) throw new DomainError('R404');
      // Already recorded by an earlier attempt of this activity: answer what it recorded.
      if (row.recorded) return { state: row.state };
      // The step's events, inserted together once the rows are written.
      const events: EventFields[] = [];
      const collect = (fields: EventFields) => void events.push(fields);
      // The command's OK answer is recorded with the transition, in one transaction.
      if (command?.answered.unrecorded)
        await recordCommandOutcomeIn(
          em,
          {
            tenant: input.tenant,
            vehicleId: command.vehicleId,
            command: command.name,
            rentalId: input.rentalId,
            requestedBy: input.requestedBy,
          },
          command.answered.commandId,
          { status: 'OK', ...command.answered.unrecorded, applyReport: false },
          collect,
        );
      if (!transition.from.includes(row.state)) {
        throw new DomainError(
          'R201',
          `rental is ${row.state}; ${input.transition} needs ${transition.from.join(' or ')}`,
        );
      }
      const parseDate = (value: string | null) => (value === null ? null : em.getPlatform().parseDate(value));
      const vehicle: ReportableVehicle = {
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
        ? await applyReportToVehicle(em, vehicle, input.vehicleReport, collect)
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
      if (input.endCheck) {
        changes.overridden_end_requirements = input.endCheck.overridden.length
          ? input.endCheck.overridden
          : null;
        changes.end_branch_id = input.endCheck.endBranchId;
      }
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
        description: input.adminOverride ? 'administrative override' : null,
        payload: { state, activeMode: activeMode ?? null },
        idempotencyKey,
      });
      await insertEvents(em, input.tenant, events);
      // The deposit and the bill work on the rental entity, read after the row was written; most
      // branches hold no deposit, and then the start reads nothing more.
      if (
        transition.starts &&
        row.deposit_id === null &&
        (await effectiveSetting(em, input.tenant, RENTAL_DEPOSIT_SETTING_KEY, row.branch_id))
      )
        await holdRentalDeposit(
          em,
          await em.findOneOrFail(Rental, input.rentalId, { populate: ['customer'] }),
          {
            at,
            idempotencyKey,
            locked: true,
          },
        );
      if (transition.ends)
        await finaliseRentalBilling(
          em,
          await em.findOneOrFail(Rental, input.rentalId, { populate: ['pricingBundleVersion.bundle'] }),
          { at, idempotencyKey, locked: true },
        );
      return { state };
    });
  }

  /** The reservation itself (see reserveRental), in one transaction. */
  async function reserve(input: ReserveRentalInput): Promise<ReservationResult> {
    await warmReadCache(input.tenant, [RENTAL_RESERVATION_SETTING_KEY, RENTAL_REQUIREMENTS_SETTING_KEY]);
    return inTenantTransaction(orm, input.tenant, async (em) => {
      // One statement locks the vehicle, reads what the reservation checks of it and finds the rental of an
      // earlier attempt of this activity.
      const [row] = await preparedRows<ReservationRow>(em, lockReservationRows, [
        input.tenant,
        input.vehicleId,
        input.rentalId,
      ]);
      if (!row) throw new DomainError('V404');
      const vehicle = {
        id: row.id,
        code: row.code,
        branch: { id: row.branch_id },
        category: { id: row.category_id },
        rentalState: row.rental_state,
      };
      // The category's bookable flag and effective configuration, from the read cache.
      const category = (await categoryReadiness(em)).get(vehicle.category.id) ?? {
        bookable: (await em.findOneOrFail(VehicleCategory, vehicle.category.id)).bookable,
        configuration: await categoryConfiguration(em, vehicle.category.id),
      };
      const { configuration } = category;
      const settings = await settingOrDefaults<RentalReservationSettings>(
        em,
        input.tenant,
        RENTAL_RESERVATION_SETTING_KEY,
        vehicle.branch.id,
        defaultReservationSettings,
      );
      const reservedAt = new Date(input.at);
      const outcome = (
        rental: { reservedAt: Date; reservationExpiresAt?: Date | null },
        allowanceMinutes: number,
      ): ReservationResult => ({
        reservedAtMs: rental.reservedAt.getTime(),
        reservationExpiresAtMs: rental.reservationExpiresAt!.getTime(),
        allowanceMinutes,
        settings,
        disallowedOperations: configuration.disallowedRentalOperations ?? [],
        hasTailbox: configuration.hasTailbox ?? false,
        startTimeoutSeconds: configuration.rentalOperationOverrides?.START?.timeoutSeconds,
      });

      if (row.existing_reserved_at !== null) {
        const existing = {
          reservedAt: em.getPlatform().parseDate(row.existing_reserved_at),
          reservationExpiresAt: em.getPlatform().parseDate(row.existing_expires_at!),
        };
        // A retry of this very activity: the allowance it had is the reservation's own length or more.
        const granted = (existing.reservationExpiresAt!.getTime() - existing.reservedAt.getTime()) / 60_000;
        const consumed = await consumedFreeReservationMinutes(
          em,
          input.customerId,
          new Date(reservedAt.getTime() - settings.bufferMinutes * 60_000),
        );
        return outcome(existing, Math.max(granted, freeReservationAllowanceMinutes(settings, consumed)));
      }

      const customer = await em.findOne(Customer, input.customerId);
      if (!customer) throw new DomainError('U106');
      if (customer.isBlocked) throw new DomainError('U131');
      if (!category.bookable) {
        const { name } = await em.findOneOrFail(VehicleCategory, vehicle.category.id);
        throw new DomainError('R104', `vehicle category "${name}" is not bookable`);
      }
      const readiness = vehicleReadiness({
        rentalState: row.rental_state,
        serviceStateV2: row.service_state_v2,
        stateOfCharge: row.state_of_charge,
        iotStateOfCharge: row.iot_state_of_charge,
        iotModuleLevel: row.iot_module_level,
        offline: row.offline,
        charging: row.charging,
        categoryBookable: category.bookable,
        configuration,
      });
      if (!readiness.available) {
        const reasons = readiness.unavailabilityReasons.length
          ? readiness.unavailabilityReasons
          : [`rentalState ${vehicle.rentalState}`];
        throw new DomainError('R103', `vehicle ${vehicle.code} is not ready to rent: ${reasons.join(', ')}`, {
          unavailabilityReasons: readiness.unavailabilityReasons,
          rentalState: vehicle.rentalState,
        });
      }
      const facts = await customerRentalFacts(em, {
        tenant: input.tenant,
        customerId: input.customerId,
        vehicleId: vehicle.id,
        since: new Date(reservedAt.getTime() - settings.bufferMinutes * 60_000),
      });
      if (facts.open > 0) throw new DomainError('R102');
      const blockedMs = sameVehicleBlockRemainingMs(
        settings,
        facts.lastEndedOnVehicle?.getTime(),
        reservedAt.getTime(),
      );
      if (blockedMs > 0 && input.bookingId === undefined)
        throw new DomainError(
          'R107',
          `vehicle ${vehicle.code} can be rented again by this customer in ${Math.ceil(blockedMs / 60_000)} minutes`,
          { retryAfterSeconds: Math.ceil(blockedMs / 1000) },
        );
      const consumed = facts.consumedFreeMinutes;
      const allowanceMinutes = freeReservationAllowanceMinutes(settings, consumed);
      // A booking's pickup reserves for the full reservation time, whatever the on-demand allowance.
      const grantedMinutes =
        input.bookingId === undefined
          ? grantedReservationMinutes(settings, allowanceMinutes)
          : settings.reservationMaxMinutes;
      if (grantedMinutes < 1)
        throw new DomainError(
          'R106',
          `the free reservation time of ${settings.reservationMaxMinutes} minutes within ${settings.bufferMinutes} minutes is used up`,
        );

      // The rental keeps the version that applies now, whatever is published later (ODP104 when unpriced).
      const pricingVersion =
        input.bookingId === undefined
          ? await pinRentalPricing(em, input.tenant, {
              branchId: vehicle.branch.id,
              vehicleCategoryId: vehicle.category.id,
              at: reservedAt,
            })
          : await bookingPricingVersionOf(em, input.bookingId);
      const userGroup =
        input.userGroupId === undefined ? null : await em.findOne(UserGroup, input.userGroupId);
      if (input.userGroupId !== undefined && !userGroup)
        throw new DomainError('UG404', `business account ${input.userGroupId} not found`);
      const costCenter =
        input.costCenterId === undefined ? null : await em.findOne(CostCenter, input.costCenterId);
      if (input.costCenterId !== undefined && !costCenter)
        throw new DomainError('UG408', `cost center ${input.costCenterId} not found`);

      // Start requirements of the branch and category (none when unconfigured): checked once, at creation.
      const startCheck = await assertStartRequirements(em, input.tenant, {
        customerId: customer.id,
        branchId: vehicle.branch.id,
        vehicleCategoryId: vehicle.category.id,
        userGroupId: input.userGroupId,
        at: reservedAt,
      });
      // Every event of the reservation shares these fields.
      const about = {
        createdAt: reservedAt,
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        rentalId: input.rentalId,
        customerId: customer.id,
        adminSubject: input.requestedBy,
      };

      const events: EventFields[] = [];
      if (startCheck.profile !== null)
        events.push({
          type: 'RENTAL_REQUIREMENTS_START_CHECK',
          ...about,
          description: 'start requirements passed',
          payload: { passed: true, profile: startCheck.profile, requirements: startCheck.requirements },
          idempotencyKey: `${activityIdempotencyKey()}/start-check`,
        });
      const rental = {
        id: input.rentalId,
        reservedAt,
        reservationExpiresAt: new Date(reservedAt.getTime() + grantedMinutes * 60_000),
      };
      // The rental row, written like the steps after it write theirs (no entity to load or track).
      try {
        await insertTenantRow(
          em,
          'rental',
          input.tenant,
          {
            id: rental.id,
            workflow_id: rentalWorkflowId(input.tenant, input.rentalId),
            state: 'RESERVATION',
            branch_id: vehicle.branch.id,
            vehicle_id: vehicle.id,
            customer_id: customer.id,
            created_by: input.requestedBy,
            reserved_at: rental.reservedAt,
            reservation_expires_at: rental.reservationExpiresAt,
            pricing_bundle_version_id: pricingVersion.id,
            phases: advancePhases([], 'RESERVE', reservedAt.toISOString()),
            user_group_id: userGroup?.id ?? null,
            cost_center_id: costCenter?.id ?? null,
            reason: input.reason ?? null,
          },
          rentalJsonColumns,
        );
      } catch (error) {
        if (isUniqueViolation(error, 'rental_one_open_per_customer')) throw new DomainError('R102');
        if (isUniqueViolation(error, 'rental_one_open_per_vehicle'))
          throw new DomainError('R103', 'vehicle is already rented');
        throw error;
      }
      if (input.bookingId !== undefined) await linkBookingRental(em, input.bookingId, rental);
      await updateTenantRow(
        em,
        'vehicle',
        input.tenant,
        vehicle.id,
        { rental_state: 'RESERVATION' },
        noJsonColumns,
      );
      events.push({
        type: 'RENTAL_RESERVATION',
        ...about,
        description: `vehicle ${vehicle.code} reserved for ${grantedMinutes} minutes`,
        payload: {
          reservationMinutes: grantedMinutes,
          pricingBundleVersionId: pricingVersion.id,
          userGroupId: input.userGroupId ?? null,
        },
        idempotencyKey: activityIdempotencyKey(),
      });
      await insertEvents(em, input.tenant, events);
      return outcome(rental, allowanceMinutes);
    });
  }

  /**
   * Checks the end requirements of an END and records the check (RENTAL_REQUIREMENTS_END_CHECK) in its own
   * transaction, so a refused END still leaves it on the timeline; a failed requirement refuses the END
   * with its code unless the operator overrides it (the overridden ones are recorded on the rental).
   */
  async function checkEndRequirements(
    input: PerformRentalTransitionInput,
    idempotencyKey: string,
  ): Promise<EndCheckOutcome> {
    const outcome = await asActivity(async () => {
      // Reads only: no transaction unless there is a check to record.
      const em = tenantEm(orm, input.tenant);
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
      const { evaluation, overridden } = applyEndOverrides(report, input.adminOverride);
      const key = `${idempotencyKey}/end-check`;
      if (report.profile !== null)
        await inTenantTransaction(orm, input.tenant, async (tx) => {
          if (await tx.count(Event, { idempotencyKey: key })) return;
          recordEvent(tx, {
            type: 'RENTAL_REQUIREMENTS_END_CHECK',
            createdAt: new Date(input.at),
            branchId: rental.branch.id,
            vehicleId: vehicle.id,
            rentalId: rental.id,
            customerId: rental.customer.id,
            adminSubject: input.requestedBy,
            position: input.position ?? null,
            description: report.passed
              ? 'end requirements passed'
              : overridden.length
                ? `end requirements overridden: ${overridden.join(', ')}`
                : 'end requirements failed',
            payload: { passed: report.passed, overridden, requirements: report.requirements },
            idempotencyKey: key,
          });
        });
      return { evaluation, overridden, endBranchId: report.endBranchId };
    });
    assertRequirementsPassed(outcome.evaluation);
    return { overridden: outcome.overridden, endBranchId: outcome.endBranchId };
  }

  /** The body of performRentalTransition (heartbeating around it). */
  async function performTransition(input: PerformRentalTransitionInput): Promise<RecordedTransition> {
    const idempotencyKey = activityIdempotencyKey();
    await warmReadCache(input.tenant, [RENTAL_DEPOSIT_SETTING_KEY, RENTAL_NO_MOVEMENT_SETTING_KEY]);
    // END: the end requirements, from the vehicle's last reported state, before the vehicle is locked.
    const endCheck =
      input.transition === 'END' ? await checkEndRequirements(input, idempotencyKey) : undefined;
    let answered: AnsweredStepCommand | undefined;
    if (input.vehicleCommand) {
      try {
        answered = await delivery.sendStepCommand(
          {
            tenant: input.tenant,
            rentalId: input.rentalId,
            vehicleId: input.vehicleId,
            command: input.vehicleCommand,
            requestedBy: input.requestedBy,
            timeoutMs: input.commandTimeoutMs,
          },
          false,
        );
      } catch (error) {
        // The second unanswered attempt is final: the caller is waiting on the operation.
        if (
          error instanceof ApplicationFailure &&
          error.type === 'V504' &&
          Context.current().info.attempt >= 2
        )
          throw ApplicationFailure.create({ type: 'V504', message: error.message, nonRetryable: true });
        throw error;
      }
    }
    const command = answered && { name: input.vehicleCommand!, vehicleId: input.vehicleId, answered };
    try {
      return await asActivity(() =>
        recordTransition({ ...input, vehicleReport: answered?.report, endCheck }, idempotencyKey, command),
      );
    } catch (error) {
      // The vehicle acted but the transition was refused: its answer is still recorded.
      if (answered?.unrecorded)
        await inTenantTransaction(orm, input.tenant, (em) =>
          recordCommandOutcomeIn(
            em,
            {
              tenant: input.tenant,
              vehicleId: input.vehicleId,
              command: input.vehicleCommand!,
              rentalId: input.rentalId,
              requestedBy: input.requestedBy,
            },
            answered.commandId,
            { status: 'OK', ...answered.unrecorded },
          ),
        ).catch(() => undefined);
      throw error;
    }
  }

  return {
    /** Holds the vehicle for the customer if every ready-to-rent rule passes; idempotent per rental id. */
    async reserveRental(input: ReserveRentalInput): Promise<ReservationResult> {
      return asActivity(() =>
        reserve(input).catch(async (error: unknown) => {
          // A reservation refused by the start requirements leaves the check on the customer's timeline.
          if (isDomainError(error) && error.details?.report)
            await inTenantTransaction(orm, input.tenant, async (em) => {
              recordEvent(em, {
                type: 'RENTAL_REQUIREMENTS_START_CHECK',
                createdAt: new Date(input.at),
                branchId: input.branchId,
                vehicleId: input.vehicleId,
                customerId: input.customerId,
                adminSubject: input.requestedBy,
                description: `start requirements failed: ${error.message}`,
                payload: { passed: false, code: error.code, report: error.details!.report },
                idempotencyKey: `${activityIdempotencyKey()}/start-check`,
              });
            }).catch(() => undefined);
          throw error;
        }),
      );
    },

    /**
     * Sends the transition's vehicle command and records the transition, in one activity: the command id
     * and the event's idempotency key are both this activity's key, so a retry re-sends the same command
     * (the device answers from its reply cache) and finds the transition recorded. A silent vehicle is
     * asked twice; database faults retry like any activity.
     */
    async performRentalTransition(input: PerformRentalTransitionInput): Promise<RecordedTransition> {
      return withHeartbeat(() => asActivity(() => performTransition(input)));
    },

    /** Records bought reservation minutes (buy-reservation): the longer expiry and the event; idempotent. */
    async recordReservationPurchase(input: RecordReservationPurchaseInput): Promise<void> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          if (await em.count(Event, { idempotencyKey })) return;
          const rental = await em.findOne(Rental, input.rentalId, { lockMode: LockMode.PESSIMISTIC_WRITE });
          if (!rental) throw new DomainError('R404');
          if (rental.state !== 'RESERVATION')
            throw new DomainError(
              'R201',
              `reservation minutes are sold only in RESERVATION (${rental.state})`,
            );
          rental.paidReservationMinutes += input.minutes;
          rental.reservationExpiresAt = new Date(input.reservationExpiresAt);
          recordEvent(em, {
            type: 'RENTAL_BUY_RESERVATION',
            createdAt: new Date(input.at),
            branchId: rental.branch.id,
            vehicleId: rental.vehicle.id,
            rentalId: rental.id,
            customerId: rental.customer.id,
            adminSubject: input.requestedBy,
            description: `${input.minutes} reservation minutes bought`,
            payload: { minutes: input.minutes, reservationExpiresAt: input.reservationExpiresAt },
            idempotencyKey,
          });
        }),
      );
    },

    /** Records a failed operation (RENTAL_OPERATION_FAILED) so the timeline shows what was tried and why. */
    async recordOperationFailure(input: RecordOperationFailureInput): Promise<void> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          if (await em.count(Event, { idempotencyKey })) return;
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
        }),
      );
    },
  };
}

/** The activity interface the workflow proxies. */
export type RentalActivities = ReturnType<typeof createRentalActivities>;
