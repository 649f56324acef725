// The app's view of branches: public branches in service, and the branches trips may cross into, each
// with the contact details apps show (its own, else its nearest ancestor's, else its business unit's).
import { Type, type Static } from '@sinclair/typebox';
import type { FilterQuery } from '@mikro-orm/core';
import { branchAncestry } from '../../../db/branches.js';
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
      contactInfo: Type.Union([ContactInfo, Type.Null()], {
        description:
          "How to reach the branch's operator: the branch's own contact details, else its nearest ancestor's, else its business unit's; null when none has any.",
      }),
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

type Contact = Static<typeof ContactInfo>;

/** Whether stored contact details say anything (an empty object is none). */
const hasContact = (info: Record<string, unknown> | null | undefined): info is Contact =>
  !!info && Object.keys(info).length > 0;

/**
 * The contact details apps show for each branch: its own, else its nearest ancestor's, else its business
 * unit's (the billable entity behind it), else null. Ancestors are read once for all branches.
 */
async function effectiveContacts(
  em: EntityManager,
  tenant: string,
  branches: readonly Branch[],
): Promise<Map<number, Contact | null>> {
  const chains = new Map<number, number[]>();
  for (const branch of branches)
    if (!hasContact(branch.contactInfo))
      chains.set(branch.id, (await branchAncestry(em, tenant, branch.id)).slice(1));
  const ancestorIds = [...new Set([...chains.values()].flat())];
  const ancestorContacts = new Map<number, Record<string, unknown> | null>();
  if (ancestorIds.length)
    for (const row of await em.execute<{ id: number; contact_info: Record<string, unknown> | null }[]>(
      'select id, contact_info from branch where tenant_id = ? and id in (?)',
      [tenant, ancestorIds],
    ))
      ancestorContacts.set(Number(row.id), row.contact_info);
  const contacts = new Map<number, Contact | null>();
  for (const branch of branches) {
    const own = branch.contactInfo;
    if (hasContact(own)) {
      contacts.set(branch.id, own);
      continue;
    }
    const inherited = (chains.get(branch.id) ?? [])
      .map((id) => ancestorContacts.get(id))
      .find((info) => hasContact(info));
    const unit = branch.businessUnit.contactInfo;
    contacts.set(branch.id, (inherited as Contact | undefined) ?? (hasContact(unit) ? unit : null));
  }
  return contacts;
}

function toAppBranchDto(branch: Branch, contactInfo: Contact | null): Static<typeof AppBranch> {
  return {
    id: branch.id,
    name: branch.name,
    code: branch.code,
    state: branch.state,
    parentId: branch.parent?.id ?? null,
    operationMode: branch.operationMode,
    timeZoneId: branch.timeZoneId,
    currency: branch.currency ?? branch.businessUnit.currency,
    contactInfo,
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
  async handler({ em, tenant, query }) {
    const where: FilterQuery<Branch> = query.searchText
      ? { $and: [appVisibleBranch, { name: { $ilike: likePattern(query.searchText) } }] }
      : appVisibleBranch;
    const rows = await em.find(Branch, where, {
      populate: ['businessUnit'],
      orderBy: { name: 'asc', id: 'asc' },
      limit: 1000,
    });
    const contacts = await effectiveContacts(em, tenant, rows);
    return ok(rows.map((row) => toAppBranchDto(row, contacts.get(row.id) ?? null)));
  },
});

export const listIntersectableBranches = defineRoute({
  operationId: 'listIntersectableBranches',
  method: 'get',
  path: '/branches/{branchId}/intersectable',
  interface: 'front',
  summary: 'Branches trips of this branch may cross into (its compatible branches), with contact details',
  description:
    "The branch's compatible branches (operator's `PUT /branches/{id}/compatible-branches`) that apps see (public, in service), each with `isIncoming`/`isOutgoing` and `contactInfo` (its own, else its nearest ancestor's, else its business unit's). The intersectable-branches setting type of older versions was removed; compatible branches are its successor. B404 for a branch apps do not see.",
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
  async handler({ em, tenant, params }) {
    const branch = await loadAppBranch(em, params.branchId);
    const links = await em.find(CompatibleBranch, { branch: branch.id }, { orderBy: { compatible: 'asc' } });
    const visible = await em.find(
      Branch,
      { $and: [{ id: { $in: links.map((link) => link.compatible.id) } }, appVisibleBranch] },
      { populate: ['businessUnit'] },
    );
    const byId = new Map(visible.map((row) => [row.id, row]));
    const contacts = await effectiveContacts(em, tenant, visible);
    return ok(
      links.flatMap((link) => {
        const other = byId.get(link.compatible.id);
        return other
          ? [
              {
                ...toAppBranchDto(other, contacts.get(other.id) ?? null),
                isIncoming: link.isIncoming,
                isOutgoing: link.isOutgoing,
              },
            ]
          : [];
      }),
    );
  },
});

export const appBranchRoutes = [listAppBranches, listIntersectableBranches];
