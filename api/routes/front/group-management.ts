// Business-account management in the app (/groups-management), for the owner and the members the owner
// lets manage: the account, its members and their join requests, and its billing summary. Everything is
// confined to the signed-in customer.
import { Type } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CostCenter } from '../../../db/entities/CostCenter.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import {
  approveRequest,
  createGroup,
  dropInvitations,
  groupOrFail,
  inviteMembers,
} from '../../../db/groups.js';
import { termsStateOf } from '../../../db/identity.js';
import { DomainError } from '../../../domain/errors.js';
import { normaliseEmail } from '../../../domain/identity.js';
import { formatAmount } from '../../../domain/money.js';
import { assertTermsAccepted } from '../../../domain/customer.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { applyGroupUpdate, GroupAddress } from '../../shared/group-commands.js';
import {
  GroupSchema,
  listMembers,
  MemberSchema,
  toGroup,
  toGroups,
  toMember,
} from '../../shared/group-representation.js';

type ManageCtx = RouteContext<{ userGroupId: number }>;

/** The group the caller manages (owner or managing member); A100 for members who do not, UG404 for others. */
export async function managedGroup(ctx: ManageCtx): Promise<UserGroup> {
  return ctx.once('managed-group', async () => {
    const customer = await ctx.customer();
    const group = await groupOrFail(ctx.em, ctx.params.userGroupId);
    const membership = await ctx.em.findOne(GroupMembership, { group, customer, state: 'ACTIVE' });
    // Outsiders learn nothing about the account; members learn they may not manage it.
    if (!membership) throw new DomainError('UG404');
    if (!membership.canManage && group.owner?.id !== customer.id)
      throw new DomainError('A100', 'only the owner and managing members manage this business account');
    return group;
  });
}

const ManageParam = Type.Object({ userGroupId: Id() });

/** `GET /groups-management`: accounts the caller owns or manages. */
export const listManagedGroups = defineRoute({
  operationId: 'listManagedGroups',
  method: 'get',
  path: '/groups-management',
  interface: 'front',
  summary: 'Business accounts I manage',
  tags: ['Groups'],
  access: { customer: 'lists accounts the caller owns or manages.' },
  responses: { 200: { description: 'Accounts', schema: Type.Array(GroupSchema) } },
  errors: [],
  async handler(ctx) {
    const customer = await ctx.customer();
    const groups = await ctx.em.find(
      UserGroup,
      {
        $or: [
          { owner: customer },
          {
            id: {
              $in: (await ctx.em.find(GroupMembership, { customer, canManage: true, state: 'ACTIVE' })).map(
                (m) => m.group.id,
              ),
            },
          },
        ],
      },
      { orderBy: { id: 'asc' } },
    );
    return ok(await toGroups(ctx.em, groups));
  },
});

/** `POST /groups-management`: the caller creates a business account and owns it. */
export const createManagedGroup = defineRoute({
  operationId: 'createManagedGroup',
  method: 'post',
  path: '/groups-management',
  interface: 'front',
  summary: 'Create a business account (I become its owner)',
  description:
    'Accepts the address including `houseNumber` and `addressAddition`. Billing cycle and receipts are operator settings (read-only here). A customer belongs to one account only (UG133).',
  tags: ['Groups'],
  body: component(
    'ManagedGroupCreate',
    Type.Object(
      {
        name: Str(200, { minLength: 1 }),
        branchId: Id(),
        joinRequiresApproval: Type.Optional(Type.Boolean()),
        ...GroupAddress,
      },
      { additionalProperties: false },
    ),
  ),
  access: { customer: 'the caller becomes the owner.' },
  responses: {
    201: {
      description: 'Created',
      schema: GroupSchema,
      headers: { Location: { description: 'The new account.', schema: Str(200) } },
    },
  },
  errors: ['UG133', 'B404', 'U601', 'U602'],
  async handler(ctx) {
    const customer = await ctx.customer();
    assertTermsAccepted((await termsStateOf(ctx.em, ctx.tenant, customer.id, ctx.body.branchId)).state);
    if (await ctx.em.count(GroupMembership, { customer, state: { $ne: 'INVITED' } }))
      throw new DomainError('UG133');
    // Creating an account supersedes the caller's open invitations.
    await dropInvitations(ctx.em, [customer.id]);
    const group = await createGroup(ctx.em, ctx.tenant, ctx.body, customer);
    return created(await toGroup(ctx.em, group), {
      Location: `${ctx.baseUrl}/groups-management/${group.id}`,
    });
  },
});

