// Export notifications on the time-skipping server against a real local HTTP receiver and SMTP catcher:
// network errors and timeouts retried after 10, 20 and 40 s (workflow timers, read from the history),
// 4xx and 5xx answers never retried, the same webhook-id on every attempt, the attempt count from 1, and
// with authentication the signature verified by the standardwebhooks library and by an independent
// implementation of the spec's steps (node:crypto). Also: a failed run notifies nobody; the e-mail's
// subject and link.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Branch } from '../db/entities/Branch.js';
import { DataExport } from '../db/entities/DataExport.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { ExportDelivery } from '../db/entities/ExportDelivery.js';
import { ExportRun } from '../db/entities/ExportRun.js';
import { newDownloadKey } from '../activities/exports.js';
import { startMailCatcher } from '../platform/mail.js';
import {
  EXPORT_RUN_WORKFLOW_TYPE,
  exportRunStartOptions,
  exportRunWorkflowId,
  type ExportRunResult,
} from '../workflows/export.messages.js';
import { startSession, type Session } from './support/session.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with the n-th request (0-based) of a path. */
type Behaviour = (index: number) => 'drop' | number;

// The receiver listens on 127.0.0.1, a target refused unless allowed (tests/exports.test.ts checks the refusal).
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

let session: Session;
let receiver: http.Server;
let receiverUrl: string;
let mail: Awaited<ReturnType<typeof startMailCatcher>>;
const received = new Map<string, Received[]>();
const behaviours = new Map<string, Behaviour>();

beforeAll(async () => {
  mail = await startMailCatcher({ port: 0 });
  process.env.SMTP_URL = mail.url;
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const list = received.get(req.url!) ?? [];
      list.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      received.set(req.url!, list);
      const action = (behaviours.get(req.url!) ?? (() => 200))(list.length - 1);
      if (action === 'drop') req.socket.destroy();
      else res.writeHead(action).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  session = await startSession({ timeSkipping: true });
  // The webhook authentication is tenant-wide: the demo operator gets a role on the other root branch too.
  const em = session.em();
  const admin = await em.findOneOrFail(Role, { name: 'Administrator' });
  em.create(RoleAssignment, {
    role: admin,
    subjectType: 'API_CLIENT',
    subjectId: 'demo-operator',
    branch: em.getReference(Branch, session.seed.otherBranchId),
  });
  await em.flush();
}, 180_000);

afterAll(async () => {
  await session?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await mail?.stop();
});

/** An export row and a run, and the run's workflow to its end (timers skipped). */
async function runExport(fields: Partial<DataExport>): Promise<{ run: ExportRun; result: ExportRunResult }> {
  const em = session.em();
  const definition = em.create(DataExport, {
    name: 'Rentals for the receiver',
    queryId: 1,
    branchIds: [session.seed.cityBranchId],
    periodLastDays: 30,
    retentionDays: 7,
    emails: [],
    ownerSubjectType: 'API_CLIENT',
    ownerSubjectId: 'demo-operator',
    createdBy: 'test',
    ...fields,
  });
  await em.flush();
  const [{ id }] = await em.execute<{ id: number }[]>(`select nextval('export_run_id_seq') as id`);
  const run = em.create(ExportRun, {
    id: Number(id),
    exportId: definition.id,
    queryId: definition.queryId,
    trigger: 'MANUAL',
    periodFrom: new Date(Date.now() - 30 * 86_400_000),
    periodTo: new Date(),
    workflowId: exportRunWorkflowId(session.seed.tenant, Number(id)),
    createdBy: 'test',
    downloadKey: newDownloadKey(),
  });
  await em.flush();
  const { client, taskQueue } = session.backend;
  const handle = await client.workflow.start(
    EXPORT_RUN_WORKFLOW_TYPE,
    exportRunStartOptions({ tenant: session.seed.tenant, runId: run.id }, taskQueue),
  );
  const result = (await handle.result()) as ExportRunResult;
  return { run, result };
}

/** The timers the run's workflow started, in seconds. */
async function timerSeconds(runId: number): Promise<number[]> {
  const history = await session.backend.client.workflow
    .getHandle(exportRunWorkflowId(session.seed.tenant, runId))
    .fetchHistory();
  return (history.events ?? [])
    .map((event) => event.timerStartedEventAttributes?.startToFireTimeout?.seconds)
    .filter((seconds) => seconds != null)
    .map(Number);
}

const deliveries = (runId: number) =>
  session.em().find(ExportDelivery, { runId }, { orderBy: { id: 'asc' } });

