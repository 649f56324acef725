import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The branch followed by its ancestors (nearest first), read with one recursive query. Grants and
 * settings on a parent apply to its children, so both authorization and settings walk this list.
 */
export async function branchAncestry(em: EntityManager, tenant: string, branchId: number): Promise<number[]> {
  const rows = await em.execute<{ id: number }[]>(
    `with recursive chain(id, parent_id, depth) as (
       select id, parent_id, 0 from branch where id = ? and tenant_id = ?
       union all
       select b.id, b.parent_id, c.depth + 1 from branch b join chain c on b.id = c.parent_id where c.depth < 32
     ) select id from chain order by depth`,
    [branchId, tenant],
  );
  return rows.map((row) => Number(row.id));
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
