// Pure rules of the benefits domain: the voucherable (benefit template) types, its benefits and their
// restrictions, the activation rules (VA1xx), the voucher states and how a grant turns a template into
// vouchers. No I/O: the routes, the grant functions (db/voucher-grants.ts) and later the pricing engine
// read these.
import { Decimal } from 'decimal.js';

/** The twelve template types of the spec. */
export const voucherableTypes = [
  'Promotion',
  'GeoFencePromotion',
  'Package',
  'Subscription',
  'Reward',
  'SignupReferral',
  'Triggered',
  'CustomerCare',
  'VehiclePromotion',
  'GeoFenceSurcharge',
  'RidePass',
  'PricedPromotion',
] as const;
export type VoucherableType = (typeof voucherableTypes)[number];

export const voucherableStatuses = ['ACTIVE', 'INACTIVE'] as const;
export type VoucherableStatus = (typeof voucherableStatuses)[number];

/** The benefit kinds a template may hold (several at once). */
export const benefitTypes = [
  'Value',
  'Discount',
  'RentalRebate',
  'FreeUnlocks',
  'DiscountOnPackages',
  'AdditionEntitlement',
  'FreeMinutes',
] as const;
export type BenefitType = (typeof benefitTypes)[number];

export const applicablePriceTypes = [
  'TIME_PRICE',
  'DRIVING_PRICE',
  'PARKING_PRICE',
  'DISTANCE_PRICE',
  'RESERVATION_PRICE',
  'UNLOCK_FEE',
] as const;
export type ApplicablePriceType = (typeof applicablePriceTypes)[number];

/** Cost source groups; a cost source names a group and optionally one source code within it. */
export const costSourceGroups = ['RENTAL', 'ADDITION', 'SURCHARGE'] as const;
export type CostSourceGroup = (typeof costSourceGroups)[number];
export interface CostSource {
  group: CostSourceGroup;
  /** A source code within the group (e.g. an addition's code); absent: the whole group. */
  code?: string | null;
}

