// Booking availability: the pure station clocks and flows, admission (capacity S100, opening hours S101,
// cooldown overlaps CD100, B302/B303), validation excluding the booking itself, drop-off slots, the
// capacity forecast with an out-of-order vehicle, station vehicles without outbound ones in cooldown,
// station configuration, the app's searches, branch-scope denials and hostile input. Bookings are
// inserted as rows (the booking workflow is another domain's).
import { Booking } from '../db/entities/Booking.js';
import { BookingStation } from '../db/entities/BookingStation.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { tenantEm } from '../db/orm.js';
import { checkBookingAdmission, heldWindow } from '../db/booking-availability.js';
import { demoAppClient, demoOperatorClient, type SeededTenant } from '../db/seed.js';
import { demoCustomer } from '../db/seed/customers.js';
import {
  expectedVehicles,
  isOpenAt,
  localClock,
  openingHoursProblems,
  poolRemaining,
  zonedInstant,
  type BookingState,
} from '../domain/booking.js';
import { isDomainError } from '../domain/errors.js';
import { uniqueTenant } from './support/stack.js';
import { expectError, startHttpStack, type HttpStack } from './support/http.js';
import { seedTenant } from '../composition/seed.js';

const MINUTE = 60_000;
const zone = 'Europe/Berlin';

describe('station clocks and flows (pure)', () => {
  it('converts local wall-clock times across daylight saving', () => {
    // 2026-03-29: Berlin moves from +01:00 to +02:00 at 02:00 local.
    expect(new Date(zonedInstant('2026-03-28', 12 * 60, zone)).toISOString()).toBe(
      '2026-03-28T11:00:00.000Z',
    );
    expect(new Date(zonedInstant('2026-03-30', 12 * 60, zone)).toISOString()).toBe(
      '2026-03-30T10:00:00.000Z',
    );
    expect(new Date(zonedInstant('2026-10-26', 0, zone)).toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(localClock(Date.parse('2026-07-01T21:30:00Z'), zone)).toEqual({
      date: '2026-07-01',
      weekday: 3,
      minutes: 23 * 60 + 30,
    });
    // An unknown zone reads as UTC rather than failing.
    expect(localClock(Date.parse('2026-07-01T21:30:00Z'), 'Mars/Olympus').minutes).toBe(21 * 60 + 30);
  });

  it('decides pickups and returns against opening hours', () => {
    const hours = { '3': [{ from: '06:00', to: '23:00' }], '4': [{ from: '00:00', to: '24:00' }] };
    const at = (iso: string) => Date.parse(iso);
    expect(isOpenAt(hours, zone, at('2026-07-01T04:00:00Z'), 'pickup')).toBe(true); // 06:00 local
    expect(isOpenAt(hours, zone, at('2026-07-01T03:59:00Z'), 'pickup')).toBe(false);
    expect(isOpenAt(hours, zone, at('2026-07-01T21:00:00Z'), 'pickup')).toBe(false); // 23:00: closes
    expect(isOpenAt(hours, zone, at('2026-07-01T21:00:00Z'), 'return')).toBe(true); // return at closing
    expect(isOpenAt(hours, zone, at('2026-07-02T22:00:00Z'), 'return')).toBe(true); // Fri 00:00 = Thu 24:00
    expect(isOpenAt(hours, zone, at('2026-07-03T10:00:00Z'), 'pickup')).toBe(false); // Friday: closed
    expect(isOpenAt(null, zone, at('2026-07-03T10:00:00Z'), 'pickup')).toBe(true);
    expect(openingHoursProblems({ '1': [{ from: '10:00', to: '09:00' }] })).toHaveLength(1);
    expect(
      openingHoursProblems({
        '1': [
          { from: '08:00', to: '12:00' },
          { from: '11:00', to: '13:00' },
        ],
      }),
    ).toHaveLength(1);
    expect(openingHoursProblems({ '1': [{ from: '08:00', to: '24:00' }] })).toEqual([]);
  });

  it('counts expected vehicles from now on, with the peak after a return', () => {
    const flows = [
      { bookingId: 1, atMs: 100, delta: 1 as const },
      { bookingId: 2, atMs: 200, delta: -1 as const },
      { bookingId: 3, atMs: 300, delta: 1 as const },
      { bookingId: 4, atMs: 400, delta: 1 as const },
    ];
    expect(expectedVehicles(1, flows, 150)).toEqual({ atMs: 2, peakAfter: 3 });
    expect(expectedVehicles(1, flows, 150, 4)).toEqual({ atMs: 2, peakAfter: 2 });
    expect(expectedVehicles(1, flows, 50)).toEqual({ atMs: 1, peakAfter: 3 });
  });

  it('serves a pool: named holds take their vehicle, vehicle-less ones the peak', () => {
    const holds = [
      { bookingId: 1, vehicleId: 10, startMs: 0, endMs: 100 },
      { bookingId: 2, vehicleId: null, startMs: 50, endMs: 150 },
      { bookingId: 3, vehicleId: null, startMs: 120, endMs: 200 },
    ];
    expect(poolRemaining([10, 11, 12], holds, { startMs: 60, endMs: 130 }).remaining).toBe(0);
    expect(poolRemaining([10, 11, 12], holds, { startMs: 160, endMs: 180 }).remaining).toBe(2);
    expect(poolRemaining([10, 11, 12], holds, { startMs: 60, endMs: 130 }, 2).remaining).toBe(1);
  });
});

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
let otherCustomerId: number;

const em = () => tenantEm(stack.backend.orm, seed.tenant);
const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);

