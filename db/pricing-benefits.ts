// The vouchers a rental's or booking's price takes, and what the price takes from them (docs/benefits.md,
// "Benefits in prices"). The pure rules are domain/pricing-benefits.ts; this reads the customer's (and
// the business account's) ACTIVE vouchers for them and writes the consumption, once per rental:
// - an estimate (an open rental's billing overview) reads the vouchers without locking or moving states;
// - the final price, inside the ending step's transaction, locks the applicable vouchers (id order, so
//   concurrent rentals sharing a voucher queue instead of both spending it), prices, then takes from each
//   voucher under the rental's key (`voucher_consumption`, unique per voucher and key): a retried or
//   repeated pricing of the same rental finds what it took and gives exactly that again.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { tenantIdOf } from './entities/TenantScoped.js';
import { Voucher } from './entities/Voucher.js';
import { VoucherConsumption } from './entities/VoucherConsumption.js';
import { Voucherable } from './entities/Voucherable.js';
import { applicableVouchers, consumeVoucher, type RentalBenefitContext } from './vouchers.js';
import type { AppliedBenefit, PricingBenefit } from '../domain/pricing-benefits.js';

/** The consumption key of a rental's benefits: one per rental, whichever step or attempt prices it. */
export const rentalBenefitKey = (rentalId: number) => `rental:${rentalId}:benefits`;

/**
 * Whether a price may take vouchers at all: the customer or the business account holds a PENDING or
 * ACTIVE one, or `key` took from some already. One indexed statement, so the many rentals of customers
 * without vouchers skip the rest (state refresh, lookups, locks).
 */
export async function mayTakeVouchers(
  em: EntityManager,
  owners: { customerId: number; userGroupId?: number | null },
  key?: string,
): Promise<boolean> {
  const tenant = tenantIdOf(em);
  const [row] = await em.execute<[{ found: boolean }]>(
    `select exists (select 1 from voucher where tenant_id = ? and status in ('PENDING', 'ACTIVE')
                      and (customer_id = ? or user_group_id = ?))
         or exists (select 1 from voucher_consumption where tenant_id = ? and idempotency_key = ?) as found`,
    [tenant, owners.customerId, owners.userGroupId ?? null, tenant, key ?? null],
  );
  return row.found;
}

/** The engine's view of vouchers (their template names for the lines' descriptions). */
async function asPricingBenefits(em: EntityManager, vouchers: readonly Voucher[]): Promise<PricingBenefit[]> {
  if (vouchers.length === 0) return [];
  const names = new Map(
    (
      await em.find(
        Voucherable,
        { id: { $in: [...new Set(vouchers.map((voucher) => voucher.voucherable.id))] } },
        { fields: ['id', 'name'] },
      )
    ).map((template) => [template.id, template.name]),
  );
  return vouchers.map((voucher) => ({
    voucherId: voucher.id,
    benefitType: voucher.benefitType,
    name: names.get(voucher.voucherable.id) ?? 'Voucher',
    discount: voucher.discount ?? null,
    rentalRebate: voucher.rentalRebate ?? null,
    remainingFreeMinutes: voucher.remainingFreeMinutes ?? null,
    remainingFreeUnlocks: voucher.remainingFreeUnlocks ?? null,
    remainingNumberOfRentals: voucher.remainingNumberOfRentals ?? null,
    remainingValueGross: voucher.remainingValueGross ?? null,
    applicablePriceType: voucher.applicablePriceType ?? null,
    costSources: voucher.costSources ?? null,
    validUntilMs: voucher.validUntil?.getTime() ?? null,
  }));
}

/**
 * The vouchers an estimate takes (an open rental priced now): ACTIVE and applicable at `context.at`,
 * read as they are (no state moved, nothing locked or taken).
 */
export async function estimateBenefits(
  em: EntityManager,
  context: RentalBenefitContext,
  /** Vouchers granted for this very rental (its geofence promotions), taken when ACTIVE. */
  ownIds: readonly number[] = [],
): Promise<PricingBenefit[]> {
  const applicable = await applicableVouchers(em, context, { refresh: false });
  const own = ownIds.length ? await em.find(Voucher, { id: { $in: [...ownIds] }, status: 'ACTIVE' }) : [];
  return asPricingBenefits(em, [...applicable, ...own]);
}

/**
 * The vouchers a price shown before the end takes (a booking's price at creation, update or extension,
 * the app's calculators for a signed-in customer): the owners' ACTIVE vouchers applicable at
 * `context.at`, read as they stand (no state moved, nothing locked or taken). One indexed statement
 * first, so customers without vouchers read nothing more.
 */
export async function estimateBenefitsOf(
  em: EntityManager,
  context: RentalBenefitContext,
): Promise<PricingBenefit[]> {
  return (await mayTakeVouchers(em, context)) ? estimateBenefits(em, context) : [];
}

/**
 * The vouchers a final price takes, inside the caller's transaction: those this key took from already,
 * each limited to exactly what it gave then, and (unless `frozen`: the price was written before, so no
 * voucher granted since may join) the ones applicable at `context.at`, states brought up to that instant
 * and rows locked in id order, so a concurrent rental sharing one waits and then sees what is left.
 */
export async function billingBenefits(
  em: EntityManager,
  context: RentalBenefitContext,
  key: string,
  /**
   * `frozen`: the price was written before; `ownIds`: vouchers granted for this very rental (its geofence
   * promotions, db/geofence-pricing.ts), which the general lookup never returns.
   */
  options: { frozen?: boolean; ownIds?: readonly number[] } = {},
): Promise<PricingBenefit[]> {
  const earlier = await em.find(VoucherConsumption, { idempotencyKey: key }, { orderBy: { id: 'asc' } });
  const taken = new Map(earlier.map((row) => [row.voucher.id, row]));
  const candidates = options.frozen ? [] : await applicableVouchers(em, context);
  const ids = [
    ...new Set([
      ...taken.keys(),
      ...candidates.map((voucher) => voucher.id),
      ...(options.frozen ? [] : (options.ownIds ?? [])),
    ]),
  ].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  // One row at a time, in id order, as `consumeVoucher` locks them: read again once locked, so a rental
  // that waited sees what the one before it left.
  const usable: Voucher[] = [];
  for (const id of ids) {
    const voucher = await em.findOne(Voucher, id, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (voucher && (taken.has(id) || voucher.status === 'ACTIVE')) usable.push(voucher);
  }
  const benefits = await asPricingBenefits(em, usable);
  return benefits.map((benefit) => {
    const row = taken.get(benefit.voucherId);
    if (!row) return benefit;
    // What this key took is what the voucher has for it (a counted figure stays counted).
    return {
      ...benefit,
      remainingFreeMinutes: benefit.remainingFreeMinutes == null ? null : row.minutes,
      remainingFreeUnlocks: benefit.remainingFreeUnlocks == null ? null : row.unlocks,
      remainingNumberOfRentals: benefit.remainingNumberOfRentals == null ? null : row.rentals,
      remainingValueGross: benefit.remainingValueGross == null ? null : row.value,
    };
  });
}

/**
 * Takes from each applied voucher what the price took (`consumeVoucher`: once per voucher and key, never
 * below zero), recording the rental on the consumption. Call it in the transaction that writes the price.
 */
export async function consumeBenefits(
  em: EntityManager,
  applied: readonly AppliedBenefit[],
  key: string,
  rentalId: number | null,
): Promise<void> {
  for (const benefit of applied) await consumeVoucher(em, benefit.voucherId, benefit.take, key, rentalId);
}
