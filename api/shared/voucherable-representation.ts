// Voucherables (benefit templates) as both interfaces show them, and the operator's input that creates or
// replaces one: the schemas, the DTO mapper and the conversion of an input into the configuration the
// rules (domain/voucherables.ts) check. Money is a decimal string, formatted in the template's currency.
import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { Voucherable } from '../../db/entities/Voucherable.js';
import {
  applicablePriceTypes,
  benefitTypes,
  costSourceGroups,
  validityTimeUnits,
  voucherableStatuses,
  voucherableTypes,
  type Benefit,
} from '../../domain/benefits.js';
import { maxGeofencePositions, weekdays } from '../../domain/geofence.js';
import { formatAmount } from '../../domain/money.js';
import {
  clampedInstant,
  component,
  DateTime,
  Id,
  Int,
  Nullable,
  Str,
  StringEnum,
} from '../kernel/schemas.js';

export const VoucherableType = component('VoucherableType', StringEnum(voucherableTypes));
export const VoucherableStatus = component('VoucherableStatus', StringEnum(voucherableStatuses));
export const BenefitType = component('BenefitType', StringEnum(benefitTypes));
export const ApplicablePriceType = component('ApplicablePriceType', StringEnum(applicablePriceTypes));
export const ValidityTimeUnit = component('ValidityTimeUnit', StringEnum(validityTimeUnits));
const WeekdayName = StringEnum(weekdays);

/** A non-negative decimal string (money, a fraction or a count); what it must be is checked by the rules. */
export const DecimalInput = (description: string) =>
  Str(24, { pattern: '^[0-9]{1,12}(\\.[0-9]{1,8})?$', description: `${description} Decimal string.` });

/** A code customers type: letters, digits, `-` and `_`. */
export const CodeInput = Str(64, {
  minLength: 3,
  pattern: '^[A-Za-z0-9_-]{3,64}$',
  description: 'Letters, digits, - and _; unique in the tenant regardless of case.',
});

const IdList = (description: string) => Type.Array(Id(), { maxItems: 200, uniqueItems: true, description });

export const CostSourceSchema = component(
  'CostSource',
  Type.Object(
    {
      group: StringEnum(costSourceGroups),
      code: Type.Optional(Nullable(Str(64, { minLength: 1 }))),
    },
    {
      additionalProperties: false,
      description:
        'A cost source group and optionally one source code in it; targeted benefits apply before broader ones.',
    },
  ),
);

/** Restrictions a benefit carries (each falls back on the template's when absent). */
const restrictionFields = {
  validUntil: Type.Optional(Nullable(DateTime())),
  validityPeriod: Type.Optional(Nullable(Int(1, 10_000))),
  validityTimeUnit: Type.Optional(Nullable(ValidityTimeUnit)),
  numberOfRentals: Type.Optional(Nullable(Int(1, 100_000))),
  branchIds: Type.Optional(Nullable(IdList('Branches the benefit applies at; absent: every branch.'))),
  vehicleCategoryIds: Type.Optional(Nullable(IdList('Vehicle categories; absent: every category.'))),
  applicablePriceType: Type.Optional(Nullable(ApplicablePriceType)),
  costSources: Type.Optional(Nullable(Type.Array(CostSourceSchema, { maxItems: 50 }))),
};

export const BenefitSchema = component(
  'Benefit',
  Type.Object(
    {
      type: BenefitType,
      amount: Type.Optional(
        Nullable(
          DecimalInput(
            'Value, RentalRebate: money; Discount, DiscountOnPackages: a fraction above 0 and at most 1 (0.2 is 20 percent); FreeMinutes, FreeUnlocks: a whole count; AdditionEntitlement: none.',
          ),
        ),
      ),
      additionEntitlementId: Type.Optional(Nullable(Id())),
      ...restrictionFields,
    },
    { additionalProperties: false },
  ),
);

