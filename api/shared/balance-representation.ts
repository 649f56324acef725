// Balances as both interfaces show them: the operator's balance (owner, unit), the extended view, the
// ledger rows, the app's balance (whether the caller owns it) and its history, and the referral-code
// grants. Every figure is a sum of the balance's ledger rows (db/balances.ts), never a stored value.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Balance } from '../../db/entities/Balance.js';
import { type BalanceAccess } from '../../db/entities/BalanceAccess.js';
import { type Customer } from '../../db/entities/Customer.js';
import { balanceFigures, type BalanceFigures, type LedgerRow } from '../../db/balances.js';
import { referralCodeOf, remainingVoucherValue } from '../../domain/balances.js';
import { balanceUpdateKinds } from '../../domain/finance.js';
import { formatAmount } from '../../domain/money.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';

const Money = (description: string) => Type.String({ description: `${description} Decimal string.` });

/** The figures every balance shows, from its ledger. */
const figureFields = {
  value: Money('The sum of its ledger rows: negative is owed, positive is credit.'),
  remainingVouchersGrossValue: Money(
    'Voucher credit not spent yet (charges spend voucher credit first; at most the value).',
  ),
  remainingMinutesValue: Type.String({
    description:
      'Free minutes left from FreeMinutes benefits on the balance, a decimal string; 0 while no ledger row carries minutes (the benefits domain grants them).',
  }),
};

