// The GBFS snapshots of this process (docs/feeds.md): per published system, every file of both versions
// serialised once, with its entity tag, served as stored bytes to any number of pollers. A snapshot is
// rebuilt when the data behind it changed — at most one cheap change check per system and check interval,
// in the background, never on a poller's path — and a file's bytes are replaced only when its data did
// change, at most once per its ttl, so `last_updated` and `ttl` say truly how old the data is and when
// it may next change, and an unchanged file keeps its ETag (304 for conditional requests).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { MikroORM } from '../../db/orm.js';
import { tenantEm } from '../../db/orm.js';
import { publishedFeedSystems } from '../../db/feed-systems.js';
import { loadGbfsSource } from '../../db/gbfs-data.js';
import { gbfsChangeFingerprint } from '../../db/gbfs-fingerprint.js';
import type { FeedSystem } from '../../db/entities/FeedSystem.js';
import { gbfsModel } from '../../domain/gbfs-model.js';
import { renderManifest, renderV2, renderV3, type GbfsUrls } from '../../domain/gbfs-render.js';
import {
  gbfsVersions,
  realtimeGbfsFiles,
  type GbfsFileName,
  type GbfsVersionPath,
} from '../../domain/gbfs-vocabulary.js';

/** How fresh the feeds are kept (environment: FEEDS_REALTIME_TTL_SECONDS, FEEDS_STATIC_TTL_SECONDS, FEEDS_CHECK_INTERVAL_MS). */
export interface GbfsFreshness {
  /** ttl of vehicle_status, free_bike_status and station_status: their bytes change at most this often. */
  realtimeTtlSeconds: number;
  /** ttl of the other files; also the longest a snapshot goes unrebuilt (time-bound rules: schedules, holds). */
  staticTtlSeconds: number;
  /** The least time between two change checks of one system (and reloads of a tenant's published systems). */
  checkIntervalMs: number;
}

const positive = (value: string | undefined, fallback: number, max: number) => {
  const parsed = value === undefined || value === '' ? NaN : Number(value);
  return Number.isInteger(parsed) && parsed >= 0 && parsed <= max ? parsed : fallback;
};

/** The freshness settings from the environment (defaults 10 s, 60 s, 1000 ms). */
export function gbfsFreshnessFromEnv(env: NodeJS.ProcessEnv = process.env): GbfsFreshness {
  return {
    realtimeTtlSeconds: positive(env.FEEDS_REALTIME_TTL_SECONDS, 10, 3600),
    staticTtlSeconds: positive(env.FEEDS_STATIC_TTL_SECONDS, 60, 86400),
    checkIntervalMs: positive(env.FEEDS_CHECK_INTERVAL_MS, 1000, 3_600_000),
  };
}

/** One stored file: its bytes as served, their strong entity tag, and the header values inside. */
export interface StoredFeedFile {
  body: Buffer;
  etag: string;
  /** The same bytes gzip-compressed, for pollers that accept it, and their own entity tag. */
  gzip: Buffer;
  gzipEtag: string;
  lastUpdated: Date;
  ttl: number;
  /** The serialised `data` member, to tell whether a rebuild changed anything. */
  data: string;
}

interface SystemSnapshot {
  system: FeedSystem;
  files: Map<string, StoredFeedFile>;
  builtAt: number;
  checkedAt: number;
  fingerprint: string;
  refreshing?: Promise<void>;
}

interface TenantDirectory {
  systems: Map<string, FeedSystem>;
  manifest?: StoredFeedFile;
  loadedAt: number;
  reloading?: Promise<void>;
}

/** Compression on libuv's thread pool: a rebuild never holds the event loop for it. */
const gzip = promisify(gzipCallback);

/** At most this many tenants remembered as publishing nothing (anonymous paths name any tenant). */
const ABSENT_TENANTS_KEPT = 10_000;

const fileKey = (version: GbfsVersionPath, file: string) => `${version}/${file}`;

/** Serialises one file with its header members; the data of an unchanged file keeps its old bytes. */
async function storeFile(
  previous: StoredFeedFile | undefined,
  data: unknown,
  version: string,
  ttl: number,
  now: Date,
  v2: boolean,
): Promise<{ file: StoredFeedFile; heldBack: boolean }> {
  const serialised = JSON.stringify(data);
  if (previous && previous.data === serialised) return { file: previous, heldBack: false };
  // Data changed: replaced unless the stored bytes promised (ttl) not to change yet.
  if (previous && now.getTime() - previous.lastUpdated.getTime() < previous.ttl * 1000)
    return { file: previous, heldBack: true };
  const lastUpdated = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const stamp = v2
    ? Math.floor(lastUpdated.getTime() / 1000)
    : lastUpdated.toISOString().replace('.000Z', 'Z');
  const body = Buffer.from(
    `{"last_updated":${JSON.stringify(stamp)},"ttl":${ttl},"version":"${version}","data":${serialised}}`,
  );
  const hash = createHash('sha1').update(body).digest('base64url');
  const file = {
    body,
    etag: `"${hash}"`,
    gzip: await gzip(body),
    gzipEtag: `"${hash}-gz"`,
    lastUpdated,
    ttl,
  };
  return { file: { ...file, data: serialised }, heldBack: false };
}

