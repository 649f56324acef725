// Benefits in prices against the real stack: a rental reserved, started and ended through the app and
// the rental workflow whose price, priceV4 and invoice show each benefit as its own negative line, with
// its vouchers taken once (a retried bill takes nothing more); a booking picked up and returned whose final
// price takes an addition's and a time discount; customers' isolation (one customer's
// vouchers never price another's rental, nor another branch's or category's); a fast-check property that
// a business account's vouchers shared by concurrent rentals, billed several times each, never go below
// zero and lose exactly what the prices show.
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { PricingBundleVersion } from '../db/entities/PricingBundleVersion.js';
import { Rental } from '../db/entities/Rental.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { Voucher } from '../db/entities/Voucher.js';
import { VoucherConsumption } from '../db/entities/VoucherConsumption.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { finaliseRentalBilling, pinRentalPricing, priceRental } from '../db/rental-billing.js';
import { rentalBenefitKey } from '../db/pricing-benefits.js';
import { grantVouchersTo, type VoucherOwner } from '../db/voucher-grants.js';
import { returnRentalBenefits } from '../db/vouchers.js';
import type { Benefit } from '../domain/benefits.js';
import type { PriceResult } from '../domain/pricing.js';
import { type CallOptions, type Reply } from './support/http.js';
import { testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);
const tenant = () => session.seed.tenant;

