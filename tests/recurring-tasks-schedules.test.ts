// A month of a weekly recurring task through its real Temporal Schedule. The time-skipping test server
// implements no Schedules (temporalio/sdk-java#1954), so this suite runs on the dev server and lets the
// schedule itself compute and start the due points of the last five weeks (ScheduleHandle.backfill): every
// Monday 07:30 Europe/Berlin firing starts `recurringTaskDueWorkflow` with the scheduled time in its id,
// and each creates exactly one child. Backfilling the same weeks again creates nothing new; the next due
// point after the last child's completion is the schedule's next Monday, and its firing the next child.
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { Task } from '../db/entities/Task.js';
import {
  recurringTaskDueWorkflowId,
  recurringTaskScheduleId,
  recurringTaskUsageWorkflowId,
} from '../workflows/work.messages.js';
import { ensureRecurringTaskProcesses } from '../workers/recurring-task-starter.js';
import { RecurringTask } from '../db/entities/RecurringTask.js';
import type { CallOptions, Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, { token: session.operatorToken, ...options });
const back = (path: string) => session.stack.back(path);
const DAY = 86_400_000;

/** The wall clock of `at` in `timeZone`: weekday and y-m-d h:m. */
function wallClock(at: Date, timeZone: string) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'long',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return {
    weekday: parts.weekday!,
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/**
 * The Mondays 07:30 in Berlin within [from, to), computed here without Temporal: the instants the
 * schedule must fire at (daylight saving included: the offset is read for each day).
 */
function berlinMondays(from: Date, to: Date): Date[] {
  const instants: Date[] = [];
  for (let day = from.getTime() - DAY; day < to.getTime() + DAY; day += DAY) {
    const noon = new Date(Math.floor(day / DAY) * DAY + 12 * 3_600_000);
    const local = wallClock(noon, 'Europe/Berlin');
    if (local.weekday !== 'Monday') continue;
    // 07:30 local = 07:30 UTC minus the zone's offset that morning.
    const guess = Date.parse(`${local.date}T07:30:00Z`);
    const offsetMinutes = wallClock(new Date(guess), 'Europe/Berlin').minutes - (7 * 60 + 30);
    const instant = new Date(guess - offsetMinutes * 60_000);
    if (instant >= from && instant < to) instants.push(instant);
  }
  return instants;
}

/** The due key Temporal gives a firing: the action's workflow id, '-', the scheduled time (RFC 3339). */
const dueKeyOf = (recurringTaskId: number, at: Date) =>
  `${recurringTaskDueWorkflowId(session.seed.tenant, recurringTaskId)}-${at.toISOString().replace('.000Z', 'Z')}`;

beforeAll(async () => {
  session = await startSession();
}, 120_000);

afterAll(async () => {
  // The starter below also gave the seeded recurring tasks their schedule and usage workflow: the dev
  // server outlives the suite, so they go.
  if (session) {
    const { client } = session.backend;
    for (const row of await session.em().find(RecurringTask, {})) {
      await client.schedule
        .getHandle(recurringTaskScheduleId(session.seed.tenant, row.id))
        .delete()
        .catch(() => undefined);
      await client.workflow
        .getHandle(recurringTaskUsageWorkflowId(session.seed.tenant, row.id))
        .terminate('suite over')
        .catch(() => undefined);
    }
  }
  await session?.stop();
});

test('a month of weekly firings creates one child per Monday; again, none; the next Monday follows the completion', async () => {
  const created = await call('POST', back('/tasks/recurring'), {
    body: {
      taskData: { title: 'Weekly inspection', branchId: session.seed.branchId, tags: ['weekly'] },
      recurrence: { daysOfWeek: ['MONDAY'], timeOfDay: '07:30', timezone: 'Europe/Berlin' },
    },
  });
  expect(created.status).toBe(201);
  const id: number = created.body.id;
  const schedule = session.backend.client.schedule.getHandle(
    recurringTaskScheduleId(session.seed.tenant, id),
  );
  const em = () => session.em();
  const children = () => em().find(Task, { recurringTaskId: id }, { orderBy: { dueKey: 'asc' } });

  /**
   * Lets the schedule fire for [from, to) under its own overlap policy (what a catch-up after an outage
   * does too) and waits until every firing's workflow has finished.
   */
  async function backfill(from: Date, to: Date, actionsBefore: number, expected: number): Promise<unknown[]> {
    await schedule.backfill({ start: from, end: to });
    const deadline = Date.now() + 30_000;
    let info = (await schedule.describe()).info;
    while (info.numActionsTaken < actionsBefore + expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      info = (await schedule.describe()).info;
    }
    expect(info.numActionsTaken).toBe(actionsBefore + expected);
    const fired = info.recentActions.slice(-expected);
    return Promise.all(
      fired.map((action) =>
        session.backend.client.workflow
          .getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId)
          .result(),
      ),
    );
  }

  // Every firing runs, also while another does (SKIP kept one firing of the five below).
  expect((await schedule.describe()).policies.overlap).toBe(ScheduleOverlapPolicy.ALLOW_ALL);
  // The five weeks before now: the schedule computes its firings from its own calendar and time zone.
  const to = new Date();
  const from = new Date(to.getTime() - 35 * DAY);
  const mondays = berlinMondays(from, to);
  expect(mondays).toHaveLength(5);
  const results = await backfill(from, to, 0, 5);

  const month = await children();
  expect(month.map((task) => task.dueKey)).toEqual(mondays.map((at) => dueKeyOf(id, at)));
  expect(month.map((task) => task.taskState)).toEqual(['NEW', 'NEW', 'NEW', 'NEW', 'NEW']);
  expect(results.map((result) => (result as { taskId: number }).taskId).sort()).toEqual(
    month.map((task) => task.id).sort(),
  );
  // Time follows the calendar: every Monday is due whether or not last week's child was completed.
  const shown = await call('GET', back(`/tasks/recurring/${id}`));
  expect(shown.body.openChildren).toBe(5);

  // The same month again (an operator's repeated backfill, a firing retried): the due points find theirs.
  const again = await backfill(from, to, 5, 5);
  expect(await em().count(Task, { recurringTaskId: id })).toBe(5);
  expect(new Set(again.map((result) => (result as { taskId: number }).taskId))).toEqual(
    new Set(month.map((task) => task.id)),
  );

  // The crew completes the month's children; the next due point is the first Monday 07:30 after that.
  const completed = await call('PATCH', back('/tasks/complete'), {
    body: { taskIds: month.map((task) => task.id) },
  });
  expect(completed.status).toBe(200);
  const completedAt = (await em().findOneOrFail(Task, month.at(-1)!.id)).completedAt!;
  const next = (await schedule.describe()).info.nextActionTimes[0]!;
  expect(next).toEqual(berlinMondays(completedAt, new Date(completedAt.getTime() + 7 * DAY))[0]);
  // That Monday's firing (triggered now: the dev server does not skip time) creates the next child.
  await schedule.trigger();
  const deadline = Date.now() + 30_000;
  while ((await em().count(Task, { recurringTaskId: id })) < 6 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const after = await em().find(Task, { recurringTaskId: id, taskState: 'NEW' });
  expect(after).toHaveLength(1);
  expect(after[0]!.dueKey).toMatch(new RegExp(`^${recurringTaskDueWorkflowId(session.seed.tenant, id)}-`));
  expect(month.map((task) => task.dueKey)).not.toContain(after[0]!.dueKey);

  // A schedule created before the policy changed (SKIP) gets the current one at the worker's start.
  await schedule.update((previous) => ({
    ...previous,
    policies: { ...previous.policies, overlap: ScheduleOverlapPolicy.SKIP },
  }));
  const temporal = { client: session.backend.client, taskQueue: session.backend.taskQueue };
  const only = { tenant: session.seed.tenant };
  await ensureRecurringTaskProcesses(session.backend.orm, temporal, only);
  expect((await schedule.describe()).policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
  await ensureRecurringTaskProcesses(session.backend.orm, temporal, { ...only, refreshPolicies: true });
  expect((await schedule.describe()).policies).toMatchObject({
    overlap: ScheduleOverlapPolicy.ALLOW_ALL,
    catchupWindow: 86_400_000,
  });

  // Deleting the recurring task deletes its schedule; the suite leaves nothing on the dev server.
  expect((await call('DELETE', back(`/tasks/recurring/${id}?children=true`))).status).toBe(204);
  expect(await em().count(Task, { recurringTaskId: id })).toBe(0);
});
