// Records the work, export and platform webhook workflows' histories for the replay tests; see
// record-histories.ts.
import { type WorkflowHandle } from '@temporalio/client';
import { Customer } from '../../db/entities/Customer.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { tenantEm } from '../../db/orm.js';
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
import { DAY, group, settle } from './recording.js';

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
