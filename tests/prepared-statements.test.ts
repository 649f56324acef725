// Statements written as rows (db/prepared.ts) run as named prepared statements, on the pool and inside
// the ORM's transactions alike: PostgreSQL parses and plans each text once per connection. The ORM's own
// statements are left as they are.
import { inTenantTransaction } from '../db/orm.js';
import { preparedRows } from '../db/prepared.js';
import { startTestBackend, type TestBackend } from './support/stack.js';

let backend: TestBackend;

beforeAll(async () => {
  backend = await startTestBackend();
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

/** The named statements this connection prepared for a text (pg_prepared_statements is per session). */
const preparedNames = 'select name from pg_prepared_statements where statement = $1 and not from_sql';

test("a transaction's statement from preparedRows is prepared on its connection, once", async () => {
  const text = 'select $1::int + 1 as next';
  const seen = await inTenantTransaction(backend.orm, backend.seed.tenant, async (em) => {
    const first = await preparedRows<{ next: number }>(em, text, [1]);
    const second = await preparedRows<{ next: number }>(em, text, [41]);
    const names = await preparedRows<{ name: string }>(em, preparedNames, [text]);
    return { first, second, names };
  });
  expect(seen.first).toEqual([{ next: 2 }]);
  expect(seen.second).toEqual([{ next: 42 }]);
  expect(seen.names).toEqual([{ name: expect.stringMatching(/^ff_[0-9a-f]{32}$/) }]);
});

test("the ORM's own statements in a transaction are not prepared", async () => {
  const text = 'select 7 as seven';
  const names = await inTenantTransaction(backend.orm, backend.seed.tenant, async (em) => {
    expect(await em.execute(text)).toEqual([{ seven: 7 }]);
    return preparedRows<{ name: string }>(em, preparedNames, [text]);
  });
  expect(names).toEqual([]);
});
