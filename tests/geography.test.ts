// Geography: the geofence rules (pure), then branches, business units, areas and area types over HTTP
// (real PostgreSQL and the real app; every response validated against the OpenAPI document).
import fc from 'fast-check';
import {
  areasAt,
  geofenceContains,
  geofenceProblem,
  geofenceVerdict,
  policiesProblem,
  prepareAreas,
  scheduleInForce,
  type GeofenceArea,
  type GeofenceGeometry,
} from '../domain/geofence.js';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Area } from '../db/entities/Area.js';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Event } from '../db/entities/Event.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { connectVehicleToSlot } from '../db/docking.js';
import { loadBranchGeofence } from '../db/areas.js';
import { tenantEm } from '../db/orm.js';
import { demoAppClient, demoOperatorClient, type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import { uniqueTenant } from './support/stack.js';
import { expectError, startHttpStack, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { seedTenant } from '../composition/seed.js';

/** A rectangle [lng, lat] as one polygon's outer ring, counter-clockwise, closed. */
const ring = (west: number, south: number, east: number, north: number): number[][] => [
  [west, south],
  [east, south],
  [east, north],
  [west, north],
  [west, south],
];
const multi = (...polygons: number[][][][]): GeofenceGeometry => ({
  type: 'MultiPolygon',
  coordinates: polygons,
});

describe('geofence validation', () => {
  test('a valid MultiPolygon with a hole passes', () => {
    expect(geofenceProblem(multi([ring(0, 0, 10, 10), ring(4, 4, 6, 6)]))).toBeNull();
  });

  test.each([
    ['not a MultiPolygon', { type: 'Polygon', coordinates: [ring(0, 0, 1, 1)] }, 'NOT_A_MULTIPOLYGON'],
    ['no polygon', multi(), 'EMPTY'],
    ['open ring', multi([ring(0, 0, 1, 1).slice(0, 4)]), 'RING_NOT_CLOSED'],
    [
      'ring of three positions',
      multi([
        [
          [0, 0],
          [1, 0],
          [0, 0],
        ],
      ]),
      'RING_TOO_SHORT',
    ],
    ['longitude out of range', multi([ring(179, 0, 181, 1)]), 'COORDINATE_OUT_OF_RANGE'],
    ['latitude out of range', multi([ring(0, 89, 1, 91)]), 'COORDINATE_OUT_OF_RANGE'],
    ['a position of one number', multi([[[0, 0], [1], [1, 1], [0, 0]]]), 'INVALID_POSITION'],
    [
      'self-intersection (bow tie)',
      multi([
        [
          [0, 0],
          [10, 10],
          [10, 0],
          [0, 10],
          [0, 0],
        ],
      ]),
      'SELF_INTERSECTION',
    ],
    ['hole crossing its outer ring', multi([ring(0, 0, 10, 10), ring(8, 8, 12, 12)]), 'SELF_INTERSECTION'],
    [
      'a ring of one repeated position',
      multi([
        [
          [1, 1],
          [1, 1],
          [1, 1],
          [1, 1],
        ],
      ]),
      'DEGENERATE_RING',
    ],
    [
      'more than 5000 positions in all',
      multi(
        ...Array.from({ length: 2 }, () => [
          Array.from({ length: 3000 }, (_, i) => [i / 3000, (i % 2) / 10]).concat([[0, 0]]),
        ]),
      ),
      'TOO_MANY_POSITIONS',
    ],
  ])('%s is refused', (_name, geometry, reason) => {
    expect(geofenceProblem(geometry)).toMatchObject({ reason });
  });

  test('policies: one per type, capacity needs a limit', () => {
    expect(policiesProblem([{ type: 'NO_PARKING_POLICY' }, { type: 'NO_PARKING_POLICY' }])).toMatch(/twice/);
    expect(
      policiesProblem([{ type: 'END_RENTAL_CAPACITY_POLICY', applicableStates: ['AVAILABLE'] }]),
    ).toMatch(/needs overallCapacity/);
    expect(
      policiesProblem([
        { type: 'END_RENTAL_CAPACITY_POLICY', overallCapacity: 3, applicableStates: ['AVAILABLE'] },
      ]),
    ).toBeNull();
  });
});

describe('geofence policies', () => {
  const scooter = 1;
  const car = 2;
  const area = (id: string, geofence: GeofenceGeometry, policies: GeofenceArea['policies'], extra = {}) =>
    ({ id, status: 'ACTIVE', vehicleTypeIds: [], geofence, policies, ...extra }) as GeofenceArea;
  // A business area (0..10) with a hole (4..6), a no-end zone (8..12) across its east edge, a
  // no-parking strip (0..2 × 0..10) and speed limits; cars have their own business area further east.
  const areas = [
    area('business', multi([ring(0, 0, 10, 10), ring(4, 4, 6, 6)]), [{ type: 'ALLOW_END_RENTAL_POLICY' }], {
      vehicleTypeIds: [scooter],
    }),
    area('no-end', multi([ring(8, 8, 12, 12)]), [{ type: 'NO_END_RENTAL_POLICY' }]),
    area('no-parking', multi([ring(0, 0, 2, 10)]), [
      { type: 'NO_PARKING_POLICY' },
      {
        type: 'SPEED_LIMIT_POLICY',
        speedLimit: 15,
        speedLimitOverrides: [{ vehicleCategoryId: car, speedLimit: 30 }],
      },
    ]),
    area('city-speed', multi([ring(-50, -50, 50, 50)]), [{ type: 'SPEED_LIMIT_POLICY', speedLimit: 20 }]),
    area('car-business', multi([ring(20, 0, 30, 10)]), [{ type: 'ALLOW_END_RENTAL_POLICY' }], {
      vehicleTypeIds: [car],
    }),
    area('retired', multi([ring(0, 0, 10, 10)]), [{ type: 'NO_END_RENTAL_POLICY' }], { status: 'INACTIVE' }),
  ];
  const prepared = prepareAreas(areas);
  const at = (lng: number, lat: number, vehicleCategoryId = scooter) =>
    geofenceVerdict(prepared, { position: { lat, lng }, vehicleCategoryId });

  test.each([
    // [case, lng, lat, may end, refusal]
    ['interior of the business area', 3, 3, true, null],
    ['on the outer edge', 0, 3, true, null],
    ['on a vertex', 10, 0, true, null],
    ['inside the hole', 5, 5, false, 'OUTSIDE_END_RENTAL_AREA'],
    ['on the hole edge (the edge belongs to the polygon)', 4, 5, true, null],
    ['outside every area', 15, 3, false, 'OUTSIDE_END_RENTAL_AREA'],
    ['inside the no-end zone overlapping the business area', 9, 9, false, 'NO_END_RENTAL_AREA'],
    ['on the no-end zone edge (no-end wins)', 8, 9, false, 'NO_END_RENTAL_AREA'],
    ["in the cars' business area (not for scooters)", 25, 5, false, 'OUTSIDE_END_RENTAL_AREA'],
  ])('scooter %s', (_name, lng, lat, allowed, refusal) => {
    expect(at(lng, lat).endRental).toMatchObject({ allowed, refusal });
  });

  test('the inactive area never applies; areas of other categories are ignored', () => {
    expect(at(3, 3).areaIds).not.toContain('retired');
    expect(at(25, 5, car).endRental.allowed).toBe(true);
    expect(at(3, 3, car).endRental).toMatchObject({ allowed: false, refusal: 'OUTSIDE_END_RENTAL_AREA' });
  });

  test('no parking and the strictest speed limit, with category overrides', () => {
    expect(at(1, 5).noParking).toEqual({ forbidden: true, areaIds: ['no-parking'] });
    expect(at(1, 5).speedLimit).toEqual({ kmh: 15, areaId: 'no-parking' });
    // The car override (30) is laxer than the city limit (20): the stricter one holds.
    expect(at(1, 5, car).speedLimit).toEqual({ kmh: 20, areaId: 'city-speed' });
    expect(at(3, 3).noParking.forbidden).toBe(false);
    expect(at(60, 60).speedLimit).toBeNull();
  });

  test('a branch without allowing areas lets rentals end anywhere not forbidden', () => {
    const open = prepareAreas([
      area('no-end', multi([ring(0, 0, 1, 1)]), [{ type: 'NO_END_RENTAL_POLICY' }]),
    ]);
    expect(
      geofenceVerdict(open, { position: { lat: 5, lng: 5 }, vehicleCategoryId: 1 }).endRental.allowed,
    ).toBe(true);
    expect(
      geofenceVerdict(open, { position: { lat: 0.5, lng: 0.5 }, vehicleCategoryId: 1 }).endRental.refusal,
    ).toBe('NO_END_RENTAL_AREA');
  });

  test('capacity: the stricter of the overall and the category limit wins; only counted states count', () => {
    const hub = prepareAreas([
      area('hub', multi([ring(0, 0, 1, 1)]), [
        {
          type: 'END_RENTAL_CAPACITY_POLICY',
          overallCapacity: 3,
          applicableStates: ['AVAILABLE', 'PARKING'],
          capacityByCategories: [{ vehicleCategoryId: car, capacity: 1 }],
        },
      ]),
    ]);
    const parked = (lng: number, vehicleCategoryId: number, rentalState = 'AVAILABLE') => ({
      position: { lat: 0.5, lng },
      vehicleCategoryId,
      rentalState,
    });
    const ask = (vehicleCategoryId: number, otherVehicles: ReturnType<typeof parked>[]) =>
      geofenceVerdict(hub, { position: { lat: 0.5, lng: 0.5 }, vehicleCategoryId, otherVehicles }).endRental;
    expect(ask(scooter, [parked(0.2, scooter), parked(0.3, car)])).toMatchObject({ allowed: true });
    expect(ask(car, [parked(0.3, car)])).toMatchObject({ allowed: false, refusal: 'CAPACITY_REACHED' });
    expect(ask(scooter, [parked(0.2, scooter), parked(0.3, car), parked(0.4, scooter)]).allowed).toBe(false);
    // A vehicle being driven, or one outside the hub, takes no place.
    expect(ask(car, [parked(0.3, car, 'DRIVING'), parked(5, car)]).allowed).toBe(true);
  });

  test('schedules: local time of the branch, spans over midnight', () => {
    const night = { weekdays: ['FRIDAY'] as const, startTime: '22:00', endTime: '06:00' };
    expect(
      scheduleInForce({ ...night, weekdays: [...night.weekdays] }, { weekday: 'FRIDAY', minute: 23 * 60 }),
    ).toBe(true);
    expect(
      scheduleInForce({ ...night, weekdays: [...night.weekdays] }, { weekday: 'SATURDAY', minute: 3 * 60 }),
    ).toBe(true);
    expect(
      scheduleInForce({ ...night, weekdays: [...night.weekdays] }, { weekday: 'SATURDAY', minute: 7 * 60 }),
    ).toBe(false);
    const zone = prepareAreas([
      area('night', multi([ring(0, 0, 1, 1)]), [
        { type: 'NO_PARKING_POLICY', schedule: { ...night, weekdays: ['FRIDAY'] } },
      ]),
    ]);
    // Friday 21:30 UTC is 22:30 in Berlin (winter time).
    const query = (at: string) =>
      geofenceVerdict(zone, {
        position: { lat: 0.5, lng: 0.5 },
        vehicleCategoryId: 1,
        at: new Date(at),
        timeZoneId: 'Europe/Berlin',
      }).noParking.forbidden;
    expect(query('2026-11-27T21:30:00Z')).toBe(true);
    expect(query('2026-11-27T20:30:00Z')).toBe(false);
  });

  test('the prepared index finds exactly what a scan of every area finds', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -20, max: 40, noNaN: true }),
        fc.double({ min: -20, max: 40, noNaN: true }),
        (lng, lat) => {
          const expected = areas
            .filter((a) => a.status === 'ACTIVE' && geofenceContains(a.geofence, { lat, lng }))
            .map((a) => a.id);
          expect(areasAt(prepared, { lat, lng }).map((a) => a.id)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------

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
const as = (token: string, body?: unknown): CallOptions => ({
  token,
  ...(body === undefined ? {} : { body }),
});

beforeAll(async () => {
  stack = await startHttpStack();
  seed = stack.backend.seed;
  rival = await seedTenant(stack.backend.orm.em, uniqueTenant('rivalgeo'), 'Rival Geo');
  operator = await stack.token(seed.tenant, demoOperatorClient);
  rivalOperator = await stack.token(rival.tenant, demoOperatorClient);
  const em = tenantEm(stack.backend.orm, seed.tenant);
  const readerRole = em.create(Role, {
    name: 'Geo reader',
    permissions: ['BRANCH_READ', 'AREA_READ', 'STATION_READ', 'POI_READ'],
  });
  const client = em.create(ApiClient, {
    clientId: 'geo-reader',
    name: 'Geo reader',
    secretHash: await hashSecret('geo-reader-secret'),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role: readerRole,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: em.getReference(Branch, seed.branchId),
  });
  await em.flush();
  reader = await stack.token(seed.tenant, { clientId: 'geo-reader', clientSecret: 'geo-reader-secret' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('branches', () => {
  let childId: number;

  test('create below a parent, read with includeChildren, list with searchText and rootBranchId', async () => {
    const created = await call(
      'POST',
      back('/branches'),
      as(operator, {
        name: 'Berlin Mitte Nord',
        code: 'berlin-mitte-nord',
        parentId: seed.branchId,
        type: 'DISTRICT',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      parentId: seed.branchId,
      state: 'IN_PREPARATION',
      billableBranchId: seed.businessUnitId,
      currency: 'EUR',
      taxPercentage: '19.00',
      timeZoneId: 'Europe/Berlin',
    });
    childId = created.body.id;

    const city = await call('GET', back(`/branches/${seed.cityBranchId}?includeChildren=true`), as(operator));
    expect(city.status).toBe(200);
    expect(city.body.children.map((c: { id: number }) => c.id)).toEqual(
      expect.arrayContaining([seed.branchId, childId]),
    );
    const plain = await call('GET', back(`/branches/${seed.cityBranchId}`), as(operator));
    expect(plain.body.children).toBeUndefined();

    const listed = await call('GET', back('/branches?searchText=NORD'), as(operator));
    expect(listed.body.map((b: { id: number }) => b.id)).toEqual([childId]);
    expect(listed.headers.get('x-total-count')).toBe('1');
    // The operator holds no role on the sibling root branch (Spandau): it is not listed.
    const all = await call('GET', back('/branches-list'), as(operator));
    expect(all.body.map((b: { id: number }) => b.id)).not.toContain(seed.otherBranchId);
    const subtree = await call('GET', back(`/branches-list?rootBranchId=${seed.branchId}`), as(operator));
    expect(subtree.body.map((b: { id: number }) => b.id).sort()).toEqual([seed.branchId, childId].sort());
  });

  test('PUT replaces; a cycle or a taken code is refused', async () => {
    const current = (await call('GET', back(`/branches/${childId}`), as(operator))).body;
    const update = {
      name: 'Mitte Nord',
      code: current.code,
      parentId: seed.branchId,
      state: 'OPERATIONAL',
      type: null,
      operationMode: 'BOOKING',
      visibility: 'private',
      timeZoneId: 'Europe/Berlin',
      isBillable: false,
      billableBranchId: seed.businessUnitId,
      currency: 'CHF',
      taxPercentage: '8.10',
      contactInfo: { email: 'mitte@example.com' },
    };
    const replaced = await call('PUT', back(`/branches/${childId}`), as(operator, update));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ state: 'OPERATIONAL', currency: 'CHF', taxPercentage: '8.10' });
    expectError(
      await call(
        'PUT',
        back(`/branches/${seed.branchId}`),
        as(operator, { ...update, code: 'x-mitte', parentId: childId }),
      ),
      422,
      'B101',
    );
    expectError(
      await call(
        'PUT',
        back(`/branches/${childId}`),
        as(operator, { ...update, timeZoneId: 'Europe/Atlantis' }),
      ),
      422,
      'B105',
    );
    expectError(
      await call('PUT', back(`/branches/${childId}`), as(operator, { ...update, code: 'berlin' })),
      409,
      'B100',
    );
  });

  test('compatible branches keep isIncoming and isOutgoing apart', async () => {
    const put = await call(
      'PUT',
      back(`/branches/${seed.branchId}/compatible-branches`),
      as(operator, [
        { branchId: childId, isIncoming: true, isOutgoing: false },
        { branchId: seed.cityBranchId, isIncoming: false, isOutgoing: false },
      ]),
    );
    expect(put.status).toBe(200);
    expect(put.body).toEqual([{ branchId: childId, isIncoming: true, isOutgoing: false }]);
    const read = await call('GET', back(`/branches/${seed.branchId}/compatible-branches`), as(operator));
    expect(read.body).toEqual(put.body);
    expectError(
      await call(
        'PUT',
        back(`/branches/${seed.branchId}/compatible-branches`),
        as(operator, [{ branchId: seed.branchId, isIncoming: true, isOutgoing: true }]),
      ),
      422,
      'B104',
    );
  });

  test('every write is denied outside the caller’s branches; another tenant’s ids are not found', async () => {
    expectError(
      await call(
        'POST',
        back('/branches'),
        as(operator, { name: 'X', code: 'x-spandau', parentId: seed.otherBranchId }),
      ),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'POST',
        back('/branches'),
        as(reader, { name: 'X', code: 'x-reader', parentId: seed.branchId }),
      ),
      403,
      'AUTH002',
    );
    expectError(await call('GET', back(`/branches/${rival.branchId}`), as(operator)), 404, 'B404');
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/branches/${seed.branchId}`, as(rivalOperator)),
      404,
      'B404',
    );
    expectError(
      await call('PUT', back(`/branches/${seed.otherBranchId}/compatible-branches`), as(operator, [])),
      403,
      'AUTH002',
    );
  });
});

describe('business units', () => {
  const unitBody = {
    code: 'MUC',
    name: 'Demo Mobility München',
    timeZoneId: 'Europe/Berlin',
    currency: 'EUR',
    taxPercentage: '19.00',
  };

  test('create needs BUSINESS_UNIT_CREATE; read, patch, replace through /branches/billable', async () => {
    expectError(await call('POST', back('/business-units'), as(reader, unitBody)), 403, 'AUTH002');
    const created = await call(
      'POST',
      back('/business-units'),
      as(operator, { ...unitBody, reserveAmountOnCc: '50.00', scale: 2 }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ code: 'MUC', reserveAmountOnCc: '50.00', branchCount: 0 });
    expectError(await call('POST', back('/business-units'), as(operator, unitBody)), 409, 'B103');
    const id = created.body.id;
    // The creator holds finance roles only on the demo unit: the new unit is not theirs yet.
    expectError(await call('GET', back(`/business-units/${id}`), as(operator)), 403, 'AUTH002');

    const patched = await call(
      'PATCH',
      back(`/business-units/${seed.businessUnitId}`),
      as(operator, { sepaHandlingFeeNet: '0.35', contactInfo: { phoneNumber: '+49301234567' } }),
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ sepaHandlingFeeNet: '0.35', code: 'BER', currency: 'EUR' });

    const billable = await call(
      'PUT',
      back(`/branches/billable/${seed.businessUnitId}`),
      as(operator, {
        code: 'BER',
        name: 'Demo Mobility Berlin GmbH',
        timeZoneId: 'Europe/Berlin',
        currency: 'EUR',
        taxPercentage: '19.00',
      }),
    );
    expect(billable.status).toBe(200);
    expect(billable.body.sepaHandlingFeeNet).toBeNull();

    const list = await call('GET', back('/business-units?searchText=berlin'), as(operator));
    expect(list.body.map((u: { id: number }) => u.id)).toEqual([seed.businessUnitId]);
  });

  test('a referenced unit cannot be deleted (B102); an unreferenced one can', async () => {
    expectError(
      await call('DELETE', back(`/business-units/${seed.businessUnitId}`), as(operator)),
      409,
      'B102',
    );
    // A fresh unit the operator is granted finance rights on, referenced by nothing but that grant.
    const em = tenantEm(stack.backend.orm, seed.tenant);
    const unit = em.create(BusinessUnit, {
      code: 'TMP',
      name: 'Temporary',
      timeZoneId: 'UTC',
      currency: 'EUR',
      taxPercentage: '0.00',
    });
    await em.flush();
    expectError(await call('DELETE', back(`/business-units/${unit.id}`), as(operator)), 403, 'AUTH002');
    const finance = await em.findOneOrFail(Role, { name: 'Finance' });
    em.create(RoleAssignment, {
      role: finance,
      subjectType: 'API_CLIENT',
      subjectId: demoOperatorClient.clientId,
      businessUnit: unit,
    });
    await em.flush();
    // Grants on the unit go with it; nothing else references it.
    expect((await call('DELETE', back(`/business-units/${unit.id}`), as(operator))).status).toBe(204);
    expect(await em.fork().count(RoleAssignment, { businessUnit: unit.id })).toBe(0);
    expectError(
      await call('GET', back(`/business-units/${rival.businessUnitId + 1000}`), as(operator)),
      404,
      'B405',
    );
  });
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

describe('app interface', () => {
  test('branches: public ones in service; intersectable ones with contact details', async () => {
    const app = await stack.token(seed.tenant, demoAppClient);
    const branches = await call('GET', stack.front('/branches?searchText=berlin'), as(app));
    expect(branches.status).toBe(200);
    const names = branches.body.map((b: { name: string }) => b.name);
    expect(names).toContain('Berlin Mitte');
    // The branch created in preparation and made private above is not shown.
    expect(names).not.toContain('Mitte Nord');
    await call(
      'PUT',
      back(`/branches/${seed.branchId}/compatible-branches`),
      as(operator, [{ branchId: seed.cityBranchId, isIncoming: true, isOutgoing: true }]),
    );
    const intersectable = await call('GET', stack.front(`/branches/${seed.branchId}/intersectable`), as(app));
    expect(intersectable.body).toEqual([
      expect.objectContaining({
        id: seed.cityBranchId,
        isIncoming: true,
        isOutgoing: true,
        contactInfo: expect.objectContaining({ email: 'berlin@example.com' }),
      }),
    ]);
    expectError(
      await call('GET', stack.front(`/branches/${rival.branchId}/intersectable`), as(app)),
      404,
      'B404',
    );
  });

  test('physical stations: only those open to customers', async () => {
    const app = await stack.token(seed.tenant, demoAppClient);
    const before = await call('GET', stack.front(`/physical-stations?branchId=${seed.branchId}`), as(app));
    const station = await call(
      'POST',
      back('/physical-stations'),
      as(operator, {
        branchId: seed.branchId,
        name: 'Open dock',
        position: { lat: 52.52, lng: 13.4 },
        state: 'OPERATIONAL',
      }),
    );
    const after = await call('GET', stack.front(`/physical-stations?branchId=${seed.branchId}`), as(app));
    expect(after.body.map((s: { id: number }) => s.id)).toContain(station.body.id);
    expect(after.body.length).toBe(before.body.length + 1);
    expect(after.headers.get('x-total-count')).toBe(String(after.body.length));
  });
});

describe('demo geography', () => {
  test('the seeded areas are valid and put the seeded fleet where Berlin has it', async () => {
    const em = tenantEm(stack.backend.orm, seed.tenant);
    const areas = await em.find(Area, { tags: { $contains: ['demo'] } });
    expect(areas).toHaveLength(2);
    for (const area of areas) expect(geofenceProblem(area.geofence)).toBeNull();
    const geofence = await loadBranchGeofence(em, seed.tenant, seed.branchId);
    const scooter = await em.findOneOrFail(Vehicle, { code: 'SC-001' });
    const at = (lat: number, lng: number) =>
      geofenceVerdict(geofence, { position: { lat, lng }, vehicleCategoryId: scooter.category.id });
    // Alexanderplatz: inside the pedestrian zone; Hackescher Markt: a fine place to end; Kottbusser Tor: outside.
    expect(at(52.521918, 13.413215)).toMatchObject({
      noParking: { forbidden: true },
      endRental: { refusal: 'NO_END_RENTAL_AREA' },
    });
    expect(at(52.52249, 13.40228)).toMatchObject({ endRental: { allowed: true }, speedLimit: { kmh: 20 } });
    expect(at(52.49906, 13.41812).endRental.refusal).toBe('OUTSIDE_END_RENTAL_AREA');
    const car = await em.findOneOrFail(Vehicle, { code: 'B-FF 1002' });
    expect(
      geofenceVerdict(geofence, {
        position: { lat: 52.52249, lng: 13.40228 },
        vehicleCategoryId: car.category.id,
      }).speedLimit?.kmh,
    ).toBe(30);
  });
});
