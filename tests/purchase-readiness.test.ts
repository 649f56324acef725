// Issue 33 (parts 2 and 3): readiness before every charge, and invoiced accounts are invoiced. A customer
// without a payment method is refused up front (422 P104) when buying a package, a subscription,
// reservation minutes or a booking that bills, and nothing is written (no invoice, credit unchanged, no
// grant); a purchase with an Idempotency-Key answers the first one again (one invoice); a purchase whose
// charge is declined leaves nothing half-done (credit back, nothing granted, a subscription that never
// started EXPIRED with autoRenewal FAILED, not RENEWING); an invoice of a payer invoiced by transfer
// (paymentState INVOICING) is BILLED with a due date and never charged, and the operator settles it as
// PAID_EXTERNALLY.
import { Decimal } from 'decimal.js';
import { Balance } from '../db/entities/Balance.js';
import { BalanceUpdate } from '../db/entities/BalanceUpdate.js';
import { Booking } from '../db/entities/Booking.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Customer } from '../db/entities/Customer.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { PaymentAttempt } from '../db/entities/PaymentAttempt.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { UserSubscription } from '../db/entities/UserSubscription.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { Voucher } from '../db/entities/Voucher.js';
import { VoucherPackagePurchase } from '../db/entities/VoucherPackagePurchase.js';
import { Voucherable } from '../db/entities/Voucherable.js';
import { balanceValue } from '../db/balance-ledger.js';
import { nextInvoiceNumber } from '../db/invoices.js';
import { autoBillInvoice } from '../activities/payment-billing.js';
import { defaultDunningSettings } from '../domain/finance.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';
import { createPlan } from './support/subscriptions.js';

let session: Session;
let codes = 0;

