// A booking's money: the BOOKING pricing version pinned when it is made (or when its category or bundle
// changes), the estimated price of its window, its cancellation terms, the cancellation and no-show fee
// invoices, and the final price of the rental its pickup started (the booking's window, the late return,
// the distance driven and the additions). See docs/bookings.md, "Money".
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Booking } from './entities/Booking.js';
import { Invoice } from './entities/Invoice.js';
import { PricingBundle } from './entities/PricingBundle.js';
import { type Rental } from './entities/Rental.js';
import { Vehicle } from './entities/Vehicle.js';
import {
  businessUnitOfBranch,
  pricedVersion,
  pricingForBranch,
  pricingForVersion,
  taxContextOf,
  versionApplyingAt,
  type ResolvedPricing,
} from './pricing.js';
import { issueInvoice } from './invoices.js';
import { DomainError } from '../domain/errors.js';
import { bookingCancellation, cancellationFeeAmount, priceFee } from '../domain/pricing-fees.js';
import { bookingLines, priceBooking } from '../domain/pricing-booking.js';
import { priceWithBenefits } from '../domain/pricing-benefits.js';
import {
  billingBenefits,
  consumeBenefits,
  estimateBenefitsOf,
  mayTakeVouchers,
  rentalBenefitKey,
} from './pricing-benefits.js';
import { closeRentalGeofenceVouchers, finalRentalGeofence } from './geofence-pricing.js';
import type { PriceResult } from '../domain/pricing.js';
import { rentalDistance } from '../domain/rental-pricing.js';

/**
 * The BOOKING pricing a booking pins: the named bundle's version applying at `at` (ODP100 when the tenant
 * has no such bundle, ODP110 when it is not a BOOKING bundle), else the one assigned to the station's
 * category (ODP104 when none is).
 */
export async function bookingPricingAt(
  em: EntityManager,
  tenant: string,
  query: { branchId: number; vehicleCategoryId: number; at: Date; pricingBundleId?: number | null },
): Promise<ResolvedPricing> {
  if (query.pricingBundleId == null) return pricingForBranch(em, tenant, { ...query, bundleType: 'BOOKING' });
  const bundle = await em.findOne(PricingBundle, query.pricingBundleId);
  if (!bundle) throw new DomainError('ODP100', `pricing bundle ${query.pricingBundleId} not found`);
  if (bundle.type !== 'BOOKING')
    throw new DomainError('ODP110', `pricing bundle ${bundle.id} is not a BOOKING bundle`);
  const version = await versionApplyingAt(em, bundle.id, query.at);
  const unit = await businessUnitOfBranch(em, query.branchId);
  return { bundle, version, priced: pricedVersion(bundle, version), tax: taxContextOf(unit) };
}

/** The pinned pricing of a booking (ODP104 when it pinned none). */
export async function pinnedBookingPricing(em: EntityManager, booking: Booking): Promise<ResolvedPricing> {
  if (!booking.pricingBundleVersion)
    throw new DomainError('ODP104', `booking ${booking.id} has no pinned pricing version`);
  return pricingForVersion(em, {
    branchId: booking.branch.id,
    pricingBundleVersionId: booking.pricingBundleVersion.id,
  });
}

/** The estimated price of a window with its additions (no distance beyond the allowance, returned on time). */
export function estimateBookingPrice(
  pricing: ResolvedPricing,
  window: { startMs: number; endMs: number },
  additions: readonly string[],
): PriceResult {
  return priceBooking(pricing.priced, { ...window, distance: '0', additions }, pricing.tax);
}

/** Whose vouchers a booking's estimate reads, and where (the booking's customer, account, station, category). */
export interface BookingEstimateOwner {
  customerId: number;
  userGroupId?: number | null;
  branchId: number;
  vehicleCategoryId: number | null;
}

/**
 * The estimated price of a booking's window with its additions (`estimateBookingPrice`) and the owner's
 * ACTIVE vouchers applicable at the window's end (when the final price takes them; now, for a window
 * already over), read only: the estimate shows what the final price will take, and takes nothing.
 */
export async function estimateBookingPriceFor(
  em: EntityManager,
  pricing: ResolvedPricing,
  window: { startMs: number; endMs: number },
  additions: readonly string[],
  owner: BookingEstimateOwner,
): Promise<PriceResult> {
  const benefits = await estimateBenefitsOf(em, {
    ...owner,
    at: new Date(Math.max(Date.now(), window.endMs)),
  });
  if (benefits.length === 0) return estimateBookingPrice(pricing, window, additions);
  const lines = bookingLines(pricing.priced, { ...window, distance: '0', additions }, pricing.tax);
  return priceWithBenefits(pricing.priced, pricing.tax, lines, benefits).result;
}

/** The estimate owner of a booking (its customer, business account, station and category). */
export function bookingEstimateOwner(booking: Booking): BookingEstimateOwner {
  return {
    customerId: booking.customer.id,
    userGroupId: booking.userGroup?.id ?? null,
    branchId: booking.branch.id,
    vehicleCategoryId: booking.vehicleCategory.id,
  };
}

/** Writes a price on the booking's three price fields. */
export function setBookingPrice(booking: Booking, price: PriceResult): void {
  booking.price = price.price;
  booking.priceV3 = price.priceV3;
  booking.priceV4 = price.priceV4;
}

/** The spec's cancellationInformation of a booking at `atMs`; null when it pinned no version. */
export async function cancellationInformation(
  em: EntityManager,
  booking: Booking,
  atMs: number,
): Promise<{ cancellable: boolean; freeCancellationDeadline: string; estimatedFee: string } | null> {
  if (!booking.pricingBundleVersion) return null;
  const pricing = await pinnedBookingPricing(em, booking);
  return bookingCancellation(
    pricing.priced,
    booking.startTime.getTime(),
    atMs,
    pricing.tax,
    booking.priceV4?.totals,
  );
}

