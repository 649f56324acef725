// Booking admission against real PostgreSQL: station capacity (S100) counting later arrivals, cooldown
// overlaps (CD100), held vehicles (B303) and an empty pool (B302), opening hours (S101), validation that
// excludes the booking itself, concurrent admissions for the last car, and hostile input. Bookings are
// inserted as rows (the booking workflow is another domain's).
import { Booking } from '../db/entities/Booking.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { tenantEm } from '../db/orm.js';
import { checkBookingAdmission, heldWindow } from '../db/booking-availability.js';
import { type SeededTenant } from '../db/seed.js';
import { isDomainError } from '../domain/errors.js';
import { expectError, type HttpStack } from './support/http.js';
import {
  iso,
  local,
  startBookingAvailabilitySession,
  type AdmissionRequest,
  type BookingAvailabilitySession,
  type HoldingBooking,
} from './support/booking-availability.js';

let session: BookingAvailabilitySession;
let stack: HttpStack;
let seed: SeededTenant;
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
const insertBooking = (options: HoldingBooking) => session.insertBooking(options);
const admit = (options: AdmissionRequest) => session.admit(options);

beforeAll(async () => {
  session = await startBookingAvailabilitySession();
  ({
    stack,
    seed,
    operatorToken: operator,
    appClientToken: appClient,
    annaToken,
    carsId,
    hbf,
    ost,
    hbfCars,
    otherCustomerId,
  } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
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