/** The process's GBFS snapshots of every tenant's published systems. */
export class GbfsSnapshots {
  private readonly systems = new Map<string, SystemSnapshot>();
  private readonly directories = new Map<string, TenantDirectory>();
  /** Tenants found publishing nothing (or unknown), and when: asked again only after a check interval. */
  private readonly absent = new Map<string, number>();
  private readonly fingerprints = new Map<string, { at: number; value: Promise<string> }>();
  /** Builds under way, by system key (the first requests of a system wait for the same one). */
  private readonly building = new Map<string, Promise<SystemSnapshot | undefined>>();

  constructor(
    private readonly orm: MikroORM,
    private readonly publicBaseUrl: string,
    readonly freshness: GbfsFreshness,
    /** Where a background refresh's failure goes (the snapshot keeps serving its last bytes meanwhile). */
    private readonly onRefreshError: (error: unknown, tenant: string) => void = () => undefined,
  ) {}

  /** Where a tenant's system is published. */
  urls(tenant: string, systemId: string): GbfsUrls {
    const base = `${this.publicBaseUrl.replace(/\/+$/, '')}/v1/${encodeURIComponent(tenant)}/gbfs`;
    return { base: `${base}/${systemId}`, manifest: `${base}/manifest.json` };
  }

  /** Forgets what this process knows of a tenant's systems (an operator changed one here). */
  invalidate(tenant: string): void {
    this.directories.delete(tenant);
    this.absent.delete(tenant);
    this.fingerprints.delete(tenant);
    for (const [key, snapshot] of this.systems)
      if (key.startsWith(`${tenant}\u0000`)) {
        snapshot.checkedAt = 0;
        snapshot.fingerprint = '';
      }
  }

  /**
   * The tenant's published systems, reloaded in the background after each check interval; an unknown tenant
   * or one publishing nothing is remembered as such for a check interval (bounded), then asked again.
   */
  private async directory(tenant: string): Promise<TenantDirectory | undefined> {
    const known = this.directories.get(tenant);
    const now = Date.now();
    if (known) {
      if (now - known.loadedAt >= this.freshness.checkIntervalMs && !known.reloading)
        known.reloading = this.loadDirectory(tenant)
          .then(() => undefined)
          .catch((error: unknown) => this.onRefreshError(error, tenant))
          .finally(() => (known.reloading = undefined));
      return known;
    }
    const missing = this.absent.get(tenant);
    if (missing !== undefined && now - missing < this.freshness.checkIntervalMs) return undefined;
    return this.loadDirectory(tenant);
  }

  private async loadDirectory(tenant: string): Promise<TenantDirectory | undefined> {
    const systems = await publishedFeedSystems(tenantEm(this.orm, tenant));
    if (systems.length === 0) {
      this.directories.delete(tenant);
      for (const key of this.systems.keys()) if (key.startsWith(`${tenant}\u0000`)) this.systems.delete(key);
      if (this.absent.size >= ABSENT_TENANTS_KEPT) this.absent.clear();
      this.absent.set(tenant, Date.now());
      return undefined;
    }
    this.absent.delete(tenant);
    // Snapshots of systems no longer published are dropped: a system published again starts afresh.
    const published = new Set(systems.map((system) => `${tenant}\u0000${system.systemId}`));
    for (const key of this.systems.keys())
      if (key.startsWith(`${tenant}\u0000`) && !published.has(key)) this.systems.delete(key);
    const directory: TenantDirectory = {
      systems: new Map(systems.map((system) => [system.systemId, system] as const)),
      loadedAt: Date.now(),
    };
    const previous = this.directories.get(tenant)?.manifest;
    directory.manifest = (
      await storeFile(
        previous,
        renderManifest(
          systems.map((system) => ({ systemId: system.systemId, urls: this.urls(tenant, system.systemId) })),
          tenant,
        ),
        '3.0',
        this.freshness.staticTtlSeconds,
        new Date(),
        false,
      )
    ).file;
    this.directories.set(tenant, directory);
    return directory;
  }

  /** The tenant's 3.0 manifest, or undefined when it publishes nothing. */
  async manifest(tenant: string): Promise<StoredFeedFile | undefined> {
    return (await this.directory(tenant))?.manifest;
  }

