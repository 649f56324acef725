// The signed-in customer's balances in the app: their own and those other customers shared with them —
// list (by the business unit of a branch or a vehicle), create, delete, make the default, the history of
// ledger entries, and sharing by referral code. Another customer's balance is not found (J404).
import { Type } from '@sinclair/typebox';
import { Balance } from '../../../db/entities/Balance.js';
import { BalanceAccess } from '../../../db/entities/BalanceAccess.js';
import { Customer } from '../../../db/entities/Customer.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import {
  createBalance,
  deleteOwnBalance,
  grantBalanceAccess,
  ledgerPage,
  makeDefaultBalance,
  revokeBalanceAccess,
} from '../../../db/balances.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { customerIdOfReferralCode, referralCodePattern } from '../../../domain/balances.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Str } from '../../kernel/schemas.js';
import {
  AppBalanceSchema,
  appBalanceDtos,
  BalanceHistoryEntrySchema,
  BalanceUserSchema,
  toBalanceUser,
  toHistoryEntry,
} from '../../shared/balance-representation.js';

const tags = ['Balances'];
const BalanceIdParams = Type.Object({ balanceId: Id() });
const access = { customer: "the caller's own balances and those shared with them; others are J404." };

/**
 * The business unit a `branchId` or a `vehicleId` names (J105 when both are given; B404, V404 when
 * unknown), or undefined when neither is.
 */
async function unitOf(ctx: RouteContext, where: { branchId?: number; vehicleId?: number }) {
  if (where.branchId !== undefined && where.vehicleId !== undefined)
    throw new DomainError('J105', 'give branchId or vehicleId, not both');
  if (where.branchId !== undefined) return (await businessUnitOfBranch(ctx.em, where.branchId)).id;
  if (where.vehicleId !== undefined) {
    const vehicle = await ctx.em.findOne(Vehicle, where.vehicleId);
    if (!vehicle || vehicle.virtual) throw new DomainError('V404');
    return (await businessUnitOfBranch(ctx.em, vehicle.branch.id)).id;
  }
  return undefined;
}

/** The balance of the path as the caller may see it (owned or shared), loaded once: J404 otherwise. */
const visibleBalance = (ctx: RouteContext<{ balanceId: number }>) =>
  ctx.once('balance', async () => {
    const customer = await ctx.customer();
    const balance = await ctx.em.findOne(Balance, { id: ctx.params.balanceId, deletedAt: null });
    const owned = balance?.customer?.id === customer.id;
    if (!balance || (!owned && !(await ctx.em.count(BalanceAccess, { balance, customer }))))
      throw new DomainError('J404', `balance ${ctx.params.balanceId} not found`);
    return { balance, owned, customer };
  });

/** The balance of the path for its owner only: `refusal` for a customer it is shared with. */
async function ownedBalance(
  ctx: RouteContext<{ balanceId: number }>,
  refusal: 'J107' | 'J109' | 'J110' | 'J111' | 'J114',
) {
  const visible = await visibleBalance(ctx);
  if (!visible.owned) throw new DomainError(refusal);
  return visible;
}

/** The customer a referral code names: U106 when it names nobody of the tenant. */
async function customerOfReferralCode(ctx: RouteContext, code: string): Promise<Customer> {
  const id = customerIdOfReferralCode(code);
  const customer = id === undefined ? null : await ctx.em.findOne(Customer, id);
  if (!customer) throw new DomainError('U106', `no customer has the referral code ${code}`);
  return customer;
}

export const appListBalances = defineRoute({
  operationId: 'appListBalances',
  method: 'get',
  path: '/balances',
  interface: 'front',
  summary: 'My balances and those shared with me',
  description:
    "With `branchId` or `vehicleId` (not both: J105), the balances at the business unit of that branch (or of the vehicle's branch); without, all of them. Own balances first, then shared ones, each by id.",
  tags,
  query: Type.Object({
    branchId: Type.Optional(Id()),
    vehicleId: Type.Optional(Id()),
  }),
  paged: { defaultSize: 50 },
  access,
  responses: { 200: { description: 'One page of balances', schema: Type.Array(AppBalanceSchema) } },
  errors: ['J105', 'B404', 'V404'],
  async handler(ctx) {
    const { em, page } = ctx;
    const customer = await ctx.customer();
    const unitId = await unitOf(ctx, ctx.query);
    const shared = await em.find(BalanceAccess, { customer }, { fields: ['balance'] });
    const balances = await em.find(
      Balance,
      {
        deletedAt: null,
        $or: [{ customer }, { id: { $in: shared.map((access) => access.balance.id) } }],
        ...(unitId !== undefined ? { businessUnit: unitId } : {}),
      },
      { orderBy: { id: 'asc' } },
    );
    balances.sort(
      (a, b) =>
        Number(b.customer?.id === customer.id) - Number(a.customer?.id === customer.id) || a.id - b.id,
    );
    const rows = balances.slice(page.offset, page.offset + page.size);
    return ok(await appBalanceDtos(em, customer.id, rows), { total: balances.length });
  },
});