beforeAll(async () => {
  session = await startSession();
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const front = (path: string) => session.stack.front(path);
const back = (path: string) => session.stack.back(path);
const em = () => session.em();
const backend = () => ({
  orm: session.backend.orm,
  tenant: session.seed.tenant,
  client: session.backend.client,
  taskQueue: session.backend.taskQueue,
});

/** A fresh customer (a card with `token`, or none) with `credit` on a default balance; id and app token. */
async function customerWith(options: { token?: string; credit?: string } = {}) {
  const id = await testCustomer(session, { token: options.token });
  if (options.credit) {
    const manager = em();
    const balance = manager.create(Balance, {
      businessUnit: manager.getReference(BusinessUnit, session.seed.businessUnitId),
      customer: manager.getReference(Customer, id),
      name: 'Welcome credit',
      currency: 'EUR',
      isDefault: true,
    });
    manager.create(BalanceUpdate, {
      balance,
      kind: 'MANUAL_CREDIT',
      amount: options.credit,
      description: 'Welcome credit',
      createdBy: 'test',
      idempotencyKey: `test:welcome:${id}`,
    });
    await manager.flush();
  }
  return { id, token: await session.customerToken(id) };
}

/** An ACTIVE package sold in the app at `price`: 30 free minutes. */
async function packageAt(price: string): Promise<string> {
  const manager = em();
  const code = `PKG${Date.now().toString(36)}${(codes++).toString(36)}`.toUpperCase();
  manager.create(Voucherable, {
    businessUnitId: session.seed.businessUnitId,
    branchId: session.seed.branchId,
    type: 'Package',
    status: 'ACTIVE',
    code,
    name: `Package ${code}`,
    currency: 'EUR',
    benefits: [{ type: 'FreeMinutes', amount: '30' }],
    price,
    showInUserApp: true,
    createdBy: 'test',
  });
  await manager.flush();
  return code;
}

/** What a customer owns and owes: invoices, purchases, subscriptions, vouchers and the credit left. */
async function footprint(customerId: number) {
  const manager = em();
  const balance = await manager.findOne(Balance, { customer: customerId, isDefault: true });
  return {
    invoices: await manager.count(Invoice, { customer: customerId }),
    purchases: await manager.count(VoucherPackagePurchase, { customerId }),
    subscriptions: await manager.count(UserSubscription, { customer: customerId }),
    vouchers: await manager.count(Voucher, { customerId, status: { $ne: 'CANCELED' } }),
    credit: balance ? new Decimal(await balanceValue(manager, balance.id)).toFixed(2) : null,
  };
}

const buyPackage = (token: string, packageCode: string, key?: string) =>
  call('POST', front('/packages/buy'), {
    token,
    body: { packageCode },
    ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
  });

const buySubscription = (token: string, code: string, key?: string) =>
  call('POST', front(`/subscriptions/buy/${code}`), {
    token,
    body: { branchId: session.seed.branchId },
    ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
  });

describe('readiness before any charge', () => {
  test('a package without a payment method: 422 P104 and nothing written, the credit untouched', async () => {
    const rider = await customerWith({ credit: '5.00' });
    const code = await packageAt('9.90');
    expectError(await buyPackage(rider.token, code), 422, 'P104');
    expectError(await buyPackage(rider.token, code, 'no-card-1'), 422, 'P104');
    expect(await footprint(rider.id)).toEqual({
      invoices: 0,
      purchases: 0,
      subscriptions: 0,
      vouchers: 0,
      credit: '5.00',
    });
  });

  test('a package the credit covers in full needs no payment method (no charge follows)', async () => {
    const rider = await customerWith({ credit: '5.00' });
    const bought = await buyPackage(rider.token, await packageAt('4.00'));
    expect(bought.status).toBe(201);
    expect(bought.body).toMatchObject({ state: 'GRANTED', invoiceState: 'PAID', paymentState: null });
    expect(await footprint(rider.id)).toMatchObject({
      invoices: 1,
      purchases: 1,
      vouchers: 1,
      credit: '1.00',
    });
  });

  test('a subscription without a payment method: 422 P104, no subscription, no invoice', async () => {
    const rider = await customerWith({ credit: '50.00' });
    const plan = await createPlan(backend(), session.seed.businessUnitId, session.seed.branchId, {
      price: '7.50',
    });
    expectError(await buySubscription(rider.token, plan.code!), 422, 'P104');
    expect(await footprint(rider.id)).toEqual({
      invoices: 0,
      purchases: 0,
      subscriptions: 0,
      vouchers: 0,
      credit: '50.00',
    });
    // The operator's purchase on the customer's behalf asks the same.
    expectError(
      await call('POST', back('/user-subscriptions'), {
        token: session.operatorToken,
        body: { userId: rider.id, branchId: session.seed.branchId, voucherableId: plan.id },
      }),
      422,
      'P104',
    );
    expect((await footprint(rider.id)).subscriptions).toBe(0);
  });

  test('a booking that bills without a payment method: 422 P104 and no booking', async () => {
    const rider = await customerWith();
    const [station] = session.seed.bookingStationIds;
    const category = (await em().findOneOrFail(Vehicle, { branch: station })).category.id;
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    const start = new Date(midnight.getTime() + 6 * 86_400_000 + 9 * 3_600_000);
    const body = {
      branchId: station,
      vehicleCategoryId: category,
      startTime: start.toISOString(),
      endTime: new Date(start.getTime() + 2 * 3_600_000).toISOString(),
    };
    expectError(await call('POST', front('/bookings'), { token: rider.token, body }), 422, 'P104');
    expect(await em().count(Booking, { customer: rider.id })).toBe(0);
    expect((await footprint(rider.id)).invoices).toBe(0);
  });

  test('reservation minutes bought without a payment method: 422 P104, the expiry unchanged', async () => {
    const rider = await customerWith({ token: 'tok_sandbox_visa' });
    const available = await call(
      'GET',
      front(`/vehicles?branchId=${session.seed.branchId}&onlyAvailable=true`),
      { token: rider.token },
    );
    const vehicleIds = available.body.map((vehicle: { id: number }) => vehicle.id) as number[];
    let rental: Reply | undefined;
    for (const vehicleId of vehicleIds.slice(-5).reverse()) {
      rental = await call('POST', front('/rentals'), { token: rider.token, body: { vehicleId } });
      if (rental.status === 201) break;
    }
    expect(rental?.status).toBe(201);
    const rentalId = rental!.body.id as number;
    // The card is removed while the reservation runs.
    await em().nativeDelete(PaymentSource, { customer: rider.id });
    expectError(
      await call('POST', front(`/rentals/${rentalId}/buy-reservation?minutes=5`), { token: rider.token }),
      422,
      'P104',
    );
    const after = await call('GET', front(`/rentals/${rentalId}`), { token: rider.token });
    expect(after.body.reservationExpiresAt).toBe(rental!.body.reservationExpiresAt);
    expect((await call('DELETE', front(`/rentals/${rentalId}`), { token: rider.token })).status).toBe(200);
  });
});

describe('idempotency and declined charges', () => {
  test('a package bought again with the same Idempotency-Key answers the first purchase: one invoice', async () => {
    const rider = await customerWith({ token: 'tok_sandbox_visa' });
    const code = await packageAt('3.50');
    const first = await buyPackage(rider.token, code, 'pkg-key-1');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ state: 'GRANTED', invoiceState: 'PAID' });
    const again = await buyPackage(rider.token, code, 'pkg-key-1');
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      id: first.body.id,
      invoiceId: first.body.invoiceId,
      state: 'GRANTED',
    });
    expect(await footprint(rider.id)).toMatchObject({ invoices: 1, purchases: 1, vouchers: 1 });
  });

  test('the same key sent twice at once: one purchase, one invoice, the same answer', async () => {
    const rider = await customerWith({ token: 'tok_sandbox_visa' });
    const code = await packageAt('2.50');
    const [a, b] = await Promise.all([
      buyPackage(rider.token, code, 'pkg-race'),
      buyPackage(rider.token, code, 'pkg-race'),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).toBe(b.body.id);
    expect(await footprint(rider.id)).toMatchObject({ invoices: 1, purchases: 1, vouchers: 1 });
    expect(await em().count(Payment, { invoice: a.body.invoiceId })).toBe(1);
  });

  test('a declined package charge: P124, the credit back, nothing granted, no retry; the same key answers P124 again', async () => {
    const rider = await customerWith({ token: 'tok_sandbox_insufficient_funds', credit: '5.00' });
    const code = await packageAt('9.90');
    expectError(await buyPackage(rider.token, code, 'declined-1'), 402, 'P124');
    const purchase = await em().findOneOrFail(VoucherPackagePurchase, { customerId: rider.id });
    expect(purchase.state).toBe('FAILED');
    const invoice = await em().findOneOrFail(Invoice, purchase.invoiceId);
    expect(invoice.state).toBe('CLOSED');
    const payment = await em().findOneOrFail(Payment, { invoice: invoice.id });
    expect(payment.state).toBe('FAILED');
    expect(payment.nextRetryAt ?? null).toBeNull();
    expect(await footprint(rider.id)).toEqual({
      invoices: 1,
      purchases: 1,
      subscriptions: 0,
      vouchers: 0,
      credit: '5.00',
    });
    expectError(await buyPackage(rider.token, code, 'declined-1'), 402, 'P124');
    expect(await footprint(rider.id)).toMatchObject({ invoices: 1, purchases: 1, credit: '5.00' });
  });

  test('a subscription bought again with the same key answers the first one: one invoice', async () => {
    const rider = await customerWith({ token: 'tok_sandbox_visa' });
    const plan = await createPlan(backend(), session.seed.businessUnitId, session.seed.branchId, {
      price: '6.00',
    });
    const first = await buySubscription(rider.token, plan.code!, 'sub-key-1');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ state: 'RENEWING', currentPeriod: 1 });
    const again = await buySubscription(rider.token, plan.code!, 'sub-key-1');
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, latestInvoiceId: first.body.latestInvoiceId });
    expect(await footprint(rider.id)).toMatchObject({ invoices: 1, subscriptions: 1 });
  });

  test('a declined subscription charge: SU119, never RENEWING (EXPIRED, autoRenewal FAILED), the credit back, the invoice CLOSED', async () => {
    const rider = await customerWith({ token: 'tok_sandbox_insufficient_funds', credit: '2.00' });
    const plan = await createPlan(backend(), session.seed.businessUnitId, session.seed.branchId, {
      price: '7.50',
    });
    expectError(await buySubscription(rider.token, plan.code!, 'sub-declined'), 402, 'SU119');
    const row = await em().findOneOrFail(UserSubscription, { customer: rider.id });
    expect([row.state, row.autoRenewal, row.currentPeriod]).toEqual(['EXPIRED', 'FAILED', 0]);
    const invoice = await em().findOneOrFail(Invoice, { customer: rider.id });
    expect(invoice.state).toBe('CLOSED');
    expect((await em().findOneOrFail(Payment, { invoice: invoice.id })).state).toBe('FAILED');
    expect(await footprint(rider.id)).toMatchObject({ invoices: 1, vouchers: 0, credit: '2.00' });
    // The same key answers the same refusal and bills nothing again.
    expectError(await buySubscription(rider.token, plan.code!, 'sub-declined'), 402, 'SU119');
    expect(await footprint(rider.id)).toMatchObject({ invoices: 1, subscriptions: 1, credit: '2.00' });
    // Nothing is left to act on: a new purchase is possible.
    expectError(await buySubscription(rider.token, plan.code!), 402, 'SU119');
  });
});

