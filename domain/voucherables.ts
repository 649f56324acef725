// Pure rules of voucherables (benefit templates): what a whole configuration must satisfy (the VA1xx and
// geofence T11x codes), checked on create, update and activation; whether a geofence promotion's window is
// open at an instant; and the annotation gates on a customer. No I/O.
import { Decimal } from 'decimal.js';
import {
  effectiveBenefits,
  type ApplicablePriceType,
  type Benefit,
  type BenefitType,
  type CostSource,
  type ValidityTimeUnit,
  type VoucherableType,
} from './benefits.js';
import { geofenceProblem, localWeekdayAndMinute, scheduleInForce, type Weekday } from './geofence.js';
import { minorDigitsOf } from './money.js';

/** A whole template configuration as the rules read it (the entity satisfies it). */
export interface VoucherableConfig {
  type: VoucherableType;
  currency: string;
  value?: string | null;
  discount?: string | null;
  rentalRebate?: string | null;
  additionEntitlementId?: number | null;
  benefits: readonly Benefit[];
  validUntil?: Date | null;
  validityPeriod?: number | null;
  validityTimeUnit?: ValidityTimeUnit | null;
  numberOfRentals?: number | null;
  applicableBranchIds?: number[] | null;
  applicableVehicleCategoryIds?: number[] | null;
  applicablePriceType?: ApplicablePriceType | null;
  costSources?: CostSource[] | null;
  guserRequiredAnnotationIds: readonly number[];
  guserProhibitedAnnotationIds: readonly number[];
  requiredAnnotationIds: readonly number[];
  prohibitedAnnotationIds: readonly number[];
  price?: string | null;
  interval?: string | null;
  initialPrice?: string | null;
  initialIterations?: number | null;
  initial?: boolean;
  maxRedeems?: number | null;
  redeemFrom?: Date | null;
  redeemUntil?: Date | null;
  referrerVoucherableId?: number | null;
  geofence?: unknown;
  weekdays?: readonly Weekday[] | null;
  recurrenceStart?: Date | null;
  durationMinutes?: number | null;
}

/** Why a configuration is refused: a catalogue code of the benefits domain and a sentence. */
export interface ConfigProblem {
  code:
    | 'VA101'
    | 'VA102'
    | 'VA103'
    | 'VA104'
    | 'VA105'
    | 'VA109'
    | 'VA111'
    | 'VA114'
    | 'VA120'
    | 'T113'
    | 'T114'
    | 'T116';
  message: string;
}

/** Types bought with a one-time price through a payment (the Subscription's price is its own domain's). */
export const purchasableTypes: readonly VoucherableType[] = ['Package', 'RidePass', 'PricedPromotion'];
/** Types found by position: never redeemed by a code (W126). */
export const geofenceTypes: readonly VoucherableType[] = ['GeoFencePromotion', 'GeoFenceSurcharge'];
/**
 * The benefits a GeoFenceSurcharge carries its charge in: RentalRebate is a fixed amount added, Discount
 * a fraction of the lines it targets added (docs/benefits.md, "Geofence promotions and surcharges").
 */
export const surchargeBenefitTypes: readonly BenefitType[] = ['RentalRebate', 'Discount'];
/** Types a customer may redeem by the template's own code. */
export const codeRedeemableTypes: readonly VoucherableType[] = [
  'Promotion',
  'VehiclePromotion',
  'Triggered',
  'Reward',
  'CustomerCare',
];

const positive = (amount: string | null | undefined) => amount != null && new Decimal(amount).gt(0);
const fraction = (amount: string | null | undefined) =>
  amount != null && new Decimal(amount).gt(0) && new Decimal(amount).lte(1);
const wholeCount = (amount: string | null | undefined) =>
  amount != null &&
  new Decimal(amount).isInteger() &&
  new Decimal(amount).gte(1) &&
  new Decimal(amount).lte(1_000_000);
/** An amount the currency can carry (no digits beyond its minor unit). */
const fitsCurrency = (amount: string, currency: string) =>
  new Decimal(amount).decimalPlaces() <= minorDigitsOf(currency);

