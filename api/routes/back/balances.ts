// Balances for finance staff: the ledgers of customers and business accounts per business unit — lists,
// the extended view, a balance with its events and ledger rows, creation and manual credit or debit,
// and settling a negative balance (a payment workflow charging the owner's default source, in bulk, or a
// collection invoice taking the debt over). Finance permissions are checked on the balance's business
// unit (BALANCE_READ, BALANCE_UPDATE, BALANCE_SETTLE), never on a branch.
import { Type, type Static } from '@sinclair/typebox';
import { Balance } from '../../../db/entities/Balance.js';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Customer } from '../../../db/entities/Customer.js';
import { Event } from '../../../db/entities/Event.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import {
  balanceFigures,
  createBalance,
  extendedBalancePage,
  ledgerPage,
  ledgerRowOf,
  liveBalance,
  ownerCondition,
  postManualUpdate,
  runningSettlements,
  settleByCollectionInvoice,
  sharedWithCounts,
  type BalanceOwnerFilter,
} from '../../../db/balances.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { balanceEventTypes } from '../../../domain/balances.js';
import { DomainError, isDomainError, type ErrorCode } from '../../../domain/errors.js';
import { formatAmount } from '../../../domain/money.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  balanceDto,
  balanceDtos,
  BalanceExtendedSchema,
  BalanceSchema,
  BalanceUpdateSchema,
  toBalanceUpdateDto,
} from '../../shared/balance-representation.js';
import { balanceSettlementErrors, startBalanceSettlement } from '../../shared/payment-commands.js';
import { paymentDtos, PaymentSchema } from '../../shared/payment-representation.js';

const tags = ['Balances'];
const BalanceIdParams = Type.Object({ balanceId: Id() });

/** The balance of the path (not deleted), loaded once per request: J404 otherwise. */
const balanceOf = (ctx: RouteContext<{ balanceId: number }>) =>
  ctx.once('balance', () => liveBalance(ctx.em, ctx.params.balanceId));

/** A finance permission on the business unit of the path's balance. */
const onTheBalance = (permission: string) => ({
  permission,
  businessUnitOf: "the balance's business unit",
  businessUnit: async (ctx: RouteContext<{ balanceId: number }>) => (await balanceOf(ctx)).businessUnit.id,
});

// ---------------------------------------------------------------------------------------------------
// Lists and creation (shared with the deprecated per-customer and per-group paths)

/** The owner a list or creation names: `userId` wins over `groupId`; neither is 0022. */
export function ownerFrom(ids: { userId?: number; groupId?: number }): BalanceOwnerFilter {
  if (ids.userId !== undefined) return { customerId: ids.userId };
  if (ids.groupId !== undefined) return { userGroupId: ids.groupId };
  throw new DomainError('0022', 'give userId or groupId');
}

/** U106 or UG404 unless the owner exists in the tenant. */
async function assertOwnerExists(ctx: RouteContext, owner: BalanceOwnerFilter): Promise<void> {
  if ('customerId' in owner) {
    if (!(await ctx.em.count(Customer, owner.customerId)))
      throw new DomainError('U106', `customer ${owner.customerId} not found`);
  } else if (!(await ctx.em.count(UserGroup, owner.userGroupId)))
    throw new DomainError('UG404', `business account ${owner.userGroupId} not found`);
}

/**
 * The business units on which the caller holds a finance permission (a grant on a branch gives none);
 * AUTH002 when there is none.
 */
async function unitsHolding(ctx: RouteContext, permission: string): Promise<Set<number>> {
  const units = await ctx.em.find(BusinessUnit, {}, { fields: ['id'], orderBy: { id: 'asc' } });
  const holding = new Set<number>();
  for (const unit of units)
    if (await ctx.holds({ permission, businessUnitId: unit.id })) holding.add(unit.id);
  if (holding.size === 0)
    throw new DomainError('AUTH002', `missing permission ${permission} on any business unit`);
  return holding;
}

/** What listing an owner's balances may answer (the deprecated paths list it too). */
export const listBalancesErrors = [
  'AUTH002',
  'B404',
  'U106',
  'UG404',
] as const satisfies readonly ErrorCode[];

