// Crash recovery of an export run: the worker process (composition/worker-main.ts) is killed (SIGKILL)
// in the middle of writing the CSV, and the next one in the middle of the webhook POST. The run ends
// with one file (the object key is the run's, the retried upload overwrote it), one SUCCEEDED row, and
// one notification: the receiver saw the same webhook-id twice (attempt 1 cut off, attempt 2 answered),
// which is what receivers de-duplicate on.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Client, Connection } from '@temporalio/client';
import { DataExport } from '../db/entities/DataExport.js';
import { ExportDelivery } from '../db/entities/ExportDelivery.js';
import { ExportRun } from '../db/entities/ExportRun.js';
import { tenantEm, type MikroORM } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { newDownloadKey } from '../activities/exports.js';
import { connectOrm } from '../composition/orm.js';
import { seedTenant } from '../composition/seed.js';
import { loadConfig } from '../platform/config.js';
import { s3ObjectStore, s3SettingsOf } from '../platform/object-store.js';
import {
  EXPORT_RUN_WORKFLOW_TYPE,
  exportRunStartOptions,
  exportRunWorkflowId,
  type ExportRunResult,
} from '../workflows/export.messages.js';
import { uniqueTenant } from './support/stack.js';
import { startWorkerProcess as startWorkerProcessOf, killWorkerProcess } from './support/worker-process.js';

const taskQueue = `export-recovery-${randomBytes(3).toString('hex')}`;
const workers: ChildProcess[] = [];
const EVENTS = 400_000;

let orm: MikroORM;
let seed: SeededTenant;
let connection: Connection;
let client: Client;
let receiver: http.Server;
let receiverUrl: string;
const received: http.IncomingHttpHeaders[] = [];
let holdFirst = true;

/** Starts `composition/worker-main.ts` as its own process and resolves once it polls the task queue. */
async function startWorkerProcess(): Promise<ChildProcess> {
  return startWorkerProcessOf(
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      // Its starters pick up this suite's tenant only, not the tenants of suites running beside it.
      WORKER_STARTER_TENANTS: seed.tenant,
      // The receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
    workers,
  );
}

const kill = killWorkerProcess;

/** Polls until `probe` answers something truthy. */
async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  orm = await connectOrm(process.env.DATABASE_URL!, { pool: { min: 0, max: 4 } });
  seed = await seedTenant(orm.em, uniqueTenant('exprec'), 'Export Recovery');
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: 'default' });
  // Enough events that writing them takes a while.
  await orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into event (tenant_id, type, created_at, branch_id, description, payload)
       select ?, 'TEST_EVENT', now() - (g || ' seconds')::interval, ?, 'event ' || g, jsonb_build_object('n', g)
         from generate_series(1, ?) g`,
      [seed.tenant, seed.cityBranchId, EVENTS],
    );
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers);
      // The first POST is held until its worker dies; later ones are answered.
      if (!holdFirst) res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 120_000);

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await connection?.close();
  await orm?.close();
});

test('a worker killed mid-export and the next mid-delivery: one file, one notification, one webhook-id', async () => {
  const em = tenantEm(orm, seed.tenant);
  const definition = em.create(DataExport, {
    name: 'All events',
    queryId: 8,
    branchIds: [seed.cityBranchId],
    periodLastDays: 30,
    retentionDays: 1,
    webhookUrl: receiverUrl,
    ownerSubjectType: 'API_CLIENT',
    ownerSubjectId: 'demo-operator',
    createdBy: 'test',
  });
  await em.flush();
  const [{ id }] = await em.execute<{ id: number }[]>(`select nextval('export_run_id_seq') as id`);
  const runId = Number(id);
  em.create(ExportRun, {
    id: runId,
    exportId: definition.id,
    queryId: 8,
    trigger: 'MANUAL',
    periodFrom: new Date(Date.now() - 30 * 86_400_000),
    periodTo: new Date(),
    workflowId: exportRunWorkflowId(seed.tenant, runId),
    createdBy: 'test',
    downloadKey: newDownloadKey(),
  });
  await em.flush();

  const first = await startWorkerProcess();
  const handle = await client.workflow.start(
    EXPORT_RUN_WORKFLOW_TYPE,
    exportRunStartOptions({ tenant: seed.tenant, runId }, taskQueue),
  );
  // Mid-export: the file activity has started and reported rows written.
  await eventually(async () => {
    const { raw } = await handle.describe();
    return raw.pendingActivities?.some(
      (activity) => activity.activityType?.name === 'writeExportFile' && activity.heartbeatDetails,
    );
  }, 'the export to be under way');
  await kill(first);
  expect((await tenantEm(orm, seed.tenant).findOneOrFail(ExportRun, runId)).state).toBe('RUNNING');

  const second = await startWorkerProcess();
  // Mid-delivery: the receiver holds the first POST.
  await eventually(async () => received.length === 1, 'the first webhook attempt');
  await kill(second);
  holdFirst = false;
  receiver.closeAllConnections();
  await startWorkerProcess();
  const result = (await handle.result()) as ExportRunResult;

  // The seed's own events in the branch come on top of the test's.
  const [{ n }] = await tenantEm(orm, seed.tenant).execute<{ n: string }[]>(
    `select count(*) as n from event where tenant_id = ? and branch_id in (select id from branch where tenant_id = ? and (id = ? or parent_id = ?))`,
    [seed.tenant, seed.tenant, seed.cityBranchId, seed.cityBranchId],
  );
  expect(result).toMatchObject({
    state: 'SUCCEEDED',
    rows: Number(n),
    notifications: [{ channel: 'WEBHOOK', outcome: 'DELIVERED', attempts: 2 }],
  });
  // One file under the run's key.
  const store = s3ObjectStore(s3SettingsOf(loadConfig())!);
  const listed = await store.client.send(
    new ListObjectsV2Command({ Bucket: store.bucket, Prefix: `exports/${seed.tenant}/` }),
  );
  expect(listed.Contents?.map((object) => object.Key)).toEqual([`exports/${seed.tenant}/${runId}.csv`]);
  const run = await tenantEm(orm, seed.tenant).findOneOrFail(ExportRun, runId);
  expect({ state: run.state, rowCount: run.rowCount }).toEqual({ state: 'SUCCEEDED', rowCount: Number(n) });
  expect((await store.head(run.objectKey!))!.size).toBe(run.byteSize);
  store.close();
  // The same webhook-id on both attempts; one answered.
  expect(
    received.map((headers) => [headers['webhook-id'], headers['x-webhook-dispatch-attempt-count']]),
  ).toEqual([
    [`export-run:${seed.tenant}:${runId}`, '1'],
    [`export-run:${seed.tenant}:${runId}`, '2'],
  ]);
  const deliveries = await tenantEm(orm, seed.tenant).find(
    ExportDelivery,
    { runId },
    { orderBy: { id: 'asc' } },
  );
  expect(deliveries.map((row) => [row.attempt, row.outcome])).toEqual([
    [1, 'INTERRUPTED'],
    [2, 'DELIVERED'],
  ]);
}, 180_000);