/** The first problem of one benefit's own figures (VA109), or undefined. */
function benefitProblem(benefit: Benefit, currency: string, where: string): string | undefined {
  const { type, amount } = benefit;
  switch (type) {
    case 'Value':
      if (!positive(amount) || !fitsCurrency(amount!, currency))
        return `${where}: a Value benefit needs a positive amount in ${currency}`;
      if (benefit.applicablePriceType || benefit.costSources?.length || benefit.numberOfRentals != null)
        return `${where}: a Value benefit is credit on the wallet; it takes no price type, cost sources or number of rentals`;
      break;
    case 'RentalRebate':
      if (!positive(amount) || !fitsCurrency(amount!, currency))
        return `${where}: a RentalRebate benefit needs a positive amount in ${currency}`;
      break;
    case 'Discount':
    case 'DiscountOnPackages':
      if (!fraction(amount)) return `${where}: a ${type} benefit needs a fraction above 0 and at most 1`;
      if (type === 'DiscountOnPackages' && (benefit.applicablePriceType || benefit.costSources?.length))
        return `${where}: DiscountOnPackages applies to package prices; it takes no price type or cost sources`;
      break;
    case 'FreeMinutes':
    case 'FreeUnlocks':
      if (!wholeCount(amount)) return `${where}: a ${type} benefit needs a whole number from 1 to 1000000`;
      break;
    case 'AdditionEntitlement':
      if (benefit.additionEntitlementId == null)
        return `${where}: an AdditionEntitlement benefit names its addition (additionEntitlementId)`;
      if (amount != null) return `${where}: an AdditionEntitlement benefit has no amount`;
      break;
  }
  if (type !== 'AdditionEntitlement' && benefit.additionEntitlementId != null)
    return `${where}: only an AdditionEntitlement benefit names an addition`;
  return undefined;
}

/** Benefit kinds whose price type is fixed by their nature (free unlocks take the unlock fee only). */
function priceTypeFits(benefit: Benefit): boolean {
  const priceType = benefit.applicablePriceType;
  if (!priceType) return true;
  if (benefit.type === 'FreeUnlocks') return priceType === 'UNLOCK_FEE';
  if (benefit.type === 'FreeMinutes')
    return ['TIME_PRICE', 'DRIVING_PRICE', 'PARKING_PRICE'].includes(priceType);
  return true;
}

/** A benefit's targeting as a comparable key: two benefits of one type with the same key collide. */
const targetKey = (benefit: Benefit) =>
  JSON.stringify([
    benefit.type,
    benefit.applicablePriceType ?? null,
    (benefit.costSources ?? []).map((source) => `${source.group}:${source.code ?? '*'}`).sort(),
    [...(benefit.branchIds ?? [])].sort((a, b) => a - b),
    [...(benefit.vehicleCategoryIds ?? [])].sort((a, b) => a - b),
  ]);

/** The validity fields of one level (template or benefit), checked alike. */
function validityProblem(
  validUntil: Date | null | undefined,
  period: number | null | undefined,
  unit: ValidityTimeUnit | null | undefined,
  now: Date,
  where: string,
): ConfigProblem | undefined {
  if ((period == null) !== (unit == null))
    return { code: 'VA103', message: `${where}: validityPeriod and validityTimeUnit are given together` };
  if (validUntil && validUntil.getTime() <= now.getTime())
    return { code: 'VA102', message: `${where}: validUntil ${validUntil.toISOString()} is in the past` };
  return undefined;
}

/**
 * The first problem of a whole template configuration, or undefined when it may be saved and activated:
 * validity (VA101–VA103), benefits (VA104, VA105, VA109), fields of another type (VA111), the customer and
 * related-model annotation gates (VA114), the purchase price (VA120) and the geofence (T113, T114, T116).
 * Annotation ids that do not exist (VA113) need the database and are the caller's.
 */
