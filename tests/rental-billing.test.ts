// Rental billing: the engine input from a rental's phases, prices at slot boundaries through whole
// rentals (demo bundles: ENDING_TIMESLOT cars, CUMULATIVE_TIMESLOTS scooters), the invoice written at the
// end (idempotent, numbered, none for a zero total, BUSINESS for business rentals), the deposit (held,
// skipped, released once) and the billing routes with their business-unit denials and hostile input.
// Rentals are rows set up directly in the database; the rental workflow calls the same functions.
import { ApiClient } from '../db/entities/ApiClient.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Branch } from '../db/entities/Branch.js';
import { CostCenter } from '../db/entities/CostCenter.js';
import { Customer } from '../db/entities/Customer.js';
import { Deposit } from '../db/entities/Deposit.js';
import { Event } from '../db/entities/Event.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Payment } from '../db/entities/Payment.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { PricingBundleVersion } from '../db/entities/PricingBundleVersion.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import { pricingForBranch } from '../db/pricing.js';
import {
  finaliseRentalBilling,
  holdRentalDeposit,
  pinRentalPricing,
  priceRental,
  releaseRentalDeposit,
} from '../db/rental-billing.js';
import { type SeededTenant } from '../db/seed.js';
import { autoBillInStep } from '../activities/payment-billing.js';
import { billForgottenRentalInvoices } from '../workers/payment-starter.js';
import { withAutoBillOff } from './support/payments.js';
import { isDomainError } from '../domain/errors.js';
import {
  depositAmountFor,
  rentalDistance,
  rentalPhaseSpans,
  RENTAL_DEPOSIT_SETTING_KEY,
} from '../domain/rental-pricing.js';
import type { RentalPhaseRecord, RentalState } from '../domain/rental.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError, type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { demoOperatorClient } from '../db/seed/access.js';

let session: Session;
let stack: HttpStack;
let operator: string;
let rival: SeededTenant;
let tenant: string;
const call: HttpStack['call'] = (...args) => stack.call(...args);
const back = (path: string) => stack.back(path);

const MIN = 60_000;
const T0 = Date.parse('2026-03-02T08:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * MIN).toISOString();
const phase = (name: RentalPhaseRecord['phase'], from: number, to: number | null): RentalPhaseRecord => ({
  phase: name,
  startedAt: at(from),
  endedAt: to === null ? null : at(to),
});

async function expectDomainError(work: Promise<unknown>, code: string): Promise<void> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(isDomainError(error) ? error.code : error).toBe(code);
}

async function vehicleOf(kind: 'E-Scooter' | 'Compact car', index = 0): Promise<Vehicle> {
  const em = tenantEm(stack.backend.orm, tenant);
  const category = await em.findOneOrFail(VehicleCategory, { name: kind });
  const vehicles = await em.find(Vehicle, { category }, { orderBy: { id: 'asc' } });
  return vehicles[index]!;
}

interface RentalSetup {
  kind: 'E-Scooter' | 'Compact car';
  state: RentalState;
  phases: RentalPhaseRecord[];
  paidReservationMinutes?: number;
  startOdometerKm?: number;
  endOdometerKm?: number;
  customerId?: number;
  vehicleIndex?: number;
  business?: boolean;
  /** Minutes after T0 when the rental ended (terminal states). */
  endedAtMinute?: number;
  reservationExpiresAtMinute?: number;
}

/** A rental row as the rental workflow leaves it, with the pricing pinned at its reservation. */
async function makeRental(setup: RentalSetup): Promise<number> {
  return inTenantTransaction(stack.backend.orm, tenant, async (em) => {
    const vehicle = await vehicleOf(setup.kind, setup.vehicleIndex);
    const [row] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    const id = Number(row.id);
    const version = await pinRentalPricing(em, tenant, {
      branchId: stack.backend.seed.branchId,
      vehicleCategoryId: vehicle.category.id,
      at: new Date(T0),
    });
    const group = setup.business ? await em.findOneOrFail(UserGroup, {}) : null;
    const costCenter = group ? await em.findOneOrFail(CostCenter, { group }) : null;
    em.create(Rental, {
      id,
      workflowId: `rental:${tenant}:${id}`,
      state: setup.state,
      branch: em.getReference(Branch, stack.backend.seed.branchId),
      vehicle: em.getReference(Vehicle, vehicle.id),
      customer: em.getReference(Customer, setup.customerId ?? stack.backend.seed.customerIds[0]!),
      reservedAt: new Date(T0),
      reservationExpiresAt:
        setup.reservationExpiresAtMinute === undefined
          ? null
          : new Date(at(setup.reservationExpiresAtMinute)),
      startedAt: setup.phases.some((p) => p.phase === 'DRIVING') ? new Date(T0) : null,
      endedAt: setup.endedAtMinute === undefined ? null : new Date(at(setup.endedAtMinute)),
      startOdometerKm: setup.startOdometerKm ?? null,
      endOdometerKm: setup.endOdometerKm ?? null,
      pricingBundleVersion: em.getReference(PricingBundleVersion, version.id),
      phases: setup.phases,
      paidReservationMinutes: setup.paidReservationMinutes ?? 0,
      userGroup: group,
      costCenter,
    });
    return id;
  });
}

