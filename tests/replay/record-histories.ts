// Records the workflow histories tests/replay.test.ts replays: each path of the rental, booking, vehicle
// command, pricing-version, payment, refund, recurring-task, export and webhook dispatcher workflows,
// driven on the time-skipping server with real activities, written to
// tests/histories/<workflow>-<path>.json. Not a suite of `npm test` (its name does not end in .test.ts):
// run it with `npm run record:histories`, only when a workflow changed on purpose
// (see docs/architecture.md, "Replay tests"). `RECORD_HISTORIES=payment,refund npm run record:histories`
// records only the groups whose name contains one of those words, leaving the other files as they are.
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { Duration, Workflow, WorkflowResultType } from '@temporalio/common';
import { Customer } from '../../db/entities/Customer.js';
import { PaymentSource } from '../../db/entities/PaymentSource.js';
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
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { sandboxOf } from '../../platform/payment-gateway/index.js';
import { paymentStatusQuery, type PaymentWorkflowSnapshot } from '../../workflows/payment.messages.js';
import type { paymentWorkflow } from '../../workflows/payment.js';
import {
  refundWorkflowId,
  refundWorkflowStartOptions,
  REFUND_WORKFLOW_TYPE,
} from '../../workflows/refund.messages.js';
import type { refundWorkflow } from '../../workflows/refund.js';
import { startRefund } from '../../api/shared/payment-commands.js';
import { processGatewayWebhook } from '../../api/shared/payment-webhooks.js';
import { executeCommand } from '../support/fleet.js';
import {
  billAndPay,
  commandContext,
  openInvoice,
  payingCustomer,
  type FinanceBackend,
} from '../support/payments.js';
import { startSession, type Session } from '../support/session.js';
import { startTestBackend, type TestBackend } from '../support/stack.js';
import { recordHistory } from './history-files.js';
import { RecurringTask } from '../../db/entities/RecurringTask.js';
import {
  recurringTaskDueWorkflowId,
  recurringTaskUsageStartOptions,
  RECURRING_TASK_DUE_WORKFLOW_TYPE,
  RECURRING_TASK_USAGE_CHECK_SECONDS,
  RECURRING_TASK_USAGE_WORKFLOW_TYPE,
} from '../../workflows/work.messages.js';
import { Rental } from '../../db/entities/Rental.js';
import { Task } from '../../db/entities/Task.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataExport } from '../../db/entities/DataExport.js';
import { ExportDelivery } from '../../db/entities/ExportDelivery.js';
import { ExportRun } from '../../db/entities/ExportRun.js';
import { newDownloadKey } from '../../activities/exports.js';
import {
  EXPORT_NOTIFICATION_WORKFLOW_TYPE,
  EXPORT_RETENTION_WORKFLOW_TYPE,
  EXPORT_RUN_WORKFLOW_TYPE,
  EXPORT_SCHEDULE_FIRE_WORKFLOW_TYPE,
  exportNotificationStartOptions,
  exportRunStartOptions,
  exportRunWorkflowId,
  exportScheduleFireWorkflowId,
} from '../../workflows/export.messages.js';
import { WebhookDelivery } from '../../db/entities/WebhookDelivery.js';
import { WebhookSigningSecret } from '../../db/entities/WebhookSigningSecret.js';
import { WebhookSubscription } from '../../db/entities/WebhookSubscription.js';
import { recordEvent } from '../../db/events.js';
import { newWebhookSecret } from '../../platform/webhook-http.js';
import {
  WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
  webhookDispatcherSignalWithStart,
} from '../../workflows/webhooks.messages.js';
import type { webhookDispatcherWorkflow } from '../../workflows/webhooks.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The groups to record (`RECORD_HISTORIES`, comma-separated words of their names); all when unset. */
const recordOnly = (process.env.RECORD_HISTORIES ?? '')
  .split(',')
  .map((word) => word.trim())
  .filter(Boolean);

/** A group of paths, skipped when RECORD_HISTORIES names other groups. */
function group(name: string, paths: () => void): void {
  const wanted = recordOnly.length === 0 || recordOnly.some((word) => name.includes(word));
  (wanted ? describe : describe.skip)(name, paths);
}

