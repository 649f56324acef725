// The booking representation, which both interfaces use: the `Booking` schema with its cancellation terms,
// its mapper, and the booking of the path loaded with what the mapper needs (each interface then confines
// it: the operator by permission, the app to the caller's own).
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Booking } from '../../db/entities/Booking.js';
import { pricedVersion, taxContextOf } from '../../db/pricing.js';
import { DomainError } from '../../domain/errors.js';
import {
  bookingRentalTypes,
  bookingStates,
  bookingTypes,
  bookingApprovalStates,
} from '../../domain/booking.js';
import { bookingCancellation } from '../../domain/pricing-fees.js';
import { Price, PriceV3, PriceV4, PricingVersionRef } from './pricing-estimates.js';
import type { RouteContext } from '../kernel/route.js';
import { component, DateTime, Id, Nullable, Position, StringEnum } from '../kernel/schemas.js';

export const BookingState = component('BookingState', StringEnum(bookingStates));

export const CancellationInformation = component(
  'BookingCancellationInformation',
  Type.Object(
    {
      cancellable: Type.Boolean({ description: 'Whether the pricing lets the customer cancel at all.' }),
      freeCancellationDeadline: DateTime({ description: 'Cancelling before this is free.' }),
      estimatedFee: Type.String({
        description: 'Fee if cancelled now (decimal string); present even when not cancellable.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const BookingSchema = component(
  'Booking',
  Type.Object(
    {
      id: Id(),
      state: BookingState,
      approvalState: Nullable(StringEnum(bookingApprovalStates)),
      rejectionReason: Nullable(Type.String()),
      type: StringEnum(bookingTypes),
      rentalType: StringEnum(bookingRentalTypes),
      guserId: Id({ description: 'The customer.' }),
      branchId: Id({ description: 'Start station.' }),
      endBranchId: Id({ description: 'Return station (the start station for a round trip).' }),
      vehicleCategoryId: Id(),
      vehicleId: Nullable(Id({ description: 'Delivered vehicle; null until delivery.' })),
      startTime: DateTime(),
      endTime: DateTime(),
      startStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes before the start.' }),
      endStationCooldown: Type.Integer({ minimum: 0, description: 'Minutes after the end.' }),
      startPosition: Nullable(Position),
      startPositionRadius: Nullable(Type.Integer({ minimum: 0, description: 'Metres (FLOATING).' })),
      userGroupId: Nullable(Id()),
      costCenterId: Nullable(Id()),
      reason: Nullable(Type.String()),
      additions: Type.Array(Type.String()),
      pricingBundleId: Nullable(Id()),
      pricingBundleVersion: Nullable(PricingVersionRef),
      price: Nullable(Price),
      priceV3: Nullable(PriceV3),
      priceV4: Nullable(PriceV4),
      estimatedPrice: Nullable(
        Type.String({ description: 'Estimated total of the window (final price once the booking ended).' }),
      ),
      cancellationInformation: Nullable(CancellationInformation),
      notes: Nullable(Type.String()),
      externalReference: Nullable(Type.String()),
      annotations: Type.Array(Type.String()),
      ratingDescription: Nullable(Type.String()),
      checkedInAt: Nullable(DateTime()),
      pickedUpAt: Nullable(DateTime()),
      returnedAt: Nullable(DateTime()),
      overdueSince: Nullable(DateTime()),
      canceledAt: Nullable(DateTime()),
      cancellationReason: Nullable(Type.String()),
      cancellationFeeWaived: Type.Boolean(),
      rentalId: Nullable(Id({ description: 'The rental the pickup started.' })),
      invoiceId: Nullable(Id({ description: 'The trip, cancellation or no-show invoice.' })),
      workflowId: Type.String({ description: 'Id of the booking workflow in the Temporal UI.' }),
      createdBy: Nullable(Type.String()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export type BookingDto = Static<typeof BookingSchema>;

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/** Relations every booking DTO needs (the pinned version's bundle and the station's business unit for the terms). */
export const bookingPopulate = ['pricingBundleVersion.bundle', 'branch.businessUnit'] as const;

/** The API's booking representation (the `Booking` schema), shared by both interfaces. */
export function toBookingDto(booking: Booking, nowMs = Date.now()): BookingDto {
  const version = booking.pricingBundleVersion;
  const terms =
    version && booking.branch.businessUnit
      ? bookingCancellation(
          pricedVersion(version.bundle, version),
          booking.startTime.getTime(),
          nowMs,
          taxContextOf(booking.branch.businessUnit),
          booking.priceV4?.totals,
        )
      : null;
  return {
    id: booking.id,
    state: booking.state,
    approvalState: booking.approvalState ?? null,
    rejectionReason: booking.rejectionReason ?? null,
    type: booking.type,
    rentalType: booking.rentalType,
    guserId: booking.customer.id,
    branchId: booking.branch.id,
    endBranchId: booking.endBranch.id,
    vehicleCategoryId: booking.vehicleCategory.id,
    vehicleId: booking.vehicle?.id ?? null,
    startTime: booking.startTime.toISOString(),
    endTime: booking.endTime.toISOString(),
    startStationCooldown: booking.startStationCooldown,
    endStationCooldown: booking.endStationCooldown,
    startPosition: booking.startPosition ?? null,
    startPositionRadius: booking.startPositionRadius ?? null,
    userGroupId: booking.userGroup?.id ?? null,
    costCenterId: booking.costCenter?.id ?? null,
    reason: booking.reason ?? null,
    additions: [...booking.additions],
    pricingBundleId: version?.bundle.id ?? null,
    pricingBundleVersion: version
      ? {
          pricingBundleId: version.bundle.id,
          pricingBundleVersionId: version.id,
          version: version.version,
          name: version.bundle.name,
        }
      : null,
    price: booking.price ?? null,
    priceV3: booking.priceV3 ?? null,
    priceV4: booking.priceV4 ?? null,
    estimatedPrice: booking.price?.total ?? null,
    cancellationInformation: terms,
    notes: booking.notes ?? null,
    externalReference: booking.externalReference ?? null,
    annotations: [...booking.annotations],
    ratingDescription: booking.ratingDescription ?? null,
    checkedInAt: iso(booking.checkedInAt),
    pickedUpAt: iso(booking.pickedUpAt),
    returnedAt: iso(booking.returnedAt),
    overdueSince: iso(booking.overdueSince),
    canceledAt: iso(booking.canceledAt),
    cancellationReason: booking.cancellationReason ?? null,
    cancellationFeeWaived: booking.cancellationFeeWaived,
    rentalId: booking.rental?.id ?? null,
    invoiceId: booking.invoice?.id ?? null,
    workflowId: booking.workflowId,
    createdBy: booking.createdBy ?? null,
    createdAt: booking.createdAt.toISOString(),
    updatedAt: booking.updatedAt.toISOString(),
  };
}

/** Loads a booking with what its DTO needs; B300 when the tenant has no such booking. */
export async function loadBooking(em: EntityManager, bookingId: number): Promise<Booking> {
  const booking = await em.findOne(Booking, bookingId, { populate: bookingPopulate });
  if (!booking) throw new DomainError('B300', `booking ${bookingId} not found`);
  return booking;
}

/** The booking of the path, loaded once per request (the access check and the handler share it). */
export const bookingOf = (ctx: RouteContext<{ bookingId: number }>) =>
  ctx.once('booking', () => loadBooking(ctx.em, ctx.params.bookingId));

/** Reloads a booking after its workflow changed it. */
export const reloadBooking = async (ctx: RouteContext, bookingId: number) =>
  toBookingDto(await loadBooking(ctx.em.fork(), bookingId));
