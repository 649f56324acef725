// Business accounts (the spec's groups) for operators: create, read, update, members, memberships.
import { Type } from '@sinclair/typebox';
import { Customer } from '../../../db/entities/Customer.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { addMembers, createGroup, groupOrFail } from '../../../db/groups.js';
import { DomainError } from '../../../domain/errors.js';
import { billingCycles, membershipStates } from '../../../domain/customer.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  applyGroupUpdate,
  assertBusinessUnit,
  GroupAddress,
  GroupSettings,
  GroupUpdate,
} from '../../shared/group-commands.js';
import {
  GroupSchema,
  toGroups,
  toGroup,
  MemberSchema,
  toMember,
  listMembers,
} from '../../shared/group-representation.js';

const GroupCreate = component(
  'UserGroupCreate',
  Type.Object(
    {
      name: Str(200, { minLength: 1 }),
      branchId: Id({ description: 'Branch the account is managed in.' }),
      ownerId: Type.Optional(
        Id({ description: 'Customer who owns and manages the account (becomes a member).' }),
      ),
      code: Type.Optional(
        Str(32, { pattern: '^[A-Z0-9][A-Z0-9-]{3,31}$', description: 'Join code; generated when absent.' }),
      ),
      billingCycle: Type.Optional(
        StringEnum(billingCycles, {
          description:
            'Ignored on create: the tenant setting `customers.groups` decides; change it with PATCH.',
        }),
      ),
      useReceiptInsteadOfInvoice: Type.Optional(
        Type.Boolean({ description: 'Requires billing cycle PAY_AS_YOU_GO (UG131).' }),
      ),
      checkRentalRequirements: Type.Optional(Type.Boolean()),
      skipPreAuth: Type.Optional(Type.Boolean()),
      joinRequiresApproval: Type.Optional(Type.Boolean()),
      defaultBusinessUnitId: Type.Optional(Nullable(Id())),
      settings: Type.Optional(GroupSettings),
      ...GroupAddress,
    },
    { additionalProperties: false },
  ),
);

const GroupParam = Type.Object({ userGroupId: Id() });
type GroupCtx = RouteContext<{ userGroupId: number }>;
const groupBranch = async (ctx: GroupCtx) =>
  (await ctx.once('group', () => groupOrFail(ctx.em, ctx.params.userGroupId))).branch.id;

/** `POST /groups`: a business account (201). */
export const createUserGroup = defineRoute({
  operationId: 'createUserGroup',
  method: 'post',
  path: '/groups',
  interface: 'back',
  summary: 'Create a business account',
  description:
    '`billingCycle` is ignored on create (tenant setting `customers.groups`, default MONTHLY; change it with PATCH). `useReceiptInsteadOfInvoice` is honoured and needs PAY_AS_YOU_GO (UG131). The owner becomes the first member; a customer belongs to one account only (UG133).',
  tags: ['Groups'],
  body: GroupCreate,
  access: {
    permission: 'GROUP_WRITE',
    branchOf: "the body's `branchId`",
    branch: (ctx) => ctx.body.branchId,
  },
  responses: {
    201: {
      description: 'Created',
      schema: GroupSchema,
      headers: { Location: { description: 'The new account.', schema: Str(200) } },
    },
  },
  errors: ['UG131', 'UG133', 'U106', 'UG409'],
  async handler({ em, tenant, body, baseUrl, recordEvent }) {
    const owner =
      body.ownerId === undefined ? undefined : ((await em.findOne(Customer, body.ownerId)) ?? undefined);
    if (body.ownerId !== undefined && !owner)
      throw new DomainError('U106', `customer ${body.ownerId} not found`);
    const { settings, ownerId: _ownerId, billingCycle: _ignored, ...fields } = body;
    void _ownerId;
    void _ignored;
    await assertBusinessUnit(em, body.defaultBusinessUnitId);
    const group = await createGroup(em, tenant, { ...fields, ...settings }, owner);
    recordEvent({
      type: 'USER_GROUP_CREATED',
      branchId: body.branchId,
      customerId: owner?.id ?? null,
      payload: { userGroupId: group.id },
    });
    return created(await toGroup(em, group), { Location: `${baseUrl}/groups/${group.id}` });
  },
});

/** `GET /groups/{userGroupId}`. */
export const getUserGroup = defineRoute({
  operationId: 'getUserGroup',
  method: 'get',
  path: '/groups/{userGroupId}',
  interface: 'back',
  summary: 'A business account',
  tags: ['Groups'],
  params: GroupParam,
  access: { permission: 'GROUP_READ', branchOf: 'the account', branch: (ctx) => groupBranch(ctx) },
  responses: { 200: { description: 'The account', schema: GroupSchema } },
  errors: ['UG404'],
  async handler(ctx) {
    return ok(
      await toGroup(ctx.em, await ctx.once('group', () => groupOrFail(ctx.em, ctx.params.userGroupId))),
    );
  },
});

/** `PATCH /groups/{userGroupId}`: the only way to change the billing cycle. */
export const updateUserGroup = defineRoute({
  operationId: 'updateUserGroup',
  method: 'patch',
  path: '/groups/{userGroupId}',
  interface: 'back',
  summary: 'Update a business account',
  description:
    "Receipts instead of invoices need PAY_AS_YOU_GO after the change (UG131). `defaultCostCenterId` must be one of the account's cost centers and `defaultBusinessUnitId` must exist (UG409).",
  tags: ['Groups'],
  params: GroupParam,
  body: GroupUpdate,
  access: { permission: 'GROUP_WRITE', branchOf: 'the account', branch: (ctx) => groupBranch(ctx) },
  responses: { 200: { description: 'Updated', schema: GroupSchema } },
  errors: ['UG404', 'UG131', 'UG409'],
  async handler(ctx) {
    const group = await ctx.once('group', () => groupOrFail(ctx.em, ctx.params.userGroupId));
    await applyGroupUpdate(ctx.em, group, ctx.body);
    return ok(await toGroup(ctx.em, group));
  },
});

