// Exports over HTTP on the dev server: the report catalogue, a one-time export's run and its download
// (303 to a pre-signed link valid 7 days, a fresh one per call, the CSV fetched through it, EX410 after
// expirationDate), retention deletion by the retention workflow, a recurring export's Temporal Schedule
// paused and resumed (and a firing making one run), branch permissions at definition and at run time,
// hostile input on every route, and another tenant's ids.
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { ExportRun } from '../db/entities/ExportRun.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { reportQueries } from '../domain/exports.js';
import { configuredObjectStore } from '../composition/object-store.js';
import { stringify } from 'csv-stringify/sync';
import { streamReportCsv } from '../db/exports.js';
import { reportColumnNames, reportCopySql, reportSql } from '../db/export-queries.js';
import { hashSecret } from '../platform/secrets.js';
import {
  EXPORT_RETENTION_WORKFLOW_TYPE,
  exportRunWorkflowId,
  exportScheduleId,
} from '../workflows/export.messages.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let restricted: string;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, { token: session.operatorToken, ...options });
const back = (path: string) => session.stack.back(path);

beforeAll(async () => {
  session = await startSession({ rival: true });
  const em = session.em();
  const role = em.create(Role, { name: 'Exporter', permissions: ['EXPORT_READ', 'EXPORT_MANAGE'] });
  em.create(ApiClient, {
    clientId: 'exporter',
    name: 'Exporter',
    secretHash: await hashSecret('exporter-secret'),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: 'exporter',
    branch: em.getReference(Branch, session.seed.branchId),
  });
  await em.flush();
  restricted = await session.stack.token(session.seed.tenant, {
    clientId: 'exporter',
    clientSecret: 'exporter-secret',
  });
}, 180_000);

afterAll(async () => {
  if (session) {
    const { client } = session.backend;
    for (const id of [...createdSchedules, `export-retention:${session.seed.tenant}`])
      await client.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    await session.stop();
  }
});

const createdSchedules: string[] = [];

/**
 * Waits for a run's workflow and answers the run as the API shows it. A scheduled firing writes the run
 * row before it starts the run's workflow, so the workflow may not exist yet when the row is seen.
 */
async function finishedRun(runId: number): Promise<Reply> {
  const handle = session.backend.client.workflow.getHandle(exportRunWorkflowId(session.seed.tenant, runId));
  for (let tries = 0; ; tries += 1) {
    try {
      await handle.result();
      break;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError) || tries >= 300) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return call('GET', back(`/exports/runs/${runId}`));
}

const oneTime = (fields: Record<string, unknown> = {}) => ({
  name: 'Last month of rentals',
  queryId: 1,
  branchIds: [session.seed.cityBranchId],
  period: { lastDays: 30 },
  ...fields,
});

test('the catalogue lists every report and its columns', async () => {
  const list = await call('GET', back('/report-queries'));
  expect(list.status).toBe(200);
  expect(list.body.map((query: { key: string }) => query.key)).toEqual(
    reportQueries.map((query) => query.key),
  );
  const tasks = await call('GET', back('/report-queries/10'));
  expect(tasks.body.columns[0]).toEqual({ name: 'taskId', type: 'integer', description: 'task id' });
  expectError(await call('GET', back('/report-queries/999')), 404, 'EX407');
});

