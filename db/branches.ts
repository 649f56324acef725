import type { EntityManager } from '@mikro-orm/postgresql';
import { readCacheOf } from './read-cache.js';

/** The tenant's branch tree and business units, as authorization and settings walk them. */
export interface BranchDirectory {
  branches: ReadonlyMap<number, { parentId: number | null; businessUnitId: number }>;
  businessUnitIds: ReadonlySet<number>;
}

async function loadBranchDirectory(em: EntityManager, tenant: string): Promise<BranchDirectory> {
  const rows = await em.execute<
    { kind: 'branch' | 'unit'; id: number; parent_id: number | null; business_unit_id: number | null }[]
  >(
    `select 'branch' as kind, id, parent_id, business_unit_id from branch where tenant_id = ?
     union all
     select 'unit', id, null, null from business_unit where tenant_id = ?`,
    [tenant, tenant],
  );
  const branches = new Map<number, { parentId: number | null; businessUnitId: number }>();
  const businessUnitIds = new Set<number>();
  for (const row of rows) {
    if (row.kind === 'unit') businessUnitIds.add(Number(row.id));
    else
      branches.set(Number(row.id), {
        parentId: row.parent_id === null ? null : Number(row.parent_id),
        businessUnitId: Number(row.business_unit_id),
      });
  }
  return { branches, businessUnitIds };
}

/**
 * The tenant's branches (id, parent, business unit) and business unit ids, from the read cache (two small
 * queries when it is empty). Asking about a branch or unit it does not hold reads it again once, so one
 * created by another process is found at once; one deleted elsewhere may linger for the cache's lifetime.
 */
export async function branchDirectory(
  em: EntityManager,
  tenant: string,
  mustHold?: { branchId?: number; businessUnitId?: number },
): Promise<BranchDirectory> {
  const cache = readCacheOf(em);
  const key = `branches:${tenant}`;
  const directory = await cache.get(em, key, () => loadBranchDirectory(em, tenant));
  const missing =
    (mustHold?.branchId !== undefined && !directory.branches.has(mustHold.branchId)) ||
    (mustHold?.businessUnitId !== undefined && !directory.businessUnitIds.has(mustHold.businessUnitId));
  if (!missing || em.isInTransaction()) return directory;
  cache.forget(key);
  return cache.get(em, key, () => loadBranchDirectory(em, tenant));
}

/**
 * The branch followed by its ancestors (nearest first); empty when the tenant has no such branch. Grants
 * and settings on a parent apply to its children, so both authorization and settings walk this list.
 */
export async function branchAncestry(em: EntityManager, tenant: string, branchId: number): Promise<number[]> {
  const { branches } = await branchDirectory(em, tenant, { branchId });
  const chain: number[] = [];
  let current: number | null = branchId;
  // Thirty-three levels at most, as deep as the tree may grow.
  while (current !== null && chain.length <= 32) {
    const branch = branches.get(current);
    if (!branch) break;
    chain.push(current);
    current = branch.parentId;
  }
  return chain;
}

/** Every descendant of the branch including itself, for lists with includeChildBranches. */
export async function branchWithDescendants(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<number[]> {
  const rows = await em.execute<{ id: number }[]>(
    `with recursive tree(id, depth) as (
       select id, 0 from branch where id = ? and tenant_id = ?
       union all
       select b.id, t.depth + 1 from branch b join tree t on b.parent_id = t.id where b.tenant_id = ? and t.depth < 32
     ) select id from tree`,
    [branchId, tenant, tenant],
  );
  return rows.map((row) => Number(row.id));
}

/** One branch of the tree: its id and its parent's. */
export interface BranchNode {
  id: number;
  parentId: number | null;
}

/** Every branch of the tenant as (id, parent) pairs, read with one query (branch trees are small). */
export async function branchTree(em: EntityManager, tenant: string): Promise<BranchNode[]> {
  const rows = await em.execute<{ id: number; parent_id: number | null }[]>(
    `select id, parent_id from branch where tenant_id = ? order by id`,
    [tenant],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    parentId: row.parent_id === null ? null : Number(row.parent_id),
  }));
}

/**
 * The branches a caller sees, walking the tree from its roots: a branch granted (directly or through an
 * ancestor) brings its whole subtree without further checks; otherwise its children are tried. `granted`
 * answers for one branch (it sees grants on ancestors), so a grant on a city costs one check.
 */
export async function grantedSubtrees(
  tree: readonly BranchNode[],
  granted: (branchId: number) => Promise<boolean>,
): Promise<Set<number>> {
  const children = new Map<number | null, number[]>();
  for (const node of tree) children.set(node.parentId, [...(children.get(node.parentId) ?? []), node.id]);
  const visible = new Set<number>();
  const addSubtree = (id: number) => {
    visible.add(id);
    for (const child of children.get(id) ?? []) addSubtree(child);
  };
  const visit = async (id: number): Promise<void> => {
    if (await granted(id)) addSubtree(id);
    else for (const child of children.get(id) ?? []) await visit(child);
  };
  for (const root of children.get(null) ?? []) await visit(root);
  return visible;
}
