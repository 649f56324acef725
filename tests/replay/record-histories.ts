// Records the workflow histories tests/replay.test.ts replays: each path of the rental, booking, vehicle
// command and pricing-version workflows here, the finance workflows in record-histories-finance.ts, the
// recurring-task, export and webhook dispatcher workflows in record-histories-work.ts; driven on the
// time-skipping server with real activities, written to tests/histories/<workflow>-<path>.json. Not suites
// of `npm test` (their names do not end in .test.ts): run them with `npm run record:histories`, only when a
// workflow changed on purpose
// (see docs/architecture.md, "Replay tests"). `RECORD_HISTORIES=payment,refund npm run record:histories`
// records only the groups whose name contains one of those words, leaving the other files as they are.
import { type WorkflowHandle } from '@temporalio/client';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { tenantEm } from '../../db/orm.js';
import {
  awaitBookingUpdate,
  bookingWorkflowStartOptions,
  cancelBookingUpdate,
  pickupBookingUpdate,
  BOOKING_WORKFLOW_TYPE,
  type BookingRequest,
} from '../../workflows/booking.messages.js';
import type { bookingWorkflow } from '../../workflows/booking.js';
import { vehicleCommandWorkflowId } from '../../workflows/fleet.messages.js';
import { pricingVersionWorkflowId } from '../../workflows/pricing.messages.js';
import {
  awaitReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  rentalWorkflowId,
  rentalWorkflowStartOptions,
  RENTAL_WORKFLOW_TYPE,
} from '../../workflows/rental.messages.js';
import type { rentalWorkflow } from '../../workflows/rental.js';
import { executeCommand } from '../support/fleet.js';
import { startSession, type Session } from '../support/session.js';
import { startTestBackend, type TestBackend } from '../support/stack.js';
import { recordHistory } from './history-files.js';
import { DAY, MINUTE, group, newCustomer, settle } from './recording.js';

group('rental workflow', () => {
  let backend: TestBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  /** A reserved rental of the vehicle at `vehicleIndex` (by id) for a fresh customer. */
  async function reserve(
    vehicleIndex: number,
  ): Promise<{ handle: WorkflowHandle<typeof rentalWorkflow>; vehicleId: number }> {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const vehicle = (await em.find(Vehicle, {}, { orderBy: { id: 'asc' } }))[vehicleIndex]!;
    const [{ id: rentalId }] = await em.execute<[{ id: number }]>(
      `select nextval('rental_id_seq')::int as id`,
    );
    const handle = await backend.client.workflow.start<typeof rentalWorkflow>(
      RENTAL_WORKFLOW_TYPE,
      rentalWorkflowStartOptions(
        {
          tenant: backend.seed.tenant,
          rentalId,
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          customerId: await newCustomer(backend),
          requestedBy: 'client:replay-recorder',
          startImmediately: false,
        },
        backend.taskQueue,
      ),
    );
    expect((await handle.executeUpdate(awaitReservationUpdate)).state).toBe('RESERVATION');
    return { handle, vehicleId: vehicle.id };
  }

  test('reservation expiry', async () => {
    const { handle } = await reserve(0);
    expect((await settle(backend, handle, '16 minutes')).state).toBe('EXPIRED'); // 15 reserved
    await recordHistory('rental-reservation-expiry-stamped', handle);
  });

  // Since END answers before its invoice is billed (patch ended-rental-billed-after-answer): the billing
  // step follows the answer; since rental-records-as-local-activities, the reservation is a local activity,
  // and since ended-rental-bill-after-answer-task the bill is an activity in the task after the answer's.
  // Since rental-steps-2026-12 a new run records that one patch for all three (the *-one-patch files);
  // since rental-steps-2026-12-billed-in-step its successor, and the ending step bills its invoice in its
  // own transaction (the *-billed-in-step files); since RENTAL_STEPS_VERSION a new run is stamped with its
  // steps' version and records no patch marker (the *-stamped files). rental-start-end.json,
  // rental-start-end-billed-after-answer.json, rental-start-end-local-records.json,
  // rental-start-end-billed-in-next-task.json, rental-reservation-{expiry,cancel}.json, the
  // *-remote-records, *-one-patch and *-billed-in-step files keep the paths of rentals started before them.
  test('START then END, billed in the ending step', async () => {
    const { handle, vehicleId } = await reserve(1);
    const operate = (operationType: 'START' | 'END') =>
      handle.executeUpdate(rentalOperationUpdate, {
        args: [{ operationType, requestedBy: 'client:replay-recorder' }],
      });
    expect((await operate('START')).state).toBe('ACTIVE');
    await backend.testEnv!.sleep('20 minutes');
    backend.simulator.ride(String(vehicleId), 400);
    expect((await operate('END')).state).toBe('ENDED');
    expect((await settle(backend, handle)).state).toBe('ENDED');
    await recordHistory('rental-start-end-stamped', handle);
  });

  test('reservation cancel', async () => {
    const { handle } = await reserve(2);
    const cancelled = await handle.executeUpdate(cancelReservationUpdate, {
      args: [{ requestedBy: 'client:replay-recorder' }],
    });
    expect(cancelled.state).toBe('CANCELLED');
    expect((await settle(backend, handle)).state).toBe('CANCELLED');
    await recordHistory('rental-reservation-cancel-stamped', handle);
  });
});

