// Recurring tasks over HTTP against the real database and the Temporal dev server: the schedule each
// recurring task gets (`recurring-task:{tenant}:{id}`: calendar, time zone, action), a firing creating its
// child task exactly once (a repeated due point finds the same child), edits applied to the schedule and
// the open children, deletes with closeChildren / children, the category in-use rule, denials and hostile input.
import { ScheduleNotFoundError } from '@temporalio/client';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { RecurringTask } from '../db/entities/RecurringTask.js';
import { Task } from '../db/entities/Task.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import {
  recurringTaskDueWorkflowId,
  recurringTaskScheduleId,
  recurringTaskUsageWorkflowId,
  RECURRING_TASK_DUE_WORKFLOW_TYPE,
} from '../workflows/work.messages.js';
import { ensureRecurringTaskProcesses } from '../workers/recurring-task-starter.js';
import { createWorkActivities } from '../activities/work.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let reader: string;
let rivalOperator: string;
let vehicle: Vehicle;
const createdIds: { tenant: string; id: number }[] = [];

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const em = () => tenantEm(stack.backend.orm, seed.tenant);
const schedules = () => stack.backend.client.schedule;

const weekly = { daysOfWeek: ['MONDAY'], timeOfDay: '07:30', timezone: 'Europe/Berlin' };

async function createRecurring(body: Record<string, unknown>, token = operator): Promise<Reply> {
  const reply = await call('POST', back('/tasks/recurring'), { token, body });
  if (reply.status === 201) createdIds.push({ tenant: seed.tenant, id: reply.body.id });
  return reply;
}

/** Waits until the recurring task has `count` children (the schedule's workflow runs asynchronously). */
async function children(recurringTaskId: number, count: number): Promise<Task[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await em().find(Task, { recurringTaskId }, { orderBy: { id: 'asc' } });
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalrec', name: 'Rival Recurring' } });
  ({ stack, seed, rival, operatorToken: operator, rivalOperatorToken: rivalOperator } = session);
  const setup = em();
  vehicle = await setup.findOneOrFail(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
  const role = setup.create(Role, { name: 'Recurring reader', permissions: ['TASK_READ'] });
  const client = setup.create(ApiClient, {
    clientId: 'recurring-reader',
    name: 'Recurring reader',
    secretHash: await hashSecret('recurring-reader-secret'),
    scopes: ['back'],
  });
  setup.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: setup.getReference(Branch, seed.branchId),
  });
  await setup.flush();
  reader = await stack.token(seed.tenant, {
    clientId: 'recurring-reader',
    clientSecret: 'recurring-reader-secret',
  });
}, 120_000);

afterAll(async () => {
  // The dev server outlives the suite: leave no schedule behind.
  for (const { tenant, id } of createdIds)
    await schedules()
      .getHandle(recurringTaskScheduleId(tenant, id))
      .delete()
      .catch(() => undefined);
  await session?.stop();
});

