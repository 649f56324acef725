// The event table's monthly partitions: what the migration built (a RANGE-partitioned table on created_at,
// a default partition, the months ahead, the primary key (id, created_at), idempotency keys in event_key;
// a rental step's key lookup probes that index: tests/lifecycle-plans.test.ts),
// the partition workflow on the time-skipping server (it follows the workflow's clock: skipping three
// months makes the next run create the months after the old horizon, and a run with nothing to do creates
// nothing), events of a month without partition waiting in the default partition and moving, with their
// idempotency keys and webhook outbox rows, when the month's partition is created, and the daily platform
// schedule on the dev server (the time-skipping server implements no Schedules).
import { Client, Connection } from '@temporalio/client';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ensureEventPartitions, listEventPartitions } from '../db/event-partitions.js';
import { eventRecorded, insertEvents, recordEvent } from '../db/events.js';
import { tenantEm } from '../db/orm.js';
import { eventPartitionOf, eventPartitionsAhead, EVENT_PARTITION_MONTHS_AHEAD } from '../domain/events.js';
import {
  EVENT_PARTITIONS_SCHEDULE_ID,
  EVENT_PARTITIONS_WORKFLOW_TYPE,
  type EventPartitionsResult,
} from '../workflows/event-partitions.messages.js';
import { ensureEventPartitionSchedule } from '../workers/event-partition-starter.js';
import { startTestBackend, type TestBackend } from './support/stack.js';

let backend: TestBackend;
const DAY = 86_400_000;

