// The rental representation, which both interfaces use: the `Rental` schema, its mapper and the rental of
// the path (each interface then confines it: the operator by permission, the app to the caller's own).
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rental } from '../../db/entities/Rental.js';
import { priceRentalWithPhases } from '../../db/rental-billing.js';
import { isDomainError } from '../../domain/errors.js';
import { rentalStates, terminalRentalStates } from '../../domain/rental.js';
import type { RouteContext } from '../kernel/route.js';
import { component, DateTime, Id, Nullable, Position, StringEnum } from '../kernel/schemas.js';
import { loadRental, type RentalRecord } from './rental-creation.js';
import { Price, PriceV3, PriceV4, PricingVersionRef } from './pricing-estimates.js';

export const RentalState = component('RentalState', StringEnum(rentalStates));

const RentalPhase = component(
  'RentalPhase',
  Type.Object(
    {
      phase: StringEnum(['RESERVATION_FREE', 'RESERVATION_PAID', 'DRIVING', 'PARKING'] as const),
      startedAt: DateTime(),
      endedAt: Nullable(DateTime({ description: 'Null while the phase is open.' })),
    },
    { additionalProperties: false, description: 'One price phase of the rental on the clock.' },
  ),
);

export const RentalSchema = component(
  'Rental',
  Type.Object(
    {
      id: Id(),
      state: RentalState,
      activeMode: Nullable(StringEnum(['DRIVING', 'PARKING'] as const)),
      branchId: Id(),
      endBranchId: Nullable(
        Id({
          description:
            'Branch whose business area held the end position; differs for passed-through rentals.',
        }),
      ),
      vehicle: Type.Object({
        id: Id(),
        code: Type.String(),
        categoryId: Id(),
        licensePlate: Nullable(Type.String()),
      }),
      user: Type.Object({
        id: Id(),
        firstName: Type.String(),
        lastName: Type.String(),
        email: Type.String(),
      }),
      createdBy: Nullable(Type.String()),
      reservedAt: DateTime(),
      reservationExpiresAt: Nullable(DateTime()),
      startedAt: Nullable(DateTime()),
      endedAt: Nullable(DateTime()),
      startPosition: Nullable(Position),
      endPosition: Nullable(Position),
      distanceKm: Nullable(Type.Number()),
      pricingBundleVersion: Nullable(PricingVersionRef),
      phases: Type.Array(RentalPhase),
      paidReservationMinutes: Type.Integer({ minimum: 0 }),
      price: Nullable(Price),
      priceV3: Nullable(PriceV3),
      priceV4: Nullable(PriceV4),
      priceIsEstimate: Type.Boolean({
        description:
          'true when price, priceV3 and priceV4 are the running estimate of an open rental up to this answer (GET of one rental), from the pinned pricing version and the same engine as the final price; false when they are the final price, or null.',
      }),
      userGroupId: Nullable(Id({ description: 'Business account of a business rental.' })),
      costCenterId: Nullable(Id()),
      reason: Nullable(Type.String()),
      annotations: Type.Array(Type.String()),
      invoiceId: Nullable(
        Id({ description: 'Invoice issued when the rental ended; see billing-overview for its lines.' }),
      ),
      depositId: Nullable(Id({ description: 'Deposit held at START; released with release-deposit.' })),
      cleanlinessRating: Nullable(Type.Integer({ minimum: 1, maximum: 5 })),
      cleanlinessComment: Nullable(Type.String()),
      overriddenEndRequirements: Nullable(
        Type.Array(Type.String(), { description: 'End requirements an operator overrode at END.' }),
      ),
      workflowId: Type.String({ description: 'Id of the rental workflow in the Temporal UI.' }),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/** The API's rental representation (the `Rental` schema), shared by both interfaces. */
export function toRentalDto(rental: RentalRecord): Static<typeof RentalSchema> {
  const km =
    rental.startOdometerKm != null && rental.endOdometerKm != null
      ? Math.round((rental.endOdometerKm - rental.startOdometerKm) * 1000) / 1000
      : null;
  const version = rental.pricingBundleVersion;
  return {
    id: rental.id,
    state: rental.state,
    activeMode: rental.activeMode ?? null,
    branchId: rental.branch.id,
    endBranchId: rental.endBranch?.id ?? null,
    vehicle: {
      id: rental.vehicle.id,
      code: rental.vehicle.code,
      categoryId: rental.vehicle.category.id,
      licensePlate: rental.vehicle.licensePlate ?? null,
    },
    user: {
      id: rental.customer.id,
      firstName: rental.customer.firstName,
      lastName: rental.customer.lastName,
      email: rental.customer.email,
    },
    createdBy: rental.createdBy ?? null,
    reservedAt: rental.reservedAt.toISOString(),
    reservationExpiresAt: iso(rental.reservationExpiresAt),
    startedAt: iso(rental.startedAt),
    endedAt: iso(rental.endedAt),
    startPosition: rental.startPosition ?? null,
    endPosition: rental.endPosition ?? null,
    distanceKm: km,
    pricingBundleVersion: version
      ? {
          pricingBundleId: version.bundle.id,
          pricingBundleVersionId: version.id,
          version: version.version,
          name: version.bundle.name,
        }
      : null,
    phases: rental.phases.map((phase) => ({ ...phase })),
    paidReservationMinutes: rental.paidReservationMinutes,
    price: rental.price ?? null,
    priceV3: rental.priceV3 ?? null,
    priceV4: rental.priceV4 ?? null,
    priceIsEstimate: false,
    userGroupId: rental.userGroup?.id ?? null,
    costCenterId: rental.costCenter?.id ?? null,
    reason: rental.reason ?? null,
    annotations: [...rental.annotations],
    invoiceId: rental.invoice?.id ?? null,
    depositId: rental.deposit?.id ?? null,
    cleanlinessRating: rental.cleanlinessRating ?? null,
    cleanlinessComment: rental.cleanlinessComment ?? null,
    overriddenEndRequirements: rental.overriddenEndRequirements ?? null,
    workflowId: rental.workflowId,
    createdAt: rental.createdAt.toISOString(),
    updatedAt: rental.updatedAt.toISOString(),
  };
}

/**
 * One rental as its own read shows it: while it is open, with the running price up to now (the estimate
 * the billing overview shows, priceIsEstimate true); ended, with its final price. A rental that pinned no
 * pricing version, or whose estimate the rules refuse, shows no price.
 */
export async function toRentalDtoWithRunningPrice(
  em: EntityManager,
  rental: Rental,
): Promise<Static<typeof RentalSchema>> {
  const dto = toRentalDto(rental);
  if (terminalRentalStates.includes(rental.state) || !rental.pricingBundleVersion) return dto;
  try {
    const { result } = await priceRentalWithPhases(em, rental, Date.now());
    return { ...dto, ...result, priceIsEstimate: true };
  } catch (error) {
    if (isDomainError(error)) return dto;
    throw error;
  }
}

/** The rental of the path, loaded once per request (the access check and the handler share it). */
export const rentalOf = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once('rental', () => loadRental(ctx.em, ctx.params.rentalId));
