// The statements every rental runs read indexes, never a tenant's history: a lookup that scans the
// tenant's events or rentals costs more with every rental the tenant ever had. Each test reads a hot
// statement's plan with sequential scans off, so the small test tables cannot hide a missing index behind
// a cheap scan. (Both were scans once: the step's key lookup on the partitioned event table, which has no
// index on the key, and the reservation's facts about the customer's rentals.)
import type { MikroORM } from '@mikro-orm/postgresql';
import { connectOrm } from '../composition/orm.js';
import { lockTransitionRows } from '../db/rental-lifecycle.js';
import { customerRentalFactsSql } from '../db/rental-reservation.js';

let orm: MikroORM;

beforeAll(async () => {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set: run the tests through jest');
  orm = await connectOrm(databaseUrl, { pool: { min: 0, max: 1 } });
});

afterAll(async () => {
  await orm?.close();
});

/** The plan of a statement with `?` placeholders, for these values, with sequential scans off. */
async function planOf(sql: string, values: unknown[]): Promise<string> {
  return orm.em.fork().transactional(async (tx) => {
    await tx.execute('set local enable_seqscan = off');
    const rows = await tx.execute<{ 'QUERY PLAN': string }[]>(`explain ${sql}`, values);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

test("a rental step's key lookup probes event_key's index and never scans the event table", async () => {
  // The statement is written for `pg` ($1…$3): the ORM's placeholders are `?`.
  const plan = await planOf(lockTransitionRows.replace(/\$\d/g, '?'), ['rental:any/START', 't-plans', 1]);
  expect(plan).toMatch(/event_key_tenant_id_idempotency_key_unique/);
  expect(plan).not.toMatch(/ on event_(p\d|default)/);
});

test("a reservation reads the customer's own rentals, not the tenant's", async () => {
  const plan = await planOf(customerRentalFactsSql, [
    ...['t-plans', 5],
    ...['t-plans', 5, 7],
    ...['t-plans', 5, new Date()],
  ]);
  expect(plan).toMatch(/rental_customer_reserved/);
  // Every rental scan is by the customer (her open rental, or hers by time) or the vehicle, never the
  // tenant's rentals by branch or state.
  for (const [, index] of plan.matchAll(/Scan (?:Backward )?using (\w+) on rental/g))
    expect(['rental_customer_reserved', 'rental_one_open_per_customer', 'rental_vehicle_activity']).toContain(
      index,
    );
  expect(plan).not.toMatch(/Seq Scan on rental/);
});
