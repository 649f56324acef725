// A rental's money: the pricing version pinned at creation, the price (running estimate or final), the
// invoice written when the rental ends, and the deposit held at START and released by an operator.
// The rental workflow's activities call these inside their transaction with their idempotency key;
// the billing routes read and release through them. See docs/rental-billing.md.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Customer } from './entities/Customer.js';
import { Deposit } from './entities/Deposit.js';
import { Booking } from './entities/Booking.js';
import { type PricingBundle } from './entities/PricingBundle.js';
import { type PricingBundleVersion } from './entities/PricingBundleVersion.js';
import { Rental } from './entities/Rental.js';
import { UserGroup } from './entities/UserGroup.js';
import { Vehicle } from './entities/Vehicle.js';
import {
  businessUnitOfBranch,
  pricedVersion,
  pricingForVersion,
  pricingUnitOfBranch,
  type ResolvedPricing,
} from './pricing.js';
import { issueInvoiceRows } from './invoices.js';
import { branchAncestry } from './branches.js';
import { preparedRows, updateTenantRow } from './prepared.js';
import { effectiveSetting } from './settings.js';
import { recordEvent } from './events.js';
import { DomainError } from '../domain/errors.js';
import { formatAmount } from '../domain/money.js';
import { applicableVersion } from '../domain/pricing-versions.js';
import { onDemandRentalLines } from '../domain/pricing-on-demand.js';
import {
  priceWithBenefits,
  type AppliedBenefit,
  type PricingBenefit,
  type PricingSurcharge,
} from '../domain/pricing-benefits.js';
import type { PriceResult } from '../domain/pricing.js';
import {
  RENTAL_DEPOSIT_SETTING_KEY,
  depositAmountFor,
  rentalDistance,
  rentalPhaseSpans,
  type BilledPhase,
  type RentalPricingSubject,
} from '../domain/rental-pricing.js';
import { terminalRentalStates, type RentalPhaseRecord, type RentalState } from '../domain/rental.js';
import { finaliseBookingRentalBilling } from './booking-billing.js';
import {
  billingBenefits,
  consumeBenefits,
  estimateBenefits,
  mayTakeVouchers,
  rentalBenefitKey,
} from './pricing-benefits.js';
import type { RentalBenefitContext } from './vouchers.js';
import {
  closeRentalGeofenceVouchers,
  finalRentalGeofence,
  rentalGeofenceVouchers,
} from './geofence-pricing.js';

/**
 * The on-demand pricing version a new rental pins (the one applying at `at` to its branch and vehicle
 * category): ODP104 when nothing is assigned, ODP106 when no version applies. Store its id on the rental;
 * every later price of the rental uses exactly it. The rules are `assignedPricing` then
 * `versionApplyingAt` (db/pricing.ts), read in one statement: each assignment of the branch's ancestry
 * with the latest version of its bundle in effect at `at`, the nearest branch's first.
 */
export async function pinRentalPricing(
  em: EntityManager,
  tenant: string,
  query: { branchId: number; vehicleCategoryId: number; at: Date },
): Promise<{ id: number }> {
  const ancestry = await branchAncestry(em, tenant, query.branchId);
  if (!ancestry.length) throw new DomainError('B404', `branch ${query.branchId} not found`);
  const rows = await preparedRows<{
    branch_id: number;
    bundle_id: number;
    id: number | null;
    status: PricingBundleVersion['status'] | null;
    effective_from: string | null;
    valid_until: string | null;
  }>(
    em,
    `select a.branch_id, a.bundle_id, v.id, v.status, v.effective_from, v.valid_until
       from pricing_assignment a
       left join lateral (
         select id, status, effective_from, valid_until from pricing_bundle_version
          where tenant_id = a.tenant_id and bundle_id = a.bundle_id
            and status in ('PUBLISHED', 'SUPERSEDED', 'EXPIRED') and effective_from <= $5
          order by effective_from desc, id desc limit 1) v on true
      where a.tenant_id = $1 and a.branch_id = any($2) and a.vehicle_category_id = $3 and a.bundle_type = $4`,
    [tenant, ancestry, query.vehicleCategoryId, 'ON_DEMAND_LEGACY', query.at],
  );
  const assignment = ancestry
    .map((branchId) => rows.find((row) => row.branch_id === branchId))
    .find((row) => row !== undefined);
  if (!assignment)
    throw new DomainError(
      'ODP104',
      `no on-demand pricing assigned to category ${query.vehicleCategoryId} at branch ${query.branchId}`,
    );
  const instant = (value: string | null) =>
    value === null ? null : em.getPlatform().parseDate(value).getTime();
  const found =
    assignment.id === null
      ? undefined
      : applicableVersion(
          [
            {
              id: assignment.id,
              status: assignment.status!,
              effectiveFrom: instant(assignment.effective_from),
              validUntil: instant(assignment.valid_until),
            },
          ],
          query.at.getTime(),
        );
  if (!found)
    throw new DomainError(
      'ODP106',
      `no published version of pricing bundle ${assignment.bundle_id} applies at ${query.at.toISOString()}`,
    );
  return { id: found.id };
}

