// Business accounts against the database: loading with their cost centers, memberships under the
// one-group-per-customer and maximum-members rules, and creation with the tenant's defaults.
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from './entities/Branch.js';
import { CostCenter } from './entities/CostCenter.js';
import { Customer } from './entities/Customer.js';
import { GroupMembership } from './entities/GroupMembership.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { UserGroup } from './entities/UserGroup.js';
import { effectiveSetting } from './settings.js';
import { DomainError } from '../domain/errors.js';
import {
  assertMembershipCapacity,
  assertReceiptsCompatible,
  billingCycles,
  defaultGroupSettings,
  GROUP_SETTING_KEY,
  type BillingCycle,
  type MembershipState,
} from '../domain/customer.js';
import { randomBytes } from 'node:crypto';

/** A business account of the tenant, or UG404. */
export async function groupOrFail(em: EntityManager, id: number): Promise<UserGroup> {
  const group = await em.findOne(UserGroup, id);
  if (!group) throw new DomainError('UG404', `business account ${id} not found`);
  return group;
}

/** The tenant's defaults for new business accounts at a branch (setting `customers.groups`). */
export async function groupDefaults(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<{ billingCycle: BillingCycle; maxMembers: number }> {
  const value = (await effectiveSetting(em, tenant, GROUP_SETTING_KEY, branchId))?.value ?? {};
  const billingCycle = billingCycles.includes(value.billingCycle as BillingCycle)
    ? (value.billingCycle as BillingCycle)
    : defaultGroupSettings.billingCycle;
  const maxMembers =
    typeof value.maxMembers === 'number' && value.maxMembers > 0
      ? value.maxMembers
      : defaultGroupSettings.maxMembers;
  return { billingCycle, maxMembers };
}

/** What a new business account may carry; billingCycle is never taken from the caller on create. */
export interface NewGroup {
  name: string;
  branchId: number;
  code?: string;
  useReceiptInsteadOfInvoice?: boolean;
  checkRentalRequirements?: boolean;
  skipPreAuth?: boolean;
  requireDrivingLog?: boolean;
  shouldIgnoreBCategoryRentalRequirement?: boolean;
  joinRequiresApproval?: boolean;
  defaultBusinessUnitId?: number | null;
  street?: string | null;
  houseNumber?: string | null;
  addressAddition?: string | null;
  postcode?: string | null;
  city?: string | null;
  country?: string | null;
}

/**
 * Creates a business account with the tenant's billing cycle and member limit (UG131 when receipts are
 * asked for without PAY_AS_YOU_GO); the owner, when given, becomes its first, managing member.
 */
export async function createGroup(
  em: EntityManager,
  tenant: string,
  fields: NewGroup,
  owner: Customer | undefined,
): Promise<UserGroup> {
  if (!(await em.count(Branch, fields.branchId)))
    throw new DomainError('B404', `branch ${fields.branchId} not found`);
  const defaults = await groupDefaults(em, tenant, fields.branchId);
  assertReceiptsCompatible(defaults.billingCycle, fields.useReceiptInsteadOfInvoice ?? false);
  const code = fields.code ?? randomBytes(5).toString('hex').toUpperCase();
  if (await em.count(UserGroup, { code })) throw new DomainError('UG133', `the code ${code} is taken`);
  const { branchId, defaultBusinessUnitId, ...rest } = fields;
  const group = em.create(UserGroup, {
    ...rest,
    code,
    branch: em.getReference(Branch, branchId),
    defaultBusinessUnit: defaultBusinessUnitId ?? null,
    owner: owner ?? null,
    billingCycle: defaults.billingCycle,
    maxMembers: defaults.maxMembers,
  });
  if (owner) em.create(GroupMembership, { group, customer: owner, state: 'ACTIVE', canManage: true });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('UG133', 'the owner already belongs to a business account, or the code is taken');
    throw error;
  }
  return group;
}

/**
 * Adds customers to a business account in one transaction: the group row is locked so concurrent
 * additions count each other (UG132), and the unique membership per customer makes UG133 race-free.
 */
