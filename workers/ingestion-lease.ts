// One device-ingestion consumer per broker among the worker replicas. aedes speaks MQTT 3.1.1 and has no
// shared subscriptions, so two workers subscribed to the telemetry topics would each store every message.
// Instead the workers hold a lease: a PostgreSQL session advisory lock keyed by the broker. The worker that
// holds it consumes (the telemetry and docking ingestors); the others try again every `retryMs`. A holder
// that dies (kill -9 included) loses its database session and with it the lock, at once; the next worker
// takes over. The consumer connects with one fixed client id and a persistent session (clean: false), so
// the broker keeps the QoS 1 messages (state, docking reports) that arrive while no worker consumes and
// hands them to the next holder: none is lost in the hand-over (telemetry is QoS 0, at most once by the
// device protocol, docs/device-protocol.md).
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';

/** What the lease needs of a `pg` client. */
interface LeaseClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: 'error' | 'end', listener: (...args: unknown[]) => void): void;
}

/** The ORM's `pg` pool: its client class and connection options. */
interface NativePool {
  Client: new (options: unknown) => LeaseClient;
  options: Record<string, unknown> & { password?: unknown };
}

export interface IngestionLeaseOptions {
  /** Identifies what is consumed (the broker): one holder per key. */
  key: string;
  /** Starts consuming; a throw releases the lease and tries again later. */
  onAcquired(): Promise<void>;
  /** Stops consuming (the lease was lost or is being released). */
  onReleased(): Promise<void>;
  /** How often a worker without the lease tries to take it, and the holder checks it still has it. */
  retryMs?: number;
  log?: (message: string, error?: unknown) => void;
}

/** The client id of the consumer of `key`: the same in every replica, so the broker keeps one session. */
export function ingestionClientId(key: string): string {
  return `fleetflow-ingestion-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/**
 * A lease held through a PostgreSQL session advisory lock (`pg_try_advisory_lock` on a hash of the key)
 * on a connection of its own, opened from the ORM's pool options.
 */
export class IngestionLease {
  private client: LeaseClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private transition: Promise<void> = Promise.resolve();

  constructor(
    private readonly orm: MikroORM,
    private readonly options: IngestionLeaseOptions,
  ) {}

  /** Whether this process consumes now. */
  get held(): boolean {
    return this.client !== undefined;
  }

  /** Tries once (and consumes when it got the lease), then keeps trying or checking in the background. */
  async start(): Promise<void> {
    await this.step();
  }

  /** Releases the lease (stops consuming first) and stops trying. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.transition;
    await this.release();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.step(), this.options.retryMs ?? 1000);
    this.timer.unref();
  }

  /** One round: take the lease when free, or check the held one's connection still answers. */
  private step(): Promise<void> {
    this.transition = this.transition.then(async () => {
      if (this.stopped) return;
      if (this.client) {
        try {
          await this.client.query('select 1');
        } catch (error) {
          this.options.log?.('ingestion lease: its database session failed; consuming stops', error);
          await this.release();
        }
      } else {
        await this.acquire();
      }
      this.schedule();
    });
    return this.transition;
  }

  private async acquire(): Promise<void> {
    const pool = (await this.orm.em.getConnection().getNativeClient()) as unknown as NativePool;
    const client = new pool.Client({ ...pool.options, password: pool.options.password, keepAlive: true });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query('select pg_try_advisory_lock(hashtextextended($1, 0)) as held', [
        `fleetflow:device-ingestion:${this.options.key}`,
      ]);
      if (rows[0]?.held !== true) {
        await client.end().catch(() => undefined);
        return;
      }
    } catch (error) {
      this.options.log?.('ingestion lease: could not ask for the lock', error);
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // A session that ends (the database restarted, the connection broke) ends the lease with it.
    client.on('end', () => {
      if (this.client === client) void this.step();
    });
    try {
      await this.options.onAcquired();
      this.options.log?.('ingestion lease taken: this worker consumes the device topics');
    } catch (error) {
      this.options.log?.('ingestion lease: consuming failed to start; released', error);
      await this.release();
    }
  }

  private async release(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    // Consuming stops before the lock is given up, so two workers never consume at once.
    await this.options
      .onReleased()
      .catch((error: unknown) => this.options.log?.('ingestion stop failed', error));
    await client.end().catch(() => undefined);
  }
}