/** A rental's price with the phases it came from (the billing overview shows both) and its benefits. */
export interface RentalPricing {
  result: PriceResult;
  phases: BilledPhase[];
  /** The vouchers the price took (domain/pricing-benefits.ts), each with what it takes from its voucher. */
  applied: AppliedBenefit[];
}

/** Whose vouchers a rental's price may take: its customer's and its business account's. */
const owners = (rental: RentalPricingSubject) => ({
  customerId: rental.customer.id,
  userGroupId: rental.userGroup?.id ?? null,
});

/**
 * Whose vouchers apply to a rental, where and when (its customer and business account, branch, category).
 * `vehicleCategoryId`: the vehicle's category as the caller read it (else read here).
 */
export async function rentalBenefitContext(
  em: EntityManager,
  rental: RentalPricingSubject,
  atMs: number,
  vehicleCategoryId?: number,
): Promise<RentalBenefitContext> {
  return {
    customerId: rental.customer.id,
    userGroupId: rental.userGroup?.id ?? null,
    branchId: rental.branch.id,
    vehicleCategoryId:
      vehicleCategoryId ?? (await em.findOne(Vehicle, rental.vehicle.id))?.category.id ?? null,
    at: new Date(atMs),
  };
}

/**
 * Prices a rental at `atMs` with its pinned version: the running estimate while it is open (the open phase
 * up to `atMs`, the distance so far from the vehicle's odometer), the final price once it ended.
 * `benefits`: the vouchers to apply; absent, the customer's applicable vouchers as an estimate (read,
 * never taken). ODP104 when the rental pinned no version.
 */
export async function priceRentalWithPhases(
  em: EntityManager,
  rental: RentalPricingSubject,
  atMs: number,
  benefits?: readonly PricingBenefit[],
  /** The rental's geofence surcharges (given with `benefits`; absent, read with the estimate's vouchers). */
  surcharges?: readonly PricingSurcharge[],
  /** Its pinned version and tax context, when the caller read them (else read here). */
  pinned?: Pick<ResolvedPricing, 'priced' | 'tax'>,
): Promise<RentalPricing> {
  if (!rental.pricingBundleVersion)
    throw new DomainError('ODP104', `rental ${rental.id} has no pinned pricing version`);
  const pricing =
    pinned ??
    (await pricingForVersion(em, {
      branchId: rental.branch.id,
      pricingBundleVersionId: rental.pricingBundleVersion.id,
    }));
  const ended = terminalRentalStates.includes(rental.state);
  let endOdometerKm = rental.endOdometerKm;
  if (!ended && rental.startOdometerKm != null && endOdometerKm == null) {
    const vehicle = await em.findOne(Vehicle, rental.vehicle.id);
    endOdometerKm = vehicle?.odometerKm ?? null;
  }
  // buy-reservation moves the expiry by the bought minutes, so the free part ends that much earlier.
  const freeReservationExpiresAtMs = rental.reservationExpiresAt
    ? rental.reservationExpiresAt.getTime() - rental.paidReservationMinutes * 60_000
    : null;
  const { spans, billed } = rentalPhaseSpans(
    {
      phases: rental.phases,
      paidReservationMinutes: rental.paidReservationMinutes,
      freeReservationExpiresAtMs,
    },
    ended && rental.endedAt ? rental.endedAt.getTime() : atMs,
  );
  const distance = rentalDistance(rental.startOdometerKm, endOdometerKm, pricing.priced.distanceUnit);
  let given = benefits ?? [];
  let charged = surcharges ?? [];
  if (!benefits && (await mayTakeVouchers(em, owners(rental)))) {
    // An estimate: the customer's applicable vouchers and those granted for this rental by position
    // (its start's, ACTIVE until the final price), read as they are.
    const context = await rentalBenefitContext(em, rental, atMs);
    const own = await rentalGeofenceVouchers(em, {
      ...context,
      vehicleCategoryId: context.vehicleCategoryId ?? null,
      rentalId: rental.id,
    });
    given = await estimateBenefits(em, context, own.promotionIds);
    charged = own.surcharges;
  }
  const { result, applied } = priceWithBenefits(
    pricing.priced,
    pricing.tax,
    onDemandRentalLines(pricing.priced, { phases: spans, distance }),
    given,
    charged,
  );
  return { result, phases: billed, applied };
}