test('a one-time export: its run, 303 to a fresh pre-signed link, the CSV, EX410 after expiry, retention', async () => {
  const created = await call('POST', back('/exports'), { body: oneTime() });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    queryName: 'Rentals',
    retentionDays: 31,
    schedule: null,
    format: 'CSV',
  });
  const run = await finishedRun(created.body.lastRunId);
  expect(run.body).toMatchObject({ state: 'SUCCEEDED', trigger: 'ONE_TIME', fileDeleted: false });
  const expected = await session
    .em()
    .execute<{ n: string }[]>(
      `select count(*) as n from rental where tenant_id = ? and created_at >= ? and created_at < ?`,
      [session.seed.tenant, run.body.periodFrom, run.body.periodTo],
    );
  expect(run.body.rowCount).toBe(Number(expected[0]!.n));
  const expiration = Date.parse(run.body.expirationDate) - Date.parse(run.body.completedAt);
  expect(expiration).toBe(31 * 86_400_000);

  const path = new URL(run.body.exportUrl).pathname + new URL(run.body.exportUrl).search;
  const first = await fetch(`${session.stack.baseUrl}${path}`, { redirect: 'manual' });
  expect(first.status).toBe(303);
  const location = new URL(first.headers.get('location')!);
  expect(location.searchParams.get('X-Amz-Expires')).toBe(String(7 * 86_400));
  await new Promise((resolve) => setTimeout(resolve, 1100)); // a signature is per second
  const second = await fetch(`${session.stack.baseUrl}${path}`, { redirect: 'manual' });
  expect(second.headers.get('location')).not.toBe(first.headers.get('location'));
  const csv = await (await fetch(second.headers.get('location')!)).text();
  const lines = csv.trimEnd().split('\n');
  expect(lines[0]).toBe(reportQueries[0].columns.map((column) => column.name).join(','));
  expect(lines).toHaveLength(run.body.rowCount + 1);

  // A wrong key is an unknown run; after expirationDate the address answers EX410.
  expectError(
    await session.stack.call('GET', back(`/exports/runs/${run.body.id}/download?key=nope`)),
    404,
    'EX405',
  );
  await session.em().nativeUpdate(ExportRun, { id: run.body.id }, { expiresAt: new Date(Date.now() - 1000) });
  expectError(await session.stack.call('GET', path), 410, 'EX410');

  // The retention workflow (what the hourly schedule starts) deletes the lapsed file.
  const store = configuredObjectStore();
  const key = `exports/${session.seed.tenant}/${run.body.id}.csv`;
  expect(await store.head(key)).toBeDefined();
  const { client, taskQueue } = session.backend;
  const result = await client.workflow.execute(EXPORT_RETENTION_WORKFLOW_TYPE, {
    workflowId: `export-retention-test:${session.seed.tenant}`,
    taskQueue,
    args: [{ tenant: session.seed.tenant }],
  });
  expect(result).toEqual({ deleted: 1 });
  expect(await store.head(key)).toBeUndefined();
  expect((await call('GET', back(`/exports/runs/${run.body.id}`))).body).toMatchObject({
    fileDeleted: true,
    exportUrl: null,
  });
  // The retention schedule exists, hourly.
  const retention = await client.schedule.getHandle(`export-retention:${session.seed.tenant}`).describe();
  expect(retention.spec.intervals?.[0]?.every).toBe(3_600_000);

  // The run log; a replay is a new run over the same period.
  const log = await call('GET', back(`/exports/${created.body.id}/runs`));
  expect(log.body.map((row: { id: number }) => row.id)).toEqual([run.body.id]);
  const replay = await call('POST', back(`/exports/runs/${run.body.id}/replay`));
  expect(replay.status).toBe(201);
  const replayed = await finishedRun(replay.body.id);
  expect(replayed.body).toMatchObject({
    state: 'SUCCEEDED',
    trigger: 'REPLAY',
    replayOfRunId: run.body.id,
    periodFrom: run.body.periodFrom,
    periodTo: run.body.periodTo,
    rowCount: run.body.rowCount,
  });
}, 90_000);

