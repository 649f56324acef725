// Fleet over HTTP: vehicles (pages, filters, detail, branch scope, the app's reads), categories, IoT
// modules, bulk operations, map and clusters, configured actions and the legacy maintenance shortcuts;
// every response validated against the OpenAPI documents.
import { Branch } from '../db/entities/Branch.js';
import { Event } from '../db/entities/Event.js';
import { IotModule } from '../db/entities/IotModule.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCommand } from '../db/entities/VehicleCommand.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { vehiclePage } from '../db/fleet.js';
import type { TestBackend } from './support/stack.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { executeCommand } from './support/fleet.js';

let session: Session;
let stack: HttpStack;
let backend: TestBackend;
let operator: string;
let app: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const em = () => tenantEm(backend.orm, backend.seed.tenant);
const vehicles = () => em().find(Vehicle, {}, { orderBy: { id: 'asc' } });
const command = (vehicleId: number, body: Record<string, unknown>, process = 'SYNC', ret = 'DATA') =>
  executeCommand(stack, operator, vehicleId, body, process, ret);

beforeAll(async () => {
  session = await startSession();
  ({ stack, backend, operatorToken: operator, appClientToken: app } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('vehicles over HTTP', () => {
  test('GET /vehicles is paged and branch-scoped, with availability and reasons', async () => {
    const { branchId, cityBranchId } = backend.seed;
    const page = await call('GET', stack.back(`/vehicles?branchId=${branchId}&size=5`), { token: operator });
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(5);
    expect(page.headers.get('x-total-count')).toBe('24');
    expect(page.headers.get('x-total-pages')).toBe('5');
    const city = await call('GET', stack.back(`/vehicles?branchId=${cityBranchId}`), { token: operator });
    expect(city.headers.get('x-total-count')).toBe('0');
    const withChildren = await call(
      'GET',
      stack.back(`/vehicles?branchId=${cityBranchId}&includeChildBranches=true&size=50`),
      {
        token: operator,
      },
    );
    // The district's 24 vehicles and the 4 cars of the demo booking stations.
    expect(withChildren.body).toHaveLength(28);
    const reasons = withChildren.body
      .filter((vehicle: { branchId: number }) => vehicle.branchId === branchId)
      .slice(-3)
      .map((vehicle: { unavailabilityReasons: string[] }) => vehicle.unavailabilityReasons);
    expect(reasons).toEqual([['OUT_OF_ORDER'], ['BATTERY_TOO_LOW'], ['MUST_REMAIN_ON_CHARGER']]);
    expect(withChildren.body[0]).toMatchObject({
      available: true,
      unavailabilityReasons: [],
      offline: false,
    });
    const search = await call('GET', stack.back(`/vehicles?branchId=${branchId}&search=B-FF`), {
      token: operator,
    });
    expect(search.headers.get('x-total-count')).toBe('8');
  });

  test('GET /vehicles filters: LIKE wildcards taken literally, several states, offline, tag, sort; rows as the detail shows them', async () => {
    const { branchId } = backend.seed;
    const list = (query: string) =>
      call('GET', stack.back(`/vehicles?branchId=${branchId}&size=50${query}`), { token: operator });
    const total = (response: { headers: Headers }) => Number(response.headers.get('x-total-count'));
    type Row = { id: number; code: string; serviceStateV2: string; offline: boolean; tags: string[] };
    const all = (await list('')).body as Row[];
    expect(all).toHaveLength(24);
    // '%', '_' and '\' match themselves, not any text.
    for (const wildcard of ['%25', '_', '%5C']) expect(total(await list(`&search=${wildcard}`))).toBe(0);
    const states = [...new Set(all.map((vehicle) => vehicle.serviceStateV2))].slice(0, 2);
    expect(total(await list(states.map((state) => `&serviceStateV2=${state}`).join('')))).toBe(
      all.filter((vehicle) => states.includes(vehicle.serviceStateV2)).length,
    );
    expect(total(await list('&offline=true'))).toBe(all.filter((vehicle) => vehicle.offline).length);
    const tag = all.flatMap((vehicle) => vehicle.tags)[0];
    if (tag)
      expect(total(await list(`&tag=${encodeURIComponent(tag)}`))).toBe(
        all.filter((vehicle) => vehicle.tags.includes(tag)).length,
      );
    const codes = async (sort: string) =>
      ((await list(`&sort=${sort}`)).body as Row[]).map((vehicle) => vehicle.code);
    expect(await codes('code,desc')).toEqual((await codes('code,asc')).reverse());
    // A row of the list is what the vehicle's own endpoint answers (fields telemetry may move aside).
    const volatile = [
      'lastSeenAt',
      'updatedAt',
      'stateOfCharge',
      'iotStateOfCharge',
      'batteryLevel',
      'position',
    ];
    const stable = (vehicle: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(vehicle).filter(([key]) => !volatile.includes(key)));
    const detail = await call('GET', stack.back(`/vehicles/${all[0]!.id}`), { token: operator });
    expect(stable(all[0]! as unknown as Record<string, unknown>)).toEqual(stable(detail.body));
  });

  test('the vehicle page reads the same inside a transaction (its connection, parameters bound) as outside (the prepared statement)', async () => {
    const { tenant, branchId } = backend.seed;
    const page = (manager: ReturnType<typeof em>) =>
      vehiclePage(
        manager,
        tenant,
        { branchIds: [branchId], search: '-', serviceStatesV2: ['FUNCTIONAL', 'INSPECT'], offline: false },
        { field: 'code', direction: 'desc' },
        { limit: 7, offset: 3 },
      );
    const outside = await page(em());
    expect(outside.vehicles).toHaveLength(7);
    const inside = await inTenantTransaction(backend.orm, tenant, (tx) => page(tx));
    expect(inside).toEqual(outside);
    // Past the end: no rows, the total still counted.
    const beyond = await vehiclePage(
      em(),
      tenant,
      { branchIds: [branchId] },
      { field: 'id', direction: 'asc' },
      {
        limit: 50,
        offset: 500,
      },
    );
    expect(beyond).toEqual({ vehicles: [], total: 24 });
  });

  test("another branch's vehicle and list are refused", async () => {
    const { otherBranchId } = backend.seed;
    const list = await call('GET', stack.back(`/vehicles?branchId=${otherBranchId}`), { token: operator });
    expectError(list, 403, 'AUTH002');
    const [vehicle] = await vehicles();
    const foreign = em();
    foreign.create(Vehicle, {
      code: 'SPANDAU-1',
      branch: foreign.getReference(Branch, otherBranchId),
      category: vehicle!.category,
    });
    await foreign.flush();
    const spandau = await em().findOneOrFail(Vehicle, { code: 'SPANDAU-1' });
    expectError(
      await call('GET', stack.back(`/vehicles/${spandau.id}`), { token: operator }),
      403,
      'AUTH002',
    );
    expectError(await command(spandau.id, { command: 'LOCATE' }), 403, 'AUTH002');
    expectError(await call('GET', stack.back('/vehicles/999999'), { token: operator }), 404, 'V404');
  });

  test('GET by id and code; PATCH records service-state events; legal inspection date removable', async () => {
    const [vehicle] = await vehicles();
    const byCode = await call('GET', stack.back(`/vehicles/code/${encodeURIComponent(vehicle!.code)}`), {
      token: operator,
    });
    expect(byCode.body.id).toBe(vehicle!.id);
    const patched = await call('PATCH', stack.back(`/vehicles/${vehicle!.id}`), {
      token: operator,
      body: { serviceStateV2: 'INSPECT', legalInspectionDate: '2027-03-01', tags: ['demo'] },
    });
    expect(patched.body).toMatchObject({
      serviceStateV2: 'INSPECT',
      legalInspectionDate: '2027-03-01',
      available: true,
    });
    expect(
      await em().count(Event, { vehicleId: vehicle!.id, type: 'VEHICLE_SERVICE_STATE_V2_INSPECT' }),
    ).toBe(1);
    expect(
      (await call('DELETE', stack.back(`/vehicles/${vehicle!.id}/legalInspectionDate`), { token: operator }))
        .status,
    ).toBe(204);
    const back = await call('PATCH', stack.back(`/vehicles?code=${encodeURIComponent(vehicle!.code)}`), {
      token: operator,
      body: { serviceStateV2: 'FUNCTIONAL' },
    });
    expect(back.body).toMatchObject({ serviceStateV2: 'FUNCTIONAL', legalInspectionDate: null });
    const log = await call(
      'GET',
      stack.back(`/vehicles/${vehicle!.id}/log-entries?typePrefix=VEHICLE_SERVICE`),
      { token: operator },
    );
    expect(log.body.map((entry: { type: string }) => entry.type)).toContain(
      'VEHICLE_SERVICE_STATE_V2_FUNCTIONAL',
    );
  });

  test('app endpoints: list with maxStateOfCharge, by id, code and rotating uuid', async () => {
    const all = await vehicles();
    const low = await call('GET', stack.front('/vehicles?maxStateOfCharge=10'), { token: app });
    expect(low.body.map((vehicle: { stateOfCharge: number }) => vehicle.stateOfCharge <= 10)).not.toContain(
      false,
    );
    expect(low.body.length).toBeGreaterThan(0);
    const uuid = all[1]!.rotatingUuid!;
    const byUuid = await call('GET', stack.front(`/vehicles/rotating-uuid/${uuid}`), { token: app });
    expect(byUuid.body.id).toBe(all[1]!.id);
    expect((await call('GET', stack.front(`/vehicles/${all[1]!.id}`), { token: app })).body.code).toBe(
      all[1]!.code,
    );
    expectError(
      await call('GET', stack.front('/vehicles/rotating-uuid/6f1c7e8e-8d53-4c8e-9b7f-4a0e2a9d1c11'), {
        token: app,
      }),
      404,
      'V404',
    );
  });
});

describe('categories', () => {
  test('a child sees its parent keys unless it overrides them; validation; delete in use is a conflict', async () => {
    const parent = await call('POST', stack.back('/vehicles/categories-management'), {
      token: operator,
      body: {
        name: 'Cargo bike',
        configuration: {
          socLevels: { high: 70, medium: 30, low: 10 },
          chargingLimit: 85,
          commands: ['LOCK', 'UNLOCK'],
        },
      },
    });
    expect(parent.status).toBe(201);
    const child = await call('POST', stack.back('/vehicles/categories-management'), {
      token: operator,
      body: { name: 'Cargo bike XL', parentId: parent.body.id, configuration: { chargingLimit: 95 } },
    });
    expect(child.body.effectiveConfiguration).toMatchObject({
      chargingLimit: 95,
      commands: ['LOCK', 'UNLOCK'],
      socLevels: { high: 70 },
    });
    expect(child.body.configuration).toEqual({ chargingLimit: 95 });
    expectError(
      await call('POST', stack.back('/vehicles/categories-management'), {
        token: operator,
        body: { name: 'Bad', configuration: { chargingLimit: 150 } },
      }),
      400,
      'VC102',
    );
    expectError(
      await call('PATCH', stack.back(`/vehicles/categories-management/${parent.body.id}`), {
        token: operator,
        body: { parentId: child.body.id },
      }),
      400,
      'VC102',
    );
    expectError(
      await call('DELETE', stack.back(`/vehicles/categories-management/${parent.body.id}`), {
        token: operator,
      }),
      409,
      'VC100',
    );
    const page = await call('GET', stack.back('/vehicles/categories-management?search=cargo&size=1'), {
      token: operator,
    });
    expect(page.headers.get('x-total-count')).toBe('2');
    const commands = await call('GET', stack.back('/vehicles/categories/commands'), { token: operator });
    expect(
      commands.body.find((entry: { categoryId: number }) => entry.categoryId === child.body.id).commands,
    ).toEqual(['LOCK', 'UNLOCK']);
    expect(
      (
        await call('DELETE', stack.back(`/vehicles/categories-management/${child.body.id}`), {
          token: operator,
        })
      ).status,
    ).toBe(204);
    expect(
      (await call('POST', stack.back('/vehicles/categories-management/reload'), { token: operator })).status,
    ).toBe(200);
  });
});

describe('IoT modules', () => {
  test('associate by exactly one identifier; MO codes; remove', async () => {
    const vehicle = (await vehicles())[10]!;
    expectError(
      await call('POST', stack.back(`/vehicles/${vehicle.id}/iot-module`), { token: operator, body: {} }),
      400,
      'MO105',
    );
    expectError(
      await call('POST', stack.back(`/vehicles/${vehicle.id}/iot-module`), {
        token: operator,
        body: { externalModuleId: 'nope' },
      }),
      404,
      'MO103',
    );
    const associated = await call('POST', stack.back(`/vehicles/${vehicle.id}/iot-module`), {
      token: operator,
      body: { externalModuleId: 'IMEI-SPARE-0001' },
    });
    expect(associated.body.module).toMatchObject({ state: 'ASSIGNED', vehicleId: vehicle.id });
    expectError(
      await call('POST', stack.back('/iot-modules'), {
        token: operator,
        body: { externalId: 'IMEI-SPARE-0001', name: 'Dup' },
      }),
      409,
      'MO100',
    );
    const removed = await call('DELETE', stack.back(`/vehicles/${vehicle.id}/iot-module`), {
      token: operator,
    });
    expect(removed.body.module).toBeNull();
    const module = await em().findOneOrFail(IotModule, { externalId: 'IMEI-SPARE-0001' });
    expect(module.state).toBe('UNASSIGNED');
    await call('PATCH', stack.back(`/iot-modules/${module.id}`), {
      token: operator,
      body: { state: 'RETIRED' },
    });
    expectError(
      await call('PATCH', stack.back(`/iot-modules/${module.id}`), {
        token: operator,
        body: { state: 'NEW' },
      }),
      409,
      'MO104',
    );
  });
});

describe('bulk operations, map and clusters', () => {
  test('bulk operations report per-vehicle success and failure', async () => {
    const list = await vehicles();
    const spandau = await em().findOneOrFail(Vehicle, { code: 'SPANDAU-1' });
    const { branchId, otherBranchId } = backend.seed;
    const created = await call('POST', stack.back('/vehicles/bulk-create'), {
      token: operator,
      body: {
        vehicles: [
          { code: 'BULK-1', branchId, categoryId: list[0]!.category.id },
          { code: list[0]!.code, branchId, categoryId: list[0]!.category.id },
          { code: 'BULK-2', branchId: otherBranchId, categoryId: list[0]!.category.id },
          { code: 'BULK-3', branchId, categoryId: 999999 },
        ],
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.successes.map((s: { index: number }) => s.index)).toEqual([0]);
    expect(created.body.failures.map((f: { errorCode: string }) => f.errorCode)).toEqual([
      'V100',
      'AUTH002',
      'VC404',
    ]);

    const ids = [list[5]!.id, spandau.id, 999999];
    const tagged = await call('PATCH', stack.back('/vehicles/tags/bulk-update'), {
      token: operator,
      body: { vehicleIds: ids, addTags: ['winter'] },
    });
    expect(tagged.body.successes).toHaveLength(1);
    expect(tagged.body.failures.map((f: { errorCode: string }) => f.errorCode)).toEqual(['AUTH002', 'V404']);
    expect((await em().findOneOrFail(Vehicle, list[5]!.id)).tags).toContain('winter');

    const tasks = await call('POST', stack.back('/vehicles/tasks/bulk-create'), {
      token: operator,
      body: { vehicleIds: ids, task: { title: 'Check brakes', priority: 'HIGH' } },
    });
    expect(tasks.body.successes).toHaveLength(1);
    const notes = await call('POST', stack.back('/vehicles/notes/bulk-create'), {
      token: operator,
      body: { vehicleIds: [list[5]!.id], text: 'Scratch on the left side' },
    });
    expect(notes.body.successes).toHaveLength(1);
    const details = await call('POST', stack.back('/vehicles/details'), {
      token: operator,
      body: { vehicleIds: [list[5]!.id, spandau.id] },
    });
    expect(details.body).toHaveLength(1);
    expect(details.body[0]).toMatchObject({
      openTasks: [{ title: 'Check brakes', priority: 'HIGH' }],
      notes: [{ text: 'Scratch on the left side' }],
    });
    const overview = await call('GET', stack.back(`/vehicles/open-tasks-overview?branchId=${branchId}`), {
      token: operator,
    });
    expect(overview.body).toEqual([
      { vehicleId: list[5]!.id, code: list[5]!.code, openTasks: 1, highestPriority: 'HIGH' },
    ]);
    expect(
      (await call('GET', stack.back(`/vehicles/${list[5]!.id}/tasks`), { token: operator })).body,
    ).toHaveLength(1);

    const byQuery = await call('POST', stack.back(`/vehicles/bulk-update?branchId=${branchId}`), {
      token: operator,
      body: { filter: { tag: 'winter' }, changes: { serviceStateV2: 'RELOCATE' } },
    });
    expect(byQuery.body.successes.map((s: { vehicleId: number }) => s.vehicleId)).toEqual([list[5]!.id]);
    const byIds = await call('POST', stack.back('/vehicles/bulk-update-by-ids'), {
      token: operator,
      body: {
        vehicleIds: [list[5]!.id, spandau.id],
        changes: { serviceStateV2: 'FUNCTIONAL', removeTags: ['winter'] },
      },
    });
    expect(byIds.body.failures).toEqual([
      expect.objectContaining({ vehicleId: spandau.id, errorCode: 'AUTH002' }),
    ]);
    expect(await em().count(Event, { vehicleId: list[5]!.id, type: 'VEHICLE_BULK_UPDATE' })).toBe(2);
  });

  test('map leaves out retired and virtual vehicles; clusters aggregate on a grid', async () => {
    const { branchId } = backend.seed;
    const list = await vehicles();
    await em().nativeUpdate(Vehicle, { id: list[6]!.id }, { serviceStateV2: 'RETIRED' });
    await em().nativeUpdate(Vehicle, { id: list[7]!.id }, { virtual: true });
    const map = await call('GET', stack.back(`/vehicles/map?branchId=${branchId}`), { token: operator });
    const onMap = map.body.map((vehicle: { id: number }) => vehicle.id);
    expect(onMap).not.toContain(list[6]!.id);
    expect(onMap).not.toContain(list[7]!.id);
    const box = 'minLat=52.4&minLng=13.3&maxLat=52.6&maxLng=13.5';
    const coarse = await call('GET', stack.back(`/vehicles/clusters?branchId=${branchId}&${box}&zoom=8`), {
      token: operator,
    });
    expect(coarse.body.type).toBe('FeatureCollection');
    const total = coarse.body.features.reduce(
      (sum: number, f: { properties: { count: number } }) => sum + f.properties.count,
      0,
    );
    expect(total).toBe(onMap.length);
    const fine = await call('GET', stack.back(`/vehicles/clusters?branchId=${branchId}&${box}&zoom=16`), {
      token: operator,
    });
    expect(fine.body.features.length).toBeGreaterThan(coarse.body.features.length);
    expectError(
      await call(
        'GET',
        stack.back(
          `/vehicles/clusters?branchId=${branchId}&minLat=53&minLng=13.3&maxLat=52&maxLng=13.5&zoom=3`,
        ),
        {
          token: operator,
        },
      ),
      400,
      '0022',
    );
  });
});

describe('actions, activities and composite activities', () => {
  const run = (kind: string, id: number, vehicleId: number) =>
    call('POST', stack.back(`/vehicles/execute-${kind}/${id}?vehicleId=${vehicleId}`), { token: operator });

  test('configured sequences run per category and role; a role that may not run it is refused', async () => {
    const operations = await call('GET', stack.back('/vehicles-management/actions'), { token: operator });
    const byName = (name: string) =>
      operations.body.find((op: { name: string }) => op.name === name).id as number;
    const list = await vehicles();
    const scooter = list[9]!;
    const car = list[8]!;

    const locked = await run('action', byName('Lock and mark parked'), scooter.id);
    expect(locked.status).toBe(200);
    expect(locked.body.tags).toContain('parked');

    const composite = await run('composite-activity', byName('Collect for charging'), scooter.id);
    expect(composite.body.serviceStateV2).toBe('COLLECT');
    expect(backend.simulator.getVehicle(String(scooter.id))?.alarmOn).toBe(false);
    const commands = await em().find(VehicleCommand, { vehicleId: scooter.id }, { orderBy: { id: 'asc' } });
    expect(commands.map((row) => row.command)).toEqual(['LOCK', 'ALARM_ON', 'ALARM_OFF']);

    const workshop = await run('activity', byName('Send to workshop'), car.id);
    expect(workshop.body.serviceStateV2).toBe('SERVICE_WORKSHOP');
    // The operator holds "Fleet operations", not "Administrator".
    expectError(await run('action', byName('Reboot IoT module'), scooter.id), 403, 'A100');
    // Not configured for cars.
    expectError(await run('action', byName('Lock and mark parked'), car.id), 403, 'A100');
    // An activity id used as an action.
    expectError(await run('action', byName('Send to workshop'), car.id), 404, 'VH404');
    const perCategory = await call('GET', stack.back('/vehicles/categories/actions'), { token: operator });
    expect(
      perCategory.body.find((c: { categoryId: number }) => c.categoryId === car.category.id).actions,
    ).toHaveLength(1);
    await call('PATCH', stack.back(`/vehicles/${car.id}`), {
      token: operator,
      body: { serviceStateV2: 'FUNCTIONAL' },
    });
    await call('PATCH', stack.back(`/vehicles/${scooter.id}`), {
      token: operator,
      body: { serviceStateV2: 'FUNCTIONAL' },
    });
  }, 30_000);
});

describe('legacy maintenance and shortcuts', () => {
  test('approach, deploy, leave, close record their events; calculate-route orders by stored positions', async () => {
    const vehicle = (await vehicles())[11]!;
    for (const step of ['approach', 'leave', 'close'])
      expect(
        (
          await call('POST', stack.back(`/vehicles/maintenance/${step}?id=${vehicle.id}`), {
            token: operator,
          })
        ).status,
      ).toBe(200);
    await em().nativeUpdate(Vehicle, { id: vehicle.id }, { serviceStateV2: 'MAINTENANCE' });
    const deployed = await call(
      'POST',
      stack.back(`/vehicles/maintenance/deploy?code=${encodeURIComponent(vehicle.code)}`),
      {
        token: operator,
      },
    );
    expect(deployed.body.serviceStateV2).toBe('FUNCTIONAL');
    const types = (
      await em().find(Event, { vehicleId: vehicle.id, type: { $like: 'VEHICLE_MAINTENANCE%' } })
    ).map((e) => e.type);
    expect(types.sort()).toEqual([
      'VEHICLE_MAINTENANCE',
      'VEHICLE_MAINTENANCE_APPROACH',
      'VEHICLE_MAINTENANCE_CLOSE',
      'VEHICLE_MAINTENANCE_DEPLOY',
    ]);
    expectError(
      await call('POST', stack.back(`/vehicles/maintenance/close?id=${vehicle.id}&code=x`), {
        token: operator,
      }),
      400,
      '0022',
    );
    const list = await vehicles();
    const route = await call('POST', stack.back('/vehicles/maintenance/calculate-route'), {
      token: operator,
      body: { start: { lat: 52.5219, lng: 13.4132 }, vehicleIds: [list[9]!.id, list[0]!.id, list[2]!.id] },
    });
    const feature = JSON.parse(route.body);
    expect(feature.geometry.type).toBe('LineString');
    expect(feature.properties.vehicleIds[0]).toBe(list[0]!.id); // parked at Alexanderplatz, the start
    const located = await call('POST', stack.back(`/vehicles/${list[3]!.id}/locate`), { token: operator });
    expect(located.status).toBe(200);
    const refreshed = await call('POST', stack.back(`/vehicles/${list[3]!.id}/updateState`), {
      token: operator,
    });
    expect(refreshed.body.id).toBe(list[3]!.id);
  });
});
