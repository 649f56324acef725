// Rental creation, which both interfaces use: the operator's AdminAddRental (`POST /back/rentals`) and the
// app's `POST /front/rentals` name the vehicle by one identifier and the business-account context; this
// takes the rental id from `rental_id_seq` and starts the rental workflow, awaited until the reservation is
// made or refused. Also the rental rows every rental answer is mapped from (`toRentalDto`).
import { startRequirementCodes } from '../../domain/rental-requirements.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { Type } from '@sinclair/typebox';
import { CostCenter } from '../../db/entities/CostCenter.js';
import { GroupMembership } from '../../db/entities/GroupMembership.js';
import { Rental } from '../../db/entities/Rental.js';
import { preparedRows } from '../../db/prepared.js';
import { businessContextRefusal, type BusinessContextRequest } from '../../domain/business-rental.js';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import {
  awaitReservationUpdate,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
} from '../../workflows/rental.messages.js';
import type { ApiServices } from '../kernel/mount.js';
import { Id, Str } from '../kernel/schemas.js';

/** Relations every rental DTO needs. */
export const rentalPopulate = ['vehicle', 'customer', 'pricingBundleVersion.bundle'] as const;

/** Loads a rental with what its DTO needs; R404 when the tenant has no such rental. */
export async function loadRental(em: EntityManager, rentalId: number): Promise<Rental> {
  const rental = await em.findOne(Rental, rentalId, { populate: rentalPopulate });
  if (!rental) throw new DomainError('R404', `rental ${rentalId} not found`);
  return rental;
}

/**
 * What the rental DTO (`toRentalDto`) reads of a rental: an entity loaded with `rentalPopulate` is one, and
 * so is what `rentalRecord` reads without entities.
 */
export interface RentalRecord {
  id: number;
  state: Rental['state'];
  activeMode?: Rental['activeMode'];
  branch: { id: number };
  endBranch?: { id: number } | null;
  vehicle: { id: number; code: string; category: { id: number }; licensePlate?: string | null };
  customer: { id: number; firstName: string; lastName: string; email: string };
  createdBy?: string | null;
  reservedAt: Date;
  reservationExpiresAt?: Date | null;
  startedAt?: Date | null;
  endedAt?: Date | null;
  startPosition?: Rental['startPosition'];
  endPosition?: Rental['endPosition'];
  startOdometerKm?: number | null;
  endOdometerKm?: number | null;
  pricingBundleVersion?: { id: number; version: number; bundle: { id: number; name: string } } | null;
  phases: Rental['phases'];
  paidReservationMinutes: number;
  price?: Rental['price'];
  priceV3?: Rental['priceV3'];
  priceV4?: Rental['priceV4'];
  userGroup?: { id: number } | null;
  costCenter?: { id: number } | null;
  reason?: string | null;
  annotations: string[];
  invoice?: { id: number } | null;
  deposit?: { id: number } | null;
  cleanlinessRating?: number | null;
  cleanlinessComment?: string | null;
  overriddenEndRequirements?: string[] | null;
  workflowId: string;
  createdAt: Date;
  updatedAt: Date;
}

interface RentalRecordRow {
  id: number;
  state: Rental['state'];
  active_mode: Rental['activeMode'];
  branch_id: number;
  end_branch_id: number | null;
  vehicle_id: number;
  vehicle_code: string;
  vehicle_category_id: number;
  vehicle_license_plate: string | null;
  customer_id: number;
  customer_first_name: string;
  customer_last_name: string;
  customer_email: string;
  created_by: string | null;
  reserved_at: string;
  reservation_expires_at: string | null;
  started_at: string | null;
  ended_at: string | null;
  start_position: Rental['startPosition'];
  end_position: Rental['endPosition'];
  start_odometer_km: number | null;
  end_odometer_km: number | null;
  pricing_bundle_version_id: number | null;
  pricing_bundle_version: number | null;
  pricing_bundle_id: number | null;
  pricing_bundle_name: string | null;
  phases: Rental['phases'];
  paid_reservation_minutes: number;
  price: Rental['price'];
  price_v3: Rental['priceV3'];
  price_v4: Rental['priceV4'];
  user_group_id: number | null;
  cost_center_id: number | null;
  reason: string | null;
  annotations: string[];
  invoice_id: number | null;
  deposit_id: number | null;
  cleanliness_rating: number | null;
  cleanliness_comment: string | null;
  overridden_end_requirements: string[] | null;
  workflow_id: string;
  created_at: string;
  updated_at: string;
}

/**
 * The rental with what its DTO needs, in one statement and without entities (R404 when the tenant has no
 * such rental): every operation answers with it, and hydrating the rental, its vehicle, customer and
 * pricing version cost more than the statement.
 */