beforeAll(async () => {
  backend = await startTestBackend({ timeSkipping: true });
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

const partitionNames = async () => (await listEventPartitions(backend.orm.em.fork())).map((p) => p.name);

test('the event table is partitioned by month of created_at, with a default partition', async () => {
  const em = backend.orm.em.fork();
  const [table] = await em.execute<{ strategy: string; key: string; primary: string }[]>(
    `select p.partstrat as strategy, pg_get_partkeydef(p.partrelid) as key,
            (select pg_get_constraintdef(c.oid) from pg_constraint c where c.conrelid = p.partrelid and c.contype = 'p') as primary
       from pg_partitioned_table p where p.partrelid = 'event'::regclass`,
  );
  expect(table).toEqual({
    strategy: 'r',
    key: 'RANGE (created_at)',
    primary: 'PRIMARY KEY (id, created_at)',
  });
  const partitions = await listEventPartitions(em);
  expect(partitions).toContainEqual({ name: 'event_default', bound: 'DEFAULT' });
  const names = partitions.map((partition) => partition.name);
  for (const month of eventPartitionsAhead(new Date(), EVENT_PARTITION_MONTHS_AHEAD))
    expect(names).toContain(month.name);
});

test('the workflow creates the months ahead of its own clock, once', async () => {
  const env = backend.testEnv!;
  // A plain client: the time-skipping client's result() would let the server skip on by years.
  const plain = new Client({ connection: env.connection });
  const run = (id: string) =>
    plain.workflow.execute(EVENT_PARTITIONS_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: backend.taskQueue,
      args: [{ monthsAhead: EVENT_PARTITION_MONTHS_AHEAD }],
    }) as Promise<EventPartitionsResult>;
  // The migration made this month's and the next three: nothing to do.
  const first = await run(`event-partitions-test-first-${backend.seed.tenant}`);
  const expectedHorizon = eventPartitionsAhead(new Date(), EVENT_PARTITION_MONTHS_AHEAD).at(-1)!.to;
  expect(first).toEqual({ created: [], movedEvents: 0, horizon: expectedHorizon.toISOString() });

  // Three months and a bit later on the workflow's clock: the months after the old horizon.
  await env.sleep(100 * DAY);
  const before = new Set(await partitionNames());
  const later = await run(`event-partitions-test-later-${backend.seed.tenant}`);
  expect(new Date(later.horizon).getTime()).toBeGreaterThan(expectedHorizon.getTime());
  expect(later.created.length).toBeGreaterThan(0);
  for (const name of later.created) {
    expect(before.has(name)).toBe(false);
    expect(name > eventPartitionOf(new Date(expectedHorizon.getTime() - 1)).name).toBe(true);
  }
  // No gap from now to the new horizon.
  const after = new Set(await partitionNames());
  for (
    let month = eventPartitionOf(new Date());
    month.from < new Date(later.horizon);
    month = eventPartitionOf(month.to)
  )
    expect(after.has(month.name)).toBe(true);
  // Again at the same time: nothing left to create.
  const again = await run(`event-partitions-test-again-${backend.seed.tenant}`);
  expect(again).toEqual({ created: [], movedEvents: 0, horizon: later.horizon });
  // A suite running beside this one may hold the event table for a while (tests/recurring-tasks-recovery
  // locks it in SHARE mode to stall an activity's event): an attach then waits out its 10 s lock timeout,
  // and the activity's retry comes 30 s later, in real time under this plain client. Room for two.
}, 180_000);

test('events of a month without partition move, with their keys and outbox rows, when it is created', async () => {
  const { tenant } = backend.seed;
  const em = tenantEm(backend.orm, tenant);
  // A month no schedule run reaches: its events wait in the default partition.
  const month = eventPartitionOf(new Date(Date.UTC(2091, 2, 15)));
  const key = `partition-test-${tenant}`;
  recordEvent(em, {
    type: 'RENTAL_START',
    rentalId: 1,
    createdAt: new Date(Date.UTC(2091, 2, 15)),
    idempotencyKey: key,
  });
  await em.flush();
  await insertEvents(em, tenant, [
    {
      type: 'VEHICLE_LOCATE',
      vehicleId: 1,
      createdAt: new Date(Date.UTC(2091, 2, 16)),
      idempotencyKey: `${key}-2`,
    },
  ]);
  const where = async () =>
    em.execute<{ partition: string; count: number }[]>(
      `select tableoid::regclass::text as partition, count(*)::int as count from event
        where tenant_id = ? and created_at >= ? and created_at < ? group by 1`,
      [tenant, month.from, month.to],
    );
  expect(await where()).toEqual([{ partition: 'event_default', count: 2 }]);
  try {
    const ensured = await ensureEventPartitions(backend.orm.em.fork(), [month]);
    expect(ensured).toEqual({ created: [month.name], movedEvents: 2 });
    expect(await where()).toEqual([{ partition: month.name, count: 2 }]);
    expect(await ensureEventPartitions(backend.orm.em.fork(), [month])).toEqual({
      created: [],
      movedEvents: 0,
    });
    // The keys and the outbox row still find their events.
    const [joined] = await em.execute<{ keys: number; outbox: number }[]>(
      `select (select count(*)::int from event_key k join event e on e.id = k.event_id and e.created_at = k.event_created_at
                where k.tenant_id = ? and k.idempotency_key like ?) as keys,
              (select count(*)::int from webhook_outbox o join event e on e.id = o.event_id and e.created_at = o.event_created_at
                where o.tenant_id = ? and e.created_at >= ? and e.created_at < ?) as outbox`,
      [tenant, `${key}%`, tenant, month.from, month.to],
    );
    expect(joined).toEqual({ keys: 2, outbox: 1 });
    // A key is unique in the tenant across partitions: a retried step records its event once.
    expect(await eventRecorded(em, key)).toBe(true);
    await insertEvents(em, tenant, [
      { type: 'RENTAL_START', rentalId: 1, createdAt: new Date(), idempotencyKey: key },
    ]);
    const retry = tenantEm(backend.orm, tenant);
    recordEvent(retry, { type: 'RENTAL_START', rentalId: 1, createdAt: new Date(), idempotencyKey: key });
    await expect(retry.flush()).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    const [{ count }] = await em.execute<[{ count: number }]>(
      `select count(*)::int as count from event where tenant_id = ? and idempotency_key = ?`,
      [tenant, key],
    );
    expect(count).toBe(1);
  } finally {
    await backend.orm.em.fork().execute(`drop table if exists "${month.name}"`);
    await em.execute(`delete from event_key where tenant_id = ? and idempotency_key like ?`, [
      tenant,
      `${key}%`,
    ]);
    await em.execute(
      `delete from webhook_outbox where tenant_id = ? and event_created_at >= ? and event_created_at < ?`,
      [tenant, month.from, month.to],
    );
  }
});

test('the platform schedule fires the workflow daily, without overlap', async () => {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection, namespace: 'default' });
  const taskQueue = `event-partitions-${backend.seed.tenant}`;
  // The schedule is one per Temporal namespace: a worker process another suite started (its starter)
  // may have created it on the shared dev server already. Start from none.
  await client.schedule
    .getHandle(EVENT_PARTITIONS_SCHEDULE_ID)
    .delete()
    .catch(() => undefined);
  try {
    expect(await ensureEventPartitionSchedule({ client, taskQueue })).toBe(true);
    expect(await ensureEventPartitionSchedule({ client, taskQueue })).toBe(false);
    const schedule = client.schedule.getHandle(EVENT_PARTITIONS_SCHEDULE_ID);
    const description = await schedule.describe();
    expect(description.spec.intervals).toMatchObject([{ every: DAY }]);
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: EVENT_PARTITIONS_WORKFLOW_TYPE,
      workflowId: EVENT_PARTITIONS_SCHEDULE_ID,
      taskQueue,
      args: [{ monthsAhead: EVENT_PARTITION_MONTHS_AHEAD }],
    });
    // Created now, it was triggered once: the partitions are checked at once, not a day later.
    let started = description.info.recentActions.length + description.info.runningActions.length;
    for (let i = 0; i < 50 && started === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const info = (await schedule.describe()).info;
      started = info.recentActions.length + info.runningActions.length;
    }
    expect(started).toBe(1);
  } finally {
    const schedule = client.schedule.getHandle(EVENT_PARTITIONS_SCHEDULE_ID);
    const running = (await schedule.describe().catch(() => null))?.info.runningActions ?? [];
    await schedule.delete().catch(() => undefined);
    for (const action of running)
      await client.workflow
        .getHandle(action.workflow.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    await connection.close();
  }
});