/** The rental's price at `atMs` with exactly its pinned version (see `priceRentalWithPhases`). */
export async function priceRental(
  em: EntityManager,
  rental: RentalPricingSubject,
  atMs: number,
): Promise<PriceResult> {
  return (await priceRentalWithPhases(em, rental, atMs)).result;
}

/** What `finaliseRentalBilling` wrote: the final price and the rental's invoice (null for a zero total). */
export interface RentalBilling {
  price: PriceResult;
  invoiceId: number | null;
}

/** What an ending rental's billing reads of the rental, its vehicle and its pinned version, locked. */
interface RentalBillingRow {
  state: RentalState;
  branch_id: number;
  vehicle_id: number;
  category_id: number;
  customer_id: number;
  user_group_id: number | null;
  cost_center_id: number | null;
  pricing_bundle_version_id: number | null;
  phases: RentalPhaseRecord[];
  reservation_expires_at: string | null;
  paid_reservation_minutes: number;
  started_at: string | null;
  ended_at: string | null;
  start_position: { lat: number; lng: number } | null;
  end_position: { lat: number; lng: number } | null;
  start_odometer_km: number | null;
  end_odometer_km: number | null;
  priced: boolean;
  invoice_id: number | null;
  /** The booking the rental was picked up from, if any (its pricing applies then). */
  booking_id: number | null;
  /** The pinned version with its bundle; null when the rental pins none or the version is gone. */
  pinned: {
    status: PricingBundleVersion['status'];
    version: Pick<PricingBundleVersion, 'id' | 'version' | 'rules'>;
    bundle: Pick<PricingBundle, 'id' | 'name' | 'type' | 'currency' | 'distanceUnit'>;
  } | null;
}

const lockRentalBillingRow = `
  select r.state, r.branch_id, r.vehicle_id, veh.category_id, r.customer_id, r.user_group_id, r.cost_center_id,
         r.pricing_bundle_version_id, r.phases, r.reservation_expires_at, r.paid_reservation_minutes,
         r.started_at, r.ended_at, r.start_position, r.end_position, r.start_odometer_km, r.end_odometer_km,
         r.price_v4 is not null as priced, r.invoice_id,
         (select bk.id from booking bk where bk.tenant_id = r.tenant_id and bk.rental_id = r.id) as booking_id,
         case when v.id is not null then jsonb_build_object(
           'status', v.status,
           'version', jsonb_build_object('id', v.id, 'version', v.version, 'rules', v.rules),
           'bundle', jsonb_build_object('id', b.id, 'name', b.name, 'type', b.type, 'currency', b.currency,
                                        'distanceUnit', b.distance_unit)) end as pinned
    from rental r
    join vehicle veh on veh.tenant_id = r.tenant_id and veh.id = r.vehicle_id
    left join pricing_bundle_version v on v.tenant_id = r.tenant_id and v.id = r.pricing_bundle_version_id
    left join pricing_bundle b on b.tenant_id = v.tenant_id and b.id = v.bundle_id
   where r.tenant_id = $1 and r.id = $2
     for update of r`;

/** The rental's JSON columns its billing writes. */
const priceColumns: ReadonlySet<string> = new Set(['price', 'price_v3', 'price_v4']);

/**
 * Called at END, CANCEL and EXPIRE inside the activity's transaction, after the transition's row was
 * written: locks the rental's row and reads it with its pinned version in one statement, writes the final
 * price, priceV3 and priceV4 on it and creates its invoice, state OPEN, with one line per priceV4 line,
 * for the business unit behind the rental's branch (BUSINESS when the rental has a business account,
 * else REGULAR). A zero total creates no invoice. Every ended rental runs this, so the rental is read and
 * written as rows, never loaded as an entity (a booked rental is: its booking prices it). Idempotent: a
 * retry finds the invoice the first attempt linked (unique on the rental and on the key) and creates no
 * second one.
 */