export async function rentalRecord(
  em: EntityManager,
  tenant: string,
  rentalId: number,
): Promise<RentalRecord> {
  const [row] = await preparedRows<RentalRecordRow>(
    em,
    `select r.id, r.state, r.active_mode, r.branch_id, r.end_branch_id, r.vehicle_id,
            v.code as vehicle_code, v.category_id as vehicle_category_id, v.license_plate as vehicle_license_plate,
            r.customer_id, c.first_name as customer_first_name, c.last_name as customer_last_name,
            c.email as customer_email, r.created_by, r.reserved_at, r.reservation_expires_at, r.started_at,
            r.ended_at, r.start_position, r.end_position, r.start_odometer_km, r.end_odometer_km,
            r.pricing_bundle_version_id, pv.version as pricing_bundle_version, pb.id as pricing_bundle_id,
            pb.name as pricing_bundle_name, r.phases, r.paid_reservation_minutes, r.price, r.price_v3,
            r.price_v4, r.user_group_id, r.cost_center_id, r.reason, r.annotations, r.invoice_id, r.deposit_id,
            r.cleanliness_rating, r.cleanliness_comment, r.overridden_end_requirements, r.workflow_id,
            r.created_at, r.updated_at
       from rental r
       join vehicle v on v.tenant_id = r.tenant_id and v.id = r.vehicle_id
       join customer c on c.tenant_id = r.tenant_id and c.id = r.customer_id
       left join pricing_bundle_version pv on pv.tenant_id = r.tenant_id and pv.id = r.pricing_bundle_version_id
       left join pricing_bundle pb on pb.tenant_id = r.tenant_id and pb.id = pv.bundle_id
      where r.tenant_id = $1 and r.id = $2`,
    [tenant, rentalId],
  );
  if (!row) throw new DomainError('R404', `rental ${rentalId} not found`);
  // Timestamps as the entities read them (the driver hands them over as text).
  const platform = em.getPlatform();
  const instant = (value: string) => platform.parseDate(value);
  const optionalInstant = (value: string | null) => (value === null ? null : instant(value));
  const reference = (id: number | null) => (id === null ? null : { id });
  return {
    id: row.id,
    state: row.state,
    activeMode: row.active_mode,
    branch: { id: row.branch_id },
    endBranch: reference(row.end_branch_id),
    vehicle: {
      id: row.vehicle_id,
      code: row.vehicle_code,
      category: { id: row.vehicle_category_id },
      licensePlate: row.vehicle_license_plate,
    },
    customer: {
      id: row.customer_id,
      firstName: row.customer_first_name,
      lastName: row.customer_last_name,
      email: row.customer_email,
    },
    createdBy: row.created_by,
    reservedAt: instant(row.reserved_at),
    reservationExpiresAt: optionalInstant(row.reservation_expires_at),
    startedAt: optionalInstant(row.started_at),
    endedAt: optionalInstant(row.ended_at),
    startPosition: row.start_position,
    endPosition: row.end_position,
    startOdometerKm: row.start_odometer_km,
    endOdometerKm: row.end_odometer_km,
    pricingBundleVersion:
      row.pricing_bundle_version_id === null
        ? null
        : {
            id: row.pricing_bundle_version_id,
            version: row.pricing_bundle_version!,
            bundle: { id: row.pricing_bundle_id!, name: row.pricing_bundle_name! },
          },
    phases: row.phases,
    paidReservationMinutes: row.paid_reservation_minutes,
    price: row.price,
    priceV3: row.price_v3,
    priceV4: row.price_v4,
    userGroup: reference(row.user_group_id),
    costCenter: reference(row.cost_center_id),
    reason: row.reason,
    annotations: row.annotations,
    invoice: reference(row.invoice_id),
    deposit: reference(row.deposit_id),
    cleanlinessRating: row.cleanliness_rating,
    cleanlinessComment: row.cleanliness_comment,
    overriddenEndRequirements: row.overridden_end_requirements,
    workflowId: row.workflow_id,
    createdAt: instant(row.created_at),
    updatedAt: instant(row.updated_at),
  };
}

/** The identifiers a rental creation may name its vehicle by; exactly one is given (the schemas say so). */
export interface VehicleIdentifier {
  vehicleId?: number;
  vehicleCode?: string;
  vehicleRotatingUuid?: string;
}

/** What a creation needs of its vehicle: which one it is and the branch it belongs to. */
export interface RequestedVehicle {
  id: number;
  code: string;
  branch: { id: number };
}

/**
 * The vehicle of a creation request (V404 when none matches), in one prepared statement. `appVisible`
 * hides what the app never shows (virtual, retired and defleeted vehicles), as the app's vehicle endpoints
 * do.
 */
export async function vehicleOfRequest(
  em: EntityManager,
  tenant: string,
  identifier: VehicleIdentifier,
  { appVisible = false } = {},
): Promise<RequestedVehicle> {
  const [column, value] =
    identifier.vehicleId !== undefined
      ? ['id', identifier.vehicleId]
      : identifier.vehicleCode !== undefined
        ? ['code', identifier.vehicleCode]
        : ['rotating_uuid', identifier.vehicleRotatingUuid ?? null];
  const [row] = await preparedRows<{ id: number; code: string; branch_id: number }>(
    em,
    `select id, code, branch_id from vehicle where tenant_id = $1 and ${column} = $2${
      appVisible ? ` and not virtual and service_state_v2 not in ('RETIRED', 'DEFLEETED')` : ''
    } limit 1`,
    [tenant, value],
  );
  if (!row) throw new DomainError('V404');
  return { id: row.id, code: row.code, branch: { id: row.branch_id } };
}

