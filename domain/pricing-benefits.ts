// Benefits applied to a price (pure: no I/O, no Node built-ins; importable from workflows). The engine's
// lines (domain/pricing-on-demand.ts, domain/pricing-booking.ts) are rounded first; then each ACTIVE
// voucher the caller hands in takes its part, in one fixed order, as a negative line of its own (group
// BENEFIT), and the result is built from all lines like any price (domain/price-lines.ts `buildResult`).
//
// The rules, in order (docs/benefits.md, "Benefits in prices"):
// - Order: targeted before broader (a cost source with a code, a cost group, a price type, none); at the
//   same breadth free unlocks, then free minutes, then discounts, then rebates; then the voucher that
//   expires first; then the lower voucher id.
// - Targets: a price type names lines (TIME_PRICE: time and the adaptive rate, DRIVING_PRICE/PARKING_PRICE:
//   time lines of that phase, DISTANCE_PRICE, RESERVATION_PRICE, UNLOCK_FEE); a cost source names a group
//   (RENTAL: every line of the rental itself, its code the line's code; ADDITION: additions, its code the
//   addition's code; SURCHARGE: the geofence surcharges, its code the line's); a voucher with neither
//   targets every line but penalties and surcharges. Penalties (late return, cancellation and no-show
//   fees) are never reduced; surcharges only by a voucher naming the SURCHARGE cost group.
// - Each benefit reduces what earlier benefits left of its lines, never more than the price left as a
//   whole: a benefit never makes a price negative and never raises it.
// - Rounding: every reduction is rounded half-up once to the business unit's scale (never finer than the
//   currency's minor digits), on lines already rounded, so the lines still add up to the totals.
import { Decimal } from 'decimal.js';
import { minorDigitsOf } from './money.js';
import { Money, buildResult, type Amount, type RawLine } from './price-lines.js';
import type { ApplicablePriceType, BenefitType, CostSource } from './benefits.js';
import type { PricedVersion, PriceResult, TaxContext } from './pricing.js';

/** The benefit kinds a rental or booking price takes (credit, package discounts and entitlements do not). */
export const priceBenefitTypes = ['FreeUnlocks', 'FreeMinutes', 'Discount', 'RentalRebate'] as const;
export type PriceBenefitType = (typeof priceBenefitTypes)[number];

/** One ACTIVE voucher as the engine applies it: what it gives, what it targets, what is left of it. */
export interface PricingBenefit {
  voucherId: number;
  benefitType: BenefitType;
  /** The template's name, shown in the line's description. */
  name: string;
  /** Discount: the fraction off (0 < x ≤ 1). */
  discount?: string | null;
  /** RentalRebate: the gross amount off one rental. */
  rentalRebate?: string | null;
  /** What is left; null: not counted. A counted figure at 0 makes the voucher give nothing. */
  remainingFreeMinutes?: number | null;
  remainingFreeUnlocks?: number | null;
  remainingNumberOfRentals?: number | null;
  /** Money left on the voucher (gross); null: not limited by value. */
  remainingValueGross?: string | null;
  applicablePriceType?: ApplicablePriceType | null;
  costSources?: readonly CostSource[] | null;
  /** Epoch ms; null: no end (applied after the ones that expire). */
  validUntilMs?: number | null;
}

/** What one voucher gave a price and what it takes from the voucher (`consumeVoucher`'s take). */
export interface AppliedBenefit {
  voucherId: number;
  benefitType: PriceBenefitType;
  /** The benefit line's code in priceV3/priceV4 and on the invoice. */
  code: string;
  /** The reduction, positive, in the version's basis (gross when prices include tax, else net). */
  amount: string;
  take: { value?: string; minutes?: number; unlocks?: number; rentals?: number };
}

/** A price with its benefit lines, and what each applied voucher takes. */
export interface BenefitPricing {
  result: PriceResult;
  applied: AppliedBenefit[];
}

/** How targeted a benefit is: cost sources with a code first, then a group, then a price type, then none. */
export function benefitBreadth(
  benefit: Pick<PricingBenefit, 'benefitType' | 'costSources' | 'applicablePriceType'>,
): number {
  if (benefit.costSources?.some((source) => source.code)) return 0;
  if (benefit.costSources?.length) return 1;
  // Free unlocks and free minutes name their price type by their nature.
  if (
    benefit.applicablePriceType ||
    benefit.benefitType === 'FreeUnlocks' ||
    benefit.benefitType === 'FreeMinutes'
  )
    return 2;
  return 3;
}