/** A local time `days` ahead (Berlin), as epoch ms: each test uses its own day. */
const local = (days: number, hhmm: string) => {
  const date = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return zonedInstant(date, h * 60 + m, zone);
};
const iso = (ms: number) => new Date(ms).toISOString();

/** Inserts a holding booking row the way the booking workflow's activity would (hold from the stations' cooldowns). */
async function insertBooking(options: {
  branchId: number;
  endBranchId?: number;
  vehicleId?: number;
  startMs: number;
  endMs: number;
  state?: BookingState;
  customerId?: number;
}): Promise<number> {
  const tx = em();
  const [row] = await tx.execute<Array<{ id: string }>>(`select nextval('booking_id_seq') as id`);
  const id = Number(row!.id);
  const endBranchId = options.endBranchId ?? options.branchId;
  const { held, cooldowns } = await heldWindow(tx, {
    startMs: options.startMs,
    endMs: options.endMs,
    branchId: options.branchId,
    endBranchId,
    vehicleCategoryId: carsId,
  });
  tx.create(Booking, {
    id,
    workflowId: `booking:${seed.tenant}:${id}`,
    state: options.state ?? 'BOOKED',
    customer: tx.getReference(Customer, options.customerId ?? seed.customerIds[0]!),
    branch: tx.getReference(Branch, options.branchId),
    endBranch: tx.getReference(Branch, endBranchId),
    vehicleCategory: tx.getReference(VehicleCategory, carsId),
    vehicle: options.vehicleId ? tx.getReference(Vehicle, options.vehicleId) : null,
    startTime: new Date(options.startMs),
    endTime: new Date(options.endMs),
    startStationCooldown: cooldowns.startStationCooldownMinutes,
    endStationCooldown: cooldowns.endStationCooldownMinutes,
    heldFrom: new Date(held.startMs),
    heldUntil: new Date(held.endMs),
  });
  await tx.flush();
  return id;
}

/** Runs admission for a window in its own transaction; answers the refusal code or 'OK'. */
async function admit(options: {
  branchId: number;
  endBranchId?: number;
  vehicleId?: number;
  startMs: number;
  endMs: number;
  excludeBookingId?: number;
}): Promise<string> {
  try {
    await stack.backend.orm.em.fork().transactional(async (tx) => {
      tx.setFilterParams('tenant', { tenantId: seed.tenant });
      const endBranchId = options.endBranchId ?? options.branchId;
      const window = { startMs: options.startMs, endMs: options.endMs };
      const { held } = await heldWindow(tx, {
        ...window,
        branchId: options.branchId,
        endBranchId,
        vehicleCategoryId: carsId,
      });
      await checkBookingAdmission(tx, {
        tenant: seed.tenant,
        branchId: options.branchId,
        endBranchId,
        window,
        vehicleCategoryId: carsId,
        vehicleId: options.vehicleId,
        held,
        excludeBookingId: options.excludeBookingId,
      });
    });
    return 'OK';
  } catch (error) {
    if (isDomainError(error)) return error.code;
    throw error;
  }
}

