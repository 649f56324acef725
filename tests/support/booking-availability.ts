// The set-up and helpers of the booking availability suites (tests/booking-availability-*.test.ts):
// local times at the demo stations, holding bookings inserted as rows the way the booking workflow's
// activity writes them (the workflow is another domain's), and admission run on its own.
import { Booking } from '../../db/entities/Booking.js';
import { Branch } from '../../db/entities/Branch.js';
import { Customer } from '../../db/entities/Customer.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { VehicleCategory } from '../../db/entities/VehicleCategory.js';
import { checkBookingAdmission, heldWindow } from '../../db/booking-availability.js';
import { demoCustomer } from '../../db/seed/customers.js';
import { zonedInstant, type BookingState } from '../../domain/booking.js';
import { isDomainError } from '../../domain/errors.js';
import { startSession, type Session } from './session.js';

export const MINUTE = 60_000;
/** The demo stations' time zone. */
export const zone = 'Europe/Berlin';

/** A local time `days` ahead (Berlin), as epoch ms: each test uses its own day. */
export const local = (days: number, hhmm: string) => {
  const date = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return zonedInstant(date, h * 60 + m, zone);
};
export const iso = (ms: number) => new Date(ms).toISOString();

export interface HoldingBooking {
  branchId: number;
  endBranchId?: number;
  vehicleId?: number;
  startMs: number;
  endMs: number;
  state?: BookingState;
  customerId?: number;
}

export interface AdmissionRequest {
  branchId: number;
  endBranchId?: number;
  vehicleId?: number;
  startMs: number;
  endMs: number;
  excludeBookingId?: number;
}

export interface BookingAvailabilitySession extends Session {
  /** The demo "Compact car" category, the one the booking stations offer. */
  carsId: number;
  /** The demo booking stations: Hauptbahnhof and Ostbahnhof. */
  hbf: number;
  ost: number;
  /** Hauptbahnhof's cars, by id. */
  hbfCars: number[];
  /** A seeded customer other than the demo customer. */
  otherCustomerId: number;
  /** Inserts a holding booking of a car (hold from the stations' cooldowns); answers its id. */
  insertBooking(options: HoldingBooking): Promise<number>;
  /** Runs admission for a window in its own transaction; answers the refusal code or 'OK'. */
  admit(options: AdmissionRequest): Promise<string>;
}

/** Starts a session with a rival tenant and the demo customer signed in, and finds the demo stations' cars. */
export async function startBookingAvailabilitySession(): Promise<BookingAvailabilitySession> {
  const session = await startSession({ rival: true, signInDemoCustomer: true });
  try {
    const { seed } = session;
    const [hbf, ost] = seed.bookingStationIds as [number, number];
    const tx = session.em();
    const carsId = (await tx.findOneOrFail(VehicleCategory, { name: 'Compact car' })).id;
    const hbfCars = (await tx.find(Vehicle, { branch: hbf }, { orderBy: { id: 'asc' } })).map(
      (vehicle) => vehicle.id,
    );
    const anna = await tx.findOneOrFail(Customer, { email: demoCustomer.email });
    const otherCustomerId = seed.customerIds.find((id) => id !== anna.id)!;

    async function insertBooking(options: HoldingBooking): Promise<number> {
      const tx = session.em();
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

    async function admit(options: AdmissionRequest): Promise<string> {
      try {
        await session.backend.orm.em.fork().transactional(async (tx) => {
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

    return Object.assign(session, { carsId, hbf, ost, hbfCars, otherCustomerId, insertBooking, admit });
  } catch (error) {
    await session.stop();
    throw error;
  }
}