export async function addMembers(
  em: EntityManager,
  groupId: number,
  customers: readonly Customer[],
  state: MembershipState,
): Promise<GroupMembership[]> {
  return em.transactional(async (tx) => {
    const group = await tx.findOne(UserGroup, groupId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!group) throw new DomainError('UG404');
    // Joining supersedes the customers' open invitations (this account's or another's).
    await dropInvitations(
      tx,
      customers.map((customer) => customer.id),
    );
    const taken = await tx.find(GroupMembership, {
      customer: { $in: customers.map((customer) => customer.id) },
    });
    if (taken.length)
      throw new DomainError(
        'UG133',
        `customer ${taken[0]!.customer.id} already belongs to a business account`,
      );
    if (state === 'ACTIVE')
      assertMembershipCapacity(
        await tx.count(GroupMembership, { group, state: 'ACTIVE' }),
        customers.length,
        group.maxMembers,
      );
    const rows = customers.map((customer) => tx.create(GroupMembership, { group, customer, state }));
    try {
      await tx.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw new DomainError('UG133', 'a customer already belongs to a business account');
      throw error;
    }
    return rows;
  });
}

/**
 * Invites customers by e-mail to a business account (add-members): an INVITED row for each address of a
 * customer of the tenant who belongs to no account and has no request or invitation pending; nothing for
 * any other address. The caller learns nothing from it (the route answers the same for every address);
 * the customer joins by accepting (`PATCH /groups/requests/{id}`).
 */
export async function inviteMembers(
  em: EntityManager,
  groupId: number,
  emails: readonly string[],
): Promise<void> {
  const tenant = tenantIdOf(em);
  const customers = await em.find(Customer, { email: { $in: [...emails] } }, { fields: ['id'] });
  // One row per customer at most (the unique customer index): a member, a requester or someone invited
  // elsewhere gets nothing, silently.
  for (const customer of customers)
    await em.execute(
      `insert into group_membership (tenant_id, group_id, customer_id, state, can_manage, created_at)
       values (?, ?, ?, 'INVITED', false, now()) on conflict do nothing`,
      [tenant, groupId, customer.id],
    );
}

/** Drops a customer's open invitations: joining or creating an account supersedes them. */
export async function dropInvitations(em: EntityManager, customerIds: readonly number[]): Promise<void> {
  if (customerIds.length)
    await em.nativeDelete(GroupMembership, { customer: { $in: [...customerIds] }, state: 'INVITED' });
}

/** Accepts an invitation (INVITED → ACTIVE) under the member limit (UG132). */
export async function acceptInvitation(em: EntityManager, membership: GroupMembership): Promise<void> {
  await em.transactional(async (tx) => {
    const group = await tx.findOneOrFail(UserGroup, membership.group.id, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    assertMembershipCapacity(
      await tx.count(GroupMembership, { group, state: 'ACTIVE' }),
      1,
      group.maxMembers,
    );
    const moved = await tx.nativeUpdate(
      GroupMembership,
      { id: membership.id, state: 'INVITED' },
      { state: 'ACTIVE' },
    );
    if (!moved) throw new DomainError('UG405', 'the invitation is no longer open');
  });
  membership.state = 'ACTIVE';
}

/** Approves a pending request under the member limit. */
export async function approveRequest(em: EntityManager, membership: GroupMembership): Promise<void> {
  await em.transactional(async (tx) => {
    const group = await tx.findOneOrFail(UserGroup, membership.group.id, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    assertMembershipCapacity(
      await tx.count(GroupMembership, { group, state: 'ACTIVE' }),
      1,
      group.maxMembers,
    );
    await tx.nativeUpdate(GroupMembership, { id: membership.id, state: 'PENDING' }, { state: 'ACTIVE' });
  });
  membership.state = 'ACTIVE';
}

/** The cost centers of groups, by group id. */
export async function costCentersOf(
  em: EntityManager,
  groupIds: readonly number[],
): Promise<Map<number, CostCenter[]>> {
  const rows = groupIds.length
    ? await em.find(CostCenter, { group: { $in: [...groupIds] } }, { orderBy: { code: 'asc' } })
    : [];
  const byGroup = new Map<number, CostCenter[]>();
  for (const row of rows) byGroup.set(row.group.id, [...(byGroup.get(row.group.id) ?? []), row]);
  return byGroup;
}

/** Active member counts of groups, by group id (one grouped query, confined to the EntityManager's tenant). */
export async function memberCounts(
  em: EntityManager,
  groupIds: readonly number[],
): Promise<Map<number, number>> {
  if (!groupIds.length) return new Map();
  const tenant = tenantIdOf(em);
  const rows = await em.execute<Array<{ group_id: number; count: string }>>(
    `select group_id, count(*) as count from group_membership
      where tenant_id = ? and state = 'ACTIVE' and group_id in (${groupIds.map(() => '?').join(', ')})
      group by group_id`,
    [tenant, ...groupIds],
  );
  return new Map(rows.map((row) => [Number(row.group_id), Number(row.count)]));
}