/** An ENDED rental that only drove for `minutes`. */
const drivenRental = (kind: RentalSetup['kind'], minutes: number, extra: Partial<RentalSetup> = {}) =>
  makeRental({
    kind,
    state: 'ENDED',
    phases: [phase('DRIVING', 0, minutes)],
    endedAtMinute: minutes,
    ...extra,
  });

async function loadRental(id: number): Promise<Rental> {
  return tenantEm(stack.backend.orm, tenant).findOneOrFail(Rental, id);
}

async function finalise(id: number, key: string) {
  return inTenantTransaction(stack.backend.orm, tenant, async (em) => {
    const billing = await finaliseRentalBilling(em, tenant, id, {
      at: new Date(T0 + 300 * MIN),
      idempotencyKey: key,
    });
    return { total: billing.price.price.total, invoiceId: billing.invoiceId };
  });
}

async function grantClient(
  clientId: string,
  grant: { role: string; branchId?: number; businessUnitId?: number },
) {
  const em = tenantEm(stack.backend.orm, tenant);
  const role = await em.findOneOrFail(Role, { name: grant.role });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    subjectType: 'API_CLIENT',
    subjectId: clientId,
    role,
    ...(grant.branchId ? { branch: em.getReference(Branch, grant.branchId) } : {}),
    ...(grant.businessUnitId ? { businessUnit: em.getReference(BusinessUnit, grant.businessUnitId) } : {}),
  });
  await em.flush();
  return stack.token(tenant, { clientId, clientSecret: `${clientId}-secret` });
}

