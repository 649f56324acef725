// Which events a caller may read, worked out once per request from its grants and the branch tree: per
// event family the branches whose events of that family it reads, and the branches whose positions it
// sees. The search and the timelines turn it into their SQL condition (db/event-search.ts). docs/events.md,
// "Permissions".
import { branchDirectory, grantedSubtrees, type BranchNode } from '../../../db/branches.js';
import type { EventVisibility } from '../../../db/event-search.js';
import { eventFamilies, eventFamilyPermissions, type EventFamily } from '../../../domain/events.js';
import type { RouteContext } from '../../kernel/route.js';

/** The caller's reach over events, for one request. */
export interface CallerEventAccess {
  /** Every branch of the tenant. */
  allBranches: readonly number[];
  /** Per family: the branches on which the caller holds the family's permission (grants on ancestors count). */
  family: ReadonlyMap<EventFamily, ReadonlySet<number>>;
  /** The branches on which the caller holds POSITION_LOG_READ. */
  positions: ReadonlySet<number>;
}

/** The caller's event access, loaded once per request (the access check and the handler share it). */
export function callerEventAccess(ctx: RouteContext<unknown, unknown>): Promise<CallerEventAccess> {
  return ctx.once('event-access', async () => {
    const { branches } = await branchDirectory(ctx.em, ctx.tenant);
    const tree: BranchNode[] = [...branches].map(([id, branch]) => ({ id, parentId: branch.parentId }));
    const holding = (permission: string) =>
      grantedSubtrees(tree, (branchId) => ctx.holds({ permission, branchId }));
    const family = new Map<EventFamily, ReadonlySet<number>>();
    for (const name of eventFamilies) family.set(name, await holding(eventFamilyPermissions[name]));
    return { allBranches: [...branches.keys()], family, positions: await holding('POSITION_LOG_READ') };
  });
}

const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number>) =>
  a.size === b.size && [...a].every((id) => b.has(id));

/**
 * The visibility of per-family branch sets: families with the same branches form one group; events of no
 * branch are readable for the families readable on some branch; a reader of every family on every branch
 * (without a branch filter) reads everything.
 */
function visibilityOf(
  sets: ReadonlyMap<EventFamily, ReadonlySet<number>>,
  allBranches: readonly number[],
  withBranchless: boolean,
): EventVisibility {
  const groups: { branchIds: number[]; families: EventFamily[]; set: ReadonlySet<number> }[] = [];
  for (const [name, set] of sets) {
    if (set.size === 0) continue;
    const group = groups.find((candidate) => sameSet(candidate.set, set));
    if (group) group.families.push(name);
    else groups.push({ branchIds: [...set].sort((a, b) => a - b), families: [name], set });
  }
  const branchless = withBranchless ? eventFamilies.filter((name) => (sets.get(name)?.size ?? 0) > 0) : [];
  const everything =
    withBranchless &&
    groups.length === 1 &&
    groups[0]!.families.length === eventFamilies.length &&
    allBranches.every((id) => groups[0]!.set.has(id));
  return {
    everything,
    groups: groups.map(({ branchIds, families }) => ({ branchIds, families })),
    branchless,
  };
}

/**
 * What `GET /events` shows: events of the branches on which the caller holds EVENT_READ and the family's
 * permission; with `branches` (the branch filter) only those branches and no events without a branch.
 */
export function searchVisibility(access: CallerEventAccess, branches?: ReadonlySet<number>): EventVisibility {
  const eventRead = access.family.get('GENERAL') ?? new Set<number>();
  const sets = new Map<EventFamily, ReadonlySet<number>>();
  for (const [name, set] of access.family)
    sets.set(name, new Set([...set].filter((id) => eventRead.has(id) && (!branches || branches.has(id)))));
  return visibilityOf(sets, access.allBranches, branches === undefined);
}

/** What a timeline shows of its entity's events: those of a family on the branches where its permission is held. */
export function timelineVisibility(access: CallerEventAccess): EventVisibility {
  return visibilityOf(access.family, access.allBranches, true);
}

/**
 * Whether an event's GPS positions are shown: POSITION_LOG_READ on its branch; for an event of no branch,
 * on every branch (tenant-wide), as such events (app telemetry, sign-ins) belong to no branch.
 */
export function positionShown(access: CallerEventAccess, branchId: number | null): boolean {
  if (branchId !== null) return access.positions.has(branchId);
  return access.allBranches.length > 0 && access.allBranches.every((id) => access.positions.has(id));
}

/** The families whose events the search shows on some branch (the types `GET /events/types` lists). */
export function searchableFamilies(access: CallerEventAccess): EventFamily[] {
  const eventRead = access.family.get('GENERAL') ?? new Set<number>();
  return eventFamilies.filter((name) => [...(access.family.get(name) ?? [])].some((id) => eventRead.has(id)));
}
