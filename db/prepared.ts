// Hot reads as server-side prepared statements on the ORM's own `pg` pool. PostgreSQL parses and plans a
// statement once per pooled connection instead of on every request (for the vehicle list that was a third
// of the database's time per request), and the rows skip the ORM's query builder and result mapping.
// Inside a transaction a statement runs unprepared on the transaction's own connection, bound the same way.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Transaction } from 'kysely';

/** Statement names by SQL text: one name per distinct text, at most a few dozen per query shape. */
const statementNames = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 1_000;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= MAX_REMEMBERED_NAMES) statementNames.clear();
    // PostgreSQL truncates identifiers at 63 bytes; a digest keeps names short and distinct.
    name = `ff_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Runs `text` (with `$1`, `$2`, … placeholders) as a named prepared statement and answers its rows, typed
 * like `em.execute` (the pool carries the ORM's type parsers). Inside a transaction it runs on the
 * transaction's connection instead. `text` must not embed client values: the set of
 * distinct texts must stay small (filters choose among fixed fragments, values go in `values`).
 */
export async function preparedRows<Row>(
  em: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  if (em.isInTransaction()) return inTransaction<Row>(em, text, values);
  const pool = await em.getConnection().getNativeClient();
  const result = await pool.query<Row & Record<string, unknown>>({
    name: statementName(text),
    text,
    values: [...values],
  });
  return result.rows;
}

/**
 * Like {@link preparedRows}, each row as the tuple of its columns in select order: for wide pages, where
 * building an object per row cost the driver more than parsing the values (40 % of a 50-row page of
 * 33 columns). `Row` is the tuple type of the select list, whose column names must be distinct (inside a
 * transaction the rows come back as objects and are read in key order).
 */
export async function preparedTuples<Row extends unknown[]>(
  em: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  if (em.isInTransaction())
    return (await inTransaction<Record<string, unknown>>(em, text, values)).map(
      (row) => Object.values(row) as Row,
    );
  const pool = await em.getConnection().getNativeClient();
  const result = await pool.query<Row>({
    name: statementName(text),
    text,
    values: [...values],
    rowMode: 'array',
  });
  return result.rows;
}

/**
 * The statement on the transaction's own connection, with its `$n` parameters bound by the driver, as the
 * pool path binds them (`em.execute` would inline the values into the text, expanding arrays into lists).
 * Its text is named like the pool path's, so the connection prepares it once (`prepareInTransactions`).
 */
async function inTransaction<Row>(
  em: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  const transaction = em.getTransactionContext<Transaction<unknown>>();
  if (!transaction) throw new Error('inside a transaction, but it has no context');
  statementName(text);
  return (await transaction.executeQuery<Row>(CompiledQuery.raw(text, [...values]))).rows;
}

/** The little of a pooled `pg` client the hook below wraps (the project has no @types/pg). */
interface QueryingClient {
  query: (...args: unknown[]) => unknown;
}

/**
 * Prepares the statements of `preparedRows` inside transactions too. The ORM's transactions hand a
 * statement to their connection as text and values, which PostgreSQL parses and plans on every run; a
 * rental step's are the largest of its path (the locking read, the events with their outbox). Each client
 * of the ORM's pool, as it connects, runs a text `preparedRows` named as that named statement instead,
 * so its connection parses it once. Other statements (the ORM's own) pass through unchanged. Installed
 * through the driver's `onPoolCreated` (db/orm.ts), for every process alike.
 */
export function prepareInTransactions(pool: {
  on(event: 'connect', listener: (client: QueryingClient) => void): unknown;
}): void {
  pool.on('connect', (client) => {
    // The client's own method when something wrapped it already, else its class's at the time of the
    // call (so what instruments the class, as `bench:lifecycle-queries` counts statements, sees them all).
    const classQuery = () => (Object.getPrototypeOf(client) as QueryingClient).query;
    const own = client.query === classQuery() ? undefined : client.query;
    client.query = function (this: unknown, ...args: unknown[]) {
      const query = own ?? classQuery();
      const [text, values] = args;
      if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
        const name = statementNames.get(text);
        if (name !== undefined) return query.call(this, { name, text, values });
      }
      return query.apply(this, args);
    };
  });
}

/**
 * Binds one column's value as the next `$n` of `values` and answers its placeholder, JSON columns as
 * jsonb. Column names come from the code, never from clients (checked anyway).
 */
export function bindColumn(
  values: unknown[],
  column: string,
  value: unknown,
  jsonColumns: ReadonlySet<string>,
): string {
  if (!/^[a-z][a-z0-9_]*$/.test(column)) throw new Error(`not a column name: ${column}`);
  const json = jsonColumns.has(column);
  values.push(json && value !== null && value !== undefined ? JSON.stringify(value) : (value ?? null));
  return `$${values.length}${json ? '::jsonb' : ''}`;
}

/** For writes that set no JSON column (the default). */
const noJsonColumns: ReadonlySet<string> = new Set<string>();

function checkedTable(table: string): string {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
  return `"${table}"`;
}

/**
 * Sets `changes` (column name → value) and `updated_at` on one row of a tenant's table, inside the
 * caller's transaction, for paths that write rows without loading entities; the `jsonColumns` among them
 * are written as JSON.
 */
export async function updateTenantRow(
  em: EntityManager,
  table: string,
  tenant: string,
  id: number,
  changes: Record<string, unknown>,
  jsonColumns: ReadonlySet<string> = noJsonColumns,
): Promise<void> {
  const values: unknown[] = [tenant, id];
  const assignments = Object.entries({ ...changes, updated_at: new Date() }).map(
    ([column, value]) => `"${column}" = ${bindColumn(values, column, value, jsonColumns)}`,
  );
  await preparedRows(
    em,
    `update ${checkedTable(table)} set ${assignments.join(', ')} where tenant_id = $1 and id = $2`,
    values,
  );
}

/**
 * Inserts one row of a tenant's table (with `created_at` and `updated_at` now), inside the caller's
 * transaction, for paths that write rows without entities; JSON columns as `updateTenantRow`.
 */
export async function insertTenantRow(
  em: EntityManager,
  table: string,
  tenant: string,
  row: Record<string, unknown>,
  jsonColumns: ReadonlySet<string> = noJsonColumns,
): Promise<void> {
  const now = new Date();
  const columns = Object.entries({ tenant_id: tenant, ...row, created_at: now, updated_at: now });
  const values: unknown[] = [];
  const placeholders = columns.map(([column, value]) => bindColumn(values, column, value, jsonColumns));
  await preparedRows(
    em,
    `insert into ${checkedTable(table)} (${columns.map(([column]) => `"${column}"`).join(', ')}) values (${placeholders.join(', ')})`,
    values,
  );
}
