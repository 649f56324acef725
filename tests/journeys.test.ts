// User journeys over HTTP against the whole stack as `npm start` runs it (scripts/start.ts as a child
// process on free ports and a fresh data directory: embedded PostgreSQL, MQTT broker, Temporal dev server,
// mail catcher, versitygw, worker, API and simulated fleet). The suite is a client of the API and
// nothing else: it never touches the database or Temporal; it reads mail where the mail catcher keeps it
// and receives export webhooks on a receiver of its own. Every refusal must be a catalogue body.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { parse as parseCsv } from 'csv-parse/sync';
import { Decimal } from 'decimal.js';
import { Webhook } from 'standardwebhooks';
import { DEMO_TENANT } from '../db/seed.js';
import { demoAdministratorClient, demoAppClient, demoOperatorClient } from '../db/seed/access.js';
import { demoCustomer } from '../db/seed/customers.js';
import { DEMO_BRANCH_CODE } from '../db/seed/organisation.js';
import {
  Api,
  expectCatalogueError,
  expectStatus,
  fleetReady,
  mailedCode,
  poll,
  startStack,
  type Reply,
  type StartedStack,
  demoDirectory,
  settingUp,
  stackTest,
} from './support/started-stack.js';

const MINUTE = 60_000;
/** Deadline of every asynchronous outcome (a payment, a delivery, a webhook): long, never the measure. */
const EVENTUALLY = { timeoutMs: 120_000, intervalMs: 500 };

let stack: StartedStack;
let api: Api;
let operator: string;
let anna: string;
const branches: Record<string, number> = {};
const customers: Record<string, number> = {};
const vehicleIds: Record<string, number> = {};
/** Category ids by name: "E-Scooter" and "Compact car" (db/seed/fleet.ts). */
const categories: Record<string, number> = {};

/** A journey: a test that prints the stack's last output when it fails. */
const journey = (name: string, body: () => Promise<void>, timeoutMs = 300_000) =>
  stackTest(() => stack, name, body, timeoutMs);

beforeAll(async () => {
  // The export webhook receiver of journey 5 listens on 127.0.0.1, a target refused unless the deployment
  // allows private targets (docs/webhooks.md, "Targets"; platform/webhook-http.ts).
  stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  await settingUp(stack, async () => {
    api = new Api(stack.baseUrl, DEMO_TENANT);
    operator = await api.clientToken(demoOperatorClient, 'back');
    anna = await api.signIn(demoCustomer.email, demoCustomer.password);
    const directory = await demoDirectory(api, operator, 'berlin');
    Object.assign(branches, directory.branches);
    // anna, ben, clara, deniz (db/seed/customers.ts), by the first part of their e-mail addresses.
    for (const customer of directory.customers) customers[customer.email.split('.')[0]!] = customer.id;
    const categoryList = await api.call('GET', api.back('/vehicles/categories'), { token: operator });
    expectStatus(categoryList, 200);
    for (const category of categoryList.body) categories[category.name] = category.id;
    // The simulator brings the fleet online over MQTT: wait until the scooters the journeys use are ready.
    Object.assign(
      vehicleIds,
      await fleetReady(api, operator, branches[DEMO_BRANCH_CODE]!, scooters, EVENTUALLY),
    );
  });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
}, 120_000);

/** The scooters the journeys ride (the E-Scooter category disallows OPEN_TAILBOX, db/seed/fleet.ts). */
const scooters = ['SC-001', 'SC-002', 'SC-004', 'SC-005', 'SC-007'];

const reserve = (token: string, vehicleCode: string) =>
  api.call('POST', api.front('/rentals'), { token, body: { vehicleCode } });

const operate = (token: string, rentalId: number, operationType: string) =>
  api.call('POST', api.front(`/rentals/${rentalId}/operation`), { token, body: { operationType } });

/** An operation that must succeed: the rental after it. */
async function operated(token: string, rentalId: number, operationType: string, state: string) {
  const reply = await operate(token, rentalId, operationType);
  expectStatus(reply, 200);
  expect(reply.body).toMatchObject({ id: rentalId, state });
  return reply.body;
}

