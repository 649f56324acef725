// The deprecated balance paths under customers and business accounts (the spec's "GET/POST .../balances
// under customers and groups"): each answers exactly as its replacement, `GET /balances` or
// `POST /balances` with the owner taken from the path.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../kernel/route.js';
import { Id, Str } from '../../kernel/schemas.js';
import { BalanceSchema } from '../../shared/balance-representation.js';
import {
  BalanceCreateFields,
  createBalanceErrors,
  createOwnerBalance,
  listBalancesErrors,
  listOwnerBalances,
} from './balances.js';

const tags = ['Balances'];
const BranchQuery = Type.Object({
  branchId: Type.Optional(Id({ description: "Only the balances at this branch's business unit." })),
});
const CreateBody = Type.Object(BalanceCreateFields, { additionalProperties: false });
const Location = { Location: { description: 'URL of the new balance.', schema: Str(200) } };
const readAccess = {
  anyCaller: 'the handler requires BALANCE_READ on the business units whose balances it shows.',
};

export const listCustomerBalances = defineRoute({
  operationId: 'listCustomerBalances',
  method: 'get',
  path: '/customers/{customerId}/balances',
  interface: 'back',
  summary: "A customer's balances (deprecated)",
  description: 'Answers as `GET /balances?userId={customerId}` does.',
  tags,
  params: Type.Object({ customerId: Id() }),
  query: BranchQuery,
  paged: { defaultSize: 50 },
  access: readAccess,
  responses: { 200: { description: 'One page of balances', schema: Type.Array(BalanceSchema) } },
  errors: [...listBalancesErrors],
  deprecated: { replacement: 'GET /balances?userId={customerId}' },
  async handler(ctx) {
    return listOwnerBalances(ctx, { customerId: ctx.params.customerId }, ctx.query.branchId);
  },
});

export const createCustomerBalance = defineRoute({
  operationId: 'createCustomerBalance',
  method: 'post',
  path: '/customers/{customerId}/balances',
  interface: 'back',
  summary: 'Create a balance for a customer (deprecated)',
  description: 'Answers as `POST /balances` with `userId` = `customerId` does.',
  tags,
  params: Type.Object({ customerId: Id() }),
  body: CreateBody,
  access: {
    permission: 'BALANCE_UPDATE',
    businessUnitOf: 'the `businessUnitId` of the body',
    businessUnit: (ctx) => ctx.body.businessUnitId,
  },
  responses: { 201: { description: 'The balance', schema: BalanceSchema, headers: Location } },
  errors: [...createBalanceErrors],
  deprecated: { replacement: 'POST /balances' },
  async handler(ctx) {
    return createOwnerBalance(ctx, { customerId: ctx.params.customerId }, ctx.body);
  },
});

export const listGroupBalances = defineRoute({
  operationId: 'listGroupBalances',
  method: 'get',
  path: '/groups/{userGroupId}/balances',
  interface: 'back',
  summary: "A business account's balances (deprecated)",
  description: 'Answers as `GET /balances?groupId={userGroupId}` does.',
  tags,
  params: Type.Object({ userGroupId: Id() }),
  query: BranchQuery,
  paged: { defaultSize: 50 },
  access: readAccess,
  responses: { 200: { description: 'One page of balances', schema: Type.Array(BalanceSchema) } },
  errors: [...listBalancesErrors],
  deprecated: { replacement: 'GET /balances?groupId={userGroupId}' },
  async handler(ctx) {
    return listOwnerBalances(ctx, { userGroupId: ctx.params.userGroupId }, ctx.query.branchId);
  },
});

export const createGroupBalance = defineRoute({
  operationId: 'createGroupBalance',
  method: 'post',
  path: '/groups/{userGroupId}/balances',
  interface: 'back',
  summary: 'Create a balance for a business account (deprecated)',
  description: 'Answers as `POST /balances` with `groupId` does.',
  tags,
  params: Type.Object({ userGroupId: Id() }),
  body: CreateBody,
  access: {
    permission: 'BALANCE_UPDATE',
    businessUnitOf: 'the `businessUnitId` of the body',
    businessUnit: (ctx) => ctx.body.businessUnitId,
  },
  responses: { 201: { description: 'The balance', schema: BalanceSchema, headers: Location } },
  errors: [...createBalanceErrors],
  deprecated: { replacement: 'POST /balances' },
  async handler(ctx) {
    return createOwnerBalance(ctx, { userGroupId: ctx.params.userGroupId }, ctx.body);
  },
});

export const deprecatedBalanceRoutes = [
  listCustomerBalances,
  createCustomerBalance,
  listGroupBalances,
  createGroupBalance,
];
