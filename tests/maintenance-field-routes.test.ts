// The maintenance service's field routes and service vehicles end to end over HTTP against the real
// database: a route's lifecycle with the events it records (approach, battery swap, close) and the task it
// completes, the optimiser's order, RO100/RO103, service vehicle CRUD, branch-scope and tenant denials.
/* eslint-disable @typescript-eslint/no-explicit-any -- reading untyped JSON answers and documents */
import { FieldRoute } from '../db/entities/FieldRoute.js';
import { ServiceVehicle } from '../db/entities/ServiceVehicle.js';
import { Setting } from '../db/entities/Setting.js';
import { Task } from '../db/entities/Task.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoOperatorSubject, demoServiceVehiclePlate } from '../db/seed/maintenance.js';
import { routingSettingKey } from '../domain/maintenance.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { apiReloaded } from './support/read-cache.js';
import { startMaintenanceSession, type MaintenanceSession } from './support/maintenance-session.js';

let ms: MaintenanceSession;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let reader: string;
let rivalOperator: string;
let vehicles: Vehicle[];

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const mt = (path: string) => `/v1/${seed.tenant}/maintenance/api${path}`;
const em = () => tenantEm(stack.backend.orm, seed.tenant);

beforeAll(async () => {
  ms = await startMaintenanceSession('rivalfr');
  ({ stack, seed, rival } = ms.session);
  ({ operator, reader, rivalOperator, vehicles } = ms);
}, 120_000);

afterAll(async () => {
  await ms?.session.stop();
});

