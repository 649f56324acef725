// Balances beside the ledger's primitives (db/balance-ledger.ts): what the representations are made of
// (sums of the ledger, pages of it with the running value, the extended view), and the writes of the
// operator's and the app's balance routes — creation, the owner's default, manual credit and debit,
// settlement by a collection invoice, deletion and sharing. A balance's value is never stored: every
// figure here is a sum of its `balance_update` rows, and every write of money is a new row.
import { DeadlockException, LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from './entities/Balance.js';
import { BalanceAccess } from './entities/BalanceAccess.js';
import { BalanceUpdate } from './entities/BalanceUpdate.js';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { Customer } from './entities/Customer.js';
import { Invoice } from './entities/Invoice.js';
import { InvoiceLine } from './entities/InvoiceLine.js';
import { Payment } from './entities/Payment.js';
import { UserGroup } from './entities/UserGroup.js';
import { appendBalanceUpdate, appendBalanceUpdateOnce, balanceValue } from './balance-ledger.js';
import { recordEvent } from './events.js';
import { nextInvoiceNumber, recordInvoiceCreated } from './invoices.js';
import { inTenantTransaction, tenantEm, type MikroORM } from './orm.js';
import { settingOrDefaults } from './settings.js';
import { DomainError } from '../domain/errors.js';
import { manualAmountProblem, type LedgerTotals } from '../domain/balances.js';
import {
  defaultManualCreditSettings,
  MANUAL_CREDIT_SETTING_KEY,
  runningPaymentStates,
  type BalanceUpdateKind,
  type ManualCreditSettings,
} from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';

// ---------------------------------------------------------------------------------------------------
// Reads

/** The ledger sums of one balance the representations show. */
export interface BalanceFigures extends LedgerTotals {
  updateCount: number;
  invoiceCount: number;
  lastUpdateAt: Date | null;
}

const noFigures: BalanceFigures = {
  value: '0',
  voucherCredit: '0',
  charged: '0',
  updateCount: 0,
  invoiceCount: 0,
  lastUpdateAt: null,
};

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/** The ledger sums of several balances in one query (a balance without rows has value 0). */
export async function balanceFigures(
  em: EntityManager,
  balanceIds: readonly number[],
): Promise<Map<number, BalanceFigures>> {
  const figures = new Map<number, BalanceFigures>(balanceIds.map((id) => [id, noFigures]));
  if (balanceIds.length === 0) return figures;
  const rows = await em.execute<
    {
      balance_id: number;
      value: string;
      voucher_credit: string;
      charged: string;
      update_count: number;
      invoice_count: number;
      last_update_at: Date | string | null;
    }[]
  >(
    `select balance_id, sum(amount)::text as value,
       coalesce(sum(amount) filter (where kind = 'VOUCHER'), 0)::text as voucher_credit,
       -- What charges spent: invoices less what refunds gave back, manual debits beyond the manual
       -- credits they correct (a reversal restores exactly what was there), and any other debit.
       (greatest(0, -coalesce(sum(amount) filter (where kind in ('INVOICE', 'REFUND')), 0))
        + greatest(0, -coalesce(sum(amount) filter (where kind = 'MANUAL_CREDIT'), 0))
        + coalesce(-sum(amount) filter (where amount < 0 and kind not in ('INVOICE', 'REFUND', 'MANUAL_CREDIT')), 0)
       )::text as charged,
       count(*)::int as update_count, count(distinct invoice_id)::int as invoice_count,
       max(created_at) as last_update_at
     from balance_update where balance_id in (?) group by balance_id`,
    [[...balanceIds]],
  );
  for (const row of rows)
    figures.set(row.balance_id, {
      value: row.value,
      voucherCredit: row.voucher_credit,
      charged: row.charged,
      updateCount: row.update_count,
      invoiceCount: row.invoice_count,
      lastUpdateAt: row.last_update_at === null ? null : asDate(row.last_update_at),
    });
  return figures;
}

/** One ledger row with the balance's value right after it (the running sum in row order). */
export interface LedgerRow {
  id: number;
  balanceId: number;
  kind: BalanceUpdateKind;
  amount: string;
  valueAfter: string;
  invoiceId: number | null;
  paymentId: number | null;
  voucherId: number | null;
  description: string;
  createdBy: string;
  createdAt: Date;
}

/**
 * A page of a balance's ledger, newest first, each row with the value after it; zero-amount rows only
 * when asked for (they never change the running value).
 */
export async function ledgerPage(
  em: EntityManager,
  tenant: string,
  balanceId: number,
  options: { includeZero: boolean; offset: number; limit: number },
): Promise<{ rows: LedgerRow[]; total: number }> {
  const zero = options.includeZero ? '' : ' and amount <> 0';
  const [rows, [count]] = await Promise.all([
    em.execute<
      {
        id: number;
        kind: BalanceUpdateKind;
        amount: string;
        value_after: string;
        invoice_id: number | null;
        payment_id: number | null;
        voucher_id: number | null;
        description: string;
        created_by: string;
        created_at: Date | string;
      }[]
    >(
      `select id, kind, amount::text as amount, value_after::text as value_after, invoice_id, payment_id,
         voucher_id, description, created_by, created_at
       from (select *, sum(amount) over (order by id) as value_after
             from balance_update where tenant_id = ? and balance_id = ?) ledger
       where true${zero} order by id desc limit ? offset ?`,
      [tenant, balanceId, options.limit, options.offset],
    ),
    em.execute<[{ total: number }]>(
      `select count(*)::int as total from balance_update where tenant_id = ? and balance_id = ?${zero}`,
      [tenant, balanceId],
    ),
  ]);
  return {
    total: count!.total,
    rows: rows.map((row) => ({
      id: row.id,
      balanceId,
      kind: row.kind,
      amount: row.amount,
      valueAfter: row.value_after,
      invoiceId: row.invoice_id,
      paymentId: row.payment_id,
      voucherId: row.voucher_id,
      description: row.description,
      createdBy: row.created_by,
      createdAt: asDate(row.created_at),
    })),
  };
}

/** A row just written, as a ledger page shows it (with the value after it). */
export async function ledgerRowOf(em: EntityManager, tenant: string, row: BalanceUpdate): Promise<LedgerRow> {
  const [sum] = await em.execute<[{ value: string }]>(
    `select coalesce(sum(amount), 0)::text as value from balance_update
     where tenant_id = ? and balance_id = ? and id <= ?`,
    [tenant, row.balance.id, row.id],
  );
  return {
    id: row.id,
    balanceId: row.balance.id,
    kind: row.kind,
    amount: row.amount,
    valueAfter: sum!.value,
    invoiceId: row.invoice?.id ?? null,
    paymentId: row.payment?.id ?? null,
    voucherId: row.voucherId ?? null,
    description: row.description,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
  };
}

/** A balance that is not deleted, or J404. */
export async function liveBalance(em: EntityManager, balanceId: number): Promise<Balance> {
  const balance = await em.findOne(Balance, { id: balanceId, deletedAt: null });
  if (!balance) throw new DomainError('J404', `balance ${balanceId} not found`);
  return balance;
}

/** Whose balances a list shows: a customer's, or (no customer) a business account's. */
export type BalanceOwnerFilter = { customerId: number } | { userGroupId: number };

/** Rows of one owner, the ones at the given business units only when given. */
export function ownerCondition(owner: BalanceOwnerFilter) {
  return 'customerId' in owner ? { customer: owner.customerId } : { userGroup: owner.userGroupId };
}

/** The settlement payments still running of these balances, by balance. */
export async function runningSettlements(
  em: EntityManager,
  balanceIds: readonly number[],
): Promise<Map<number, Payment>> {
  if (balanceIds.length === 0) return new Map();
  const payments = await em.find(Payment, {
    balance: { $in: [...balanceIds] },
    state: { $in: [...runningPaymentStates] },
  });
  return new Map(payments.map((payment) => [payment.balance!.id, payment]));
}

/** How many customers each balance is shared with. */
export async function sharedWithCounts(
  em: EntityManager,
  balanceIds: readonly number[],
): Promise<Map<number, number>> {
  if (balanceIds.length === 0) return new Map();
  const rows = await em.execute<{ balance_id: number; n: number }[]>(
    `select balance_id, count(*)::int as n from balance_access where balance_id in (?) group by balance_id`,
    [[...balanceIds]],
  );
  return new Map(rows.map((row) => [row.balance_id, row.n]));
}

/** What the extended view of balances is filtered by. */
export interface ExtendedFilter {
  businessUnitId?: number;
  balanceId?: number;
  customerId?: number;
  userGroupId?: number;
  /** Only balances whose value is below zero (owed). */
  negativeOnly?: boolean;
}

/**
 * The ids of a page of live balances under a filter, most owed first (value ascending, then id), and
 * how many there are: the value is the ledger's sum, computed per balance through its index.
 */
export async function extendedBalancePage(
  em: EntityManager,
  tenant: string,
  filter: ExtendedFilter,
  page: { offset: number; limit: number },
): Promise<{ ids: number[]; total: number }> {
  const conditions = ['b.tenant_id = ?', 'b.deleted_at is null'];
  const values: unknown[] = [tenant];
  const add = (condition: string, value: unknown) => {
    conditions.push(condition);
    values.push(value);
  };
  if (filter.businessUnitId !== undefined) add('b.business_unit_id = ?', filter.businessUnitId);
  if (filter.balanceId !== undefined) add('b.id = ?', filter.balanceId);
  if (filter.customerId !== undefined) add('b.customer_id = ?', filter.customerId);
  if (filter.userGroupId !== undefined) add('b.user_group_id = ?', filter.userGroupId);
  if (filter.negativeOnly) conditions.push('coalesce(ledger.value, 0) < 0');
  const from = `from balance b left join lateral
    (select sum(u.amount) as value from balance_update u where u.balance_id = b.id) ledger on true
    where ${conditions.join(' and ')}`;
  const [rows, [count]] = await Promise.all([
    em.execute<{ id: number }[]>(
      `select b.id ${from} order by coalesce(ledger.value, 0) asc, b.id asc limit ? offset ?`,
      [...values, page.limit, page.offset],
    ),
    em.execute<[{ total: number }]>(`select count(*)::int as total ${from}`, values),
  ]);
  return { ids: rows.map((row) => row.id), total: count!.total };
}

// ---------------------------------------------------------------------------------------------------
// Writes

/**
 * The owner's live balances at a business unit, read under a lock of the owner's row (NOWAIT: a
 * concurrent change of the owner's balances answers J112, retryable, instead of queueing). The row lock
 * (`for no key update`) leaves rows referencing the owner free to be written meanwhile.
 */
async function lockOwnerBalances(tx: EntityManager, owner: BalanceOwnerFilter, businessUnitId: number) {
  const [table, id] =
    'customerId' in owner ? ['customer', owner.customerId] : ['user_group', owner.userGroupId];
  try {
    await tx.execute(`select id from ${table} where id = ? for no key update nowait`, [id]);
  } catch (error) {
    // 55P03 lock_not_available: NOWAIT met another transaction changing this owner's balances.
    if ((error as { code?: string }).code !== '55P03' && !(error instanceof DeadlockException)) throw error;
    throw new DomainError('J112', 'another change of the default balance is running: try again', undefined, {
      cause: error,
    });
  }
  return tx.find(
    Balance,
    { ...ownerCondition(owner), businessUnit: businessUnitId, deletedAt: null },
    { orderBy: { id: 'asc' } },
  );
}

const ownerFilterOf = (balance: Balance): BalanceOwnerFilter =>
  balance.customer ? { customerId: balance.customer.id } : { userGroupId: balance.userGroup!.id };

/**
 * Creates a balance (in the business unit's currency) for a customer or a business account. It becomes
 * the owner's default at that unit when asked, or when the owner has no default there yet.
 */
export async function createBalance(
  tx: EntityManager,
  input: {
    owner: BalanceOwnerFilter;
    businessUnitId: number;
    name: string;
    systemCreated: boolean;
    makeDefault: boolean;
    createdBy: string;
  },
): Promise<Balance> {
  const unit = await tx.findOne(BusinessUnit, input.businessUnitId);
  if (!unit) throw new DomainError('B405', `business unit ${input.businessUnitId} not found`);
  const owner = input.owner;
  const customer = 'customerId' in owner ? await tx.findOne(Customer, owner.customerId) : null;
  if ('customerId' in owner && !customer)
    throw new DomainError('U106', `customer ${owner.customerId} not found`);
  const userGroup = 'userGroupId' in owner ? await tx.findOne(UserGroup, owner.userGroupId) : null;
  if ('userGroupId' in owner && !userGroup)
    throw new DomainError('UG404', `business account ${owner.userGroupId} not found`);
  const siblings = await lockOwnerBalances(tx, owner, unit.id);
  const makeDefault = input.makeDefault || !siblings.some((balance) => balance.isDefault);
  if (makeDefault) for (const sibling of siblings) sibling.isDefault = false;
  const balance = tx.create(Balance, {
    businessUnit: unit,
    customer,
    userGroup,
    name: input.name,
    currency: unit.currency,
    isDefault: makeDefault,
    systemCreated: input.systemCreated,
  });
  await tx.flush();
  recordEvent(tx, {
    type: 'BALANCE_CREATED',
    customerId: balance.customer?.id ?? null,
    adminSubject: input.createdBy,
    description: `balance "${balance.name}" created${makeDefault ? ' as the default' : ''}`,
    payload: {
      balanceId: balance.id,
      businessUnitId: unit.id,
      userGroupId: balance.userGroup?.id ?? null,
      defaultBalance: makeDefault,
    },
  });
  await tx.flush();
  return balance;
}

/** Makes a balance its owner's default at its business unit (the others there stop being it). */
export async function makeDefaultBalance(tx: EntityManager, balanceId: number, by: string): Promise<Balance> {
  const balance = await liveBalance(tx, balanceId);
  const siblings = await lockOwnerBalances(tx, ownerFilterOf(balance), balance.businessUnit.id);
  const locked = siblings.find((sibling) => sibling.id === balance.id);
  if (!locked) throw new DomainError('J404', `balance ${balanceId} not found`);
  for (const sibling of siblings) sibling.isDefault = sibling.id === balance.id;
  recordEvent(tx, {
    type: 'BALANCE_DEFAULT_SET',
    customerId: balance.customer?.id ?? null,
    adminSubject: by,
    payload: { balanceId: balance.id, businessUnitId: balance.businessUnit.id },
  });
  await tx.flush();
  return locked;
}

/** A manual credit (positive) or debit (negative) an operator posts, e.g. customer-care credit. */
export interface ManualUpdate {
  amount: string;
  description: string;
  createdBy: string;
  /** Names the request: the same key on the same balance writes one row (J115 when its content differs). */
  key: string;
}

/** The stored row for a key, or J115 when the key was used for another amount or text. */
function sameUpdate(
  row: BalanceUpdate,
  balanceId: number,
  amount: string,
  description: string,
): BalanceUpdate {
  if (row.balance.id !== balanceId || !new Decimal(row.amount).eq(amount) || row.description !== description)
    throw new DomainError('J115', 'this idempotency key was used for another balance update');
  return row;
}

/**
 * Posts a manual ledger row (kind MANUAL_CREDIT) once per key: a repeated request answers the row the
 * first one wrote, also when both run at once (the unique key lets one through). J116 for a zero amount
 * or one finer than the currency's minor unit.
 */
export async function postManualUpdate(
  orm: MikroORM,
  tenant: string,
  balanceId: number,
  update: ManualUpdate,
): Promise<{ row: BalanceUpdate; created: boolean }> {
  const idempotencyKey = `manual:${balanceId}:${update.key}`;
  // The tenant's limit of one manual credit or debit, read before the transaction (the read cache loads
  // nothing inside one).
  const limit = await settingOrDefaults<ManualCreditSettings>(
    tenantEm(orm, tenant),
    tenant,
    MANUAL_CREDIT_SETTING_KEY,
    undefined,
    defaultManualCreditSettings,
  );
  try {
    return await inTenantTransaction(orm, tenant, async (tx) => {
      const balance = await liveBalance(tx, balanceId);
      const problem = manualAmountProblem(update.amount, balance.currency);
      if (problem) throw new DomainError('J116', problem);
      const max = new Decimal(
        /^(0|[1-9][0-9]{0,9})(\.[0-9]{1,6})?$/.test(String(limit.maxAmount))
          ? limit.maxAmount
          : defaultManualCreditSettings.maxAmount,
      );
      if (new Decimal(update.amount).abs().gt(max))
        throw new DomainError(
          'J116',
          `a manual credit or debit is at most ${formatAmount(max, balance.currency)} ${balance.currency} (setting ${MANUAL_CREDIT_SETTING_KEY})`,
        );
      const amount = formatAmount(update.amount, balance.currency);
      const existing = await tx.findOne(BalanceUpdate, { idempotencyKey });
      if (existing)
        return { row: sameUpdate(existing, balanceId, amount, update.description), created: false };
      const appended = await appendBalanceUpdateOnce(tx, {
        balance,
        kind: 'MANUAL_CREDIT',
        amount,
        description: update.description,
        createdBy: update.createdBy,
        idempotencyKey,
      });
      // A request with the same key committed between the lookup above and this one: answer its row.
      if (!appended.created)
        return { row: sameUpdate(appended.row, balanceId, amount, update.description), created: false };
      const row = appended.row;
      // appendBalanceUpdate wrote its BALANCE_UPDATED (value before and after).
      await tx.flush();
      return { row, created: true };
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    // A concurrent request with the same key committed first: answer its row.
    const em = tenantEm(orm, tenant);
    const row = await em.findOneOrFail(BalanceUpdate, { idempotencyKey });
    const balance = await em.findOneOrFail(Balance, balanceId);
    return {
      row: sameUpdate(row, balanceId, formatAmount(update.amount, balance.currency), update.description),
      created: false,
    };
  }
}

/**
 * Settles a negative balance with a collection invoice: under the balance's row lock, an invoice in
 * state COLLECTION (billed now) for the debt, with one tax-free line (the debt is of invoices already
 * issued, whose tax was charged on them), and a positive SETTLEMENT row linking it, so the balance is
 * zero and the debt is the invoice's. J100 unless the balance is negative, J104 while a settlement
 * payment runs, J117 for a business account without an owner to address the invoice to.
 */
export async function settleByCollectionInvoice(
  tx: EntityManager,
  tenant: string,
  balanceId: number,
  by: string,
  requestKey: string,
): Promise<{ invoice: Invoice; update: BalanceUpdate }> {
  const balance = await tx.findOne(
    Balance,
    { id: balanceId, deletedAt: null },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!balance) throw new DomainError('J404', `balance ${balanceId} not found`);
  const value = new Decimal(await balanceValue(tx, balance.id));
  if (value.gte(0)) throw new DomainError('J100', `the balance is ${formatAmount(value, balance.currency)}`);
  if (await tx.count(Payment, { balance: balance.id, state: { $in: [...runningPaymentStates] } }))
    throw new DomainError('J104', 'a settlement payment of the balance is running');
  const group = balance.userGroup ? await tx.findOneOrFail(UserGroup, balance.userGroup.id) : null;
  const customerId = balance.customer?.id ?? group?.owner?.id;
  if (customerId === undefined)
    throw new DomainError('J117', 'the business account has no owner to address the invoice to');
  const unit = await tx.findOneOrFail(BusinessUnit, balance.businessUnit.id);
  const at = new Date();
  const amount = formatAmount(value.neg(), balance.currency);
  const zero = formatAmount('0', balance.currency);
  const description = `Debt of balance "${balance.name}" moved to this invoice for collection`;
  const invoice = tx.create(Invoice, {
    number: await nextInvoiceNumber(tx, tenant, unit, at),
    type: group ? 'BUSINESS' : 'REGULAR',
    state: 'COLLECTION',
    businessUnit: unit,
    customer: tx.getReference(Customer, customerId),
    userGroup: group,
    title: `Balance ${balance.name}: debt for collection`,
    description,
    currency: balance.currency,
    totalNet: amount,
    totalTax: zero,
    totalGross: amount,
    issuedAt: at,
    billedAt: at,
    idempotencyKey: `balance:${balance.id}:collection:${requestKey}`,
  });
  tx.create(InvoiceLine, {
    invoice,
    position: 1,
    code: 'BALANCE_DEBT',
    group: 'ADJUSTMENT',
    phase: null,
    description,
    quantity: '1.000',
    unit: 'PIECE',
    unitPrice: amount,
    net: amount,
    tax: zero,
    gross: amount,
    taxPercentage: '0',
  });
  await tx.flush();
  const update = await appendBalanceUpdate(tx, {
    balance,
    kind: 'SETTLEMENT',
    amount,
    description: `Settled by collection invoice ${invoice.number}`,
    createdBy: by,
    idempotencyKey: `balance:${balance.id}:collection:${invoice.id}`,
    invoiceId: invoice.id,
  });
  await tx.flush();
  recordInvoiceCreated(tx, invoice, {
    branchId: null,
    rentalIds: [],
    bookingId: null,
    idempotencyKey: `${invoice.idempotencyKey}:INVOICE_CREATED`,
  });
  recordEvent(tx, {
    type: 'BALANCE_SETTLED_BY_COLLECTION_INVOICE',
    customerId: balance.customer?.id ?? customerId,
    adminSubject: by,
    description: `debt of ${amount} ${balance.currency} moved to invoice ${invoice.number}`,
    payload: { balanceId: balance.id, invoiceId: invoice.id, balanceUpdateId: update.id, amount },
  });
  await tx.flush();
  return { invoice, update };
}

/**
 * Deletes a customer's own balance (kept as a row with `deletedAt`, no longer shown): J107 unless the
 * customer owns it, J106 when the system created it, J108 once it has ledger rows.
 */
export async function deleteOwnBalance(
  tx: EntityManager,
  balanceId: number,
  customerId: number,
): Promise<void> {
  const balance = await tx.findOne(
    Balance,
    { id: balanceId, deletedAt: null },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!balance) throw new DomainError('J404', `balance ${balanceId} not found`);
  if (balance.customer?.id !== customerId) throw new DomainError('J107');
  if (balance.systemCreated) throw new DomainError('J106');
  if (await tx.count(BalanceUpdate, { balance: balance.id })) throw new DomainError('J108');
  balance.deletedAt = new Date();
  balance.isDefault = false;
  recordEvent(tx, {
    type: 'BALANCE_DELETED',
    customerId,
    adminSubject: `customer:${customerId}`,
    payload: { balanceId: balance.id },
  });
  await tx.flush();
}

/** Shares a balance with a customer (idempotent); J118 for its owner, who holds it already. */
export async function grantBalanceAccess(
  orm: MikroORM,
  tenant: string,
  balance: Balance,
  customer: Customer,
): Promise<BalanceAccess> {
  if (balance.customer?.id === customer.id) throw new DomainError('J118');
  const find = (em: EntityManager) =>
    em.findOne(BalanceAccess, { balance: balance.id, customer: customer.id });
  try {
    return await inTenantTransaction(orm, tenant, async (tx) => {
      const existing = await find(tx);
      if (existing) return existing;
      const access = tx.create(BalanceAccess, {
        balance: tx.getReference(Balance, balance.id),
        customer: tx.getReference(Customer, customer.id),
      });
      recordEvent(tx, {
        type: 'BALANCE_ACCESS_GRANTED',
        customerId: balance.customer?.id ?? null,
        adminSubject: `customer:${balance.customer?.id}`,
        payload: { balanceId: balance.id, grantedTo: customer.id },
      });
      await tx.flush();
      return access;
    });
  } catch (error) {
    // The same grant at once: one row (the unique balance-customer pair), answered to both.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return (await find(tenantEm(orm, tenant)))!;
  }
}

/** Revokes a customer's access to a balance; nothing to revoke is no error (idempotent). */
export async function revokeBalanceAccess(
  em: EntityManager,
  balance: Balance,
  customerId: number,
): Promise<void> {
  const removed = await em.nativeDelete(BalanceAccess, { balance: balance.id, customer: customerId });
  if (removed > 0)
    recordEvent(em, {
      type: 'BALANCE_ACCESS_REVOKED',
      customerId: balance.customer?.id ?? null,
      adminSubject: `customer:${balance.customer?.id}`,
      payload: { balanceId: balance.id, revokedFrom: customerId },
    });
}