export const VoucherableGeofence = component(
  'VoucherableGeofence',
  Type.Object(
    {
      type: StringEnum(['MultiPolygon'] as const),
      coordinates: Type.Array(
        Type.Array(
          Type.Array(
            Type.Array(Type.Number({ minimum: -1000, maximum: 1000 }), { minItems: 2, maxItems: 3 }),
            { maxItems: maxGeofencePositions },
          ),
          { maxItems: 20 },
        ),
        { maxItems: 50 },
      ),
    },
    {
      additionalProperties: false,
      description:
        "GeoJSON MultiPolygon, [longitude, latitude] positions, closed rings (the areas' geofence rules).",
    },
  ),
);

const subscriptionIntervals = [
  'DAILY',
  'WEEKLY',
  'MONTHLY',
  'FIRST_OF_MONTH',
  'YEARLY',
  'FIRST_OF_YEAR',
] as const;

/** What creates a template or replaces one (PUT): every field but branchId optional. */
export const VoucherableInput = component(
  'VoucherableInput',
  Type.Object(
    {
      branchId: Id({ description: "The branch it is created on; the template is its business unit's." }),
      type: VoucherableType,
      name: Str(200, { minLength: 1 }),
      code: Type.Optional(Nullable(CodeInput)),
      description: Type.Optional(Nullable(Str(2000))),
      invoiceDescription: Type.Optional(Nullable(Str(500))),
      iconUrl: Type.Optional(Nullable(Str(2000, { format: 'uri' }))),
      value: Type.Optional(Nullable(DecimalInput('Legacy: credit written to the wallet at grant.'))),
      discount: Type.Optional(Nullable(DecimalInput('Legacy: a fraction (0.2 is 20 percent).'))),
      rentalRebate: Type.Optional(Nullable(DecimalInput('Legacy: a fixed amount off a rental.'))),
      additionEntitlementId: Type.Optional(Nullable(Id())),
      benefits: Type.Optional(
        Type.Array(BenefitSchema, {
          maxItems: 20,
          description:
            'When not empty, they override the legacy fields value, discount, rentalRebate, additionEntitlementId.',
        }),
      ),
      validUntil: Type.Optional(Nullable(DateTime())),
      validityPeriod: Type.Optional(Nullable(Int(1, 10_000))),
      validityTimeUnit: Type.Optional(Nullable(ValidityTimeUnit)),
      numberOfRentals: Type.Optional(Nullable(Int(1, 100_000))),
      applicableBranchIds: Type.Optional(Nullable(IdList('Branches; absent: every branch.'))),
      applicableVehicleCategoryIds: Type.Optional(Nullable(IdList('Vehicle categories; absent: all.'))),
      applicablePriceType: Type.Optional(Nullable(ApplicablePriceType)),
      costSources: Type.Optional(Nullable(Type.Array(CostSourceSchema, { maxItems: 50 }))),
      guserRequiredAnnotationIds: Type.Optional(IdList('Annotations the customer must carry.')),
      guserProhibitedAnnotationIds: Type.Optional(IdList('Annotations the customer must not carry.')),
      requiredAnnotationIds: Type.Optional(IdList('Annotations related models (additions…) must carry.')),
      prohibitedAnnotationIds: Type.Optional(IdList('Annotations related models must not carry.')),
      price: Type.Optional(
        Nullable(DecimalInput('Purchase price (Package, RidePass, PricedPromotion, Subscription).')),
      ),
      interval: Type.Optional(Nullable(StringEnum(subscriptionIntervals))),
      initialPrice: Type.Optional(Nullable(DecimalInput('Subscription: the price of the first iterations.'))),
      initialIterations: Type.Optional(Nullable(Int(1, 1000))),
      initial: Type.Optional(Type.Boolean({ description: 'An initial (sign-up) package.' })),
      highlight: Type.Optional(Type.Boolean()),
      showInUserApp: Type.Optional(Type.Boolean()),
      maxRedeems: Type.Optional(Nullable(Int(1, 100_000_000))),
      maxRedeemsPerCustomer: Type.Optional(
        Nullable(
          Int(1, 1000, {
            description:
              'How many times one customer may redeem the template across all its codes (W117 beyond); default 1, null: unlimited.',
          }),
        ),
      ),
      redeemFrom: Type.Optional(Nullable(DateTime())),
      redeemUntil: Type.Optional(Nullable(DateTime())),
      referrerVoucherableId: Type.Optional(Nullable(Id())),
      referrerNeedsRide: Type.Optional(Type.Boolean()),
      geofence: Type.Optional(Nullable(VoucherableGeofence)),
      weekdays: Type.Optional(Nullable(Type.Array(WeekdayName, { maxItems: 7, uniqueItems: true }))),
      recurrenceStart: Type.Optional(Nullable(DateTime())),
      durationMinutes: Type.Optional(Nullable(Int(1, 10_080))),
    },
    { additionalProperties: false },
  ),
);
export type VoucherableInputBody = Static<typeof VoucherableInput>;

