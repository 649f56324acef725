// Geography over HTTP, the map: area types and areas (geofences, policies the type allows), stations,
// physical stations with their slots, docking and parking areas, and POIs with their categories;
// denials by permission, branch and tenant. Every response is validated against the OpenAPI documents.
import { Event } from '../db/entities/Event.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { connectVehicleToSlot } from '../db/docking.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoAppClient, demoOperatorClient } from '../db/seed/access.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { as, startGeographySession, type GeographySession } from './support/geography.js';
import { multi, ring } from './support/geofences.js';

let session: GeographySession;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let rivalOperator: string;
/** An operator with only read permissions on the district branch (for denials). */
let reader: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);

beforeAll(async () => {
  session = await startGeographySession();
  ({
    stack,
    seed,
    rival,
    operatorToken: operator,
    rivalOperatorToken: rivalOperator,
    readerToken: reader,
  } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('areas and area types', () => {
  let typeId: string;
  let areaId: string;
  const mitte = multi([
    [
      [13.376, 52.509],
      [13.43, 52.509],
      [13.43, 52.531],
      [13.376, 52.531],
      [13.376, 52.509],
    ],
  ]);

  test('area types: create, then areas whose policies the type allows', async () => {
    const type = await call(
      'POST',
      back('/areatypes'),
      as(operator, {
        name: 'Business area',
        style: { color: '#1e88e5', lineThickness: 2, opacity: 0.3 },
        policyTypes: ['ALLOW_END_RENTAL_POLICY', 'SPEED_LIMIT_POLICY'],
      }),
    );
    expect(type.status).toBe(201);
    typeId = type.body.id;
    expectError(
      await call(
        'POST',
        back('/areatypes'),
        as(reader, { name: 'X', style: type.body.style, policyTypes: [] }),
      ),
      403,
      'AUTH002',
    );

    const area = await call(
      'POST',
      back('/areas'),
      as(operator, {
        name: 'Mitte business area',
        branchId: seed.branchId,
        areaTypeId: typeId,
        geofence: mitte,
        policies: [{ type: 'ALLOW_END_RENTAL_POLICY' }, { type: 'SPEED_LIMIT_POLICY', speedLimit: 20 }],
        tags: ['core'],
      }),
    );
    expect(area.status).toBe(201);
    expect(area.body).toMatchObject({
      status: 'ACTIVE',
      labels: ['NEW'],
      tags: ['core'],
      vehicleTypeIds: [],
    });
    areaId = area.body.id;

    expectError(
      await call(
        'POST',
        back('/areas'),
        as(operator, {
          name: 'X',
          branchId: seed.branchId,
          areaTypeId: typeId,
          geofence: mitte,
          policies: [{ type: 'NO_PARKING_POLICY' }],
        }),
      ),
      422,
      'AREA100',
    );
  });

  test.each([
    ['open ring', multi([ring(13.38, 52.51, 13.39, 52.52).slice(0, 4)])],
    [
      'self-intersection',
      multi([
        [
          [13.38, 52.51],
          [13.39, 52.52],
          [13.39, 52.51],
          [13.38, 52.52],
          [13.38, 52.51],
        ],
      ]),
    ],
    ['out-of-range coordinates', multi([ring(13.38, 95, 13.39, 96)])],
  ])('a geofence with an %s is refused with GF100', async (_name, geofence) => {
    const reply = await call(
      'POST',
      back('/areas'),
      as(operator, { name: 'Bad', branchId: seed.branchId, areaTypeId: typeId, geofence }),
    );
    expectError(reply, 422, 'GF100');
  });

  test('PUT with resetNew clears NEW; list with includeChildBranches, sort and X-Pagination-* headers', async () => {
    const current = (await call('GET', back(`/areas/${areaId}`), as(operator))).body;
    const body = {
      name: 'Mitte business area',
      branchId: seed.branchId,
      areaTypeId: typeId,
      geofence: current.geofence,
      policies: current.policies,
      tags: ['core', 'reviewed'],
    };
    const kept = await call('PUT', back(`/areas/${areaId}`), as(operator, body));
    expect(kept.body.labels).toEqual(['NEW']);
    const reviewed = await call('PUT', back(`/areas/${areaId}?resetNew=true`), as(operator, body));
    expect(reviewed.body).toMatchObject({ labels: [], tags: ['core', 'reviewed'] });

    const own = await call('GET', back(`/areas?branchId=${seed.cityBranchId}`), as(operator));
    expect(own.body).toEqual([]);
    const withChildren = await call(
      'GET',
      back(`/areas?branchId=${seed.cityBranchId}&includeChildBranches=true&sort=name,DESC&size=10`),
      as(operator),
    );
    expect(withChildren.body.map((a: { id: string }) => a.id)).toContain(areaId);
    expect(withChildren.headers.get('x-pagination-total-count')).toBe(String(withChildren.body.length));
    expect(withChildren.headers.get('x-pagination-size')).toBe('10');
    expect(withChildren.headers.get('x-total-count')).toBe(String(withChildren.body.length));
  });

  test('an area type in use cannot be deleted, nor lose a policy type its areas use', async () => {
    expectError(await call('DELETE', back(`/areatypes/${typeId}`), as(operator)), 409, 'AT409');
    expectError(
      await call(
        'PUT',
        back(`/areatypes/${typeId}`),
        as(operator, {
          name: 'Business area',
          style: { color: '#1e88e5', lineThickness: 2, opacity: 0.3 },
          policyTypes: ['SPEED_LIMIT_POLICY'],
        }),
      ),
      409,
      'AT411',
    );
  });

  test('area writes are branch-scoped; other tenants see nothing', async () => {
    const body = { name: 'X', branchId: seed.otherBranchId, areaTypeId: typeId, geofence: mitte };
    expectError(await call('POST', back('/areas'), as(operator, body)), 403, 'AUTH002');
    expectError(
      await call('POST', back('/areas'), as(reader, { ...body, branchId: seed.branchId })),
      403,
      'AUTH002',
    );
    expectError(await call('DELETE', back(`/areas/${areaId}`), as(reader)), 403, 'AUTH002');
    expect((await call('GET', back(`/areas/${areaId}`), as(reader))).status).toBe(200);
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/areas/${areaId}`, as(rivalOperator)),
      404,
      'AREA404',
    );
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/areatypes/${typeId}`, as(rivalOperator)),
      404,
      'AT404',
    );
    const moved = await call(
      'PUT',
      back(`/areas/${areaId}`),
      as(operator, { ...body, branchId: seed.otherBranchId }),
    );
    expectError(moved, 403, 'AUTH002');
  });

  test('delete the area, then its type', async () => {
    expect((await call('DELETE', back(`/areas/${areaId}`), as(operator))).status).toBe(204);
    expectError(await call('GET', back(`/areas/${areaId}`), as(operator)), 404, 'AREA404');
    expect((await call('DELETE', back(`/areatypes/${typeId}`), as(operator))).status).toBe(204);
  });
});

describe('stations, physical stations and docking', () => {
  let physicalStationId: number;
  let slotId: number;
  let vehicleIds: number[];

  beforeAll(async () => {
    const em = tenantEm(stack.backend.orm, seed.tenant);
    vehicleIds = (
      await em.find(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' }, limit: 3 })
    ).map((v) => v.id);
  });

  test('stations need a radius or an area; PATCH merges; branch-scoped writes', async () => {
    const body = {
      branchId: seed.branchId,
      name: 'Alexanderplatz hub',
      type: 'VIRTUAL',
      position: { lat: 52.5219, lng: 13.4132 },
    };
    expectError(await call('POST', back('/stations'), as(operator, body)), 422, 'STN100');
    const created = await call(
      'POST',
      back('/stations'),
      as(operator, { ...body, radius: 80, capacity: 12, reward: { freeMinutes: 5 } }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'ACTIVE',
      visibility: 'public',
      radius: 80,
      reward: { freeMinutes: 5 },
    });
    const patched = await call(
      'PATCH',
      back(`/stations/${created.body.id}`),
      as(operator, { state: 'INACTIVE', validUntil: '2027-01-01T00:00:00.000Z' }),
    );
    expect(patched.body).toMatchObject({
      state: 'INACTIVE',
      capacity: 12,
      validUntil: '2027-01-01T00:00:00.000Z',
    });
    expectError(
      await call('PATCH', back(`/stations/${created.body.id}`), as(operator, { radius: null })),
      422,
      'STN100',
    );
    expectError(
      await call('PATCH', back(`/stations/${created.body.id}`), as(reader, { name: 'x' })),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'POST',
        back('/stations'),
        as(operator, { ...body, radius: 5, branchId: seed.otherBranchId }),
      ),
      403,
      'AUTH002',
    );
    const listed = await call(
      'GET',
      back(`/stations?branchId=${seed.cityBranchId}&includeChildBranches=true&type=VIRTUAL`),
      as(operator),
    );
    expect(listed.body.map((s: { id: number }) => s.id)).toContain(created.body.id);
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/stations/${created.body.id}`, as(rivalOperator)),
      404,
      'STN404',
    );
    expect((await call('DELETE', back(`/stations/${created.body.id}`), as(operator))).status).toBe(204);
  });

  test('localized texts and icon maps only take well-formed keys', async () => {
    const body = { branchId: seed.branchId, name: 'Bad keys', position: { lat: 52.52, lng: 13.4 } };
    for (const extra of [
      { appIcons: { 'bad key\n': 'https://example.com/a.png' } },
      { description: { '': 'x' } },
    ])
      expectError(
        await call('POST', back('/physical-stations'), as(operator, { ...body, ...extra })),
        400,
        '0022',
      );
  });

  test('connect and disconnect a vehicle: slot states and PHYSICAL_STATION_SLOT_VEHICLE_ events', async () => {
    const station = await call(
      'POST',
      back('/physical-stations'),
      as(operator, {
        branchId: seed.branchId,
        name: 'Hackescher Markt dock',
        position: { lat: 52.5225, lng: 13.4023 },
        description: { en: 'Under the railway arches', de: 'Unter den S-Bahn-Bögen' },
        images: [{ key: 'mainImage', url: 'https://example.com/dock.jpg' }],
        appIcons: { vehicle: 'https://example.com/icon.png' },
      }),
    );
    expect(station.status).toBe(201);
    expect(station.body).toMatchObject({ state: 'IN_PREPARATION', slotCount: 0 });
    physicalStationId = station.body.id;
    const slots = [];
    for (const number of [1, 2]) {
      const slot = await call(
        'POST',
        back(`/physical-stations/${physicalStationId}/slots`),
        as(operator, { number }),
      );
      expect(slot.body).toMatchObject({ number, state: 'VACANT', vehicleId: null });
      slots.push(slot.body.id);
    }
    slotId = slots[0];
    expectError(
      await call('POST', back(`/physical-stations/${physicalStationId}/slots`), as(operator, { number: 1 })),
      409,
      'PS102',
    );

    const connect = (slot: number, vehicleId: number) =>
      call(
        'POST',
        back(`/physical-stations/${physicalStationId}/slots/${slot}/connect-vehicle`),
        as(operator, { vehicleId }),
      );
    const connected = await connect(slotId, vehicleIds[0]!);
    expect(connected.body).toMatchObject({ state: 'OCCUPIED', vehicleId: vehicleIds[0] });
    expectError(await connect(slotId, vehicleIds[1]!), 409, 'PS100');
    expectError(
      await call('DELETE', back(`/physical-stations/${physicalStationId}/slots/${slotId}`), as(operator)),
      409,
      'PS103',
    );
    // The same vehicle docked at slot 2: slot 1's record is orphaned.
    const moved = await connect(slots[1], vehicleIds[0]!);
    expect(moved.body).toMatchObject({ state: 'OCCUPIED', vehicleId: vehicleIds[0] });
    const listed = await call('GET', back(`/physical-stations/${physicalStationId}/slots`), as(operator));
    expect(listed.body.map((s: { state: string }) => s.state)).toEqual(['VACANT', 'OCCUPIED']);

    const disconnected = await call(
      'POST',
      back(`/physical-stations/${physicalStationId}/slots/${slots[1]}/disconnect-vehicle`),
      as(operator, {}),
    );
    expect(disconnected.body).toMatchObject({ state: 'VACANT', vehicleId: null });
    expectError(
      await call(
        'POST',
        back(`/physical-stations/${physicalStationId}/slots/${slots[1]}/disconnect-vehicle`),
        as(operator, {}),
      ),
      409,
      'PS107',
    );
    const events = await tenantEm(stack.backend.orm, seed.tenant).find(
      Event,
      { vehicleId: vehicleIds[0], type: { $like: 'PHYSICAL_STATION_SLOT_VEHICLE_%' } },
      { orderBy: { id: 'asc' } },
    );
    expect(events.map((e) => e.type)).toEqual([
      'PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED',
      'PHYSICAL_STATION_SLOT_VEHICLE_ORPHANED',
      'PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED',
      'PHYSICAL_STATION_SLOT_VEHICLE_DISCONNECTED',
    ]);
    expect(events[0]!.adminSubject).toBe(`client:${demoOperatorClient.clientId}`);
  });

  test('a device reporting an unknown slot records VEHICLE_CONNECTED_TO_UNKNOWN_SLOT; reports override slot state', async () => {
    const em = tenantEm(stack.backend.orm, seed.tenant);
    const unknown = await em.transactional((tx) =>
      connectVehicleToSlot(tx, {
        stationId: physicalStationId,
        slot: { number: 99 },
        vehicleId: vehicleIds[1]!,
        source: 'report',
        actor: 'device',
      }),
    );
    expect(unknown).toEqual({ outcome: 'UNKNOWN_SLOT' });
    expect(
      await em.fork().count(Event, { vehicleId: vehicleIds[1], type: 'VEHICLE_CONNECTED_TO_UNKNOWN_SLOT' }),
    ).toBe(1);
    // An out-of-order slot refuses an operator command but takes a device's report (a physical fact).
    await call(
      'PATCH',
      back(`/physical-stations/${physicalStationId}/slots/${slotId}`),
      as(operator, { state: 'OUT_OF_ORDER' }),
    );
    expectError(
      await call(
        'POST',
        back(`/physical-stations/${physicalStationId}/slots/${slotId}/connect-vehicle`),
        as(operator, { vehicleId: vehicleIds[1] }),
      ),
      409,
      'PS100',
    );
    const reported = await em.fork().transactional((tx) =>
      connectVehicleToSlot(tx, {
        stationId: physicalStationId,
        slot: { number: 1 },
        vehicleId: vehicleIds[1]!,
        source: 'report',
        actor: 'device',
      }),
    );
    expect(reported).toMatchObject({ outcome: 'CONNECTED', slot: { state: 'OCCUPIED' } });
  });

  test('parking area: capacity, reserved places and the vehicles inside its geometry', async () => {
    const vehicle = await tenantEm(stack.backend.orm, seed.tenant).findOneOrFail(Vehicle, vehicleIds[2]!);
    const geometry = multi([
      ring(
        vehicle.longitude! - 0.001,
        vehicle.latitude! - 0.001,
        vehicle.longitude! + 0.001,
        vehicle.latitude! + 0.001,
      ),
    ]);
    const path = back(`/physical-stations/${physicalStationId}/parking-area`);
    expectError(await call('GET', path, as(operator)), 409, 'PS406');
    expectError(
      await call('POST', path, as(operator, { capacity: 2, geometry, reservedCount: 3 })),
      422,
      'PS106',
    );
    const created = await call('POST', path, as(operator, { capacity: 4, geometry, reservedCount: 1 }));
    expect(created.status).toBe(201);
    expect(created.body.parkedVehicleIds).toContain(vehicle.id);
    expect(created.body.freeCount).toBe(4 - 1 - created.body.parkedVehicleIds.length);
    expectError(await call('POST', path, as(operator, { capacity: 4, geometry })), 409, 'PS104');
    const patched = await call('PATCH', path, as(operator, { reservedCount: 0 }));
    expect(patched.body.reservedCount).toBe(0);
    expectError(await call('PATCH', path, as(reader, { reservedCount: 1 })), 403, 'AUTH002');
    expect((await call('DELETE', path, as(operator))).status).toBe(204);
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/physical-stations/${physicalStationId}`, as(rivalOperator)),
      404,
      'PS404',
    );
  });
});

