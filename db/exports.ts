// The exports domain's queries: whether an export's owner still may read its branches (checked by each
// run), the branches a run covers, the CSV stream of a report from a server-side cursor, and the files
// whose retention lapsed.
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import Cursor from 'pg-cursor';
import { stringify } from 'csv-stringify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { grantsAllow, type Grant } from '../domain/permissions.js';
import type { ReportKey } from '../domain/exports.js';
import { branchAncestry, branchWithDescendants } from './branches.js';
import { reportColumnNames, reportSql } from './export-queries.js';

/** The permission a run's owner needs on every branch of the export. */
export const EXPORT_READ = 'EXPORT_READ';

/** The grants of a subject (its roles' permissions on branches and business units); none when its client is disabled. */
async function subjectGrants(
  em: EntityManager,
  tenant: string,
  subjectType: string,
  subjectId: string,
): Promise<Grant[]> {
  if (subjectType === 'API_CLIENT') {
    const client = await em.execute<{ active: boolean }[]>(
      'select active from api_client where tenant_id = ? and client_id = ? limit 1',
      [tenant, subjectId],
    );
    if (client[0]?.active !== true) return [];
  }
  const rows = await em.execute<
    { permissions: string[]; branch_id: number | null; business_unit_id: number | null }[]
  >(
    `select r.permissions, a.branch_id, a.business_unit_id
       from role_assignment a join role r on r.id = a.role_id and r.tenant_id = ?
      where a.tenant_id = ? and a.subject_type = ? and a.subject_id = ?`,
    [tenant, tenant, subjectType, subjectId],
  );
  return rows.map((row) => ({
    permissions: row.permissions,
    branchId: row.branch_id === null ? undefined : Number(row.branch_id),
    businessUnitId: row.business_unit_id === null ? undefined : Number(row.business_unit_id),
  }));
}

/**
 * The first of the branches the subject may not export (EXPORT_READ on it or an ancestor), or undefined
 * when it may export them all. A branch that no longer exists counts as not readable.
 */
export async function unreadableBranch(
  em: EntityManager,
  tenant: string,
  owner: { subjectType: string; subjectId: string },
  branchIds: readonly number[],
): Promise<number | undefined> {
  const grants = await subjectGrants(em, tenant, owner.subjectType, owner.subjectId);
  for (const branchId of branchIds) {
    const ancestry = await branchAncestry(em, tenant, branchId);
    if (ancestry.length === 0 || !grantsAllow(grants, EXPORT_READ, { branchAncestry: ancestry }))
      return branchId;
  }
  return undefined;
}

/** The branches a run covers: each branch of the export with its descendants. */
export async function coveredBranches(
  em: EntityManager,
  tenant: string,
  branchIds: readonly number[],
): Promise<number[]> {
  const all = new Set<number>();
  for (const branchId of branchIds)
    for (const id of await branchWithDescendants(em, tenant, branchId)) all.add(id);
  return [...all].sort((a, b) => a - b);
}

/** Rows fetched from the cursor per round trip. */
export const EXPORT_CURSOR_BATCH = 2_000;

/** A pooled pg connection as the cursor needs it. */
interface PooledClient {
  query<T>(cursor: T): T;
  release(error?: Error): void;
}

/** The parameters of a report's statement: tenant, branches, period bounds. */
export interface ReportParameters {
  tenant: string;
  branchIds: readonly number[];
  from: Date | null;
  to: Date | null;
}

/**
 * Streams a report as CSV (csv-stringify, comma delimiter, a header line with the catalogue's column
 * names) into `consume`, which reads the stream (the object store's multipart upload): rows come from a
 * server-side cursor `EXPORT_CURSOR_BATCH` at a time, and the writer waits whenever the consumer is
 * behind, so memory holds a batch and the upload's parts, never the result. `progress` is told the rows
 * written after each batch (heartbeats).
 */
export async function streamReportCsv(
  em: EntityManager,
  key: ReportKey,
  parameters: ReportParameters,
  consume: (csv: Readable) => Promise<{ size: number }>,
  progress?: (rows: number) => void,
): Promise<{ rows: number; size: number }> {
  const pool = (await em.getConnection().getNativeClient()) as unknown as {
    connect(): Promise<PooledClient>;
  };
  const client = await pool.connect();
  const csv = stringify({ delimiter: ',', header: true, columns: reportColumnNames(key) });
  let failed: Error | undefined;
  try {
    const consumed = consume(csv);
    // A consumer that fails stops reading: stop writing too instead of waiting for a drain.
    const consumerFailed = consumed.then(
      () => new Promise<never>(() => undefined),
      (error: Error) => {
        throw error;
      },
    );
    consumerFailed.catch(() => undefined);
    const cursor = client.query(
      new Cursor<string[]>(
        reportSql(key),
        [
          parameters.tenant,
          [...parameters.branchIds],
          parameters.from?.toISOString() ?? null,
          parameters.to?.toISOString() ?? null,
        ],
        { rowMode: 'array' },
      ),
    );
    let rows = 0;
    try {
      for (;;) {
        const batch = await Promise.race([cursor.read(EXPORT_CURSOR_BATCH), consumerFailed]);
        if (batch.length === 0) break;
        for (const row of batch)
          if (!csv.write(row)) await Promise.race([once(csv, 'drain'), consumerFailed]);
        rows += batch.length;
        progress?.(rows);
      }
      csv.end();
    } catch (error) {
      failed = error as Error;
      csv.destroy(failed);
      throw error;
    } finally {
      await cursor.close().catch(() => undefined);
    }
    const { size } = await consumed;
    return { rows, size };
  } finally {
    // A connection whose cursor broke is discarded rather than reused.
    client.release(failed);
  }
}

/** Runs whose file lapsed and is not deleted yet (oldest first), at most `limit`. */
export async function lapsedExportFiles(
  em: EntityManager,
  tenant: string,
  now: Date,
  limit: number,
): Promise<{ id: number; objectKey: string }[]> {
  const rows = await em.execute<{ id: number; object_key: string }[]>(
    `select id, object_key from export_run
      where tenant_id = ? and file_deleted_at is null and expires_at is not null and expires_at <= ?
        and object_key is not null
      order by expires_at limit ?`,
    [tenant, now, limit],
  );
  return rows.map((row) => ({ id: Number(row.id), objectKey: row.object_key }));
}