/** A reservation that must succeed: the new rental. */
async function reserved(token: string, vehicleCode: string) {
  const reply = await reserve(token, vehicleCode);
  expectStatus(reply, 201);
  expect(reply.body).toMatchObject({
    state: 'RESERVATION',
    vehicle: { id: vehicleIds[vehicleCode], code: vehicleCode },
  });
  return reply.body as { id: number };
}

const endedStates = ['ENDED', 'ENDED_NO_MOVEMENT'];

/**
 * Closes what an earlier journey that failed half-way left open for the customer (a reservation is
 * cancelled, an active rental ended), so one failure does not turn the next journeys into R102s.
 */
async function closeOpenRentals(token: string) {
  const list = await api.call('GET', api.front('/rentals?size=100'), { token });
  expectStatus(list, 200);
  for (const rental of list.body as Array<{ id: number; state: string }>) {
    if (rental.state === 'RESERVATION')
      await api.call('DELETE', api.front(`/rentals/${rental.id}`), { token });
    if (rental.state === 'ACTIVE') await operate(token, rental.id, 'END');
  }
}

journey(
  'a new customer signs up, is refused without a payment method, adds a card in the app, rides and pays',
  async () => {
    // A new customer of the white-label app (the app's own sign-up, docs/customers.md).
    // Before the sign-up, the app's own client token reaches no current-user route.
    const appToken = await api.clientToken(demoAppClient, 'front');
    const anonymous = await api.call(
      'GET',
      api.front(`/rentals/requirements?vehicleId=${vehicleIds['SC-001']}`),
      {
        token: appToken,
      },
    );
    expectCatalogueError(anonymous, 401, '0001');
    const email = `journey.rider.${Date.now()}@example.com`;
    const password = 'journey-rider-2026';
    const signUp = await api.call('POST', api.auth('/customer/sign-up'), {
      body: {
        email,
        password,
        firstName: 'Jona',
        lastName: 'Reiter',
        birthDate: '1994-06-15',
        acceptTnc: true,
      },
    });
    expectStatus(signUp, 201);
    expect(signUp.body).toMatchObject({
      token_type: 'Bearer',
      created: true,
      customerId: expect.any(Number),
    });
    expect(signUp.headers.get('cache-control')).toBe('no-store');

    const code = await mailedCode(stack.mailDir, email, 'Confirm your e-mail address');
    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await api.call('POST', api.auth('/customer/email-verification'), {
      body: { email, code: wrong },
    });
    expectCatalogueError(refused, 401, 'AUTH119');
    const verified = await api.call('POST', api.auth('/customer/email-verification'), {
      body: { email, code },
    });
    expectStatus(verified, 204);

    const token = await api.signIn(email, password);
    const account = await api.call('GET', api.front('/account'), { token });
    expectStatus(account, 200);
    expect(account.body).toMatchObject({ id: signUp.body.customerId, email, emailIsVerified: true });

    const requirements = await api.call(
      'GET',
      api.front(`/rentals/requirements?vehicleId=${vehicleIds['SC-001']}`),
      {
        token,
      },
    );
    expectStatus(requirements, 200);
    expect(requirements.body).toMatchObject({ branchId: branches[DEMO_BRANCH_CODE], passed: false });
    expect(requirements.body.requirements).toContainEqual(
      expect.objectContaining({ name: 'PAYMENT_METHOD', passed: false, code: 'P104' }),
    );

    expectCatalogueError(await reserve(token, 'SC-001'), 422, 'P104');
    const rentals = await api.call('GET', api.front('/rentals'), { token });
    expectStatus(rentals, 200);
    expect(rentals.body).toEqual([]);

    // She adds a card in the app (docs/payment-methods.md): the app starts a setup at the gateway, its
    // card form confirms it with the setup's client secret (the sandbox: a test token), and the gateway's
    // webhook stores the card.
    const setup = await api.call('POST', api.front('/payment-methods/setups'), {
      token,
      body: { branchId: branches[DEMO_BRANCH_CODE] },
    });
    expectStatus(setup, 201);
    expect(setup.body).toMatchObject({
      state: 'PENDING',
      gateway: 'sandbox',
      clientSecret: expect.any(String),
    });
    const confirmed = await api.call(
      'POST',
      api.front(`/sandbox-gateway/setups/${setup.body.reference}/confirm`),
      { body: { clientSecret: setup.body.clientSecret, token: 'tok_sandbox_visa' } },
    );
    expectStatus(confirmed, 200);
    expect(confirmed.body).toMatchObject({ state: 'SUCCEEDED', webhook: { result: 'APPLIED' } });
    const saved = await api.call('GET', api.front(`/payment-methods/setups/${setup.body.id}`), { token });
    expectStatus(saved, 200);
    expect(saved.body).toMatchObject({ state: 'SUCCEEDED', paymentMethodId: expect.any(Number) });
    const methods = await api.call('GET', api.front('/payment-methods'), { token });
    expectStatus(methods, 200);
    expect(methods.body).toEqual([
      expect.objectContaining({ id: saved.body.paymentMethodId, label: 'Visa •••• 4242', isDefault: true }),
    ]);
    const ready = await api.call(
      'GET',
      api.front(`/rentals/requirements?vehicleId=${vehicleIds['SC-001']}`),
      { token },
    );
    expectStatus(ready, 200);
    expect(ready.body.requirements).toContainEqual(
      expect.objectContaining({ name: 'PAYMENT_METHOD', passed: true }),
    );

    // Now she rides: reserve, START, PARK, DRIVE, END, and the invoice is paid with her new card.
    const rental = await reserved(token, 'SC-001');
    await operated(token, rental.id, 'START', 'ACTIVE');
    await operated(token, rental.id, 'PARK', 'ACTIVE');
    await operated(token, rental.id, 'DRIVE', 'ACTIVE');
    const ended = await operate(token, rental.id, 'END');
    expectStatus(ended, 200);
    expect(endedStates).toContain(ended.body.state);
    const read = await api.call('GET', api.front(`/rentals/${rental.id}`), { token });
    expectStatus(read, 200);
    expect(read.body).toMatchObject({
      price: { total: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'EUR' },
      invoiceId: expect.any(Number),
      priceIsEstimate: false,
    });
    const paid = await poll(
      `the new customer's invoice ${read.body.invoiceId} PAID`,
      async () => {
        const reply = await api.call('GET', api.front(`/invoices?rentalId=${rental.id}`), { token });
        const invoice = reply.body?.find((row: { id: number }) => row.id === read.body.invoiceId);
        return invoice?.state === 'PAID' ? invoice : undefined;
      },
      EVENTUALLY,
    );
    expect(paid).toMatchObject({
      rentalId: rental.id,
      guserId: signUp.body.customerId,
      totals: { gross: read.body.price.total },
    });
  },
);

