// Platform webhooks end to end (docs/webhooks.md), on one time-skipping stack with a real local HTTP
// receiver: a rental's transitions arrive in order, signed (checked by an HMAC-SHA1 written here from
// SHA-1 alone); an event and its outbox row commit together or not at all; a failing receiver gets
// retries with one x-webhook-id while the entity's later events wait; redelivery and secret rotation;
// another tenant's subscription never hears of this tenant's events; hostile input and denials.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Event } from '../db/entities/Event.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { WebhookOutbox } from '../db/entities/WebhookOutbox.js';
import { insertEvents, recordEvent } from '../db/events.js';
import { tenantEm } from '../db/orm.js';
import { hashSecret } from '../platform/secrets.js';
import {
  runWebhookDispatchStarter,
  type WebhookDispatchStarter,
} from '../workers/webhook-dispatch-starter.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { eventually } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

// The receiver listens on 127.0.0.1: private targets are allowed in this suite (and refused in one test).
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
}

let session: Session;
let starter: WebhookDispatchStarter;
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
/** Paths the receiver answers 500 on. */
const failing = new Set<string>();
let reader: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const em = () => tenantEm(session.backend.orm, session.seed.tenant);

/** HMAC-SHA1 (RFC 2104) from SHA-1 alone: independent of the platform's `createHmac`. */
function hmacSha1Hex(key: Buffer, message: Buffer): string {
  const block = 64;
  const shortKey = key.length > block ? createHash('sha1').update(key).digest() : key;
  const padded = Buffer.concat([shortKey, Buffer.alloc(block - shortKey.length)]);
  const inner = createHash('sha1')
    .update(padded.map((byte) => byte ^ 0x36))
    .update(message)
    .digest();
  return createHash('sha1')
    .update(padded.map((byte) => byte ^ 0x5c))
    .update(inner)
    .digest('hex');
}

/** The receiver's check, as docs/webhooks.md describes it: one of the `sha1=` values must match. */
function signedWith(request: Received, secret: string): boolean {
  const id = String(request.headers['x-webhook-id']);
  const timestamp = String(request.headers['x-webhook-timestamp']);
  const expected = hmacSha1Hex(
    Buffer.from(secret, 'utf8'),
    Buffer.from(`${id}.${timestamp}.${request.raw}`, 'utf8'),
  );
  return String(request.headers['x-webhook-signature'])
    .split(' ')
    .some((value) => value === `sha1=${expected}`);
}

const at = (path: string) => received.filter((request) => request.path === path);

/** A subscription scoped to the city branch (the demo operator's grants), unless the body names a scope. */
async function subscribe(body: Record<string, unknown>, token = session.operatorToken, tenant?: string) {
  const path = tenant ? `/v1/${tenant}/back/webhook-subscriptions` : back('/webhook-subscriptions');
  const branchId = tenant ? session.rival.cityBranchId : session.seed.cityBranchId;
  const reply = await call('POST', path, { token, body: { branchId, ...body } });
  expect(reply.status).toBe(201);
  return reply.body as { id: number; signingSecret: string };
}

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const status = failing.has(path) ? 500 : 204;
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ path, headers: request.headers, raw, body: JSON.parse(raw), status });
      response.writeHead(status).end(status === 500 ? 'down for maintenance' : undefined);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  session = await startSession({
    timeSkipping: true,
    rival: { prefix: 'rivalhook', name: 'Rival Hooks' },
    signInDemoCustomer: true,
  });
  // The worker's own starter wakes this tenant's dispatchers (it runs for this tenant only, as a
  // deployment's WORKER_STARTER_TENANTS says); the rival tenant's worker would run one for the rival.
  starter = runWebhookDispatchStarter(
    session.backend.orm,
    { client: session.backend.client, taskQueue: session.backend.taskQueue },
    { intervalMs: 60 * 60_000, tenants: [session.rival.tenant], log: () => undefined },
  );
  await starter.ready;
  const setup = em();
  const role = setup.create(Role, { name: 'Task reader', permissions: ['TASK_READ'] });
  setup.create(ApiClient, {
    clientId: 'hook-outsider',
    name: 'No webhook permission',
    secretHash: await hashSecret('hook-outsider-secret'),
    scopes: ['back'],
  });
  setup.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: 'hook-outsider',
    branch: setup.getReference(Branch, session.seed.branchId),
  });
  await setup.flush();
  reader = await session.stack.token(session.seed.tenant, {
    clientId: 'hook-outsider',
    clientSecret: 'hook-outsider-secret',
  });
}, 120_000);