/** A fresh customer with a payment source: no earlier reservation counts against them, pickups are payment-ready. */
async function newCustomer(backend: TestBackend): Promise<number> {
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const seeded = await em.findOneOrFail(Customer, backend.seed.customerIds[0]!);
  const customer = em.create(Customer, {
    tenant: seeded.tenant,
    email: `replay-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    firstName: 'Replay',
    lastName: 'Rider',
    homeBusinessUnit: seeded.homeBusinessUnit,
  });
  em.create(PaymentSource, {
    tenant: seeded.tenant,
    customer,
    businessUnit: seeded.homeBusinessUnit!,
    type: 'CARD',
    provider: 'test',
    providerReference: `pm_replay_${customer.email}`,
    label: 'Visa •••• 4242',
  });
  await em.flush();
  return customer.id;
}

/**
 * The workflow's result once it closed, after skipping `skip` of workflow time. The time-skipping
 * client's result() would let the test server skip on to its next timer (years ahead once nothing else
 * is pending) and date the next path's history decades later; a plain client never skips.
 */
async function settle<W extends Workflow>(
  backend: TestBackend,
  handle: WorkflowHandle<W>,
  skip?: Duration,
): Promise<WorkflowResultType<W>> {
  if (skip !== undefined) await backend.testEnv!.sleep(skip);
  const plain = new Client({ connection: backend.testEnv!.connection });
  return plain.workflow.getHandle<W>(handle.workflowId).result();
}

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
    await recordHistory('rental-reservation-expiry', handle);
  });

  test('START then END', async () => {
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
    await recordHistory('rental-start-end', handle);
  });

  test('reservation cancel', async () => {
    const { handle } = await reserve(2);
    const cancelled = await handle.executeUpdate(cancelReservationUpdate, {
      args: [{ requestedBy: 'client:replay-recorder' }],
    });
    expect(cancelled.state).toBe('CANCELLED');
    expect((await settle(backend, handle)).state).toBe('CANCELLED');
    await recordHistory('rental-reservation-cancel', handle);
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

group('payment workflow', () => {
  let backend: TestBackend;
  let finance: FinanceBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
    finance = {
      orm: backend.orm,
      tenant: backend.seed.tenant,
      client: backend.client,
      taskQueue: backend.taskQueue,
      paymentGateways: backend.paymentGateways,
    };
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  /** An invoice of a customer paying with `token`, billed: its payment's workflow. */
  async function pay(token: string): Promise<WorkflowHandle<typeof paymentWorkflow>> {
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, token);
    const invoice = await openInvoice(finance, customer, ['12.50', '7.50']);
    const payment = await billAndPay(finance, invoice.id);
    return backend.client.workflow.getHandle<typeof paymentWorkflow>(payment.workflowId);
  }

  /** Waits (without skipping time) until the payment's status answers `state`. */
  async function reached(
    handle: WorkflowHandle<typeof paymentWorkflow>,
    state: string,
  ): Promise<PaymentWorkflowSnapshot> {
    for (let tries = 0; tries < 400; tries++) {
      const snapshot = await handle.query(paymentStatusQuery);
      if (snapshot.state === state) return snapshot;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`payment ${handle.workflowId} never reached ${state}`);
  }

  test('paid on the first attempt', async () => {
    const handle = await pay('tok_sandbox_visa');
    expect((await settle(backend, handle)).state).toBe('PAID');
    await recordHistory('payment-paid', handle);
  });

  test('a soft decline, then the scheduled retry is paid', async () => {
    const handle = await pay('tok_sandbox_insufficient_funds_once');
    await reached(handle, 'AWAITING_RETRY');
    expect((await settle(backend, handle, '25 hours')).state).toBe('PAID');
    await recordHistory('payment-retry-paid', handle);
  });

  test('a 3-D Secure challenge completed by the customer', async () => {
    const handle = await pay('tok_sandbox_3ds');
    const waiting = await reached(handle, 'THREE_DS_WAITING_FOR_USER');
    const reference = waiting.challenge!.url!.split('/').pop()!;
    const webhook = await sandboxOf(finance.paymentGateways)!.resolveChallenge(reference, 'SUCCEEDED');
    await processGatewayWebhook(commandContext(finance), 'sandbox', webhook.body, webhook.headers);
    expect((await settle(backend, handle)).state).toBe('PAID');
    await recordHistory('payment-three-ds-completed', handle);
  });

  test('soft declines until the schedule ends: FAILED', async () => {
    const handle = await pay('tok_sandbox_insufficient_funds');
    await reached(handle, 'AWAITING_RETRY');
    // Retries 1, 3, 5 and 7 days apart.
    expect((await settle(backend, handle, '17 days')).state).toBe('FAILED');
    await recordHistory('payment-failed-after-schedule', handle);
  });
});

group('refund workflow', () => {
  let backend: TestBackend;
  let finance: FinanceBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
    finance = {
      orm: backend.orm,
      tenant: backend.seed.tenant,
      client: backend.client,
      taskQueue: backend.taskQueue,
      paymentGateways: backend.paymentGateways,
    };
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  /** A refund of `amount` on the first line of a freshly paid invoice, and its workflow. */
  async function refundOf(amount: string, reason: string): Promise<WorkflowHandle<typeof refundWorkflow>> {
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
    const invoice = await openInvoice(finance, customer, ['10.00', '5.00']);
    const payment = await billAndPay(finance, invoice.id);
    expect((await settle(backend, backend.client.workflow.getHandle(payment.workflowId))).state).toBe('PAID');
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const paid = await em.findOneOrFail(Invoice, invoice.id);
    const [line] = await em.find(InvoiceLine, { invoice: invoice.id }, { orderBy: { position: 'asc' } });
    const refunding = await startRefund(commandContext(finance), paid, {
      reason,
      items: [{ lineItemId: line!.id, amount }],
      requestedBy: 'client:replay-recorder',
    });
    return backend.client.workflow.getHandle<typeof refundWorkflow>(
      refundWorkflowId(backend.seed.tenant, refunding.id),
    );
  }

  test('a partial refund given back', async () => {
    const handle = await refundOf('4.00', 'replay recorder');
    expect((await settle(backend, handle)).state).toBe('REFUNDED');
    await recordHistory('refund-refunded', handle);
  });

  test('a refund the gateway refuses', async () => {
    const handle = await refundOf('10.00', 'replay recorder sandbox:fail');
    expect((await settle(backend, handle)).state).toBe('EXCEPTION_REFUND');
    await recordHistory('refund-exception', handle);
  });

  test('a refund past what was paid is rejected', async () => {
    const customer = await payingCustomer(finance, backend.seed.customerIds[0]!, 'tok_sandbox_visa');
    const invoice = await openInvoice(finance, customer, ['10.00']);
    const payment = await billAndPay(finance, invoice.id);
    expect((await settle(backend, backend.client.workflow.getHandle(payment.workflowId))).state).toBe('PAID');
    const [line] = await tenantEm(backend.orm, backend.seed.tenant).find(InvoiceLine, {
      invoice: invoice.id,
    });
    // Started directly (the API's own check would refuse it first): the workflow's first step refuses it.
    const [{ id: refundInvoiceId }] = await tenantEm(backend.orm, backend.seed.tenant).execute<
      [{ id: number }]
    >(`select nextval('invoice_id_seq')::int as id`);
    const handle = await backend.client.workflow.start<typeof refundWorkflow>(
      REFUND_WORKFLOW_TYPE,
      refundWorkflowStartOptions(
        {
          tenant: backend.seed.tenant,
          refundInvoiceId,
          invoiceId: invoice.id,
          businessUnitId: invoice.businessUnit.id,
          customerId: customer.id,
          reason: 'replay recorder',
          items: [{ lineItemId: line!.id, amount: '10.01' }],
          requestedBy: 'client:replay-recorder',
        },
        backend.taskQueue,
      ),
    );
    const result = await settle(backend, handle);
    expect(result).toMatchObject({ state: 'REJECTED', refusal: { code: 'I127' } });
    await recordHistory('refund-rejected', handle);
  });
});

group('recurring task workflow', () => {
  let backend: TestBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  /** A due point of a recurring task, started as its schedule starts it (id: prefix + scheduled time). */
  async function duePoint(recurringTaskId: number) {
    const handle = await backend.client.workflow.start(RECURRING_TASK_DUE_WORKFLOW_TYPE, {
      workflowId: `${recurringTaskDueWorkflowId(backend.seed.tenant, recurringTaskId)}-2026-11-30T06:30:00Z`,
      taskQueue: backend.taskQueue,
      args: [{ tenant: backend.seed.tenant, recurringTaskId }],
    });
    return { handle, result: (await handle.result()) as { taskId: number | null } };
  }

  test('a due point creates its child', async () => {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const recurring = em.create(RecurringTask, {
      branchId: backend.seed.branchId,
      title: 'Weekly inspection',
      daysOfWeek: ['MONDAY'],
      timeOfDay: '07:30',
      timezone: 'Europe/Berlin',
      baselineAt: new Date(),
    });
    await em.flush();
    const { handle, result } = await duePoint(recurring.id);
    expect(result.taskId).toEqual(expect.any(Number));
    await recordHistory('recurring-task-due-created', handle);
  });

  test('usage: a child after an ended rental, then the recurring task deleted', async () => {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const model = await em.findOneOrFail(Vehicle, { branch: backend.seed.branchId });
    const vehicle = em.create(Vehicle, {
      code: `REPLAY-USAGE-${Date.now()}`,
      branch: model.branch,
      category: model.category,
      odometerKm: 100,
    });
    const recurring = em.create(RecurringTask, {
      branchId: backend.seed.branchId,
      title: 'Service check',
      everyRentals: 1,
      baselineAt: new Date(),
    });
    await em.flush();
    recurring.vehicleId = vehicle.id;
    await em.flush();
    const handle = await backend.client.workflow.start(
      RECURRING_TASK_USAGE_WORKFLOW_TYPE,
      recurringTaskUsageStartOptions(
        backend.seed.tenant,
        recurring.id,
        backend.seed.branchId,
        backend.taskQueue,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    const now = new Date();
    em.create(Rental, {
      id,
      workflowId: `replay-usage-${id}`,
      state: 'ENDED',
      branch: model.branch,
      vehicle,
      customer: em.getReference(Customer, backend.seed.customerIds[0]!),
      reservedAt: new Date(now.getTime() - 60_000),
      startedAt: new Date(now.getTime() - 50_000),
      endedAt: now,
    });
    await em.flush();
    await backend.testEnv!.sleep(RECURRING_TASK_USAGE_CHECK_SECONDS * 1000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await em.count(Task, { recurringTaskId: recurring.id })).toBe(1);
    await em.nativeDelete(RecurringTask, { id: recurring.id });
    await backend.testEnv!.sleep(RECURRING_TASK_USAGE_CHECK_SECONDS * 1000);
    await handle.result();
    await recordHistory('recurring-task-usage-due-then-gone', handle);
  });

  test('a due point of a deleted recurring task creates nothing', async () => {
    const { handle, result } = await duePoint(2_000_000_000);
    expect(result).toEqual({ taskId: null });
    await recordHistory('recurring-task-due-gone', handle);
  });
});

group('export workflows', () => {
  let backend: TestBackend;
  let receiver: http.Server;
  let url: string;
  let dropped = 0;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
    // The first POST of each path is cut off (a network error), later ones answered 204.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/flaky' && dropped++ === 0) req.socket.destroy();
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await backend?.stop();
  });

  async function exportRow(fields: Partial<DataExport> = {}): Promise<DataExport> {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const row = em.create(DataExport, {
      name: 'Replay export',
      queryId: 10,
      branchIds: [backend.seed.cityBranchId],
      periodLastDays: 7,
      retentionDays: 1,
      ownerSubjectType: 'API_CLIENT',
      ownerSubjectId: 'demo-operator',
      createdBy: 'replay',
      ...fields,
    });
    await em.flush();
    return row;
  }

  async function startRun(definition: DataExport) {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('export_run_id_seq')::int as id`);
    em.create(ExportRun, {
      id,
      exportId: definition.id,
      queryId: definition.queryId,
      trigger: 'MANUAL',
      periodFrom: new Date(Date.now() - 7 * DAY),
      periodTo: new Date(),
      workflowId: exportRunWorkflowId(backend.seed.tenant, id),
      createdBy: 'replay',
      downloadKey: newDownloadKey(),
    });
    await em.flush();
    const handle = await backend.client.workflow.start(
      EXPORT_RUN_WORKFLOW_TYPE,
      exportRunStartOptions({ tenant: backend.seed.tenant, runId: id }, backend.taskQueue),
    );
    return { handle, runId: id };
  }

  let succeededRunId: number;

  test('a run whose webhook is retried once after a network error', async () => {
    const { handle, runId } = await startRun(await exportRow({ webhookUrl: `${url}/flaky` }));
    const em = tenantEm(backend.orm, backend.seed.tenant);
    for (let i = 0; i < 200 && !(await em.count(ExportDelivery, { runId, outcome: 'NETWORK_ERROR' })); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await settle(backend, handle, '11 seconds');
    expect(result).toMatchObject({
      state: 'SUCCEEDED',
      notifications: [{ outcome: 'DELIVERED', attempts: 2 }],
    });
    succeededRunId = runId;
    await recordHistory('export-run-webhook-retried', handle);
  });

  test('a run whose owner may not read the branch fails', async () => {
    const { handle } = await startRun(await exportRow({ ownerSubjectId: 'nobody' }));
    expect(await settle(backend, handle)).toEqual({ state: 'FAILED', errorCode: 'EX403' });
    await recordHistory('export-run-failed', handle);
  });

  test('a schedule firing makes its run as a child', async () => {
    const definition = await exportRow();
    const handle = await backend.client.workflow.start(EXPORT_SCHEDULE_FIRE_WORKFLOW_TYPE, {
      workflowId: `${exportScheduleFireWorkflowId(backend.seed.tenant, definition.id)}-2026-11-30T05:00:00Z`,
      taskQueue: backend.taskQueue,
      args: [{ tenant: backend.seed.tenant, exportId: definition.id }],
    });
    expect(await settle(backend, handle)).toMatchObject({ state: 'SUCCEEDED' });
    await recordHistory('export-schedule-fire', handle);
  });

  test('a firing of a deleted export makes nothing', async () => {
    const handle = await backend.client.workflow.start(EXPORT_SCHEDULE_FIRE_WORKFLOW_TYPE, {
      workflowId: `${exportScheduleFireWorkflowId(backend.seed.tenant, 2_000_000_000)}-2026-11-30T05:00:00Z`,
      taskQueue: backend.taskQueue,
      args: [{ tenant: backend.seed.tenant, exportId: 2_000_000_000 }],
    });
    expect(await settle(backend, handle)).toBeNull();
    await recordHistory('export-schedule-fire-gone', handle);
  });

  test('a webhook replayed by hand', async () => {
    const options = exportNotificationStartOptions(
      {
        tenant: backend.seed.tenant,
        runId: succeededRunId,
        targets: [{ channel: 'WEBHOOK', target: `${url}/replayed` }],
      },
      'replay-recorder',
      backend.taskQueue,
    );
    const handle = await backend.client.workflow.start(EXPORT_NOTIFICATION_WORKFLOW_TYPE, options);
    expect(await settle(backend, handle)).toEqual([
      { channel: 'WEBHOOK', target: `${url}/replayed`, outcome: 'DELIVERED', attempts: 1 },
    ]);
    await recordHistory('export-notification-replay', handle);
  });

  test('the retention cleanup deletes a lapsed file', async () => {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    await em.nativeUpdate(ExportRun, { id: succeededRunId }, { expiresAt: new Date(Date.now() - 1000) });
    const handle = await backend.client.workflow.start(EXPORT_RETENTION_WORKFLOW_TYPE, {
      workflowId: `export-retention:${backend.seed.tenant}-replay`,
      taskQueue: backend.taskQueue,
      args: [{ tenant: backend.seed.tenant }],
    });
    expect(await settle(backend, handle)).toEqual({ deleted: 1 });
    await recordHistory('export-retention', handle);
  });
});

