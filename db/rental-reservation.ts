// The rental's reservation and its bought minutes, as writes inside the caller's transaction
// (activities/rental-reservation.ts opens it): the vehicle row is locked and checked, the rental row
// inserted, the vehicle marked and the events written with the activity's idempotency key. A retried
// activity finds the rental (or the event) an earlier attempt wrote. See docs/rentals.md.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CostCenter } from './entities/CostCenter.js';
import { Rental } from './entities/Rental.js';
import { UserGroup } from './entities/UserGroup.js';
import { VehicleCategory } from './entities/VehicleCategory.js';
import { eventRecorded, insertEvents, recordEvent, type EventFields } from './events.js';
import { settingOrDefaults } from './settings.js';
import { insertTenantRow, preparedRows, updateTenantRow } from './prepared.js';
import { categoryConfiguration, categoryReadiness } from './categories.js';
import { isUniqueViolation } from './constraints.js';
import { pinRentalPricing } from './rental-billing.js';
import { assertStartRequirements, customerStartFacts } from './rental-requirements.js';
import { bookingPricingVersionOf, linkBookingRental } from './booking-lifecycle.js';
import { rentalJsonColumns } from './rental-rows.js';
import { DomainError } from '../domain/errors.js';
import {
  RENTAL_RESERVATION_SETTING_KEY,
  advancePhases,
  defaultReservationSettings,
  freeReservationAllowanceMinutes,
  grantedReservationMinutes,
  sameVehicleBlockRemainingMs,
  type RentalReservationSettings,
} from '../domain/rental.js';
import { vehicleReadiness, type ServiceStateV2, type VehicleRentalState } from '../domain/vehicle.js';

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

export interface RecordReservationPurchaseInput {
  tenant: string;
  rentalId: number;
  minutes: number;
  reservationExpiresAt: string;
  at: string;
  requestedBy: string;
}

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
  em: EntityManager,
  customerId: number,
  since: Date,
): Promise<number> {
  return freeReservationMinutesOf(
    await em.find(Rental, { customer: customerId, reservedAt: { $gte: since } }, { fields: ['phases'] }),
  );
}

/**
 * The statement of `customerRentalFacts` (parameters: tenant and customer; tenant, customer and vehicle;
 * tenant, customer and the window's start). Each part reads the customer's rentals (her open one, or hers
 * by reservation time through `rental_customer_reserved`) or the vehicle's, never the tenant's history.
 */
export const customerRentalFactsSql = `select (select count(*) from rental where tenant_id = ? and customer_id = ? and state in ('RESERVATION', 'ACTIVE')) as open,
            (select max(ended_at) from rental where tenant_id = ? and customer_id = ? and vehicle_id = ?
                and ended_at is not null and started_at is not null) as last_ended_at,
            (select coalesce(json_agg(phases), '[]'::json) from rental
              where tenant_id = ? and customer_id = ? and reserved_at >= ?) as recent_phases`;

/**
 * What a reservation checks of the customer's rentals, in one statement: how many are open (R102), when
 * their last trip on this vehicle ended (R107) and the free reservation minutes used since `since` (R106).
 */
async function customerRentalFacts(
  em: EntityManager,
  query: { tenant: string; customerId: number; vehicleId: number; since: Date },
): Promise<{ open: number; lastEndedOnVehicle?: Date; consumedFreeMinutes: number }> {
  const [facts] = await em.execute<
    { open: string; last_ended_at: string | null; recent_phases: Array<Rental['phases']> }[]
  >(customerRentalFactsSql, [
    ...[query.tenant, query.customerId],
    ...[query.tenant, query.customerId, query.vehicleId],
    ...[query.tenant, query.customerId, query.since],
  ]);
  return {
    open: Number(facts!.open),
    lastEndedOnVehicle:
      facts!.last_ended_at === null ? undefined : em.getPlatform().parseDate(facts!.last_ended_at),
    consumedFreeMinutes: freeReservationMinutesOf(facts!.recent_phases.map((phases) => ({ phases }))),
  };
}

/**
 * The reservation (reserveRental), inside the caller's transaction: one statement locks the vehicle and
 * reads what the checks need; the ready-to-rent rules, the customer, open rentals, the allowance, the
 * same-vehicle block and the start requirements are checked, the pricing version pinned, the rental row
 * inserted, the vehicle marked and the events written. A retry finds the rental its first attempt wrote.
 */
export async function reserveRentalRecord(
  em: EntityManager,
  input: ReserveRentalInput,
  written: { workflowId: string; idempotencyKey: string },
): Promise<ReservationResult> {
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

  // The customer's facts as a row, read once: the start requirements below take them as they are.
  const customer = await customerStartFacts(em, input.tenant, input.customerId);
  if (!customer) throw new DomainError('U106');
  if (customer.customer.isBlocked) throw new DomainError('U131');
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
  const userGroup = input.userGroupId === undefined ? null : await em.findOne(UserGroup, input.userGroupId);
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
    // Dunning refuses new rentals, not the pickup of a booking made before (db/dunning.ts).
    checkUnpaidInvoices: input.bookingId === undefined,
    customerFacts: customer,
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
      idempotencyKey: `${written.idempotencyKey}/start-check`,
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
        workflow_id: written.workflowId,
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
  await updateTenantRow(em, 'vehicle', input.tenant, vehicle.id, { rental_state: 'RESERVATION' });
  events.push({
    type: 'RENTAL_RESERVATION',
    ...about,
    description: `vehicle ${vehicle.code} reserved for ${grantedMinutes} minutes`,
    payload: {
      reservationMinutes: grantedMinutes,
      pricingBundleVersionId: pricingVersion.id,
      userGroupId: input.userGroupId ?? null,
    },
    idempotencyKey: written.idempotencyKey,
  });
  await insertEvents(em, input.tenant, events);
  return outcome(rental, allowanceMinutes);
}

/**
 * Leaves a reservation refused by the start requirements on the customer's timeline
 * (RENTAL_REQUIREMENTS_START_CHECK with the failed report), in a transaction of its own.
 */
export function recordRefusedStartCheck(
  em: EntityManager,
  input: ReserveRentalInput,
  refusal: { code: string; message: string; report: unknown },
  idempotencyKey: string,
): void {
  recordEvent(em, {
    type: 'RENTAL_REQUIREMENTS_START_CHECK',
    createdAt: new Date(input.at),
    branchId: input.branchId,
    vehicleId: input.vehicleId,
    customerId: input.customerId,
    adminSubject: input.requestedBy,
    description: `start requirements failed: ${refusal.message}`,
    payload: { passed: false, code: refusal.code, report: refusal.report },
    idempotencyKey: `${idempotencyKey}/start-check`,
  });
}

/**
 * Bought reservation minutes (buy-reservation), inside the caller's transaction: the rental locked, the
 * minutes added, the longer expiry set and RENTAL_BUY_RESERVATION recorded; nothing when a retry finds
 * the event already written.
 */
export async function recordBoughtReservationMinutes(
  em: EntityManager,
  input: RecordReservationPurchaseInput,
  idempotencyKey: string,
): Promise<void> {
  if (await eventRecorded(em, idempotencyKey)) return;
  const rental = await em.findOne(Rental, input.rentalId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!rental) throw new DomainError('R404');
  if (rental.state !== 'RESERVATION')
    throw new DomainError('R201', `reservation minutes are sold only in RESERVATION (${rental.state})`);
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
}
