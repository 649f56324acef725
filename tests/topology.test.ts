// The production topology (issue 37): the stack as `npm run start:cluster` runs it, two API processes and
// two worker processes (scripts/start.ts --replicas=2), here on the Temporal dev server so CI needs no
// seven-minute server build (`--temporal=cluster` swaps in the real server; docs/configuration.md). Over
// HTTP only: a setting changed through one API holds in the other (once the read cache's notification
// arrived, at the latest READ_CACHE_TTL_MS later); rentals, a booking and payments
// go through both APIs alternately while one worker and then one API are killed with SIGKILL mid-run;
// afterwards every rental ended once, every vehicle command ran once, every invoice was charged once, every
// platform webhook event arrived (under one id), and the telemetry the worker that died had consumed was
// stored once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { READ_CACHE_TTL_MS } from '../db/read-cache.js';
import { DEMO_TENANT } from '../db/seed.js';
import { demoAdministratorClient, demoOperatorClient } from '../db/seed/access.js';
import { demoCustomer } from '../db/seed/customers.js';
import { DEMO_BRANCH_CODE } from '../db/seed/organisation.js';
import {
  Api,
  expectCatalogueError,
  expectStatus,
  fleetReady,
  poll,
  startStack,
  type StartedStack,
  demoDirectory,
  settingUp,
  stackTest,
} from './support/started-stack.js';

const EVENTUALLY = { timeoutMs: 120_000, intervalMs: 500 };

let stack: StartedStack;
/** The two API processes. */
let apis: [Api, Api];
let operator: string;
let admin: string;
let anna: number;
const branches: Record<string, number> = {};
const vehicleIds: Record<string, number> = {};
/** Platform webhook deliveries the receiver got: their x-webhook-id and body. */
const deliveries: Array<{ id: string; body: { type: string; rentalId: number | null } }> = [];
let receiver: http.Server;
let receiverUrl: string;