const kindRank: Record<PriceBenefitType, number> = {
  FreeUnlocks: 0,
  FreeMinutes: 1,
  Discount: 2,
  RentalRebate: 3,
};

const isPriceBenefit = (type: BenefitType): type is PriceBenefitType =>
  (priceBenefitTypes as readonly string[]).includes(type);

/** The order benefits apply in (see the header). */
export function benefitOrder(benefits: readonly PricingBenefit[]): PricingBenefit[] {
  return benefits
    .filter((benefit) => isPriceBenefit(benefit.benefitType))
    .sort(
      (a, b) =>
        benefitBreadth(a) - benefitBreadth(b) ||
        kindRank[a.benefitType as PriceBenefitType] - kindRank[b.benefitType as PriceBenefitType] ||
        (a.validUntilMs ?? Infinity) - (b.validUntilMs ?? Infinity) ||
        a.voucherId - b.voucherId,
    );
}

/** The cost source a line belongs to; null for penalties, which no benefit reduces. */
function costSourceOf(line: RawLine): { group: CostSource['group']; code: string } | null {
  if (line.group === 'PENALTY' || line.group === 'BENEFIT') return null;
  if (line.group === 'ADDITION') return { group: 'ADDITION', code: line.code.replace(/^ADDITION_/, '') };
  if (line.group === 'SURCHARGE') return { group: 'SURCHARGE', code: line.code };
  return { group: 'RENTAL', code: line.code };
}

/** Whether a line is of a price type. */
function ofPriceType(line: RawLine, priceType: ApplicablePriceType): boolean {
  switch (priceType) {
    case 'TIME_PRICE':
      return line.group === 'TIME' || line.code === 'ADAPTIVE_RATE';
    case 'DRIVING_PRICE':
      return line.group === 'TIME' && line.phase === 'DRIVING';
    case 'PARKING_PRICE':
      return line.group === 'TIME' && line.phase === 'PARKING';
    case 'DISTANCE_PRICE':
      return line.group === 'DISTANCE';
    case 'RESERVATION_PRICE':
      return line.group === 'RESERVATION';
    case 'UNLOCK_FEE':
      return line.group === 'UNLOCK';
  }
}

/** Whether a benefit targets a line (its price type, its cost sources; free unlocks only the unlock fee). */
export function benefitTargets(benefit: PricingBenefit, line: RawLine): boolean {
  const source = costSourceOf(line);
  if (!source) return false;
  const priceType =
    benefit.benefitType === 'FreeUnlocks'
      ? 'UNLOCK_FEE'
      : benefit.benefitType === 'FreeMinutes'
        ? (benefit.applicablePriceType ?? 'TIME_PRICE')
        : benefit.applicablePriceType;
  if (priceType && !ofPriceType(line, priceType)) return false;
  if (benefit.benefitType === 'FreeMinutes' && line.group !== 'TIME') return false;
  // A surcharge is reduced only by a benefit naming the SURCHARGE cost group.
  if (source.group === 'SURCHARGE' && !benefit.costSources?.some((wanted) => wanted.group === 'SURCHARGE'))
    return false;
  if (benefit.costSources?.length)
    return benefit.costSources.some(
      (wanted) =>
        wanted.group === source.group &&
        (!wanted.code || wanted.code.toUpperCase() === source.code.toUpperCase()),
    );
  return true;
}

/** Minutes a time line bills (its quantity in minutes or hours). */
function lineMinutes(line: RawLine): Amount {
  if (line.unit === 'MINUTE') return line.quantity;
  if (line.unit === 'HOUR') return line.quantity.times(60);
  return new Money(0);
}

const codePrefix: Record<PriceBenefitType, string> = {
  FreeUnlocks: 'FREE_UNLOCK',
  FreeMinutes: 'FREE_MINUTES',
  Discount: 'DISCOUNT',
  RentalRebate: 'REBATE',
};

/**
 * Applies benefits to the engine's lines: answers the rounded lines followed by one negative BENEFIT line
 * per voucher that gave something, and what each takes from its voucher. Vouchers that give nothing (no
 * line they target, nothing left) take nothing and add no line.
 */
