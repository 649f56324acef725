import { ApplicationFailure } from '@temporalio/activity';
import { LockMode } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction } from '../db/orm.js';
import { Customer, Event, Rental, Vehicle, VehicleCategory, VehicleCommand } from '../db/entities/index.js';
import { effectiveSetting } from '../db/settings.js';
import { categoryConfiguration } from '../db/categories.js';
import { DomainError } from '../domain/errors.js';
import {
  RENTAL_RESERVATION_SETTING_KEY,
  defaultReservationSettings,
  vehicleStateForRental,
  type ActiveMode,
  type RentalReservationSettings,
  type RentalState,
} from '../domain/rental.js';
import { vehicleReadiness } from '../domain/vehicle.js';
import { VehicleCommandTimeoutError, type VehicleCommandClient } from '../devices/command-client.js';
import type { VehicleCommandName } from '../devices/protocol.js';
import { activityIdempotencyKey, asActivity, isUniqueViolation } from './support.js';
import { rentalWorkflowId } from '../workflows/ids.js';

export interface RentalActivityDeps {
  orm: MikroORM;
  vehicleCommands: VehicleCommandClient;
  /** Reply timeout when the category sets none. */
  defaultCommandTimeoutMs: number;
}

export interface ReserveRentalInput {
  tenant: string;
  rentalId: number;
  branchId: number;
  vehicleId: number;
  customerId: number;
  requestedBy: string;
  /** Workflow time of the reservation, so the read model and the workflow timer agree. */
  at: string;
}

export interface ReservationResult {
  reservedAtMs: number;
  reservationExpiresAtMs: number;
  settings: RentalReservationSettings;
  disallowedOperations: string[];
  hasTailbox: boolean;
  startTimeoutSeconds?: number;
}

/** What a vehicle reported about itself in a command reply. */
export interface ReportedVehicleState {
  position?: { lat: number; lng: number };
  odometerKm?: number;
  stateOfCharge?: number;
  locked?: boolean;
  powerState?: 'ON' | 'OFF' | 'UNKNOWN';
}

export interface SendVehicleCommandInput {
  tenant: string;
  rentalId?: number;
  vehicleId: number;
  command: string;
  requestedBy: string;
  timeoutMs?: number;
}

export interface VehicleCommandOutcome {
  status: 'OK';
  vehicle: ReportedVehicleState;
}

export interface RecordRentalTransitionInput {
  tenant: string;
  rentalId: number;
  at: string;
  requestedBy: string;
  adminOverride: boolean;
  expectedStates: RentalState[];
  state: RentalState;
  /** New driving/parking mode; null clears it; undefined keeps it. */
  activeMode?: ActiveMode | null;
  eventType: string;
  vehicle?: ReportedVehicleState;
  position?: { lat: number; lng: number };
  reservationExpiresAt?: string;
  started?: boolean;
  ended?: boolean;
}

function reportedState(data: Record<string, unknown> | undefined | null): ReportedVehicleState {
  if (!data) return {};
  const state: ReportedVehicleState = {};
  const position = data.position as { lat?: unknown; lng?: unknown } | undefined;
  if (position && typeof position.lat === 'number' && typeof position.lng === 'number') {
    state.position = { lat: position.lat, lng: position.lng };
  }
  if (typeof data.odometerKm === 'number') state.odometerKm = data.odometerKm;
  if (typeof data.stateOfCharge === 'number') state.stateOfCharge = data.stateOfCharge;
  if (typeof data.locked === 'boolean') state.locked = data.locked;
  if (data.powerState === 'ON' || data.powerState === 'OFF' || data.powerState === 'UNKNOWN')
    state.powerState = data.powerState;
  return state;
}

function applyReportedState(vehicle: Vehicle, reported: ReportedVehicleState | undefined, at: Date): void {
  if (!reported) return;
  if (reported.position) {
    vehicle.latitude = reported.position.lat;
    vehicle.longitude = reported.position.lng;
  }
  if (reported.odometerKm !== undefined) vehicle.odometerKm = reported.odometerKm;
  if (reported.stateOfCharge !== undefined) vehicle.stateOfCharge = reported.stateOfCharge;
  if (reported.locked !== undefined) vehicle.locked = reported.locked;
  if (reported.powerState !== undefined) vehicle.powerState = reported.powerState;
  vehicle.lastSeenAt = at;
}