/** `GET /groups-management/{userGroupId}`. */
export const getManagedGroup = defineRoute({
  operationId: 'getManagedGroup',
  method: 'get',
  path: '/groups-management/{userGroupId}',
  interface: 'front',
  summary: 'A business account I manage',
  tags: ['Groups'],
  params: ManageParam,
  access: { customer: 'only accounts the caller manages (UG404 / A100 otherwise).' },
  responses: { 200: { description: 'The account', schema: GroupSchema } },
  errors: ['UG404', 'A100'],
  async handler(ctx) {
    return ok(await toGroup(ctx.em, await managedGroup(ctx)));
  },
});

/** `PATCH /groups-management/{userGroupId}`: name, address, approval and default cost center. */
export const updateManagedGroup = defineRoute({
  operationId: 'updateManagedGroup',
  method: 'patch',
  path: '/groups-management/{userGroupId}',
  interface: 'front',
  summary: 'Update a business account I manage',
  description:
    'billingCycle, useReceiptInsteadOfInvoice and checkRentalRequirements are read-only in the app.',
  tags: ['Groups'],
  params: ManageParam,
  body: component(
    'ManagedGroupUpdate',
    Type.Object(
      {
        name: Type.Optional(Str(200, { minLength: 1 })),
        joinRequiresApproval: Type.Optional(Type.Boolean()),
        defaultCostCenterId: Type.Optional(Nullable(Id())),
        ...GroupAddress,
      },
      { additionalProperties: false },
    ),
  ),
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'Updated', schema: GroupSchema } },
  errors: ['UG404', 'UG409', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx);
    await applyGroupUpdate(ctx.em, group, ctx.body);
    return ok(await toGroup(ctx.em, group));
  },
});

/** `DELETE /groups-management/{userGroupId}`: the owner closes the account; memberships and cost centers go with it. */
export const deleteManagedGroup = defineRoute({
  operationId: 'deleteManagedGroup',
  method: 'delete',
  path: '/groups-management/{userGroupId}',
  interface: 'front',
  summary: 'Close a business account I own',
  tags: ['Groups'],
  params: ManageParam,
  access: { customer: 'only the owner.' },
  responses: { 204: { description: 'Closed' } },
  errors: ['UG404', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx);
    if (group.owner?.id !== (await ctx.customer()).id)
      throw new DomainError('A100', 'only the owner closes the account');
    await ctx.em.nativeDelete(UserGroup, { id: group.id });
    return noContent();
  },
});

/**
 * `POST /groups-management/{userGroupId}/add-members`: invites customers by e-mail (issue 33). It adds
 * nobody: the answer is the same for every address (whether it has an account here, belongs to another
 * business account or to nobody) and carries no data of the invitee; the customer joins by accepting the
 * invitation among their requests (`GET /groups/requests`, `PATCH /groups/requests/{id}` ACCEPTED).
 */
export const addManagedGroupMembers = defineRoute({
  operationId: 'addManagedGroupMembers',
  method: 'post',
  path: '/groups-management/{userGroupId}/add-members',
  interface: 'front',
  summary: 'Invite customers to my business account by e-mail',
  description:
    'Sends an invitation to every address: a customer of the tenant who belongs to no business account and has no request or invitation open gets one among their requests (`GET /groups/requests`, state INVITED) and joins by accepting it (`PATCH /groups/requests/{requestId}` with `{"state": "ACCEPTED"}`; the member limit applies then, UG132). The answer is the same for any address and names no customer: it does not tell whether the address has an account, or one in another business account.',
  tags: ['Groups'],
  params: ManageParam,
  body: component(
    'ManagedGroupMembersAdd',
    Type.Object(
      {
        emails: Type.Array(Str(254, { minLength: 3, format: 'email' }), {
          minItems: 1,
          maxItems: 100,
          uniqueItems: true,
        }),
      },
      { additionalProperties: false },
    ),
  ),
  access: { customer: 'only accounts the caller manages.' },
  responses: {
    200: {
      description: 'The invitations sent: one per address, the same whatever the address',
      schema: Type.Array(
        component(
          'ManagedGroupInvitation',
          Type.Object(
            { email: Type.String(), state: Type.Literal('INVITED') },
            { additionalProperties: false },
          ),
        ),
      ),
    },
  },
  errors: ['UG404', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx);
    const emails = [...new Set(ctx.body.emails.map((email) => normaliseEmail(email)))];
    await inviteMembers(ctx.em, group.id, emails);
    return ok(emails.map((email) => ({ email, state: 'INVITED' as const })));
  },
});

