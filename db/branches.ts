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
