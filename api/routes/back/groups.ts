// Business accounts (the spec's groups) for operators: create, read, update, members, memberships.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { CostCenter } from '../../../db/entities/CostCenter.js';
import { Customer } from '../../../db/entities/Customer.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { type UserGroup } from '../../../db/entities/UserGroup.js';
import { addMembers, costCentersOf, createGroup, groupOrFail, memberCounts } from '../../../db/groups.js';
import { DomainError } from '../../../domain/errors.js';
import { assertReceiptsCompatible, billingCycles, membershipStates } from '../../../domain/customer.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { addressOf, CustomerSummary, customerTextFilter, toCustomerSummary } from './customers.js';

const CostCenterRef = component(
  'CostCenterRef',
  Type.Object({ id: Id(), code: Type.String(), name: Type.String() }, { additionalProperties: false }),
);

export const GroupSchema = component(
  'UserGroup',
  Type.Object(
    {
      id: Id(),
      code: Type.String({ description: 'Join code (`POST /front/groups/{groupCode}/join`).' }),
      name: Type.String(),
      branchId: Id(),
      ownerId: Nullable(Id()),
      membersCount: Type.Integer({ minimum: 0 }),
      maxMembers: Type.Integer({ minimum: 1 }),
      billingCycle: StringEnum(billingCycles),
      useReceiptInsteadOfInvoice: Type.Boolean(),
      paymentState: Type.String(),
      defaultCostCenterId: Nullable(Id()),
      costCenters: Type.Array(CostCenterRef),
      defaultBusinessUnitId: Nullable(Id()),
      checkRentalRequirements: Type.Boolean(),
      skipPreAuth: Type.Boolean({
        description: "Members' business rentals start without a payment pre-authorization.",
      }),
      joinRequiresApproval: Type.Boolean(),
      settings: Type.Object(
        { requireDrivingLog: Type.Boolean(), shouldIgnoreBCategoryRentalRequirement: Type.Boolean() },
        { additionalProperties: false },
      ),
      street: Nullable(Type.String()),
      houseNumber: Nullable(Type.String()),
      addressAddition: Nullable(Type.String()),
      postcode: Nullable(Type.String()),
      city: Nullable(Type.String()),
      country: Nullable(Type.String()),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The API form of business accounts (cost centers and member counts loaded in two queries). */
export async function toGroups(
  em: EntityManager,
  groups: readonly UserGroup[],
): Promise<Static<typeof GroupSchema>[]> {
  const ids = groups.map((group) => group.id);
  const [centers, counts] = await Promise.all([costCentersOf(em, ids), memberCounts(em, ids)]);
  return groups.map((group) => ({
    id: group.id,
    code: group.code,
    name: group.name,
    branchId: group.branch.id,
    ownerId: group.owner?.id ?? null,
    membersCount: counts.get(group.id) ?? 0,
    maxMembers: group.maxMembers,
    billingCycle: group.billingCycle,
    useReceiptInsteadOfInvoice: group.useReceiptInsteadOfInvoice,
    paymentState: group.paymentState,
    defaultCostCenterId: group.defaultCostCenterId ?? null,
    costCenters: (centers.get(group.id) ?? []).map((center) => ({
      id: center.id,
      code: center.code,
      name: center.name,
    })),
    defaultBusinessUnitId: group.defaultBusinessUnit?.id ?? null,
    checkRentalRequirements: group.checkRentalRequirements,
    skipPreAuth: group.skipPreAuth,
    joinRequiresApproval: group.joinRequiresApproval,
    settings: {
      requireDrivingLog: group.requireDrivingLog,
      shouldIgnoreBCategoryRentalRequirement: group.shouldIgnoreBCategoryRentalRequirement,
    },
    ...addressOf(group),
    createdAt: group.createdAt.toISOString(),
  }));
}

export const toGroup = async (em: EntityManager, group: UserGroup) => (await toGroups(em, [group]))[0]!;

const Text = (max: number) => Type.Optional(Nullable(Str(max)));
export const GroupAddress = {
  street: Text(200),
  houseNumber: Text(32),
  addressAddition: Text(200),
  postcode: Text(32),
  city: Text(100),
  country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', maxLength: 2 }))),
};
const GroupSettings = Type.Object(
  {
    requireDrivingLog: Type.Optional(Type.Boolean()),
    shouldIgnoreBCategoryRentalRequirement: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

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

const GroupUpdate = component(
  'UserGroupUpdate',
  Type.Object(
    {
      name: Type.Optional(Str(200, { minLength: 1 })),
      billingCycle: Type.Optional(StringEnum(billingCycles)),
      useReceiptInsteadOfInvoice: Type.Optional(Type.Boolean()),
      checkRentalRequirements: Type.Optional(Type.Boolean()),
      skipPreAuth: Type.Optional(Type.Boolean()),
      joinRequiresApproval: Type.Optional(Type.Boolean()),
      maxMembers: Type.Optional(Int(1, 100_000)),
      defaultCostCenterId: Type.Optional(Nullable(Id())),
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

async function assertBusinessUnit(em: EntityManager, id: number | null | undefined): Promise<void> {
  if (id === undefined || id === null) return;
  if (!(await em.count(BusinessUnit, id))) throw new DomainError('UG409', `business unit ${id} not found`);
}

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

/** Applies an update to a business account under its rules (UG131, UG409). */
export async function applyGroupUpdate(
  em: EntityManager,
  group: UserGroup,
  body: Static<typeof GroupUpdate>,
): Promise<void> {
  const { settings, defaultBusinessUnitId, defaultCostCenterId, ...fields } = body;
  assertReceiptsCompatible(
    fields.billingCycle ?? group.billingCycle,
    fields.useReceiptInsteadOfInvoice ?? group.useReceiptInsteadOfInvoice,
  );
  if (defaultCostCenterId !== undefined && defaultCostCenterId !== null) {
    if (!(await em.count(CostCenter, { id: defaultCostCenterId, group })))
      throw new DomainError('UG409', `cost center ${defaultCostCenterId} is not one of this account's`);
  }
  await assertBusinessUnit(em, defaultBusinessUnitId);
  Object.assign(group, fields, settings ?? {});
  if (defaultCostCenterId !== undefined) group.defaultCostCenterId = defaultCostCenterId;
  if (defaultBusinessUnitId !== undefined)
    group.defaultBusinessUnit =
      defaultBusinessUnitId === null ? null : em.getReference(BusinessUnit, defaultBusinessUnitId);
}

export const MemberSchema = component(
  'UserGroupMember',
  Type.Object(
    {
      membershipId: Id(),
      state: StringEnum(membershipStates),
      canManage: Type.Boolean(),
      costCenterId: Nullable(Id()),
      joinedAt: DateTime(),
      customer: CustomerSummary,
    },
    { additionalProperties: false },
  ),
);

/** The API form of a membership. */
export function toMember(membership: GroupMembership): Static<typeof MemberSchema> {
  return {
    membershipId: membership.id,
    state: membership.state,
    canManage: membership.canManage,
    costCenterId: membership.costCenterId ?? null,
    joinedAt: membership.createdAt.toISOString(),
    customer: toCustomerSummary(membership.customer),
  };
}

/** Members of a group, filtered by a prefix of name, e-mail or phone, paged. */
export async function listMembers(
  em: EntityManager,
  groupId: number,
  searchText: string | undefined,
  page: { size: number; offset: number },
  state: 'ACTIVE' | 'PENDING' = 'ACTIVE',
): Promise<[GroupMembership[], number]> {
  const where: Record<string, unknown> = { group: groupId, state };
  if (searchText !== undefined) where.customer = customerTextFilter(searchText);
  return em.findAndCount(GroupMembership, where, {
    populate: ['customer'],
    orderBy: { id: 'asc' },
    limit: page.size,
    offset: page.offset,
  });
}

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