/** `GET /groups-management/{userGroupId}/members?searchText`. */
export const listManagedGroupMembers = defineRoute({
  operationId: 'listManagedGroupMembers',
  method: 'get',
  path: '/groups-management/{userGroupId}/members',
  interface: 'front',
  summary: 'Members of my business account',
  tags: ['Groups'],
  params: ManageParam,
  query: Type.Object({ searchText: Type.Optional(Str(100, { minLength: 1 })) }),
  paged: { defaultSize: 20 },
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'Members', schema: Type.Array(MemberSchema) } },
  errors: ['UG404', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx);
    const [rows, total] = await listMembers(ctx.em, group.id, ctx.query.searchText, ctx.page);
    return ok(rows.map(toMember), { total });
  },
});

const MemberParam = Type.Object({ userGroupId: Id(), userId: Id() });

async function memberOf(ctx: RouteContext<{ userGroupId: number; userId: number }>, group: UserGroup) {
  const membership = await ctx.em.findOne(
    GroupMembership,
    { group, customer: ctx.params.userId, state: 'ACTIVE' },
    { populate: ['customer'] },
  );
  if (!membership) throw new DomainError('UG405');
  return membership;
}

/** `GET /groups-management/{userGroupId}/members/{userId}`. */
export const getManagedGroupMember = defineRoute({
  operationId: 'getManagedGroupMember',
  method: 'get',
  path: '/groups-management/{userGroupId}/members/{userId}',
  interface: 'front',
  summary: 'One member of my business account',
  tags: ['Groups'],
  params: MemberParam,
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'The member', schema: MemberSchema } },
  errors: ['UG404', 'UG405', 'A100'],
  async handler(ctx) {
    return ok(toMember(await memberOf(ctx, await managedGroup(ctx as unknown as ManageCtx))));
  },
});

const MemberUpdateFields = {
  costCenterId: Nullable(
    Id({ description: "The member's default cost center; null: the account's default." }),
  ),
  canManage: Type.Boolean({ description: 'Whether the member may manage the account.' }),
};

/** Applies member properties after checking the cost center is the account's (UG409 otherwise). */
async function applyMemberUpdate(
  em: EntityManager,
  group: UserGroup,
  membership: GroupMembership,
  update: { costCenterId?: number | null; canManage?: boolean },
): Promise<void> {
  if (update.costCenterId !== undefined && update.costCenterId !== null) {
    if (!(await em.count(CostCenter, { id: update.costCenterId, group })))
      throw new DomainError('UG409', "the cost center is not one of this account's");
  }
  if (update.costCenterId !== undefined) membership.costCenterId = update.costCenterId;
  if (update.canManage !== undefined) membership.canManage = update.canManage;
}

/** `PATCH /groups-management/{userGroupId}/members/{userId}`: cost center and management right of a member. */
export const updateManagedGroupMember = defineRoute({
  operationId: 'updateManagedGroupMember',
  method: 'patch',
  path: '/groups-management/{userGroupId}/members/{userId}',
  interface: 'front',
  summary: 'Member properties: default cost center, may manage',
  tags: ['Groups'],
  params: MemberParam,
  body: component(
    'ManagedGroupMemberUpdate',
    Type.Object(
      {
        costCenterId: Type.Optional(MemberUpdateFields.costCenterId),
        canManage: Type.Optional(MemberUpdateFields.canManage),
      },
      { additionalProperties: false },
    ),
  ),
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'The member', schema: MemberSchema } },
  errors: ['UG404', 'UG405', 'UG409', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx as unknown as ManageCtx);
    const membership = await memberOf(ctx, group);
    await applyMemberUpdate(ctx.em, group, membership, ctx.body);
    return ok(toMember(membership));
  },
});