beforeAll(async () => {
  stack = await startHttpStack();
  seed = stack.backend.seed;
  rival = await seedTenant(stack.backend.orm.em, uniqueTenant('rival'), 'Rival Mobility');
  operator = await stack.token(seed.tenant, demoOperatorClient);
  appClient = await stack.token(seed.tenant, demoAppClient);
  const signIn = await call('POST', `/v1/${seed.tenant}/auth/customer/sign-in`, { body: demoCustomer });
  annaToken = signIn.body.access_token;
  [hbf, ost] = seed.bookingStationIds;
  const tx = em();
  carsId = (await tx.findOneOrFail(VehicleCategory, { name: 'Compact car' })).id;
  hbfCars = (await tx.find(Vehicle, { branch: hbf }, { orderBy: { id: 'asc' } })).map(
    (vehicle) => vehicle.id,
  );
  const anna = await tx.findOneOrFail(Customer, { email: demoCustomer.email });
  otherCustomerId = seed.customerIds.find((id) => id !== anna.id)!;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('admission', () => {
  it('refuses a one-way return that would overfill the end station (S100), counting later arrivals', async () => {
    // Ostbahnhof: capacity 2, one car there. A first one-way arrival fills it.
    const first = await insertBooking({
      branchId: hbf,
      endBranchId: ost,
      startMs: local(20, '09:00'),
      endMs: local(20, '12:00'),
    });
    expect(
      await admit({
        branchId: hbf,
        endBranchId: ost,
        startMs: local(20, '13:00'),
        endMs: local(20, '15:00'),
      }),
    ).toBe('S100');
    // An earlier arrival is refused too: the space is taken from the first arrival on.
    expect(
      await admit({
        branchId: hbf,
        endBranchId: ost,
        startMs: local(20, '07:00'),
        endMs: local(20, '08:00'),
      }),
    ).toBe('S100');
    // Excluding the booking itself (its own update) frees its space.
    expect(
      await admit({
        branchId: hbf,
        endBranchId: ost,
        startMs: local(20, '09:00'),
        endMs: local(20, '12:30'),
        excludeBookingId: first,
      }),
    ).toBe('OK');
    const reply = await call('POST', back('/bookings/availability/validate'), {
      token: operator,
      body: {
        branchId: hbf,
        endBranchId: ost,
        vehicleCategoryId: carsId,
        startTime: iso(local(20, '13:00')),
        endTime: iso(local(20, '15:00')),
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.valid).toBe(false);
    expect(reply.body.conflicts).toEqual([
      expect.objectContaining({ conflictType: 'STATION_CAPACITY_EXCEEDED', errorCode: 'S100' }),
    ]);
    // The station's conflicts and forecast see the arrival; cancelling it frees the space.
    await em().nativeUpdate(Booking, { id: first }, { state: 'CANCELED' });
    expect(
      await admit({
        branchId: hbf,
        endBranchId: ost,
        startMs: local(20, '13:00'),
        endMs: local(20, '15:00'),
      }),
    ).toBe('OK');
  });

  it('tells cooldown overlaps (CD100) from held vehicles (B303) and an empty pool (B302)', async () => {
    const car = hbfCars[0]!;
    await insertBooking({
      branchId: hbf,
      vehicleId: car,
      startMs: local(21, '10:00'),
      endMs: local(21, '12:00'),
    });
    // Hbf cooldowns: 15 minutes before, 30 after.
    expect(
      await admit({ branchId: hbf, vehicleId: car, startMs: local(21, '12:10'), endMs: local(21, '14:00') }),
    ).toBe('CD100');
    expect(
      await admit({ branchId: hbf, vehicleId: car, startMs: local(21, '11:00'), endMs: local(21, '14:00') }),
    ).toBe('B303');
    expect(
      await admit({ branchId: hbf, vehicleId: car, startMs: local(21, '12:45'), endMs: local(21, '14:00') }),
    ).toBe('OK');
    await insertBooking({ branchId: hbf, startMs: local(21, '10:00'), endMs: local(21, '12:00') });
    await insertBooking({ branchId: hbf, startMs: local(21, '10:00'), endMs: local(21, '12:00') });
    expect(await admit({ branchId: hbf, startMs: local(21, '11:00'), endMs: local(21, '13:00') })).toBe(
      'B302',
    );
    expect(await admit({ branchId: hbf, startMs: local(21, '12:10'), endMs: local(21, '13:00') })).toBe(
      'CD100',
    );
    expect(await admit({ branchId: hbf, startMs: local(21, '13:00'), endMs: local(21, '14:00') })).toBe('OK');
  });

  it('checks pickup and return against the stations’ opening hours in their time zone (S101)', async () => {
    expect(await admit({ branchId: ost, startMs: local(22, '05:30'), endMs: local(22, '09:00') })).toBe(
      'S101',
    );
    expect(await admit({ branchId: ost, startMs: local(22, '06:00'), endMs: local(22, '23:00') })).toBe('OK');
    expect(await admit({ branchId: ost, startMs: local(22, '08:00'), endMs: local(22, '23:30') })).toBe(
      'S101',
    );
    // One-way: the return is judged at the end station.
    expect(
      await admit({
        branchId: hbf,
        endBranchId: ost,
        startMs: local(22, '02:00'),
        endMs: local(22, '03:00'),
      }),
    ).toBe('S101');
  });

  it('validates an update without the booking conflicting with itself', async () => {
    const own = await insertBooking({
      branchId: ost,
      startMs: local(23, '09:00'),
      endMs: local(23, '12:00'),
      customerId: otherCustomerId,
    });
    const body = {
      branchId: ost,
      vehicleCategoryId: carsId,
      startTime: iso(local(23, '10:00')),
      endTime: iso(local(23, '13:00')),
    };
    const without = await call('POST', back('/bookings/availability/validate'), { token: operator, body });
    expect(without.body.conflicts.map((c: { conflictType: string }) => c.conflictType)).toEqual([
      'CATEGORY_UNAVAILABLE',
    ]);
    const withSelf = await call('POST', back('/bookings/availability/validate'), {
      token: operator,
      body: { ...body, bookingId: own },
    });
    expect(withSelf.body).toMatchObject({
      valid: true,
      conflicts: [],
      startStationCooldown: 15,
      endStationCooldown: 30,
    });
    // The deprecated station availability endpoint answers the same.
    const legacy = await call('POST', back('/bookings/station-availability'), {
      token: operator,
      body: { ...body, bookingId: own },
    });
    expect(legacy.body.valid).toBe(true);
    // App: a customer may not exclude another customer's booking.
    expectError(
      await call(
        'GET',
        front(
          `/bookings/available-categories?branchId=${ost}&startTime=${iso(local(23, '10:00'))}&endTime=${iso(local(23, '13:00'))}&excludeBookingId=${own}`,
        ),
        {
          token: annaToken,
        },
      ),
      403,
      'A104',
    );
    const asClient = await call(
      'GET',
      front(
        `/bookings/available-categories?branchId=${ost}&startTime=${iso(local(23, '10:00'))}&endTime=${iso(local(23, '13:00'))}&excludeBookingId=${own}&includeWithPricingOnly=false`,
      ),
      { token: appClient },
    );
    expect(asClient.status).toBe(200);
    expect(asClient.body.map((c: { id: number }) => c.id)).toEqual([carsId]);
    // Window rules still apply to validation.
    expectError(
      await call('POST', back('/bookings/availability/validate'), {
        token: operator,
        body: { ...body, endTime: body.startTime },
      }),
      422,
      'B301',
    );
    expectError(
      await call('POST', back('/bookings/availability/validate'), {
        token: operator,
        body: { ...body, ignoreTimeConstraints: true },
      }),
      403,
      'B316',
    );
  });

  it('serialises concurrent admissions: of five requests for the last car exactly one wins', async () => {
    const window = { branchId: ost, startMs: local(24, '09:00'), endMs: local(24, '12:00') };
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        stack.backend.orm.em.fork().transactional(async (tx) => {
          tx.setFilterParams('tenant', { tenantId: seed.tenant });
          const { held } = await heldWindow(tx, { ...window, endBranchId: ost, vehicleCategoryId: carsId });
          try {
            await checkBookingAdmission(tx, {
              tenant: seed.tenant,
              ...window,
              endBranchId: ost,
              window,
              vehicleCategoryId: carsId,
              held,
            });
          } catch (error) {
            if (isDomainError(error)) return error.code;
            throw error;
          }
          const [row] = await tx.execute<Array<{ id: string }>>(`select nextval('booking_id_seq') as id`);
          tx.create(Booking, {
            id: Number(row!.id),
            workflowId: `booking:${seed.tenant}:${row!.id}`,
            state: 'BOOKED',
            customer: tx.getReference(Customer, seed.customerIds[0]!),
            branch: tx.getReference(Branch, ost),
            endBranch: tx.getReference(Branch, ost),
            vehicleCategory: tx.getReference(VehicleCategory, carsId),
            startTime: new Date(window.startMs),
            endTime: new Date(window.endMs),
            heldFrom: new Date(held.startMs),
            heldUntil: new Date(held.endMs),
          });
          return 'OK';
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'OK')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'B302')).toHaveLength(4);
  });
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
      422,
      'B317',
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

describe('hostile input', () => {
  it('refuses malformed values with catalogue errors, never a 5xx', async () => {
    const bad: Array<[string, string, unknown?]> = [
      ['GET', back('/booking-stations/99999999999/vehicles')],
      ['GET', back(`/booking-stations/${hbf}/capacity-forecast?activeWithin=x&activeWithin=y`)],
      ['GET', back(`/bookings/availability?branchId=${hbf}&from=2026-01-01&to=2026-12-31`)],
      [
        'GET',
        back(`/bookings/utilization?branchId=${hbf}&from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`),
      ],
      [
        'POST',
        back('/bookings/availability/validate'),
        { branchId: hbf, vehicleCategoryId: carsId, startTime: 'now', endTime: 'later' },
      ],
      [
        'POST',
        back('/bookings/availability/validate'),
        {
          branchId: hbf,
          vehicleCategoryId: carsId,
          startTime: iso(local(40, '10:00')),
          endTime: iso(local(40, '12:00')),
          extra: 1,
        },
      ],
      [
        'PUT',
        back(`/booking-stations/${hbf}`),
        { categoryCooldowns: { 'a\u0000': { endCooldownMinutes: 1 } } },
      ],
      ['PUT', back(`/booking-stations/${hbf}`), { capacity: 1e12 }],
      [
        'POST',
        back('/bookings/available-dropoff-time-slots'),
        {
          branchId: hbf,
          vehicleCategoryId: carsId,
          bookingStartTime: '2030-01-01T00:00:00+23:59',
          until: '2029-12-30T00:00:00Z',
        },
      ],
    ];
    for (const [method, path, body] of bad) {
      const reply = await call(method, path, { token: operator, body });
      expect([400, 404, 422]).toContain(reply.status);
      expect(reply.body.errorCode).toEqual(expect.any(String));
    }
    // A booking id of another tenant is unknown.
    expectError(
      await call('POST', back('/bookings/availability/validate'), {
        token: operator,
        body: {
          branchId: hbf,
          vehicleCategoryId: carsId,
          startTime: iso(local(40, '10:00')),
          endTime: iso(local(40, '12:00')),
          bookingId: 2147483647,
        },
      }),
      404,
      'B300',
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