/** The spec's steps (Authentication 6), without the library: id.timestamp.body, HMAC-SHA256, base64. */
function independentlyVerified(secret: string, headers: http.IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const content = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
  const expected = createHmac('sha256', key).update(content).digest();
  const given = Buffer.from(String(headers['webhook-signature']).replace(/^v1,/, ''), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

test('network errors retry after 10, 20, 40 s; signed afresh, the same webhook-id, attempts 1-4', async () => {
  const setting = await session.stack.call(
    'PUT',
    session.stack.back('/export-settings/webhook-authentication'),
    {
      token: session.operatorToken,
      body: { enabled: true, apiKey: 'receiver-api-key-0001' },
    },
  );
  expect(setting.status).toBe(200);
  const secret: string = setting.body.signingSecret;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  // The secret is shown once.
  const again = await session.stack.call(
    'GET',
    session.stack.back('/export-settings/webhook-authentication'),
    {
      token: session.operatorToken,
    },
  );
  expect(again.body).toEqual({ enabled: true, apiKeyLast4: '0001', secretRotatedAt: expect.any(String) });

  behaviours.set('/flaky', (index) => (index < 3 ? 'drop' : 204));
  const { run, result } = await runExport({ webhookUrl: `${receiverUrl}/flaky` });
  expect(result).toMatchObject({
    state: 'SUCCEEDED',
    notifications: [{ channel: 'WEBHOOK', outcome: 'DELIVERED', attempts: 4 }],
  });
  expect(await timerSeconds(run.id)).toEqual([10, 20, 40]);
  const requests = received.get('/flaky')!;
  expect(requests).toHaveLength(4);
  const payload = JSON.parse(requests[0]!.body);
  expect(payload).toEqual({
    id: run.id,
    queryId: 1,
    queryName: 'Rentals',
    exportUrl: expect.stringContaining(`/exports/runs/${run.id}/download?key=`),
    expirationDate: expect.any(String),
  });
  requests.forEach((request, index) => {
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': `export-run:${session.seed.tenant}:${run.id}`,
      'x-webhook-dispatch-attempt-count': String(index + 1),
      'x-api-key': 'receiver-api-key-0001',
      'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
    });
    expect(request.body).toBe(requests[0]!.body);
    expect(() =>
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
    ).not.toThrow();
    expect(independentlyVerified(secret, request.headers, request.body)).toBe(true);
    // A wrong secret fails both ways.
    expect(
      independentlyVerified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request.headers, request.body),
    ).toBe(false);
  });
  expect((await deliveries(run.id)).map((row) => [row.attempt, row.outcome])).toEqual([
    [1, 'NETWORK_ERROR'],
    [2, 'NETWORK_ERROR'],
    [3, 'NETWORK_ERROR'],
    [4, 'DELIVERED'],
  ]);

  // A rotated secret signs the next deliveries; the old one no longer verifies them.
  const rotated = await session.stack.call(
    'POST',
    session.stack.back('/export-settings/webhook-authentication/rotate-secret'),
    { token: session.operatorToken },
  );
  expect(rotated.body.signingSecret).not.toBe(secret);
  behaviours.set('/rotated', () => 200);
  await runExport({ webhookUrl: `${receiverUrl}/rotated` });
  const [signed] = received.get('/rotated')!;
  expect(independentlyVerified(rotated.body.signingSecret, signed!.headers, signed!.body)).toBe(true);
  expect(independentlyVerified(secret, signed!.headers, signed!.body)).toBe(false);
}, 120_000);

test('an unreachable receiver: 4 attempts, then NETWORK_ERROR; 4xx and 5xx are final at once', async () => {
  behaviours.set('/down', () => 'drop');
  const down = await runExport({ webhookUrl: `${receiverUrl}/down` });
  expect(down.result.notifications).toEqual([
    { channel: 'WEBHOOK', target: `${receiverUrl}/down`, outcome: 'NETWORK_ERROR', attempts: 4 },
  ]);
  expect(await timerSeconds(down.run.id)).toEqual([10, 20, 40]);

  for (const status of [400, 410, 500, 503]) {
    behaviours.set(`/status-${status}`, () => status);
    const { run, result } = await runExport({ webhookUrl: `${receiverUrl}/status-${status}` });
    expect(result.notifications).toEqual([
      { channel: 'WEBHOOK', target: `${receiverUrl}/status-${status}`, outcome: 'HTTP_ERROR', attempts: 1 },
    ]);
    expect(received.get(`/status-${status}`)).toHaveLength(1);
    expect(await timerSeconds(run.id)).toEqual([]);
    expect((await deliveries(run.id)).map((row) => [row.outcome, row.httpStatus])).toEqual([
      ['HTTP_ERROR', status],
    ]);
  }
}, 120_000);

test('the e-mail: organisation, report name, date and time; a link that redirects to the file', async () => {
  const { run } = await runExport({ emails: ['analyst@example.test'], timezone: 'Europe/Berlin' });
  const message = mail.messages.find((caught) => caught.to.includes('analyst@example.test'))!;
  expect(message).toBeDefined();
  const subject = /^Subject: (.*)$/m.exec(message.raw.replace(/\r?\n[ \t]+/g, ' '))![1]!;
  expect(subject).toMatch(
    /^Test Mobility: Rentals \(Rentals for the receiver\) export, \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2} /,
  );
  const link = /(http\S+\/download\?key=\S+)/.exec(message.raw.replace(/=\r?\n/g, ''))![1]!;
  const path = new URL(link.replace(/=3D/g, '=')).pathname + new URL(link.replace(/=3D/g, '=')).search;
  const download = await fetch(`${session.stack.baseUrl}${path}`, { redirect: 'manual' });
  expect(download.status).toBe(303);
  const csv = await (await fetch(download.headers.get('location')!)).text();
  expect(csv.split('\n')[0]).toMatch(/^rentalId,state,branchId,branchName,/);
  expect((await deliveries(run.id)).map((row) => [row.channel, row.outcome])).toEqual([
    ['EMAIL', 'DELIVERED'],
  ]);
}, 60_000);

test('a failed run (the owner lost EXPORT_READ) records EX403 and notifies nobody', async () => {
  behaviours.set('/never', () => 200);
  const { run, result } = await runExport({
    webhookUrl: `${receiverUrl}/never`,
    emails: ['nobody@example.test'],
    ownerSubjectId: 'no-such-client',
  });
  expect(result).toEqual({ state: 'FAILED', errorCode: 'EX403' });
  expect(received.get('/never')).toBeUndefined();
  expect(mail.messages.some((caught) => caught.to.includes('nobody@example.test'))).toBe(false);
  expect(await deliveries(run.id)).toEqual([]);
  const row = await session.em().findOneOrFail(ExportRun, run.id);
  expect({ state: row.state, errorCode: row.errorCode }).toEqual({ state: 'FAILED', errorCode: 'EX403' });
}, 60_000);