export const BalanceSchema = component(
  'Balance',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      currency: Type.String(),
      ...figureFields,
      defaultBalance: Type.Boolean({ description: "The owner's default balance at its business unit." }),
      businessUnitId: Id(),
      guserId: Nullable(Id({ description: 'The owning customer; null for a business account.' })),
      userGroupId: Nullable(Id({ description: 'The owning business account; null for a customer.' })),
      systemCreated: Type.Boolean({
        description: 'Created by the system or an operator: the app cannot delete it.',
      }),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const BalanceExtendedSchema = component(
  'BalanceExtended',
  Type.Object(
    {
      ...BalanceSchema.properties,
      updateCount: Type.Integer({ description: 'Ledger rows.' }),
      invoiceCount: Type.Integer({ description: 'Distinct invoices its ledger rows link.' }),
      lastUpdateAt: Nullable(DateTime({ description: 'When its newest ledger row was written.' })),
      sharedWithCount: Type.Integer({ description: 'Customers the owner shared it with.' }),
      runningSettlementPaymentId: Nullable(
        Id({ description: 'The settlement payment still running (settle is refused with J104 meanwhile).' }),
      ),
    },
    { additionalProperties: false },
  ),
);

const BalanceUpdateKind = StringEnum(balanceUpdateKinds);

export const BalanceUpdateSchema = component(
  'BalanceUpdate',
  Type.Object(
    {
      id: Id(),
      balanceId: Id(),
      kind: BalanceUpdateKind,
      amount: Money('Signed: negative is a charge, positive a credit.'),
      valueAfter: Money('The balance right after this row (the running sum in ledger order).'),
      invoiceId: Nullable(Id()),
      paymentId: Nullable(Id()),
      voucherId: Nullable(Id()),
      description: Type.String(),
      createdBy: Type.String({ description: 'The operator, customer or `system` that caused it.' }),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const AppBalanceSchema = component(
  'AppBalance',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      currency: Type.String(),
      ...figureFields,
      defaultBalance: Type.Boolean({ description: "The owner's default balance at its business unit." }),
      businessUnitId: Id(),
      owned: Type.Boolean({ description: 'False for a balance another customer shared with the caller.' }),
      systemCreated: Type.Boolean({
        description: 'Created by the system or an operator: it cannot be deleted.',
      }),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const BalanceHistoryEntrySchema = component(
  'BalanceHistoryEntry',
  Type.Object(
    {
      id: Id(),
      kind: BalanceUpdateKind,
      amount: Money('Signed: negative is a charge, positive a credit.'),
      valueAfter: Money('The balance right after this entry.'),
      invoiceId: Nullable(Id({ description: 'The invoice it charged or settled.' })),
      voucherId: Nullable(Id({ description: 'The voucher that credited it.' })),
      description: Type.String(),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const BalanceUserSchema = component(
  'BalanceUser',
  Type.Object(
    {
      referralCode: Type.String({ description: "The customer's referral code (revoke with it)." }),
      firstName: Type.String(),
      grantedAt: DateTime(),
    },
    { additionalProperties: false, description: 'A customer the owner shared the balance with.' },
  ),
);

/** The figures of a balance in its currency. */
function figuresOf(balance: Balance, figures: BalanceFigures) {
  return {
    value: formatAmount(figures.value, balance.currency),
    remainingVouchersGrossValue: formatAmount(remainingVoucherValue(figures), balance.currency),
    remainingMinutesValue: '0',
  };
}

/** Operator balances with their figures (one query for all). */
export async function balanceDtos(
  em: EntityManager,
  balances: readonly Balance[],
): Promise<Static<typeof BalanceSchema>[]> {
  const figures = await balanceFigures(
    em,
    balances.map((balance) => balance.id),
  );
  return balances.map((balance) => ({
    id: balance.id,
    name: balance.name,
    currency: balance.currency,
    ...figuresOf(balance, figures.get(balance.id)!),
    defaultBalance: balance.isDefault,
    businessUnitId: balance.businessUnit.id,
    guserId: balance.customer?.id ?? null,
    userGroupId: balance.userGroup?.id ?? null,
    systemCreated: balance.systemCreated,
    createdAt: balance.createdAt.toISOString(),
  }));
}

/** One operator balance, re-read so its figures include what was just committed. */
export async function balanceDto(em: EntityManager, balance: Balance): Promise<Static<typeof BalanceSchema>> {
  return (await balanceDtos(em, [balance]))[0]!;
}

/** App balances with their figures; `owned` for the caller's own. */
export async function appBalanceDtos(
  em: EntityManager,
  customerId: number,
  balances: readonly Balance[],
): Promise<Static<typeof AppBalanceSchema>[]> {
  const figures = await balanceFigures(
    em,
    balances.map((balance) => balance.id),
  );
  return balances.map((balance) => ({
    id: balance.id,
    name: balance.name,
    currency: balance.currency,
    ...figuresOf(balance, figures.get(balance.id)!),
    defaultBalance: balance.isDefault,
    businessUnitId: balance.businessUnit.id,
    owned: balance.customer?.id === customerId,
    systemCreated: balance.systemCreated,
    createdAt: balance.createdAt.toISOString(),
  }));
}

/** A ledger row as the operator sees it. */
export function toBalanceUpdateDto(row: LedgerRow, currency: string): Static<typeof BalanceUpdateSchema> {
  return {
    id: row.id,
    balanceId: row.balanceId,
    kind: row.kind,
    amount: formatAmount(row.amount, currency),
    valueAfter: formatAmount(row.valueAfter, currency),
    invoiceId: row.invoiceId,
    paymentId: row.paymentId,
    voucherId: row.voucherId,
    description: row.description,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A ledger row as the app's history shows it. */
export function toHistoryEntry(row: LedgerRow, currency: string): Static<typeof BalanceHistoryEntrySchema> {
  return {
    id: row.id,
    kind: row.kind,
    amount: formatAmount(row.amount, currency),
    valueAfter: formatAmount(row.valueAfter, currency),
    invoiceId: row.invoiceId,
    voucherId: row.voucherId,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A grant as the owner sees it: who (referral code, first name) and since when. */
export function toBalanceUser(access: BalanceAccess, customer: Customer): Static<typeof BalanceUserSchema> {
  return {
    referralCode: referralCodeOf(customer.id),
    firstName: customer.firstName,
    grantedAt: access.grantedAt.toISOString(),
  };
}