/**
 * An owner's live balances the caller may read: at the business unit of `branchId` (BALANCE_READ there,
 * else AUTH002), or at every unit the caller holds BALANCE_READ on (AUTH002 when none).
 */
export async function listOwnerBalances(
  ctx: RouteContext,
  owner: BalanceOwnerFilter,
  branchId: number | undefined,
) {
  let units: Set<number>;
  if (branchId !== undefined) {
    const unitId = (await businessUnitOfBranch(ctx.em, branchId)).id;
    await ctx.authorize('BALANCE_READ', { businessUnitId: unitId });
    units = new Set([unitId]);
  } else units = await unitsHolding(ctx, 'BALANCE_READ');
  await assertOwnerExists(ctx, owner);
  const readable = await ctx.em.find(
    Balance,
    { ...ownerCondition(owner), deletedAt: null, businessUnit: { $in: [...units] } },
    { orderBy: { businessUnit: 'asc', id: 'asc' } },
  );
  const page = readable.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
  return ok(await balanceDtos(ctx.em, page), { total: readable.length });
}

/** The body of a balance creation besides the owner (the deprecated paths take the owner from the path). */
export const BalanceCreateFields = {
  businessUnitId: Id({ description: 'The business unit the balance is kept at (its currency).' }),
  name: Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' }),
  defaultBalance: Type.Optional(
    Type.Boolean({
      default: false,
      description: "Make it the owner's default at the unit (the first balance there is the default anyway).",
    }),
  ),
};

/** What creating a balance may answer. */
export const createBalanceErrors = ['B405', 'U106', 'UG404', 'J112'] as const satisfies readonly ErrorCode[];

/** Creates a balance for an owner (system-created: the app cannot delete it) and answers it with Location. */
export async function createOwnerBalance(
  ctx: RouteContext,
  owner: BalanceOwnerFilter,
  body: { businessUnitId: number; name: string; defaultBalance?: boolean },
) {
  const balance = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
    createBalance(tx, {
      owner,
      businessUnitId: body.businessUnitId,
      name: body.name.trim(),
      systemCreated: true,
      makeDefault: body.defaultBalance ?? false,
      createdBy: ctx.actor,
    }),
  );
  const row = await ctx.em.findOneOrFail(Balance, balance.id);
  return created(await balanceDto(ctx.em, row), { Location: `${ctx.baseUrl}/balances/${balance.id}` });
}

const Location = { Location: { description: 'URL of the new balance.', schema: Str(200) } };

export const listBalances = defineRoute({
  operationId: 'listBalances',
  method: 'get',
  path: '/balances',
  interface: 'back',
  summary: 'Balances of a customer or a business account',
  description:
    'Give `userId` or `groupId` (`userId` wins when both are given; neither is 0022). With `branchId`, the balances at its business unit (BALANCE_READ there); without, those at every business unit the caller holds BALANCE_READ on. Deleted balances are not listed.',
  tags,
  query: Type.Object({
    userId: Type.Optional(Id({ description: 'The customer.' })),
    groupId: Type.Optional(Id({ description: 'The business account.' })),
    branchId: Type.Optional(Id({ description: "Only the balances at this branch's business unit." })),
  }),
  paged: { defaultSize: 50 },
  access: { anyCaller: 'the handler requires BALANCE_READ on the business units whose balances it shows.' },
  responses: { 200: { description: 'One page of balances', schema: Type.Array(BalanceSchema) } },
  errors: [...listBalancesErrors],
  async handler(ctx) {
    return listOwnerBalances(ctx, ownerFrom(ctx.query), ctx.query.branchId);
  },
});