group('booking workflow', () => {
  let backend: TestBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  /** A booking at the first booking station, `startInMinutes` from the test server's clock. */
  async function book(
    request: Partial<BookingRequest> & { startInMinutes: number; durationMinutes: number },
  ): Promise<WorkflowHandle<typeof bookingWorkflow>> {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const [{ id: bookingId }] = await em.execute<[{ id: number }]>(
      `select nextval('booking_id_seq')::int as id`,
    );
    const stationCar = await em.findOneOrFail(Vehicle, { branch: backend.seed.bookingStationIds[0] });
    const { startInMinutes, durationMinutes, ...rest } = request;
    const startMs = (await backend.testEnv!.currentTimeMs()) + startInMinutes * MINUTE;
    const handle = await backend.client.workflow.start<typeof bookingWorkflow>(
      BOOKING_WORKFLOW_TYPE,
      bookingWorkflowStartOptions(
        {
          tenant: backend.seed.tenant,
          bookingId,
          request: {
            customerId: await newCustomer(backend),
            requestedBy: 'client:replay-recorder',
            type: 'STATION',
            rentalType: 'PRIVATE',
            branchId: backend.seed.bookingStationIds[0],
            vehicleCategoryId: stationCar.category.id,
            startTime: new Date(startMs).toISOString(),
            endTime: new Date(startMs + durationMinutes * MINUTE).toISOString(),
            ...rest,
          },
        },
        backend.taskQueue,
      ),
    );
    expect((await handle.executeUpdate(awaitBookingUpdate)).state).not.toBe('REJECTED');
    return handle;
  }

  test('approval deadline', async () => {
    const handle = await book({ startInMinutes: 180, durationMinutes: 120, bookingRequest: true });
    // The approval deadline: 60 minutes before the start.
    expect((await settle(backend, handle, '121 minutes')).state).toBe('EXPIRED');
    await recordHistory('booking-approval-expiry', handle);
  });

  test('cancel', async () => {
    const handle = await book({ startInMinutes: 180, durationMinutes: 60 });
    const cancelled = await handle.executeUpdate(cancelBookingUpdate, {
      args: [
        { requestedBy: 'client:replay-recorder', waiveCancellationFee: true, enforceCancellable: false },
      ],
    });
    expect(cancelled.state).toBe('CANCELED');
    expect((await settle(backend, handle)).state).toBe('CANCELED');
    await recordHistory('booking-cancel', handle);
  });

  test('automatic delivery, then no-show', async () => {
    const handle = await book({ startInMinutes: 240, durationMinutes: 60 });
    // Delivered 120 minutes before the start; a no-show once the pickup window closed, 60 minutes after it.
    expect((await settle(backend, handle, '301 minutes')).state).toBe('EXPIRED');
    await recordHistory('booking-no-show', handle);
  });

  test('pickup starts the rental; its end makes the booking SUCCESSFUL', async () => {
    const vehicle = await tenantEm(backend.orm, backend.seed.tenant).findOneOrFail(
      Vehicle,
      { branch: backend.seed.bookingStationIds[0] },
      { orderBy: { id: 'desc' } },
    );
    const handle = await book({ startInMinutes: 20, durationMinutes: 60, vehicleId: vehicle.id });
    const picked = await handle.executeUpdate(pickupBookingUpdate, {
      args: [{ requestedBy: 'client:replay-recorder', rentalAuthOverride: true }],
    });
    const rental = backend.client.workflow.getHandle<typeof rentalWorkflow>(
      rentalWorkflowId(backend.seed.tenant, picked.pickupRentalId!),
    );
    expect((await rental.executeUpdate(awaitReservationUpdate)).state).toBe('ACTIVE');
    await backend.testEnv!.sleep(30 * MINUTE);
    backend.simulator.ride(String(vehicle.id), 2000);
    await rental.executeUpdate(rentalOperationUpdate, {
      args: [{ operationType: 'END', requestedBy: 'client:replay-recorder', adminOverride: true }],
    });
    expect((await settle(backend, rental)).state).toBe('ENDED');
    expect((await settle(backend, handle)).state).toBe('SUCCESSFUL');
    await recordHistory('booking-pickup', handle);
    await recordHistory('rental-booking-pickup', rental);
  }, 60_000);
});

