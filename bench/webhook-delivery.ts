// Platform webhook deliveries per second through the real path: events committed with their outbox rows
// (db/events.ts) → the outbox trigger's NOTIFY → the worker's starter signals the subscription's
// dispatcher workflow (Temporal dev server) → its dispatch activity fans the outbox out, POSTs each
// entity's oldest message signed with HMAC-SHA1 to a local receiver and records every attempt — timed
// from the commit until the last message is DELIVERED. Two shapes: every event its own entity (no
// ordering wait), and 50 entities with many events each (each entity's messages one after another).
// Beside it, in the same run, a bare loop POSTing the same number of signed bodies to the same receiver
// with the dispatcher's concurrency (32): the HTTP and signing cost alone.
// Usage: npm run bench:webhooks [-- events]   (default 5000; BENCH_TRACE=1 prints progress)
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookSigningSecret } from '../db/entities/WebhookSigningSecret.js';
import { WebhookSubscription } from '../db/entities/WebhookSubscription.js';
import { insertEvents, type EventFields } from '../db/events.js';
import { tenantEm } from '../db/orm.js';
import { newWebhookSecret } from '../platform/webhook-http.js';
import { startThrowawayInfrastructure } from '../tests/support/infrastructure.js';
import { startTestBackend } from '../tests/support/stack.js';
import { runWebhookDispatchStarter } from '../workers/webhook-dispatch-starter.js';

process.env.LOG_LEVEL ??= 'warn';
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
const events = Number(process.argv[2] ?? 5000);

let received = 0;
const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const infra = await startThrowawayInfrastructure({ temporalStore: 'sqlite-file' });
const backend = await startTestBackend({ commandTimeoutMs: 5000 });
const { tenant } = backend.seed;
const starter = runWebhookDispatchStarter(
  backend.orm,
  { client: backend.client, taskQueue: backend.taskQueue },
  { intervalMs: 60_000, log: (message, error) => error && console.error(message, error) },
);
await starter.ready;

/** Rate of one shape: `events` events over `entities` entities, committed at once, until all are DELIVERED. */
async function platformRun(label: string, entities: number): Promise<number> {
  const em = tenantEm(backend.orm, tenant);
  const subscription = em.create(WebhookSubscription, {
    url: receiverUrl,
    eventTypes: ['VEHICLE_BASE_DATA_CHANGED'],
    createdBy: 'bench',
  });
  em.create(WebhookSigningSecret, { subscription, secret: newWebhookSecret() });
  await em.flush();
  const rows: EventFields[] = Array.from({ length: events }, (_, index) => ({
    type: 'VEHICLE_BASE_DATA_CHANGED',
    vehicleId: 1_000_000 + (index % entities),
    payload: { changes: { licensePlate: { from: null, to: `B-${index}` } } },
  }));
  const started = performance.now();
  await em.transactional(async (tx) => {
    for (let offset = 0; offset < rows.length; offset += 500)
      await insertEvents(tx, tenant, rows.slice(offset, offset + 500));
  });
  const count = async () =>
    Number(
      (
        await backend.orm.em
          .fork()
          .getConnection()
          .execute<{ n: string }[]>(
            `select count(*) as n from webhook_dispatch where subscription_id = ? and state = 'DELIVERED'`,
            [subscription.id],
          )
      )[0]!.n,
    );
  let lastReport = performance.now();
  for (let delivered = await count(); delivered < events; delivered = await count()) {
    if (process.env.BENCH_TRACE && performance.now() - lastReport > 2000) {
      console.error(`${((performance.now() - started) / 1000).toFixed(1)} s: ${delivered} delivered`);
      lastReport = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  subscription.active = false;
  await em.flush();
  const rate = events / seconds;
  console.log(`${label}: ${events} deliveries in ${seconds.toFixed(2)} s = ${rate.toFixed(0)}/s`);
  return rate;
}

/** The bare loop: the same number of HMAC-SHA1-signed POSTs, 32 at once, over one keep-alive agent. */
async function bareRun(): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const secret = newWebhookSecret();
  let next = 0;
  const post = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        id: `wh_bare_${index}`,
        type: 'VEHICLE_BASE_DATA_CHANGED',
        data: { index },
      });
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha1', secret)
        .update(`wh_bare_${index}.${timestamp}.${body}`)
        .digest('hex');
      const request = http.request(
        receiverUrl,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-webhook-id': `wh_bare_${index}`,
            'x-webhook-timestamp': String(timestamp),
            'x-webhook-signature': `sha1=${signature}`,
          },
        },
        (response) => {
          response.resume();
          response.on('end', resolve);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < events) await post(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const rate = events / seconds;
  console.log(`bare signed POST loop: ${events} POSTs in ${seconds.toFixed(2)} s = ${rate.toFixed(0)}/s`);
  return rate;
}

try {
  const bare = await bareRun();
  const ordered = await platformRun('platform webhooks, 50 entities (in order per entity)', 50);
  const distinct = await platformRun(`platform webhooks, ${events} entities`, events);
  console.log(
    `ratio to the bare loop: ${(distinct / bare).toFixed(2)} (distinct entities), ${(ordered / bare).toFixed(2)} (50 entities); receiver saw ${received}`,
  );
} finally {
  await starter.stop();
  await backend.stop();
  await infra.stop();
  await new Promise((resolve) => receiver.close(resolve));
}