/** `GET /groups/{userGroupId}/members?searchText`. */
export const listUserGroupMembers = defineRoute({
  operationId: 'listUserGroupMembers',
  method: 'get',
  path: '/groups/{userGroupId}/members',
  interface: 'back',
  summary: 'Members of a business account',
  description: '`searchText` matches the start of first name, last name, e-mail or phone number.',
  tags: ['Groups'],
  params: GroupParam,
  query: Type.Object({ searchText: Type.Optional(Str(100, { minLength: 1 })) }),
  paged: { defaultSize: 20 },
  access: { permission: 'GROUP_READ', branchOf: 'the account', branch: (ctx) => groupBranch(ctx) },
  responses: { 200: { description: 'Members', schema: Type.Array(MemberSchema) } },
  errors: ['UG404'],
  async handler({ em, params, query, page }) {
    const [rows, total] = await listMembers(em, params.userGroupId, query.searchText, page);
    return ok(rows.map(toMember), { total });
  },
});

/** `POST /groups/{userGroupId}/members`: adds customers (one account per customer, maximum members). */
export const addUserGroupMembers = defineRoute({
  operationId: 'addUserGroupMembers',
  method: 'post',
  path: '/groups/{userGroupId}/members',
  interface: 'back',
  summary: 'Add customers to a business account',
  tags: ['Groups'],
  params: GroupParam,
  body: component(
    'UserGroupMembersAdd',
    Type.Object(
      { customerIds: Type.Array(Id(), { minItems: 1, maxItems: 100, uniqueItems: true }) },
      { additionalProperties: false },
    ),
  ),
  access: { permission: 'GROUP_WRITE', branchOf: 'the account', branch: (ctx) => groupBranch(ctx) },
  responses: { 200: { description: 'The added members', schema: Type.Array(MemberSchema) } },
  errors: ['UG404', 'UG132', 'UG133', 'UG408'],
  async handler({ em, params, body }) {
    const customers = await em.find(Customer, { id: { $in: body.customerIds } });
    const missing = body.customerIds.find((id) => !customers.some((customer) => customer.id === id));
    if (missing !== undefined) throw new DomainError('UG408', `customer ${missing} not found`);
    const rows = await addMembers(em, params.userGroupId, customers, 'ACTIVE');
    return ok(
      rows.map((row) =>
        toMember(Object.assign(row, { customer: customers.find((c) => c.id === row.customer.id)! })),
      ),
    );
  },
});

/** `DELETE /groups/{userGroupId}/members/{customerId}`: ends a membership (not the owner's). */
export const removeUserGroupMember = defineRoute({
  operationId: 'removeUserGroupMember',
  method: 'delete',
  path: '/groups/{userGroupId}/members/{customerId}',
  interface: 'back',
  summary: 'Remove a member from a business account',
  tags: ['Groups'],
  params: Type.Object({ userGroupId: Id(), customerId: Id() }),
  access: {
    permission: 'GROUP_WRITE',
    branchOf: 'the account',
    branch: (ctx) => groupBranch(ctx as unknown as GroupCtx),
  },
  responses: { 204: { description: 'Removed' } },
  errors: ['UG404', 'UG405', 'A100'],
  async handler({ em, params, once }) {
    const group = await once('group', () => groupOrFail(em, params.userGroupId));
    if (group.owner?.id === params.customerId)
      throw new DomainError('A100', 'the owner cannot be removed; transfer ownership first');
    const deleted = await em.nativeDelete(GroupMembership, { group, customer: params.customerId });
    if (!deleted) throw new DomainError('UG405');
    return noContent();
  },
});

/** `GET /customers/{customerId}/groups?branchId`: the customer's membership (one at most) and pending request. */
export const customerGroups = defineRoute({
  operationId: 'getCustomerGroups',
  method: 'get',
  path: '/customers/{customerId}/groups',
  interface: 'back',
  summary: 'Business accounts of a customer',
  tags: ['Customers', 'Groups'],
  params: Type.Object({ customerId: Id() }),
  query: Type.Object({ branchId: Id({ description: 'Branch the caller holds CUSTOMER_READ on.' }) }),
  access: {
    permission: 'CUSTOMER_READ',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: {
      description: 'Memberships',
      schema: Type.Array(
        component(
          'CustomerGroupMembership',
          Type.Object(
            { state: StringEnum(membershipStates), canManage: Type.Boolean(), group: GroupSchema },
            { additionalProperties: false },
          ),
        ),
      ),
    },
  },
  errors: ['U106'],
  async handler({ em, params }) {
    if (!(await em.count(Customer, params.customerId))) throw new DomainError('U106');
    const memberships = await em.find(
      GroupMembership,
      { customer: params.customerId },
      { populate: ['group'] },
    );
    const groups = await toGroups(
      em,
      memberships.map((m) => m.group),
    );
    return ok(memberships.map((m, i) => ({ state: m.state, canManage: m.canManage, group: groups[i]! })));
  },
});

export const groupRoutes = [
  createUserGroup,
  getUserGroup,
  updateUserGroup,
  listUserGroupMembers,
  addUserGroupMembers,
  removeUserGroupMember,
  customerGroups,
];