/** The scooters ridden here, one rental each. */
const scooters = ['SC-002', 'SC-004', 'SC-005'];

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['x-webhook-id']);
      deliveries.push({ id, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/platform`;
  // The receiver listens on 127.0.0.1, a target refused unless the deployment allows private ones.
  stack = await startStack({ replicas: 2, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  await settingUp(stack, async () => {
    apis = [new Api(stack.baseUrls[0]!, DEMO_TENANT), new Api(stack.baseUrls[1]!, DEMO_TENANT)];
    // Tokens are signed with the deployment's one secret: either process accepts what the other issued.
    operator = await apis[0].clientToken(demoOperatorClient, 'back');
    admin = await apis[1].clientToken(demoAdministratorClient, 'back');
    const [first, second] = apis;
    const directory = await demoDirectory(second, operator, 'berlin');
    Object.assign(branches, directory.branches);
    anna = directory.customers.find((row) => row.email === demoCustomer.email)!.id;
    Object.assign(
      vehicleIds,
      await fleetReady(first, operator, branches[DEMO_BRANCH_CODE]!, scooters, EVENTUALLY),
    );
  });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
}, 120_000);

/** A test that prints the stack's last output when it fails. */
const topologyTest = (name: string, body: () => Promise<void>) => stackTest(() => stack, name, body, 480_000);

const search = (api: Api) =>
  api.call('GET', api.back(`/rentals?branchId=${branches.berlin}`), { token: operator });

/**
 * Waits out the read cache's bound: the other process drops its copy when the commit's notification
 * arrives, usually within milliseconds, but on a loaded machine its next request can come first; no entry
 * is served older than READ_CACHE_TTL_MS (db/read-cache.ts), so after it every process reads the change.
 */
const cachesRefreshed = () => new Promise((resolve) => setTimeout(resolve, READ_CACHE_TTL_MS + 100));

topologyTest(
  "a setting changed through one API holds in the other within the read cache's bound, and so does its limit",
  async () => {
    const [first, second] = apis;
    const created = await first.call('POST', first.back('/settings-management'), {
      token: admin,
      body: { key: 'rateLimits.search', value: { points: 3, durationSeconds: 60 } },
    });
    expectStatus(created, 201);
    await cachesRefreshed();
    try {
      // Three searches in all, across both processes, then either refuses: one count, read by both.
      expectStatus(await search(second), 200);
      expectStatus(await search(first), 200);
      expectStatus(await search(second), 200);
      expectCatalogueError(await search(first), 429, 'RL101');
      expectCatalogueError(await search(second), 429, 'RL101');
    } finally {
      expectStatus(
        await second.call('DELETE', second.back(`/settings-management/${created.body.id}`), { token: admin }),
        204,
      );
    }
    // Removed through the second process: the first is back on the default (a new window).
    await cachesRefreshed();
    expectStatus(await search(first), 200);
  },
);

/** A rental through the operator interface, each call through the process `via` names in turn. */
async function rentalThrough(
  via: Api[],
  vehicleCode: string,
  afterEnd?: () => Promise<void>,
): Promise<number> {
  const at = (index: number) => via[index % via.length]!;
  const created = await at(0).call('POST', at(0).back('/rentals'), {
    token: operator,
    body: { guserId: anna, vehicleCode },
  });
  expectStatus(created, 201);
  const rentalId: number = created.body.id;
  const operations = ['START', 'PARK', 'DRIVE', 'END'];
  for (const [index, operationType] of operations.entries()) {
    const api = at(index + 1);
    const reply = await api.call('POST', api.back(`/rentals/${rentalId}/operation`), {
      token: operator,
      body: { operationType },
    });
    expectStatus(reply, 200);
  }
  await afterEnd?.();
  return rentalId;
}

topologyTest(
  'rentals, a booking and payments through both APIs; a worker and an API killed mid-run; everything once',
  async () => {
    const [first, second] = apis;
    const runStart = new Date(Date.now() - 1000);
    const subscription = await first.call('POST', first.back('/webhook-subscriptions'), {
      token: operator,
      body: { branchId: branches.berlin, url: receiverUrl, eventTypes: ['RENTAL_START', 'RENTAL_END'] },
    });
    expectStatus(subscription, 201);
    const workers = await stack.processesOf('composition/worker-main.ts');
    const apiProcesses = await stack.processesOf('composition/api-server.ts');
    expect({ workers: workers.length, apis: apiProcesses.length }).toEqual({ workers: 2, apis: 2 });

    // Rental 1 alternates between the APIs; right after END answered (its billing and charge follow in
    // the workflow), the first worker is killed.
    const rentals = [
      await rentalThrough([first, second], scooters[0]!, async () => {
        process.kill(workers[0]!, 'SIGKILL');
      }),
    ];
    // A booking made through the second API, read and cancelled through the first.
    const start = new Date(Date.now() + 2 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    const booking = await second.call('POST', second.back('/bookings'), {
      token: operator,
      body: {
        guserId: anna,
        branchId: branches['berlin-hbf'],
        vehicleCategoryId: await compactCar(first),
        startTime: start.toISOString(),
        endTime: new Date(start.getTime() + 2 * 3_600_000).toISOString(),
      },
    });
    expectStatus(booking, 201);
    expectStatus(
      await first.call('GET', first.back(`/bookings/${booking.body.id}`), { token: operator }),
      200,
    );
    const cancelled = await first.call('POST', first.back(`/bookings/${booking.body.id}/cancel`), {
      token: operator,
      body: { waiveCancellationFee: true },
    });
    expectStatus(cancelled, 200);
    expect(cancelled.body.state).toMatch(/^CANCEL/);

    // Rental 2 on the surviving worker, alternating the other way round; then the second API is killed.
    rentals.push(await rentalThrough([second, first], scooters[1]!));
    process.kill(apiProcesses[1]!, 'SIGKILL');
    // Rental 3 through the surviving API only.
    rentals.push(await rentalThrough([first], scooters[2]!));

    const businessUnits = new Set<number>();
    for (const rentalId of rentals) {
      const rental = await first.call('GET', first.back(`/rentals/${rentalId}`), { token: operator });
      expectStatus(rental, 200);
      expect(['ENDED', 'ENDED_NO_MOVEMENT']).toContain(rental.body.state);
      // Its invoice charged once: one payment, one attempt, PAID.
      const invoiceId: number = rental.body.invoiceId;
      const invoice = await poll(
        `rental ${rentalId}'s invoice ${invoiceId} PAID`,
        async () => {
          const reply = await first.call('GET', first.back(`/invoices/${invoiceId}`), { token: operator });
          return reply.body?.state === 'PAID' ? reply.body : undefined;
        },
        EVENTUALLY,
      );
      // Collected once: from Anna's balance credit, or by one payment whose one attempt was charged.
      businessUnits.add(invoice.businessUnitId);
      expect(invoice.payments.length).toBeLessThanOrEqual(1);
      for (const { id } of invoice.payments) {
        const payment = await first.call('GET', first.back(`/payments/${id}`), { token: operator });
        expectStatus(payment, 200);
        expect(payment.body).toMatchObject({ state: 'PAID', attemptCount: 1 });
      }
      // Each step and each vehicle command once on its timeline.
      const events = await first.call('GET', first.back(`/RENTALS/${rentalId}/events`), { token: operator });
      expectStatus(events, 200);
      const counts: Record<string, number> = {};
      for (const event of events.body as Array<{ type: string }>)
        counts[event.type] = (counts[event.type] ?? 0) + 1;
      expect(counts).toMatchObject({
        RENTAL_RESERVATION: 1,
        RENTAL_START: 1,
        RENTAL_PARK: 1,
        RENTAL_DRIVE: 1,
        VEHICLE_COMMAND_UNLOCK: 2,
        VEHICLE_COMMAND_LOCK: 2,
        INVOICE_BILLED: 1,
      });
      expect((counts.RENTAL_END ?? 0) + (counts.RENTAL_END_NO_MOVEMENT ?? 0)).toBe(1);
    }

    // The books of the run reconcile: what each invoice was paid is what the gateway captured plus what the
    // balance gave, every capture belongs to one attempt, every ledger row is on its balance's timeline.
    for (const businessUnitId of businessUnits) {
      const report = await first.call(
        'GET',
        first.back(`/finance/reconciliation?businessUnitId=${businessUnitId}&from=${runStart.toISOString()}`),
        { token: operator },
      );
      expectStatus(report, 200);
      expect(report.body.discrepancies).toEqual([]);
    }

    // Every RENTAL_START and RENTAL_END reached the receiver (at least once, always under one id; a repeat
    // is what a dispatcher killed between its POST and its record may send), each rental's in order.
    const wanted = rentals.length * 2;
    await poll(
      'the webhooks of every rental',
      async () => (new Set(deliveries.map((delivery) => delivery.id)).size >= wanted ? true : undefined),
      EVENTUALLY,
    );
    const firstOfEach = deliveries.filter(
      (delivery, index) => deliveries.findIndex((other) => other.id === delivery.id) === index,
    );
    for (const rentalId of rentals)
      expect(
        firstOfEach
          .filter((delivery) => delivery.body.rentalId === rentalId)
          .map((delivery) => delivery.body.type),
      ).toEqual(['RENTAL_START', expect.stringMatching(/^RENTAL_END/)]);
    expect(firstOfEach).toHaveLength(wanted);

    // Telemetry, consumed by one worker at a time, is stored once per message: no device time twice.
    for (const code of scooters) {
      const telemetry = await first.call(
        'GET',
        first.back(`/vehicles/${vehicleIds[code]}/telemetry?size=200`),
        {
          token: operator,
        },
      );
      expectStatus(telemetry, 200);
      const times = (telemetry.body as Array<{ reportedAt: string }>).map((row) => row.reportedAt);
      expect(times.length).toBeGreaterThan(0);
      expect(new Set(times).size).toBe(times.length);
    }
  },
);

/** The id of the "Compact car" category. */
async function compactCar(api: Api): Promise<number> {
  const categories = await api.call('GET', api.back('/vehicles/categories'), { token: operator });
  expectStatus(categories, 200);
  return categories.body.find((category: { name: string }) => category.name === 'Compact car').id;
}
