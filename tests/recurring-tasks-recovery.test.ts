// Crash recovery of a recurring task's due point: the worker process is killed (SIGKILL) while the due
// workflow's activity creates the child task, in the two windows that matter:
//   A. before its transaction committed (the insert waits on a concurrent uncommitted write of the same
//      due point): nothing of the first attempt survives, the retry on a new worker writes the child;
//   B. after it committed but before Temporal heard of it (the worker reaches Temporal through a proxy
//      the test freezes): the child exists, the activity is retried on a new worker and finds it.
// Either way the due point ends with exactly one child and one TASK_CREATED event, and the workflow answers
// that child. The due workflows are started as the schedule's firings start them (its action: type, args,
// task queue, id plus the scheduled time).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Client, Connection, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { RecurringTask } from '../db/entities/RecurringTask.js';
import { Task } from '../db/entities/Task.js';
import { tenantEm, type MikroORM } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import {
  recurringTaskScheduleId,
  recurringTaskScheduleOptions,
  recurringTaskUsageWorkflowId,
} from '../workflows/work.messages.js';
import type { recurringTaskDueWorkflow } from '../workflows/work.js';
import { uniqueTenant } from './support/stack.js';
import { connectOrm } from '../composition/orm.js';
import { seedTenant } from '../composition/seed.js';
import { startWorkerProcess as startWorkerProcessOf, killWorkerProcess } from './support/worker-process.js';

let orm: MikroORM;
let seed: SeededTenant;
let connection: Connection;
let client: Client;
const taskQueue = `recurring-recovery-${randomBytes(3).toString('hex')}`;
const workers: ChildProcess[] = [];
/** Sessions holding a lock, released at the end whatever happened. */
const holders: ReturnType<MikroORM['em']['fork']>[] = [];
let proxy: TemporalProxy | undefined;

interface TemporalProxy {
  address: string;
  /** Stops forwarding in both directions (bytes stay unread); new connections are held too. */
  freeze(): void;
  close(): Promise<void>;
}

