// Booking stations and availability searches against real PostgreSQL: the operator's availability days,
// drop-off slots, categories, cooldowns and utilization; booking station configuration, the capacity
// forecast with an out-of-order vehicle, station vehicles without outbound ones in cooldown, conflicts
// and branch-scope denials; the app's searches. Bookings are inserted as rows (the booking workflow is
// another domain's).
import { BookingStation } from '../db/entities/BookingStation.js';
import { Branch } from '../db/entities/Branch.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { expectError, type HttpStack } from './support/http.js';
import {
  iso,
  local,
  MINUTE,
  startBookingAvailabilitySession,
  zone,
  type BookingAvailabilitySession,
  type HoldingBooking,
} from './support/booking-availability.js';

let session: BookingAvailabilitySession;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let appClient: string;
let annaToken: string;
let carsId: number;
let hbf: number;
let ost: number;
let hbfCars: number[];

const em = () => tenantEm(stack.backend.orm, seed.tenant);
const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const insertBooking = (options: HoldingBooking) => session.insertBooking(options);

beforeAll(async () => {
  session = await startBookingAvailabilitySession();
  ({
    stack,
    seed,
    rival,
    operatorToken: operator,
    appClientToken: appClient,
    annaToken,
    carsId,
    hbf,
    ost,
    hbfCars,
  } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('operator searches', () => {
  it('answers availability days per category', async () => {
    await insertBooking({ branchId: ost, startMs: local(25, '08:00'), endMs: local(25, '20:00') });
    const from = new Date(local(25, '12:00')).toISOString().slice(0, 10);
    const to = new Date(local(26, '12:00')).toISOString().slice(0, 10);
    const reply = await call('GET', back(`/bookings/availability?branchId=${ost}&from=${from}&to=${to}`), {
      token: operator,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(2);
    const [busy, free] = reply.body;
    expect(busy).toMatchObject({ date: from, open: true });
    expect(busy.categories).toContainEqual(
      expect.objectContaining({
        vehicleCategoryId: carsId,
        vehicles: 1,
        bookableForWholeDay: 0,
        bookableAtSomeTime: 1,
        available: true,
      }),
    );
    expect(
      free.categories.find((c: { vehicleCategoryId: number }) => c.vehicleCategoryId === carsId),
    ).toMatchObject({ bookableForWholeDay: 1, available: true });
    expect(busy.openFrom).toBe(iso(local(25, '06:00')));
    expectError(
      await call('GET', back(`/bookings/availability?branchId=${ost}&from=${to}&to=${from}`), {
        token: operator,
      }),
      422,
      'B317',
    );
    expectError(
      await call('GET', back(`/bookings/availability?branchId=${ost}&from=2026-02-30&to=2026-03-02`), {
        token: operator,
      }),
      400,
      '0022',
    );
    expectError(
      await call('GET', back(`/bookings/availability?branchId=${seed.branchId}&from=${from}&to=${to}`), {
        token: operator,
      }),
      422,
      'B315',
    );
  });

  it('offers drop-off slots at the end station with their conflicts', async () => {
    const start = local(27, '20:00');
    const reply = await call('POST', back('/bookings/available-dropoff-time-slots'), {
      token: operator,
      body: {
        branchId: hbf,
        endBranchId: ost,
        vehicleCategoryId: carsId,
        bookingStartTime: iso(start),
        until: iso(local(28, '07:00')),
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.slotMinutes).toBe(30);
    const slots = reply.body.slots as Array<{
      endTime: string;
      available: boolean;
      conflicts: Array<{ conflictType: string }>;
    }>;
    expect(slots[0]!.endTime).toBe(iso(start + 30 * MINUTE));
    const at = (ms: number) => slots.find((slot) => slot.endTime === iso(ms))!;
    expect(at(local(27, '23:00')).available).toBe(true);
    expect(at(local(27, '23:30')).conflicts.map((c) => c.conflictType)).toEqual(['STATION_CLOSED']);
    expect(at(local(28, '06:30')).available).toBe(true);
    // A one-way arrival at 06:00 fills Ostbahnhof: later returns there hit its capacity.
    await insertBooking({
      branchId: hbf,
      endBranchId: ost,
      startMs: local(27, '10:00'),
      endMs: local(28, '06:00'),
    });
    const again = await call('POST', back('/bookings/available-dropoff-time-slots'), {
      token: operator,
      body: {
        branchId: hbf,
        endBranchId: ost,
        vehicleCategoryId: carsId,
        bookingStartTime: iso(start),
        until: iso(local(28, '07:00')),
      },
    });
    const later = (again.body.slots as typeof slots).find(
      (slot) => slot.endTime === iso(local(28, '06:30')),
    )!;
    expect(later.conflicts.map((c) => c.conflictType)).toEqual(['STATION_CAPACITY_EXCEEDED']);
  });

  it('lists available and bookable categories, cooldowns and utilization', async () => {
    const window = `startTime=${iso(local(29, '10:00'))}&endTime=${iso(local(29, '12:00'))}`;
    const available = await call('GET', back(`/bookings/available-categories?branchId=${hbf}&${window}`), {
      token: operator,
    });
    expect(available.status).toBe(200);
    // Demo cars have BOOKING pricing on the city branch; scooters are not offered at booking stations without it.
    expect(available.body).toEqual([expect.objectContaining({ id: carsId, availableVehicles: 3 })]);
    const bookable = await call('GET', back(`/bookings/bookable-categories?branchId=${hbf}`), {
      token: operator,
    });
    expect(bookable.body.map((c: { id: number }) => c.id)).toEqual([carsId]);
    const unfiltered = await call(
      'GET',
      back(`/bookings/bookable-categories?branchId=${hbf}&includeWithPricingOnly=false`),
      { token: operator },
    );
    expect(unfiltered.body.length).toBeGreaterThan(1);
    const cooldowns = await call(
      'GET',
      back(`/bookings/cooldowns?branchId=${hbf}&endBranchId=${ost}&vehicleCategoryId=${carsId}`),
      {
        token: operator,
      },
    );
    expect(cooldowns.body).toEqual({
      branchId: hbf,
      endBranchId: ost,
      vehicleCategoryId: carsId,
      startStationCooldown: 15,
      endStationCooldown: 30,
    });
    await insertBooking({ branchId: hbf, startMs: local(30, '10:00'), endMs: local(30, '12:00') });
    const usage = await call(
      'GET',
      back(
        `/bookings/utilization?branchId=${seed.cityBranchId}&from=${iso(local(30, '00:00'))}&to=${iso(local(31, '00:00'))}`,
      ),
      { token: operator },
    );
    expect(usage.status).toBe(200);
    expect(usage.body).toContainEqual(
      expect.objectContaining({
        branchId: hbf,
        vehicleCategoryId: carsId,
        vehicles: 3,
        bookings: 1,
        heldHours: 2.75,
        availableHours: 72,
      }),
    );
  });
});

describe('booking stations', () => {
  let stationId: number;
  let brokenCar: number;

  beforeAll(async () => {
    const tx = em();
    const city = await tx.findOneOrFail(Branch, seed.cityBranchId);
    const branch = tx.create(Branch, {
      name: 'Südkreuz',
      code: 'berlin-suedkreuz',
      parent: city,
      businessUnit: city.businessUnit,
      timeZoneId: zone,
    });
    await tx.flush();
    stationId = branch.id;
    const car = (index: number, serviceStateV2: Vehicle['serviceStateV2']) =>
      tx.create(Vehicle, {
        code: `B-SK ${index}`,
        licensePlate: `B-SK ${index}`,
        branch,
        category: tx.getReference(VehicleCategory, carsId),
        serviceStateV2,
      });
    car(1, 'FUNCTIONAL');
    brokenCar = car(2, 'SERVICE_WORKSHOP').id ?? 0;
    await tx.flush();
    brokenCar = (await tx.findOneOrFail(Vehicle, { code: 'B-SK 2' })).id;
  });

  it('makes a branch a booking station and configures it (BOOKING_STATION_MANAGE)', async () => {
    const body = {
      capacity: 3,
      openingHours: { '1': [{ from: '07:00', to: '20:00' }] },
      vehicleCategoryIds: [carsId],
      startCooldownMinutes: 10,
      endCooldownMinutes: 20,
      categoryCooldowns: { [String(carsId)]: { endCooldownMinutes: 45 } },
    };
    const reply = await call('PUT', back(`/booking-stations/${stationId}`), { token: operator, body });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: stationId,
      capacity: 3,
      vehiclesNow: 2,
      expectedVehicles: 2,
      vehicleCategoryIds: [carsId],
    });
    expect((await em().findOneOrFail(Branch, stationId)).operationMode).toBe('BOOKING');
    const list = await call('GET', back(`/booking-stations?branchId=${seed.cityBranchId}`), {
      token: operator,
    });
    expect(list.body.map((s: { id: number }) => s.id)).toEqual(expect.arrayContaining([hbf, ost, stationId]));
    const cooldowns = await call(
      'GET',
      back(`/bookings/cooldowns?branchId=${stationId}&vehicleCategoryId=${carsId}`),
      { token: operator },
    );
    expect(cooldowns.body).toMatchObject({ startStationCooldown: 10, endStationCooldown: 45 });
    const categories = await call('GET', back(`/booking-stations/${stationId}/vehicle-categories`), {
      token: operator,
    });
    expect(categories.body).toEqual([
      expect.objectContaining({ id: carsId, vehicles: 2, operationalVehicles: 1, endCooldownMinutes: 45 }),
    ]);
    // Invalid hours, unknown categories.
    expectError(
      await call('PUT', back(`/booking-stations/${stationId}`), {
        token: operator,
        body: { openingHours: { '1': [{ from: '09:00', to: '08:00' }] } },
      }),
      422,
      'S102',
    );
    expectError(
      await call('PUT', back(`/booking-stations/${stationId}`), {
        token: operator,
        body: { vehicleCategoryIds: [2147483000] },
      }),
      404,
      'VC404',
    );
    await call('PUT', back(`/booking-stations/${stationId}`), {
      token: operator,
      body: { ...body, openingHours: null },
    });
  });

  it('forecasts occupancy with out-of-order vehicles taking space', async () => {
    await insertBooking({
      branchId: hbf,
      endBranchId: stationId,
      startMs: local(32, '08:00'),
      endMs: local(32, '10:00'),
    });
    const reply = await call(
      'GET',
      back(
        `/booking-stations/${stationId}/capacity-forecast?activeWithin=${iso(local(32, '09:00'))}&activeWithin=${iso(local(32, '11:00'))}`,
      ),
      { token: operator },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.points).toEqual([
      {
        at: iso(local(32, '09:00')),
        expectedVehicles: 1,
        occupiedCapacity: 2,
        outOfOrderVehicles: 1,
        freeCapacity: 1,
      },
      {
        at: iso(local(32, '10:00')),
        expectedVehicles: 2,
        occupiedCapacity: 3,
        outOfOrderVehicles: 1,
        freeCapacity: 0,
      },
      {
        at: iso(local(32, '11:00')),
        expectedVehicles: 2,
        occupiedCapacity: 3,
        outOfOrderVehicles: 1,
        freeCapacity: 0,
      },
    ]);
    expectError(
      await call(
        'GET',
        back(`/booking-stations/${stationId}/capacity-forecast?activeWithin=${iso(local(32, '09:00'))}`),
        { token: operator },
      ),
      400,
      '0022',
    );
  });

  it('lists station vehicles without the ones leaving whose hold (cooldowns included) overlaps', async () => {
    const car = hbfCars[1]!;
    await insertBooking({
      branchId: hbf,
      vehicleId: car,
      startMs: local(33, '10:00'),
      endMs: local(33, '12:00'),
    });
    const ids = async (from: number, to: number) =>
      (
        await call(
          'GET',
          back(`/booking-stations/${hbf}/vehicles?activeWithin=${iso(from)}&activeWithin=${iso(to)}`),
          { token: operator },
        )
      ).body.map((v: { id: number }) => v.id);
    expect(await ids(local(33, '11:00'), local(33, '11:30'))).not.toContain(car);
    expect(await ids(local(33, '12:10'), local(33, '12:20'))).not.toContain(car); // only its end cooldown overlaps
    expect(await ids(local(33, '12:30'), local(33, '13:00'))).toContain(car);
    const all = await call('GET', back(`/booking-stations/${hbf}/vehicles`), { token: operator });
    expect(all.headers.get('x-total-count')).toBe('3');
  });

  it('reports conflicts among existing bookings: a delivered car out of order, hours changed', async () => {
    await insertBooking({
      branchId: stationId,
      vehicleId: brokenCar,
      startMs: local(34, '10:00'),
      endMs: local(34, '12:00'),
      state: 'DELIVERED',
    });
    const reply = await call(
      'GET',
      back(
        `/booking-stations/${stationId}/conflicts?activeWithin=${iso(local(34, '00:00'))}&activeWithin=${iso(local(35, '00:00'))}`,
      ),
      { token: operator },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.map((c: { conflictType: string }) => c.conflictType)).toContain('VEHICLE_UNAVAILABLE');
    expectError(
      await call('DELETE', back(`/booking-stations/${stationId}`), { token: operator }),
      409,
      'S103',
    );
  });

  it('denies stations outside the caller’s branches and answers unknown ones with S404', async () => {
    const tx = em();
    tx.create(BookingStation, { branch: tx.getReference(Branch, seed.otherBranchId) });
    await tx.flush();
    expectError(
      await call('PUT', back(`/booking-stations/${seed.otherBranchId}`), { token: operator, body: {} }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/booking-stations/${seed.otherBranchId}/vehicles`), { token: operator }),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'GET',
        back(`/bookings/availability?branchId=${seed.otherBranchId}&from=2030-01-01&to=2030-01-02`),
        { token: operator },
      ),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back('/bookings/availability/validate'), {
        token: operator,
        body: {
          branchId: seed.otherBranchId,
          vehicleCategoryId: carsId,
          startTime: iso(local(40, '10:00')),
          endTime: iso(local(40, '12:00')),
        },
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'GET',
        back(
          `/booking-stations/${seed.branchId}/conflicts?activeWithin=2030-01-01T00:00:00Z&activeWithin=2030-01-02T00:00:00Z`,
        ),
        { token: operator },
      ),
      404,
      'S404',
    );
    // Another tenant's station is unknown here.
    expectError(
      await call('GET', back(`/booking-stations/${rival.bookingStationIds[0]}`), { token: operator }),
      404,
      'S404',
    );
    expectError(
      await call('GET', front(`/bookings/bookable-categories?branchId=${rival.bookingStationIds[0]}`), {
        token: appClient,
      }),
      404,
      'S404',
    );
  });
});

describe('app searches', () => {
  it('lists cities, available stations and drop-off stations', async () => {
    const cities = await call('GET', front('/bookings/cities'), { token: appClient });
    expect(cities.body).toEqual([
      expect.objectContaining({ id: seed.cityBranchId, stations: expect.any(Number) }),
    ]);
    const window = { startTime: iso(local(41, '10:00')), endTime: iso(local(41, '12:00')) };
    const stations = await call('POST', front('/bookings/available-stations'), {
      token: annaToken,
      body: { ...window, cityId: seed.cityBranchId },
    });
    expect(stations.status).toBe(200);
    expect(stations.body.map((s: { station: { id: number } }) => s.station.id)).toEqual(
      expect.arrayContaining([hbf, ost]),
    );
    const viaQuery = await call(
      'GET',
      front(`/bookings/available-stations?startTime=${window.startTime}&endTime=${window.endTime}`),
      { token: appClient },
    );
    expect(viaQuery.body.length).toBe(stations.body.length);
    const dropoff = await call(
      'GET',
      front(`/bookings/dropoff-stations?branchId=${hbf}&endTime=${iso(local(41, '23:30'))}`),
      { token: annaToken },
    );
    const ids = dropoff.body.map((s: { station: { id: number } }) => s.station.id);
    expect(ids).toContain(hbf);
    expect(ids).not.toContain(ost); // closed at 23:30
    const slots = await call('POST', front('/bookings/available-dropoff-time-slots'), {
      token: annaToken,
      body: { branchId: hbf, vehicleCategoryId: carsId, bookingStartTime: window.startTime },
    });
    expect(slots.status).toBe(200);
    expect(slots.body.slots.length).toBe(48); // every 30 minutes up to 24 hours after the start
    const days = await call(
      'GET',
      front(`/bookings/availability?branchId=${hbf}&from=2030-01-01&to=2030-01-03`),
      { token: annaToken },
    );
    expect(days.body).toHaveLength(3);
    expectError(
      await call(
        'GET',
        front(`/bookings/availability?branchId=${seed.branchId}&from=2030-01-01&to=2030-01-03`),
        { token: annaToken },
      ),
      404,
      'S404',
    );
  });
});