/** Activities of the rental workflow: each writes the rental row, the vehicle row and an event in one step. */
export function createRentalActivities({
  orm,
  vehicleCommands,
  defaultCommandTimeoutMs,
}: RentalActivityDeps) {
  return {
    /** Holds the vehicle for the customer if every ready-to-rent rule passes; idempotent per rental id. */
    async reserveRental(input: ReserveRentalInput): Promise<ReservationResult> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const vehicle = await em.findOne(Vehicle, input.vehicleId, {
            lockMode: LockMode.PESSIMISTIC_WRITE,
          });
          if (!vehicle) throw new DomainError('V404');
          const category = await em.findOneOrFail(VehicleCategory, vehicle.category.id);
          const configuration = await categoryConfiguration(em, category.id);
          const settingRow = await effectiveSetting(
            em,
            input.tenant,
            RENTAL_RESERVATION_SETTING_KEY,
            vehicle.branch.id,
          );
          const settings = {
            ...defaultReservationSettings,
            ...(settingRow?.value as Partial<RentalReservationSettings>),
          };
          const reservedAt = new Date(input.at);
          const outcome = (rental: Rental): ReservationResult => ({
            reservedAtMs: rental.reservedAt.getTime(),
            reservationExpiresAtMs: rental.reservationExpiresAt!.getTime(),
            settings,
            disallowedOperations: configuration.disallowedRentalOperations ?? [],
            hasTailbox: configuration.hasTailbox ?? false,
            startTimeoutSeconds: configuration.rentalOperationOverrides?.START?.timeoutSeconds,
          });

          const existing = await em.findOne(Rental, input.rentalId);
          if (existing) return outcome(existing); // a retry of this very activity

          const customer = await em.findOne(Customer, input.customerId);
          if (!customer) throw new DomainError('U106');
          if (customer.isBlocked) throw new DomainError('U131');
          if (!category.bookable)
            throw new DomainError('R104', `vehicle category "${category.name}" is not bookable`);
          const readiness = vehicleReadiness({
            rentalState: vehicle.rentalState,
            serviceStateV2: vehicle.serviceStateV2,
            stateOfCharge: vehicle.stateOfCharge,
            offline: vehicle.offline,
            charging: vehicle.charging,
            categoryBookable: category.bookable,
            configuration,
          });
          if (!readiness.available) {
            const reasons = readiness.unavailabilityReasons.length
              ? readiness.unavailabilityReasons
              : [`rentalState ${vehicle.rentalState}`];
            throw new DomainError(
              'R103',
              `vehicle ${vehicle.code} is not ready to rent: ${reasons.join(', ')}`,
              {
                unavailabilityReasons: readiness.unavailabilityReasons,
                rentalState: vehicle.rentalState,
              },
            );
          }
          const open = await em.count(Rental, {
            customer: input.customerId,
            state: { $in: ['RESERVATION', 'ACTIVE'] },
          });
          if (open > 0) throw new DomainError('R102');

          const rental = em.create(Rental, {
            tenant: input.tenant as never,
            id: input.rentalId,
            workflowId: rentalWorkflowId(input.tenant, input.rentalId),
            state: 'RESERVATION',
            branch: vehicle.branch,
            vehicle,
            customer,
            createdBy: input.requestedBy,
            reservedAt,
            reservationExpiresAt: new Date(reservedAt.getTime() + settings.reservationMinutes * 60_000),
          });
          vehicle.rentalState = 'RESERVATION';
          em.create(Event, {
            tenant: input.tenant as never,
            type: 'RENTAL_RESERVATION',
            createdAt: reservedAt,
            branchId: vehicle.branch.id,
            vehicleId: vehicle.id,
            rentalId: input.rentalId,
            customerId: customer.id,
            adminSubject: input.requestedBy,
            description: `vehicle ${vehicle.code} reserved for ${settings.reservationMinutes} minutes`,
            idempotencyKey: activityIdempotencyKey(),
          });
          try {
            await em.flush();
          } catch (error) {
            if (isUniqueViolation(error, 'rental_one_open_per_customer')) throw new DomainError('R102');
            if (isUniqueViolation(error, 'rental_one_open_per_vehicle'))
              throw new DomainError('R103', 'vehicle is already rented');
            throw error;
          }
          return outcome(rental);
        }),
      );
    },

    /**
     * Sends one command to a vehicle and waits for its answer. The command id is the activity's
     * idempotency key: a retry re-sends the same id (the device answers without acting twice) and an
     * already-answered command is not sent again.
     */
    async sendVehicleCommand(input: SendVehicleCommandInput): Promise<VehicleCommandOutcome> {
      const commandId = activityIdempotencyKey();
      const timeoutMs = input.timeoutMs ?? defaultCommandTimeoutMs;
      const previous = await inTenantTransaction(orm, input.tenant, async (em) => {
        const known = await em.findOne(VehicleCommand, { commandId });
        if (known) return known;
        em.create(VehicleCommand, {
          tenant: input.tenant as never,
          commandId,
          vehicleId: input.vehicleId,
          command: input.command,
          rentalId: input.rentalId,
          requestedBy: input.requestedBy,
        });
        return undefined;
      });
      if (previous?.status === 'OK') return { status: 'OK', vehicle: reportedState(previous.data) };

      let reply;
      try {
        reply = await vehicleCommands.send({
          tenant: input.tenant,
          vehicleId: String(input.vehicleId),
          command: input.command as VehicleCommandName,
          commandId,
          timeoutMs,
        });
      } catch (error) {
        if (!(error instanceof VehicleCommandTimeoutError)) throw error;
        await recordCommandOutcome(orm, input, commandId, 'TIMEOUT', undefined, undefined);
        throw ApplicationFailure.create({
          type: 'V504',
          message: `vehicle did not answer ${input.command} within ${timeoutMs} ms`,
        });
      }
      await recordCommandOutcome(orm, input, commandId, reply.status, reply.failureReason, reply.data);
      if (reply.status !== 'OK') {
        const reason = reply.failureReason?.description ?? reply.failureReason?.code ?? reply.status;
        throw ApplicationFailure.create({
          type: 'V502',
          message: `vehicle ${reply.status === 'REFUSED' ? 'refused' : 'failed'} ${input.command}: ${reason}`,
          nonRetryable: true,
          details: [{ failureReason: reply.failureReason ?? null }],
        });
      }
      return { status: 'OK', vehicle: reportedState(reply.data) };
    },

    /** Moves the rental to its next state and mirrors it on the vehicle, with the event, in one transaction. */
    async recordRentalTransition(input: RecordRentalTransitionInput): Promise<void> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          if (await em.count(Event, { idempotencyKey })) return; // already recorded by an earlier attempt
          const rental = await em.findOne(Rental, input.rentalId, { lockMode: LockMode.PESSIMISTIC_WRITE });
          if (!rental) throw new DomainError('R404');
          if (!input.expectedStates.includes(rental.state)) {
            throw new DomainError(
              'R201',
              `rental is ${rental.state}, expected ${input.expectedStates.join(' or ')}`,
            );
          }
          const vehicle = await em.findOneOrFail(Vehicle, rental.vehicle.id, {
            lockMode: LockMode.PESSIMISTIC_WRITE,
          });
          const at = new Date(input.at);
          rental.state = input.state;
          if (input.activeMode !== undefined) rental.activeMode = input.activeMode;
          if (input.reservationExpiresAt) rental.reservationExpiresAt = new Date(input.reservationExpiresAt);
          applyReportedState(vehicle, input.vehicle, at);
          const position =
            input.vehicle?.position ??
            (vehicle.latitude != null && vehicle.longitude != null
              ? { lat: vehicle.latitude, lng: vehicle.longitude }
              : null);
          if (input.started) {
            rental.startedAt = at;
            rental.startPosition = position;
            rental.startOdometerKm = vehicle.odometerKm;
          }
          if (input.ended) {
            rental.endedAt = at;
            if (rental.startedAt) {
              rental.endPosition = position;
              rental.endOdometerKm = vehicle.odometerKm;
            }
          }
          vehicle.rentalState = vehicleStateForRental(input.state, rental.activeMode ?? undefined);
          em.create(Event, {
            tenant: input.tenant as never,
            type: input.eventType,
            createdAt: at,
            branchId: rental.branch.id,
            vehicleId: vehicle.id,
            rentalId: rental.id,
            customerId: rental.customer.id,
            adminSubject: input.requestedBy,
            position: input.position ?? position,
            description: input.adminOverride ? 'administrative override' : null,
            payload: { state: input.state, activeMode: rental.activeMode ?? null },
            idempotencyKey,
          });
        }),
      );
    },
  };
}

async function recordCommandOutcome(
  orm: MikroORM,
  input: SendVehicleCommandInput,
  commandId: string,
  status: VehicleCommand['status'],
  failureReason: VehicleCommand['failureReason'] | undefined,
  data: Record<string, unknown> | undefined,
): Promise<void> {
  await inTenantTransaction(orm, input.tenant, async (em) => {
    const command = await em.findOneOrFail(VehicleCommand, { commandId });
    const answeredAt = new Date();
    command.status = status;
    command.failureReason = failureReason ?? null;
    command.data = data ?? null;
    command.answeredAt = status === 'TIMEOUT' ? null : answeredAt;
    em.create(Event, {
      tenant: input.tenant as never,
      type: `VEHICLE_COMMAND_${input.command}`,
      createdAt: answeredAt,
      vehicleId: input.vehicleId,
      rentalId: input.rentalId ?? null,
      adminSubject: input.requestedBy,
      description:
        status === 'OK'
          ? 'OK'
          : `${status}${failureReason?.description ? `: ${failureReason.description}` : ''}`,
      payload: { commandId, status, failureReason: failureReason ?? null },
    });
  });
}

/** The activity interface the workflow proxies. */
export type RentalActivities = ReturnType<typeof createRentalActivities>;
