// Tasks end to end over HTTP against the real database: task categories (name rule, uniqueness, in-use
// conflict), templates, tasks (create incl. the deprecated one-per-vehicle variant, list filters and
// paging headers, read, edit, the state table, tags, bulk complete, delete, the completed-tasks reads),
// events, denials (permission, branch, tenant) and hostile input on every route. Every response is
// validated against the document.
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Event } from '../db/entities/Event.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Task } from '../db/entities/Task.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import { isTaskCategoryName, taskStates, taskTransitionRefusal, type TaskState } from '../domain/work.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let reader: string;
let rivalOperator: string;
let vehicles: Vehicle[];

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const em = () => tenantEm(stack.backend.orm, seed.tenant);

const createTask = (body: Record<string, unknown>, token = operator, query = '') =>
  call('POST', back(`/tasks${query}`), { token, body });
const patchTask = (id: number, body: Record<string, unknown>, token = operator) =>
  call('PATCH', back(`/tasks/${id}`), { token, body });

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivaltask', name: 'Rival Tasks' } });
  ({ stack, seed, rival, operatorToken: operator, rivalOperatorToken: rivalOperator } = session);
  const setup = em();
  vehicles = await setup.find(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
  const role = setup.create(Role, { name: 'Task reader', permissions: ['TASK_READ'] });
  const client = setup.create(ApiClient, {
    clientId: 'task-reader',
    name: 'Task reader',
    secretHash: await hashSecret('task-reader-secret'),
    scopes: ['back'],
  });
  setup.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: setup.getReference(Branch, seed.branchId),
  });
  await setup.flush();
  reader = await stack.token(seed.tenant, { clientId: 'task-reader', clientSecret: 'task-reader-secret' });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('task rules (table of cases)', () => {
  const allowed: Record<TaskState, TaskState[]> = {
    NEW: ['IN_PROGRESS', 'COMPLETED'],
    IN_PROGRESS: ['NEW', 'COMPLETED'],
    COMPLETED: ['IN_PROGRESS'],
    RECURRING: [],
  };
  const cases = taskStates.flatMap((from) => taskStates.map((to) => [from, to] as const));
  it.each(cases)('%s → %s', (from, to) => {
    const permitted = (from === to && from !== 'RECURRING') || allowed[from].includes(to);
    expect(taskTransitionRefusal(from, to) === undefined).toBe(permitted);
  });

  it.each([
    ['Inspection', true],
    ['Check 2 brakes', true],
    ['Größe Ä 9', true],
    ['42', true],
    ['   ', false],
    ['', false],
    ['tyres-pressure', false],
    ['a_b', false],
    ['line\nbreak', false],
    ['tab\there', false],
    ['nul\u0000', false],
  ])('category name %j allowed: %s', (name, ok) => {
    expect(isTaskCategoryName(name)).toBe(ok);
  });
});

