// Rental creation, shared by the operator's AdminAddRental (`POST /back/rentals`) and the app's
// `POST /front/rentals`: the vehicle named by one identifier, the business-account context, the rental id
// from `rental_id_seq`, the rental workflow started and awaited until the reservation is made or refused.
import { startRequirementCodes } from '../domain/rental-requirements.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CostCenter, GroupMembership, Rental, Vehicle } from '../db/entities/index.js';
import { businessContextRefusal, type BusinessContextRequest } from '../domain/business-rental.js';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import {
  awaitReservationUpdate,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
} from '../workflows/rental.messages.js';
import type { ApiServices } from './kernel/mount.js';

/** Relations every rental DTO needs. */
export const rentalPopulate = ['vehicle', 'customer', 'pricingBundleVersion.bundle'] as const;

/** Loads a rental with what its DTO needs; R404 when the tenant has no such rental. */
export async function loadRental(em: EntityManager, rentalId: number): Promise<Rental> {
  const rental = await em.findOne(Rental, rentalId, { populate: rentalPopulate });
  if (!rental) throw new DomainError('R404', `rental ${rentalId} not found`);
  return rental;
}

/** The identifiers a rental creation may name its vehicle by; exactly one is given (the schemas say so). */
export interface VehicleIdentifier {
  vehicleId?: number;
  vehicleCode?: string;
  vehicleRotatingUuid?: string;
}

/**
 * The vehicle of a creation request (V404 when none matches). `appVisible` hides what the app never shows
 * (virtual, retired and defleeted vehicles), as the app's vehicle endpoints do.
 */
export async function vehicleOfRequest(
  em: EntityManager,
  identifier: VehicleIdentifier,
  { appVisible = false } = {},
): Promise<Vehicle> {
  const where: Record<string, unknown> =
    identifier.vehicleId !== undefined
      ? { id: identifier.vehicleId }
      : identifier.vehicleCode !== undefined
        ? { code: identifier.vehicleCode }
        : { rotatingUuid: identifier.vehicleRotatingUuid ?? '' };
  if (appVisible)
    Object.assign(where, { virtual: false, serviceStateV2: { $nin: ['RETIRED', 'DEFLEETED'] } });
  const vehicle = await em.findOne(Vehicle, where);
  if (!vehicle) throw new DomainError('V404');
  return vehicle;
}

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
] as const satisfies readonly ErrorCode[];

/** What a creation asks for once its inputs are checked. */
export interface RentalCreation {
  tenant: string;
  vehicle: Vehicle;
  customerId: number;
  /** Acting subject, recorded on the rental and its events (`client:…`, `operator:…`, `customer:…`). */
  requestedBy: string;
  startImmediately: boolean;
  business: BusinessContext;
}

/**
 * Creates a rental through its workflow: allocates the id, starts the workflow and waits until the
 * reservation is made (or refused: the workflow's typed failure becomes the answer), then reloads the row.
 */
export async function createRental(
  em: EntityManager,
  services: Pick<ApiServices, 'temporal' | 'taskQueue'>,
  creation: RentalCreation,
): Promise<Rental> {
  const [{ id: rentalId }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  const handle = await services.temporal.workflow.start(
    RENTAL_WORKFLOW_TYPE,
    rentalWorkflowStartOptions(
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
  );
  // Answers once the reservation is made (and, with startImmediately, the start attempted) or refused.
  await handle.executeUpdate(awaitReservationUpdate);
  return loadRental(em.fork(), rentalId);
}