test('a recurring export: its schedule in the time zone, paused and resumed, a firing makes one run', async () => {
  const created = await call('POST', back('/exports'), {
    body: oneTime({
      name: 'Weekly tasks',
      queryId: 10,
      schedule: { cron: '30 6 * * MON', timezone: 'Europe/Berlin' },
      period: { lastDays: 7 },
      retentionDays: 7,
    }),
  });
  expect(created.status).toBe(201);
  const scheduleId = exportScheduleId(session.seed.tenant, created.body.id);
  createdSchedules.push(scheduleId);
  expect(created.body.schedule).toEqual({ cron: '30 6 * * MON', timezone: 'Europe/Berlin', scheduleId });
  expect(created.body.lastRunId).toBeNull();
  const handle = session.backend.client.schedule.getHandle(scheduleId);
  const described = await handle.describe();
  expect(described.spec.timezone).toBe('Europe/Berlin');
  expect(described.state.paused).toBe(false);

  const paused = await call('POST', back(`/exports/${created.body.id}/pause`));
  expect(paused.body.state).toBe('PAUSED');
  expect((await handle.describe()).state.paused).toBe(true);
  const resumed = await call('POST', back(`/exports/${created.body.id}/resume`));
  expect(resumed.body.state).toBe('ACTIVE');
  expect((await handle.describe()).state.paused).toBe(false);

  await handle.trigger();
  let runId: number | null = null;
  for (let i = 0; i < 100 && runId === null; i += 1) {
    runId = (await call('GET', back(`/exports/${created.body.id}`))).body.lastRunId;
    if (runId === null) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const run = await finishedRun(runId!);
  expect(run.body).toMatchObject({ state: 'SUCCEEDED', trigger: 'SCHEDULE', queryName: 'Tasks' });
  expect(Date.parse(run.body.periodTo) - Date.parse(run.body.periodFrom)).toBe(7 * 86_400_000);

  // A one-time export has no schedule to pause.
  const single = await call('POST', back('/exports'), { body: oneTime({ queryId: 6, period: undefined }) });
  expectError(await call('POST', back(`/exports/${single.body.id}/pause`)), 409, 'EX409');
  // Deleting removes the schedule.
  expect((await call('DELETE', back(`/exports/${created.body.id}`))).status).toBe(204);
  await expect(handle.describe()).rejects.toThrow();
  expectError(await call('GET', back(`/exports/${created.body.id}`)), 404, 'EX404');
}, 90_000);

test('an operator exports only branches they may read, checked again when a run executes', async () => {
  const asRestricted = (method: string, path: string, body?: unknown) =>
    session.stack.call(method, back(path), { token: restricted, body });
  expectError(
    await asRestricted('POST', '/exports', oneTime({ branchIds: [session.seed.otherBranchId] })),
    403,
    'AUTH002',
  );
  expectError(
    await asRestricted(
      'POST',
      '/exports',
      oneTime({ branchIds: [session.seed.branchId, session.seed.cityBranchId] }),
    ),
    403,
    'AUTH002',
  );
  const other = await call('POST', back('/exports'), { body: oneTime() });
  expectError(await asRestricted('GET', `/exports/${other.body.id}`), 403, 'AUTH002');
  expectError(await asRestricted('GET', `/exports/runs/${other.body.lastRunId}/deliveries`), 403, 'AUTH002');

  const own = await asRestricted('POST', '/exports', oneTime({ branchIds: [session.seed.branchId] }));
  expect(own.status).toBe(201);
  expect((await finishedRun(own.body.lastRunId)).body.state).toBe('SUCCEEDED');
  const listed = await asRestricted('GET', `/exports?branchId=${session.seed.branchId}`);
  expect(listed.body.map((row: { id: number }) => row.id)).toEqual([own.body.id]);

  // The grant is revoked: the next run fails with EX403 and sends nothing.
  await session.em().nativeDelete(RoleAssignment, { subjectId: 'exporter' });
  const again = await call('POST', back(`/exports/${own.body.id}/runs`));
  expect(again.status).toBe(201);
  const failed = await finishedRun(again.body.id);
  expect(failed.body).toMatchObject({ state: 'FAILED', errorCode: 'EX403', exportUrl: null });
  expect((await call('GET', back(`/exports/runs/${again.body.id}/deliveries`))).body).toEqual([]);
}, 60_000);

test('the file is csv-stringify’s rendering of the rows, byte for byte; parameters are literals, never SQL', async () => {
  const em = session.em();
  const { tenant, branchId } = session.seed;
  // Values CSV writers disagree on, in a period of their own (2001) so nothing else falls in it.
  const texts = [
    '',
    null,
    'a,b',
    'say "hi"',
    'line\nbreak',
    'carriage\rreturn',
    'crlf\r\nend',
    '\\.',
    ' padded ',
    "o'clock \\ back",
    '$1 $2::int[]',
    'ünïcödé ✓ 日本',
    '=1+2',
    '"',
  ];
  for (const [i, text] of texts.entries())
    await em.execute(
      `insert into event (tenant_id, type, created_at, branch_id, admin_subject, description, payload)
       values (?, 'TEST_EVENT', timestamptz '2001-01-01T00:00:00Z' + ? * interval '1 second', ?, ?, ?, cast(? as jsonb))`,
      [tenant, i, branchId, text === null ? null : '', text, JSON.stringify({ text, n: i })],
    );
  const period = { from: new Date('2001-01-01T00:00:00Z'), to: new Date('2001-01-02T00:00:00Z') };
  const parameters = { tenant, branchIds: [branchId], ...period };
  const collect = async (values: typeof parameters) => {
    let bytes = Buffer.alloc(0);
    const result = await streamReportCsv(em, 'events', values, async (csv) => {
      const chunks: Buffer[] = [];
      for await (const chunk of csv) chunks.push(chunk as Buffer);
      bytes = Buffer.concat(chunks);
      return { size: bytes.length };
    });
    return { ...result, bytes };
  };
  const exported = await collect(parameters);
  // What csv-stringify writes for the same statement's rows (the export's former path).
  const pool = (await em.getConnection().getNativeClient()) as unknown as {
    query(text: string, values: unknown[]): Promise<{ rows: Record<string, string | null>[] }>;
  };
  const { rows } = await pool.query(reportSql('events'), [
    tenant,
    [branchId],
    period.from.toISOString(),
    period.to.toISOString(),
  ]);
  expect(rows).toHaveLength(texts.length);
  const expected = stringify(rows, { delimiter: ',', header: true, columns: reportColumnNames('events') });
  expect(exported.bytes.toString('utf8')).toBe(expected);
  expect({ rows: exported.rows, size: exported.size }).toEqual({
    rows: texts.length,
    size: Buffer.byteLength(expected),
  });
  // An empty text and a null are both an empty field; JSON is quoted with its quotes doubled.
  expect(exported.bytes.toString('utf8').split('\n')[1]).toMatch(
    /^\d+,TEST_EVENT,2001-01-01T00:00:00\.000Z,\d+,,,,,,,"\{""n"": 0, ""text"": """"\}"$/,
  );

  // Hostile parameter values are quoted literals: they match nothing instead of widening the filter.
  for (const value of ["x' or true or '", "x\\' or true --", '$2', "bench'); drop table event; --"])
    expect((await collect({ ...parameters, tenant: value })).rows).toBe(0);
  const quote = (value: string) => `'${value}'`;
  expect(() => reportCopySql('events', { ...parameters, branchIds: [1.5] }, quote)).toThrow(TypeError);
  expect(() => reportCopySql('events', { ...parameters, branchIds: [Number.NaN] }, quote)).toThrow(TypeError);
  expect(() => reportCopySql('events', { ...parameters, from: new Date('nope') }, quote)).toThrow(TypeError);
  expect(reportCopySql('events', { ...parameters, from: null, to: null }, quote)).toMatch(
    /^copy \(select .* from event x where x\.tenant_id = '.+' and x\.branch_id = any\(array\[\d+\]::int\[\]\) and \(null::timestamptz is null/,
  );
});

test('hostile input on every route, and another tenant’s ids', async () => {
  const created = await call('POST', back('/exports'), {
    body: oneTime({ notifications: { emails: ['a@b.test'] } }),
  });
  const run = await finishedRun(created.body.lastRunId);
  const id = created.body.id;
  const runId = run.body.id;
  const cases: [string, string, unknown, number, string][] = [
    ['POST', '/exports', oneTime({ queryId: '0x1' }), 400, '0022'],
    ['POST', '/exports', oneTime({ queryId: 1e3 + 0.5 }), 400, '0022'],
    ['POST', '/exports', oneTime({ queryId: 999 }), 422, 'EX100'],
    ['POST', '/exports', oneTime({ name: 'a\u0000b' }), 400, '0022'],
    ['POST', '/exports', oneTime({ branchIds: [] }), 400, '0022'],
    ['POST', '/exports', oneTime({ branchIds: [2147483648] }), 400, '0022'],
    ['POST', '/exports', oneTime({ branchIds: [999999] }), 404, 'B404'],
    ['POST', '/exports', oneTime({ retentionDays: 2 }), 400, '0022'],
    ['POST', '/exports', oneTime({ format: 'XLSX' }), 400, '0022'],
    ['POST', '/exports', oneTime({ extra: true }), 400, '0022'],
    [
      'POST',
      '/exports',
      oneTime({ period: { from: '2025-02-30T00:00:00Z', to: '2025-03-02T00:00:00Z' } }),
      400,
      '0022',
    ],
    [
      'POST',
      '/exports',
      oneTime({ period: { from: '2025-03-02T00:00:00Z', to: '2025-03-01T00:00:00Z' } }),
      422,
      'EX101',
    ],
    ['POST', '/exports', oneTime({ period: { from: '2025-03-02T00:00:00Z' } }), 422, 'EX101'],
    [
      'POST',
      '/exports',
      oneTime({ period: { from: '2020-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' } }),
      422,
      'EX101',
    ],
    [
      'POST',
      '/exports',
      oneTime({ period: { lastDays: 7, from: '2025-03-01T00:00:00Z', to: '2025-03-02T00:00:00Z' } }),
      422,
      'EX101',
    ],
    ['POST', '/exports', oneTime({ period: { lastDays: 0 } }), 400, '0022'],
    ['POST', '/exports', oneTime({ period: undefined }), 422, 'EX101'],
    ['POST', '/exports', oneTime({ schedule: { cron: '* * * * *' } }), 422, 'EX102'],
    ['POST', '/exports', oneTime({ schedule: { cron: '0 25 * * *' } }), 422, 'EX102'],
    ['POST', '/exports', oneTime({ schedule: { cron: '0 6 * *' } }), 422, 'EX102'],
    // Never fires: February has no 31st, April and June no 31st either.
    ['POST', '/exports', oneTime({ schedule: { cron: '0 6 31 2 *' } }), 422, 'EX102'],
    ['POST', '/exports', oneTime({ schedule: { cron: '0 6 30,31 FEB *' } }), 422, 'EX102'],
    ['POST', '/exports', oneTime({ schedule: { cron: '0 6 31 4,6 *' } }), 422, 'EX102'],
    [
      'POST',
      '/exports',
      oneTime({ schedule: { cron: '0 6 * * 1', timezone: 'Mars/Olympus' } }),
      422,
      'EX103',
    ],
    ['POST', '/exports', oneTime({ notifications: { webhookUrl: 'ftp://example.test/x' } }), 422, 'EX104'],
    [
      'POST',
      '/exports',
      oneTime({ notifications: { webhookUrl: 'http://user:pw@example.test/' } }),
      422,
      'EX104',
    ],
    ['POST', '/exports', oneTime({ notifications: { webhookUrl: 'not a url' } }), 422, 'EX104'],
    ['POST', '/exports', oneTime({ notifications: { webhookUrl: 'http://127.0.0.1:9/x' } }), 422, 'EX104'],
    ['POST', '/exports', oneTime({ notifications: { webhookUrl: 'http://[::1]/x' } }), 422, 'EX104'],
    ['POST', '/exports', oneTime({ notifications: { webhookUrl: 'http://localhost/x' } }), 422, 'EX104'],
    ['POST', '/exports', oneTime({ notifications: { emails: ['a@b.test', 'A@b.test'] } }), 422, 'EX104'],
    ['POST', '/exports', oneTime({ notifications: { emails: ['not-an-address'] } }), 400, '0022'],
    ['GET', '/exports?branchId=abc', undefined, 400, '0022'],
    ['GET', '/exports/0x1', undefined, 400, '0022'],
    ['GET', '/exports/999999', undefined, 404, 'EX404'],
    ['PATCH', `/exports/${id}`, {}, 400, '0022'],
    ['PATCH', `/exports/${id}`, { schedule: { cron: '0 6 * * 1' } }, 409, 'EX409'],
    ['PATCH', `/exports/${id}`, { retentionDays: 1e3 }, 400, '0022'],
    ['DELETE', '/exports/1e3', undefined, 400, '0022'],
    ['POST', '/exports/999999/resume', undefined, 404, 'EX404'],
    ['POST', '/exports/999999/runs', undefined, 404, 'EX404'],
    ['GET', '/exports/999999/runs', undefined, 404, 'EX404'],
    ['GET', '/exports/runs/999999', undefined, 404, 'EX405'],
    ['GET', '/exports/runs/abc', undefined, 400, '0022'],
    ['POST', '/exports/runs/999999/replay', undefined, 404, 'EX405'],
    ['GET', '/exports/runs/999999/deliveries', undefined, 404, 'EX405'],
    ['POST', `/exports/runs/${runId}/deliveries/999999/replay`, undefined, 404, 'EX406'],
    ['GET', `/exports/runs/${runId}/download`, undefined, 400, '0022'],
    ['GET', `/exports/runs/${runId}/download?key=${'k'.repeat(65)}`, undefined, 400, '0022'],
    ['GET', `/exports/runs/${runId}/download?key=%00`, undefined, 400, '0022'],
    ['PUT', '/export-settings/webhook-authentication', { enabled: 'yes' }, 400, '0022'],
    ['PUT', '/export-settings/webhook-authentication', { enabled: true, apiKey: 'short' }, 400, '0022'],
    ['PUT', '/export-settings/webhook-authentication', { enabled: true }, 403, 'AUTH002'],
    ['GET', '/report-queries/0x1', undefined, 400, '0022'],
  ];
  for (const [method, path, body, status, code] of cases) {
    const reply = await call(method, back(path), { body });
    try {
      expectError(reply, status, code);
    } catch (error) {
      throw new Error(`${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`, {
        cause: error,
      });
    }
  }

  // A delivery replay resends the run's mail (a new attempt row, manual).
  const [delivery] = (await call('GET', back(`/exports/runs/${runId}/deliveries`))).body;
  const replay = await call('POST', back(`/exports/runs/${runId}/deliveries/${delivery.id}/replay`));
  expect(replay.status).toBe(202);
  await session.backend.client.workflow.getHandle(replay.body.workflowId).result();
  const attempts = (await call('GET', back(`/exports/runs/${runId}/deliveries`))).body;
  expect(attempts.map((row: { manual: boolean; outcome: string }) => [row.manual, row.outcome])).toEqual([
    [false, 'DELIVERED'],
    [true, 'DELIVERED'],
  ]);

  // Another tenant's operator sees none of it; this tenant's download key on the rival's path finds nothing.
  const rival = (method: string, path: string) =>
    session.stack.call(method, `/v1/${session.rival.tenant}/back${path}`, {
      token: session.rivalOperatorToken,
    });
  expectError(await rival('GET', `/exports/${id}`), 404, 'EX404');
  expectError(await rival('GET', `/exports/runs/${runId}`), 404, 'EX405');
  expectError(await rival('POST', `/exports/runs/${runId}/replay`), 404, 'EX405');
  expectError(await rival('GET', `/exports/runs/${runId}/deliveries`), 404, 'EX405');
  const key = new URL(run.body.exportUrl).searchParams.get('key')!;
  expectError(
    await session.stack.call(
      'GET',
      `/v1/${session.rival.tenant}/back/exports/runs/${runId}/download?key=${key}`,
    ),
    404,
    'EX405',
  );
}, 90_000);
