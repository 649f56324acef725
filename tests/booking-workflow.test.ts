// The booking workflow on the time-skipping test server, with real activities, PostgreSQL, MQTT broker and
// simulated vehicles: approval deadline, automatic delivery, no-show with its fee, ABORTED without a
// vehicle, and a pickup into a rental that returns late (overdue, late-return penalty, SUCCESSFUL).
import type { WorkflowHandle } from '@temporalio/client';
import { Booking } from '../db/entities/Booking.js';
import { Customer } from '../db/entities/Customer.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { Setting } from '../db/entities/Setting.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { BOOKING_SETTINGS_KEY, defaultBookingSettings } from '../domain/booking.js';
import {
  awaitBookingUpdate,
  bookingStatusQuery,
  bookingWorkflowStartOptions,
  pickupBookingUpdate,
  BOOKING_WORKFLOW_TYPE,
  type BookingRequest,
} from '../workflows/booking.messages.js';
import type { bookingWorkflow } from '../workflows/booking.js';
import {
  awaitReservationUpdate,
  rentalOperationUpdate,
  rentalWorkflowId,
} from '../workflows/rental.messages.js';
import { startTestBackend, type TestBackend } from './support/stack.js';

let backend: TestBackend;
let customers = 0;
const MINUTE = 60_000;