/** The stored benefits of an input: amounts normalised, dates as ISO strings, nulls dropped. */
function storedBenefit(benefit: NonNullable<VoucherableInputBody['benefits']>[number]): Benefit {
  const stored: Benefit = { type: benefit.type };
  if (benefit.amount != null) stored.amount = new Decimal(benefit.amount).toString();
  if (benefit.additionEntitlementId != null) stored.additionEntitlementId = benefit.additionEntitlementId;
  if (benefit.validUntil != null) stored.validUntil = clampedInstant(benefit.validUntil).toISOString();
  if (benefit.validityPeriod != null) stored.validityPeriod = benefit.validityPeriod;
  if (benefit.validityTimeUnit != null) stored.validityTimeUnit = benefit.validityTimeUnit;
  if (benefit.numberOfRentals != null) stored.numberOfRentals = benefit.numberOfRentals;
  if (benefit.branchIds != null) stored.branchIds = benefit.branchIds;
  if (benefit.vehicleCategoryIds != null) stored.vehicleCategoryIds = benefit.vehicleCategoryIds;
  if (benefit.applicablePriceType != null) stored.applicablePriceType = benefit.applicablePriceType;
  if (benefit.costSources != null)
    stored.costSources = benefit.costSources.map((source) => ({
      group: source.group,
      code: source.code ?? null,
    }));
  return stored;
}

const decimalOrNull = (value: string | null | undefined) =>
  value == null ? null : new Decimal(value).toString();
const instantOrNull = (value: string | null | undefined) => (value == null ? null : clampedInstant(value));

/** The entity fields an input sets (create and full replace alike); business unit and currency aside. */
export function voucherableFieldsOf(body: VoucherableInputBody) {
  return {
    branchId: body.branchId,
    type: body.type,
    name: body.name,
    code: body.code ?? null,
    description: body.description ?? null,
    invoiceDescription: body.invoiceDescription ?? null,
    iconUrl: body.iconUrl ?? null,
    value: decimalOrNull(body.value),
    discount: decimalOrNull(body.discount),
    rentalRebate: decimalOrNull(body.rentalRebate),
    additionEntitlementId: body.additionEntitlementId ?? null,
    benefits: (body.benefits ?? []).map(storedBenefit),
    validUntil: instantOrNull(body.validUntil),
    validityPeriod: body.validityPeriod ?? null,
    validityTimeUnit: body.validityTimeUnit ?? null,
    numberOfRentals: body.numberOfRentals ?? null,
    applicableBranchIds: body.applicableBranchIds ?? null,
    applicableVehicleCategoryIds: body.applicableVehicleCategoryIds ?? null,
    applicablePriceType: body.applicablePriceType ?? null,
    costSources:
      body.costSources?.map((source) => ({ group: source.group, code: source.code ?? null })) ?? null,
    guserRequiredAnnotationIds: body.guserRequiredAnnotationIds ?? [],
    guserProhibitedAnnotationIds: body.guserProhibitedAnnotationIds ?? [],
    requiredAnnotationIds: body.requiredAnnotationIds ?? [],
    prohibitedAnnotationIds: body.prohibitedAnnotationIds ?? [],
    price: decimalOrNull(body.price),
    interval: body.interval ?? null,
    initialPrice: decimalOrNull(body.initialPrice),
    initialIterations: body.initialIterations ?? null,
    initial: body.initial ?? false,
    highlight: body.highlight ?? false,
    showInUserApp: body.showInUserApp ?? false,
    maxRedeems: body.maxRedeems ?? null,
    maxRedeemsPerCustomer: body.maxRedeemsPerCustomer === undefined ? 1 : body.maxRedeemsPerCustomer,
    redeemFrom: instantOrNull(body.redeemFrom),
    redeemUntil: instantOrNull(body.redeemUntil),
    referrerVoucherableId: body.referrerVoucherableId ?? null,
    referrerNeedsRide: body.referrerNeedsRide ?? false,
    geofence: body.geofence ?? null,
    weekdays: body.weekdays ?? null,
    recurrenceStart: instantOrNull(body.recurrenceStart),
    durationMinutes: body.durationMinutes ?? null,
  };
}