beforeAll(async () => {
  session = await startSession({ rival: true });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

let grants = 0;

/** An ACTIVE template of the seeded business unit with these benefits (over HTTP); its id. */
async function template(benefits: Benefit[], extra: Record<string, unknown> = {}): Promise<number> {
  const created = await call('POST', back('/voucherables'), {
    token: session.operatorToken,
    body: { branchId: session.seed.branchId, type: 'CustomerCare', name: 'Goodwill', benefits, ...extra },
  });
  expect([created.status, created.body.errorCode]).toEqual([201, undefined]);
  const activated = await call('POST', back(`/voucherables/${created.body.id}/activate`), {
    token: session.operatorToken,
  });
  expect(activated.body.status).toBe('ACTIVE');
  return created.body.id;
}

/** Grants a template's vouchers to an owner from an hour ago; answers them. */
function grant(voucherableId: number, owner: VoucherOwner): Promise<Voucher[]> {
  return inTenantTransaction(session.stack.backend.orm, tenant(), (tx) =>
    grantVouchersTo(tx, {
      voucherableId,
      owner,
      source: { kind: 'OPERATOR', reference: `benefits-pricing:${grants++}` },
      validFrom: new Date(Date.now() - 3_600_000),
    }),
  );
}

const voucherNow = (id: number) => session.em().findOneOrFail(Voucher, id, { refresh: true });
const benefitLines = (price: PriceResult['priceV4']) =>
  price.lines.filter((line) => line.group === 'BENEFIT');

/** An ENDED scooter rental row of `minutes` driving (as the workflow leaves it), pinned to the demo pricing. */
async function endedRental(customerId: number, minutes: number, options: { groupId?: number } = {}) {
  return inTenantTransaction(session.stack.backend.orm, tenant(), async (em) => {
    const category = await em.findOneOrFail(VehicleCategory, { name: 'E-Scooter' });
    const vehicle = (await em.find(Vehicle, { category }, { orderBy: { id: 'asc' }, limit: 1 }))[0]!;
    const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    const start = Date.now() - (minutes + 5) * 60_000;
    const version = await pinRentalPricing(em, tenant(), {
      branchId: session.seed.branchId,
      vehicleCategoryId: category.id,
      at: new Date(start),
    });
    em.create(Rental, {
      id,
      workflowId: `benefits-pricing-${id}`,
      state: 'ENDED',
      branch: em.getReference(Branch, session.seed.branchId),
      vehicle: em.getReference(Vehicle, vehicle.id),
      customer: em.getReference(Customer, customerId),
      userGroup: options.groupId ? em.getReference(UserGroup, options.groupId) : null,
      reservedAt: new Date(start),
      startedAt: new Date(start),
      endedAt: new Date(start + minutes * 60_000),
      pricingBundleVersion: em.getReference(PricingBundleVersion, version.id),
      phases: [
        {
          phase: 'DRIVING',
          startedAt: new Date(start).toISOString(),
          endedAt: new Date(start + minutes * 60_000).toISOString(),
        },
      ],
    });
    return id;
  });
}

/** The rental workflow's END billing, in a transaction of its own (a retry is another call). */
function bill(rentalId: number, key: string) {
  return inTenantTransaction(session.stack.backend.orm, tenant(), async (em) => {
    const billed = await finaliseRentalBilling(em, tenant(), rentalId, {
      at: new Date(),
      idempotencyKey: key,
    });
    return billed.price;
  });
}

describe('a rental through the app and the rental workflow', () => {
  test('its price and invoice show each benefit as a line; its vouchers are taken once', async () => {
    const [anna, ben] = session.seed.customerIds as [number, number];
    const unlocks = await template([{ type: 'FreeUnlocks', amount: '2' }]);
    const discount = await template([{ type: 'Discount', amount: '0.25', numberOfRentals: 3 }]);
    const [unlockVoucher] = await grant(unlocks, { customerId: ben });
    const [discountVoucher] = await grant(discount, { customerId: ben });
    // Anna's own voucher must never price Ben's rental.
    const [annaVoucher] = await grant(await template([{ type: 'RentalRebate', amount: '50.00' }]), {
      customerId: anna,
    });
    const token = await session.customerToken(ben);
    const vehicles = await call(
      'GET',
      front(`/vehicles?branchId=${session.seed.branchId}&onlyAvailable=true&size=100`),
      { token },
    );
    const ready = await session
      .em()
      .find(Vehicle, { id: { $in: vehicles.body.map((vehicle: { id: number }) => vehicle.id) } });
    // A scooter: its bundle has an unlock fee (the demo cars' has none).
    const scooters = await session.em().findOneOrFail(VehicleCategory, { name: 'E-Scooter' });
    const vehicle = ready.find(
      (candidate) => candidate.rotatingUuid && candidate.category.id === scooters.id,
    )!;
    const reserved = await call('POST', front('/rentals'), { token, body: { vehicleId: vehicle.id } });
    expect(reserved.status).toBe(201);
    const rentalId: number = reserved.body.id;
    const operate = (operationType: string) =>
      call('POST', front(`/rentals/${rentalId}/operation`), { token, body: { operationType } });
    expect((await operate('START')).status).toBe(200);
    session.stack.backend.simulator.ride(String(vehicle.id), 400);
    const ended = await operate('END');
    expect(ended.body).toMatchObject({ state: 'ENDED' });

    // The price: the engine's lines, then a free unlock and 25 % off what is left.
    const priceV4 = ended.body.priceV4 as PriceResult['priceV4'];
    const lines = benefitLines(priceV4);
    expect(lines.map((line) => line.code)).toEqual([
      `FREE_UNLOCK_V${unlockVoucher!.id}`,
      `DISCOUNT_V${discountVoucher!.id}`,
    ]);
    const unlockFee = priceV4.lines.find((line) => line.code === 'UNLOCK_FEE')!;
    expect(lines[0]!.gross).toBe(new Decimal(unlockFee.gross).negated().toFixed(2));
    const before = priceV4.lines
      .filter((line) => line.group !== 'BENEFIT')
      .reduce((sum, line) => sum.plus(line.gross), new Decimal(0));
    const discounted = before.minus(unlockFee.gross).times('0.25').toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    expect(lines[1]!.gross).toBe(discounted.negated().toFixed(2));
    expect(priceV4.totals.gross).toBe(before.minus(unlockFee.gross).minus(discounted).toFixed(2));
    expect(ended.body.price.total).toBe(priceV4.totals.gross);
    const priceV3Benefits = (ended.body.priceV3 as PriceResult['priceV3']).groups.find(
      (group) => group.group === 'BENEFIT',
    )!;
    expect(priceV3Benefits.lines.map((line) => line.amount)).toEqual(lines.map((line) => line.gross));

    // The invoice: one negative line per benefit, the totals those of the price.
    const invoiceId: number = ended.body.invoiceId;
    const invoice = await call('GET', back(`/invoices/${invoiceId}`), { token: session.operatorToken });
    expect(invoice.status).toBe(200);
    const stored = await session.em().find(InvoiceLine, { invoice: invoiceId, group: 'BENEFIT' });
    expect(stored.map((line) => [line.code, new Decimal(line.gross).toFixed(2)])).toEqual(
      lines.map((line) => [line.code, line.gross]),
    );
    expect(stored.every((line) => new Decimal(line.gross).isNegative())).toBe(true);

    // Taken once: one unlock of two, one rental of three; a second billing takes nothing more.
    const consumed = async () =>
      session
        .em()
        .find(VoucherConsumption, { idempotencyKey: rentalBenefitKey(rentalId) }, { refresh: true });
    expect((await consumed()).map((row) => [row.voucher.id, row.unlocks, row.rentals, row.rentalId])).toEqual(
      [
        [unlockVoucher!.id, 1, 0, rentalId],
        [discountVoucher!.id, 0, 1, rentalId],
      ],
    );
    const again = await bill(rentalId, 'a-retried-end');
    expect(again.priceV4).toEqual(priceV4);
    expect(await consumed()).toHaveLength(2);
    expect((await voucherNow(unlockVoucher!.id)).remainingFreeUnlocks).toBe(1);
    expect((await voucherNow(discountVoucher!.id)).remainingNumberOfRentals).toBe(2);
    expect((await voucherNow(annaVoucher!.id)).status).toBe('ACTIVE');
    expect(await session.em().count(VoucherConsumption, { voucher: annaVoucher!.id })).toBe(0);
  });
});

describe('a rental refunded in full', () => {
  test('gives its vouchers back what they gave its price, once; a lapsed voucher comes back EXPIRED', async () => {
    // A customer of her own: the seeded ones hold the other tests' vouchers.
    const ben = await testCustomer(session);
    const unlocks = await template([{ type: 'FreeUnlocks', amount: '1' }]);
    const minutes = await template([{ type: 'FreeMinutes', amount: '5' }]);
    const [unlockVoucher] = await grant(unlocks, { customerId: ben });
    const [minuteVoucher] = await grant(minutes, { customerId: ben });
    const rentalId = await endedRental(ben, 12);
    await bill(rentalId, 'refund-return-end');
    expect((await voucherNow(unlockVoucher!.id)).status).toBe('USED_UP');
    expect((await voucherNow(minuteVoucher!.id)).status).toBe('USED_UP');
    // The minute voucher's validity ends before the refund: it gets its minutes back but stays unusable.
    await inTenantTransaction(session.stack.backend.orm, tenant(), async (em) => {
      const voucher = await em.findOneOrFail(Voucher, minuteVoucher!.id);
      voucher.validUntil = new Date(Date.now() - 1000);
    });
    const giveBack = () =>
      inTenantTransaction(session.stack.backend.orm, tenant(), (em) => returnRentalBenefits(em, rentalId));
    expect(await giveBack()).toBe(2);
    const unlock = await voucherNow(unlockVoucher!.id);
    expect([unlock.status, unlock.remainingFreeUnlocks]).toEqual(['ACTIVE', 1]);
    const minute = await voucherNow(minuteVoucher!.id);
    expect([minute.status, minute.remainingFreeMinutes]).toEqual(['EXPIRED', 5]);
    // A retried refund step gives back nothing more.
    expect(await giveBack()).toBe(0);
    expect((await voucherNow(unlockVoucher!.id)).remainingFreeUnlocks).toBe(1);
    const rows = await session
      .em()
      .find(VoucherConsumption, { rentalId }, { refresh: true, orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.idempotencyKey.startsWith('return:'), row.unlocks, row.minutes])).toEqual([
      [false, 1, 0],
      [false, 0, 5],
      [true, -1, 0],
      [true, 0, -5],
    ]);
  });
});

describe('a booking picked up and returned', () => {
  test('its final price and invoice take the customer’s vouchers: an addition by its code, the time', async () => {
    const customer = await testCustomer(session, { token: 'pm_card_visa' });
    const token = await session.customerToken(customer);
    const [seat] = await grant(
      await template([
        { type: 'Discount', amount: '1', costSources: [{ group: 'ADDITION', code: 'CHILD_SEAT' }] },
      ]),
      { customerId: customer },
    );
    const [time] = await grant(
      await template([{ type: 'Discount', amount: '0.5', applicablePriceType: 'TIME_PRICE' }]),
      { customerId: customer },
    );
    const station = session.seed.bookingStationIds[0]!;
    const car = await session.em().findOneOrFail(Vehicle, { branch: station });
    const start = Date.now() + 20 * 60_000;
    const made = await call('POST', front('/bookings'), {
      token,
      body: {
        branchId: station,
        vehicleCategoryId: car.category.id,
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + 60 * 60_000).toISOString(),
        additions: ['CHILD_SEAT'],
      },
    });
    expect([made.status, made.body.errorCode]).toEqual([201, undefined]);
    const id: number = made.body.id;
    let delivered: Reply | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      delivered = await call('GET', back(`/bookings/${id}`), { token: session.operatorToken });
      if (delivered.body.state === 'DELIVERED') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(delivered!.body.state).toBe('DELIVERED');
    expect((await call('POST', front(`/bookings/${id}/check-in`), { token })).status).toBe(200);
    const picked = await call('POST', back(`/bookings/${id}?rentalAuthOverride=true`), {
      token: session.operatorToken,
    });
    expect([picked.status, picked.body.errorCode]).toEqual([200, undefined]);
    const rentalId: number = picked.body.rentalId;
    const ended = await call('POST', back(`/rentals/${rentalId}/operation`), {
      token: session.operatorToken,
      body: { operationType: 'END', adminOverride: true },
    });
    expect(ended.status).toBe(200);
    const priceV4 = ended.body.priceV4 as PriceResult['priceV4'];
    const timeGross = priceV4.lines
      .filter((line) => line.group === 'TIME')
      .reduce((sum, line) => sum.plus(line.gross), new Decimal(0));
    const seatLine = priceV4.lines.find((line) => line.code === 'ADDITION_CHILD_SEAT')!;
    expect(benefitLines(priceV4).map((line) => [line.code, line.gross])).toEqual([
      [`DISCOUNT_V${seat!.id}`, new Decimal(seatLine.gross).negated().toFixed(2)],
      [
        `DISCOUNT_V${time!.id}`,
        timeGross.times('0.5').toDecimalPlaces(2, Decimal.ROUND_HALF_UP).negated().toFixed(2),
      ],
    ]);
    const invoiceId: number = ended.body.invoiceId;
    const stored = await session.em().find(InvoiceLine, { invoice: invoiceId, group: 'BENEFIT' });
    expect(stored).toHaveLength(2);
    const booking = await call('GET', front(`/bookings/${id}`), { token });
    expect(booking.body.priceV4).toEqual(priceV4);
    expect(await session.em().count(VoucherConsumption, { idempotencyKey: rentalBenefitKey(rentalId) })).toBe(
      2,
    );
  }, 60_000);
});

