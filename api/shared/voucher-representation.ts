// Vouchers as both interfaces show them (the spec's Voucher: name, voucherableCode, voucherType, status,
// rebate gross and net, discount fraction, value and minutes with what remains, rentals, validity,
// price type, addition entitlement, currency, cost sources) and redeemable codes as the operator sees them.
import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import type { Voucher } from '../../db/entities/Voucher.js';
import type { VoucherCode } from '../../db/entities/VoucherCode.js';
import { Voucherable } from '../../db/entities/Voucherable.js';
import { appVoucherType, voucherSourceKinds, voucherStatuses } from '../../domain/benefits.js';
import { formatAmount, minorDigitsOf } from '../../domain/money.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';
import {
  ApplicablePriceType,
  BenefitType,
  CostSourceSchema,
  VoucherableType,
} from './voucherable-representation.js';

export const VoucherStatus = component('VoucherStatus', StringEnum(voucherStatuses));
export const appVoucherTypes = ['package', 'subscription', 'reward', 'promotion', 'single-use'] as const;
export const AppVoucherType = component('AppVoucherType', StringEnum(appVoucherTypes));

const MoneyOut = (description: string) =>
  Nullable(Type.String({ description: `${description} Decimal string.` }));

export const VoucherSchema = component(
  'Voucher',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      description: Nullable(Type.String()),
      voucherableId: Id(),
      voucherableCode: Nullable(Type.String()),
      voucherableType: VoucherableType,
      voucherType: AppVoucherType,
      benefitType: BenefitType,
      status: VoucherStatus,
      code: Nullable(Type.String({ description: 'The single-use code of a constraint voucher.' })),
      guserId: Nullable(Id()),
      userGroupId: Nullable(Id()),
      businessUnitId: Id(),
      currency: Type.String(),
      rentalRebate: MoneyOut('Fixed amount off a rental, gross.'),
      rentalRebateNet: MoneyOut('The rebate without the business unit’s tax.'),
      discount: Nullable(Type.String({ description: 'A fraction: 0.2 is 20 percent.' })),
      valueGross: MoneyOut('Credit granted (written to the wallet at grant).'),
      remainingValueGross: MoneyOut('Credit not yet moved to the wallet.'),
      freeMinutes: Nullable(Type.Integer()),
      remainingFreeMinutes: Nullable(Type.Integer()),
      freeUnlocks: Nullable(Type.Integer()),
      remainingFreeUnlocks: Nullable(Type.Integer()),
      numberOfRentals: Nullable(Type.Integer()),
      remainingNumberOfRentals: Nullable(Type.Integer()),
      validFrom: Nullable(DateTime()),
      validUntil: Nullable(DateTime()),
      applicablePriceType: Nullable(ApplicablePriceType),
      additionEntitlementId: Nullable(Id()),
      additionEntitlementCode: Nullable(Type.String()),
      costSources: Nullable(Type.Array(CostSourceSchema)),
      branchIds: Nullable(Type.Array(Id())),
      vehicleCategoryIds: Nullable(Type.Array(Id())),
      sourceKind: StringEnum(voucherSourceKinds),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);
export type VoucherDto = Static<typeof VoucherSchema>;

const money = (value: string | null | undefined, currency: string) =>
  value == null ? null : formatAmount(value, currency);

/** Vouchers as responses write them (their templates and business units read in two queries). */
export async function voucherDtos(em: EntityManager, vouchers: readonly Voucher[]): Promise<VoucherDto[]> {
  if (vouchers.length === 0) return [];
  const templateIds = [...new Set(vouchers.map((voucher) => voucher.voucherable.id))];
  const unitIds = [...new Set(vouchers.map((voucher) => voucher.businessUnitId))];
  const [templates, units] = await Promise.all([
    em.find(Voucherable, { id: { $in: templateIds } }),
    em.find(BusinessUnit, { id: { $in: unitIds } }),
  ]);
  const templateOf = new Map(templates.map((template) => [template.id, template]));
  const taxOf = new Map(units.map((unit) => [unit.id, unit.taxPercentage]));
  return vouchers.map((voucher) => {
    const template = templateOf.get(voucher.voucherable.id)!;
    const currency = voucher.currency;
    const tax = new Decimal(taxOf.get(voucher.businessUnitId) ?? '0');
    const rebateNet =
      voucher.rentalRebate == null
        ? null
        : formatAmount(
            new Decimal(voucher.rentalRebate)
              .div(tax.div(100).plus(1))
              .toDecimalPlaces(minorDigitsOf(currency), Decimal.ROUND_HALF_UP),
            currency,
          );
    return {
      id: voucher.id,
      name: template.name,
      description: template.description ?? null,
      voucherableId: template.id,
      voucherableCode: template.code ?? null,
      voucherableType: template.type,
      voucherType: appVoucherType(template.type, voucher.code != null) as VoucherDto['voucherType'],
      benefitType: voucher.benefitType,
      status: voucher.status,
      code: voucher.code ?? null,
      guserId: voucher.customerId ?? null,
      userGroupId: voucher.userGroupId ?? null,
      businessUnitId: voucher.businessUnitId,
      currency,
      rentalRebate: money(voucher.rentalRebate, currency),
      rentalRebateNet: rebateNet,
      discount: voucher.discount == null ? null : new Decimal(voucher.discount).toString(),
      valueGross: money(voucher.valueGross, currency),
      remainingValueGross: money(voucher.remainingValueGross, currency),
      freeMinutes: voucher.freeMinutes ?? null,
      remainingFreeMinutes: voucher.remainingFreeMinutes ?? null,
      freeUnlocks: voucher.freeUnlocks ?? null,
      remainingFreeUnlocks: voucher.remainingFreeUnlocks ?? null,
      numberOfRentals: voucher.numberOfRentals ?? null,
      remainingNumberOfRentals: voucher.remainingNumberOfRentals ?? null,
      validFrom: voucher.validFrom?.toISOString() ?? null,
      validUntil: voucher.validUntil?.toISOString() ?? null,
      applicablePriceType: voucher.applicablePriceType ?? null,
      additionEntitlementId: voucher.additionEntitlementId ?? null,
      additionEntitlementCode: null,
      costSources: voucher.costSources ?? null,
      branchIds: voucher.branchIds ?? null,
      vehicleCategoryIds: voucher.vehicleCategoryIds ?? null,
      sourceKind: voucher.sourceKind,
      createdAt: voucher.createdAt.toISOString(),
    };
  });
}

export const RedeemableCodeSchema = component(
  'RedeemableCode',
  Type.Object(
    {
      id: Id(),
      code: Type.String(),
      voucherableId: Id(),
      businessUnitId: Id(),
      maxRedeems: Nullable(Type.Integer()),
      redeemCount: Type.Integer({ minimum: 0 }),
      validFrom: Nullable(DateTime()),
      validUntil: Nullable(DateTime()),
      createdBy: Type.String(),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** A redeemable code as the operator sees it. */
export const redeemableCodeDto = (code: VoucherCode): Static<typeof RedeemableCodeSchema> => ({
  id: code.id,
  code: code.code,
  voucherableId: code.voucherable.id,
  businessUnitId: code.businessUnitId,
  maxRedeems: code.maxRedeems ?? null,
  redeemCount: code.redeemCount,
  validFrom: code.validFrom?.toISOString() ?? null,
  validUntil: code.validUntil?.toISOString() ?? null,
  createdBy: code.createdBy,
  createdAt: code.createdAt.toISOString(),
});
