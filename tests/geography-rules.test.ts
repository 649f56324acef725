// The geofence rules without infrastructure: validation of GeoJSON MultiPolygons, and the policies,
// schedules and verdicts of the areas a position falls in (examples and properties).
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
import { multi, ring } from './support/geofences.js';

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