beforeAll(async () => {
  backend = await startTestBackend({ timeSkipping: true });
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

const em = () => tenantEm(backend.orm, backend.seed.tenant);

/** A fresh customer with a payment source, so pickups are payment-ready. */
async function newCustomer(): Promise<number> {
  const manager = em();
  const seeded = await manager.findOneOrFail(Customer, backend.seed.customerIds[0]!);
  const customer = manager.create(Customer, {
    tenant: seeded.tenant,
    email: `booker-${customers++}-${Date.now()}@example.com`,
    firstName: 'Test',
    lastName: 'Booker',
    homeBusinessUnit: seeded.homeBusinessUnit,
  });
  manager.create(PaymentSource, {
    tenant: seeded.tenant,
    customer,
    businessUnit: seeded.homeBusinessUnit!,
    type: 'CARD',
    provider: 'test',
    providerReference: `pm_${customers}`,
    label: 'Visa •••• 4242',
  });
  await manager.flush();
  return customer.id;
}

/** The current workflow time (the test server's clock, which skips). */
async function workflowNow(): Promise<number> {
  return backend.testEnv!.currentTimeMs();
}

async function book(
  request: Partial<BookingRequest> & { startInMinutes: number; durationMinutes: number },
): Promise<{
  handle: WorkflowHandle<typeof bookingWorkflow>;
  bookingId: number;
  startMs: number;
  endMs: number;
}> {
  const [{ id: bookingId }] = await em().execute<[{ id: number }]>(
    `select nextval('booking_id_seq')::int as id`,
  );
  const now = await workflowNow();
  const startMs = now + request.startInMinutes * MINUTE;
  const endMs = startMs + request.durationMinutes * MINUTE;
  const { startInMinutes, durationMinutes, ...rest } = request;
  expect(startInMinutes + durationMinutes).toBeGreaterThan(0);
  const handle = await backend.client.workflow.start<typeof bookingWorkflow>(
    BOOKING_WORKFLOW_TYPE,
    bookingWorkflowStartOptions(
      {
        tenant: backend.seed.tenant,
        bookingId,
        request: {
          customerId: await newCustomer(),
          requestedBy: 'client:test',
          type: 'STATION',
          rentalType: 'PRIVATE',
          branchId: backend.seed.bookingStationIds[0],
          vehicleCategoryId: await carCategory(),
          startTime: new Date(startMs).toISOString(),
          endTime: new Date(endMs).toISOString(),
          ...rest,
        },
      },
      backend.taskQueue,
    ),
  );
  const created = await handle.executeUpdate(awaitBookingUpdate);
  expect(created.state).not.toBe('REJECTED');
  return { handle, bookingId, startMs, endMs };
}

/** The first whole half hour at least `atLeast` minutes ahead whose next two hours are 07:00–21:00 in Berlin. */
async function minutesUntilBerlinDaytime(atLeast: number): Promise<number> {
  const now = await workflowNow();
  const berlinHour = (ms: number) =>
    Number(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(ms)),
    );
  // A start from 07:00 to 19:59 keeps the start and two hours after it (the booking and its cooldowns)
  // inside 06:00–23:00 on the same local day; the hour of a later time wraps past midnight to 0.
  for (let minutes = atLeast; ; minutes += 30) {
    const hour = berlinHour(now + minutes * MINUTE);
    if (hour >= 7 && hour <= 19) return minutes;
  }
}

async function carCategory(): Promise<number> {
  const vehicle = await em().findOneOrFail(Vehicle, { branch: backend.seed.bookingStationIds[0] });
  return vehicle.category.id;
}

const bookingRow = (bookingId: number) => em().findOneOrFail(Booking, bookingId);
const eventTypes = async (bookingId: number) =>
  (await em().find(Event, { bookingId }, { orderBy: { id: 'asc' } })).map((event) => event.type);

test('a request not approved by its deadline expires (time-skipped)', async () => {
  const { handle, bookingId, startMs } = await book({
    startInMinutes: 180,
    durationMinutes: 120,
    bookingRequest: true,
  });
  expect((await bookingRow(bookingId)).approvalState).toBe('PENDING');
  const result = await handle.result();
  expect(result.state).toBe('EXPIRED');
  const row = await bookingRow(bookingId);
  expect(row.state).toBe('EXPIRED');
  expect(await eventTypes(bookingId)).toEqual(['BOOKING_CREATED', 'BOOKING_EXPIRED']);
  const expired = await em().findOneOrFail(Event, { bookingId, type: 'BOOKING_EXPIRED' });
  // The approval deadline: 60 minutes before the start.
  expect(expired.createdAt.getTime()).toBe(startMs - 60 * MINUTE);
});

test('a vehicle is delivered automatically before the start; a no-show expires with the no-show fee', async () => {
  const manager = em();
  const setting = await manager.findOneOrFail(Setting, { key: BOOKING_SETTINGS_KEY });
  setting.value = { ...defaultBookingSettings, noShowFee: '7.50' };
  await manager.flush();
  try {
    const { handle, bookingId, startMs } = await book({ startInMinutes: 240, durationMinutes: 60 });
    expect((await bookingRow(bookingId)).vehicle).toBeNull();
    await backend.testEnv!.sleep(121 * MINUTE); // past the automatic delivery, 120 minutes before the start
    const status = await handle.query(bookingStatusQuery);
    expect(status.state).toBe('DELIVERED');
    const delivered = await bookingRow(bookingId);
    expect(delivered.vehicle?.id).toBe(status.vehicleId);
    const vehicle = await manager.findOneOrFail(Vehicle, status.vehicleId!);
    expect(vehicle.branch.id).toBe(backend.seed.bookingStationIds[0]);

    expect((await handle.result()).state).toBe('EXPIRED');
    const row = await bookingRow(bookingId);
    expect(row.invoice).not.toBeNull();
    const invoice = await em().findOneOrFail(Invoice, row.invoice!.id);
    expect(invoice.booking?.id).toBe(bookingId);
    expect(invoice.totalGross).toBe('7.50');
    const lines = await em().find(InvoiceLine, { invoice: invoice.id });
    expect(lines.map((line) => line.code)).toEqual(['NO_SHOW_FEE']);
    // The booking's own steps; its fee's bill is on the same timeline (INVOICE_BILLED, docs/finance.md).
    const all = await em().find(Event, { bookingId }, { orderBy: { id: 'asc' } });
    expect(all.filter((event) => event.type === 'INVOICE_BILLED')).toHaveLength(1);
    const events = all.filter((event) => event.type.startsWith('BOOKING_'));
    expect(events.map((event) => event.type)).toEqual([
      'BOOKING_CREATED',
      'BOOKING_DELIVERED',
      'BOOKING_EXPIRED',
    ]);
    // No-show: the pickup window closes 60 minutes after the start.
    expect(events[2]!.createdAt.getTime()).toBe(startMs + 60 * MINUTE);
  } finally {
    setting.value = { ...defaultBookingSettings };
    await manager.flush();
  }
});

test('a booking no vehicle can be delivered to is ABORTED when the pickup window closes', async () => {
  const station = backend.seed.bookingStationIds[1];
  // The second station opens 06:00–23:00 in Berlin: the pickup and the return fall inside that, whatever the
  // (skipped) clock reads when this test runs.
  const startInMinutes = await minutesUntilBerlinDaytime(300);
  const { handle, bookingId } = await book({ startInMinutes, durationMinutes: 60, branchId: station });
  // The station's only car leaves the fleet for good before the automatic delivery.
  const manager = em();
  const car = await manager.findOneOrFail(Vehicle, { branch: station });
  const previous = car.serviceStateV2;
  car.serviceStateV2 = 'RETIRED';
  await manager.flush();
  try {
    expect((await handle.result()).state).toBe('ABORTED');
    expect(await eventTypes(bookingId)).toEqual(['BOOKING_CREATED', 'BOOKING_ABORTED']);
    expect((await bookingRow(bookingId)).vehicle).toBeNull();
  } finally {
    car.serviceStateV2 = previous;
    await manager.flush();
  }
});

test('pickup starts the rental; a late return is overdue, priced with the late-return penalty, SUCCESSFUL', async () => {
  const manager = em();
  const vehicle = await manager.findOneOrFail(
    Vehicle,
    { branch: backend.seed.bookingStationIds[0] },
    { orderBy: { id: 'desc' } },
  );
  const { handle, bookingId, endMs } = await book({
    startInMinutes: 20,
    durationMinutes: 60,
    vehicleId: vehicle.id,
    additions: ['CLEANING'],
  });
  expect((await handle.query(bookingStatusQuery)).state).toBe('DELIVERED');
  const picked = await handle.executeUpdate(pickupBookingUpdate, {
    args: [{ requestedBy: 'client:test', rentalAuthOverride: true }],
  });
  const rentalId = picked.pickupRentalId!;
  const rental = backend.client.workflow.getHandle(rentalWorkflowId(backend.seed.tenant, rentalId));
  expect((await rental.executeUpdate(awaitReservationUpdate)).state).toBe('ACTIVE');
  const linked = await bookingRow(bookingId);
  expect(linked.rental?.id).toBe(rentalId);
  expect(linked.pickedUpAt).not.toBeNull();

  // Skip past the end plus the grace period: the booking becomes overdue.
  await backend.testEnv!.sleep(20 * MINUTE + 60 * MINUTE + 16 * MINUTE);
  await backend.testEnv!.sleep(5 * MINUTE);
  const overdue = await bookingRow(bookingId);
  expect(overdue.overdueSince?.getTime()).toBe(endMs + 15 * MINUTE);
  expect((await handle.query(bookingStatusQuery)).overdueSinceMs).toBe(endMs + 15 * MINUTE);

  backend.simulator.ride(String(vehicle.id), 2000);
  await rental.executeUpdate(rentalOperationUpdate, {
    args: [{ operationType: 'END', requestedBy: 'client:test', adminOverride: true }],
  });
  expect((await handle.result()).state).toBe('SUCCESSFUL');
  const done = await bookingRow(bookingId);
  expect(done.returnedAt).not.toBeNull();
  expect(done.returnedAt!.getTime()).toBeGreaterThan(endMs + 15 * MINUTE);
  const invoice = await em().findOneOrFail(Invoice, { booking: bookingId });
  expect(invoice.rental?.id).toBe(rentalId);
  const lines = await em().find(InvoiceLine, { invoice: invoice.id }, { orderBy: { position: 'asc' } });
  const codes = lines.map((line) => line.code);
  expect(codes).toContain('LATE_RETURN');
  expect(codes).toContain('ADDITION_CLEANING');
  expect(codes.some((code) => code.startsWith('TIME_'))).toBe(true);
  // The booking's own steps (its rental's invoice and payment events share the timeline).
  expect((await eventTypes(bookingId)).filter((type) => type.startsWith('BOOKING_'))).toEqual([
    'BOOKING_CREATED',
    'BOOKING_DELIVERED',
    'BOOKING_PICKUP',
    'BOOKING_OVERDUE',
    'BOOKING_SUCCESSFUL',
  ]);
}, 60_000);
