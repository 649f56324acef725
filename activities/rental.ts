import { LockMode } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction } from '../db/orm.js';
import { Customer, Event, Rental, Vehicle, VehicleCategory } from '../db/entities/index.js';
import { recordEvent } from '../db/events.js';
import { effectiveSetting } from '../db/settings.js';
import { categoryConfiguration } from '../db/categories.js';
import { DomainError } from '../domain/errors.js';
import {
  RENTAL_RESERVATION_SETTING_KEY,
  defaultReservationSettings,
  rentalTransitions,
  vehicleStateForRental,
  type RentalReservationSettings,
  type RentalTransitionName,
} from '../domain/rental.js';
import { vehicleReadiness, type VehicleReport } from '../domain/vehicle.js';
import { activityIdempotencyKey, asActivity, isUniqueViolation } from './support.js';
import { applyReportToVehicle } from './fleet.js';
import { rentalWorkflowId } from '../workflows/rental.messages.js';

export interface RentalActivityDeps {
  orm: MikroORM;
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
}

/** Activities of the rental workflow: each writes the rental row, the vehicle row and an event in one step. */
export function createRentalActivities({ orm }: RentalActivityDeps) {
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
          recordEvent(em, {
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
     * Records one transition of the table in domain/rental.ts: moves the rental and mirrors it on the
     * vehicle (with what the vehicle reported), with the event, in one transaction; idempotent per attempt.
     */
    async recordRentalTransition(input: RecordRentalTransitionInput): Promise<void> {
      const idempotencyKey = activityIdempotencyKey();
      const transition = rentalTransitions[input.transition];
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          if (await em.count(Event, { idempotencyKey })) return; // already recorded by an earlier attempt
          const rental = await em.findOne(Rental, input.rentalId, { lockMode: LockMode.PESSIMISTIC_WRITE });
          if (!rental) throw new DomainError('R404');
          if (!transition.from.includes(rental.state)) {
            throw new DomainError(
              'R201',
              `rental is ${rental.state}; ${input.transition} needs ${transition.from.join(' or ')}`,
            );
          }
          const vehicle = await em.findOneOrFail(Vehicle, rental.vehicle.id, {
            lockMode: LockMode.PESSIMISTIC_WRITE,
          });
          const at = new Date(input.at);
          rental.state = transition.to;
          if (transition.activeMode !== undefined) rental.activeMode = transition.activeMode;
          if (input.reservationExpiresAt) rental.reservationExpiresAt = new Date(input.reservationExpiresAt);
          if (input.vehicleReport) await applyReportToVehicle(em, vehicle, input.vehicleReport);
          const position =
            input.vehicleReport?.position ??
            (vehicle.latitude != null && vehicle.longitude != null
              ? { lat: vehicle.latitude, lng: vehicle.longitude }
              : null);
          if (transition.starts) {
            rental.startedAt = at;
            rental.startPosition = position;
            rental.startOdometerKm = vehicle.odometerKm;
          }
          if (transition.ends) {
            rental.endedAt = at;
            if (rental.startedAt) {
              rental.endPosition = position;
              rental.endOdometerKm = vehicle.odometerKm;
            }
          }
          vehicle.rentalState = vehicleStateForRental(transition.to, rental.activeMode ?? undefined);
          recordEvent(em, {
            type: transition.event,
            createdAt: at,
            branchId: rental.branch.id,
            vehicleId: vehicle.id,
            rentalId: rental.id,
            customerId: rental.customer.id,
            adminSubject: input.requestedBy,
            position: input.position ?? position,
            description: input.adminOverride ? 'administrative override' : null,
            payload: { state: transition.to, activeMode: rental.activeMode ?? null },
            idempotencyKey,
          });
        }),
      );
    },
  };
}

/** The activity interface the workflow proxies. */
export type RentalActivities = ReturnType<typeof createRentalActivities>;