/** `PUT /groups-management/{userGroupId}/members/{userId}`: replaces every member property at once. */
export const replaceManagedGroupMember = defineRoute({
  operationId: 'replaceManagedGroupMember',
  method: 'put',
  path: '/groups-management/{userGroupId}/members/{userId}',
  interface: 'front',
  summary: 'Member properties, all of them',
  description: 'Like PATCH, but both properties are required: a null costCenterId clears it.',
  tags: ['Groups'],
  params: MemberParam,
  body: component(
    'ManagedGroupMemberProperties',
    Type.Object(MemberUpdateFields, { additionalProperties: false }),
  ),
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'The member', schema: MemberSchema } },
  errors: ['UG404', 'UG405', 'UG409', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx as unknown as ManageCtx);
    const membership = await memberOf(ctx, group);
    await applyMemberUpdate(ctx.em, group, membership, ctx.body);
    return ok(toMember(membership));
  },
});

/**
 * `PATCH /groups-management/{userGroupId}/{memberCode}`: makes `memberCode` the code members join with
 * (`POST /groups/{groupCode}/join`), e.g. after the old one leaked. Pending requests and memberships stay.
 */
export const changeManagedGroupMemberCode = defineRoute({
  operationId: 'changeManagedGroupMemberCode',
  method: 'patch',
  path: '/groups-management/{userGroupId}/{memberCode}',
  interface: 'front',
  summary: 'Set the code members join my business account with',
  description:
    'The spec does not say what this changes; here the path value becomes the join code (4–32 upper-case letters, digits or hyphens, as on create). The old code stops working at once.',
  tags: ['Groups'],
  params: Type.Object({
    userGroupId: Id(),
    memberCode: Str(32, {
      pattern: '^[A-Z0-9][A-Z0-9-]{3,31}$',
      description: 'The new join code: 4–32 upper-case letters, digits or hyphens, as on create.',
    }),
  }),
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'The account with its new join code', schema: GroupSchema } },
  errors: ['UG404', 'UG410', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx as unknown as ManageCtx);
    const code = ctx.params.memberCode;
    if (group.code !== code) {
      if (await ctx.em.count(UserGroup, { code, id: { $ne: group.id } }))
        throw new DomainError('UG410', `the code ${code} is taken`);
      group.code = code;
    }
    return ok(await toGroup(ctx.em, group));
  },
});

/** `GET /groups-management/{userGroupId}/requests`: pending join requests. */
export const listManagedGroupRequests = defineRoute({
  operationId: 'listManagedGroupRequests',
  method: 'get',
  path: '/groups-management/{userGroupId}/requests',
  interface: 'front',
  summary: 'Join requests of my business account',
  tags: ['Groups'],
  params: ManageParam,
  paged: { defaultSize: 20 },
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'Requests', schema: Type.Array(MemberSchema) } },
  errors: ['UG404', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx);
    const [rows, total] = await listMembers(ctx.em, group.id, undefined, ctx.page, 'PENDING');
    return ok(rows.map(toMember), { total });
  },
});

/** `PATCH /groups-management/{userGroupId}/requests/{requestId}`: accept (member limit applies) or reject. */
export const decideManagedGroupRequest = defineRoute({
  operationId: 'decideManagedGroupRequest',
  method: 'patch',
  path: '/groups-management/{userGroupId}/requests/{requestId}',
  interface: 'front',
  summary: 'Accept or reject a join request',
  tags: ['Groups'],
  params: Type.Object({ userGroupId: Id(), requestId: Id() }),
  body: component(
    'ManagedGroupRequestDecision',
    Type.Object({ state: StringEnum(['ACCEPTED', 'REJECTED'] as const) }, { additionalProperties: false }),
  ),
  access: { customer: 'only accounts the caller manages.' },
  responses: {
    200: { description: 'Accepted: the membership', schema: MemberSchema },
    204: { description: 'Rejected' },
  },
  errors: ['UG404', 'UG405', 'UG132', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx as unknown as ManageCtx);
    const request = await ctx.em.findOne(
      GroupMembership,
      { id: ctx.params.requestId, group, state: 'PENDING' },
      { populate: ['customer'] },
    );
    if (!request) throw new DomainError('UG405');
    if (ctx.body.state === 'REJECTED') {
      ctx.em.remove(request);
      return noContent();
    }
    await approveRequest(ctx.em, request);
    return ok(toMember(request));
  },
});

