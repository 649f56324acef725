// The statements every rental runs read indexes, never a tenant's history: a lookup that scans the
// tenant's events or rentals costs more with every rental the tenant ever had. Each test reads a hot
// statement's plan with sequential scans off, over a seeded tenant with a history of ended rentals and
// fresh statistics, so neither a small table nor whatever the other suites left in it decides the plan.
// (Both were scans once: the step's key lookup on the partitioned event table, which has no index on the
// key, and the reservation's facts about the customer's rentals.)
import type { MikroORM } from '@mikro-orm/postgresql';
import { connectOrm } from '../composition/orm.js';
import { lockTransitionRows } from '../db/rental-lifecycle.js';
import { customerRentalFactsSql } from '../db/rental-reservation.js';
import type { SeededTenant } from '../db/seed.js';
import { seedTenant } from '../composition/seed.js';
import { uniqueTenant } from './support/stack.js';

let orm: MikroORM;
let seed: SeededTenant;
let vehicleId: number;

/** An array literal of ids (the ORM would spread a JavaScript array into a list of placeholders). */
const pgArray = (ids: number[]) => `{${ids.join(',')}}`;

/** Ended rentals the tenant has had, spread over its customers and vehicles and the past months. */
const HISTORY = 4000;

beforeAll(async () => {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set: run the tests through jest');
  orm = await connectOrm(databaseUrl, { pool: { min: 0, max: 1 } });
  seed = await seedTenant(orm.em, uniqueTenant('plans'), 'Lifecycle Plans');
  const connection = orm.em.getConnection();
  const vehicles = await connection.execute<{ id: number }[]>(
    'select id from vehicle where tenant_id = ? order by id',
    [seed.tenant],
  );
  vehicleId = vehicles[0]!.id;
  await connection.execute(
    `insert into rental (id, tenant_id, workflow_id, state, branch_id, vehicle_id, customer_id,
                         reserved_at, started_at, ended_at, created_at, updated_at)
     select nextval('rental_id_seq'), ?, ? || g, 'ENDED', ?,
            (?::int[])[1 + g % ?], (?::int[])[1 + g % ?],
            now() - g * interval '1 hour', now() - g * interval '1 hour' + interval '2 minutes',
            now() - g * interval '1 hour' + interval '20 minutes', now() - g * interval '1 hour', now()
       from generate_series(1, ?) g`,
    [
      seed.tenant,
      `${seed.tenant}-history-`,
      seed.branchId,
      pgArray(vehicles.map((vehicle) => vehicle.id)),
      vehicles.length,
      pgArray(seed.customerIds),
      seed.customerIds.length,
      HISTORY,
    ],
  );
  await connection.execute('analyze rental');
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
  const plan = await planOf(lockTransitionRows.replace(/\$\d/g, '?'), ['rental:any/START', seed.tenant, 1]);
  expect(plan).toMatch(/event_key_tenant_id_idempotency_key_unique/);
  expect(plan).not.toMatch(/ on event_(p\d|default)/);
});

test("a reservation reads the customer's own rentals, not the tenant's", async () => {
  const plan = await planOf(customerRentalFactsSql, [
    ...[seed.tenant, seed.customerIds[0]],
    ...[seed.tenant, seed.customerIds[0], vehicleId],
    ...[seed.tenant, seed.customerIds[0], new Date()],
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
