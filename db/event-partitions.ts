// The monthly partitions of the event table (docs/events.md, "Partitions"): which exist, and creating the
// ones a range of months needs, idempotently. The `event-partitions` schedule runs `ensureEventPartitions`
// daily through its workflow's activity; the tests and the benchmark call it directly.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventPartition } from '../domain/events.js';

/** One partition of the event table as the catalog describes it (the default partition has no bounds). */
export interface StoredEventPartition {
  name: string;
  /** `FOR VALUES FROM (...) TO (...)`, or `DEFAULT`. */
  bound: string;
}

/** The event table's partitions, by name. */
export async function listEventPartitions(em: EntityManager): Promise<StoredEventPartition[]> {
  const rows = await em.execute<{ name: string; bound: string }[]>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'event'::regclass
      order by c.relname`,
  );
  return rows.map((row) => ({ name: row.name, bound: row.bound }));
}

/** What `ensureEventPartitions` did. */
export interface EnsuredPartitions {
  /** The partitions it created. */
  created: string[];
  /** Events it moved from the default partition into the partitions it created. */
  movedEvents: number;
}

/** The advisory lock that serializes partition changes (two runs of the schedule, a test, a bench). */
const PARTITION_LOCK = "hashtext('fleetflow:event-partitions')";

/**
 * Creates the partition of each month given that does not exist yet, each in its own short transaction:
 * a standalone table with the event table's columns, the month's events moved into it from the default
 * partition (events written with a time no partition covered), then `ATTACH PARTITION`, which locks the
 * event table only in SHARE UPDATE EXCLUSIVE mode (reads and writes go on) and builds the partition's
 * indexes. A lock that cannot be had within `lockTimeoutMs` fails the call (the activity retries), so it
 * never queues the table's writers behind a long query. Idempotent.
 */
export async function ensureEventPartitions(
  em: EntityManager,
  partitions: readonly EventPartition[],
  options: { lockTimeoutMs?: number } = {},
): Promise<EnsuredPartitions> {
  const result: EnsuredPartitions = { created: [], movedEvents: 0 };
  for (const partition of partitions) {
    if (!/^event_p\d{4}_\d{2}$/.test(partition.name))
      throw new Error(`not a partition name: ${partition.name}`);
    await em.fork().transactional(async (tx) => {
      const run = <T extends object>(sql: string, params: unknown[] = []) => tx.execute<T[]>(sql, params);
      await run(`select set_config('lock_timeout', ?, true)`, [`${options.lockTimeoutMs ?? 10_000}ms`]);
      await run(`select pg_advisory_xact_lock(${PARTITION_LOCK})`);
      const [existing] = await run<{ exists: boolean }>(
        `select exists (select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
                         where i.inhparent = 'event'::regclass and c.relname = ?) as exists`,
        [partition.name],
      );
      if (existing?.exists) return;
      const table = `"${partition.name}"`;
      const from = partition.from.toISOString();
      const to = partition.to.toISOString();
      await run(
        `create table ${table} (like "event" including defaults including constraints including storage)`,
      );
      const [moved] = await run<{ moved: number }>(
        `with moved as (delete from "event_default" where created_at >= ? and created_at < ? returning *)
         , copied as (insert into ${table} select * from moved returning 1)
         select count(*)::int as moved from copied`,
        [from, to],
      );
      await run(`alter table "event" attach partition ${table} for values from ('${from}') to ('${to}')`);
      result.created.push(partition.name);
      result.movedEvents += moved?.moved ?? 0;
    });
  }
  return result;
}