export async function finaliseRentalBilling(
  em: EntityManager,
  tenant: string,
  rentalId: number,
  options: { at: Date; idempotencyKey: string },
): Promise<RentalBilling> {
  if (!em.isInTransaction())
    throw new Error("finaliseRentalBilling runs inside the caller's transaction (it locks the rental)");
  const [row] = await preparedRows<RentalBillingRow>(em, lockRentalBillingRow, [tenant, rentalId]);
  if (!row) throw new DomainError('R404');
  // A booking's rental is priced by the booking's pricing (its window, late return, additions).
  if (row.booking_id !== null) {
    const billed = await finaliseBookingRentalBilling(
      em,
      await em.findOneOrFail(Rental, rentalId),
      await em.findOneOrFail(Booking, row.booking_id),
      options,
    );
    return { price: billed.price, invoiceId: billed.invoice?.id ?? null };
  }
  const date = (value: string | null) => (value === null ? null : em.getPlatform().parseDate(value));
  const rental: RentalPricingSubject = {
    id: rentalId,
    tenant: { id: tenant },
    state: row.state,
    branch: { id: row.branch_id },
    vehicle: { id: row.vehicle_id },
    customer: { id: row.customer_id },
    userGroup: row.user_group_id === null ? null : { id: row.user_group_id },
    pricingBundleVersion:
      row.pricing_bundle_version_id === null ? null : { id: row.pricing_bundle_version_id },
    phases: row.phases,
    reservationExpiresAt: date(row.reservation_expires_at),
    paidReservationMinutes: row.paid_reservation_minutes,
    startedAt: date(row.started_at),
    endedAt: date(row.ended_at),
    startPosition: row.start_position,
    endPosition: row.end_position,
    startOdometerKm: row.start_odometer_km,
    endOdometerKm: row.end_odometer_km,
  };
  if (row.pricing_bundle_version_id !== null && (row.pinned?.status ?? 'DRAFT') === 'DRAFT')
    throw new DomainError(
      'ODP101',
      `pricing bundle version ${row.pricing_bundle_version_id} was never published`,
    );
  // The customer's vouchers, taken once per rental (the key), whichever attempt or step prices it.
  const key = rentalBenefitKey(rentalId);
  const atMs = (rental.endedAt ?? options.at).getTime();
  const frozen = row.priced;
  const vehicleCategoryId = row.category_id;
  // Geofence promotions and surcharges at its start and end positions, granted for it once.
  const geofence = await finalRentalGeofence(em, rental, frozen, options.at, {
    branchId: rental.branch.id,
    vehicleCategoryId,
  });
  const benefits =
    geofence.promotionIds.length > 0 || (await mayTakeVouchers(em, owners(rental), key))
      ? await billingBenefits(em, await rentalBenefitContext(em, rental, atMs, vehicleCategoryId), key, {
          frozen,
          ownIds: geofence.promotionIds,
        })
      : [];
  const unit = await pricingUnitOfBranch(em, tenant, rental.branch.id);
  const pinned = row.pinned
    ? { priced: pricedVersion(row.pinned.bundle, row.pinned.version), tax: unit.tax }
    : undefined;
  const priced = await priceRentalWithPhases(
    em,
    rental,
    options.at.getTime(),
    benefits,
    geofence.surcharges,
    pinned,
  );
  await consumeBenefits(em, priced.applied, key, rentalId);
  await closeRentalGeofenceVouchers(em, geofence.vouchers);
  const price = priced.result;
  const priceChanges = { price: price.price, price_v3: price.priceV3, price_v4: price.priceV4 };
  // Only this function issues a rental's invoice, and it links it on the rental's row: a rental read
  // under the lock with none linked has none issued.
  if (row.invoice_id !== null || new Decimal(price.priceV4.totals.gross).isZero()) {
    await updateTenantRow(em, 'rental', tenant, rentalId, priceChanges, priceColumns);
    return { price, invoiceId: row.invoice_id };
  }
  const invoice = await issueInvoiceRows(em, price, {
    tenant,
    branchId: rental.branch.id,
    unit,
    customerId: row.customer_id,
    rentalId,
    userGroupId: row.user_group_id,
    costCenterId: row.cost_center_id,
    title: `Rental ${rentalId}`,
    at: options.at,
    idempotencyKey: options.idempotencyKey,
    // The price and the invoice's id land on the rental's row in the invoice's statement.
    linksRental: true,
  });
  return { price, invoiceId: invoice.id };
}

