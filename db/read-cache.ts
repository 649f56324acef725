// A short-lived, per-process cache of small, rarely written, often read tenant data (grants, the branch
// tree, business units, resolved vehicle categories, settings, branch geofences and compatible branches), so
// a request does not re-read them every time.
//
// Correctness: the cache is a MikroORM event subscriber of the ORM it serves. Any flush that writes one of
// the watched entities empties it (after the flush, and again when the surrounding transaction commits or
// rolls back; while such a transaction is open nothing is stored). Writes the unit of work does not see
// (native deletes, other processes, SQL by hand) call `invalidate()` where they live in this code, and are
// otherwise bounded by the time to live: an entry is never served older than `READ_CACHE_TTL_MS`.
import type { EventSubscriber, FlushEventArgs, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiClient } from './entities/ApiClient.js';
import { Area } from './entities/Area.js';
import { Branch } from './entities/Branch.js';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { CompatibleBranch } from './entities/CompatibleBranch.js';
import { Role } from './entities/Role.js';
import { RoleAssignment } from './entities/RoleAssignment.js';
import { Setting } from './entities/Setting.js';
import { VehicleCategory } from './entities/VehicleCategory.js';

/** The longest an entry is served, so writes this process does not see still show within this bound. */
export const READ_CACHE_TTL_MS = 2_000;

/** Entities whose writes invalidate the cache (grants, scopes, category configuration, settings, geography). */
const watchedEntities = new Set<unknown>([
  ApiClient,
  Area,
  Branch,
  BusinessUnit,
  CompatibleBranch,
  Role,
  RoleAssignment,
  Setting,
  VehicleCategory,
]);

/** How long an open transaction that wrote a watched entity suspends storing, at most. */
const OPEN_WRITE_LIMIT_MS = 60_000;

interface Entry {
  generation: number;
  storedAt: number;
  value: Promise<unknown>;
  /** Whether `value` has resolved: a transaction waits on no load, as that load may need its connection. */
  settled: boolean;
}

/** The cache and its invalidation; one per ORM (registered through `ormOptions`). */
export class ReadCache implements EventSubscriber {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  /**
   * Open transactions that wrote a watched entity, with when: nothing is stored until they end (or, should
   * their end never be reported, for a minute).
   */
  private readonly openWrites = new Map<unknown, number>();

  constructor(private readonly ttlMs = READ_CACHE_TTL_MS) {}

  /** Forgets everything (a watched entity was written); loads under way are not stored. */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /**
   * The value under `key`, loaded by `load` when absent, stale or invalidated. Only an EntityManager outside
   * a transaction stores what it loads, so a cached value is always committed data. Inside a transaction a
   * valid, already loaded entry is served (a flush of a watched entity empties the cache before it is
   * written, so a transaction never reads around its own flushed writes); otherwise it loads through the
   * transaction, never waiting on a load that needs a pooled connection while it holds one.
   */
  async get<T>(em: EntityManager, key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const entry = this.entries.get(key);
    const valid = entry && entry.generation === this.generation && now - entry.storedAt < this.ttlMs;
    if (em.isInTransaction()) return valid && entry.settled ? (entry.value as Promise<T>) : load();
    if (valid) return entry.value as Promise<T>;
    const generation = this.generation;
    const value = load();
    if (!this.writesOpen(now)) {
      const stored: Entry = { generation, storedAt: now, value, settled: false };
      this.entries.set(key, stored);
      value.then(() => (stored.settled = true)).catch(() => undefined);
      // A failed load is not kept; a load overtaken by an invalidation is dropped by the generation check.
      value.catch(() => {
        if (this.entries.get(key)?.value === value) this.entries.delete(key);
      });
    }
    return value;
  }

  private writesOpen(now: number): boolean {
    for (const [transaction, since] of this.openWrites)
      if (now - since > OPEN_WRITE_LIMIT_MS) this.openWrites.delete(transaction);
    return this.openWrites.size > 0;
  }

  /** Drops one key (a caller saw it miss something that may have been created since). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  private writesWatched(uow: FlushEventArgs['uow']): boolean {
    for (const changeSet of uow.getChangeSets())
      if (watchedEntities.has(changeSet.meta.class) || watchedEntities.has(changeSet.meta.root.class))
        return true;
    return false;
  }

  onFlush(args: FlushEventArgs): void {
    if (!this.writesWatched(args.uow)) return;
    const transaction = args.em.getTransactionContext();
    if (transaction) this.openWrites.set(transaction, Date.now());
    this.invalidate();
  }

  afterFlush(args: FlushEventArgs): void {
    if (this.writesWatched(args.uow)) this.invalidate();
  }

  afterTransactionCommit(args: TransactionEventArgs): void {
    this.transactionEnded(args);
  }

  afterTransactionRollback(args: TransactionEventArgs): void {
    this.transactionEnded(args);
  }

  private transactionEnded(args: TransactionEventArgs): void {
    if (!this.openWrites.delete(args.transaction)) return;
    this.invalidate();
  }
}

/** Freezes a cached value and everything in it: entries are shared by every reader of the cache's lifetime. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** The read cache of the ORM behind an EntityManager (every ORM built with `ormOptions` has one). */
export function readCacheOf(em: EntityManager): ReadCache {
  let cache = cacheByConfiguration.get(em.config);
  if (!cache) {
    cache = [...em.config.get('subscribers')].find((subscriber) => subscriber instanceof ReadCache);
    if (!cache) throw new Error('this ORM was not configured with ormOptions: it has no read cache');
    cacheByConfiguration.set(em.config, cache);
  }
  return cache;
}

const cacheByConfiguration = new WeakMap<object, ReadCache>();