group('pricing version and vehicle command workflows', () => {
  let session: Session;
  const call = (...args: Parameters<Session['stack']['call']>) => session.stack.call(...args);
  const back = (path: string) => session.stack.back(path);
  const tenant = () => session.seed.tenant;
  /** The test server's clock: effective dates count from it, so the workflow's timers wait for real. */
  const serverNow = () => session.backend.testEnv!.currentTimeMs();

  beforeAll(async () => {
    session = await startSession({ timeSkipping: true });
  }, 120_000);

  afterAll(async () => {
    await session?.stop();
  });

  const rules = {
    freeFloatingPricingMode: 'ENDING_TIMESLOT',
    onDemand: {
      unlockFee: '1.00',
      reservationPerMinute: '0.10',
      timeSlots: [{ fromMinute: 0, drivingPerMinute: '0.30', parkingPerMinute: '0.10' }],
      distancePerUnit: '0',
      includedDistance: 0,
      billingIncrementMinutes: 1,
      minimumPrice: '0',
    },
  };

  /** A new bundle with one draft version. */
  async function draftVersion(bundleName: string): Promise<{ bundleId: number; versionId: number }> {
    const bundle = await call('POST', back('/pricing-bundles'), {
      token: session.operatorToken,
      body: { name: bundleName, type: 'ON_DEMAND_LEGACY', businessUnitId: session.seed.businessUnitId },
    });
    expect(bundle.status).toBe(201);
    const version = await call('POST', back(`/pricing-bundles/${bundle.body.id}/versions`), {
      token: session.operatorToken,
      body: rules,
    });
    expect(version.status).toBe(201);
    return { bundleId: bundle.body.id, versionId: version.body.id };
  }

  /** Publishes through the API (which starts the publication workflow) and answers that workflow. */
  async function publish(
    bundleId: number,
    versionId: number,
    dates: { effectiveFromMs: number; validUntilMs?: number },
  ): Promise<WorkflowHandle> {
    const published = await call('POST', back(`/pricing-bundles/${bundleId}/versions/${versionId}/publish`), {
      token: session.operatorToken,
      body: {
        effectiveFrom: new Date(dates.effectiveFromMs).toISOString(),
        ...(dates.validUntilMs === undefined
          ? {}
          : { validUntil: new Date(dates.validUntilMs).toISOString() }),
      },
    });
    expect(published.body).toMatchObject({ status: 'PUBLISHED' });
    return session.backend.client.workflow.getHandle(pricingVersionWorkflowId(tenant(), versionId));
  }

  const versionStatus = async (bundleId: number, versionId: number) =>
    (
      await call('GET', back(`/pricing-bundles/${bundleId}/versions/${versionId}`), {
        token: session.operatorToken,
      })
    ).body.status;

  test('published now, then superseded by a version with a future effective date', async () => {
    const { bundleId, versionId: first } = await draftVersion('Replay timed');
    const now = await publish(bundleId, first, { effectiveFromMs: await serverNow() });
    await recordHistory('pricing-version-publish-now', now);
    const next = await call('POST', back(`/pricing-bundles/${bundleId}/versions`), {
      token: session.operatorToken,
      body: { basedOnVersionId: first, notes: 'tomorrow' },
    });
    const later = await publish(bundleId, next.body.id, { effectiveFromMs: (await serverNow()) + DAY });
    await session.backend.testEnv!.sleep('25 hours');
    await recordHistory('pricing-version-supersede', later);
    expect(await versionStatus(bundleId, first)).toBe('SUPERSEDED');
  });

  test('a bounded validity expires the version', async () => {
    const { bundleId, versionId } = await draftVersion('Replay short lived');
    const from = await serverNow();
    const handle = await publish(bundleId, versionId, {
      effectiveFromMs: from,
      validUntilMs: from + 2 * DAY,
    });
    await session.backend.testEnv!.sleep('49 hours');
    await recordHistory('pricing-version-expiry', handle);
    expect(await versionStatus(bundleId, versionId)).toBe('EXPIRED');
  });

  test('a SYNC command answered by the simulated device', async () => {
    const em = tenantEm(session.backend.orm, tenant());
    const vehicle = (await em.find(Vehicle, {}, { orderBy: { id: 'asc' } }))[12]!;
    const reply = await executeCommand(session.stack, session.operatorToken, vehicle.id, {
      command: 'LOCATE',
    });
    expect(reply.body).toMatchObject({ status: 'OK', data: { locked: true } });
    await recordHistory(
      'vehicle-command-sync',
      session.backend.client.workflow.getHandle(vehicleCommandWorkflowId(tenant(), vehicle.id)),
    );
  });
});