/** Whether the tenant has this customer (U106 otherwise, for creations that name one). */
export async function customerExists(
  em: EntityManager,
  tenant: string,
  customerId: number,
): Promise<boolean> {
  return (
    (await preparedRows(em, 'select 1 from customer where tenant_id = $1 and id = $2', [tenant, customerId]))
      .length > 0
  );
}

/** Business-account context of a rental creation (both interfaces). */
export const businessContextFields = {
  userGroupId: Type.Optional(
    Id({ description: 'Business account of a business rental; the customer must be its active member.' }),
  ),
  costCenterId: Type.Optional(
    Id({ description: "A cost center of that account; default: the member's, then the account's default." }),
  ),
  reason: Type.Optional(
    Str(500, {
      minLength: 1,
      description: 'Purpose of the trip; required by accounts that keep a driving log.',
    }),
  ),
};

/** A checked business context: the account, its cost center (the member's or the account's default) and reason. */
export interface BusinessContext {
  userGroupId?: number;
  costCenterId?: number;
  reason?: string;
}

/**
 * Checks a business context against the account's rules (docs/rentals.md): the customer must be an
 * ACTIVE member, the cost center must be the account's, and a driving-log account needs a reason. Without
 * a cost center, the member's own or the account's default is used.
 */
export async function checkBusinessContext(
  em: EntityManager,
  customerId: number,
  request: BusinessContextRequest,
): Promise<BusinessContext> {
  const membership =
    request.userGroupId === undefined
      ? null
      : await em.findOne(
          GroupMembership,
          { customer: customerId, group: request.userGroupId, state: 'ACTIVE' },
          { populate: ['group'] },
        );
  const costCenter =
    membership && request.costCenterId !== undefined
      ? await em.findOne(CostCenter, { id: request.costCenterId, group: membership.group })
      : null;
  const refusal = businessContextRefusal(
    request,
    membership
      ? {
          customerIsActiveMember: true,
          costCenterBelongsToGroup: costCenter !== null,
          reasonRequired: membership.group.requireDrivingLog,
        }
      : undefined,
  );
  if (refusal) throw new DomainError(refusal);
  if (!membership) return { reason: request.reason?.trim() || undefined };
  return {
    userGroupId: membership.group.id,
    costCenterId:
      costCenter?.id ?? membership.costCenterId ?? membership.group.defaultCostCenterId ?? undefined,
    reason: request.reason?.trim() || undefined,
  };
}

/**
 * Codes a creation may answer besides the caller's own checks: the vehicle lookup, the business context
 * and the refusals of the rental workflow's reservation (and immediate start), which arrive as typed
 * ApplicationFailures and are mapped by api/errors.ts.
 */
export const rentalCreationErrors = [
  'V404',
  'U106',
  'U131',
  'R102',
  'R103',
  'R104',
  'R106',
  'R107',
  'R170',
  'R173',
  'R190',
  'R191',
  'R192',
  'ODP104',
  'ODP106',
  // The start requirements of the branch and category, checked when the rental is created.
  ...Object.values(startRequirementCodes),
  'U602',
  'U130',
  'U144',
  'RQ100',
  // Dunning: an invoice unpaid past the grace period of finance.dunning (db/dunning.ts).
  'U134',
] as const satisfies readonly ErrorCode[];

/** What a creation asks for once its inputs are checked. */
export interface RentalCreation {
  tenant: string;
  vehicle: RequestedVehicle;
  customerId: number;
  /** Acting subject, recorded on the rental and its events (`client:…`, `operator:…`, `customer:…`). */
  requestedBy: string;
  startImmediately: boolean;
  business: BusinessContext;
}

/**
 * Creates a rental through its workflow: allocates the id, starts the workflow with its first Update and
 * waits until the reservation is made (or refused: the workflow's typed failure becomes the answer), then reads the row.
 */
export async function createRental(
  em: EntityManager,
  services: Pick<ApiServices, 'temporal' | 'taskQueue'>,
  creation: RentalCreation,
): Promise<RentalRecord> {
  const [{ id: rentalId }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  // Update-with-Start: one call starts the workflow and asks awaitReservation, which answers once the
  // reservation is made (and, with startImmediately, the start attempted) or refused. The rental id is new,
  // so an existing workflow of that id is a fault (FAIL), never a rental to join.
  const start = new WithStartWorkflowOperation(RENTAL_WORKFLOW_TYPE, {
    ...rentalWorkflowStartOptions(
      {
        tenant: creation.tenant,
        rentalId,
        branchId: creation.vehicle.branch.id,
        vehicleId: creation.vehicle.id,
        customerId: creation.customerId,
        requestedBy: creation.requestedBy,
        startImmediately: creation.startImmediately,
        ...creation.business,
      },
      services.taskQueue,
    ),
    workflowIdConflictPolicy: 'FAIL',
  });
  await services.temporal.workflow.executeUpdateWithStart(awaitReservationUpdate, {
    startWorkflowOperation: start,
  });
  return rentalRecord(em, creation.tenant, rentalId);
}