beforeAll(async () => {
  session = await startSession({ rival: true });
  ({ stack, operatorToken: operator, rival } = session);
  tenant = session.seed.tenant;
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('the engine input of a rental (pure)', () => {
  test('phases laid end to end; the open phase runs to now; bought minutes charged in full', () => {
    const { spans } = rentalPhaseSpans(
      {
        // START after 17 of 15 free + 10 bought minutes: 2 paid minutes used, 10 charged.
        phases: [
          phase('RESERVATION_FREE', 0, 15),
          phase('RESERVATION_PAID', 15, 17),
          phase('DRIVING', 17, null),
        ],
        paidReservationMinutes: 10,
      },
      T0 + 47 * MIN,
    );
    expect(spans.map((s) => [s.phase, (s.endMs - s.startMs) / MIN])).toEqual([
      ['RESERVATION_FREE', 15],
      ['RESERVATION_PAID', 10],
      ['DRIVING', 30],
    ]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.startMs).toBe(spans[i - 1]!.endMs);
  });

  test('bought minutes unused because START came during the free time are still charged', () => {
    const { spans, billed } = rentalPhaseSpans(
      { phases: [phase('RESERVATION_FREE', 0, 5), phase('DRIVING', 5, 20)], paidReservationMinutes: 10 },
      T0 + 99 * MIN,
    );
    expect(spans.map((s) => [s.phase, (s.endMs - s.startMs) / MIN])).toEqual([
      ['RESERVATION_FREE', 5],
      ['RESERVATION_PAID', 10],
      ['DRIVING', 15],
    ]);
    expect(billed[1]).toMatchObject({ phase: 'RESERVATION_PAID', startedAt: at(5), endedAt: at(5) });
  });

  test('an open reservation with bought minutes: free part cut at its expiry, bought minutes already in', () => {
    const { spans } = rentalPhaseSpans(
      {
        phases: [phase('RESERVATION_FREE', 0, null)],
        paidReservationMinutes: 20,
        freeReservationExpiresAtMs: T0 + 15 * MIN,
      },
      T0 + 18 * MIN,
    );
    expect(spans.map((s) => [s.phase, (s.endMs - s.startMs) / MIN])).toEqual([
      ['RESERVATION_FREE', 15],
      ['RESERVATION_PAID', 20],
    ]);
  });

  test('a clock before the open phase started prices it as zero; hostile input is ODP111', () => {
    const { spans } = rentalPhaseSpans(
      { phases: [phase('DRIVING', 10, null)], paidReservationMinutes: 0 },
      T0,
    );
    expect(spans).toEqual([]);
    for (const input of [
      { phases: [phase('DRIVING', 10, 5)], paidReservationMinutes: 0 },
      {
        phases: [{ phase: 'DRIVING' as const, startedAt: 'yesterday', endedAt: null }],
        paidReservationMinutes: 0,
      },
      { phases: [], paidReservationMinutes: -1 },
      { phases: [], paidReservationMinutes: 1.5 },
      { phases: [], paidReservationMinutes: 1e9 },
    ])
      expect(() => rentalPhaseSpans(input, T0)).toThrow(expect.objectContaining({ code: 'ODP111' }));
    expect(() => rentalPhaseSpans({ phases: [], paidReservationMinutes: 0 }, Number.NaN)).toThrow(
      expect.objectContaining({ code: 'ODP111' }),
    );
  });

  test('distance: metres, miles, missing or backwards odometers', () => {
    expect(rentalDistance(1000.1, 1080.6, 'KILOMETER')).toBe('80.5');
    expect(rentalDistance(0, 1.609344, 'MILE')).toBe('1');
    expect(rentalDistance(null, 10, 'KILOMETER')).toBe('0');
    expect(rentalDistance(500, 20, 'KILOMETER')).toBe('0');
    expect(rentalDistance(0, Number.POSITIVE_INFINITY, 'KILOMETER')).toBe('0');
  });

  test('deposit setting: category amounts win, zero holds none, malformed values are F205', () => {
    expect(depositAmountFor({ amount: '50.00', vehicleCategoryAmounts: { '7': '300' } }, 7, 'EUR')).toBe(
      '300',
    );
    expect(depositAmountFor({ amount: '50.00' }, 7, 'EUR')).toBe('50.00');
    expect(depositAmountFor({ amount: '0' }, 7, 'EUR')).toBeNull();
    expect(depositAmountFor({}, 7, 'EUR')).toBeNull();
    for (const value of [
      null,
      [],
      'x',
      { amount: 50 },
      { amount: '-5' },
      { amount: '1e3' },
      { currency: 'USD' },
    ])
      expect(() => depositAmountFor(value, 7, 'EUR')).toThrow(expect.objectContaining({ code: 'F205' }));
  });
});

describe('prices at slot boundaries through whole rentals', () => {
  test('ENDING_TIMESLOT car: reservation free and paid, driving, parking, distance; the 60-minute cliff', async () => {
    // Demo car: reservation 0.10/min; slots [0,60] 0.39/0.19, (60,240] 0.34/0.17; 0.29/km beyond 50 km.
    const phases = [
      phase('RESERVATION_FREE', 0, 15),
      phase('RESERVATION_PAID', 15, 20),
      phase('DRIVING', 20, 60),
      phase('PARKING', 60, 80),
      phase('DRIVING', 80, null),
    ];
    const id = await makeRental({
      kind: 'Compact car',
      state: 'ACTIVE',
      phases,
      paidReservationMinutes: 10,
      startOdometerKm: 1000,
      endOdometerKm: 1080.5,
      customerId: stack.backend.seed.customerIds[1],
      vehicleIndex: 1,
    });
    const rental = await loadRental(id);
    const priceAt = (minute: number) =>
      priceRental(tenantEm(stack.backend.orm, tenant), rental, T0 + minute * MIN);
    // 60 billable minutes (40 driving + 20 parking): still the first slot.
    const atSixty = await priceAt(80);
    expect(atSixty.priceV4.lines.map((l) => [l.code, l.quantity, l.gross])).toEqual([
      ['RESERVATION_FREE', '15.000', '0.00'],
      ['RESERVATION_PAID', '10.000', '1.00'],
      [expect.stringContaining('DRIVING'), '40.000', '15.60'],
      [expect.stringContaining('PARKING'), '20.000', '3.80'],
      ['DISTANCE', '30.500', '8.85'],
    ]);
    expect(atSixty.price.total).toBe('29.25');
    // One more minute: every billable minute moves to the second slot.
    const atSixtyOne = await priceAt(81);
    // 1.00 + 41 x 0.34 + 20 x 0.17 + 8.85
    expect(atSixtyOne.price.total).toBe('27.19');
    // A started minute is billed whole (billing increment 1 minute).
    expect((await priceAt(80 + 0.001)).price.total).toBe(atSixtyOne.price.total);
    expect(atSixty.priceV4.totals.gross).toBe('29.25');
  });

  test('CUMULATIVE_TIMESLOTS scooter: each minute in its slot, boundaries at 30 and 120, unlock fee', async () => {
    // Demo scooter: slots [0,30) 0.25/0.10, [30,120) 0.20/0.08, [120,…) 0.15/0.05; unlock 1.00; min 1.50.
    const id = await makeRental({
      kind: 'E-Scooter',
      state: 'ENDED',
      phases: [
        phase('RESERVATION_FREE', 0, 5),
        phase('DRIVING', 5, 35),
        phase('PARKING', 35, 45),
        phase('DRIVING', 45, 130),
      ],
      endedAtMinute: 130,
    });
    const rental = await loadRental(id);
    const em = tenantEm(stack.backend.orm, tenant);
    // 125 billable minutes: 30 x 0.25 + 10 x 0.08 + 80 x 0.20 + 5 x 0.15 + 1.00
    const result = await priceRental(em, rental, Date.now());
    expect(result.price.total).toBe('26.05');
    expect(result.priceV3.groups.map((g) => [g.group, g.amount])).toEqual([
      ['RESERVATION', '0.00'],
      ['TIME', '25.05'],
      ['UNLOCK', '1.00'],
    ]);
    // The final price ignores the clock: nothing is open any more.
    expect((await priceRental(em, rental, T0)).price.total).toBe('26.05');
  });

  test('a short scooter ride is topped up to the minimum price', async () => {
    const id = await makeRental({
      kind: 'E-Scooter',
      state: 'ENDED',
      phases: [phase('RESERVATION_FREE', 0, 1), phase('DRIVING', 1, 2)],
      endedAtMinute: 2,
    });
    const result = await priceRental(tenantEm(stack.backend.orm, tenant), await loadRental(id), Date.now());
    expect(result.price.total).toBe('1.50');
    expect(result.priceV4.lines.at(-1)).toMatchObject({ code: 'MINIMUM_PRICE', gross: '0.25' });
  });

  test('a rental without a pinned version is ODP104', async () => {
    const id = await makeRental({
      kind: 'E-Scooter',
      state: 'CANCELLED',
      phases: [phase('RESERVATION_FREE', 0, 3)],
    });
    const em = tenantEm(stack.backend.orm, tenant);
    const rental = await em.findOneOrFail(Rental, id);
    rental.pricingBundleVersion = null;
    await expectDomainError(priceRental(em, rental, Date.now()), 'ODP104');
  });

  test('pinning resolves what pricingForBranch resolves, in one statement', async () => {
    const em = tenantEm(stack.backend.orm, tenant);
    const vehicle = await em.findOneOrFail(Vehicle, {}, { orderBy: { id: 'asc' } });
    const query = { branchId: stack.backend.seed.branchId, vehicleCategoryId: vehicle.category.id };
    const now = new Date();
    const resolved = await pricingForBranch(em, tenant, {
      ...query,
      bundleType: 'ON_DEMAND_LEGACY',
      at: now,
    });
    expect(await pinRentalPricing(em, tenant, { ...query, at: now })).toEqual({ id: resolved.version.id });
    // Before any version took effect, both refuse alike.
    const past = new Date('2000-01-01T00:00:00Z');
    await expectDomainError(
      pricingForBranch(em, tenant, { ...query, bundleType: 'ON_DEMAND_LEGACY', at: past }),
      'ODP106',
    );
    await expectDomainError(pinRentalPricing(em, tenant, { ...query, at: past }), 'ODP106');
  });

  test('pinning needs an on-demand assignment (ODP104)', async () => {
    const em = tenantEm(stack.backend.orm, tenant);
    await expectDomainError(
      pinRentalPricing(em, tenant, {
        branchId: stack.backend.seed.branchId,
        vehicleCategoryId: 2147483000,
        at: new Date(),
      }),
      'ODP104',
    );
  });
});

describe('the invoice written at the end', () => {
  test('one invoice per rental however often and concurrently the activity runs; numbers per unit and year', async () => {
    const id = await makeRental({
      kind: 'E-Scooter',
      state: 'ENDED',
      phases: [phase('RESERVATION_FREE', 0, 5), phase('DRIVING', 5, 25)],
      endedAtMinute: 25,
    });
    const results = await Promise.all([
      finalise(id, 'wf/run/1'),
      finalise(id, 'wf/run/1'),
      finalise(id, 'wf/run/1'),
    ]);
    const again = await finalise(id, 'wf/run/1');
    expect(new Set([...results, again].map((r) => r.invoiceId)).size).toBe(1);
    const em = tenantEm(stack.backend.orm, tenant);
    expect(await em.count(Invoice, { rental: id })).toBe(1);
    const invoice = await em.findOneOrFail(Invoice, { rental: id });
    expect(invoice).toMatchObject({ type: 'REGULAR', state: 'OPEN', currency: 'EUR', totalGross: '6.00' });
    expect(invoice.number).toMatch(/^BER-2026-\d{6}$/);
    const lines = await em.find(InvoiceLine, { invoice }, { orderBy: { position: 'asc' } });
    expect(lines.map((l) => [l.code, l.gross])).toEqual([
      ['RESERVATION_FREE', '0.00'],
      [expect.stringContaining('DRIVING'), '5.00'],
      ['UNLOCK_FEE', '1.00'],
    ]);
    const rental = await em.findOneOrFail(Rental, id);
    expect(rental.price?.total).toBe('6.00');
    expect(rental.priceV4?.totals.gross).toBe('6.00');

    const next = await drivenRental('E-Scooter', 10);
    const second = await finalise(next, 'wf/run/2');
    const secondInvoice = await em.findOneOrFail(Invoice, second.invoiceId!);
    expect(Number(secondInvoice.number.slice(-6))).toBe(Number(invoice.number.slice(-6)) + 1);
  });

  test('a zero total writes the price but no invoice (a cancelled free reservation)', async () => {
    const id = await makeRental({
      kind: 'Compact car',
      state: 'CANCELLED',
      phases: [phase('RESERVATION_FREE', 0, 7)],
      endedAtMinute: 7,
    });
    const result = await finalise(id, 'wf/cancel/1');
    expect(result).toEqual({ total: '0.00', invoiceId: null });
    expect((await loadRental(id)).price?.total).toBe('0.00');
    expect(await tenantEm(stack.backend.orm, tenant).count(Invoice, { rental: id })).toBe(0);
  });

  test('an expired reservation with bought minutes is invoiced for them', async () => {
    const id = await makeRental({
      kind: 'Compact car',
      state: 'EXPIRED',
      phases: [phase('RESERVATION_FREE', 0, 15), phase('RESERVATION_PAID', 15, 35)],
      paidReservationMinutes: 20,
      endedAtMinute: 35,
    });
    const result = await finalise(id, 'wf/expire/1');
    expect(result.total).toBe('2.00');
    const lines = await tenantEm(stack.backend.orm, tenant).find(InvoiceLine, { invoice: result.invoiceId });
    expect(lines.map((l) => l.code).sort()).toEqual(['RESERVATION_FREE', 'RESERVATION_PAID']);
  });

  test('a business rental gets a BUSINESS invoice on its account and cost center', async () => {
    const id = await drivenRental('E-Scooter', 12, { business: true });
    const { invoiceId } = await finalise(id, 'wf/business/1');
    const invoice = await tenantEm(stack.backend.orm, tenant).findOneOrFail(Invoice, invoiceId!);
    expect(invoice.type).toBe('BUSINESS');
    expect(invoice.userGroup).not.toBeNull();
    expect(invoice.costCenter).not.toBeNull();
  });

  test("the ending step's bill: one payment per key; a refused bill leaves the transaction it runs in to commit", async () => {
    const id = await drivenRental('E-Scooter', 8);
    const deps = { paymentGateways: stack.backend.paymentGateways };
    const branchId = stack.backend.seed.branchId;
    const { invoiceId, payment } = await inTenantTransaction(stack.backend.orm, tenant, async (tx) => {
      const billing = await finaliseRentalBilling(tx, tenant, id, {
        at: new Date(),
        idempotencyKey: 'wf/step/1',
      });
      const ended = { invoiceId: billing.invoiceId!, branchId };
      return {
        invoiceId: billing.invoiceId!,
        payment: await autoBillInStep(deps, tx, tenant, ended, 'wf/step/1'),
      };
    });
    const em = tenantEm(stack.backend.orm, tenant);
    const invoice = await em.findOneOrFail(Invoice, invoiceId);
    expect(invoice.state).toBe('BILLED');
    expect(payment).toMatchObject({ state: 'OPEN' });
    const row = await em.findOneOrFail(Payment, payment!.id);
    expect(row).toMatchObject({ idempotencyKey: 'wf/step/1/auto-bill', amount: invoice.totalGross });
    // The same key again (a retried step) answers the same payment.
    const again = await inTenantTransaction(stack.backend.orm, tenant, (tx) =>
      autoBillInStep(deps, tx, tenant, { invoiceId, branchId }, 'wf/step/1'),
    );
    expect(again?.id).toBe(payment!.id);

    // Another key finds the invoice BILLED: the bill is refused (I121) before it writes anything, and
    // what the step wrote before and after it commits.
    const refused = await inTenantTransaction(stack.backend.orm, tenant, async (tx) => {
      await tx.execute('update rental set paid_reservation_minutes = 3 where tenant_id = ? and id = ?', [
        tenant,
        id,
      ]);
      const answer = await autoBillInStep(deps, tx, tenant, { invoiceId, branchId }, 'wf/step/2');
      await tx.execute('update rental set end_odometer_km = 42 where tenant_id = ? and id = ?', [tenant, id]);
      return answer;
    });
    expect(refused).toBeNull();
    expect(await loadRental(id)).toMatchObject({ paidReservationMinutes: 3, endOdometerKm: 42 });
    expect(await tenantEm(stack.backend.orm, tenant).count(Payment, { invoice: invoiceId })).toBe(1);
  });

  test("an ended rental's invoice its bill missed: the payment starter bills it once, where autoBill bills", async () => {
    // The ending step committed and its worker died before the bill that follows the step's answer.
    const id = await drivenRental('E-Scooter', 9);
    const { invoiceId } = await finalise(id, 'wf/forgotten/1');
    const { backend } = stack;
    const deps = {
      orm: backend.orm,
      paymentGateways: backend.paymentGateways,
      temporal: { client: backend.client, taskQueue: backend.taskQueue },
    };
    const sweep = (graceMs: number) => billForgottenRentalInvoices(deps, graceMs, [tenant]);
    const em = () => tenantEm(backend.orm, tenant);
    const stateOf = async () => (await em().findOneOrFail(Invoice, invoiceId!)).state;
    // Within its grace the invoice is left to its own bill.
    await sweep(60_000);
    expect(await stateOf()).toBe('OPEN');
    // Where finance.invoice.autoBill does not bill, it stays OPEN for an operator.
    await withAutoBillOff(backend.orm, tenant, async () => {
      await sweep(0);
      expect(await stateOf()).toBe('OPEN');
    });
    // Two workers sweeping at once bill it once, with one payment under the rental's sweep key.
    await Promise.all([sweep(0), sweep(0)]);
    expect(await stateOf()).not.toBe('OPEN');
    const payments = await em().find(Payment, { invoice: invoiceId! });
    expect(payments.map((payment) => payment.idempotencyKey)).toEqual([
      `payment-starter:bill:rental:${id}/auto-bill`,
    ]);
    expect(await em().count(Event, { type: 'INVOICE_BILLED', rentalId: id })).toBe(1);
    // Billed, it is not looked at again.
    await sweep(0);
    expect(await em().count(Payment, { invoice: invoiceId! })).toBe(1);
  });

  test('finalising outside a transaction is refused (it must lock the rental)', async () => {
    const id = await drivenRental('E-Scooter', 3);
    const em = tenantEm(stack.backend.orm, tenant);
    await expect(
      finaliseRentalBilling(em, tenant, id, { at: new Date(), idempotencyKey: 'x' }),
    ).rejects.toThrow();
  });
});

describe('deposits', () => {
  beforeAll(async () => {
    const em = tenantEm(stack.backend.orm, tenant);
    const cars = await em.findOneOrFail(VehicleCategory, { name: 'Compact car' });
    em.create(Setting, {
      key: RENTAL_DEPOSIT_SETTING_KEY,
      name: 'Rental deposit',
      area: 'CORE',
      valueType: 'RENTAL_DEPOSIT_SETTINGS',
      branchIds: [stack.backend.seed.cityBranchId],
      value: { amount: '0', vehicleCategoryAmounts: { [String(cars.id)]: '300.00' } },
    });
    await em.flush();
  });

  const hold = (id: number, key: string) =>
    inTenantTransaction(stack.backend.orm, tenant, async (em) =>
      holdRentalDeposit(em, await em.findOneOrFail(Rental, id), { at: new Date(), idempotencyKey: key }),
    );

  test('a car rental holds the configured deposit once; scooters hold none; skipPreAuth skips it', async () => {
    const car = await drivenRental('Compact car', 5);
    const first = await hold(car, 'wf/start/car');
    const second = await hold(car, 'wf/start/car');
    expect(first).toMatchObject({
      state: 'ACTIVE',
      amount: '300.00',
      currency: 'EUR',
      authorizationState: 'NOT_REQUESTED',
    });
    expect(second?.id).toBe(first?.id);

    const scooter = await drivenRental('E-Scooter', 5);
    expect(await hold(scooter, 'wf/start/scooter')).toBeNull();

    const em = tenantEm(stack.backend.orm, tenant);
    const trusted = await em.findOneOrFail(Customer, stack.backend.seed.customerIds[2]!);
    trusted.skipPreAuth = true;
    await em.flush();
    const skipped = await drivenRental('Compact car', 5, { customerId: trusted.id });
    expect(await hold(skipped, 'wf/start/skipped')).toBeNull();
  });

  test('release over HTTP: RELEASED with a RENTAL_DEPOSIT_RELEASE event, a second release is R250', async () => {
    const id = await drivenRental('Compact car', 5);
    await hold(id, `wf/start/${id}`);
    const reply = await call('POST', back(`/rentals/${id}/release-deposit`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      rentalId: id,
      state: 'RELEASED',
      amount: '300.00',
      releasedBy: expect.any(String),
    });
    const events = await tenantEm(stack.backend.orm, tenant).find(Event, {
      rentalId: id,
      type: 'RENTAL_DEPOSIT_RELEASE',
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ depositId: reply.body.id, amount: '300.00' });
    expectError(await call('POST', back(`/rentals/${id}/release-deposit`), { token: operator }), 409, 'R250');

    const none = await drivenRental('E-Scooter', 5);
    expectError(
      await call('POST', back(`/rentals/${none}/release-deposit`), { token: operator }),
      409,
      'R250',
    );
  });

  test('concurrent releases: exactly one succeeds', async () => {
    const id = await drivenRental('Compact car', 5);
    await hold(id, `wf/start/${id}`);
    const rental = await loadRental(id);
    const outcomes = await Promise.all(
      [1, 2, 3].map(() =>
        releaseRentalDeposit(tenantEm(stack.backend.orm, tenant), rental, {
          by: 'test',
          at: new Date(),
        }).then(
          () => 'released',
          (error: unknown) => (isDomainError(error) ? error.code : String(error)),
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['R250', 'R250', 'released']);
    expect(await tenantEm(stack.backend.orm, tenant).count(Deposit, { rental: id, state: 'RELEASED' })).toBe(
      1,
    );
  });
});

describe('billing routes', () => {
  let endedCar: number;
  let invoiceId: number;
  beforeAll(async () => {
    endedCar = await makeRental({
      kind: 'Compact car',
      state: 'ENDED',
      phases: [phase('RESERVATION_FREE', 0, 15), phase('DRIVING', 15, 40), phase('PARKING', 40, 55)],
      paidReservationMinutes: 0,
      startOdometerKm: 10,
      endOdometerKm: 30,
      endedAtMinute: 55,
    });
    invoiceId = (await finalise(endedCar, `wf/end/${endedCar}`)).invoiceId!;
  });

  test('billing overview of an ended rental: phases, final price, invoice with lines', async () => {
    const reply = await call('GET', back(`/rentals/${endedCar}/billing-overview`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      rentalId: endedCar,
      state: 'ENDED',
      estimate: false,
      pricedAt: at(55),
      businessUnitId: stack.backend.seed.businessUnitId,
      price: { total: '12.60', currency: 'EUR' },
      invoice: { id: invoiceId, state: 'OPEN', type: 'REGULAR', totals: { gross: '12.60' } },
      deposit: null,
    });
    expect(reply.body.phases.map((p: { phase: string; minutes: string }) => [p.phase, p.minutes])).toEqual([
      ['RESERVATION_FREE', '15.000'],
      ['DRIVING', '25.000'],
      ['PARKING', '15.000'],
    ]);
    expect(reply.body.phaseTotals).toEqual([
      { phase: 'RESERVATION_FREE', minutes: '15.000', amount: '0.00' },
      { phase: 'DRIVING', minutes: '25.000', amount: '9.75' },
      { phase: 'PARKING', minutes: '15.000', amount: '2.85' },
    ]);
    expect(reply.body.invoice.lines).toHaveLength(3);
    expect(reply.body.priceV4.totals.gross).toBe('12.60');
  });

  test('billing overview of an open rental is an estimate up to now', async () => {
    const startedMinutesAgo = 10;
    const startedAt = new Date(Date.now() - startedMinutesAgo * MIN).toISOString();
    const id = await makeRental({
      kind: 'E-Scooter',
      state: 'ACTIVE',
      phases: [{ phase: 'DRIVING', startedAt, endedAt: null }],
      customerId: stack.backend.seed.customerIds[3],
      vehicleIndex: 2,
    });
    const reply = await call('GET', back(`/rentals/${id}/billing-overview`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ estimate: true, invoice: null, deposit: null });
    // 10 minutes and a started 11th at 0.25, plus the unlock fee.
    expect(['3.50', '3.75']).toContain(reply.body.price.total);
    await tenantEm(stack.backend.orm, tenant).nativeUpdate(
      Rental,
      { id },
      { state: 'ENDED', endedAt: new Date() },
    );
  });

  test('GET /invoices/{invoiceId} with its lines', async () => {
    const reply = await call('GET', back(`/invoices/${invoiceId}`), { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: invoiceId, rentalId: endedCar, currency: 'EUR' });
    expect(reply.body.lines.map((l: { position: number }) => l.position)).toEqual([1, 2, 3]);
  });

  test('finance permissions are checked on the business unit behind the branch', async () => {
    const branchAdmin = await grantClient('billing-branch-admin', {
      role: 'Administrator',
      branchId: stack.backend.seed.cityBranchId,
    });
    const em = tenantEm(stack.backend.orm, tenant);
    const otherUnit = em.create(BusinessUnit, {
      code: 'HAM',
      name: 'Hamburg',
      timeZoneId: 'Europe/Berlin',
      currency: 'EUR',
      taxPercentage: '19.00',
    });
    await em.flush();
    const otherFinance = await grantClient('billing-other-finance', {
      role: 'Finance',
      businessUnitId: otherUnit.id,
    });
    for (const token of [branchAdmin, otherFinance])
      await expectErrors(
        [
          ['GET', back(`/rentals/${endedCar}/billing-overview`), 403, 'AUTH002'],
          ['POST', back(`/rentals/${endedCar}/release-deposit`), 403, 'AUTH002'],
          ['GET', back(`/invoices/${invoiceId}`), 403, 'AUTH002'],
        ],
        token,
      );
  });

  /** Each request answers this status and catalogue code. */
  async function expectErrors(cases: [string, string, number, string][], token?: string) {
    for (const [method, path, status, code] of cases)
      expectError(await call(method, path, { token }), status, code);
  }

  test("another tenant's ids are not found", async () => {
    const rivalToken = await stack.token(rival.tenant, demoOperatorClient);
    const rivalBack = (path: string) => `/v1/${rival.tenant}/back${path}`;
    await expectErrors(
      [
        ['GET', rivalBack(`/rentals/${endedCar}/billing-overview`), 404, 'R404'],
        ['POST', rivalBack(`/rentals/${endedCar}/release-deposit`), 404, 'R404'],
        ['GET', rivalBack(`/invoices/${invoiceId}`), 404, 'I404'],
      ],
      rivalToken,
    );
    await expectErrors(
      [
        ['GET', back('/rentals/2147483647/billing-overview'), 404, 'R404'],
        ['GET', back('/invoices/2147483647'), 404, 'I404'],
      ],
      operator,
    );
  });

  test('hostile path values are refused before any handler runs', async () => {
    for (const value of ['abc', '0', '-1', '99999999999', '1.5', '%00', '1%00', "1'--"])
      await expectErrors(
        [
          ['GET', back(`/rentals/${value}/billing-overview`), 400, '0022'],
          ['POST', back(`/rentals/${value}/release-deposit`), 400, '0022'],
          ['GET', back(`/invoices/${value}`), 400, '0022'],
        ],
        operator,
      );
    await expectErrors([['GET', back(`/rentals/${endedCar}/billing-overview`), 401, 'JWT006']]);
  });
});
