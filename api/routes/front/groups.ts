// Business-account membership in the app (/groups), for every customer: their account and join requests,
// joining with a code and leaving. Managing an account (/groups-management) is in group-management.ts.
// Everything is confined to the signed-in customer.
import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer } from '../../../db/entities/Customer.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { UserGroup } from '../../../db/entities/UserGroup.js';
import { acceptInvitation, addMembers } from '../../../db/groups.js';
import { termsStateOf } from '../../../db/identity.js';
import { DomainError } from '../../../domain/errors.js';
import { assertTermsAccepted, membershipStates, type MembershipState } from '../../../domain/customer.js';
import { defineRoute, noContent, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { GroupSchema, toGroup, toGroups } from '../../shared/group-representation.js';

const MyMembership = component(
  'MyGroupMembership',
  Type.Object(
    {
      membershipId: Id(),
      state: StringEnum(membershipStates),
      canManage: Type.Boolean(),
      costCenterId: Nullable(Id()),
      createdAt: DateTime(),
      group: GroupSchema,
    },
    {
      additionalProperties: false,
      description:
        "The caller's membership (ACTIVE), join request (PENDING) or invitation from a managing member (INVITED).",
    },
  ),
);

async function myMemberships(em: EntityManager, customer: Customer, states: readonly MembershipState[]) {
  const rows = await em.find(
    GroupMembership,
    { customer, state: { $in: [...states] } },
    { populate: ['group'], orderBy: { id: 'asc' } },
  );
  const groups = await toGroups(
    em,
    rows.map((row) => row.group),
  );
  return rows.map((row, index) => ({
    membershipId: row.id,
    state: row.state,
    canManage: row.canManage,
    costCenterId: row.costCenterId ?? null,
    createdAt: row.createdAt.toISOString(),
    group: groups[index]!,
  }));
}

/** `GET /groups`: the caller's business account (a customer belongs to one at most). */
export const listMyGroups = defineRoute({
  operationId: 'listMyGroups',
  method: 'get',
  path: '/groups',
  interface: 'front',
  summary: 'My business account memberships',
  tags: ['Groups'],
  access: { customer: "lists the caller's own memberships." },
  responses: { 200: { description: 'Memberships', schema: Type.Array(MyMembership) } },
  errors: [],
  async handler(ctx) {
    return ok(await myMemberships(ctx.em, await ctx.customer(), ['ACTIVE']));
  },
});

/** `GET /groups/requests`: the caller's pending join requests and the invitations they received. */
export const listMyGroupRequests = defineRoute({
  operationId: 'listMyGroupRequests',
  method: 'get',
  path: '/groups/requests',
  interface: 'front',
  summary: 'My pending join requests and invitations',
  description:
    "PENDING: a join request the account's managers decide on; INVITED: an invitation a managing member sent (add-members), which the caller accepts or declines with `PATCH /groups/requests/{requestId}`.",
  tags: ['Groups'],
  access: { customer: "lists the caller's own requests and invitations." },
  responses: { 200: { description: 'Requests and invitations', schema: Type.Array(MyMembership) } },
  errors: [],
  async handler(ctx) {
    return ok(await myMemberships(ctx.em, await ctx.customer(), ['PENDING', 'INVITED']));
  },
});

/** `PATCH /groups/requests/{requestId}`: withdraws a join request, accepts or declines an invitation. */
export const updateMyGroupRequest = defineRoute({
  operationId: 'updateMyGroupRequest',
  method: 'patch',
  path: '/groups/requests/{requestId}',
  interface: 'front',
  summary: 'Withdraw my join request; accept or decline an invitation',
  description:
    '`{"state": "WITHDRAWN"}` removes a join request or declines an invitation. `{"state": "ACCEPTED"}` accepts an invitation (INVITED): the caller becomes an ACTIVE member, under the account\'s member limit (UG132) and with the terms of its branch accepted (U601/U602); a join request is not the caller\'s to accept (UG405).',
  tags: ['Groups'],
  params: Type.Object({ requestId: Id() }),
  body: component(
    'MyGroupRequestUpdate',
    Type.Object({ state: StringEnum(['WITHDRAWN', 'ACCEPTED'] as const) }, { additionalProperties: false }),
  ),
  access: { customer: "changes the caller's own request only (another customer's id is not found)." },
  responses: {
    200: { description: 'Accepted: the membership', schema: MyMembership },
    204: { description: 'Withdrawn or declined' },
  },
  errors: ['UG405', 'UG132', 'U601', 'U602'],
  async handler(ctx) {
    const customer = await ctx.customer();
    if (ctx.body.state === 'WITHDRAWN') {
      const deleted = await ctx.em.nativeDelete(GroupMembership, {
        id: ctx.params.requestId,
        customer,
        state: { $in: ['PENDING', 'INVITED'] },
      });
      if (!deleted) throw new DomainError('UG405');
      return noContent();
    }
    const invitation = await ctx.em.findOne(
      GroupMembership,
      { id: ctx.params.requestId, customer, state: 'INVITED' },
      { populate: ['group'] },
    );
    if (!invitation) throw new DomainError('UG405', 'no open invitation with this id');
    assertTermsAccepted(
      (await termsStateOf(ctx.em, ctx.tenant, customer.id, invitation.group.branch.id)).state,
    );
    await acceptInvitation(ctx.em, invitation);
    const [membership] = await myMemberships(ctx.em, customer, ['ACTIVE']);
    return ok(membership!);
  },
});

/** `POST /groups/{groupCode}/join`: joins (or asks to join) the account with this code. */
export const joinGroup = defineRoute({
  operationId: 'joinGroup',
  method: 'post',
  path: '/groups/{groupCode}/join',
  interface: 'front',
  summary: 'Join a business account by its code',
  description:
    "Accounts that require approval create a PENDING request the managers accept. A customer belongs to one account only (UG133); the account's member limit applies (UG132); the terms of the account's branch must be accepted (U601/U602).",
  tags: ['Groups'],
  params: Type.Object({ groupCode: Str(32, { minLength: 1 }) }),
  access: { customer: 'joins as the caller.' },
  responses: { 200: { description: 'Membership or request', schema: MyMembership } },
  errors: ['UG404', 'UG132', 'UG133', 'U601', 'U602'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const group = await ctx.em.findOne(UserGroup, { code: ctx.params.groupCode });
    if (!group) throw new DomainError('UG404', `no business account with code ${ctx.params.groupCode}`);
    assertTermsAccepted((await termsStateOf(ctx.em, ctx.tenant, customer.id, group.branch.id)).state);
    const [row] = await addMembers(
      ctx.em,
      group.id,
      [customer],
      group.joinRequiresApproval ? 'PENDING' : 'ACTIVE',
    );
    return ok({
      membershipId: row!.id,
      state: row!.state,
      canManage: false,
      costCenterId: null,
      createdAt: row!.createdAt.toISOString(),
      group: await toGroup(ctx.em, group),
    });
  },
});

/** `POST /groups/{groupCode}/leave`: ends the caller's membership (owners transfer or delete instead). */
export const leaveGroup = defineRoute({
  operationId: 'leaveGroup',
  method: 'post',
  path: '/groups/{groupCode}/leave',
  interface: 'front',
  summary: 'Leave a business account',
  tags: ['Groups'],
  params: Type.Object({ groupCode: Str(32, { minLength: 1 }) }),
  access: { customer: "ends the caller's own membership." },
  responses: { 204: { description: 'Left' } },
  errors: ['UG405', 'A100'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const membership = await ctx.em.findOne(
      GroupMembership,
      { customer, group: { code: ctx.params.groupCode } },
      { populate: ['group'] },
    );
    if (!membership) throw new DomainError('UG405', 'you are not a member of this business account');
    if (membership.group.owner?.id === customer.id)
      throw new DomainError('A100', 'the owner cannot leave; delete the business account instead');
    ctx.em.remove(membership);
    return noContent();
  },
});

export const frontGroupRoutes = [
  listMyGroups,
  listMyGroupRequests,
  updateMyGroupRequest,
  joinGroup,
  leaveGroup,
];