const MoneyOut = (description: string) =>
  Nullable(Type.String({ description: `${description} Decimal string.` }));

const BenefitOut = Type.Object(
  {
    type: BenefitType,
    amount: Nullable(Type.String()),
    additionEntitlementId: Nullable(Id()),
    validUntil: Nullable(DateTime()),
    validityPeriod: Nullable(Type.Integer()),
    validityTimeUnit: Nullable(ValidityTimeUnit),
    numberOfRentals: Nullable(Type.Integer()),
    branchIds: Nullable(Type.Array(Id())),
    vehicleCategoryIds: Nullable(Type.Array(Id())),
    applicablePriceType: Nullable(ApplicablePriceType),
    costSources: Nullable(Type.Array(CostSourceSchema)),
  },
  { additionalProperties: false },
);

export const VoucherableSchema = component(
  'Voucherable',
  Type.Object(
    {
      id: Id(),
      branchId: Id(),
      businessUnitId: Id(),
      type: VoucherableType,
      status: VoucherableStatus,
      code: Nullable(Type.String()),
      name: Type.String(),
      description: Nullable(Type.String()),
      invoiceDescription: Nullable(Type.String()),
      iconUrl: Nullable(Type.String()),
      currency: Type.String(),
      value: MoneyOut('Legacy credit.'),
      discount: Nullable(Type.String({ description: 'Legacy fraction.' })),
      rentalRebate: MoneyOut('Legacy rebate.'),
      additionEntitlementId: Nullable(Id()),
      benefits: Type.Array(BenefitOut),
      validUntil: Nullable(DateTime()),
      validityPeriod: Nullable(Type.Integer()),
      validityTimeUnit: Nullable(ValidityTimeUnit),
      numberOfRentals: Nullable(Type.Integer()),
      applicableBranchIds: Nullable(Type.Array(Id())),
      applicableVehicleCategoryIds: Nullable(Type.Array(Id())),
      applicablePriceType: Nullable(ApplicablePriceType),
      costSources: Nullable(Type.Array(CostSourceSchema)),
      guserRequiredAnnotationIds: Type.Array(Id()),
      guserProhibitedAnnotationIds: Type.Array(Id()),
      requiredAnnotationIds: Type.Array(Id()),
      prohibitedAnnotationIds: Type.Array(Id()),
      price: MoneyOut('Purchase price.'),
      interval: Nullable(Type.String()),
      initialPrice: MoneyOut('Subscription: price of the first iterations.'),
      initialIterations: Nullable(Type.Integer()),
      initial: Type.Boolean(),
      highlight: Type.Boolean(),
      showInUserApp: Type.Boolean(),
      maxRedeems: Nullable(Type.Integer()),
      maxRedeemsPerCustomer: Nullable(
        Type.Integer({ description: 'Redemptions per customer across all its codes; null: unlimited.' }),
      ),
      redeemCount: Type.Integer({ minimum: 0 }),
      redeemFrom: Nullable(DateTime()),
      redeemUntil: Nullable(DateTime()),
      referrerVoucherableId: Nullable(Id()),
      referrerNeedsRide: Type.Boolean(),
      geofence: Nullable(VoucherableGeofence),
      weekdays: Nullable(Type.Array(WeekdayName)),
      recurrenceStart: Nullable(DateTime()),
      durationMinutes: Nullable(Type.Integer()),
      createdBy: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);
export type VoucherableDto = Static<typeof VoucherableSchema>;

const money = (value: string | null | undefined, currency: string) =>
  value == null ? null : formatAmount(value, currency);
const fractionText = (value: string | null | undefined) =>
  value == null ? null : new Decimal(value).toString();

/** A benefit as responses write it (money benefits in the currency's format). */
function benefitDto(benefit: Benefit, currency: string): Static<typeof BenefitOut> {
  const isMoney = benefit.type === 'Value' || benefit.type === 'RentalRebate';
  return {
    type: benefit.type,
    amount: benefit.amount == null ? null : isMoney ? formatAmount(benefit.amount, currency) : benefit.amount,
    additionEntitlementId: benefit.additionEntitlementId ?? null,
    validUntil: benefit.validUntil ?? null,
    validityPeriod: benefit.validityPeriod ?? null,
    validityTimeUnit: benefit.validityTimeUnit ?? null,
    numberOfRentals: benefit.numberOfRentals ?? null,
    branchIds: benefit.branchIds ?? null,
    vehicleCategoryIds: benefit.vehicleCategoryIds ?? null,
    applicablePriceType: benefit.applicablePriceType ?? null,
    costSources:
      benefit.costSources?.map((source) => ({ group: source.group, code: source.code ?? null })) ?? null,
  };
}

/** A template as both interfaces write it. */
export function voucherableDto(template: Voucherable): VoucherableDto {
  const currency = template.currency;
  return {
    id: template.id,
    branchId: template.branchId,
    businessUnitId: template.businessUnitId,
    type: template.type,
    status: template.status,
    code: template.code ?? null,
    name: template.name,
    description: template.description ?? null,
    invoiceDescription: template.invoiceDescription ?? null,
    iconUrl: template.iconUrl ?? null,
    currency,
    value: money(template.value, currency),
    discount: fractionText(template.discount),
    rentalRebate: money(template.rentalRebate, currency),
    additionEntitlementId: template.additionEntitlementId ?? null,
    benefits: template.benefits.map((benefit) => benefitDto(benefit, currency)),
    validUntil: template.validUntil?.toISOString() ?? null,
    validityPeriod: template.validityPeriod ?? null,
    validityTimeUnit: template.validityTimeUnit ?? null,
    numberOfRentals: template.numberOfRentals ?? null,
    applicableBranchIds: template.applicableBranchIds ?? null,
    applicableVehicleCategoryIds: template.applicableVehicleCategoryIds ?? null,
    applicablePriceType: template.applicablePriceType ?? null,
    costSources: template.costSources ?? null,
    guserRequiredAnnotationIds: template.guserRequiredAnnotationIds,
    guserProhibitedAnnotationIds: template.guserProhibitedAnnotationIds,
    requiredAnnotationIds: template.requiredAnnotationIds,
    prohibitedAnnotationIds: template.prohibitedAnnotationIds,
    price: money(template.price, currency),
    interval: template.interval ?? null,
    initialPrice: money(template.initialPrice, currency),
    initialIterations: template.initialIterations ?? null,
    initial: template.initial,
    highlight: template.highlight,
    showInUserApp: template.showInUserApp,
    maxRedeems: template.maxRedeems ?? null,
    maxRedeemsPerCustomer: template.maxRedeemsPerCustomer ?? null,
    redeemCount: template.redeemCount,
    redeemFrom: template.redeemFrom?.toISOString() ?? null,
    redeemUntil: template.redeemUntil?.toISOString() ?? null,
    referrerVoucherableId: template.referrerVoucherableId ?? null,
    referrerNeedsRide: template.referrerNeedsRide,
    geofence: template.geofence ?? null,
    weekdays: template.weekdays ?? null,
    recurrenceStart: template.recurrenceStart?.toISOString() ?? null,
    durationMinutes: template.durationMinutes ?? null,
    createdBy: template.createdBy,
    createdAt: template.createdAt.toISOString(),
    updatedAt: template.updatedAt.toISOString(),
  };
}