describe('field routes', () => {
  let taskId: number;

  beforeAll(async () => {
    const setup = em();
    const task = setup.create(Task, {
      title: 'Check the mirror',
      branchId: seed.branchId,
      createdBy: 'test',
    });
    await setup.flush();
    taskId = task.id;
  });

  const createRoute = (body: Record<string, unknown>, token = operator) =>
    call('POST', mt('/routes'), { token, body });
  const act = (
    id: number,
    kind: 'action' | 'stop-action' | 'stop-item-action',
    body: Record<string, unknown>,
    token = operator,
  ) => call('POST', mt(`/routes/${id}/${kind}`), { token, body });

  it('lives through its states, recording approach, battery swap and close, and completing its task', async () => {
    const made = await createRoute({
      branchId: seed.branchId,
      name: 'Test round',
      assignee: { userAuthId: demoOperatorSubject, firstLastName: 'Demo Operator' },
      plannedFor: '2030-03-10',
      stops: [
        { vehicleId: vehicles[0]!.id, items: [{ action: 'BATTERY_SWAP' }, { taskId }] },
        { vehicleId: vehicles[1]!.id, note: 'behind the kiosk' },
        { position: { lat: 52.52, lng: 13.4 }, items: [{ action: 'INSPECT', description: 'the rack' }] },
      ],
    });
    expect(made.status).toBe(201);
    const route = made.body;
    expect(route).toMatchObject({
      state: 'PLANNED',
      optimized: false,
      branchId: seed.branchId,
      plannedFor: '2030-03-10',
    });
    expect(route.stops.map((s: any) => [s.sequence, s.vehicleId, s.state])).toEqual([
      [0, vehicles[0]!.id, 'PENDING'],
      [1, vehicles[1]!.id, 'PENDING'],
      [2, null, 'PENDING'],
    ]);
    expect(route.stops[0].position).toEqual({ lat: vehicles[0]!.latitude, lng: vehicles[0]!.longitude });
    const [stop0, stop1, stop2] = route.stops;
    const [swap, taskItem] = stop0.items;

    const mine = await call('GET', mt('/routes/my'), { token: operator });
    expect(mine.body.map((r: any) => r.id)).toContain(route.id);
    const listed = await call(
      'GET',
      mt(`/routes?branchId=${seed.cityBranchId}&includeChildBranches=true&state=PLANNED&size=100`),
      { token: operator },
    );
    expect(listed.body.map((r: any) => r.id)).toContain(route.id);
    expect(
      (await call('GET', mt(`/routes?branchId=${seed.cityBranchId}`), { token: operator })).body.map(
        (r: any) => r.id,
      ),
    ).not.toContain(route.id);

    expectError(await act(route.id, 'stop-action', { stopId: stop0.id, action: 'ARRIVE' }), 409, 'MT409'); // not started
    expectError(await act(route.id, 'action', { action: 'COMPLETE' }), 409, 'MT409');
    expect((await act(route.id, 'action', { action: 'START' })).body.state).toBe('IN_PROGRESS');
    expect((await act(route.id, 'action', { action: 'STOP' })).body.state).toBe('PAUSED');
    expect((await act(route.id, 'action', { action: 'START' })).body).toMatchObject({
      state: 'IN_PROGRESS',
      startedAt: expect.any(String),
    });
    // Stops are fixed once started.
    expectError(
      await call('PATCH', mt('/routes'), { token: operator, body: { id: route.id, stops: [] } }),
      409,
      'MT409',
    );

    expectError(
      await act(route.id, 'stop-item-action', { stopId: stop0.id, itemId: swap.id, action: 'COMPLETE' }),
      409,
      'MT410',
    ); // not arrived
    const since = new Date(Date.now() - 1000).toISOString();
    await act(route.id, 'stop-action', { stopId: stop0.id, action: 'ARRIVE' });
    expectError(await act(route.id, 'stop-action', { stopId: stop0.id, action: 'ARRIVE' }), 409, 'MT410');
    expectError(await act(route.id, 'stop-action', { stopId: stop0.id, action: 'COMPLETE' }), 409, 'MT410'); // items open
    await act(route.id, 'stop-item-action', { stopId: stop0.id, itemId: swap.id, action: 'COMPLETE' });
    expectError(
      await act(route.id, 'stop-item-action', { stopId: stop0.id, itemId: swap.id, action: 'COMPLETE' }),
      409,
      'MT411',
    );
    expectError(
      await act(route.id, 'stop-item-action', { stopId: stop1.id, itemId: taskItem.id, action: 'COMPLETE' }),
      404,
      'MT405', // an item of another stop, whatever the named stop's state (stop 1 is not ARRIVED)
    );
    expectError(
      await act(route.id, 'stop-item-action', {
        stopId: stop0.id,
        itemId: stop2.items[0].id,
        action: 'COMPLETE',
      }),
      404,
      'MT405',
    );
    const afterTask = await act(route.id, 'stop-item-action', {
      stopId: stop0.id,
      itemId: taskItem.id,
      action: 'COMPLETE',
    });
    expect(afterTask.body.stops[0].items.map((i: any) => i.state)).toEqual(['COMPLETED', 'COMPLETED']);
    const task = await em().findOneOrFail(Task, taskId);
    expect(task).toMatchObject({ taskState: 'COMPLETED', completedBy: demoOperatorSubject });
    await act(route.id, 'stop-action', { stopId: stop0.id, action: 'COMPLETE' });
    expectError(await act(route.id, 'stop-action', { stopId: 999999, action: 'SKIP' }), 404, 'MT405');
    await act(route.id, 'stop-action', { stopId: stop1.id, action: 'SKIP', note: 'blocked' });
    expectError(await act(route.id, 'action', { action: 'COMPLETE' }), 409, 'MT409'); // stop 2 pending
    await act(route.id, 'stop-action', { stopId: stop2.id, action: 'ARRIVE' });
    await act(route.id, 'stop-item-action', { stopId: stop2.id, itemId: stop2.items[0].id, action: 'SKIP' });
    await act(route.id, 'stop-action', { stopId: stop2.id, action: 'COMPLETE' });
    const done = await act(route.id, 'action', { action: 'COMPLETE' });
    expect(done.body).toMatchObject({ state: 'COMPLETED', finishedAt: expect.any(String) });
    expect(done.body.stops.map((s: any) => s.state)).toEqual(['COMPLETED', 'SKIPPED', 'COMPLETED']);
    expectError(await act(route.id, 'action', { action: 'CANCEL' }), 409, 'MT409');
    expectError(
      await call('PATCH', mt('/routes'), { token: operator, body: { id: route.id, name: 'Renamed' } }),
      409,
      'MT409',
    );

    // The route's steps are in the maintenance log: approach, swap and close at the vehicle.
    const details = await call(
      'GET',
      mt(
        `/vehicle-maintenance-log/user/${demoOperatorSubject}/details?branchId=${seed.branchId}&startDate=${since}`,
      ),
      { token: operator },
    );
    expect(details.body.map((a: any) => [a.eventType, a.vehicleId])).toEqual([
      ['VEHICLE_MAINTENANCE_CLOSE', vehicles[0]!.id],
      ['BATTERY_SWAP', vehicles[0]!.id],
      ['VEHICLE_MAINTENANCE_APPROACH', vehicles[0]!.id],
    ]);
  });

  it('orders stops by the optimiser, and answers RO100 when routing is off and RO103 beyond its limits', async () => {
    const points = [
      { lat: 52.53, lng: 13.4 },
      { lat: 52.51, lng: 13.4 },
      { lat: 52.52, lng: 13.4 },
    ];
    const body = {
      branchId: seed.branchId,
      name: 'Optimised',
      start: { lat: 52.5, lng: 13.4 },
      optimize: true,
      stops: points.map((position, index) => ({ position, note: `p${index}` })),
    };
    const made = await createRoute(body);
    expect(made.status).toBe(201);
    expect(made.body.optimized).toBe(true);
    expect(made.body.stops.map((s: any) => s.note)).toEqual(['p1', 'p2', 'p0']);
    expect(made.body.distanceKm).toBeCloseTo(3.336, 2);
    // Re-optimise an edited route from another start.
    const edited = await call('PATCH', mt('/routes'), {
      token: operator,
      body: { id: made.body.id, start: { lat: 52.54, lng: 13.4 }, optimize: true },
    });
    expect(edited.body.stops.map((s: any) => s.note)).toEqual(['p0', 'p2', 'p1']);

    const setup = em();
    const setting = await setup.findOneOrFail(Setting, { key: routingSettingKey });
    const original = { ...setting.value };
    try {
      setting.value = { enabled: true, maxStops: 2 };
      await setup.flush();
      await apiReloaded(stack);
      expectError(await createRoute(body), 422, 'RO103');
      setting.value = { enabled: false, maxStops: 50 };
      await setup.flush();
      await apiReloaded(stack);
      expectError(await createRoute(body), 422, 'RO100');
      // Without optimize the route is planned as given.
      expect((await createRoute({ ...body, optimize: false })).body.stops.map((s: any) => s.note)).toEqual([
        'p0',
        'p1',
        'p2',
      ]);
    } finally {
      setting.value = original;
      await setup.flush();
      await apiReloaded(stack);
    }
  });

  it('edits, cancels, and refuses other branches, other tenants and unknown stops', async () => {
    const made = await createRoute({
      branchId: seed.branchId,
      name: 'To cancel',
      stops: [{ vehicleId: vehicles[2]!.id }],
    });
    const id = made.body.id;
    const patched = await call('PATCH', mt('/routes'), {
      token: operator,
      body: {
        id,
        name: 'Renamed',
        assignee: null,
        stops: [{ position: { lat: 1, lng: 2 } }, { vehicleId: vehicles[0]!.id }],
      },
    });
    expect(patched.body).toMatchObject({ name: 'Renamed', assignee: null });
    expect(patched.body.stops).toHaveLength(2);
    // The reader may read but not act on a route not assigned to it.
    expectError(await act(id, 'action', { action: 'START' }, reader), 403, 'AUTH002');
    expect((await act(id, 'action', { action: 'CANCEL' })).body.state).toBe('CANCELLED');

    const rivalVehicle = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(Vehicle, {
      branch: rival.branchId,
    });
    const rivalRoute = await call('POST', `/v1/${rival.tenant}/maintenance/api/routes`, {
      token: rivalOperator,
      body: { branchId: rival.branchId, name: 'Theirs', stops: [{ vehicleId: rivalVehicle.id }] },
    });
    expect(rivalRoute.status).toBe(201);
    expectError(await act(rivalRoute.body.id, 'action', { action: 'START' }), 404, 'MT404');
    expectError(
      await call('PATCH', mt('/routes'), { token: operator, body: { id: rivalRoute.body.id, name: 'Mine' } }),
      404,
      'MT404',
    );
    for (const stop of [
      { vehicleId: rivalVehicle.id },
      { stationId: 999999 },
      {},
      { vehicleId: vehicles[0]!.id, stationId: 1 },
    ])
      expectError(await createRoute({ branchId: seed.branchId, name: 'Bad', stops: [stop] }), 422, 'MT412');
    expectError(
      await createRoute({
        branchId: seed.branchId,
        name: 'Bad',
        stops: [{ position: { lat: 1, lng: 1 }, items: [{ taskId: 999999 }] }],
      }),
      422,
      'MT412',
    );
    expectError(
      await createRoute({ branchId: seed.otherBranchId, name: 'Elsewhere', stops: [] }),
      403,
      'AUTH002',
    );
    expectError(
      await createRoute({ branchId: seed.branchId, name: 'Reader', stops: [] }, reader),
      403,
      'AUTH002',
    );
    expectError(await createRoute({ branchId: rival.branchId, name: 'Theirs', stops: [] }), 404, 'B404');
    expectError(
      await call('GET', mt(`/routes?branchId=${seed.otherBranchId}`), { token: operator }),
      403,
      'AUTH002',
    );
  });
});

