// Dunning end to end: a customer with an invoice of their own unpaid longer than the `finance.dunning`
// grace period after billing gets U134 on new rentals and bookings (both interfaces), the app's start
// requirements say why, the operator sees `blockedByUnpaidInvoices`; paying it (directly, or set paid
// externally through the API) lifts the block at the next request; within the grace period, for a
// business account's invoice, or under a longer grace period of the branch there is no block, and the
// pickup of a booking made before is never refused for it.
import { Customer } from '../db/entities/Customer.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Setting } from '../db/entities/Setting.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { nextInvoiceNumber } from '../db/invoices.js';
import { tenantEm } from '../db/orm.js';
import { startRequirementsReport } from '../db/rental-requirements.js';
import { DUNNING_SETTING_KEY, type InvoiceState } from '../domain/finance.js';
import { expectError, type HttpStack, type Reply } from './support/http.js';
import { apiReloaded } from './support/read-cache.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let operator: string;
let annaToken: string;
let tenant: string;
let anna: number;
let vehicles: Vehicle[] = [];
let carCategoryId: number;
let station: number;

const DAY = 86_400_000;
const call: HttpStack['call'] = (...args) => stack.call(...args);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => tenantEm(stack.backend.orm, tenant);

/** An invoice of Anna's in a state, billed `daysAgo` days ago. */
async function invoiceOf(
  state: InvoiceState,
  daysAgo: number,
  options: { business?: boolean; dueInDays?: number } = {},
): Promise<number> {
  const manager = em();
  const unit = await manager.findOneOrFail(BusinessUnit, session.seed.businessUnitId);
  const billedAt = new Date(Date.now() - daysAgo * DAY);
  const group = options.business ? await manager.findOneOrFail(UserGroup, { owner: anna }) : null;
  const invoice = manager.create(Invoice, {
    number: await nextInvoiceNumber(manager, tenant, unit, billedAt),
    type: group ? 'BUSINESS' : 'REGULAR',
    state,
    businessUnit: unit,
    customer: manager.getReference(Customer, anna),
    userGroup: group,
    title: 'Rental',
    currency: 'EUR',
    totalNet: '10.00',
    totalTax: '1.90',
    totalGross: '11.90',
    issuedAt: billedAt,
    billedAt,
    dueAt: options.dueInDays === undefined ? null : new Date(Date.now() + options.dueInDays * DAY),
    idempotencyKey: `test:dunning:${Math.random()}`,
  });
  await manager.flush();
  return invoice.id;
}

const setState = (id: number, state: InvoiceState) => em().nativeUpdate(Invoice, { id }, { state });

const rent = (token = annaToken) =>
  call('POST', front('/rentals'), { token, body: { vehicleId: vehicles[0]!.id } });

/** A rental that was created is cancelled again, so the next attempt finds the vehicle free. */
async function expectRentable(reply: Reply) {
  expect(reply.status).toBe(201);
  const cancelled = await call('DELETE', front(`/rentals/${reply.body.id}`), { token: annaToken });
  expect(cancelled.status).toBe(200);
}

const book = (days: number) => {
  const midnight = new Date();
  midnight.setUTCHours(0, 0, 0, 0);
  const start = new Date(midnight.getTime() + days * DAY + 9 * 3_600_000);
  return call('POST', front('/bookings'), {
    token: annaToken,
    body: {
      branchId: station,
      vehicleCategoryId: carCategoryId,
      startTime: start.toISOString(),
      endTime: new Date(start.getTime() + 2 * 3_600_000).toISOString(),
    },
  });
};

const requirements = () =>
  call('GET', front(`/rentals/requirements?vehicleId=${vehicles[0]!.id}`), { token: annaToken });

const blockedFlag = async () =>
  (
    await call('GET', back(`/customers/${anna}/details?branchId=${session.seed.branchId}`), {
      token: operator,
    })
  ).body.blockedByUnpaidInvoices;

/** Everything says Anna is blocked (U134), or everything lets her rent and book. */
async function expectBlocked(blocked: boolean) {
  const report = await requirements();
  expect(report.status).toBe(200);
  expect(await blockedFlag()).toBe(blocked);
  if (blocked) {
    expect(report.body.passed).toBe(false);
    expect(report.body.requirements[0]).toMatchObject({
      name: 'NO_UNPAID_INVOICES',
      passed: false,
      code: 'U134',
      message: expect.stringMatching(/unpaid/),
    });
    expectError(await rent(), 422, 'U134');
    expectError(await book(4), 422, 'U134');
    expectError(
      await call('POST', back('/rentals'), {
        token: operator,
        body: { vehicleId: vehicles[0]!.id, guserId: anna },
      }),
      422,
      'U134',
    );
  } else {
    expect(report.body.requirements.map((r: { name: string }) => r.name)).not.toContain('NO_UNPAID_INVOICES');
    await expectRentable(await rent());
    const booked = await book(5);
    expect(booked.status).toBe(201);
    expect(
      (await call('DELETE', front(`/bookings/${booked.body.id}`), { token: annaToken })).status,
    ).toBeLessThan(300);
  }
}