/** A TCP proxy in front of the Temporal server, so the test can cut a worker off Temporal but not off PostgreSQL. */
async function temporalProxy(target: string): Promise<TemporalProxy> {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  const sockets: net.Socket[] = [];
  let frozen = false;
  const server = net.createServer((downstream) => {
    const upstream = net.connect(port, host);
    sockets.push(downstream, upstream);
    const close = () => {
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    if (frozen) return;
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    freeze() {
      frozen = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The application name of this suite's worker processes' PostgreSQL sessions. */
const workerAppName = () => `fleetflow-recovery-${seed.tenant}`;

/** Starts `composition/worker-main.ts` as its own process and resolves once it polls the task queue. */
async function startWorkerProcess(temporalAddress: string): Promise<ChildProcess> {
  return startWorkerProcessOf(
    {
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      // Its starters pick up this suite's tenant only, not the tenants of suites running beside it.
      WORKER_STARTER_TENANTS: seed.tenant,
      // Names its PostgreSQL sessions, so the lock waits counted are this worker's, not those of the suites
      // running beside it (they write events too, and wait on the held event table as well).
      PGAPPNAME: workerAppName(),
    },
    workers,
  );
}

const kill = killWorkerProcess;

/** Polls until `probe` answers something truthy. */
async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sql = <Row>(text: string, params: unknown[] = []) =>
  orm.em.fork().getConnection().execute<Row[]>(text, params);
/** Statements of other sessions waiting for a lock whose text starts with `prefix`. */
const waitingOn = async (prefix: string) =>
  Number(
    (
      await sql<{ n: string }>(
        `select count(*) as n from pg_stat_activity
          where wait_event_type = 'Lock' and query like ? and application_name = ?`,
        [`${prefix}%`, workerAppName()],
      )
    )[0]!.n,
  );

/** A session in an open transaction, rolled back at the end if the test did not finish it. */
async function holder() {
  const session = orm.em.fork();
  await session.begin();
  holders.push(session);
  return session;
}

beforeAll(async () => {
  orm = await connectOrm(process.env.DATABASE_URL!, { pool: { min: 0, max: 4 } });
  seed = await seedTenant(orm.em, uniqueTenant('recrec'), 'Recurring Recovery');
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: 'default' });
}, 120_000);

afterAll(async () => {
  for (const session of holders) await session.rollback().catch(() => undefined);
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await proxy?.close();
  // The workers' starter gave this tenant's recurring tasks a schedule and usage workflow on the dev
  // server, which outlives the suite.
  if (orm)
    for (const row of await tenantEm(orm, seed.tenant).find(RecurringTask, {})) {
      await client.schedule
        .getHandle(recurringTaskScheduleId(seed.tenant, row.id))
        .delete()
        .catch(() => undefined);
      await client.workflow
        .getHandle(recurringTaskUsageWorkflowId(seed.tenant, row.id))
        .terminate('suite over')
        .catch(() => undefined);
    }
  await connection?.close();
  await orm?.close();
});

test('a worker killed while a due point creates its child, before or after the commit: one child each', async () => {
  const em = tenantEm(orm, seed.tenant);
  const recurring = em.create(RecurringTask, {
    branchId: seed.branchId,
    title: 'Weekly inspection',
    priority: 'NORMAL',
    tags: [],
    daysOfWeek: ['MONDAY'],
    timeOfDay: '07:30',
    timezone: 'Europe/Berlin',
    baselineAt: new Date(),
    createdBy: 'recovery-test',
  });
  await em.flush();
  const { action } = recurringTaskScheduleOptions(
    seed.tenant,
    recurring.id,
    { branchId: seed.branchId, daysOfWeek: ['MONDAY'], timeOfDay: '07:30', timezone: 'Europe/Berlin' },
    taskQueue,
  ) as unknown as { action: ScheduleOptionsStartWorkflowAction<typeof recurringTaskDueWorkflow> };
  /** What the schedule's firing at `scheduledAt` starts. */
  const fire = (scheduledAt: string) =>
    client.workflow.start<typeof recurringTaskDueWorkflow>(action.workflowType, {
      workflowId: `${action.workflowId}-${scheduledAt}`,
      taskQueue: action.taskQueue!,
      args: action.args as Parameters<typeof recurringTaskDueWorkflow>,
      workflowExecutionTimeout: action.workflowExecutionTimeout,
      typedSearchAttributes: action.typedSearchAttributes,
    });

  proxy = await temporalProxy(process.env.TEMPORAL_ADDRESS!);
  const first = await startWorkerProcess(proxy.address);

  // A: a concurrent writer of the same due point has inserted it and not committed: the activity's insert
  // waits on the unique (recurring task, due key) index.
  const dueA = `${action.workflowId}-2026-11-30T06:30:00Z`;
  const writerA = await holder();
  await writerA.execute(
    `insert into task (tenant_id, title, priority, task_state, branch_id, tags, recurring_task_id, due_key,
       created_at, updated_at) values (?, 'held', 'NORMAL', 'NEW', ?, '[]', ?, ?, now(), now())`,
    [seed.tenant, seed.branchId, recurring.id, dueA],
  );
  // B: another session holds the event table: the activity's task row is written, its event waits, so
  // the transaction cannot commit yet.
  const eventsHeld = await holder();
  await eventsHeld.execute('lock table event in share mode');

  const handleA = await fire('2026-11-30T06:30:00Z');
  const handleB = await fire('2026-12-07T06:30:00Z');
  expect(handleA.workflowId).toBe(dueA);
  await eventually(async () => (await waitingOn('insert into "task"')) === 1, 'A waiting on the due key');
  await eventually(
    async () => (await waitingOn('insert into "event"')) === 1,
    'B waiting on the event table',
  );

  // The worker loses Temporal; B's transaction goes on and commits, its completion never reaches Temporal.
  proxy.freeze();
  await eventsHeld.commit();
  const committedB = await eventually(
    async () => (await tenantEm(orm, seed.tenant).find(Task, { dueKey: handleB.workflowId }))[0],
    'the child of B committed',
  );
  await kill(first);
  // Its connections die with it (the OS resets them): the proxy must not keep them open toward Temporal,
  // or the server would hand the retries to the dead worker's outstanding polls.
  await proxy.close();
  // The concurrent writer of A gives up: A's killed attempt had written nothing that stays.
  await writerA.rollback();
  expect(await tenantEm(orm, seed.tenant).count(Task, { dueKey: dueA })).toBe(0);

  // A new worker: each activity is retried once its start-to-close timeout (20 s) ran out.
  await startWorkerProcess(process.env.TEMPORAL_ADDRESS!);
  const [resultA, resultB] = await Promise.all([handleA.result(), handleB.result()]);
  const fresh = tenantEm(orm, seed.tenant);
  const children = await fresh.find(Task, { recurringTaskId: recurring.id }, { orderBy: { dueKey: 'asc' } });
  expect(children.map((task) => [task.dueKey, task.taskState])).toEqual([
    [dueA, 'NEW'],
    [handleB.workflowId, 'NEW'],
  ]);
  expect(resultA).toEqual({ taskId: children[0]!.id });
  expect(resultB).toEqual({ taskId: committedB.id });
  // One TASK_CREATED event per due point: the killed attempt of A took its event with it.
  const events = await sql<{ due_key: string; n: string }>(
    `select payload->>'dueKey' as due_key, count(*) as n from event
      where tenant_id = ? and type = 'TASK_CREATED' and payload->>'recurringTaskId' = ?
      group by 1 order by 1`,
    [seed.tenant, String(recurring.id)],
  );
  expect(events).toEqual([
    { due_key: dueA, n: '1' },
    { due_key: handleB.workflowId, n: '1' },
  ]);
  // Each activity ran twice: the killed attempt and the retry.
  for (const handle of [handleA, handleB]) {
    const history = await handle.fetchHistory();
    const started = history.events!.filter((event) => event.activityTaskStartedEventAttributes);
    expect(started.map((event) => event.activityTaskStartedEventAttributes!.attempt)).toEqual([2]);
  }
}, 120_000);