describe('isolation', () => {
  test('another customer’s, another branch’s or another category’s voucher never prices a rental', async () => {
    const [, , clara, deniz] = session.seed.customerIds as [number, number, number, number];
    const cars = await session.em().findOneOrFail(VehicleCategory, { name: 'Compact car' });
    const otherBranch = await session
      .em()
      .findOne(Branch, { id: { $ne: session.seed.branchId }, parent: session.seed.branchId });
    const [claras] = await grant(await template([{ type: 'RentalRebate', amount: '3.00' }]), {
      customerId: clara,
    });
    const [carsOnly] = await grant(
      await template([{ type: 'RentalRebate', amount: '4.00', vehicleCategoryIds: [cars.id] }]),
      { customerId: deniz },
    );
    const branchOnly = otherBranch
      ? (
          await grant(
            await template([{ type: 'RentalRebate', amount: '5.00', branchIds: [otherBranch.id] }]),
            { customerId: deniz },
          )
        )[0]
      : undefined;
    const denizRental = await endedRental(deniz, 12);
    const plain = await priceRental(
      session.em(),
      await session.em().findOneOrFail(Rental, denizRental),
      Date.now(),
    );
    const billed = await bill(denizRental, 'isolation');
    expect(benefitLines(billed.priceV4)).toEqual([]);
    expect(billed.price.total).toBe(plain.price.total);
    for (const voucher of [claras, carsOnly, branchOnly].filter((value) => value !== undefined))
      expect(await session.em().count(VoucherConsumption, { voucher: voucher!.id })).toBe(0);
    // Clara's own rental takes hers.
    const claraRental = await endedRental(clara, 12);
    const hers = await bill(claraRental, 'isolation-clara');
    expect(benefitLines(hers.priceV4).map((line) => [line.code, line.gross])).toEqual([
      [`REBATE_V${claras!.id}`, '-3.00'],
    ]);
    // The rival tenant's customers do not even see the vouchers (the tenant filter).
    const rivalEm = tenantEm(session.stack.backend.orm, session.rival.tenant);
    expect(await rivalEm.count(Voucher, { id: claras!.id })).toBe(0);
  });
});