describe('a payer invoiced by transfer (paymentState INVOICING)', () => {
  test("a business account's rental invoice is BILLED with a due date, never charged, and settled PAID_EXTERNALLY", async () => {
    const manager = em();
    const group = await manager.findOneOrFail(UserGroup, { paymentState: 'INVOICING' });
    const unit = await manager.findOneOrFail(BusinessUnit, session.seed.businessUnitId);
    const now = new Date();
    const invoice = manager.create(Invoice, {
      number: await nextInvoiceNumber(manager, session.seed.tenant, unit, now),
      type: 'BUSINESS',
      state: 'OPEN',
      businessUnit: unit,
      customer: manager.getReference(Customer, session.seed.customerIds[0]!),
      userGroup: group,
      title: 'Rental',
      currency: 'EUR',
      totalNet: '10.00',
      totalTax: '1.90',
      totalGross: '11.90',
      issuedAt: now,
      idempotencyKey: `test:invoicing:${Date.now()}`,
    });
    await manager.flush();
    // The automatic billing of an ended rental's invoice.
    const payment = await autoBillInvoice(
      {
        orm: session.backend.orm,
        paymentGateways: session.backend.paymentGateways,
        temporal: { client: session.backend.client, taskQueue: session.backend.taskQueue },
      },
      session.seed.tenant,
      invoice.id,
      `test-invoicing-${invoice.id}`,
    );
    expect(payment).toBeNull();
    const billed = await em().findOneOrFail(Invoice, invoice.id);
    expect(billed.state).toBe('BILLED');
    expect(billed.dueAt).not.toBeNull();
    expect(billed.dueAt!.getTime() - billed.billedAt!.getTime()).toBe(
      defaultDunningSettings.paymentTermDays * 86_400_000,
    );
    expect(await em().count(Payment, { invoice: invoice.id })).toBe(0);
    expect(await em().count(PaymentAttempt, { payment: { invoice: invoice.id } })).toBe(0);

    const read = await call('GET', back(`/invoices/${invoice.id}`), { token: session.operatorToken });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ state: 'BILLED', dueAt: billed.dueAt!.toISOString() });

    const settled = await call('POST', back(`/invoices/${invoice.id}/set-paid-externally`), {
      token: session.operatorToken,
      body: { reference: 'SEPA transfer 2026-12' },
    });
    expect(settled.status).toBe(200);
    expect(settled.body.state).toBe('PAID_EXTERNALLY');
    expect(await em().count(Payment, { invoice: invoice.id })).toBe(0);
  });
});