export const appCreateBalance = defineRoute({
  operationId: 'appCreateBalance',
  method: 'post',
  path: '/balances',
  interface: 'front',
  summary: 'Create a balance of my own',
  description:
    "At the business unit of `branchId` or of the vehicle's branch (`vehicleId`; not both: J105), or without either at the customer's home business unit (J105 when there is none). It starts at 0 in the unit's currency; the first balance at a unit is the default.",
  tags,
  body: Type.Object(
    {
      name: Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' }),
      branchId: Type.Optional(Id()),
      vehicleId: Type.Optional(Id()),
      defaultBalance: Type.Optional(
        Type.Boolean({ default: false, description: 'Make it my default at the unit.' }),
      ),
    },
    { additionalProperties: false },
  ),
  access,
  responses: {
    201: {
      description: 'The balance',
      schema: AppBalanceSchema,
      headers: { Location: { description: 'URL of the new balance.', schema: Str(200) } },
    },
  },
  errors: ['J105', 'J112', 'B404', 'V404'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const unitId = (await unitOf(ctx, ctx.body)) ?? customer.homeBusinessUnit?.id;
    if (unitId === undefined)
      throw new DomainError('J105', 'give branchId or vehicleId: the account has no home business unit');
    const balance = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      createBalance(tx, {
        owner: { customerId: customer.id },
        businessUnitId: unitId,
        name: ctx.body.name.trim(),
        systemCreated: false,
        makeDefault: ctx.body.defaultBalance ?? false,
        createdBy: ctx.actor,
      }),
    );
    const row = await ctx.em.findOneOrFail(Balance, balance.id);
    const [dto] = await appBalanceDtos(ctx.em, customer.id, [row]);
    return created(dto!, { Location: `${ctx.baseUrl}/balances/${balance.id}` });
  },
});

export const appDeleteBalance = defineRoute({
  operationId: 'appDeleteBalance',
  method: 'delete',
  path: '/balances/{balanceId}',
  interface: 'front',
  summary: 'Delete a balance of my own',
  description:
    'Only the owner (J107), only balances the customer created (a system-created one is J106), and only unused ones: a balance with any ledger row is J108.',
  tags,
  params: BalanceIdParams,
  access,
  responses: { 204: { description: 'Deleted' } },
  errors: ['J404', 'J106', 'J107', 'J108'],
  async handler(ctx) {
    const { balance, customer } = await ownedBalance(ctx, 'J107');
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      deleteOwnBalance(tx, balance.id, customer.id),
    );
    return noContent();
  },
});

export const appMakeDefaultBalance = defineRoute({
  operationId: 'appMakeDefaultBalance',
  method: 'post',
  path: '/balances/{balanceId}/default',
  interface: 'front',
  summary: 'Make a balance of my own my default at its business unit',
  description:
    'Invoices of that business unit are charged to the default balance first. Only the owner (J114); J112 (retry) when another change of the default is running at the same moment.',
  tags,
  params: BalanceIdParams,
  access,
  responses: { 200: { description: 'The balance', schema: AppBalanceSchema } },
  errors: ['J404', 'J112', 'J114'],
  async handler(ctx) {
    const { balance, customer } = await ownedBalance(ctx, 'J114');
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      makeDefaultBalance(tx, balance.id, ctx.actor),
    );
    const row = await ctx.em.findOneOrFail(Balance, balance.id, { refresh: true });
    const [dto] = await appBalanceDtos(ctx.em, customer.id, [row]);
    return ok(dto!);
  },
});