group('platform webhooks dispatcher workflow', () => {
  let backend: TestBackend;
  let receiver: http.Server;
  let url: string;
  /** What the receiver got, by path; the first POST to /flaky is answered 500, every other 204. */
  const received: string[] = [];
  const allowedBefore = process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;

  beforeAll(async () => {
    // The receiver listens on 127.0.0.1 (docs/webhooks.md, "Targets").
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    backend = await startTestBackend({ timeSkipping: true });
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '/';
        const failed = path === '/flaky' && !received.includes(path);
        received.push(path);
        res.writeHead(failed ? 500 : 204).end(failed ? 'down for maintenance' : undefined);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await backend?.stop();
    if (allowedBefore === undefined) delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    else process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = allowedBefore;
  });

  /**
   * A subscription to vehicle base-data changes POSTed to `path`, `count` such changes of the vehicle at
   * `vehicleIndex` recorded in one transaction (with their outbox rows), and its dispatcher started and
   * woken as the worker's starter does when the outbox rows commit.
   */
  async function subscribeAndRecord(path: string, vehicleIndex: number, count: number) {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const subscription = em.create(WebhookSubscription, {
      url: `${url}${path}`,
      eventTypes: ['VEHICLE_BASE_DATA_CHANGED'],
      createdBy: 'client:replay-recorder',
    });
    em.create(WebhookSigningSecret, { subscription, secret: newWebhookSecret() });
    await em.flush();
    const vehicle = (await em.find(Vehicle, {}, { orderBy: { id: 'asc' } }))[vehicleIndex]!;
    await em.fork().transactional(async (tx) => {
      for (let change = 1; change <= count; change++)
        recordEvent(tx, {
          type: 'VEHICLE_BASE_DATA_CHANGED',
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          adminSubject: 'client:replay-recorder',
          payload: {
            vehicleId: vehicle.id,
            code: vehicle.code,
            changes: { licensePlate: { from: null, to: `B-RP ${change}` } },
          },
        });
    });
    const handle = await wake(subscription.id);
    return { subscription, handle };
  }

  /** Signal-with-start of the subscription's dispatcher (workers/webhook-dispatch-starter.ts). */
  function wake(subscriptionId: number): Promise<WorkflowHandle<typeof webhookDispatcherWorkflow>> {
    return backend.client.workflow.signalWithStart<typeof webhookDispatcherWorkflow, []>(
      WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
      webhookDispatcherSignalWithStart({ tenant: backend.seed.tenant, subscriptionId }, backend.taskQueue),
    );
  }

  /** Waits (without skipping time) until the subscription's recorded attempts match `where`. */
  async function attempts(subscriptionId: number, where: { success: boolean }, count: number) {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    for (let tries = 0; tries < 400; tries++) {
      if ((await em.fork().count(WebhookDelivery, { subscriptionId, ...where })) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(
      `subscription ${subscriptionId} never recorded ${count} attempt(s) ${JSON.stringify(where)}`,
    );
  }

  /** Pauses the subscription and wakes its dispatcher, whose next step ends it. */
  async function pause(subscription: WebhookSubscription) {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    await em.nativeUpdate(WebhookSubscription, { id: subscription.id }, { active: false });
    return wake(subscription.id);
  }

  test("an entity's two messages delivered one step after the other, then the subscription paused", async () => {
    const { subscription, handle } = await subscribeAndRecord('/delivered', 0, 2);
    await attempts(subscription.id, { success: true }, 2);
    expect(received.filter((path) => path === '/delivered')).toHaveLength(2);
    await pause(subscription);
    expect(await settle(backend, handle)).toBeUndefined();
    await recordHistory('webhook-dispatcher-delivered', handle);
  });

  test('a failed attempt retried after the (skipped) 10 s, then the subscription paused', async () => {
    const { subscription, handle } = await subscribeAndRecord('/flaky', 1, 1);
    await attempts(subscription.id, { success: false }, 1);
    await backend.testEnv!.sleep('11 seconds');
    await attempts(subscription.id, { success: true }, 1);
    expect(received.filter((path) => path === '/flaky')).toHaveLength(2);
    await pause(subscription);
    expect(await settle(backend, handle)).toBeUndefined();
    await recordHistory('webhook-dispatcher-retried', handle);
  });
});
