// A short-lived, per-process cache of small, rarely written, often read tenant data (grants, the branch
// tree, business units, resolved vehicle categories, settings, branch geofences and compatible branches,
// the geofence promotion and surcharge templates), so a request does not re-read them every time.
//
// Correctness: the cache is a MikroORM event subscriber of the ORM it serves. Any flush that writes one of
// the watched entities empties it (after the flush, and again when the surrounding transaction commits or
// rolls back; while such a transaction is open nothing is stored). Writes the unit of work does not see
// (native deletes, SQL by hand) call `invalidate()` where they live in this code, and are otherwise
// bounded by the time to live: an entry is never served older than `READ_CACHE_TTL_MS`.
//
// Across processes (the API and the worker each hold an ORM, so each has its cache): every cache LISTENs
// on the PostgreSQL channel `fleetflow_read_cache` over a connection of its own. A transaction that writes
// a watched entity NOTIFYs the channel inside itself, so the notification is delivered when, and only
// when, it commits; `invalidate()` and `reloadEverywhere()` (the settings' `/reload`) notify after the
// fact. Every other cache empties itself on the notification, within milliseconds instead of the time to
// live. A cache whose listener is down keeps the time-to-live bound, and empties itself once it listens
// again (it may have missed notifications meanwhile).
import { randomUUID } from 'node:crypto';
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
import { Voucherable } from './entities/Voucherable.js';

/** The longest an entry is served, so writes this process does not see still show within this bound. */
export const READ_CACHE_TTL_MS = 2_000;

/** The PostgreSQL notification channel every process's cache listens on. */
export const READ_CACHE_CHANNEL = 'fleetflow_read_cache';

/** The little of a `pg` client the listener uses (the project has no @types/pg). */
interface ListeningClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  on(event: 'end', listener: () => void): void;
}

/** The little of the ORM's `pg` pool the cache uses: its client class and options, `query`, `end`. */
interface NativePool {
  Client: new (options: unknown) => ListeningClient;
  options: Record<string, unknown> & { password?: unknown };
  query(text: string, values: unknown[]): Promise<unknown>;
  end(callback?: (error?: Error) => void): Promise<void> | void;
}

/** Backoff of the listener's reconnection attempts. */
const RECONNECT_MS = { first: 500, max: 30_000 } as const;

/**
 * Entities whose writes invalidate the cache (grants, scopes, category configuration, settings, geography,
 * voucher templates).
 */
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
  Voucherable,
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
  /** This cache's name in notifications: it ignores its own (it emptied itself already). */
  private readonly origin = randomUUID();
  private pool: NativePool | undefined;
  private listener: ListeningClient | undefined;
  private listening: Promise<void> | undefined;
  private reconnectMs: number = RECONNECT_MS.first;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Notifications from other processes this cache emptied itself for (tests and diagnostics). */
  remoteInvalidations = 0;
  /** Times this cache emptied itself, for any reason (tests and diagnostics). */
  emptied = 0;

  constructor(private readonly ttlMs = READ_CACHE_TTL_MS) {}

  /** Forgets everything here (a watched entity was written); loads under way are not stored. */
  private dropAll(): void {
    this.generation += 1;
    this.emptied += 1;
    this.entries.clear();
  }

  /**
   * Forgets everything, here and (by a notification) in every other process: for writes the unit of work
   * does not see, made by code that runs after they committed.
   */
  invalidate(): void {
    this.dropAll();
    this.pool?.query('select pg_notify($1, $2)', [READ_CACHE_CHANNEL, this.origin]).catch(() => undefined);
  }

  /**
   * Empties every process's cache (settings' `/reload`): this one at once, the others when the
   * notification, sent before this resolves, reaches them.
   */
  async reloadEverywhere(em: EntityManager): Promise<void> {
    this.dropAll();
    await em.getConnection().execute('select pg_notify(?, ?)', [READ_CACHE_CHANNEL, `${this.origin} reload`]);
  }

  /** Whether this cache hears the other processes' writes now (else it relies on the time to live). */
  get hearsOtherProcesses(): boolean {
    return this.listener !== undefined;
  }

  /**
   * Starts listening through the ORM behind `em`, once: resolves when it listens (or when the first
   * attempt failed; it retries in the background). The listener's connection ends with the ORM's pool.
   */
  listen(em: EntityManager): Promise<void> {
    this.listening ??= (async () => {
      const pool = (await em.getConnection().getNativeClient()) as unknown as NativePool;
      this.pool = pool;
      const end = pool.end.bind(pool);
      pool.end = (callback?: (error?: Error) => void) => {
        const closing = this.close();
        if (callback) {
          void closing.then(() => end(callback));
          return;
        }
        return closing.then(() => end());
      };
      await this.connectListener();
    })().catch(() => undefined);
    return this.listening;
  }

  private async connectListener(): Promise<void> {
    const pool = this.pool;
    if (this.closed || !pool) return;
    // The pool's options carry the ORM's connection settings; `pg` hides the password from enumeration.
    const client = new pool.Client({ ...pool.options, password: pool.options.password });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      void client.end().catch(() => undefined);
      if (this.listener === client) {
        this.listener = undefined;
        this.dropAll();
      }
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (message.channel !== READ_CACHE_CHANNEL) return;
      const origin = message.payload?.split(' ')[0];
      if (origin === this.origin) return;
      this.remoteInvalidations += 1;
      this.dropAll();
    });
    try {
      await client.connect();
      await client.query(`listen ${READ_CACHE_CHANNEL}`);
    } catch {
      onLost();
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    this.reconnectMs = RECONNECT_MS.first;
    // Entries stored before listening may predate a notification this cache never heard.
    this.dropAll();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connectListener();
    }, this.reconnectMs);
    this.reconnectTimer.unref();
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MS.max);
  }

  /** Stops listening for good (the ORM's pool is ending). */
  private async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /**
   * The value under `key`, loaded by `load` when absent, stale or invalidated. Only an EntityManager outside
   * a transaction stores what it loads, so a cached value is always committed data. Inside a transaction a
   * valid, already loaded entry is served (a flush of a watched entity empties the cache before it is
   * written, so a transaction never reads around its own flushed writes); otherwise it loads through the
   * transaction, never waiting on a load that needs a pooled connection while it holds one.
   */
  async get<T>(em: EntityManager, key: string, load: () => Promise<T>): Promise<T> {
    if (!this.listening) void this.listen(em);
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
    this.dropAll();
  }

  afterFlush(args: FlushEventArgs): void {
    if (this.writesWatched(args.uow)) this.dropAll();
  }

  /**
   * A transaction that wrote a watched entity (an explicit one, or the one a flush opens itself) tells
   * the other processes, inside itself: PostgreSQL delivers the notification on commit, never on rollback.
   */
  async beforeTransactionCommit(args: TransactionEventArgs): Promise<void> {
    const wrote =
      (args.transaction !== undefined && this.openWrites.has(args.transaction)) ||
      (args.uow !== undefined && this.writesWatched(args.uow));
    if (!wrote || !args.transaction) return;
    await args.em
      .getConnection()
      .execute('select pg_notify(?, ?)', [READ_CACHE_CHANNEL, this.origin], 'all', args.transaction);
  }

  afterTransactionCommit(args: TransactionEventArgs): void {
    this.transactionEnded(args);
  }

  afterTransactionRollback(args: TransactionEventArgs): void {
    this.transactionEnded(args);
  }

  private transactionEnded(args: TransactionEventArgs): void {
    if (!this.openWrites.delete(args.transaction)) return;
    this.dropAll();
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