export function voucherableProblem(config: VoucherableConfig, now: Date): ConfigProblem | undefined {
  const templateValidity = validityProblem(
    config.validUntil,
    config.validityPeriod,
    config.validityTimeUnit,
    now,
    'the template',
  );
  if (templateValidity) return templateValidity;
  for (const [index, benefit] of config.benefits.entries()) {
    const problem = validityProblem(
      benefit.validUntil ? new Date(benefit.validUntil) : null,
      benefit.validityPeriod,
      benefit.validityTimeUnit,
      now,
      `benefits[${index}]`,
    );
    if (problem) return problem;
  }
  if (config.redeemFrom && config.redeemUntil && config.redeemFrom >= config.redeemUntil)
    return { code: 'VA101', message: 'redeemFrom must come before redeemUntil' };
  if (config.redeemUntil && config.redeemUntil.getTime() <= now.getTime())
    return { code: 'VA102', message: `redeemUntil ${config.redeemUntil.toISOString()} is in the past` };
  if (config.redeemFrom && config.validUntil && config.redeemFrom >= config.validUntil)
    return { code: 'VA101', message: 'the template is no longer valid when its redeem window opens' };

  const benefits = effectiveBenefits(config);
  if (benefits.length === 0)
    return {
      code: 'VA104',
      message:
        'the template grants nothing: give benefits, or value, discount, rentalRebate or additionEntitlementId',
    };
  const legacy = config.benefits.length === 0;
  for (const [index, benefit] of benefits.entries()) {
    const where = legacy ? `the legacy ${benefit.type} field` : `benefits[${index}]`;
    const problem = benefitProblem(benefit, config.currency, where);
    if (problem) return { code: 'VA109', message: problem };
    if (!priceTypeFits(benefit))
      return {
        code: 'VA105',
        message: `${where}: a ${benefit.type} benefit cannot apply to ${benefit.applicablePriceType}`,
      };
  }
  if (config.type === 'GeoFenceSurcharge') {
    const other = benefits.find((benefit) => !surchargeBenefitTypes.includes(benefit.type));
    if (other)
      return {
        code: 'VA105',
        message: `a GeoFenceSurcharge charges a fixed amount (RentalRebate) or a fraction (Discount), not ${other.type}`,
      };
  }
  const seen = new Set<string>();
  for (const [index, benefit] of config.benefits.entries()) {
    const key = targetKey(benefit);
    if (seen.has(key))
      return {
        code: 'VA105',
        message: `benefits[${index}]: a second ${benefit.type} benefit with the same targeting (price type, cost sources, branches, categories)`,
      };
    seen.add(key);
  }
  if (legacy && config.value != null && config.applicablePriceType)
    return { code: 'VA109', message: 'a Value (credit) template takes no applicablePriceType' };

  const both = (a: readonly number[], b: readonly number[]) => a.find((id) => b.includes(id));
  const customerClash = both(config.guserRequiredAnnotationIds, config.guserProhibitedAnnotationIds);
  if (customerClash !== undefined)
    return {
      code: 'VA114',
      message: `annotation ${customerClash} is both required and prohibited on the customer`,
    };
  const relatedClash = both(config.requiredAnnotationIds, config.prohibitedAnnotationIds);
  if (relatedClash !== undefined)
    return { code: 'VA114', message: `annotation ${relatedClash} is both required and prohibited` };

  const purchasable = purchasableTypes.includes(config.type);
  if (purchasable && (!positive(config.price) || !fitsCurrency(config.price!, config.currency)))
    return { code: 'VA120', message: `a ${config.type} needs a positive price in ${config.currency}` };
  if (!purchasable && config.type !== 'Subscription' && config.price != null)
    return {
      code: 'VA111',
      message: `a ${config.type} has no price (only ${purchasableTypes.join(', ')} and Subscription)`,
    };
  if (
    config.type !== 'Subscription' &&
    (config.interval != null || config.initialPrice != null || config.initialIterations != null)
  )
    return {
      code: 'VA111',
      message: 'interval, initialPrice and initialIterations belong to a Subscription',
    };
  if (config.type !== 'Package' && config.initial)
    return { code: 'VA111', message: 'only a Package can be an initial package' };
  if (config.type !== 'SignupReferral' && config.referrerVoucherableId != null)
    return { code: 'VA111', message: 'only a SignupReferral names a referrer template' };

  const geofenceType = geofenceTypes.includes(config.type);
  const hasWindow =
    config.weekdays != null || config.recurrenceStart != null || config.durationMinutes != null;
  if (!geofenceType && (config.geofence != null || hasWindow))
    return { code: 'T116', message: `a ${config.type} has no geofence, weekdays, recurrence or duration` };
  if (geofenceType) {
    if (config.geofence == null) return { code: 'T113', message: `a ${config.type} needs a geofence area` };
    const problem = geofenceProblem(config.geofence);
    if (problem) return { code: 'T113', message: `the geofence area is not usable: ${problem.message}` };
    if (
      config.weekdays == null ||
      config.weekdays.length === 0 ||
      config.recurrenceStart == null ||
      config.durationMinutes == null
    )
      return {
        code: 'T114',
        message: `a ${config.type} needs durationMinutes, weekdays and recurrenceStart`,
      };
  }
  return undefined;
}

/** `HH:mm` of a minute of the day. */
const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60) % 24).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/**
 * Whether a geofence promotion's recurring window is open at an instant, in the business unit's time
 * zone: from `recurrenceStart` on, on its weekdays, from its local time of day for `durationMinutes`
 * (a window past midnight belongs to the day it opened; 24 hours or more: the whole listed days).
 */
export function promotionWindowOpen(
  window: { weekdays: readonly Weekday[]; recurrenceStart: Date; durationMinutes: number },
  at: Date,
  timeZoneId: string,
): boolean {
  if (at.getTime() < window.recurrenceStart.getTime()) return false;
  const start = localWeekdayAndMinute(window.recurrenceStart, timeZoneId).minute;
  const duration = Math.min(window.durationMinutes, 1440);
  const schedule = {
    weekdays: window.weekdays,
    startTime: hhmm(start),
    endTime: hhmm(duration >= 1440 ? start : (start + duration) % 1440),
  };
  return scheduleInForce(schedule, localWeekdayAndMinute(at, timeZoneId));
}

/** Whether a customer carrying these annotations passes a template's customer gates. */
export function customerPassesGates(
  gates: { guserRequiredAnnotationIds: readonly number[]; guserProhibitedAnnotationIds: readonly number[] },
  customerAnnotationIds: readonly number[],
): boolean {
  const carries = new Set(customerAnnotationIds);
  return (
    gates.guserRequiredAnnotationIds.every((id) => carries.has(id)) &&
    !gates.guserProhibitedAnnotationIds.some((id) => carries.has(id))
  );
}