/** Whether the customer or the rental's business account skips the pre-authorisation (and so the deposit). */
async function skipsPreAuthorization(em: EntityManager, rental: Rental): Promise<boolean> {
  const customer = await em.findOneOrFail(Customer, rental.customer.id);
  if (customer.skipPreAuth) return true;
  if (!rental.userGroup) return false;
  const group = await em.findOne(UserGroup, rental.userGroup.id);
  return group?.skipPreAuth === true;
}

/**
 * Called at START inside the activity's transaction: holds the deposit the branch's `rental.deposit`
 * setting asks for the vehicle's category (inherited from ancestors and the tenant default), unless the
 * customer or the rental's group skips the pre-authorisation. Returns null when none is held.
 * Idempotent: a retry returns the deposit the first attempt created. No payment provider is connected,
 * so the record says NOT_REQUESTED: nothing was reserved on a card yet.
 */
export async function holdRentalDeposit(
  em: EntityManager,
  rental: Rental,
  options: {
    at: Date;
    idempotencyKey: string;
    /** The caller read `rental` after taking its row lock (so `rental.deposit` is current). */
    locked?: boolean;
  },
): Promise<Deposit | null> {
  // Only this function holds a rental's deposit, and it sets `rental.deposit` with it: a rental read under
  // the caller's lock with none set holds none.
  const existing =
    options.locked && !rental.deposit ? null : await em.findOne(Deposit, { rental: rental.id });
  if (existing) return existing;
  if (await skipsPreAuthorization(em, rental)) return null;
  const setting = await effectiveSetting(em, rental.tenant.id, RENTAL_DEPOSIT_SETTING_KEY, rental.branch.id);
  if (!setting) return null;
  const vehicle = await em.findOneOrFail(Vehicle, rental.vehicle.id);
  const unit = await businessUnitOfBranch(em, rental.branch.id);
  const asked = depositAmountFor(setting.value, vehicle.category.id, unit.currency);
  // Held as every response shows money, in the currency's minor digits; less than one minor unit is none.
  const amount = asked === null ? null : formatAmount(asked, unit.currency);
  if (amount === null || new Decimal(amount).isZero()) return null;
  const deposit = em.create(Deposit, {
    rental,
    customer: rental.customer,
    businessUnit: unit,
    userGroup: rental.userGroup ?? null,
    costCenter: rental.costCenter ?? null,
    amount,
    currency: unit.currency,
    heldAt: options.at,
    idempotencyKey: options.idempotencyKey,
  });
  rental.deposit = deposit;
  await em.flush();
  return deposit;
}

/**
 * Releases the rental's ACTIVE deposit (R250 when it has none, or it was released already) and records
 * RENTAL_DEPOSIT_RELEASE, in one transaction; a concurrent second release finds it RELEASED.
 */
export async function releaseRentalDeposit(
  em: EntityManager,
  rental: Rental,
  options: { by: string; at: Date },
): Promise<Deposit> {
  return em.transactional(async (tx) => {
    const deposit = await tx.findOne(
      Deposit,
      { rental: rental.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!deposit || deposit.state !== 'ACTIVE')
      throw new DomainError(
        'R250',
        deposit
          ? `the deposit of rental ${rental.id} was released already`
          : `rental ${rental.id} holds no deposit`,
      );
    deposit.state = 'RELEASED';
    deposit.releasedAt = options.at;
    deposit.releasedBy = options.by;
    recordEvent(tx, {
      type: 'RENTAL_DEPOSIT_RELEASE',
      createdAt: options.at,
      rentalId: rental.id,
      branchId: rental.branch.id,
      vehicleId: rental.vehicle.id,
      customerId: rental.customer.id,
      adminSubject: options.by,
      payload: {
        depositId: deposit.id,
        amount: formatAmount(deposit.amount, deposit.currency),
        currency: deposit.currency,
      },
    });
    await tx.flush();
    return deposit;
  });
}