export function applyBenefits(
  version: PricedVersion,
  tax: TaxContext,
  engineLines: readonly RawLine[],
  benefits: readonly PricingBenefit[],
): { lines: RawLine[]; applied: AppliedBenefit[] } {
  const scale = Math.min(tax.scale, minorDigitsOf(tax.currency));
  const round = (value: Amount) => value.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  const lines: RawLine[] = engineLines.map((line) => ({ ...line, amount: round(line.amount) }));
  /** What each line still costs after the benefits so far. */
  const left = lines.map((line) => line.amount);
  const totalLeft = () =>
    Money.max(
      0,
      left.reduce((sum, value) => sum.plus(value), new Money(0)),
    );
  const taxFactor = new Money(tax.taxPercentage).div(100).plus(1);
  const benefitLines: RawLine[] = [];
  const applied: AppliedBenefit[] = [];

  for (const benefit of benefitOrder(benefits)) {
    const type = benefit.benefitType as PriceBenefitType;
    if (benefit.remainingNumberOfRentals != null && benefit.remainingNumberOfRentals <= 0) continue;
    const targets = lines.map((_, index) => index).filter((index) => benefitTargets(benefit, lines[index]!));
    // What the benefit may take at most: its lines' rest (a negative adjustment among them counts), and
    // never more than the whole price's rest.
    const base = Money.min(
      totalLeft(),
      Money.max(
        0,
        targets.reduce((sum, index) => sum.plus(left[index]!), new Money(0)),
      ),
    );
    if (base.lte(0)) continue;
    let reduction = new Money(0);
    let minutes = 0;
    let unlocks = 0;
    let spreadOrder: number[] = targets;
    if (type === 'FreeUnlocks') {
      if (benefit.remainingFreeUnlocks != null && benefit.remainingFreeUnlocks <= 0) continue;
      reduction = base;
      unlocks = 1;
    } else if (type === 'FreeMinutes') {
      let free = new Money(benefit.remainingFreeMinutes ?? 0);
      // The dearest minutes first (by what is left of each line per minute), ties in line order.
      const byRate = targets
        .filter((index) => left[index]!.gt(0) && lineMinutes(lines[index]!).gt(0))
        .map((index) => ({ index, perMinute: left[index]!.div(lineMinutes(lines[index]!)) }))
        .sort((a, b) => b.perMinute.comparedTo(a.perMinute) || a.index - b.index);
      spreadOrder = byRate.map((entry) => entry.index);
      let covered = new Money(0);
      for (const { index, perMinute } of byRate) {
        if (free.lte(0)) break;
        const take = Money.min(free, lineMinutes(lines[index]!));
        free = free.minus(take);
        covered = covered.plus(take);
        reduction = reduction.plus(perMinute.times(take));
      }
      reduction = Money.min(round(reduction), base);
      minutes = Math.min(benefit.remainingFreeMinutes ?? 0, covered.ceil().toNumber());
    } else if (type === 'Discount') {
      reduction = round(base.times(new Money(benefit.discount ?? 0)));
    } else {
      const rebate = new Money(benefit.rentalRebate ?? 0);
      reduction = round(version.rules.pricesIncludeTax ? rebate : rebate.div(taxFactor));
    }
    if (benefit.remainingValueGross != null) {
      const value = new Money(benefit.remainingValueGross);
      const cap = version.rules.pricesIncludeTax ? value : value.div(taxFactor);
      reduction = Money.min(reduction, cap.toDecimalPlaces(scale, Decimal.ROUND_DOWN));
    }
    reduction = Money.max(0, Money.min(reduction, base));
    if (reduction.lte(0)) continue;
    // Spread the reduction over the targeted lines (free minutes: the dearest first), never below zero.
    let rest = reduction;
    for (const index of spreadOrder) {
      if (rest.lte(0)) break;
      const part = Money.min(rest, Money.max(0, left[index]!));
      left[index] = left[index]!.minus(part);
      rest = rest.minus(part);
    }
    const code = `${codePrefix[type]}_V${benefit.voucherId}`;
    const label = {
      FreeUnlocks: 'Free unlock',
      FreeMinutes: `${minutes} free minutes`,
      Discount: `${new Money(benefit.discount ?? 0).times(100).toDecimalPlaces(2).toString()} % off`,
      RentalRebate: 'Rental rebate',
    }[type];
    const amount = reduction.negated();
    benefitLines.push({
      code,
      group: 'BENEFIT',
      phase: null,
      description: `${label} (${benefit.name})`,
      quantity: type === 'FreeMinutes' ? new Money(minutes) : new Money(1),
      unit: type === 'FreeMinutes' ? 'MINUTE' : 'PIECE',
      unitPrice: type === 'FreeMinutes' && minutes > 0 ? amount.div(minutes).toDecimalPlaces(6) : amount,
      amount,
    });
    // The value a voucher gives up, gross; never more than it has (a net price's tax may round up).
    const grossValue = Money.min(
      version.rules.pricesIncludeTax ? reduction : round(reduction.times(taxFactor)),
      benefit.remainingValueGross ?? Infinity,
    );
    applied.push({
      voucherId: benefit.voucherId,
      benefitType: type,
      code,
      amount: reduction.toFixed(scale),
      take: {
        ...(benefit.remainingValueGross != null
          ? { value: grossValue.toFixed(minorDigitsOf(tax.currency)) }
          : {}),
        ...(minutes > 0 ? { minutes } : {}),
        ...(unlocks > 0 ? { unlocks } : {}),
        ...(benefit.remainingNumberOfRentals != null ? { rentals: 1 } : {}),
      },
    });
  }
  return { lines: [...lines, ...benefitLines], applied };
}