export const appBalanceHistory = defineRoute({
  operationId: 'appBalanceHistory',
  method: 'get',
  path: '/balances/{balanceId}/history',
  interface: 'front',
  summary: "A balance's history, newest first",
  description:
    'Entries reference the invoice they charged or settled, the voucher that credited them, or another cause (manual credit, settlement, refund), each with the balance after it. Zero-value entries only with `includeZeroValueUpdates=true`.',
  tags,
  params: BalanceIdParams,
  query: Type.Object({
    includeZeroValueUpdates: Type.Optional(Type.Boolean({ default: false })),
  }),
  paged: { defaultSize: 50 },
  access,
  responses: { 200: { description: 'History entries', schema: Type.Array(BalanceHistoryEntrySchema) } },
  errors: ['J404'],
  async handler(ctx) {
    const { balance } = await visibleBalance(ctx);
    const { rows, total } = await ledgerPage(ctx.em, ctx.tenant, balance.id, {
      includeZero: ctx.query.includeZeroValueUpdates ?? false,
      offset: ctx.page.offset,
      limit: ctx.page.size,
    });
    return ok(
      rows.map((row) => toHistoryEntry(row, balance.currency)),
      { total },
    );
  },
});

export const appListBalanceUsers = defineRoute({
  operationId: 'appListBalanceUsers',
  method: 'get',
  path: '/balances/{balanceId}/users',
  interface: 'front',
  summary: 'Who I shared a balance of my own with',
  description: 'Only the owner (J110).',
  tags,
  params: BalanceIdParams,
  access,
  responses: {
    200: { description: 'The customers it is shared with', schema: Type.Array(BalanceUserSchema) },
  },
  errors: ['J404', 'J110'],
  async handler(ctx) {
    const { balance } = await ownedBalance(ctx, 'J110');
    const grants = await ctx.em.find(
      BalanceAccess,
      { balance },
      { populate: ['customer'], orderBy: { grantedAt: 'asc', id: 'asc' } },
    );
    return ok(grants.map((grant) => toBalanceUser(grant, grant.customer)));
  },
});

const ReferralCode = Str(13, {
  minLength: 6,
  pattern: referralCodePattern,
  description: "A customer's referral code (shown on their account), e.g. `0000Z1`.",
});

export const appGrantBalanceUser = defineRoute({
  operationId: 'appGrantBalanceUser',
  method: 'post',
  path: '/balances/{balanceId}/users',
  interface: 'front',
  summary: 'Share a balance of my own with a customer, by referral code',
  description:
    "Only the owner (J109). A code that names no customer of the tenant is U106; the owner's own code is J118. Sharing again with the same customer changes nothing.",
  tags,
  params: BalanceIdParams,
  body: Type.Object({ referralCode: ReferralCode }, { additionalProperties: false }),
  access,
  responses: { 201: { description: 'The customer it is shared with', schema: BalanceUserSchema } },
  errors: ['J404', 'J109', 'J118', 'U106'],
  async handler(ctx) {
    const { balance } = await ownedBalance(ctx, 'J109');
    const grantee = await customerOfReferralCode(ctx, ctx.body.referralCode);
    const grant = await grantBalanceAccess(ctx.services.orm, ctx.tenant, balance, grantee);
    return created(toBalanceUser(grant, grantee));
  },
});

export const appRevokeBalanceUser = defineRoute({
  operationId: 'appRevokeBalanceUser',
  method: 'delete',
  path: '/balances/{balanceId}/users/{referralCode}',
  interface: 'front',
  summary: 'Stop sharing a balance of my own with a customer',
  description:
    'Only the owner (J111). A code that names no customer is U106; a customer it was not shared with is no error.',
  tags,
  params: Type.Object({ balanceId: Id(), referralCode: ReferralCode }),
  access,
  responses: { 204: { description: 'Revoked' } },
  errors: ['J404', 'J111', 'U106'],
  async handler(ctx) {
    const { balance } = await ownedBalance(ctx, 'J111');
    const grantee = await customerOfReferralCode(ctx, ctx.params.referralCode);
    await revokeBalanceAccess(ctx.em, balance, grantee.id);
    return noContent();
  },
});

export const appBalanceRoutes = [
  appListBalances,
  appCreateBalance,
  appDeleteBalance,
  appMakeDefaultBalance,
  appBalanceHistory,
  appListBalanceUsers,
  appGrantBalanceUser,
  appRevokeBalanceUser,
];