journey(
  'the demo customer reserves, starts, parks, drives and ends a rental, and its invoice is paid',
  async () => {
    // Anna, the demo customer of the README (a card on file), in the app.
    await closeOpenRentals(anna);
    const rental = await reserved(anna, 'SC-002');
    await operated(anna, rental.id, 'START', 'ACTIVE');
    await operated(anna, rental.id, 'PARK', 'ACTIVE');
    await operated(anna, rental.id, 'DRIVE', 'ACTIVE');
    // The open rental shows what the ride costs so far, marked as an estimate, in both interfaces.
    const running = await api.call('GET', api.front(`/rentals/${rental.id}`), { token: anna });
    expectStatus(running, 200);
    expect(running.body).toMatchObject({
      state: 'ACTIVE',
      priceIsEstimate: true,
      price: { total: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'EUR' },
      priceV4: { lines: expect.any(Array) },
    });
    const seen = await api.call('GET', api.back(`/rentals/${rental.id}`), { token: operator });
    expectStatus(seen, 200);
    expect(seen.body).toMatchObject({ priceIsEstimate: true, price: { currency: 'EUR' } });
    const ended = await operate(anna, rental.id, 'END');
    expectStatus(ended, 200);
    expect(endedStates).toContain(ended.body.state);
    expect(ended.body.phases.map((phase: { phase: string }) => phase.phase)).toEqual(
      expect.arrayContaining(['RESERVATION_FREE', 'DRIVING', 'PARKING']),
    );

    const read = await api.call('GET', api.front(`/rentals/${rental.id}`), { token: anna });
    expectStatus(read, 200);
    expect(read.body).toMatchObject({
      id: rental.id,
      state: ended.body.state,
      price: { total: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'EUR' },
      invoiceId: expect.any(Number),
      priceIsEstimate: false,
      // Where it ended, also when it ended without moving (ENDED_NO_MOVEMENT).
      endBranchId: branches[DEMO_BRANCH_CODE],
    });
    const invoiceId: number = read.body.invoiceId;

    // Ending bills the invoice at once (finance.invoice.autoBill); the payment runs as a workflow.
    const paid = await poll(
      `invoice ${invoiceId} PAID`,
      async () => {
        const reply = await api.call('GET', api.front(`/invoices?rentalId=${rental.id}`), { token: anna });
        const invoice = reply.body?.find((row: { id: number }) => row.id === invoiceId);
        return invoice?.state === 'PAID' ? invoice : undefined;
      },
      EVENTUALLY,
    );
    expect(paid).toMatchObject({
      rentalId: rental.id,
      guserId: customers.anna,
      totals: { gross: read.body.price.total },
      settledAt: expect.any(String),
    });
    // Refunded over HTTP: the largest line, as much as it was actually paid (its share after vouchers,
    // discounts and balance credit); more is I127; then the business unit's books reconcile.
    const overview = await api.call('GET', api.back(`/invoices/${invoiceId}/overview`), { token: operator });
    expectStatus(overview, 200);
    const lines: { id: number; gross: string }[] = overview.body.invoice.lines;
    const positive = lines.filter((line) => new Decimal(line.gross).gt(0));
    const listed = positive.reduce((sum, line) => sum.plus(line.gross), new Decimal(0));
    const largest = positive.reduce((a, b) => (new Decimal(b.gross).gt(a.gross) ? b : a));
    const share = new Decimal(overview.body.paidGross)
      .times(largest.gross)
      .div(listed)
      .toDecimalPlaces(2, Decimal.ROUND_DOWN);
    expect(share.gt(0)).toBe(true);
    const refund = await api.call('POST', api.back(`/invoices/${invoiceId}/refund`), {
      token: operator,
      body: {
        reason: 'The ride ended early.',
        items: [{ lineItemId: largest.id, amount: share.toFixed(2) }],
      },
    });
    expectStatus(refund, 201);
    expect(refund.body).toMatchObject({ state: 'IS_REFUND', refundedInvoiceId: invoiceId });
    await poll(
      `invoice ${invoiceId} refunded`,
      async () => {
        const reply = await api.call('GET', api.back(`/invoices/${invoiceId}`), { token: operator });
        return ['ALLOWS_REFUND', 'REFUNDED'].includes(reply.body?.state) ? true : undefined;
      },
      EVENTUALLY,
    );
    const tooMuch = await api.call('POST', api.back(`/invoices/${invoiceId}/refund`), {
      token: operator,
      body: { reason: 'again', items: [{ lineItemId: largest.id, amount: largest.gross }] },
    });
    expectCatalogueError(tooMuch, 422, 'I127');
    const from = new Date(Date.now() - 365 * 86_400_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const report = await api.call(
      'GET',
      api.back(
        `/finance/reconciliation?businessUnitId=${overview.body.invoice.businessUnitId}` +
          `&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      ),
      { token: operator },
    );
    expectStatus(report, 200);
    expect(report.body.discrepancies).toEqual([]);
    // The vehicle is free again for the next customer.
    const vehicle = await api.call('GET', api.back(`/vehicles/${vehicleIds['SC-002']}`), { token: operator });
    expectStatus(vehicle, 200);
    expect(vehicle.body).toMatchObject({ rentalState: 'AVAILABLE' });
  },
);

journey('refusals answer their own codes and statuses', async () => {
  // Anna in the app, the operator acting for Deniz (who can pay) and Ben (an invoice unpaid for 30 days).
  await closeOpenRentals(anna);
  const rental = await reserved(anna, 'SC-004');
  // R102: she already has an open rental.
  expectCatalogueError(await reserve(anna, 'SC-005'), 409, 'R102');
  // R103: the scooter is reserved by someone else.
  const forDeniz = await api.call('POST', api.back('/rentals'), {
    token: operator,
    body: { guserId: customers.deniz, vehicleCode: 'SC-004' },
  });
  expectCatalogueError(forDeniz, 409, 'R103');
  // R201: operations the rental's state refuses (START while ACTIVE, PARK while parking).
  await operated(anna, rental.id, 'START', 'ACTIVE');
  expectCatalogueError(await operate(anna, rental.id, 'START'), 409, 'R201');
  await operated(anna, rental.id, 'PARK', 'ACTIVE');
  expectCatalogueError(await operate(anna, rental.id, 'PARK'), 409, 'R201');
  await operated(anna, rental.id, 'DRIVE', 'ACTIVE');
  // R204: the E-Scooter category disallows OPEN_TAILBOX (its disallowedRentalOperations).
  expectCatalogueError(await operate(anna, rental.id, 'OPEN_TAILBOX'), 409, 'R204');
  expectStatus(await operate(anna, rental.id, 'END'), 200);
  // A cancelled reservation is no longer operable either.
  const again = await reserved(anna, 'SC-005');
  const cancelled = await api.call('DELETE', api.front(`/rentals/${again.id}`), { token: anna });
  expectStatus(cancelled, 200);
  expectCatalogueError(await operate(anna, again.id, 'START'), 409, 'R201');

  // U134: Ben has an invoice in COLLECTION, billed 30 days ago (db/seed/finance.ts).
  const forBen = await api.call('POST', api.back('/rentals'), {
    token: operator,
    body: { guserId: customers.ben, vehicleCode: 'SC-005' },
  });
  expectCatalogueError(forBen, 422, 'U134');
  const bensRequirements = await api.call(
    'GET',
    api.back(
      `/rental-requirements/start?branchId=${branches[DEMO_BRANCH_CODE]}&vehicleCategoryId=${categories['E-Scooter']}&guserId=${customers.ben}`,
    ),
    { token: operator },
  );
  expectStatus(bensRequirements, 200);
  expect(bensRequirements.body.requirements).toContainEqual(
    expect.objectContaining({ name: 'NO_UNPAID_INVOICES', passed: false, code: 'U134' }),
  );

  // S101: Ostbahnhof opens 06:00-23:00 Berlin time; 00:30 UTC is 01:30 or 02:30 there.
  const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const bookAt = (station: string) =>
    api.call('POST', api.front('/bookings'), {
      token: anna,
      body: {
        branchId: branches[station],
        vehicleCategoryId: categories['Compact car'],
        startTime: `${day}T00:30:00Z`,
        endTime: `${day}T04:30:00Z`,
      },
    });
  expectCatalogueError(await bookAt('berlin-ostbahnhof'), 422, 'S101');
  // The same window at Hauptbahnhof (always open) is booked, and cancelled again.
  const open = await bookAt('berlin-hbf');
  expectStatus(open, 201);
  expect(open.body).toMatchObject({ state: 'BOOKED', branchId: branches['berlin-hbf'] });
  const cancelledBooking = await api.call('DELETE', api.front(`/bookings/${open.body.id}`), { token: anna });
  expectStatus(cancelledBooking, 200);
  expect(cancelledBooking.body).toMatchObject({ state: 'CANCELED' });
  // P104 is journey 1's refusal (a new customer without a payment method).
});

journey(
  'twenty concurrent STARTs of one reservation: one starts it, the others are told why not',
  async () => {
    // Anna tapping START on several devices at once (or an app retrying without waiting).
    await closeOpenRentals(anna);
    const rental = await reserved(anna, 'SC-007');
    const replies: Reply[] = await Promise.all(
      Array.from({ length: 20 }, () => operate(anna, rental.id, 'START')),
    );
    const summary = replies.map((reply) => `${reply.status} ${reply.body?.errorCode ?? reply.body?.state}`);
    expect(replies.filter((reply) => reply.status >= 500)).toEqual([]);
    expect(replies.filter((reply) => reply.status >= 200 && reply.status < 300)).toHaveLength(1);
    for (const reply of replies.filter((one) => one.status !== 200)) {
      // With every answer in the message when one differs.
      expect({ status: reply.status, summary }).toEqual({ status: 409, summary });
      expect(['R201', 'R202']).toContain(reply.body.errorCode);
      expectCatalogueError(reply, 409, reply.body.errorCode);
    }
    const read = await api.call('GET', api.front(`/rentals/${rental.id}`), { token: anna });
    expect(read.body).toMatchObject({ state: 'ACTIVE' });
    const ended = await operate(anna, rental.id, 'END');
    expectStatus(ended, 200);
    expect(endedStates).toContain(ended.body.state);
  },
);

journey(
  'an operator delivers and hands over a booking, refunds an invoice, completes a task, exports',
  async () => {
    // The demo operator's dashboard (client credentials, scope back: fleet on Berlin, finance on its unit).
    const rentalId = await bookingDeliveredAndPickedUp();
    await invoiceRefunded();
    await taskCompleted();
    await oneTimeExportDelivered(rentalId);
  },
);

/** Deniz's booking at Hauptbahnhof in 20 minutes: delivered by the workflow, picked up into a rental. */
async function bookingDeliveredAndPickedUp(): Promise<number> {
  const start = new Date(Math.ceil((Date.now() + 20 * MINUTE) / MINUTE) * MINUTE);
  const created = await api.call('POST', api.back('/bookings'), {
    token: operator,
    body: {
      guserId: customers.deniz,
      branchId: branches['berlin-hbf'],
      vehicleCategoryId: categories['Compact car'],
      startTime: start.toISOString(),
      endTime: new Date(start.getTime() + 120 * MINUTE).toISOString(),
    },
  });
  expectStatus(created, 201);
  const bookingId: number = created.body.id;
  // Inside autoDeliveryMinutesBeforeStart (120) the workflow delivers a car of the pool at once.
  const delivered = await poll(
    `booking ${bookingId} DELIVERED`,
    async () => {
      const reply = await api.call('GET', api.back(`/bookings/${bookingId}`), { token: operator });
      return reply.body?.state === 'DELIVERED' ? reply.body : undefined;
    },
    EVENTUALLY,
  );
  expect(delivered).toMatchObject({
    guserId: customers.deniz,
    vehicleId: expect.any(Number),
    rentalId: null,
  });

  // The pickup window opens pickupEarlyMinutes (30) before the start: the rental starts (UNLOCK over MQTT).
  const pickedUp = await api.call('POST', api.back(`/bookings/${bookingId}`), { token: operator });
  expectStatus(pickedUp, 200);
  expect(pickedUp.body).toMatchObject({
    id: bookingId,
    rentalId: expect.any(Number),
    pickedUpAt: expect.any(String),
  });
  const rentalId: number = pickedUp.body.rentalId;
  const rental = await api.call('GET', api.back(`/rentals/${rentalId}`), { token: operator });
  expectStatus(rental, 200);
  expect(rental.body).toMatchObject({
    state: 'ACTIVE',
    vehicle: { id: delivered.vehicleId },
    user: { id: customers.deniz },
  });

  // The trip ends; the booking is SUCCESSFUL once its workflow heard of the rental's end.
  const ended = await api.call('POST', api.back(`/rentals/${rentalId}/operation`), {
    token: operator,
    body: { operationType: 'END' },
  });
  expectStatus(ended, 200);
  expect(endedStates).toContain(ended.body.state);
  await poll(
    `booking ${bookingId} SUCCESSFUL`,
    async () => {
      const reply = await api.call('GET', api.back(`/bookings/${bookingId}`), { token: operator });
      return reply.body?.state === 'SUCCESSFUL' ? true : undefined;
    },
    EVENTUALLY,
  );
  return rentalId;
}

/** Anna's seeded "Weekend trip" (PAID by card through the sandbox gateway), refunded in full. */
async function invoiceRefunded() {
  const list = await api.call(
    'GET',
    api.back(`/invoices?branchId=${branches.berlin}&guserId=${customers.anna}&state=PAID&size=100`),
    { token: operator },
  );
  expectStatus(list, 200);
  const invoice = list.body.find(
    (row: { title: string; rentalId: number | null }) =>
      row.title === 'Weekend trip' && row.rentalId === null,
  );
  expect(invoice).toMatchObject({ state: 'PAID', refundingInvoiceIds: [] });
  const refund = await api.call('POST', api.back(`/invoices/${invoice.id}/refund`), {
    token: operator,
    body: {
      reason: 'The scooter would not unlock at the end of the trip.',
      items: invoice.lines.map((line: { id: number; gross: string }) => ({
        lineItemId: line.id,
        amount: line.gross,
      })),
    },
  });
  expectStatus(refund, 201);
  expect(refund.body).toMatchObject({
    state: 'IS_REFUND',
    refundedInvoiceId: invoice.id,
    totals: { gross: `-${invoice.totals.gross}` },
  });
  // The refund workflow gives the money back through the gateway; then the original is REFUNDED.
  const refunded = await poll(
    `invoice ${invoice.id} REFUNDED`,
    async () => {
      const reply = await api.call('GET', api.back(`/invoices/${invoice.id}`), { token: operator });
      return reply.body?.state === 'REFUNDED' ? reply.body : undefined;
    },
    EVENTUALLY,
  );
  expect(refunded.refundingInvoiceIds).toEqual([refund.body.id]);
  // A second refund of the same lines is refused: nothing is left to give back.
  const twice = await api.call('POST', api.back(`/invoices/${invoice.id}/refund`), {
    token: operator,
    body: { reason: 'again', items: [{ lineItemId: invoice.lines[0].id, amount: invoice.lines[0].gross }] },
  });
  expect([409, 422]).toContain(twice.status);
  expectCatalogueError(twice, twice.status, twice.body?.errorCode);
}

/** The seeded NEW task "Clean the helmets at the depot", completed. */
async function taskCompleted() {
  const open = await api.call(
    'GET',
    api.back(`/tasks?branchId=${branches.berlin}&includeChildBranches=true&taskState=NEW`),
    { token: operator },
  );
  expectStatus(open, 200);
  expect(open.body.length).toBeGreaterThan(0);
  const task = open.body[0];
  const completed = await api.call('PATCH', api.back(`/tasks/${task.id}`), {
    token: operator,
    body: { taskData: { taskState: 'COMPLETED' } },
  });
  expectStatus(completed, 200);
  expect(completed.body.taskData).toMatchObject({
    taskState: 'COMPLETED',
    completedAt: expect.any(String),
    completedBy: expect.stringContaining(demoOperatorClient.clientId),
  });
  const done = await api.call(
    'GET',
    api.back(`/tasks?branchId=${branches.berlin}&includeChildBranches=true&taskState=NEW`),
    {
      token: operator,
    },
  );
  expect(done.body.map((row: { id: number }) => row.id)).not.toContain(task.id);
}

/** A receiver of export webhooks on 127.0.0.1: keeps each request's headers and raw body, answers 204. */
async function startReceiver() {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/exports`;
  const close = () => new Promise((resolve) => server.close(resolve));
  return { received, url, close };
}

/** A one-time export of the rentals report over Berlin, notifying `webhookUrl`; answers its run's id. */
async function oneTimeExport(name: string, webhookUrl: string): Promise<number> {
  const created = await api.call('POST', api.back('/exports'), {
    token: operator,
    body: {
      name,
      queryId: 1,
      branchIds: [branches.berlin],
      period: { lastDays: 1 },
      retentionDays: 1,
      notifications: { webhookUrl },
    },
  });
  expectStatus(created, 201);
  expect(created.body).toMatchObject({
    queryId: 1,
    notifications: { webhookUrl },
    lastRunId: expect.any(Number),
  });
  return created.body.lastRunId as number;
}

/** A one-time rentals export: its webhook reaches the receiver, its exportUrl redirects to a CSV. */
async function oneTimeExportDelivered(rentalId: number) {
  const receiver = await startReceiver();
  try {
    const runId = await oneTimeExport('Journeys: rentals today', receiver.url);
    const delivery = await poll('the export webhook', async () => receiver.received[0], EVENTUALLY);
    expect(delivery.headers).toMatchObject({
      'content-type': expect.stringContaining('application/json'),
      'webhook-id': `export-run:${DEMO_TENANT}:${runId}`,
      'x-webhook-dispatch-attempt-count': '1',
    });
    const payload = JSON.parse(delivery.body);
    expect(payload).toEqual({
      id: runId,
      queryId: 1,
      queryName: expect.any(String),
      exportUrl: expect.stringContaining(`/v1/${DEMO_TENANT}/back/exports/runs/${runId}/download?key=`),
      expirationDate: expect.any(String),
    });
    const run = await api.call('GET', api.back(`/exports/runs/${runId}`), { token: operator });
    expectStatus(run, 200);
    expect(run.body).toMatchObject({ state: 'SUCCEEDED', exportUrl: payload.exportUrl });
    const rows = await csvDownload(payload.exportUrl, run.body.rowCount);
    // The trip of the booking picked up above is in it.
    const idColumn = rows[0]!.indexOf('rentalId');
    expect(rows.slice(1).map((row) => row[idColumn])).toContain(String(rentalId));
    const deliveries = await api.call('GET', api.back(`/exports/runs/${runId}/deliveries`), {
      token: operator,
    });
    expectStatus(deliveries, 200);
    expect(deliveries.body).toEqual([
      expect.objectContaining({ channel: 'WEBHOOK', target: receiver.url, attempt: 1, httpStatus: 204 }),
    ]);
  } finally {
    await receiver.close();
  }
}

/** The exportUrl answers 303 to a pre-signed link whose CSV has the report's header and the run's rows. */
async function csvDownload(exportUrl: string, rowCount: number): Promise<string[][]> {
  const redirect = await api.call('GET', exportUrl, { redirect: 'manual' });
  expect(redirect.status).toBe(303);
  const file = await fetch(redirect.headers.get('location')!);
  expect(file.status).toBe(200);
  // csv-parse is strict by default: a stray quote or a row of another width fails the parse.
  const rows: string[][] = parseCsv(await file.text(), { relax_column_count: false });
  const query = await api.call('GET', api.back('/report-queries/1'), { token: operator });
  expectStatus(query, 200);
  expect(rows[0]).toEqual(query.body.columns.map((column: { name: string }) => column.name));
  expect(rows.length - 1).toBe(rowCount);
  for (const row of rows.slice(1)) expect(row).toHaveLength(rows[0]!.length);
  return rows;
}

journey('the operator signs export webhooks and the receiver verifies them (Standard Webhooks)', async () => {
  // The organisation's webhook authentication is tenant-wide (every root branch): the demo operator, a
  // fleet operator of Berlin, is refused; the administrator turns it on (docs/exports.md). Then a receiver
  // checks every delivery with the standardwebhooks library before trusting it.
  const settings = { enabled: true, apiKey: 'journeys-receiver-key-0001' };
  const refused = await api.call('PUT', api.back('/export-settings/webhook-authentication'), {
    token: operator,
    body: settings,
  });
  expectStatus(refused, 403);
  expect(refused.body.errorCode).toBe('AUTH002');
  const administrator = await api.clientToken(demoAdministratorClient, 'back');
  const authentication = await api.call('PUT', api.back('/export-settings/webhook-authentication'), {
    token: administrator,
    body: settings,
  });
  expectStatus(authentication, 200);
  const secret: string = authentication.body.signingSecret;
  expect(secret).toMatch(/^whsec_/);
  const receiver = await startReceiver();
  try {
    const runId = await oneTimeExport('Journeys: signed rentals', receiver.url);
    const delivery = await poll('the signed export webhook', async () => receiver.received[0], EVENTUALLY);
    expect(delivery.headers['x-api-key']).toBe('journeys-receiver-key-0001');
    const payload = new Webhook(secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    });
    expect(payload).toMatchObject({ id: runId, queryId: 1 });
    // A body changed on the way no longer verifies.
    expect(() =>
      new Webhook(secret).verify(delivery.body.replace(String(runId), String(runId + 1)), {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      }),
    ).toThrow();
  } finally {
    await receiver.close();
  }
});