/**
 * A geofence surcharge a rental carries (a GeoFenceSurcharge voucher granted for it): a fixed `amount`
 * (gross; its net when the version's prices exclude tax) or a `fraction` of the engine's lines it targets
 * (its price type and RENTAL/ADDITION cost sources; neither: every line but penalties).
 */
export interface PricingSurcharge {
  voucherId: number;
  name: string;
  amount?: string | null;
  fraction?: string | null;
  applicablePriceType?: ApplicablePriceType | null;
  costSources?: readonly CostSource[] | null;
}

/**
 * The SURCHARGE lines of a price: one positive line per surcharge that costs something, computed on the
 * engine's lines (rounded as `applyBenefits` rounds them), code `SURCHARGE_V{voucherId}`. Benefits then
 * apply to the engine's lines and these (a surcharge only to benefits naming the SURCHARGE cost group).
 */
export function surchargeLines(
  version: PricedVersion,
  tax: TaxContext,
  engineLines: readonly RawLine[],
  surcharges: readonly PricingSurcharge[],
): RawLine[] {
  const scale = Math.min(tax.scale, minorDigitsOf(tax.currency));
  const round = (value: Amount) => value.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  const taxFactor = new Money(tax.taxPercentage).div(100).plus(1);
  const lines: RawLine[] = [];
  for (const surcharge of [...surcharges].sort((a, b) => a.voucherId - b.voucherId)) {
    let amount = new Money(0);
    let label = 'Surcharge';
    if (surcharge.amount != null) {
      const gross = new Money(surcharge.amount);
      amount = round(version.rules.pricesIncludeTax ? gross : gross.div(taxFactor));
    } else if (surcharge.fraction != null) {
      const like: PricingBenefit = {
        voucherId: surcharge.voucherId,
        benefitType: 'Discount',
        name: surcharge.name,
        applicablePriceType: surcharge.applicablePriceType ?? null,
        costSources: surcharge.costSources ?? null,
      };
      const base = engineLines
        .filter((line) => line.group !== 'SURCHARGE' && benefitTargets(like, line))
        .reduce((sum, line) => sum.plus(round(line.amount)), new Money(0));
      amount = round(Money.max(0, base).times(new Money(surcharge.fraction)));
      label = `${new Money(surcharge.fraction).times(100).toDecimalPlaces(2).toString()} % surcharge`;
    }
    if (amount.lte(0)) continue;
    lines.push({
      code: `SURCHARGE_V${surcharge.voucherId}`,
      group: 'SURCHARGE',
      phase: null,
      description: `${label} (${surcharge.name})`,
      quantity: new Money(1),
      unit: 'PIECE',
      unitPrice: amount,
      amount,
    });
  }
  return lines;
}

/**
 * The engine's lines priced with surcharges and benefits: the three shapes with a SURCHARGE line per
 * geofence surcharge and a BENEFIT line per voucher applied.
 */
export function priceWithBenefits(
  version: PricedVersion,
  tax: TaxContext,
  engineLines: readonly RawLine[],
  benefits: readonly PricingBenefit[],
  surcharges: readonly PricingSurcharge[] = [],
): BenefitPricing {
  const withSurcharges = [...engineLines, ...surchargeLines(version, tax, engineLines, surcharges)];
  const { lines, applied } = applyBenefits(version, tax, withSurcharges, benefits);
  return { result: buildResult(version, tax, lines), applied };
}