describe('POIs and POI categories', () => {
  let categoryId: number;
  let poiId: number;
  const poiBody = () => ({
    categoryId,
    branchId: seed.branchId,
    name: 'Charging hub Jannowitzbrücke',
    position: { type: 'Point', coordinates: [13.4187, 52.5152] },
    address: 'Holzmarktstr. 2',
  });

  test('categories: create needs POI_CATEGORY_MANAGE; required fields enforced', async () => {
    const body = {
      type: 'CHARGING_STATION',
      name: 'Charging',
      images: { icon: 'https://example.com/plug.png' },
    };
    expectError(await call('POST', back('/categories'), as(reader, body)), 403, 'AUTH002');
    expect((await call('POST', back('/categories'), as(operator, { name: 'No type' }))).status).toBe(400);
    const created = await call('POST', back('/categories'), as(operator, body));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      enabled: true,
      poiCount: 0,
      images: body.images,
      defaultTranslationKeys: {},
    });
    categoryId = created.body.id;
  });

  test('POIs: required fields, PUT replaces, PATCH merges', async () => {
    const withoutAddress: Partial<ReturnType<typeof poiBody>> = poiBody();
    delete withoutAddress.address;
    expect((await call('POST', back('/pois'), as(operator, withoutAddress))).status).toBe(400);
    const created = await call(
      'POST',
      back('/pois'),
      as(operator, {
        ...poiBody(),
        city: 'Berlin',
        displayOnRental: true,
        translationKeys: { name: 'poi.jannowitz' },
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      city: 'Berlin',
      displayOnRental: true,
      position: poiBody().position,
    });
    poiId = created.body.id;
    expectError(
      await call(
        'PATCH',
        back(`/pois/${poiId}`),
        as(operator, { position: { type: 'Point', coordinates: [13.4, 152.5] } }),
      ),
      422,
      'GF100',
    );
    const patched = await call(
      'PATCH',
      back(`/pois/${poiId}`),
      as(operator, { phoneNumber: '+49 30 123456' }),
    );
    expect(patched.body).toMatchObject({ city: 'Berlin', phoneNumber: '+49 30 123456' });
    const replaced = await call(
      'PUT',
      back(`/pois/${poiId}`),
      as(operator, { ...poiBody(), url: 'https://example.com' }),
    );
    expect(replaced.body).toMatchObject({
      city: null,
      phoneNumber: null,
      displayOnRental: false,
      url: 'https://example.com',
    });
    expectError(
      await call('PATCH', back(`/pois/${poiId}`), as(operator, { categoryId: 2147483647 })),
      422,
      'POI100',
    );
    expectError(await call('PATCH', back(`/pois/${poiId}`), as(reader, { name: 'x' })), 403, 'AUTH002');
    expectError(
      await call('PATCH', back(`/pois/${poiId}`), as(operator, { branchId: seed.otherBranchId })),
      403,
      'AUTH002',
    );
    const listed = await call(
      'GET',
      back(`/pois?branchId=${seed.cityBranchId}&includeChildBranches=true&searchText=charging`),
      as(operator),
    );
    expect(listed.body.map((p: { id: number }) => p.id)).toEqual([poiId]);
  });

  test('a category in use cannot be deleted; disabling it hides its POIs from apps', async () => {
    expectError(await call('DELETE', back(`/categories/${categoryId}`), as(operator)), 409, 'POC409');
    const app = await stack.token(seed.tenant, demoAppClient);
    expect((await call('GET', stack.front(`/pois/${poiId}?app=true`), as(app))).status).toBe(200);
    expect((await call('GET', stack.front(`/pois/${poiId}`), as(app))).status).toBe(400);
    await call('PATCH', back(`/categories/${categoryId}`), as(operator, { enabled: false }));
    expectError(await call('GET', stack.front(`/pois/${poiId}?app=true`), as(app)), 404, 'POI404');
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/pois/${poiId}`, as(rivalOperator)),
      404,
      'POI404',
    );
    expect((await call('DELETE', back(`/pois/${poiId}`), as(operator))).status).toBe(204);
    expect((await call('DELETE', back(`/categories/${categoryId}`), as(operator))).status).toBe(204);
  });
});