export const validityTimeUnits = ['HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;
export type ValidityTimeUnit = (typeof validityTimeUnits)[number];

/** Restrictions a benefit (or the template, for its legacy fields) carries. */
export interface BenefitRestrictions {
  validUntil?: string | null;
  validityPeriod?: number | null;
  validityTimeUnit?: ValidityTimeUnit | null;
  numberOfRentals?: number | null;
  branchIds?: number[] | null;
  vehicleCategoryIds?: number[] | null;
  applicablePriceType?: ApplicablePriceType | null;
  costSources?: CostSource[] | null;
}

/**
 * One benefit of a template. `amount` is a decimal string: money for Value, RentalRebate and
 * DiscountOnPackages (a fraction 0..1 for DiscountOnPackages and Discount), a count for FreeUnlocks and
 * FreeMinutes; AdditionEntitlement names the addition in `additionEntitlementId`.
 */
export interface Benefit extends BenefitRestrictions {
  type: BenefitType;
  amount?: string | null;
  additionEntitlementId?: number | null;
}

/** A voucher's states: ACTIVE is usable; PENDING and NOT_REDEEMED not yet; the last three never again. */
export const voucherStatuses = [
  'NOT_REDEEMED',
  'PENDING',
  'ACTIVE',
  'USED_UP',
  'EXPIRED',
  'CANCELED',
] as const;
export type VoucherStatus = (typeof voucherStatuses)[number];

/** Where a voucher came from (the grant API's `source.kind`). */
export const voucherSourceKinds = [
  'SUBSCRIPTION',
  'PACKAGE',
  'OPERATOR',
  'CODE',
  'REFERRAL',
  'REWARD',
  'PROMOTION',
] as const;
export type VoucherSourceKind = (typeof voucherSourceKinds)[number];

/** States a voucher cancel applies to (the others are final or not yet the customer's). */
export const cancellableVoucherStatuses: readonly VoucherStatus[] = ['NOT_REDEEMED', 'PENDING', 'ACTIVE'];

/** The allowed voucher moves: the one table the writes read. */
export const voucherTransitions: Readonly<Record<VoucherStatus, readonly VoucherStatus[]>> = {
  NOT_REDEEMED: ['PENDING', 'ACTIVE', 'CANCELED', 'EXPIRED'],
  PENDING: ['ACTIVE', 'CANCELED', 'EXPIRED'],
  ACTIVE: ['USED_UP', 'EXPIRED', 'CANCELED'],
  // A full refund of the rental that used it up gives back what it took (db/vouchers.ts
  // returnRentalBenefits): ACTIVE again, or EXPIRED when its validity ended meanwhile.
  USED_UP: ['ACTIVE', 'EXPIRED'],
  EXPIRED: [],
  CANCELED: [],
};

/** Whether a voucher may move from one state to another. */
export function voucherMayMove(from: VoucherStatus, to: VoucherStatus): boolean {
  return voucherTransitions[from].includes(to);
}

/** The app's voucherType of a template type (spec: package, subscription, reward, promotion, single-use). */
export function appVoucherType(type: VoucherableType, singleUse: boolean): string {
  if (singleUse) return 'single-use';
  switch (type) {
    case 'Package':
    case 'RidePass':
      return 'package';
    case 'Subscription':
      return 'subscription';
    case 'Reward':
      return 'reward';
    default:
      return 'promotion';
  }
}

// ---------------------------------------------------------------------------------------------------
// From a template to vouchers

/** The template fields the grant reads (the entity satisfies it). */
export interface TemplateBenefits extends BenefitRestrictionsOfTemplate {
  value?: string | null;
  discount?: string | null;
  rentalRebate?: string | null;
  additionEntitlementId?: number | null;
  benefits: readonly Benefit[];
}

/** The template-wide restrictions, in the template's own field names. */
export interface BenefitRestrictionsOfTemplate {
  validUntil?: Date | null;
  validityPeriod?: number | null;
  validityTimeUnit?: ValidityTimeUnit | null;
  numberOfRentals?: number | null;
  applicableBranchIds?: number[] | null;
  applicableVehicleCategoryIds?: number[] | null;
  applicablePriceType?: ApplicablePriceType | null;
  costSources?: CostSource[] | null;
}

/**
 * The benefits a template grants: its `benefits` when any (they override the legacy fields), else one
 * benefit per legacy field set (value, discount, rentalRebate, additionEntitlementId).
 */
export function effectiveBenefits(template: TemplateBenefits): Benefit[] {
  if (template.benefits.length > 0) return template.benefits.map((benefit) => ({ ...benefit }));
  const legacy: Benefit[] = [];
  if (template.value != null) legacy.push({ type: 'Value', amount: template.value });
  if (template.discount != null) legacy.push({ type: 'Discount', amount: template.discount });
  if (template.rentalRebate != null) legacy.push({ type: 'RentalRebate', amount: template.rentalRebate });
  if (template.additionEntitlementId != null)
    legacy.push({ type: 'AdditionEntitlement', additionEntitlementId: template.additionEntitlementId });
  return legacy;
}

/** Adds a validity period to an instant (calendar months and years in UTC, clamped to the month's end). */
export function addValidityPeriod(from: Date, period: number, unit: ValidityTimeUnit): Date {
  const at = new Date(from.getTime());
  switch (unit) {
    case 'HOURS':
      return new Date(at.getTime() + period * 3_600_000);
    case 'DAYS':
      return new Date(at.getTime() + period * 86_400_000);
    case 'WEEKS':
      return new Date(at.getTime() + period * 7 * 86_400_000);
    case 'MONTHS':
    case 'YEARS': {
      const months = unit === 'MONTHS' ? period : period * 12;
      const day = at.getUTCDate();
      at.setUTCDate(1);
      at.setUTCMonth(at.getUTCMonth() + months);
      const lastDay = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
      at.setUTCDate(Math.min(day, lastDay));
      return at;
    }
  }
}

/**
 * When a granted benefit ends: the caller's explicit end when given, else the earliest of the benefit's
 * (or the template's) fixed date and its period counted from `validFrom`; null: no end.
 */
export function grantValidUntil(
  validFrom: Date,
  benefit: BenefitRestrictions,
  template: BenefitRestrictionsOfTemplate,
  explicitUntil?: Date | null,
): Date | null {
  if (explicitUntil) return explicitUntil;
  const fixed = benefit.validUntil ? new Date(benefit.validUntil) : (template.validUntil ?? null);
  const period = benefit.validityPeriod ?? template.validityPeriod ?? null;
  const unit = benefit.validityTimeUnit ?? template.validityTimeUnit ?? null;
  const byPeriod = period != null && unit != null ? addValidityPeriod(validFrom, period, unit) : null;
  if (fixed && byPeriod) return fixed < byPeriod ? fixed : byPeriod;
  return fixed ?? byPeriod;
}

/** The figures of one voucher granted for one benefit (remaining = granted at grant time). */
export interface VoucherFigures {
  benefitType: BenefitType;
  valueGross: string | null;
  discount: string | null;
  rentalRebate: string | null;
  freeMinutes: number | null;
  freeUnlocks: number | null;
  numberOfRentals: number | null;
  additionEntitlementId: number | null;
  applicablePriceType: ApplicablePriceType | null;
  costSources: CostSource[] | null;
  branchIds: number[] | null;
  vehicleCategoryIds: number[] | null;
}

/** The voucher figures of one benefit, its restrictions falling back on the template's. */
export function voucherFiguresOf(benefit: Benefit, template: BenefitRestrictionsOfTemplate): VoucherFigures {
  const amount = benefit.amount ?? null;
  const count = amount == null ? null : new Decimal(amount).toNumber();
  return {
    benefitType: benefit.type,
    valueGross: benefit.type === 'Value' ? amount : null,
    discount: benefit.type === 'Discount' || benefit.type === 'DiscountOnPackages' ? amount : null,
    rentalRebate: benefit.type === 'RentalRebate' ? amount : null,
    freeMinutes: benefit.type === 'FreeMinutes' ? count : null,
    freeUnlocks: benefit.type === 'FreeUnlocks' ? count : null,
    numberOfRentals: benefit.numberOfRentals ?? template.numberOfRentals ?? null,
    additionEntitlementId:
      benefit.type === 'AdditionEntitlement' ? (benefit.additionEntitlementId ?? null) : null,
    applicablePriceType: benefit.applicablePriceType ?? template.applicablePriceType ?? null,
    costSources: benefit.costSources ?? template.costSources ?? null,
    branchIds: benefit.branchIds ?? template.applicableBranchIds ?? null,
    vehicleCategoryIds: benefit.vehicleCategoryIds ?? template.applicableVehicleCategoryIds ?? null,
  };
}
