// The exports domain's queries: whether an export's owner still may read its branches (checked by each
// run), the branches a run covers, the CSV stream of a report (`COPY … TO STDOUT`), and the files whose
// retention lapsed.
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { to as copyTo } from 'pg-copy-streams';
import { stringify } from 'csv-stringify/sync';
import type { EntityManager } from '@mikro-orm/postgresql';
import { grantsAllow, type Grant } from '../domain/permissions.js';
import type { ReportKey } from '../domain/exports.js';
import { branchAncestry, branchWithDescendants } from './branches.js';
import { reportColumnNames, reportCopySql, type ReportParameters } from './export-queries.js';

export type { ReportParameters } from './export-queries.js';

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

/** A pooled pg connection as the COPY stream needs it. */
interface PooledClient {
  query<T>(submittable: T): T;
  escapeLiteral(value: string): string;
  release(error?: Error): void;
}

/** How many bytes pass between two progress reports. */
const PROGRESS_EVERY_BYTES = 4 * 1024 * 1024;

/**
 * Streams a report as CSV into `consume`, which reads the stream (the object store's multipart upload):
 * a header line with the catalogue's column names (csv-stringify, comma delimiter), then the rows as
 * PostgreSQL writes them with `COPY (the report's statement) TO STDOUT (FORMAT csv)` — the same
 * delimiter, quoting (a value with a comma, a quote, CR or LF is quoted, quotes doubled) and line ends
 * csv-stringify writes. The bytes are piped with backpressure: when the consumer is behind, the socket
 * is not read, so memory holds the stream buffers and the upload's parts, never the result. The rows are
 * the count PostgreSQL reports for the COPY (one statement: one snapshot). `progress` is told the
 * bytes written at the first data and then every few MiB (heartbeats), from the stream's events — not
 * in the caller's async context.
 */
export async function streamReportCsv(
  em: EntityManager,
  key: ReportKey,
  parameters: ReportParameters,
  consume: (csv: Readable) => Promise<{ size: number }>,
  progress?: (bytes: number) => void,
): Promise<{ rows: number; size: number }> {
  const pool = (await em.getConnection().getNativeClient()) as unknown as {
    connect(): Promise<PooledClient>;
  };
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    const sql = reportCopySql(key, parameters, (value) => client.escapeLiteral(value));
    const copy = client.query(copyTo(sql));
    // The COPY's row count arrives with its CommandComplete, which may follow the last data: wait for
    // the statement's end (ReadyForQuery) before reading it.
    const statementEnded = new Promise<void>((resolve) => {
      const handle = copy.handleReadyForQuery.bind(copy);
      copy.handleReadyForQuery = () => {
        handle();
        resolve();
      };
    });
    const csv = new PassThrough();
    csv.write(stringify([reportColumnNames(key)], { delimiter: ',' }));
    const piped = pipeline(copy, csv);
    let bytes = 0;
    let reported = 0;
    if (progress)
      copy.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (reported !== 0 && bytes - reported < PROGRESS_EVERY_BYTES) return;
        try {
          progress((reported = bytes));
        } catch (error) {
          // Called from the stream's event: a fault ends the COPY instead of escaping the process.
          copy.destroy(error as Error);
        }
      });
    // A consumer that fails stops reading: end the COPY instead of waiting for it to read again.
    const consumed = consume(csv).catch((error: Error) => {
      csv.destroy(error);
      throw error;
    });
    const [copied, stored] = await Promise.allSettled([piped, consumed]);
    // The pipeline holds the first fault (the COPY's, or the consumer's that ended it).
    if (copied.status === 'rejected') throw copied.reason;
    if (stored.status === 'rejected') throw stored.reason;
    await statementEnded;
    return { rows: copy.rowCount ?? 0, size: stored.value.size };
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    // A connection whose COPY was cut is discarded rather than reused.
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
