// Hot reads as server-side prepared statements on the ORM's own `pg` pool. PostgreSQL parses and plans a
// statement once per pooled connection instead of on every request (for the vehicle list that was a third
// of the database's time per request), and the rows skip the ORM's query builder and result mapping.
// Only for reads outside a transaction: a transaction's statements must run on its own connection.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

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
 * like `em.execute` (the pool carries the ORM's type parsers). Inside a transaction it runs through the
 * EntityManager instead, on the transaction's connection. `text` must not embed client values: the set of
 * distinct texts must stay small (filters choose among fixed fragments, values go in `values`).
 */
export async function preparedRows<Row>(
  em: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  if (em.isInTransaction()) return em.execute<Row[]>(...positional(text, values));
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
  if (em.isInTransaction()) {
    const rows = await em.execute<Record<string, unknown>[]>(...positional(text, values));
    return rows.map((row) => Object.values(row) as Row);
  }
  const pool = await em.getConnection().getNativeClient();
  const result = await pool.query<Row>({
    name: statementName(text),
    text,
    values: [...values],
    rowMode: 'array',
  });
  return result.rows;
}

/** `$n` placeholders as `em.execute` takes them: positional `?`, one value per occurrence. */
function positional(text: string, values: readonly unknown[]): [string, unknown[]] {
  const occurrences = [...text.matchAll(/\$(\d+)/g)].map((match) => values[Number(match[1]) - 1]);
  return [text.replace(/\$\d+/g, '?'), occurrences];
}
