// The representations of subscriptions both interfaces answer: the subscription catalogue item (a
// voucherable of type Subscription, as the app shows it) and the user subscription (spec 001's record,
// with the current period, the pending switch and the remaining figures of the period's vouchers).
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UserSubscription } from '../../db/entities/UserSubscription.js';
import { Voucherable } from '../../db/entities/Voucherable.js';
import { currentPeriodFigures } from '../../db/subscriptions.js';
import { autoRenewalStates, switchModes, userSubscriptionStates } from '../../domain/subscription.js';
import { subscriptionIntervals } from '../../domain/subscription-calendar.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../kernel/schemas.js';

const Money = (description: string) => Type.String({ maxLength: 32, description });
const NullableMoney = (description: string) => Nullable(Money(description));

export const UserSubscriptionState = component('UserSubscriptionState', StringEnum(userSubscriptionStates));
export const AutoRenewalState = component('AutoRenewalState', StringEnum(autoRenewalStates));
export const SubscriptionInterval = component('SubscriptionInterval', StringEnum(subscriptionIntervals));
export const SwitchMode = component('SubscriptionSwitchMode', StringEnum(switchModes));

/** A subscription code in a path: a voucherable code (letters, digits, `-`, `_`, `.`). */
export const SubscriptionCode = Str(64, { minLength: 1, pattern: '^[A-Za-z0-9._-]+$' });

export const SubscriptionCatalogItem = component(
  'SubscriptionCatalogItem',
  Type.Object({
    id: Id({ description: 'The plan: a voucherable of type Subscription.' }),
    code: Nullable(Str(64)),
    name: Str(200),
    description: Nullable(Str(2000)),
    iconUrl: Nullable(Str(2000)),
    status: Str(16),
    price: NullableMoney('Gross per period after the initial ones.'),
    currency: Str(3),
    invoiceDescription: Nullable(Str(500)),
    interval: Nullable(Str(32)),
    initialPrice: NullableMoney('Gross of each of the first initialIterations periods.'),
    initialIterations: Nullable(Type.Integer()),
    highlight: Type.Boolean(),
    showInUserApp: Type.Boolean(),
    value: NullableMoney('Legacy credit benefit.'),
    rentalRebate: NullableMoney('Legacy rebate benefit.'),
    discount: Nullable(Type.String({ maxLength: 32, description: 'Fraction 0..1 (0.2 is 20 %).' })),
    numberOfRentals: Nullable(Type.Integer()),
    applicableBranchIds: Type.Array(Type.Integer()),
    applicableVehicleCategoryIds: Type.Array(Type.Integer()),
  }),
);
export type SubscriptionCatalogItemDto = Static<typeof SubscriptionCatalogItem>;

/** A plan as the catalogue shows it. */
export function catalogItemDto(plan: Voucherable): SubscriptionCatalogItemDto {
  return {
    id: plan.id,
    code: plan.code ?? null,
    name: plan.name,
    description: plan.description ?? null,
    iconUrl: plan.iconUrl ?? null,
    status: plan.status,
    price: plan.price ?? null,
    currency: plan.currency,
    invoiceDescription: plan.invoiceDescription ?? null,
    interval: plan.interval ?? null,
    initialPrice: plan.initialPrice ?? null,
    initialIterations: plan.initialIterations ?? null,
    highlight: plan.highlight,
    showInUserApp: plan.showInUserApp,
    value: plan.value ?? null,
    rentalRebate: plan.rentalRebate ?? null,
    discount: plan.discount ?? null,
    numberOfRentals: plan.numberOfRentals ?? null,
    applicableBranchIds: plan.applicableBranchIds ?? [],
    applicableVehicleCategoryIds: plan.applicableVehicleCategoryIds ?? [],
  };
}