describe('concurrent rentals sharing a business account’s vouchers', () => {
  test('the remaining minutes and rentals never go below zero and fall by what the prices show', async () => {
    const group = await session.em().findOneOrFail(UserGroup, {}, { orderBy: { id: 'asc' } });
    const customers = session.seed.customerIds;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 2, maxLength: 5 }),
        fc.integer({ min: 1, max: 3 }),
        async (freeMinutes, numberOfRentals, rides, attempts) => {
          const templateId = await template([
            {
              type: 'FreeMinutes',
              amount: String(freeMinutes),
              ...(numberOfRentals ? { numberOfRentals } : {}),
            },
          ]);
          const [voucher] = await grant(templateId, { userGroupId: group.id });
          const rentals = await Promise.all(
            rides.map((minutes, index) =>
              endedRental(customers[index % customers.length]!, minutes, { groupId: group.id }),
            ),
          );
          // Every rental billed `attempts` times at once (the same step's retries, one key): retries and
          // concurrent rentals interleave.
          const prices = await Promise.all(
            rentals.flatMap((rentalId) =>
              Array.from({ length: attempts }, () => bill(rentalId, `end-of-${rentalId}`)),
            ),
          );
          const after = await voucherNow(voucher!.id);
          expect(after.remainingFreeMinutes).toBeGreaterThanOrEqual(0);
          const rows = await session
            .em()
            .find(VoucherConsumption, { voucher: voucher!.id }, { refresh: true });
          // One consumption per rental at most, whatever the attempts.
          expect(new Set(rows.map((row) => row.rentalId)).size).toBe(rows.length);
          const takenMinutes = rows.reduce((sum, row) => sum + row.minutes, 0);
          expect(after.remainingFreeMinutes).toBe(freeMinutes - takenMinutes);
          if (numberOfRentals) {
            expect(after.remainingNumberOfRentals).toBeGreaterThanOrEqual(0);
            expect(after.remainingNumberOfRentals).toBe(numberOfRentals - rows.length);
          }
          // The stored prices show exactly the minutes taken, and every attempt answered the same price.
          const stored = await session.em().find(Rental, { id: { $in: rentals } }, { refresh: true });
          const shown = stored
            .flatMap((rental) => benefitLines(rental.priceV4 as PriceResult['priceV4']))
            .filter((line) => line.code === `FREE_MINUTES_V${voucher!.id}`)
            .reduce((sum, line) => sum + Number(line.quantity), 0);
          expect(shown).toBe(takenMinutes);
          for (const [index, rentalId] of rentals.entries()) {
            const mine = prices.slice(index * attempts, (index + 1) * attempts);
            const row = stored.find((rental) => rental.id === rentalId)!;
            for (const price of mine) expect(price.priceV4).toEqual(row.priceV4);
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