export const createBalanceRoute = defineRoute({
  operationId: 'createBalance',
  method: 'post',
  path: '/balances',
  interface: 'back',
  summary: 'Create a balance for a customer or a business account at a business unit',
  description:
    "Give `userId` or `groupId` (`userId` wins; neither is 0022). The balance keeps the unit's currency, starts at 0 and is system-created (the app cannot delete it). To credit or debit it, post a ledger row: `POST /balances/{balanceId}/updates`.",
  tags,
  body: Type.Object(
    {
      userId: Type.Optional(Id({ description: 'The customer.' })),
      groupId: Type.Optional(Id({ description: 'The business account.' })),
      ...BalanceCreateFields,
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'BALANCE_UPDATE',
    businessUnitOf: 'the `businessUnitId` of the body',
    businessUnit: (ctx) => ctx.body.businessUnitId,
  },
  responses: { 201: { description: 'The balance', schema: BalanceSchema, headers: Location } },
  errors: [...createBalanceErrors],
  async handler(ctx) {
    return createOwnerBalance(ctx, ownerFrom(ctx.body), ctx.body);
  },
});

// ---------------------------------------------------------------------------------------------------
// Reads of one balance and the extended view

export const getBalance = defineRoute({
  operationId: 'getBalance',
  method: 'get',
  path: '/balances/{balanceId}',
  interface: 'back',
  summary: 'One balance with its value (the sum of its ledger)',
  tags,
  params: BalanceIdParams,
  access: onTheBalance('BALANCE_READ'),
  responses: { 200: { description: 'The balance', schema: BalanceSchema } },
  errors: ['J404'],
  async handler(ctx) {
    return ok(await balanceDto(ctx.em, await balanceOf(ctx)));
  },
});

const BalanceEvent = component(
  'BalanceEvent',
  Type.Object(
    {
      id: Type.Integer({ format: 'int64', minimum: 1 }),
      type: StringEnum(balanceEventTypes),
      createdAt: DateTime(),
      balanceId: Id(),
      guserId: Nullable(Id()),
      adminGuser: Nullable(Type.String({ description: 'The operator, customer or system that caused it.' })),
      description: Nullable(Type.String()),
      payload: Nullable(Type.Object({})),
    },
    { additionalProperties: false },
  ),
);

export const balanceEvents = defineRoute({
  operationId: 'getBalanceEvents',
  method: 'get',
  path: '/balances/{balanceId}/events',
  interface: 'back',
  summary: "A balance's events, oldest first",
  description: `The BALANCE_ events of the balance (${balanceEventTypes.join(', ')}); each carries \`balanceId\`.`,
  tags,
  params: BalanceIdParams,
  paged: { defaultSize: 50 },
  access: onTheBalance('BALANCE_READ'),
  responses: { 200: { description: 'Events', schema: Type.Array(BalanceEvent) } },
  errors: ['J404'],
  async handler(ctx) {
    const { em, tenant, page } = ctx;
    const balance = await balanceOf(ctx);
    // Served by the event's (tenant, type, created_at) index; the balance is the payload's.
    const where = `where tenant_id = ? and type in (?) and payload->>'balanceId' = ?`;
    const values = [tenant, [...balanceEventTypes], String(balance.id)];
    const [rows, [count]] = await Promise.all([
      em.execute<{ id: string }[]>(`select id from event ${where} order by id asc limit ? offset ?`, [
        ...values,
        page.size,
        page.offset,
      ]),
      em.execute<[{ total: number }]>(`select count(*)::int as total from event ${where}`, values),
    ]);
    const events = rows.length
      ? await em.find(Event, { id: { $in: rows.map((row) => String(row.id)) } }, { orderBy: { id: 'asc' } })
      : [];
    return ok(
      events.map((event) => ({
        id: Number(event.id),
        type: event.type as (typeof balanceEventTypes)[number],
        createdAt: event.createdAt.toISOString(),
        balanceId: balance.id,
        guserId: event.customerId ?? null,
        adminGuser: event.adminSubject ?? null,
        description: event.description ?? null,
        payload: event.payload ?? null,
      })),
      { total: count!.total },
    );
  },
});

export const balanceUpdates = defineRoute({
  operationId: 'getBalanceUpdates',
  method: 'get',
  path: '/balances/{balanceId}/updates',
  interface: 'back',
  summary: "A balance's ledger rows, newest first",
  description:
    'Every row (zero amounts included), each with the value after it. The rows are append-only: a correction is a new row.',
  tags,
  params: BalanceIdParams,
  paged: { defaultSize: 50 },
  access: onTheBalance('BALANCE_READ'),
  responses: { 200: { description: 'Ledger rows', schema: Type.Array(BalanceUpdateSchema) } },
  errors: ['J404'],
  async handler(ctx) {
    const balance = await balanceOf(ctx);
    const { rows, total } = await ledgerPage(ctx.em, ctx.tenant, balance.id, {
      includeZero: true,
      offset: ctx.page.offset,
      limit: ctx.page.size,
    });
    return ok(
      rows.map((row) => toBalanceUpdateDto(row, balance.currency)),
      { total },
    );
  },
});

export const postBalanceUpdate = defineRoute({
  operationId: 'postBalanceUpdate',
  method: 'post',
  path: '/balances/{balanceId}/updates',
  interface: 'back',
  summary: 'Post a manual credit or debit (customer-care credit) to a balance',
  description:
    "Appends a MANUAL_CREDIT ledger row: a positive `amount` credits the balance, a negative one debits it; at most the currency's minor digits, never zero (J116). With `idempotencyKey` a repeated request writes nothing and answers the row of the first (200); the same key with another amount or description is J115.",
  tags,
  params: BalanceIdParams,
  body: Type.Object(
    {
      amount: Str(20, {
        pattern: '^-?(0|[1-9][0-9]{0,9})(\\.[0-9]{1,6})?$',
        description: 'Signed decimal string in the balance currency, e.g. `10.00` or `-2.50`.',
      }),
      description: Str(500, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' }),
      idempotencyKey: Type.Optional(
        Str(100, {
          minLength: 1,
          pattern: '^[A-Za-z0-9._:-]+$',
          description: 'Names the request for retries.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  access: onTheBalance('BALANCE_UPDATE'),
  responses: {
    200: { description: 'The row a request with the same key wrote', schema: BalanceUpdateSchema },
    201: { description: 'The ledger row written', schema: BalanceUpdateSchema },
  },
  errors: ['J404', 'J115', 'J116'],
  async handler(ctx) {
    const balance = await balanceOf(ctx);
    const { row, created: written } = await postManualUpdate(ctx.services.orm, ctx.tenant, balance.id, {
      amount: ctx.body.amount,
      description: ctx.body.description.trim(),
      createdBy: ctx.actor,
      key: ctx.body.idempotencyKey ?? `request:${ctx.traceId}`,
    });
    const dto = toBalanceUpdateDto(await ledgerRowOf(ctx.em, ctx.tenant, row), balance.currency);
    return written ? created(dto) : ok(dto);
  },
});

const ExtendedQuery = Type.Object({
  branchId: Type.Optional(Id({ description: "The balances at this branch's business unit." })),
  balanceId: Type.Optional(Id({ description: 'This balance only.' })),
  userId: Type.Optional(Id({ description: 'Only this customer’s balances.' })),
  groupId: Type.Optional(Id({ description: 'Only this business account’s balances.' })),
  negativeOnly: Type.Optional(
    Type.Boolean({ default: false, description: 'Only balances below zero (owed).' }),
  ),
});

/** The business unit of the extended view: J102 unless exactly one of balanceId and branchId is given. */
const extendedUnit = (ctx: RouteContext<unknown, Static<typeof ExtendedQuery>>) =>
  ctx.once('extendedUnit', async () => {
    const { branchId, balanceId } = ctx.query;
    if ((branchId === undefined) === (balanceId === undefined))
      throw new DomainError('J102', 'give balanceId or branchId (one of them)');
    if (balanceId !== undefined) return (await liveBalance(ctx.em, balanceId)).businessUnit.id;
    return (await businessUnitOfBranch(ctx.em, branchId!)).id;
  });

export const extendedBalances = defineRoute({
  operationId: 'listBalancesExtended',
  method: 'get',
  path: '/balances/extended',
  interface: 'back',
  summary: 'Balances with their ledger figures, most owed first',
  description:
    "One of `branchId` (the balances at its business unit) or `balanceId` (that balance), not both (J102). Each balance with its value, remaining voucher value, ledger row and invoice counts, newest row's time, how many customers it is shared with, and its running settlement payment. Sorted by value ascending (most owed first), then id; `negativeOnly` keeps the balances below zero.",
  tags,
  query: ExtendedQuery,
  paged: { defaultSize: 50 },
  access: {
    permission: 'BALANCE_READ',
    businessUnitOf: "the balance's, or the branch's business unit",
    businessUnit: (ctx) => extendedUnit(ctx),
  },
  responses: { 200: { description: 'One page of balances', schema: Type.Array(BalanceExtendedSchema) } },
  errors: ['J102', 'J404', 'B404'],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const { ids, total } = await extendedBalancePage(
      em,
      ctx.tenant,
      {
        businessUnitId: await extendedUnit(ctx),
        balanceId: query.balanceId,
        customerId: query.userId,
        userGroupId: query.userId === undefined ? query.groupId : undefined,
        negativeOnly: query.negativeOnly,
      },
      { offset: page.offset, limit: page.size },
    );
    const balances = await em.find(Balance, { id: { $in: ids } });
    const ordered = ids.map((id) => balances.find((balance) => balance.id === id)!);
    const [dtos, figures, running, shared] = await Promise.all([
      balanceDtos(em, ordered),
      balanceFigures(em, ids),
      runningSettlements(em, ids),
      sharedWithCounts(em, ids),
    ]);
    return ok(
      dtos.map((dto) => {
        const figure = figures.get(dto.id)!;
        return {
          ...dto,
          updateCount: figure.updateCount,
          invoiceCount: figure.invoiceCount,
          lastUpdateAt: figure.lastUpdateAt?.toISOString() ?? null,
          sharedWithCount: shared.get(dto.id) ?? 0,
          runningSettlementPaymentId: running.get(dto.id)?.id ?? null,
        };
      }),
      { total },
    );
  },
});

// ---------------------------------------------------------------------------------------------------
// Settlement

/** Starts the settlement payment of a balance and records BALANCE_SETTLEMENT_STARTED. */
async function settle(ctx: RouteContext, balance: Balance) {
  const payment = await startBalanceSettlement(ctx, balance, ctx.actor);
  ctx.recordEvent({
    type: 'BALANCE_SETTLEMENT_STARTED',
    customerId: balance.customer?.id ?? null,
    description: `settlement of ${formatAmount(payment.amount, payment.currency)} ${payment.currency} started`,
    payload: {
      balanceId: balance.id,
      paymentId: payment.id,
      amount: payment.amount,
      currency: payment.currency,
    },
  });
  return payment;
}

export const settleBalance = defineRoute({
  operationId: 'settleBalance',
  method: 'post',
  path: '/balances/{balanceId}/settle',
  interface: 'back',
  summary: "Charge a negative balance to its owner's default payment source",
  description:
    "Starts a payment workflow (`payment:{tenant}:{paymentId}`) for the debt, charging the owner's default payment source (the one at the balance's business unit first); when it is PAID a SETTLEMENT ledger row brings the balance back by the amount. J100 when the balance is zero or positive, J103 without a payment source, J104 while a settlement runs.",
  tags,
  params: BalanceIdParams,
  access: onTheBalance('BALANCE_SETTLE'),
  responses: { 202: { description: 'The settlement payment, started', schema: PaymentSchema } },
  errors: ['J404', ...balanceSettlementErrors],
  async handler(ctx) {
    const payment = await settle(ctx, await balanceOf(ctx));
    const [dto] = await paymentDtos(ctx.em, [payment]);
    return { status: 202 as const, body: dto! };
  },
});

const BulkSettleOutcome = component(
  'BalanceSettleOutcome',
  Type.Object(
    {
      balanceId: Id(),
      outcome: StringEnum(['STARTED', 'REFUSED'] as const),
      paymentId: Nullable(Id({ description: 'STARTED: the settlement payment.' })),
      errorCode: Nullable(
        Type.String({ description: 'REFUSED: the catalogue code (J100, J103, J104, J404, AUTH002).' }),
      ),
      message: Nullable(Type.String()),
    },
    { additionalProperties: false },
  ),
);

export const bulkSettleBalances = defineRoute({
  operationId: 'bulkSettleBalances',
  method: 'post',
  path: '/balances/bulk-settle',
  interface: 'back',
  summary: 'Settle many balances; one outcome per balance',
  description:
    'Each balance is settled as `POST /balances/{balanceId}/settle` does, in the order given. A balance that is refused (J100, J103, J104, J404, or AUTH002 without BALANCE_SETTLE on its business unit) does not stop the others: its outcome says why. The caller needs BALANCE_SETTLE on some business unit.',
  tags,
  body: Type.Object(
    {
      balanceIds: Type.Array(Id(), { minItems: 1, maxItems: 100, uniqueItems: true }),
    },
    { additionalProperties: false },
  ),
  access: { anyCaller: "the handler requires BALANCE_SETTLE on each balance's business unit." },
  responses: { 200: { description: 'One outcome per balance', schema: Type.Array(BulkSettleOutcome) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    const units = await unitsHolding(ctx, 'BALANCE_SETTLE');
    const outcomes: Static<typeof BulkSettleOutcome>[] = [];
    for (const balanceId of ctx.body.balanceIds) {
      try {
        const balance = await liveBalance(ctx.em, balanceId);
        if (!units.has(balance.businessUnit.id))
          throw new DomainError('AUTH002', 'missing permission BALANCE_SETTLE on its business unit');
        const payment = await settle(ctx, balance);
        outcomes.push({
          balanceId,
          outcome: 'STARTED',
          paymentId: payment.id,
          errorCode: null,
          message: null,
        });
      } catch (error) {
        if (!isDomainError(error)) throw error;
        outcomes.push({
          balanceId,
          outcome: 'REFUSED',
          paymentId: null,
          errorCode: error.code,
          message: error.message,
        });
      }
    }
    return ok(outcomes);
  },
});

const CollectionSettlement = component(
  'BalanceCollectionSettlement',
  Type.Object(
    {
      invoiceId: Id({ description: 'The COLLECTION invoice now carrying the debt.' }),
      invoiceNumber: Type.String(),
      amount: Type.String({ description: 'The debt moved to the invoice. Decimal string.' }),
      currency: Type.String(),
      balanceUpdate: BalanceUpdateSchema,
      balance: BalanceSchema,
    },
    { additionalProperties: false },
  ),
);

export const settleByCollection = defineRoute({
  operationId: 'settleBalanceByCollectionInvoice',
  method: 'post',
  path: '/balances/{balanceId}/settle-by-collection-invoice',
  interface: 'back',
  summary: 'Move the debt of a negative balance to a collection invoice',
  description:
    "Issues an invoice in state COLLECTION (billed now, numbered in the business unit's sequence) for the debt, with one tax-free line (the debt is of invoices already issued and taxed), and writes a positive SETTLEMENT ledger row linking it: the balance is back to zero and the invoice is collected as any collection invoice (set paid externally, mark as lost). A business account's invoice is addressed to its owner (J117 without one). J100 unless the balance is negative; J104 while a settlement payment runs.",
  tags,
  params: BalanceIdParams,
  access: onTheBalance('BALANCE_SETTLE'),
  responses: { 201: { description: 'The invoice and the settlement row', schema: CollectionSettlement } },
  errors: ['J404', 'J100', 'J104', 'J117'],
  async handler(ctx) {
    const balance = await balanceOf(ctx);
    const { invoice, update } = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      settleByCollectionInvoice(tx, ctx.tenant, balance.id, ctx.actor, ctx.traceId),
    );
    return created({
      invoiceId: invoice.id,
      invoiceNumber: invoice.number,
      amount: formatAmount(invoice.totalGross, invoice.currency),
      currency: invoice.currency,
      balanceUpdate: toBalanceUpdateDto(await ledgerRowOf(ctx.em, ctx.tenant, update), balance.currency),
      balance: await balanceDto(ctx.em, balance),
    });
  },
});

export const balanceRoutes = [
  listBalances,
  createBalanceRoute,
  extendedBalances,
  getBalance,
  balanceEvents,
  balanceUpdates,
  postBalanceUpdate,
  settleBalance,
  bulkSettleBalances,
  settleByCollection,
];