describe('task categories over HTTP', () => {
  it('lists the seeded categories, creates, renames, refuses bad and duplicate names', async () => {
    const list = await call('GET', back('/task-categories'), { token: reader });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(['Cleaning', 'Inspection', 'Repair']);

    const created = await call('POST', back('/task-categories'), {
      token: operator,
      body: { name: 'Tyre change 2', description: 'Seasonal' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Tyre change 2', description: 'Seasonal' });
    const id: number = created.body.id;
    expect((await call('GET', back(`/task-categories/${id}`), { token: reader })).body.name).toBe(
      'Tyre change 2',
    );

    for (const name of ['tyre-change', '   ', '', 'a_b', 'x\u0000', 'line\nbreak', 'a'.repeat(101)])
      expectError(
        await call('POST', back('/task-categories'), { token: operator, body: { name } }),
        400,
        '0022',
      );
    expectError(
      await call('POST', back('/task-categories'), { token: operator, body: { name: 'inspection' } }),
      409,
      'TKC410',
    );
    expectError(
      await call('PATCH', back(`/task-categories/${id}`), { token: operator, body: { name: 'CLEANING' } }),
      409,
      'TKC410',
    );
    const renamed = await call('PATCH', back(`/task-categories/${id}`), {
      token: operator,
      body: { name: 'Tyres' },
    });
    expect(renamed.body).toMatchObject({ id, name: 'Tyres' });
    expectError(
      await call('PATCH', back(`/task-categories/${id}`), { token: operator, body: {} }),
      400,
      '0022',
    );

    // In use by a task → conflict; once the task is gone it can be deleted.
    const task = await createTask({
      taskData: { title: 'Change tyres', branchId: seed.branchId, categoryId: id },
    });
    expect(task.status).toBe(201);
    expectError(await call('DELETE', back(`/task-categories/${id}`), { token: operator }), 409, 'TKC409');
    expect((await call('DELETE', back(`/tasks/${task.body.id}`), { token: operator })).status).toBe(204);
    expect((await call('DELETE', back(`/task-categories/${id}`), { token: operator })).status).toBe(204);
    expectError(await call('GET', back(`/task-categories/${id}`), { token: operator }), 404, 'TKC404');
  });

  it("is written with TASK_CONFIGURE only and hides another tenant's categories", async () => {
    expectError(
      await call('POST', back('/task-categories'), { token: reader, body: { name: 'Reader' } }),
      403,
      'AUTH002',
    );
    const rivalCategory = await call('POST', `/v1/${rival.tenant}/back/task-categories`, {
      token: rivalOperator,
      body: { name: 'Rival only' },
    });
    expect(rivalCategory.status).toBe(201);
    expectError(
      await call('GET', back(`/task-categories/${rivalCategory.body.id}`), { token: operator }),
      404,
      'TKC404',
    );
    expectError(
      await call('DELETE', back(`/task-categories/${rivalCategory.body.id}`), { token: operator }),
      404,
      'TKC404',
    );
    expectError(
      await createTask({
        taskData: { title: 'x', branchId: seed.branchId, categoryId: rivalCategory.body.id },
      }),
      422,
      'TK101',
    );
  });
});

describe('task templates over HTTP', () => {
  it('creates a template and a task from it; edits and deletes it', async () => {
    const categories = (await call('GET', back('/task-categories'), { token: operator })).body as {
      id: number;
      name: string;
    }[];
    const repair = categories.find((c) => c.name === 'Repair')!;
    const template = await call('POST', back('/tasks/templates'), {
      token: operator,
      body: {
        name: 'Brake repair',
        title: 'Repair the brakes',
        priority: 'HIGH',
        categoryId: repair.id,
        tags: ['brakes'],
      },
    });
    expect(template.status).toBe(201);
    expect(template.body).toMatchObject({
      name: 'Brake repair',
      priority: 'HIGH',
      categoryId: repair.id,
      tags: ['brakes'],
    });
    const list = await call('GET', back('/tasks/templates'), { token: reader });
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['Brake repair', 'Weekly inspection']);

    const task = await createTask({
      taskData: { branchId: seed.branchId, templateId: template.body.id, description: 'Front brake' },
      taskObject: { vehicleId: vehicles[1]!.id },
    });
    expect(task.status).toBe(201);
    expect(task.body.taskData).toMatchObject({
      title: 'Repair the brakes',
      description: 'Front brake',
      priority: 'HIGH',
      categoryId: repair.id,
      categoryInfo: { id: repair.id, name: 'Repair' },
      templateId: template.body.id,
      tags: ['brakes'],
      taskState: 'NEW',
    });

    const changed = await call('PATCH', back(`/tasks/templates/${template.body.id}`), {
      token: operator,
      body: { priority: 'SEVERE', categoryId: null },
    });
    expect(changed.body).toMatchObject({ priority: 'SEVERE', categoryId: null });
    expectError(
      await call('PATCH', back(`/tasks/templates/${template.body.id}`), {
        token: operator,
        body: { categoryId: 2_000_000_000 },
      }),
      422,
      'TK101',
    );
    expectError(
      await call('POST', back('/tasks/templates'), { token: reader, body: { name: 'n', title: 't' } }),
      403,
      'AUTH002',
    );
    expect(
      (await call('DELETE', back(`/tasks/templates/${template.body.id}`), { token: operator })).status,
    ).toBe(204);
    expectError(
      await call('GET', back(`/tasks/templates/${template.body.id}`), { token: operator }),
      404,
      'TKT404',
    );
    expectError(
      await createTask({ taskData: { branchId: seed.branchId, templateId: template.body.id } }),
      422,
      'TK103',
    );
    expectError(await createTask({ taskData: { branchId: seed.branchId } }), 422, 'TK105');
    await call('DELETE', back(`/tasks/${task.body.id}`), { token: operator });
  });
});

describe('tasks over HTTP', () => {
  it('creates, reads, edits, moves, tags, completes and deletes a task, with its events', async () => {
    const vehicle = vehicles[2]!;
    const created = await createTask({
      taskData: {
        title: 'Check the bell',
        description: 'Rings faintly',
        priority: 'HIGH',
        branchId: seed.branchId,
        assignedTo: { userAuthId: 'crew-7', firstLastName: 'Jana Novak' },
        category: 'INSPECTION',
        tags: ['bell'],
      },
      taskObject: { vehicleId: vehicle.id, guserId: seed.customerIds[0] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/${seed.tenant}/back/tasks/${created.body.id}`);
    expect(created.body).toMatchObject({
      taskData: {
        title: 'Check the bell',
        priority: 'HIGH',
        taskState: 'NEW',
        branchId: seed.branchId,
        assignedTo: { userAuthId: 'crew-7', firstLastName: 'Jana Novak' },
        categoryId: null,
        category: 'INSPECTION',
        completedAt: null,
      },
      taskObject: {
        vehicleId: vehicle.id,
        guserId: seed.customerIds[0],
        damageId: null,
        vehicleCategoryId: null,
      },
    });
    const id: number = created.body.id;
    expect((await call('GET', back(`/tasks/${id}`), { token: reader })).body).toEqual(created.body);

    // categoryId wins over the legacy enum, on create and on edit.
    const categories = (await call('GET', back('/task-categories'), { token: operator })).body as {
      id: number;
      name: string;
    }[];
    const inspection = categories.find((c) => c.name === 'Inspection')!;
    const both = await createTask({
      taskData: { title: 'Both', branchId: seed.branchId, category: 'CLEANING', categoryId: inspection.id },
    });
    expect(both.body.taskData).toMatchObject({ categoryId: inspection.id, category: null });
    const edited = await patchTask(id, {
      taskData: { categoryId: inspection.id, title: 'Check the bell and horn' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.taskData).toMatchObject({
      categoryId: inspection.id,
      category: null,
      title: 'Check the bell and horn',
    });

    // The state table: NEW → IN_PROGRESS → COMPLETED → IN_PROGRESS (reopen) → NEW; RECURRING never.
    expectError(await patchTask(id, { taskData: { taskState: 'RECURRING' } }), 409, 'TK100');
    expect((await patchTask(id, { taskData: { taskState: 'IN_PROGRESS' } })).body.taskData.taskState).toBe(
      'IN_PROGRESS',
    );
    const done = await patchTask(id, { taskData: { taskState: 'COMPLETED' } });
    expect(done.body.taskData).toMatchObject({
      taskState: 'COMPLETED',
      completedAt: expect.any(String),
      completedBy: expect.stringContaining('demo-operator'),
    });
    expectError(await patchTask(id, { taskData: { taskState: 'NEW' } }), 409, 'TK100');
    const reopened = await patchTask(id, { taskData: { taskState: 'IN_PROGRESS' } });
    expect(reopened.body.taskData).toMatchObject({
      taskState: 'IN_PROGRESS',
      completedAt: null,
      completedBy: null,
    });

    const tagged = await call('PUT', back(`/tasks/${id}/tags`), { token: operator, body: ['horn', 'bell'] });
    expect(tagged.body.taskData.tags).toEqual(['horn', 'bell']);
    expectError(
      await call('PUT', back(`/tasks/${id}/tags`), { token: operator, body: ['x', 'x'] }),
      400,
      '0022',
    );

    // Unassign and drop the customer.
    const cleared = await patchTask(id, { taskData: { assignedTo: null }, taskObject: { guserId: null } });
    expect(cleared.body.taskData.assignedTo).toBeNull();
    expect(cleared.body.taskObject.guserId).toBeNull();

    expect((await call('DELETE', back(`/tasks/${id}`), { token: operator })).status).toBe(204);
    expectError(await call('GET', back(`/tasks/${id}`), { token: operator }), 404, 'TK404');
    const events = await em().find(
      Event,
      { type: { $like: 'TASK_%' }, payload: { taskId: id } },
      { orderBy: { id: 'asc' } },
    );
    expect(events.map((event) => event.type)).toEqual([
      'TASK_CREATED',
      'TASK_UPDATED',
      'TASK_UPDATED',
      'TASK_COMPLETED',
      'TASK_UPDATED',
      'TASK_UPDATED',
      'TASK_UPDATED',
      'TASK_DELETED',
    ]);
    await call('DELETE', back(`/tasks/${both.body.id}`), { token: operator });
  });

  it("lists a branch's tasks with filters and paging headers", async () => {
    // One after the other: the list is newest first, so the order of creation is the order asserted.
    const mine: Awaited<ReturnType<typeof createTask>>[] = [];
    for (const [index, title] of ['Alpha pump', 'Beta pump', 'Gamma lamp'].entries())
      mine.push(
        await createTask({
          taskData: {
            title,
            branchId: seed.branchId,
            assignedTo: {
              userAuthId: `crew-${index}`,
              firstLastName: index === 2 ? 'Oskar 100% Frey' : 'Jana Novak',
            },
          },
        }),
      );
    const all = await call('GET', back(`/tasks?branchId=${seed.branchId}&size=2`), { token: reader });
    expect(all.status).toBe(200);
    const total = Number(all.headers.get('x-total-count'));
    expect(total).toBeGreaterThanOrEqual(5); // two seeded open tasks and these three at least
    expect(all.headers.get('x-total-pages')).toBe(String(Math.ceil(total / 2)));
    expect(all.headers.get('x-page-size')).toBe('2');
    expect(all.body).toHaveLength(2);

    const pumps = await call('GET', back(`/tasks?branchId=${seed.branchId}&searchText=PUMP`), {
      token: reader,
    });
    expect(pumps.body.map((t: { taskData: { title: string } }) => t.taskData.title)).toEqual([
      'Beta pump',
      'Alpha pump',
    ]);
    const jana = await call('GET', back(`/tasks?branchId=${seed.branchId}&assignedTo.firstLastName=novak`), {
      token: reader,
    });
    expect(jana.body.map((t: { id: number }) => t.id).sort()).toEqual(
      [mine[0]!.body.id, mine[1]!.body.id].sort(),
    );
    // Wildcards are literal: "%" matches only a name that has one.
    const percent = await call(
      'GET',
      back(`/tasks?branchId=${seed.branchId}&assignedTo.firstLastName=${encodeURIComponent('100%')}`),
      { token: reader },
    );
    expect(percent.body.map((t: { id: number }) => t.id)).toEqual([mine[2]!.body.id]);
    const underscore = await call('GET', back(`/tasks?branchId=${seed.branchId}&searchText=_`), {
      token: reader,
    });
    expect(underscore.body).toEqual([]);

    // The city branch shows its children's tasks only with includeChildBranches.
    const city = await call('GET', back(`/tasks?branchId=${seed.cityBranchId}`), { token: operator });
    expect(city.body.some((t: { id: number }) => t.id === mine[0]!.body.id)).toBe(false);
    const withChildren = await call(
      'GET',
      back(`/tasks?branchId=${seed.cityBranchId}&includeChildBranches=true&searchText=pump`),
      { token: operator },
    );
    expect(withChildren.body).toHaveLength(2);

    const states = await call(
      'GET',
      back(`/tasks?branchId=${seed.branchId}&taskState=IN_PROGRESS&taskState=COMPLETED`),
      { token: reader },
    );
    expect(
      states.body.every((t: { taskData: { taskState: string } }) =>
        ['IN_PROGRESS', 'COMPLETED'].includes(t.taskData.taskState),
      ),
    ).toBe(true);
    expect(states.body.length).toBeGreaterThanOrEqual(2); // the seeded ones
    for (const task of mine) await call('DELETE', back(`/tasks/${task.body.id}`), { token: operator });
  });

  it('completes tasks in bulk, all or none, and reads completed tasks by branch and by user', async () => {
    const [a, b, other] = await Promise.all([
      createTask({ taskData: { title: 'Bulk A', branchId: seed.branchId } }),
      createTask({ taskData: { title: 'Bulk B', branchId: seed.branchId, taskState: 'IN_PROGRESS' } }),
      createTask({ taskData: { title: 'Bulk C', branchId: seed.branchId } }),
    ]);
    const ids = [a!.body.id, b!.body.id];
    expectError(
      await call('PATCH', back('/tasks/complete'), {
        token: operator,
        body: { taskIds: [...ids, 2_000_000_000] },
      }),
      404,
      'TK404',
    );
    expectError(
      await call('PATCH', back('/tasks/complete'), { token: reader, body: { taskIds: ids } }),
      403,
      'AUTH002',
    );
    expect((await em().findOneOrFail(Task, a!.body.id)).taskState).toBe('NEW');
    const before = new Date(Date.now() - 1000).toISOString();
    const done = await call('PATCH', back('/tasks/complete'), { token: operator, body: { taskIds: ids } });
    expect(done.status).toBe(200);
    expect(done.body.map((t: { taskData: { taskState: string } }) => t.taskData.taskState)).toEqual([
      'COMPLETED',
      'COMPLETED',
    ]);
    // Repeating answers the same (already completed tasks stay).
    const again = await call('PATCH', back('/tasks/complete'), { token: operator, body: { taskIds: ids } });
    expect(again.body.map((t: { taskData: { completedAt: string } }) => t.taskData.completedAt)).toEqual(
      done.body.map((t: { taskData: { completedAt: string } }) => t.taskData.completedAt),
    );
    const after = new Date(Date.now() + 1000).toISOString();
    const window = `startDate=${encodeURIComponent(before)}&endDate=${encodeURIComponent(after)}`;
    const byBranch = await call('GET', back(`/tasks/branch/${seed.branchId}/completed-tasks?${window}`), {
      token: reader,
    });
    expect(byBranch.status).toBe(200);
    expect(byBranch.headers.get('x-total-count')).toBe('2');
    expect(byBranch.body.map((t: { id: number }) => t.id).sort()).toEqual([...ids].sort());
    const actor: string = done.body[0].taskData.completedBy;
    const byUser = await call(
      'GET',
      back(`/tasks/user/${encodeURIComponent(actor)}/completed-tasks?branchId=${seed.branchId}&${window}`),
      { token: reader },
    );
    expect(byUser.body.map((t: { id: number }) => t.id).sort()).toEqual([...ids].sort());
    const seedCrew = await call(
      'GET',
      back(
        `/tasks/user/seed-crew/completed-tasks?branchId=${seed.cityBranchId}&includeChildBranches=true&startDate=${encodeURIComponent(new Date(Date.now() - 7 * 86400_000).toISOString())}&endDate=${encodeURIComponent(after)}`,
      ),
      { token: operator },
    );
    expect(seedCrew.body.map((t: { taskData: { title: string } }) => t.taskData.title)).toEqual([
      'Swap the battery',
    ]);
    expectError(
      await call(
        'GET',
        back(
          `/tasks/branch/${seed.branchId}/completed-tasks?startDate=${encodeURIComponent(after)}&endDate=${encodeURIComponent(before)}`,
        ),
        { token: reader },
      ),
      422,
      'TK107',
    );
    expectError(
      await call(
        'GET',
        back(
          `/tasks/branch/${seed.branchId}/completed-tasks?startDate=2020-01-01T00:00:00Z&endDate=2022-01-01T00:00:00Z`,
        ),
        { token: reader },
      ),
      422,
      'TK107',
    );
    expectError(
      await call(
        'GET',
        back(`/tasks/branch/${seed.branchId}/completed-tasks?startDate=${encodeURIComponent(before)}`),
        { token: reader },
      ),
      400,
      '0022',
    );
    await call('DELETE', back(`/tasks/${other!.body.id}`), { token: operator });
    for (const id of ids) await call('DELETE', back(`/tasks/${id}`), { token: operator });
  });

  it('creates one task per vehicle of the branch in one transaction (deprecated variant)', async () => {
    const branchVehicles = await em().count(Vehicle, { branch: seed.branchId });
    const many = await createTask(
      { taskData: { title: 'Check tyre pressure', branchId: seed.branchId, priority: 'LOW' } },
      operator,
      '?forAllVehiclesByBranch=true',
    );
    expect(many.status).toBe(201);
    expect(many.body).toHaveLength(branchVehicles);
    expect(
      new Set(many.body.map((t: { taskObject: { vehicleId: number } }) => t.taskObject.vehicleId)).size,
    ).toBe(branchVehicles);
    expectError(
      await createTask(
        { taskData: { title: 'x', branchId: seed.branchId }, taskObject: { vehicleId: vehicles[0]!.id } },
        operator,
        '?forAllVehiclesByBranch=true',
      ),
      422,
      'TK106',
    );
    const empty = await em().findOneOrFail(Branch, seed.cityBranchId);
    expectError(
      await createTask(
        { taskData: { title: 'x', branchId: empty.id } },
        operator,
        '?forAllVehiclesByBranch=true',
      ),
      422,
      'TK104',
    );
    const vehicleTasks = await call('GET', back(`/vehicles/${vehicles[0]!.id}/tasks`), { token: operator });
    expect(vehicleTasks.body.some((t: { title: string }) => t.title === 'Check tyre pressure')).toBe(true);
    await em().nativeDelete(Task, { title: 'Check tyre pressure' });
  });

  it('refuses task objects outside the branch or tenant', async () => {
    const otherVehicle = await em().findOne(Vehicle, { branch: { $ne: seed.branchId } });
    const rivalVehicle = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(Vehicle, {});
    for (const taskObject of [
      { vehicleId: rivalVehicle.id },
      { vehicleId: 2_000_000_000 },
      { damageId: 2_000_000_000 },
      { guserId: rival.customerIds[0] },
      { vehicleCategoryId: 2_000_000_000 },
      ...(otherVehicle ? [{ vehicleId: otherVehicle.id }] : []),
    ])
      expectError(
        await createTask({ taskData: { title: 'x', branchId: seed.branchId }, taskObject }),
        422,
        'TK102',
      );
  });

  it('refuses callers without the permission, on another branch, or of another tenant', async () => {
    const task = await createTask({ taskData: { title: 'Guarded', branchId: seed.branchId } });
    const id: number = task.body.id;
    expectError(
      await createTask({ taskData: { title: 'x', branchId: seed.branchId } }, reader),
      403,
      'AUTH002',
    );
    expectError(await patchTask(id, { taskData: { title: 'y' } }, reader), 403, 'AUTH002');
    expectError(await call('DELETE', back(`/tasks/${id}`), { token: reader }), 403, 'AUTH002');
    expectError(await call('PUT', back(`/tasks/${id}/tags`), { token: reader, body: [] }), 403, 'AUTH002');
    expectError(await createTask({ taskData: { title: 'x', branchId: seed.otherBranchId } }), 403, 'AUTH002');
    expectError(
      await call('GET', back(`/tasks?branchId=${seed.otherBranchId}`), { token: operator }),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'GET',
        back(
          `/tasks/branch/${seed.otherBranchId}/completed-tasks?startDate=2026-01-01T00:00:00Z&endDate=2026-02-01T00:00:00Z`,
        ),
        { token: operator },
      ),
      403,
      'AUTH002',
    );
    // Another tenant's ids are not found; its branch is not the caller's.
    const rivalTask = await call('POST', `/v1/${rival.tenant}/back/tasks`, {
      token: rivalOperator,
      body: { taskData: { title: 'Rival task', branchId: rival.branchId } },
    });
    expect(rivalTask.status).toBe(201);
    expectError(await call('GET', back(`/tasks/${rivalTask.body.id}`), { token: operator }), 404, 'TK404');
    expectError(await patchTask(rivalTask.body.id, { taskData: { title: 'mine' } }), 404, 'TK404');
    expectError(await call('DELETE', back(`/tasks/${rivalTask.body.id}`), { token: operator }), 404, 'TK404');
    expectError(
      await call('PATCH', back('/tasks/complete'), {
        token: operator,
        body: { taskIds: [rivalTask.body.id] },
      }),
      404,
      'TK404',
    );
    const rivalBranch = await call('GET', back(`/tasks?branchId=${rival.branchId}`), { token: operator });
    expect([403, 404]).toContain(rivalBranch.status);
    expect(rivalBranch.body.errorCode).toMatch(/^(AUTH002|B404)$/);
    await call('DELETE', back(`/tasks/${id}`), { token: operator });
  });

  it('answers hostile input with catalogue errors on every route', async () => {
    const task = await createTask({ taskData: { title: 'Target', branchId: seed.branchId } });
    const id: number = task.body.id;
    const bad: [string, string, unknown?][] = [
      ['GET', '/tasks'],
      ['GET', '/tasks?branchId=0x1'],
      ['GET', '/tasks?branchId=1e3'],
      ['GET', `/tasks?branchId=${seed.branchId}&taskState=DONE`],
      ['GET', `/tasks?branchId=${seed.branchId}&searchText=`],
      ['GET', `/tasks?branchId=${seed.branchId}&searchText=%00`],
      ['GET', `/tasks?branchId=${seed.branchId}&size=100000`],
      ['GET', '/tasks/0x1'],
      ['GET', '/tasks/-1'],
      ['GET', '/tasks/99999999999'],
      ['POST', '/tasks', { taskData: { title: 'x' } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: '1' } }],
      ['POST', '/tasks', { taskData: { title: '   ', branchId: seed.branchId } }],
      ['POST', '/tasks', { taskData: { title: 'x\u0000', branchId: seed.branchId } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId, taskState: 'RECURRING' } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId, priority: 'URGENT' } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId, category: 'PAINTING' } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId, tags: ['a'.repeat(65)] } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId, evil: true } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId }, taskObject: { issueId: '1' } }],
      ['POST', '/tasks', { taskData: { title: 'x', branchId: seed.branchId, assignedTo: 'crew' } }],
      ['POST', '/tasks?forAllVehiclesByBranch=maybe', { taskData: { title: 'x', branchId: seed.branchId } }],
      ['POST', '/tasks', []],
      ['PATCH', `/tasks/${id}`, {}],
      ['PATCH', `/tasks/${id}`, { taskData: {} }],
      ['PATCH', `/tasks/${id}`, { taskData: { taskState: 'DONE' } }],
      ['PATCH', `/tasks/${id}`, { taskData: { branchId: seed.otherBranchId } }],
      ['PATCH', `/tasks/${id}`, { taskObject: { vehicleId: 1.5 } }],
      ['PATCH', '/tasks/complete', { taskIds: [] }],
      ['PATCH', '/tasks/complete', { taskIds: ['1'] }],
      ['PATCH', '/tasks/complete', { taskIds: [1, 1] }],
      ['PATCH', '/tasks/complete', { taskIds: Array.from({ length: 201 }, (_, i) => i + 1) }],
      ['PUT', `/tasks/${id}/tags`, { tags: ['x'] }],
      ['PUT', `/tasks/${id}/tags`, ['']],
      ['PUT', `/tasks/${id}/tags`, ['nul\u0000']],
      [
        'GET',
        `/tasks/branch/${seed.branchId}/completed-tasks?startDate=2026-02-30T00:00:00Z&endDate=2026-03-01T00:00:00Z`,
      ],
      [
        'GET',
        `/tasks/branch/${seed.branchId}/completed-tasks?startDate=yesterday&endDate=2026-03-01T00:00:00Z`,
      ],
      [
        'GET',
        '/tasks/branch/0x1/completed-tasks?startDate=2026-01-01T00:00:00Z&endDate=2026-02-01T00:00:00Z',
      ],
      ['GET', '/tasks/user/crew/completed-tasks?startDate=2026-01-01T00:00:00Z&endDate=2026-02-01T00:00:00Z'],
      [
        'GET',
        `/tasks/user/crew%00/completed-tasks?branchId=${seed.branchId}&startDate=2026-01-01T00:00:00Z&endDate=2026-02-01T00:00:00Z`,
      ],
      ['GET', '/task-categories/1e3'],
      ['POST', '/task-categories', { name: 'ok', description: 'x\u0000' }],
      ['POST', '/task-categories', { name: 12 }],
      ['PATCH', '/task-categories/1', { name: 'ok', extra: 1 }],
      ['DELETE', '/task-categories/0'],
      ['GET', '/tasks/templates?page=-1'],
      ['GET', '/tasks/templates/abc'],
      ['POST', '/tasks/templates', { name: 'x' }],
      ['POST', '/tasks/templates', { name: ' ', title: 't' }],
      ['POST', '/tasks/templates', { name: 'n', title: 't', priority: 'low' }],
      ['PATCH', '/tasks/templates/1', {}],
      ['DELETE', '/tasks/templates/0x1'],
    ];
    for (const [method, path, body] of bad) {
      const reply = await call(method, back(path), { token: operator, body });
      expect({ path, method, status: reply.status }).toEqual({ path, method, status: 400 });
      expect(reply.body).toEqual({
        errorCode: expect.any(String),
        userMessage: expect.any(String),
        httpStatus: 400,
        traceId: expect.any(String),
      });
    }
    await call('DELETE', back(`/tasks/${id}`), { token: operator });
  });
});
