// How the sandbox gateway reaches PostgreSQL without importing the ORM (platform sits below db): the
// composition root hands it a function that runs one statement on the application's connection pool.

/**
 * Runs one SQL statement and returns its rows. Parameters are `?` placeholders (MikroORM's
 * `Connection.execute`); each call may use another pooled connection, so no transaction spans two calls.
 */
export type SqlRunner = <Row = Record<string, unknown>>(
  sql: string,
  params?: readonly unknown[],
) => Promise<Row[]>;