/**
 * The cancellation fee due at `atMs` as a price: zero before the free-cancellation deadline, then the
 * version's fee, never above the booking's own price (domain/pricing-fees.ts cancellationFeeAmount).
 */
export async function cancellationFee(em: EntityManager, booking: Booking, atMs: number) {
  const pricing = await pinnedBookingPricing(em, booking);
  const startMs = booking.startTime.getTime();
  const totals = booking.priceV4?.totals;
  const terms = bookingCancellation(pricing.priced, startMs, atMs, pricing.tax, totals);
  const price = priceFee(pricing.priced, pricing.tax, {
    code: 'CANCELLATION_FEE',
    description: 'Cancellation fee',
    amount: cancellationFeeAmount(pricing.priced, startMs, atMs, totals).toString(),
  });
  return { cancellable: terms.cancellable, price };
}

/** The no-show fee (the branch's booking setting `noShowFee`) as a price of the booking's pinned version. */
export async function noShowFee(em: EntityManager, booking: Booking, amount: string): Promise<PriceResult> {
  const pricing = await pinnedBookingPricing(em, booking);
  return priceFee(pricing.priced, pricing.tax, { code: 'NO_SHOW_FEE', description: 'No-show fee', amount });
}

/**
 * Creates the booking's invoice (state OPEN, one line per priceV4 line) for the business unit behind the
 * booking's station: BUSINESS for a business booking, else REGULAR; linked to the booking and, for a
 * trip, to its rental. A zero total creates none. Idempotent: a retry finds the booking's invoice.
 */
export async function issueBookingInvoice(
  em: EntityManager,
  booking: Booking,
  price: PriceResult,
  options: { at: Date; idempotencyKey: string; title: string; rental?: Rental },
): Promise<Invoice | null> {
  const existing = await em.findOne(Invoice, { booking: booking.id, refundedInvoice: null });
  if (existing || new Decimal(price.priceV4.totals.gross).isZero()) return existing;
  const invoice = await issueInvoice(em, price, {
    ...options,
    tenant: booking.tenant.id,
    branchId: booking.branch.id,
    customer: booking.customer,
    booking,
    userGroup: booking.userGroup ?? null,
    costCenter: booking.costCenter ?? null,
  });
  booking.invoice = invoice;
  return invoice;
}

/**
 * The end of a booking's rental (called by `finaliseRentalBilling` inside the END/CANCEL/EXPIRE
 * transaction): the booking's pinned version prices the booking's window, the distance driven, the
 * additions and a late return (`at` past endTime plus the version's grace); the price goes on the rental
 * and on the booking, and one invoice links both. A rental that never started costs nothing.
 */
export async function finaliseBookingRentalBilling(
  em: EntityManager,
  rental: Rental,
  booking: Booking,
  options: { at: Date; idempotencyKey: string },
): Promise<{ price: PriceResult; invoice: Invoice | null }> {
  await em.lock(booking, LockMode.PESSIMISTIC_WRITE);
  const pricing = await pinnedBookingPricing(em, booking);
  const started = rental.startedAt != null;
  let endOdometerKm = rental.endOdometerKm;
  if (started && endOdometerKm == null)
    endOdometerKm = (await em.findOne(Vehicle, rental.vehicle.id))?.odometerKm ?? null;
  let price: PriceResult;
  if (started) {
    // The customer's (and the business account's) vouchers, taken once per rental whatever retries.
    const key = rentalBenefitKey(rental.id);
    const owners = { customerId: booking.customer.id, userGroupId: booking.userGroup?.id ?? null };
    const frozen = rental.priceV4 != null;
    // Geofence promotions and surcharges at the rental's start and end positions, granted for it once.
    const geofence = await finalRentalGeofence(em, rental, frozen, options.at, {
      branchId: booking.branch.id,
      vehicleCategoryId: booking.vehicleCategory.id,
    });
    const benefits = !(geofence.promotionIds.length > 0 || (await mayTakeVouchers(em, owners, key)))
      ? []
      : await billingBenefits(
          em,
          {
            ...owners,
            branchId: booking.branch.id,
            vehicleCategoryId: booking.vehicleCategory.id,
            at: options.at,
          },
          key,
          { frozen, ownIds: geofence.promotionIds },
        );
    const lines = bookingLines(
      pricing.priced,
      {
        startMs: booking.startTime.getTime(),
        endMs: booking.endTime.getTime(),
        distance: rentalDistance(rental.startOdometerKm, endOdometerKm, pricing.priced.distanceUnit),
        additions: booking.additions,
        returnedAtMs: options.at.getTime(),
      },
      pricing.tax,
    );
    const priced = priceWithBenefits(pricing.priced, pricing.tax, lines, benefits, geofence.surcharges);
    await consumeBenefits(em, priced.applied, key, rental.id);
    await closeRentalGeofenceVouchers(em, geofence.vouchers);
    price = priced.result;
  } else
    price = priceFee(pricing.priced, pricing.tax, {
      code: 'NOT_STARTED',
      description: 'Not started',
      amount: '0',
    });
  rental.price = price.price;
  rental.priceV3 = price.priceV3;
  rental.priceV4 = price.priceV4;
  setBookingPrice(booking, price);
  const invoice = await issueBookingInvoice(em, booking, price, {
    ...options,
    title: `Booking ${booking.id}`,
    rental,
  });
  if (invoice) rental.invoice = invoice;
  await em.flush();
  return { price, invoice };
}