const BillingSummary = component(
  'GroupBillingSummary',
  Type.Object(
    {
      userGroupId: Id(),
      from: Nullable(DateTime()),
      to: Nullable(DateTime()),
      currencies: Type.Array(
        Type.Object(
          {
            currency: Type.String(),
            invoiceCount: Type.Integer({ minimum: 0 }),
            totalNet: Type.String(),
            totalTax: Type.String(),
            totalGross: Type.String(),
            openGross: Type.String({ description: 'Gross of the invoices still OPEN.' }),
            costCenters: Type.Array(
              Type.Object(
                {
                  costCenterId: Nullable(Id()),
                  invoiceCount: Type.Integer({ minimum: 0 }),
                  totalGross: Type.String(),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/**
 * `GET /groups-management/{userGroupId}/billing-summary`: what the business account was invoiced for its
 * business rentals, per currency and cost center, over an optional period of invoice dates.
 */
export const getManagedGroupBillingSummary = defineRoute({
  operationId: 'getManagedGroupBillingSummary',
  method: 'get',
  path: '/groups-management/{userGroupId}/billing-summary',
  interface: 'front',
  summary: "My business account's invoices, summed per currency and cost center",
  description:
    'Business invoices of the account (refunding invoices excluded) issued in [from, to); amounts are decimal strings.',
  tags: ['Groups'],
  params: Type.Object({ userGroupId: Id() }),
  query: Type.Object({
    from: Type.Optional(DateTime({ description: 'Issued at or after (inclusive).' })),
    to: Type.Optional(DateTime({ description: 'Issued before (exclusive).' })),
  }),
  access: { customer: 'only accounts the caller manages.' },
  responses: { 200: { description: 'The summary', schema: BillingSummary } },
  errors: ['UG404', 'A100'],
  async handler(ctx) {
    const group = await managedGroup(ctx as unknown as ManageCtx);
    // An empty period ([from, to) with to ≤ from) sums nothing.
    const { from, to } = ctx.query;
    const rows = await ctx.em.getConnection().execute<
      {
        currency: string;
        cost_center_id: number | null;
        invoice_count: number;
        net: string;
        tax: string;
        gross: string;
        open_gross: string;
      }[]
    >(
      `select currency, cost_center_id, count(*)::int as invoice_count,
              sum(total_net)::text as net, sum(total_tax)::text as tax, sum(total_gross)::text as gross,
              coalesce(sum(total_gross) filter (where state = 'OPEN'), 0)::text as open_gross
         from invoice
        where tenant_id = ? and user_group_id = ? and refunded_invoice_id is null
          and (?::timestamptz is null or issued_at >= ?::timestamptz)
          and (?::timestamptz is null or issued_at < ?::timestamptz)
        group by currency, cost_center_id
        order by currency, cost_center_id nulls first`,
      [
        ctx.tenant,
        group.id,
        ...[from, from, to, to].map((bound) => bound && clampedInstant(bound).toISOString()),
      ].map((value) => value ?? null),
    );
    const currencies = [...new Set(rows.map((row) => row.currency))].map((currency) => {
      const mine = rows.filter((row) => row.currency === currency);
      const sum = (pick: (row: (typeof rows)[number]) => string) =>
        formatAmount(
          mine.reduce((total, row) => total.plus(pick(row)), new Decimal(0)),
          currency,
        );
      return {
        currency,
        invoiceCount: mine.reduce((total, row) => total + row.invoice_count, 0),
        totalNet: sum((row) => row.net),
        totalTax: sum((row) => row.tax),
        totalGross: sum((row) => row.gross),
        openGross: sum((row) => row.open_gross),
        costCenters: mine.map((row) => ({
          costCenterId: row.cost_center_id,
          invoiceCount: row.invoice_count,
          totalGross: formatAmount(row.gross, currency),
        })),
      };
    });
    return ok({ userGroupId: group.id, from: from ?? null, to: to ?? null, currencies });
  },
});

export const groupManagementRoutes = [
  listManagedGroups,
  createManagedGroup,
  getManagedGroup,
  updateManagedGroup,
  deleteManagedGroup,
  addManagedGroupMembers,
  listManagedGroupMembers,
  getManagedGroupMember,
  updateManagedGroupMember,
  replaceManagedGroupMember,
  changeManagedGroupMemberCode,
  listManagedGroupRequests,
  decideManagedGroupRequest,
  getManagedGroupBillingSummary,
];