describe('service vehicles', () => {
  it('creates, lists, edits and deletes; plates are unique; routes name only active vans of their branch', async () => {
    const created = await call('POST', mt('/vehicles'), {
      token: operator,
      body: { branchId: seed.branchId, name: 'Cargo bike', licencePlate: 'B-CB 7', capacity: 4 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Cargo bike',
      licencePlate: 'B-CB 7',
      capacity: 4,
      state: 'ACTIVE',
      position: null,
    });
    const id = created.body.id;
    expectError(
      await call('POST', mt('/vehicles'), {
        token: operator,
        body: { branchId: seed.branchId, name: 'Dup', licencePlate: 'bff-1001', capacity: 1 },
      }),
      409,
      'MT414',
    );
    const listed = await call(
      'GET',
      mt(`/vehicles?branchId=${seed.cityBranchId}&includeChildBranches=true`),
      { token: operator },
    );
    expect(listed.body.map((v: any) => v.licencePlate)).toEqual(
      expect.arrayContaining(['B-CB 7', demoServiceVehiclePlate]),
    );
    expect(
      (await call('GET', mt(`/vehicles?branchId=${seed.branchId}`), { token: reader })).body.map(
        (v: any) => v.id,
      ),
    ).toEqual([id]);

    // A route on the district may take the city's van and its own, not once inactive.
    const van = await em().findOneOrFail(ServiceVehicle, { licencePlate: demoServiceVehiclePlate });
    const route = await call('POST', mt('/routes'), {
      token: operator,
      body: { branchId: seed.branchId, name: 'With van', serviceVehicleId: id, stops: [] },
    });
    expect(route.body.serviceVehicleId).toBe(id);
    expectError(
      await call('POST', mt('/routes'), {
        token: operator,
        body: { branchId: seed.cityBranchId, name: 'Up', serviceVehicleId: id, stops: [] },
      }),
      422,
      'MT413',
    );
    expectError(await call('DELETE', mt(`/vehicles?id=${id}`), { token: operator }), 409, 'MT415');
    const patched = await call('PATCH', mt('/vehicles'), {
      token: operator,
      body: {
        id,
        capacity: 6,
        state: 'INACTIVE',
        position: { lat: 52.5, lng: 13.4 },
        licencePlate: 'B-CB 8',
      },
    });
    expect(patched.body).toMatchObject({
      capacity: 6,
      state: 'INACTIVE',
      position: { lat: 52.5, lng: 13.4 },
      licencePlate: 'B-CB 8',
    });
    expectError(
      await call('PATCH', mt('/routes'), {
        token: operator,
        body: { id: route.body.id, serviceVehicleId: id },
      }),
      422,
      'MT413',
    );
    expectError(
      await call('PATCH', mt('/vehicles'), {
        token: operator,
        body: { id, licencePlate: demoServiceVehiclePlate },
      }),
      409,
      'MT414',
    );
    expectError(
      await call('PATCH', mt('/vehicles'), { token: reader, body: { id, capacity: 1 } }),
      403,
      'AUTH002',
    );
    await call('PATCH', mt('/routes'), {
      token: operator,
      body: { id: route.body.id, serviceVehicleId: van.id },
    });
    expect((await call('DELETE', mt(`/vehicles?id=${id}`), { token: operator })).status).toBe(204);
    expectError(await call('DELETE', mt(`/vehicles?id=${id}`), { token: operator }), 404, 'MT406');
    expectError(
      await call('PATCH', mt('/vehicles'), { token: operator, body: { id, capacity: 1 } }),
      404,
      'MT406',
    );

    // Another tenant's van is not found; another branch's is not the caller's.
    const theirs = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(ServiceVehicle, {});
    expectError(await call('DELETE', mt(`/vehicles?id=${theirs.id}`), { token: operator }), 404, 'MT406');
    expectError(
      await call('POST', mt('/vehicles'), {
        token: operator,
        body: { branchId: seed.otherBranchId, name: 'X', licencePlate: 'XX 1', capacity: 1 },
      }),
      403,
      'AUTH002',
    );
    expect(await em().count(FieldRoute, { serviceVehicleId: id })).toBe(0);
  });
});
