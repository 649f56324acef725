// How a tenant is seeded: each domain contributes a step (its registration's `seed`), run in the order
// of the domain list. A step reads what earlier domains put on the board and puts its own rows there;
// each domain adds its fields to `SeedBoard` from its own seed file (a module augmentation).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PermissionCatalogue } from '../../domain/permissions.js';
import type { ObjectStore } from '../../platform/object-store.js';

/** What the seed knows so far: the tenant asked for, and what the domains seeded before this step made. */
export interface SeedBoard {
  readonly tenantId: string;
  readonly tenantName: string;
  /** The permission catalogue of every domain (the seeded roles grant from it). */
  readonly permissions: PermissionCatalogue;
  /** The object store seeded files are put into; absent when none is configured (no demo files then). */
  readonly objectStore?: ObjectStore;
}

/** One domain's part of a seeded tenant, inside the seed's single transaction. */
export interface DomainSeed {
  /** Creates the domain's rows (flushed together with every other domain's). */
  rows?(tx: EntityManager, board: SeedBoard): void | Promise<void>;
  /** Runs after every domain's rows are flushed: steps that read back what others wrote. */
  afterFlush?(tx: EntityManager, board: SeedBoard): Promise<void>;
}

/** What an earlier domain's step put on the board; a step that runs too early fails with a clear message. */
export function fromBoard<K extends keyof SeedBoard>(board: SeedBoard, key: K): NonNullable<SeedBoard[K]> {
  const value = board[key];
  if (value === undefined || value === null)
    throw new Error(`the seed needs ${String(key)}, which a domain listed earlier puts on the board`);
  return value as NonNullable<SeedBoard[K]>;
}