describe('recurring tasks over HTTP', () => {
  it('creates a weekly recurring task with its Temporal Schedule; a firing creates one child', async () => {
    const created = await createRecurring({
      taskData: {
        title: 'Weekly inspection',
        priority: 'HIGH',
        branchId: seed.branchId,
        tags: ['inspection'],
        assignedTo: { userAuthId: 'crew-1', firstLastName: 'Jana Novak' },
      },
      taskObject: { vehicleId: vehicle.id },
      recurrence: weekly,
    });
    expect(created.status).toBe(201);
    const id: number = created.body.id;
    expect(created.body).toMatchObject({
      taskData: {
        title: 'Weekly inspection',
        taskState: 'RECURRING',
        priority: 'HIGH',
        branchId: seed.branchId,
      },
      taskObject: { vehicleId: vehicle.id },
      recurrence: weekly,
      scheduleId: recurringTaskScheduleId(seed.tenant, id),
      openChildren: 0,
    });
    expect(created.headers.get('location')).toBe(`/v1/${seed.tenant}/back/tasks/recurring/${id}`);

    const description = await schedules().getHandle(recurringTaskScheduleId(seed.tenant, id)).describe();
    expect(description.spec.timezone).toBe('Europe/Berlin');
    expect(description.spec.calendars).toEqual([
      expect.objectContaining({
        dayOfWeek: [{ start: 'MONDAY', end: 'MONDAY', step: 1 }],
        hour: [{ start: 7, end: 7, step: 1 }],
        minute: [{ start: 30, end: 30, step: 1 }],
      }),
    ]);
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: RECURRING_TASK_DUE_WORKFLOW_TYPE,
      workflowId: recurringTaskDueWorkflowId(seed.tenant, id),
      taskQueue: stack.backend.taskQueue,
      args: [{ tenant: seed.tenant, recurringTaskId: id }],
    });
    const next = description.info.nextActionTimes[0]!;
    expect(
      new Intl.DateTimeFormat('en', {
        weekday: 'long',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZone: 'Europe/Berlin',
      }).format(next),
    ).toBe('Monday 07:30');

    // Fire it now: one child, copied from the recurring task.
    await schedules().getHandle(recurringTaskScheduleId(seed.tenant, id)).trigger();
    const [child] = await children(id, 1);
    expect(child).toMatchObject({
      title: 'Weekly inspection',
      priority: 'HIGH',
      taskState: 'NEW',
      branchId: seed.branchId,
      vehicleId: vehicle.id,
      assignedTo: 'crew-1',
      recurringTaskId: id,
    });
    expect(child!.dueKey).toMatch(new RegExp(`^${recurringTaskDueWorkflowId(seed.tenant, id)}-`));
    expect((await call('GET', back(`/tasks/recurring/${id}`), { token: reader })).body.openChildren).toBe(1);
    // The operator sees which recurring task made the child, and finds its children by it.
    const read = await call('GET', back(`/tasks/${child!.id}`), { token: reader });
    expect(read.body.taskData).toMatchObject({ recurringTaskId: id, dueKey: child!.dueKey });
    const listed = await call('GET', back(`/tasks?branchId=${seed.branchId}&recurringTaskId=${id}`), {
      token: reader,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.map((task: { id: number }) => task.id)).toEqual([child!.id]);

    // The same due point again (a retried or repeated firing) finds the same child.
    const again = await stack.backend.client.workflow.execute(RECURRING_TASK_DUE_WORKFLOW_TYPE, {
      workflowId: child!.dueKey!,
      taskQueue: stack.backend.taskQueue,
      args: [{ tenant: seed.tenant, recurringTaskId: id }],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
    expect(again).toEqual({ taskId: child!.id });
    expect(await em().count(Task, { recurringTaskId: id })).toBe(1);

    // Edits: the schedule follows the recurrence; includeRecurringChildren edits the open children too.
    const edited = await call('PATCH', back(`/tasks/recurring/${id}?includeRecurringChildren=true`), {
      token: operator,
      body: {
        taskData: { title: 'Weekly safety inspection' },
        recurrence: { daysOfWeek: ['MONDAY', 'THURSDAY'], timeOfDay: '06:00', timezone: 'UTC' },
      },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.recurrence).toEqual({
      daysOfWeek: ['MONDAY', 'THURSDAY'],
      timeOfDay: '06:00',
      timezone: 'UTC',
    });
    const updated = await schedules().getHandle(recurringTaskScheduleId(seed.tenant, id)).describe();
    expect(updated.spec.timezone).toBe('UTC');
    expect(updated.spec.calendars?.[0]?.dayOfWeek).toEqual([
      { start: 'MONDAY', end: 'MONDAY', step: 1 },
      { start: 'THURSDAY', end: 'THURSDAY', step: 1 },
    ]);
    await em().refresh(child!);
    expect(child!.title).toBe('Weekly safety inspection');

    // closeRecurringChildren completes the open children.
    const closed = await call('PATCH', back(`/tasks/recurring/${id}?closeRecurringChildren=true`), {
      token: operator,
      body: {},
    });
    expect(closed.body.openChildren).toBe(0);
    await em().refresh(child!);
    expect(child!.taskState).toBe('COMPLETED');

    const list = await call(
      'GET',
      back(`/tasks/recurring?branchId=${seed.cityBranchId}&includeChildBranches=true`),
      {
        token: operator,
      },
    );
    expect(list.body.map((row: { id: number }) => row.id)).toContain(id);
    expect(list.headers.get('x-total-count')).toBe(String(list.body.length));

    // Delete with children=true: the schedule and the children go.
    expect(
      (await call('DELETE', back(`/tasks/recurring/${id}?children=true`), { token: operator })).status,
    ).toBe(204);
    await expect(
      schedules().getHandle(recurringTaskScheduleId(seed.tenant, id)).describe(),
    ).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect(await em().count(Task, { recurringTaskId: id })).toBe(0);
    expectError(await call('GET', back(`/tasks/recurring/${id}`), { token: operator }), 404, 'TK404');
    // A firing that was already under way when it was deleted creates nothing.
    const late = await stack.backend.client.workflow.execute(RECURRING_TASK_DUE_WORKFLOW_TYPE, {
      workflowId: `${recurringTaskDueWorkflowId(seed.tenant, id)}-late`,
      taskQueue: stack.backend.taskQueue,
      args: [{ tenant: seed.tenant, recurringTaskId: id }],
    });
    expect(late).toEqual({ taskId: null });
  });

  it('closeChildren completes the open children and keeps them; the category in use is refused', async () => {
    const category = await call('POST', back('/task-categories'), {
      token: operator,
      body: { name: 'Recurring only' },
    });
    const created = await createRecurring({
      taskData: { title: 'Daily check', branchId: seed.branchId, categoryId: category.body.id },
      recurrence: {
        daysOfWeek: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'],
        timeOfDay: '23:59',
        timezone: 'America/New_York',
      },
    });
    expect(created.status).toBe(201);
    const id: number = created.body.id;
    expect(created.body.taskData.categoryInfo).toEqual({ id: category.body.id, name: 'Recurring only' });
    expectError(
      await call('DELETE', back(`/task-categories/${category.body.id}`), { token: operator }),
      409,
      'TKC409',
    );
    await schedules().getHandle(recurringTaskScheduleId(seed.tenant, id)).trigger();
    const [child] = await children(id, 1);
    expect(child).toBeDefined();
    expect(
      (await call('DELETE', back(`/tasks/recurring/${id}?closeChildren=true`), { token: operator })).status,
    ).toBe(204);
    await em().refresh(child!);
    expect(child!.taskState).toBe('COMPLETED');
    await call('DELETE', back(`/tasks/${child!.id}`), { token: operator });
    expect(
      (await call('DELETE', back(`/task-categories/${category.body.id}`), { token: operator })).status,
    ).toBe(204);
  });

  it('gives the seeded recurring tasks (every Monday, every 500 km) their schedule and usage workflow', async () => {
    const seeded = await em().find(RecurringTask, { createdBy: 'seed' }, { orderBy: { id: 'asc' } });
    expect(seeded.map((row) => [row.daysOfWeek ?? null, row.everyKm ?? null])).toEqual([
      [['MONDAY'], null],
      [null, 500],
    ]);
    const temporal = { client: stack.backend.client, taskQueue: stack.backend.taskQueue };
    for (const row of seeded) createdIds.push({ tenant: seed.tenant, id: row.id });
    // The suite's worker runs the recurring-task starter for this tenant as `npm run worker` does, so it
    // may have created some or all of them already: together they make the two, and never more.
    expect(
      await ensureRecurringTaskProcesses(stack.backend.orm, temporal, { tenant: seed.tenant }),
    ).toBeLessThanOrEqual(2);
    // Once they exist, nothing more is created.
    expect(await ensureRecurringTaskProcesses(stack.backend.orm, temporal, { tenant: seed.tenant })).toBe(0);
    const monday = await schedules()
      .getHandle(recurringTaskScheduleId(seed.tenant, seeded[0]!.id))
      .describe();
    expect(monday.spec.timezone).toBe('Europe/Berlin');
    const usage = stack.backend.client.workflow.getHandle(
      recurringTaskUsageWorkflowId(seed.tenant, seeded[1]!.id),
    );
    expect((await usage.describe()).status.name).toBe('RUNNING');
    const shown = await call('GET', back(`/tasks/recurring/${seeded[1]!.id}`), { token: reader });
    expect(shown.body).toMatchObject({ recurrence: null, usage: { everyKm: 500, everyRentals: null } });
    await usage.terminate('test over');
  });

  it('creates one child when the same due point is written twice at once (a retried activity racing the first)', async () => {
    const created = await createRecurring({
      taskData: { title: 'Race check', branchId: seed.branchId },
      recurrence: weekly,
    });
    const activities = createWorkActivities({ orm: stack.backend.orm });
    const input = {
      tenant: seed.tenant,
      recurringTaskId: created.body.id as number,
      dueKey: 'race-2026-11-30',
    };
    const results = await Promise.all(
      Array.from({ length: 4 }, () => activities.createRecurringTaskChild(input)),
    );
    expect(new Set(results.map((result) => result.taskId)).size).toBe(1);
    expect(await em().count(Task, { recurringTaskId: created.body.id })).toBe(1);
    await call('DELETE', back(`/tasks/recurring/${created.body.id}?children=true`), { token: operator });
  });

  it('refuses callers without the permission, on another branch, or of another tenant', async () => {
    expectError(
      await createRecurring(
        { taskData: { title: 'x', branchId: seed.branchId }, recurrence: weekly },
        reader,
      ),
      403,
      'AUTH002',
    );
    expectError(
      await createRecurring({ taskData: { title: 'x', branchId: seed.otherBranchId }, recurrence: weekly }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/tasks/recurring?branchId=${seed.otherBranchId}`), { token: operator }),
      403,
      'AUTH002',
    );
    const rivalRow = await call('POST', `/v1/${rival.tenant}/back/tasks/recurring`, {
      token: rivalOperator,
      body: { taskData: { title: 'Rival', branchId: rival.branchId }, recurrence: weekly },
    });
    expect(rivalRow.status).toBe(201);
    createdIds.push({ tenant: rival.tenant, id: rivalRow.body.id });
    expectError(
      await call('GET', back(`/tasks/recurring/${rivalRow.body.id}`), { token: operator }),
      404,
      'TK404',
    );
    expectError(
      await call('PATCH', back(`/tasks/recurring/${rivalRow.body.id}`), { token: operator, body: {} }),
      404,
      'TK404',
    );
    expectError(
      await call('DELETE', back(`/tasks/recurring/${rivalRow.body.id}`), { token: operator }),
      404,
      'TK404',
    );
    // The rival's schedule is untouched.
    expect(
      (await schedules().getHandle(recurringTaskScheduleId(rival.tenant, rivalRow.body.id)).describe()).spec
        .timezone,
    ).toBe('Europe/Berlin');
  });

  it('answers hostile input with catalogue errors', async () => {
    const base = { taskData: { title: 'x', branchId: seed.branchId } };
    expectError(
      await createRecurring({ ...base, recurrence: { ...weekly, timezone: 'Mars/Olympus' } }),
      422,
      'TK108',
    );
    expectError(
      await createRecurring({ ...base, taskObject: { vehicleId: 2_000_000_000 }, recurrence: weekly }),
      422,
      'TK102',
    );
    expectError(
      await createRecurring({
        taskData: { ...base.taskData, categoryId: 2_000_000_000 },
        recurrence: weekly,
      }),
      422,
      'TK101',
    );
    const bad: [string, string, unknown?][] = [
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, daysOfWeek: [] } }],
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, daysOfWeek: ['MONDAY', 'MONDAY'] } }],
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, daysOfWeek: ['MON'] } }],
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, timeOfDay: '24:00' } }],
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, timeOfDay: '7:30' } }],
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, timezone: 'Europe/Berlin\u0000' } }],
      ['POST', '/tasks/recurring', { ...base, recurrence: { ...weekly, cron: '* * * * *' } }],
      ['POST', '/tasks/recurring', { taskData: { title: 'x', branchId: '0x1' }, recurrence: weekly }],
      ['GET', '/tasks/recurring'],
      ['GET', '/tasks/recurring?branchId=1e3'],
      ['GET', '/tasks/recurring/0x1'],
      ['PATCH', '/tasks/recurring/1?closeRecurringChildren=yes', {}],
      ['PATCH', '/tasks/recurring/1', { taskData: {} }],
      ['DELETE', '/tasks/recurring/1?children=2'],
      ['DELETE', '/tasks/recurring/-5'],
    ];
    for (const [method, path, body] of bad) {
      const reply = await call(method, back(path), { token: operator, body });
      expect({ path, method, status: reply.status }).toEqual({ path, method, status: 400 });
      expect(reply.body.errorCode).toEqual(expect.any(String));
    }
  });
});

describe('usage triggers on the time-skipping server', () => {
  let skipping: Session;
  let usageVehicle: Vehicle;
  const sk = {
    call: (method: string, path: string, options?: CallOptions) => skipping.stack.call(method, path, options),
    back: (path: string) => skipping.stack.back(path),
    em: () => tenantEm(skipping.backend.orm, skipping.seed.tenant),
  };
  const FIVE_MINUTES = 5 * 60_000;

  /** An ended rental of the vehicle now (what a rental's END writes to the read model). */
  async function endRental(): Promise<void> {
    const em = sk.em();
    const now = new Date();
    const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    em.create(Rental, {
      id,
      workflowId: `usage-test-${now.getTime()}-${Math.random().toString(36).slice(2)}`,
      state: 'ENDED',
      branch: em.getReference(Branch, skipping.seed.branchId),
      vehicle: usageVehicle,
      customer: em.getReference(Customer, skipping.seed.customerIds[0]!),
      reservedAt: new Date(now.getTime() - 60_000),
      startedAt: new Date(now.getTime() - 50_000),
      endedAt: now,
    });
    await em.flush();
  }

  /** The vehicle's odometer as the telemetry ingestor stores it. */
  async function odometer(km: number): Promise<void> {
    await sk.em().nativeUpdate(Vehicle, { id: usageVehicle.id }, { odometerKm: km });
  }

  /** Skips one check interval and gives the check's activity time to run. */
  async function nextCheck(): Promise<void> {
    await skipping.backend.testEnv!.sleep(FIVE_MINUTES);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }

  async function childrenOf(id: number, count: number): Promise<Task[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await sk.em().find(Task, { recurringTaskId: id }, { orderBy: { id: 'asc' } });
      if (rows.length >= count || Date.now() > deadline) return rows;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    skipping = await startSession({ timeSkipping: true });
    const em = sk.em();
    const model = await em.findOneOrFail(Vehicle, { branch: skipping.seed.branchId });
    // A vehicle without a simulated device: only this test moves its odometer.
    usageVehicle = em.create(Vehicle, {
      code: 'USAGE-1',
      branch: em.getReference(Branch, skipping.seed.branchId),
      category: model.category,
      odometerKm: 1000,
    });
    await em.flush();
  }, 120_000);

  afterAll(async () => {
    await skipping?.stop();
  });

  it('creates a child after every second ended rental or every 500 km, counted from the last completion', async () => {
    const created = await sk.call('POST', sk.back('/tasks/recurring'), {
      token: skipping.operatorToken,
      body: {
        taskData: { title: 'Service check', branchId: skipping.seed.branchId },
        taskObject: { vehicleId: usageVehicle.id },
        usage: { everyRentals: 2, everyKm: 500 },
      },
    });
    expect(created.status).toBe(201);
    const id: number = created.body.id;
    expect(created.body).toMatchObject({
      recurrence: null,
      scheduleId: null,
      usage: {
        everyRentals: 2,
        everyKm: 500,
        workflowId: `recurring-task-usage:${skipping.seed.tenant}:${id}`,
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // The first check read the odometer as the baseline.
    const first = await sk.call('GET', sk.back(`/tasks/recurring/${id}`), { token: skipping.operatorToken });
    expect(first.body.usage.baselineOdometerKm).toBe(1000);

    // One ended rental is not enough; the second makes the child due.
    await endRental();
    await nextCheck();
    expect(await sk.em().count(Task, { recurringTaskId: id })).toBe(0);
    await endRental();
    await nextCheck();
    const [byRentals] = await childrenOf(id, 1);
    expect(byRentals).toMatchObject({ title: 'Service check', vehicleId: usageVehicle.id, taskState: 'NEW' });
    // While it is open nothing more is due, however far the vehicle goes.
    await odometer(1400);
    await endRental();
    await endRental();
    await nextCheck();
    expect(await sk.em().count(Task, { recurringTaskId: id })).toBe(1);

    // Completed: usage counts again from here (rentals before do not count; the odometer reads 1400).
    const done = await sk.call('PATCH', sk.back(`/tasks/${byRentals!.id}`), {
      token: skipping.operatorToken,
      body: { taskData: { taskState: 'COMPLETED' } },
    });
    expect(done.status).toBe(200);
    await nextCheck();
    const rebased = await sk.call('GET', sk.back(`/tasks/recurring/${id}`), {
      token: skipping.operatorToken,
    });
    expect(rebased.body.usage).toMatchObject({
      baselineAt: done.body.taskData.completedAt,
      baselineOdometerKm: 1400,
    });
    expect(await sk.em().count(Task, { recurringTaskId: id })).toBe(1);
    await odometer(1899);
    await nextCheck();
    expect(await sk.em().count(Task, { recurringTaskId: id })).toBe(1);
    await odometer(1900);
    await nextCheck();
    const [, byKm] = await childrenOf(id, 2);
    expect(byKm).toMatchObject({ dueKey: `usage:${done.body.taskData.completedAt}` });
    await nextCheck();
    expect(await sk.em().count(Task, { recurringTaskId: id })).toBe(2);

    // Deleting the recurring task ends its usage workflow.
    expect(
      (await sk.call('DELETE', sk.back(`/tasks/recurring/${id}`), { token: skipping.operatorToken })).status,
    ).toBe(204);
    const description = await skipping.backend.client.workflow
      .getHandle(`recurring-task-usage:${skipping.seed.tenant}:${id}`)
      .describe();
    expect(description.status.name).toBe('TERMINATED');
  });

  it('refuses a recurring task without a trigger, or usage triggers without a vehicle', async () => {
    const token = skipping.operatorToken;
    const taskData = { title: 'x', branchId: skipping.seed.branchId };
    expectError(
      await sk.call('POST', sk.back('/tasks/recurring'), { token, body: { taskData } }),
      422,
      'TK109',
    );
    expectError(
      await sk.call('POST', sk.back('/tasks/recurring'), {
        token,
        body: { taskData, usage: { everyKm: 500 } },
      }),
      422,
      'TK109',
    );
    for (const usage of [{}, { everyKm: 0 }, { everyRentals: 1.5 }, { everyKm: '500' }, { everyMiles: 3 }])
      expectError(
        await sk.call('POST', sk.back('/tasks/recurring'), {
          token,
          body: { taskData, taskObject: { vehicleId: usageVehicle.id }, usage },
        }),
        400,
        '0022',
      );
  });
});