export const UserSubscriptionSchema = component(
  'UserSubscription',
  Type.Object({
    id: Id(),
    userId: Id({ description: 'The customer.' }),
    branchId: Id({ description: 'The branch it was bought for.' }),
    businessUnitId: Id(),
    subscription: SubscriptionCatalogItem,
    state: UserSubscriptionState,
    autoRenewal: AutoRenewalState,
    interval: SubscriptionInterval,
    price: Money('Gross per period of the pinned terms.'),
    initialPrice: NullableMoney('Gross of the first initialIterations periods.'),
    initialIterations: Nullable(Type.Integer()),
    currency: Str(3),
    timeZoneId: Str(64, { description: 'The calendar’s zone (the billing business unit’s at purchase).' }),
    boughtAt: DateTime(),
    currentPeriod: Type.Integer({ description: '0 while the purchase is being paid.' }),
    periodStartedAt: Nullable(DateTime()),
    validUntil: Nullable(DateTime({ description: 'End of the current period.' })),
    switchingTarget: Nullable(
      Type.Object(
        { subscription: SubscriptionCatalogItem, mode: SwitchMode },
        { description: 'A pending switch.' },
      ),
    ),
    latestInvoiceId: Nullable(Id()),
    remainingNumberOfRentals: Nullable(Type.Integer()),
    remainingValueGross: NullableMoney('What the current period’s vouchers have left.'),
    remainingValueNet: NullableMoney('The same, net of the business unit’s tax.'),
    endedAt: Nullable(DateTime()),
    createdBy: Str(200),
    workflowId: Str(300, { description: '`subscription:{tenant}:{id}`, in the Temporal UI.' }),
  }),
);
export type UserSubscriptionDto = Static<typeof UserSubscriptionSchema>;

/** The representations of subscription rows (their plans and current figures loaded in three queries). */
export async function userSubscriptionDtos(
  em: EntityManager,
  rows: readonly UserSubscription[],
): Promise<UserSubscriptionDto[]> {
  const planIds = [
    ...new Set(
      rows.flatMap((row) => [row.voucherableId, row.switchingTargetVoucherableId ?? row.voucherableId]),
    ),
  ];
  const plans = new Map(
    (planIds.length === 0 ? [] : await em.find(Voucherable, { id: { $in: planIds } })).map((plan) => [
      plan.id,
      plan,
    ]),
  );
  const figures = await currentPeriodFigures(em, rows);
  const planOf = (id: number) => {
    const plan = plans.get(id);
    if (!plan) throw new Error(`plan ${id} of a user subscription is missing`);
    return catalogItemDto(plan);
  };
  return rows.map((row) => {
    const figure = figures.get(row.id);
    return {
      id: row.id,
      userId: row.customer.id,
      branchId: row.branch.id,
      businessUnitId: row.businessUnit.id,
      subscription: planOf(row.voucherableId),
      state: row.state,
      autoRenewal: row.autoRenewal,
      interval: row.interval,
      price: row.price,
      initialPrice: row.initialPrice ?? null,
      initialIterations: row.initialIterations ?? null,
      currency: row.currency,
      timeZoneId: row.timeZoneId,
      boughtAt: row.boughtAt.toISOString(),
      currentPeriod: row.currentPeriod,
      periodStartedAt: row.periodStartedAt?.toISOString() ?? null,
      validUntil: row.validUntil?.toISOString() ?? null,
      switchingTarget:
        row.switchingTargetVoucherableId != null && row.switchMode
          ? { subscription: planOf(row.switchingTargetVoucherableId), mode: row.switchMode }
          : null,
      latestInvoiceId: row.latestInvoice?.id ?? null,
      remainingNumberOfRentals: figure?.remainingNumberOfRentals ?? null,
      remainingValueGross: figure?.remainingValueGross ?? null,
      remainingValueNet: figure?.remainingValueNet ?? null,
      endedAt: row.endedAt?.toISOString() ?? null,
      createdBy: row.createdBy,
      workflowId: row.workflowId,
    };
  });
}
