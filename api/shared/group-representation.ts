// The business-account representation, which both interfaces use: the account (`UserGroup`) with its cost
// centers and member count, its members, and the page of members of a search.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GroupMembership } from '../../db/entities/GroupMembership.js';
import type { UserGroup } from '../../db/entities/UserGroup.js';
import { costCentersOf, memberCounts } from '../../db/groups.js';
import { billingCycles, membershipStates } from '../../domain/customer.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';
import {
  addressOf,
  CustomerSummary,
  customerTextFilter,
  toCustomerSummary,
} from './customer-representation.js';

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