afterAll(async () => {
  await starter?.stop();
  await session?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

let rentalSecret: string;

test("a rental's transitions arrive in order, signed, with the x-webhook-* headers; INVOICE_CREATED carries rentalIds", async () => {
  const subscription = await subscribe({
    url: `${receiverUrl}/rentals`,
    eventTypes: [
      'RENTAL_RESERVATION',
      'RENTAL_START',
      'RENTAL_PARK',
      'RENTAL_DRIVE',
      'RENTAL_END',
      'INVOICE_CREATED',
    ],
  });
  rentalSecret = subscription.signingSecret;
  expect(rentalSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  const shown = await call('GET', back(`/webhook-subscriptions/${subscription.id}`), {
    token: session.operatorToken,
  });
  expect(shown.body).not.toHaveProperty('signingSecret');
  expect(shown.body.dispatcherWorkflowId).toBe(`webhook-dispatch:${session.seed.tenant}:${subscription.id}`);

  const vehicle = await em().findOneOrFail(
    Vehicle,
    { branch: session.seed.branchId, rentalState: 'AVAILABLE', rotatingUuid: { $ne: null } },
    { orderBy: { id: 'asc' } },
  );
  const token = session.annaToken;
  const reserved = await call('POST', session.stack.front('/rentals'), {
    token,
    body: { vehicleCode: vehicle.code },
  });
  expect(reserved.status).toBe(201);
  const rentalId: number = reserved.body.id;
  const operate = (operationType: string) =>
    call('POST', session.stack.front(`/rentals/${rentalId}/operation`), { token, body: { operationType } });
  expect((await operate('START')).status).toBe(200);
  expect((await operate('PARK')).status).toBe(200);
  expect((await operate('DRIVE')).status).toBe(200);
  session.backend.simulator.ride(String(vehicle.id), 300);
  expect((await operate('END')).status).toBe(200);
  const rental = await em().findOneOrFail(Rental, rentalId);
  const expected = ['RENTAL_RESERVATION', 'RENTAL_START', 'RENTAL_PARK', 'RENTAL_DRIVE', 'RENTAL_END'];

  const ofRental = await eventually(
    async () => {
      const requests = at('/rentals').filter(
        (request) => request.body.rentalId === rentalId || request.body.data.rentalIds?.includes(rentalId),
      );
      const wanted = expected.length + (rental.invoice ? 1 : 0);
      return requests.length >= wanted ? requests : undefined;
    },
    20_000,
    "the rental's webhooks",
  );
  const transitions = ofRental.filter((request) => request.body.entity.type === 'RENTAL');
  expect(transitions.map((request) => request.body.type)).toEqual(expected);
  const events = await em().find(Event, { rentalId, type: { $in: expected } }, { orderBy: { id: 'asc' } });
  for (const [index, request] of transitions.entries()) {
    expect(signedWith(request, rentalSecret)).toBe(true);
    expect(signedWith(request, 'whsec_wrong')).toBe(false);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-webhook-id']).toBe(`wh_${subscription.id}_${events[index]!.id}`);
    expect(request.body).toMatchObject({
      id: request.headers['x-webhook-id'],
      type: request.headers['x-webhook-event'],
      tenant: session.seed.tenant,
      eventId: String(events[index]!.id),
      entity: { type: 'RENTAL', id: rentalId },
      vehicleId: vehicle.id,
      customerId: session.seed.customerIds[0],
    });
    expect(request.headers['x-webhook-dispatch-attempt-count']).toBe('1');
    expect(Math.abs(Number(request.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  }
  expect(rental.invoice).toBeTruthy(); // the ride costs something: the bill is an invoice
  if (rental.invoice) {
    const invoice = ofRental.find((request) => request.body.type === 'INVOICE_CREATED')!;
    expect(signedWith(invoice, rentalSecret)).toBe(true);
    expect(invoice.body.data).toMatchObject({ invoiceId: rental.invoice.id, rentalIds: [rentalId] });
    expect(invoice.body.entity).toEqual({ type: 'INVOICE', id: rental.invoice.id });
  }
  // Every attempt is listed for the subscription. The receiver answers before the dispatcher records the
  // attempt, so the last delivery row may commit a moment after the last request arrived.
  const successes = async () => {
    const log = await call('GET', back(`/webhook-subscriptions/${subscription.id}/deliveries?size=100`), {
      token: session.operatorToken,
    });
    expect(log.status).toBe(200);
    return log.body.filter((row: { success: boolean }) => row.success).length as number;
  };
  await eventually(
    async () => ((await successes()) === at('/rentals').length ? true : undefined),
    20_000,
    'every delivery recorded',
  );
  expect(await successes()).toBe(at('/rentals').length);
}, 60_000);

test('an event and its outbox row commit together: a rolled-back transaction leaves neither', async () => {
  const { tenant } = session.seed;
  const vehicle = await em().findOneOrFail(
    Vehicle,
    { branch: session.seed.branchId },
    { orderBy: { id: 'desc' } },
  );
  const outboxRows = () => em().count(WebhookOutbox, {});
  const marked = (marker: string) =>
    em()
      .getConnection()
      .execute<{ n: string }[]>(
        `select count(*) as n from event where tenant_id = ? and payload->>'marker' = ?`,
        [tenant, marker],
      );
  const before = await outboxRows();
  await expect(
    em().transactional(async (tx) => {
      recordEvent(tx, {
        type: 'VEHICLE_BASE_DATA_CHANGED',
        vehicleId: vehicle.id,
        payload: { marker: 'rolled-back' },
      });
      await tx.flush();
      await insertEvents(tx, tenant, [
        { type: 'RENTAL_START', rentalId: 2_000_000_000, payload: { marker: 'rolled-back' } },
      ]);
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  expect(Number((await marked('rolled-back'))[0]!.n)).toBe(0);
  expect(await outboxRows()).toBe(before);

  // Committed: both rows, whichever way the event was written.
  const tx = em();
  const event = recordEvent(tx, {
    type: 'VEHICLE_BASE_DATA_CHANGED',
    vehicleId: vehicle.id,
    payload: { marker: 'kept' },
  });
  await tx.flush();
  expect(await em().count(WebhookOutbox, { event: [event.id, event.createdAt] })).toBe(1);
  await em().transactional((inner) =>
    insertEvents(inner, tenant, [
      { type: 'VEHICLE_OFFLINE', vehicleId: vehicle.id, payload: { marker: 'kept' } },
    ]),
  );
  // Events of other types get no outbox row.
  expect(await outboxRows()).toBe(before + 1);
});

test('a failing receiver gets retries with one x-webhook-id while the entity’s later events wait; redelivery and rotation', async () => {
  const testEnv = session.backend.testEnv!;
  failing.add('/vehicles');
  const subscription = await subscribe({
    url: `${receiverUrl}/vehicles`,
    eventTypes: ['VEHICLE_BASE_DATA_CHANGED'],
  });
  const [first, second] = await em().find(
    Vehicle,
    { branch: session.seed.branchId },
    { orderBy: { id: 'asc' }, limit: 2 },
  );
  const patch = async (vehicleId: number, licensePlate: string) => {
    const reply = await call('PATCH', back(`/vehicles/${vehicleId}`), {
      token: session.operatorToken,
      body: { licensePlate },
    });
    expect(reply.status).toBe(200);
  };
  await patch(first!.id, 'B-WH 1');
  await patch(first!.id, 'B-WH 2');
  await patch(second!.id, 'B-WH 3');
  const ofVehicle = (vehicleId: number) =>
    at('/vehicles').filter((request) => request.body.vehicleId === vehicleId);
  // The first vehicle's first message fails; the other vehicle's message is not held up by it.
  await eventually(
    async () => (ofVehicle(first!.id).length >= 1 && ofVehicle(second!.id).length >= 1) || undefined,
  );
  const firstId = ofVehicle(first!.id)[0]!.headers['x-webhook-id'];
  expect(ofVehicle(first!.id)[0]!.body.data).toMatchObject({
    changes: { licensePlate: { to: 'B-WH 1' } },
  });

  // Retries after 10 s, 20 s … of the dispatcher's (skipped) time; the same message every time.
  await eventually(async () => {
    await testEnv.sleep('11 seconds');
    return ofVehicle(first!.id).length >= 3 || undefined;
  });
  const attempts = ofVehicle(first!.id);
  expect(new Set(attempts.map((request) => request.headers['x-webhook-id']))).toEqual(new Set([firstId]));
  expect(attempts.map((request) => request.headers['x-webhook-dispatch-attempt-count'])).toEqual(
    attempts.map((_, index) => String(index + 1)),
  );
  expect(attempts.every((request) => request.body.data.changes.licensePlate.to === 'B-WH 1')).toBe(true);
  expect(attempts.every((request) => signedWith(request, subscription.signingSecret))).toBe(true);

  // The receiver recovers: the first message goes through, then (only then) the entity's second.
  failing.delete('/vehicles');
  await eventually(async () => {
    await testEnv.sleep('30 seconds');
    return (
      ofVehicle(first!.id).some((request) => request.body.data.changes.licensePlate.to === 'B-WH 2') ||
      undefined
    );
  });
  const sequence = ofVehicle(first!.id).map((request) => [
    request.body.data.changes.licensePlate.to,
    request.status,
  ]);
  const firstSuccess = sequence.findIndex(([, status]) => status === 204);
  expect(sequence[firstSuccess]![0]).toBe('B-WH 1');
  expect(sequence.slice(0, firstSuccess).every(([plate]) => plate === 'B-WH 1')).toBe(true);

  const log = await call(
    'GET',
    back(`/webhook-subscriptions/${subscription.id}/deliveries?webhookId=${firstId}`),
    {
      token: session.operatorToken,
    },
  );
  expect(log.status).toBe(200);
  expect(log.body[0]).toMatchObject({ success: true, messageState: 'DELIVERED', webhookId: firstId });
  expect(
    log.body
      .slice(1)
      .every(
        (row: { success: boolean; httpStatus: number; nextAttemptAt: string }) =>
          !row.success && row.httpStatus === 500 && row.nextAttemptAt,
      ),
  ).toBe(true);
  expect(Number(log.headers.get('x-total-count'))).toBe(attempts.length + 1);

  // A delivered message may be sent again by hand; after a rotation it carries both signatures.
  const rotated = await call('POST', back(`/webhook-subscriptions/${subscription.id}/secret/rotate`), {
    token: session.operatorToken,
  });
  expect(rotated.status).toBe(200);
  const pendingRedelivery = await call(
    'POST',
    back(`/webhook-subscriptions/${subscription.id}/deliveries/${log.body[0].id}/redeliver`),
    { token: session.operatorToken },
  );
  expect(pendingRedelivery.status).toBe(202);
  expect(pendingRedelivery.body).toMatchObject({ webhookId: firstId, state: 'PENDING' });
  // While it is pending a second redelivery is refused (WH103); on a loaded machine the first may already
  // have been delivered by the time the second call arrives, and then the second is another redelivery.
  const secondRedelivery = await call(
    'POST',
    back(`/webhook-subscriptions/${subscription.id}/deliveries/${log.body[0].id}/redeliver`),
    { token: session.operatorToken },
  );
  if (secondRedelivery.status !== 202) expectError(secondRedelivery, 409, 'WH103');
  const again = await eventually(async () => {
    const copies = at('/vehicles').filter((request) => request.headers['x-webhook-id'] === firstId);
    return copies.length >= attempts.length + 2 ? copies[attempts.length + 1] : undefined;
  });
  expect(again.headers['x-webhook-dispatch-attempt-count']).toBe(String(attempts.length + 2));
  expect(signedWith(again, rotated.body.signingSecret)).toBe(true);
  expect(signedWith(again, subscription.signingSecret)).toBe(true);
  const [latest] = (
    await call(
      'GET',
      back(`/webhook-subscriptions/${subscription.id}/deliveries?webhookId=${firstId}&size=1`),
      {
        token: session.operatorToken,
      },
    )
  ).body;
  expect(latest).toMatchObject({ manual: true, success: true });
}, 60_000);

test("another tenant's subscription never receives this tenant's events", async () => {
  const rival = session.rival.tenant;
  const subscription = await subscribe(
    {
      url: `${receiverUrl}/rival`,
      eventTypes: ['VEHICLE_BASE_DATA_CHANGED', 'RENTAL_START', 'INVOICE_CREATED'],
    },
    session.rivalOperatorToken,
    rival,
  );
  const vehicle = await em().findOneOrFail(
    Vehicle,
    { branch: session.seed.branchId },
    { orderBy: { id: 'asc' } },
  );
  const plate = `B-RV ${Date.now() % 1000}`;
  await call('PATCH', back(`/vehicles/${vehicle.id}`), {
    token: session.operatorToken,
    body: { licensePlate: plate },
  });
  // This tenant's own subscription gets the change …
  await eventually(
    async () =>
      at('/vehicles').some((request) => request.body.data.changes?.licensePlate?.to === plate) || undefined,
  );
  // … and the rival's dispatcher, woken as well, finds nothing of it.
  await session.backend.client.workflow.signalWithStart('webhookDispatcherWorkflow', {
    workflowId: `webhook-dispatch:${rival}:${subscription.id}`,
    taskQueue: session.backend.taskQueue,
    args: [{ tenant: rival, subscriptionId: subscription.id }],
    signal: 'wakeWebhookDispatcher',
    signalArgs: [],
  });
  await session.backend.testEnv!.sleep('1 minute');
  expect(at('/rival')).toEqual([]);
  // Nor can either tenant see the other's subscriptions.
  expectError(
    await call('GET', back(`/webhook-subscriptions/${subscription.id}`), { token: session.operatorToken }),
    404,
    'WH404',
  );
  expectError(
    await call('GET', back(`/webhook-subscriptions/${subscription.id}/deliveries`), {
      token: session.operatorToken,
    }),
    404,
    'WH404',
  );
});

test('hostile input on every route, private targets, and denials', async () => {
  const { operatorToken } = session;
  const mine = await subscribe({
    url: `${receiverUrl}/hostile`,
    eventTypes: ['BOOKING_PICKUP'],
    active: false,
  });
  const url = `${receiverUrl}/x`;
  const rivalBranch = session.rival.branchId;
  const bodies: [unknown, number, string][] = [
    [{ url: 'ftp://example.com/hook', eventTypes: ['RENTAL_START'] }, 422, 'WH100'],
    [{ url: 'https://user:pw@example.com/hook', eventTypes: ['RENTAL_START'] }, 422, 'WH100'],
    [{ url: 'https://example.com/hook#frag', eventTypes: ['RENTAL_START'] }, 422, 'WH100'],
    [{ url: 'not a url at all', eventTypes: ['RENTAL_START'] }, 422, 'WH100'],
    [{ url: 'https://example.com/\u0000', eventTypes: ['RENTAL_START'] }, 400, '0022'],
    [{ url, eventTypes: ['NOPE'] }, 400, '0022'],
    [{ url, eventTypes: [] }, 400, '0022'],
    [{ url, eventTypes: 'RENTAL_START' }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START', 'RENTAL_START'] }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START'], branchId: '0x1' }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START'], branchId: 0 }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START'], branchId: 1.5 }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START'], branchId: rivalBranch }, 422, 'WH102'],
    [{ url, eventTypes: ['RENTAL_START'], active: 'yes' }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START'], extra: 1 }, 400, '0022'],
    [{ url, eventTypes: ['RENTAL_START'], description: 'x'.repeat(501) }, 400, '0022'],
    [{ url: 'x'.repeat(2001), eventTypes: ['RENTAL_START'] }, 400, '0022'],
    [[], 400, '0022'],
  ];
  for (const [body, status, code] of bodies)
    expectError(
      await call('POST', back('/webhook-subscriptions'), { token: operatorToken, body }),
      status,
      code,
    );
  // Private, loopback and link-local hosts are refused unless the deployment allows them.
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false';
  try {
    for (const target of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:192.168.0.1]/hook',
      'http://intranet/hook',
    ])
      expectError(
        await call('POST', back('/webhook-subscriptions'), {
          token: operatorToken,
          body: { url: target, eventTypes: ['RENTAL_START'] },
        }),
        422,
        'WH101',
      );
    expectError(
      await call('PATCH', back(`/webhook-subscriptions/${mine.id}`), {
        token: operatorToken,
        body: { url: 'http://192.168.1.1/' },
      }),
      422,
      'WH101',
    );
  } finally {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  }

  const paths: [string, string, unknown, number, string][] = [
    ['GET', '/webhook-subscriptions/0x1', undefined, 400, '0022'],
    ['GET', '/webhook-subscriptions/1e3', undefined, 400, '0022'],
    ['GET', '/webhook-subscriptions/0', undefined, 400, '0022'],
    ['GET', '/webhook-subscriptions/2147483647', undefined, 404, 'WH404'],
    ['GET', '/webhook-subscriptions?page=-1', undefined, 400, '0022'],
    ['GET', '/webhook-subscriptions?active=maybe', undefined, 400, '0022'],
    ['PATCH', `/webhook-subscriptions/${mine.id}`, {}, 400, '0022'],
    ['PATCH', `/webhook-subscriptions/${mine.id}`, { eventTypes: ['RENTAL_NOPE'] }, 400, '0022'],
    ['PATCH', `/webhook-subscriptions/${mine.id}`, { url: 'gopher://example.com/x' }, 422, 'WH100'],
    ['PATCH', `/webhook-subscriptions/${mine.id}`, { branchId: 2147483647 }, 422, 'WH102'],
    ['PATCH', '/webhook-subscriptions/2147483647', { active: true }, 404, 'WH404'],
    ['DELETE', '/webhook-subscriptions/2147483647', undefined, 404, 'WH404'],
    ['POST', '/webhook-subscriptions/2147483647/secret/rotate', undefined, 404, 'WH404'],
    ['GET', `/webhook-subscriptions/${mine.id}/deliveries?size=0`, undefined, 400, '0022'],
    ['GET', `/webhook-subscriptions/${mine.id}/deliveries?success=1x`, undefined, 400, '0022'],
    ['GET', `/webhook-subscriptions/${mine.id}/deliveries?webhookId=%00`, undefined, 400, '0022'],
    ['GET', '/webhook-subscriptions/2147483647/deliveries', undefined, 404, 'WH404'],
    ['POST', `/webhook-subscriptions/${mine.id}/deliveries/0/redeliver`, undefined, 400, '0022'],
    ['POST', `/webhook-subscriptions/${mine.id}/deliveries/abc/redeliver`, undefined, 400, '0022'],
    ['POST', `/webhook-subscriptions/${mine.id}/deliveries/1/redeliver`, undefined, 404, 'WHD404'],
  ];
  for (const [method, path, body, status, code] of paths) {
    const reply = await call(method, back(path), { token: operatorToken, body });
    expect([method, path, reply.status, reply.body?.errorCode]).toEqual([method, path, status, code]);
    expectError(reply, status, code);
  }
  // A delivery of another subscription is not this one's.
  const [otherDelivery] = (
    await call('GET', back(`/webhook-subscriptions`), { token: operatorToken })
  ).body.filter((row: { url: string }) => row.url.endsWith('/vehicles'));
  const [attempt] = (
    await call('GET', back(`/webhook-subscriptions/${otherDelivery.id}/deliveries?size=1`), {
      token: operatorToken,
    })
  ).body;
  expectError(
    await call('POST', back(`/webhook-subscriptions/${mine.id}/deliveries/${attempt.id}/redeliver`), {
      token: operatorToken,
    }),
    404,
    'WHD404',
  );

  // The demo operator's grants cover the city, not Spandau: no tenant-wide subscription, none on Spandau.
  for (const branchId of [null, session.seed.otherBranchId])
    expectError(
      await call('POST', back('/webhook-subscriptions'), {
        token: operatorToken,
        body: { url, eventTypes: ['RENTAL_START'], branchId },
      }),
      403,
      'AUTH002',
    );

  // Denials: no webhook permission, an app token, no token, another tenant's operator.
  const routes: [string, string, unknown][] = [
    ['GET', '/webhook-subscriptions', undefined],
    ['POST', '/webhook-subscriptions', { url, eventTypes: ['RENTAL_START'] }],
    ['GET', `/webhook-subscriptions/${mine.id}`, undefined],
    ['PATCH', `/webhook-subscriptions/${mine.id}`, { active: true }],
    ['DELETE', `/webhook-subscriptions/${mine.id}`, undefined],
    ['POST', `/webhook-subscriptions/${mine.id}/secret/rotate`, undefined],
    ['GET', `/webhook-subscriptions/${mine.id}/deliveries`, undefined],
    ['POST', `/webhook-subscriptions/${otherDelivery.id}/deliveries/${attempt.id}/redeliver`, undefined],
  ];
  for (const [method, path, body] of routes) {
    expectError(await call(method, back(path), { token: reader, body }), 403, 'AUTH002');
    expectError(await call(method, back(path), { token: session.appClientToken, body }), 403, '0005');
    expectError(await call(method, back(path), { body }), 401, 'JWT006');
  }
  expectError(
    await call('DELETE', back(`/webhook-subscriptions/${mine.id}`), { token: session.rivalOperatorToken }),
    403,
    'AUTH002',
  );
  expect(
    (
      await call('DELETE', `/v1/${session.rival.tenant}/back/webhook-subscriptions/${mine.id}`, {
        token: session.rivalOperatorToken,
      })
    ).body.errorCode,
  ).toBe('WH404');
  // Still there, and deletable by its own tenant.
  expect(
    (await call('DELETE', back(`/webhook-subscriptions/${mine.id}`), { token: operatorToken })).status,
  ).toBe(204);
  expectError(
    await call('GET', back(`/webhook-subscriptions/${mine.id}`), { token: operatorToken }),
    404,
    'WH404',
  );
});