beforeAll(async () => {
  session = await startSession({ signInDemoCustomer: true });
  ({ stack, operatorToken: operator, annaToken } = session);
  tenant = session.seed.tenant;
  anna = session.seed.customerIds[0]!;
  [station] = session.seed.bookingStationIds;
  carCategoryId = (await em().findOneOrFail(Vehicle, { branch: station })).category.id;
  const available = await call(
    'GET',
    front(`/vehicles?branchId=${session.seed.branchId}&onlyAvailable=true`),
    {
      token: annaToken,
    },
  );
  const ids = available.body.map((vehicle: { id: number }) => vehicle.id);
  vehicles = await em().find(Vehicle, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
  expect(vehicles.length).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

test('no unpaid invoice: no block', async () => {
  await expectBlocked(false);
});

test('an invoice unpaid within the grace period (3 days by default) does not block', async () => {
  const id = await invoiceOf('IN_PAYMENT', 2);
  await expectBlocked(false);
  await setState(id, 'PAID');
});

test('unpaid past the grace period blocks rentals and bookings (U134); paying lifts it at once', async () => {
  const id = await invoiceOf('IN_PAYMENT', 4);
  await expectBlocked(true);
  await setState(id, 'PAID');
  await expectBlocked(false);
});

test("a business account's invoice does not block its rider; a paid or open one neither", async () => {
  const business = await invoiceOf('EXCEPTION_PAYING', 10, { business: true });
  const paid = await invoiceOf('PAID', 10);
  const refunded = await invoiceOf('REFUNDED', 10);
  await expectBlocked(false);
  await Promise.all([business, paid, refunded].map((id) => setState(id, 'IGNORE')));
});

test('an invoice paid by transfer (a due date) counts from its due date, not from billing', async () => {
  // Billed 20 days ago, due in 2 days (the payer is invoiced by transfer): no block yet.
  const id = await invoiceOf('BILLED', 20, { dueInDays: 2 });
  await expectBlocked(false);
  // Due 4 days ago: past the 3-day grace period after the due date.
  await em().nativeUpdate(Invoice, { id }, { dueAt: new Date(Date.now() - 4 * DAY) });
  await expectBlocked(true);
  await setState(id, 'PAID_EXTERNALLY');
  await expectBlocked(false);
});

test("a branch's longer grace period wins over the default", async () => {
  const id = await invoiceOf('EXCEPTION_PAYING', 4);
  const manager = em();
  const setting = manager.create(Setting, {
    key: DUNNING_SETTING_KEY,
    name: 'Dunning',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { graceDays: 10 },
  });
  await manager.flush();
  await apiReloaded(session.stack);
  try {
    await expectBlocked(false);
  } finally {
    // Through the unit of work, which empties this ORM's read cache of settings; apiReloaded the API's.
    manager.remove(setting);
    await manager.flush();
    await apiReloaded(session.stack);
  }
  await setState(id, 'PAID');
});

test('a collection invoice set paid externally through the API lifts the block', async () => {
  // A balance debt moved to a collection invoice; billed five days ago, it blocks.
  const balance = await call('POST', back('/balances'), {
    token: operator,
    body: { userId: anna, businessUnitId: session.seed.businessUnitId, name: 'Dunning' },
  });
  await call('POST', back(`/balances/${balance.body.id}/updates`), {
    token: operator,
    body: { amount: '-8.00', description: 'damage' },
  });
  const collected = await call('POST', back(`/balances/${balance.body.id}/settle-by-collection-invoice`), {
    token: operator,
  });
  expect(collected.status).toBe(201);
  // Billed now: within the grace period.
  await expectBlocked(false);
  await em().nativeUpdate(
    Invoice,
    { id: collected.body.invoiceId },
    { billedAt: new Date(Date.now() - 5 * DAY) },
  );
  await expectBlocked(true);
  const paid = await call('POST', back(`/invoices/${collected.body.invoiceId}/set-paid-externally`), {
    token: operator,
    body: {},
  });
  expect(paid.status).toBe(200);
  expect(paid.body.state).toBe('PAID_EXTERNALLY');
  await expectBlocked(false);
});

test('the pickup of a booking made before is not refused: dunning applies to new rentals only', async () => {
  const id = await invoiceOf('THREE_DS_FAILED', 6);
  const input = {
    customerId: anna,
    branchId: session.seed.branchId,
    vehicleCategoryId: vehicles[0]!.category.id,
    at: new Date(),
  };
  const blocked = await startRequirementsReport(em(), tenant, input);
  expect(blocked.requirements[0]).toMatchObject({ name: 'NO_UNPAID_INVOICES', code: 'U134' });
  const pickup = await startRequirementsReport(em(), tenant, { ...input, checkUnpaidInvoices: false });
  expect(pickup.requirements.map((r) => r.name)).not.toContain('NO_UNPAID_INVOICES');
  expect(pickup.passed).toBe(true);
  await setState(id, 'PAID');
});
