// The app's view of branches: public branches in service, and the branches trips may cross into.
import { Type, type Static } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { Branch } from '../../../db/entities/Branch.js';
import { CompatibleBranch } from '../../../db/entities/CompatibleBranch.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { BranchState, ContactInfo, likePattern } from '../../shared/branch-representation.js';

/** Branch states apps see (a branch in preparation or out of business is not shown). */
export const appVisibleBranchStates = ['OPERATIONAL', 'MAINTENANCE', 'HIBERNATION'] as const;

/** The condition of branches an app may see: public and in service. */
export const appVisibleBranch: FilterQuery<Branch> = {
  visibility: 'public',
  state: { $in: [...appVisibleBranchStates] },
};

const AppBranch = component(
  'AppBranch',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      code: Type.String(),
      state: BranchState,
      parentId: Nullable(Id()),
      operationMode: StringEnum(['ON_DEMAND', 'BOOKING'] as const),
      timeZoneId: Type.String(),
      currency: Type.String(),
      contactInfo: Nullable(ContactInfo),
    },
    { additionalProperties: false },
  ),
);

const IntersectableBranch = component(
  'IntersectableBranch',
  Type.Object(
    {
      ...AppBranch.properties,
      isIncoming: Type.Boolean({ description: 'Trips from that branch may end in the asked branch.' }),
      isOutgoing: Type.Boolean({ description: 'Trips from the asked branch may end in that branch.' }),
    },
    { additionalProperties: false },
  ),
);

function toAppBranchDto(branch: Branch): Static<typeof AppBranch> {
  return {
    id: branch.id,
    name: branch.name,
    code: branch.code,
    state: branch.state,
    parentId: branch.parent?.id ?? null,
    operationMode: branch.operationMode,
    timeZoneId: branch.timeZoneId,
    currency: branch.currency ?? branch.businessUnit.currency,
    contactInfo: (branch.contactInfo as Static<typeof ContactInfo> | null | undefined) ?? null,
  };
}

/** An app-visible branch, or B404. */
export async function loadAppBranch(em: EntityManager, branchId: number): Promise<Branch> {
  const branch = await em.findOne(
    Branch,
    { $and: [{ id: branchId }, appVisibleBranch] },
    { populate: ['businessUnit'] },
  );
  if (!branch) throw new DomainError('B404', `branch ${branchId} not found`);
  return branch;
}

export const listAppBranches = defineRoute({
  operationId: 'listAppBranches',
  method: 'get',
  path: '/branches',
  interface: 'front',
  summary: 'Public branches in service',
  tags: ['Branches'],
  query: Type.Object({ searchText: Type.Optional(Str(100, { minLength: 1 })) }),
  access: { anyCaller: 'only public branches in service, which every app shows, are listed.' },
  responses: { 200: { description: 'Branches, by name', schema: Type.Array(AppBranch, { maxItems: 1000 }) } },
  errors: [],
  async handler({ em, query }) {
    const where: FilterQuery<Branch> = query.searchText
      ? { $and: [appVisibleBranch, { name: { $ilike: likePattern(query.searchText) } }] }
      : appVisibleBranch;
    const rows = await em.find(Branch, where, {
      populate: ['businessUnit'],
      orderBy: { name: 'asc', id: 'asc' },
      limit: 1000,
    });
    return ok(rows.map(toAppBranchDto));
  },
});

export const listIntersectableBranches = defineRoute({
  operationId: 'listIntersectableBranches',
  method: 'get',
  path: '/branches/{branchId}/intersectable',
  interface: 'front',
  summary: 'Branches trips of this branch may cross into (its compatible branches), with contact details',
  tags: ['Branches'],
  params: Type.Object({ branchId: Id() }),
  access: { anyCaller: 'only public branches in service, which every app shows, are listed.' },
  responses: {
    200: {
      description: 'Compatible public branches',
      schema: Type.Array(IntersectableBranch, { maxItems: 1000 }),
    },
  },
  errors: ['B404'],
  async handler({ em, params }) {
    const branch = await loadAppBranch(em, params.branchId);
    const links = await em.find(CompatibleBranch, { branch: branch.id }, { orderBy: { compatible: 'asc' } });
    const visible = await em.find(
      Branch,
      { $and: [{ id: { $in: links.map((link) => link.compatible.id) } }, appVisibleBranch] },
      { populate: ['businessUnit'] },
    );
    const byId = new Map(visible.map((row) => [row.id, row]));
    return ok(
      links.flatMap((link) => {
        const other = byId.get(link.compatible.id);
        return other
          ? [{ ...toAppBranchDto(other), isIncoming: link.isIncoming, isOutgoing: link.isOutgoing }]
          : [];
      }),
    );
  },
});

export const appBranchRoutes = [listAppBranches, listIntersectableBranches];