  /** One file of a published system, or undefined (unknown tenant or system, unpublished, not a file of the version). */
  async file(
    tenant: string,
    systemId: string,
    version: GbfsVersionPath,
    file: string,
  ): Promise<StoredFeedFile | undefined> {
    const directory = await this.directory(tenant);
    const system = directory?.systems.get(systemId);
    if (!system) return undefined;
    const key = `${tenant}\u0000${systemId}`;
    let snapshot = this.systems.get(key);
    if (!snapshot || snapshot.system.id !== system.id) {
      let pending = this.building.get(key);
      if (!pending) {
        pending = this.build(tenant, system, undefined).finally(() => this.building.delete(key));
        this.building.set(key, pending);
      }
      snapshot = await pending;
      if (!snapshot) return undefined;
    } else {
      snapshot.system = system;
      this.refreshInBackground(tenant, snapshot);
    }
    return snapshot.files.get(fileKey(version, file));
  }

  /**
   * The tenant's change fingerprint, shared by its systems' checks within half a check interval (one
   * statement per tenant, however many systems it publishes; a change is seen at most an interval later).
   */
  private fingerprint(tenant: string): Promise<string> {
    const now = Date.now();
    const known = this.fingerprints.get(tenant);
    if (known && now - known.at < this.freshness.checkIntervalMs / 2) return known.value;
    const value = gbfsChangeFingerprint(this.orm, tenant);
    this.fingerprints.set(tenant, { at: now, value });
    value.catch(() => this.fingerprints.delete(tenant));
    return value;
  }

  private refreshInBackground(tenant: string, snapshot: SystemSnapshot): void {
    const now = Date.now();
    if (snapshot.refreshing || now - snapshot.checkedAt < this.freshness.checkIntervalMs) return;
    snapshot.checkedAt = now;
    snapshot.refreshing = (async () => {
      const fingerprint = await this.fingerprint(tenant);
      const old = now - snapshot.builtAt >= this.freshness.staticTtlSeconds * 1000;
      if (fingerprint !== snapshot.fingerprint || old) await this.build(tenant, snapshot.system, snapshot);
    })()
      .catch((error: unknown) => this.onRefreshError(error, tenant))
      .finally(() => (snapshot.refreshing = undefined));
  }

  /** Builds (or rebuilds into `previous`) every file of both versions of a system from one read. */
  private async build(
    tenant: string,
    system: FeedSystem,
    previous: SystemSnapshot | undefined,
  ): Promise<SystemSnapshot | undefined> {
    const fingerprint = await this.fingerprint(tenant);
    const source = await loadGbfsSource(tenantEm(this.orm, tenant), tenant, system);
    const now = new Date();
    const model = gbfsModel(source, now);
    const urls = this.urls(tenant, system.systemId);
    const rendered: Record<GbfsVersionPath, Record<string, unknown>> = {
      v3: { ...renderV3(model, urls, tenant) },
      v2: { ...renderV2(model, urls, tenant) },
    };
    const files = new Map<string, StoredFeedFile>();
    let heldBack = false;
    for (const version of Object.keys(gbfsVersions) as GbfsVersionPath[])
      for (const [name, data] of Object.entries(rendered[version])) {
        const ttl = realtimeGbfsFiles.includes(name as GbfsFileName)
          ? this.freshness.realtimeTtlSeconds
          : this.freshness.staticTtlSeconds;
        const stored = await storeFile(
          previous?.files.get(fileKey(version, name)),
          data,
          gbfsVersions[version],
          ttl,
          now,
          version === 'v2',
        );
        heldBack ||= stored.heldBack;
        files.set(fileKey(version, name), stored.file);
      }
    const snapshot: SystemSnapshot = previous ?? {
      system,
      files,
      builtAt: 0,
      checkedAt: 0,
      fingerprint: '',
    };
    snapshot.files = files;
    snapshot.builtAt = now.getTime();
    snapshot.checkedAt = now.getTime();
    // A file held back by its ttl is written at the next check, whatever the fingerprint says then.
    snapshot.fingerprint = heldBack ? '' : fingerprint;
    this.systems.set(`${tenant}\u0000${system.systemId}`, snapshot);
    return snapshot;
  }
}

/**
 * Every snapshot store of this process, so an operator's change here is seen at once (others: within a
 * check). Held weakly: a store lives as long as its app's handler, and an app that was closed (the tests
 * and benchmarks start many) must not stay reachable through here with its ORM.
 */
const stores = new Set<WeakRef<GbfsSnapshots>>();

/** Registers a store for `invalidateFeeds`. */
export function registerSnapshots(store: GbfsSnapshots): GbfsSnapshots {
  stores.add(new WeakRef(store));
  return store;
}

/** An operator changed a tenant's feed configuration in this process. */
export function invalidateFeeds(tenant: string): void {
  for (const ref of stores) {
    const store = ref.deref();
    if (store) store.invalidate(tenant);
    else stores.delete(ref);
  }
}
