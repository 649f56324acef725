// Geofence promotions and surcharges in rental prices against the real stack (db/geofence-pricing.ts): a
// rental starting in a promotion zone and ending in a surcharge zone gets a DISCOUNT line and a SURCHARGE
// line on its price and invoice, the templates granted to the customer once for that rental (a repeated
// billing grants and takes nothing more) and closed afterwards; they never price the customer's next
// rental; a zone whose weekly window is closed, or whose gate the customer fails, adds nothing; an open
// rental's estimate shows its start's promotion without taking anything; a surcharge may only be a
// fixed amount or a fraction (VA105).
import { Decimal } from 'decimal.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { PricingBundleVersion } from '../db/entities/PricingBundleVersion.js';
import { Rental } from '../db/entities/Rental.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { Voucher } from '../db/entities/Voucher.js';
import { VoucherConsumption } from '../db/entities/VoucherConsumption.js';
import { inTenantTransaction } from '../db/orm.js';
import { finaliseRentalBilling, pinRentalPricing, priceRental } from '../db/rental-billing.js';
import { grantRentalGeofenceVouchers } from '../db/geofence-pricing.js';
import { rentalBenefitKey } from '../db/pricing-benefits.js';
import type { PriceResult } from '../domain/pricing.js';
import { weekdays } from '../domain/geofence.js';
import { type CallOptions, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const tenant = () => session.seed.tenant;

beforeAll(async () => {
  session = await startSession({ rival: true });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** A square zone around a point ([lng, lat]), about 200 m across. */
const zone = (lat: number, lng: number) => ({
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [lng - 0.0015, lat - 0.001],
        [lng + 0.0015, lat - 0.001],
        [lng + 0.0015, lat + 0.001],
        [lng - 0.0015, lat + 0.001],
        [lng - 0.0015, lat - 0.001],
      ],
    ],
  ],
});

// Zones of this suite, away from the demo zone (Museum Island) and from each other.
const promotionSpot = { lat: 52.495, lng: 13.425 };
const surchargeSpot = { lat: 52.535, lng: 13.425 };
const closedSpot = { lat: 52.505, lng: 13.445 };
const gatedSpot = { lat: 52.545, lng: 13.445 };
const nowhere = { lat: 52.47, lng: 13.3 };

/** An ACTIVE geofence template over a zone, open all day on `days` (default every day); its id. */
async function geofenceTemplate(
  type: 'GeoFencePromotion' | 'GeoFenceSurcharge',
  spot: { lat: number; lng: number },
  benefits: unknown[],
  extra: Record<string, unknown> = {},
): Promise<number> {
  const created = await call('POST', back('/voucherables'), {
    token: session.operatorToken,
    body: {
      branchId: session.seed.branchId,
      type,
      name: `${type} zone`,
      benefits,
      geofence: zone(spot.lat, spot.lng),
      weekdays: [...weekdays],
      recurrenceStart: '2026-01-01T00:00:00Z',
      durationMinutes: 1440,
      ...extra,
    },
  });
  expect([created.status, created.body.errorCode]).toEqual([201, undefined]);
  const activated = await call('POST', back(`/voucherables/${created.body.id}/activate`), {
    token: session.operatorToken,
  });
  expect(activated.body.status).toBe('ACTIVE');
  return created.body.id;
}

/** A scooter rental row of `minutes` driving from `start` to `end` (as the workflow leaves it). */
async function rentalRow(
  customerId: number,
  minutes: number,
  positions: { start: { lat: number; lng: number }; end?: { lat: number; lng: number } },
) {
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
    const ended = positions.end !== undefined;
    em.create(Rental, {
      id,
      workflowId: `geofence-pricing-${id}`,
      state: ended ? 'ENDED' : 'ACTIVE',
      activeMode: ended ? null : 'DRIVING',
      branch: em.getReference(Branch, session.seed.branchId),
      vehicle: em.getReference(Vehicle, vehicle.id),
      customer: em.getReference(Customer, customerId),
      reservedAt: new Date(start),
      startedAt: new Date(start),
      startPosition: positions.start,
      endedAt: ended ? new Date(start + minutes * 60_000) : null,
      endPosition: positions.end ?? null,
      pricingBundleVersion: em.getReference(PricingBundleVersion, version.id),
      phases: [
        {
          phase: 'DRIVING',
          startedAt: new Date(start).toISOString(),
          endedAt: ended ? new Date(start + minutes * 60_000).toISOString() : null,
        },
      ],
    });
    return { id, categoryId: category.id };
  });
}

/** The END billing in a transaction of its own (a retry is another call). */
function bill(rentalId: number, key: string) {
  return inTenantTransaction(session.stack.backend.orm, tenant(), async (em) => {
    return finaliseRentalBilling(em, tenant(), rentalId, { at: new Date(), idempotencyKey: key });
  });
}

const linesOf = (price: PriceResult['priceV4'], group: string) =>
  price.lines.filter((line) => line.group === group);
const geofenceVouchers = (rentalId: number) =>
  session
    .em()
    .find(
      Voucher,
      { sourceKind: 'PROMOTION', sourceReference: { $like: `geofence:%:rental:${rentalId}` } },
      { refresh: true, orderBy: { id: 'asc' } },
    );

let promotion: number;
let surcharge: number;

beforeAll(async () => {
  promotion = await geofenceTemplate('GeoFencePromotion', promotionSpot, [
    { type: 'Discount', amount: '0.2' },
  ]);
  surcharge = await geofenceTemplate('GeoFenceSurcharge', surchargeSpot, [
    { type: 'RentalRebate', amount: '1.50' },
  ]);
});

describe('a rental starting in a promotion zone and ending in a surcharge zone', () => {
  test('its price and invoice show the surcharge and the promotion as lines, granted and taken once', async () => {
    const [, ben] = session.seed.customerIds as [number, number];
    const { id } = await rentalRow(ben, 20, { start: promotionSpot, end: surchargeSpot });
    const plain = await priceRental(session.em(), await session.em().findOneOrFail(Rental, id), Date.now());
    const billed = await bill(id, 'geofence-end');
    const priceV4 = billed.price.priceV4;
    const [surchargeLine] = linesOf(priceV4, 'SURCHARGE');
    const [discountLine] = linesOf(priceV4, 'BENEFIT');
    const granted = await geofenceVouchers(id);
    expect(granted.map((voucher) => [voucher.voucherable.id, voucher.customerId])).toEqual([
      [promotion, ben],
      [surcharge, ben],
    ]);
    const [promotionVoucher, surchargeVoucher] = granted;
    expect(surchargeLine).toMatchObject({
      code: `SURCHARGE_V${surchargeVoucher!.id}`,
      gross: '1.50',
      description: 'Surcharge (GeoFenceSurcharge zone)',
    });
    // The promotion's 20 % applies to the ride, not to the surcharge.
    const ride = new Decimal(plain.priceV4.totals.gross);
    const off = ride.times('0.2').toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    expect(discountLine).toMatchObject({
      code: `DISCOUNT_V${promotionVoucher!.id}`,
      gross: off.negated().toFixed(2),
    });
    expect(priceV4.totals.gross).toBe(ride.plus('1.50').minus(off).toFixed(2));
    expect(billed.price.priceV3.groups.map((group) => group.group)).toEqual(
      expect.arrayContaining(['SURCHARGE', 'BENEFIT']),
    );
    // The invoice carries both lines.
    const stored = await session
      .em()
      .find(InvoiceLine, { invoice: billed.invoiceId! }, { orderBy: { id: 'asc' } });
    expect(
      stored
        .filter((line) => line.group === 'SURCHARGE' || line.group === 'BENEFIT')
        .map((line) => [line.code, new Decimal(line.gross).toFixed(2)]),
    ).toEqual([
      [surchargeLine!.code, '1.50'],
      [discountLine!.code, off.negated().toFixed(2)],
    ]);
    // Closed once the price was written: they served this rental.
    expect(granted.map((voucher) => voucher.status)).toEqual(['USED_UP', 'USED_UP']);
    const consumed = await session.em().find(VoucherConsumption, { idempotencyKey: rentalBenefitKey(id) });
    expect(consumed.map((row) => row.voucher.id)).toEqual([promotionVoucher!.id]);

    // A repeated billing grants nothing more and gives the same price.
    const again = await bill(id, 'geofence-end-retried');
    expect(again.price.priceV4).toEqual(priceV4);
    expect(again.invoiceId).toBe(billed.invoiceId!);
    expect(await geofenceVouchers(id)).toHaveLength(2);
    expect(await session.em().count(VoucherConsumption, { idempotencyKey: rentalBenefitKey(id) })).toBe(1);

    // The customer's next rental, elsewhere, gets neither.
    const next = await rentalRow(ben, 20, { start: nowhere, end: nowhere });
    const nextBilled = await bill(next.id, 'geofence-next');
    expect(linesOf(nextBilled.price.priceV4, 'SURCHARGE')).toEqual([]);
    expect(linesOf(nextBilled.price.priceV4, 'BENEFIT')).toEqual([]);
    expect(await geofenceVouchers(next.id)).toEqual([]);
  });

  test('a zone whose window is closed now, or whose customer gate the customer fails, adds nothing', async () => {
    const [, , clara] = session.seed.customerIds as [number, number, number];
    // Open only on a weekday three days away (whole days, so never today in any time zone).
    const day = weekdays[(((new Date().getUTCDay() + 6) % 7) + 3) % 7]!;
    await geofenceTemplate('GeoFenceSurcharge', closedSpot, [{ type: 'RentalRebate', amount: '2.00' }], {
      weekdays: [day],
    });
    const annotation = await call('POST', back('/annotations'), {
      token: session.operatorToken,
      body: { branchId: session.seed.branchId, name: `Zone VIPs ${Date.now()}`, type: 'TAG' },
    });
    expect([annotation.status, annotation.body.errorCode]).toEqual([201, undefined]);
    await geofenceTemplate('GeoFencePromotion', gatedSpot, [{ type: 'RentalRebate', amount: '3.00' }], {
      guserRequiredAnnotationIds: [annotation.body.id],
    });
    const { id } = await rentalRow(clara, 15, { start: gatedSpot, end: closedSpot });
    const billed = await bill(id, 'geofence-closed');
    expect(linesOf(billed.price.priceV4, 'SURCHARGE')).toEqual([]);
    expect(linesOf(billed.price.priceV4, 'BENEFIT')).toEqual([]);
    expect(await geofenceVouchers(id)).toEqual([]);
  });
});

describe('an open rental that started in a promotion zone', () => {
  test('its estimate shows the promotion granted at the start; nothing is taken until the end', async () => {
    const [, , , deniz] = session.seed.customerIds as [number, number, number, number];
    const { id, categoryId } = await rentalRow(deniz, 10, { start: promotionSpot });
    // What the START step does once the rental's start position is recorded.
    await inTenantTransaction(session.stack.backend.orm, tenant(), (em) =>
      grantRentalGeofenceVouchers(
        em,
        {
          rentalId: id,
          customerId: deniz,
          branchId: session.seed.branchId,
          vehicleCategoryId: categoryId,
          start: { position: promotionSpot, at: new Date() },
        },
        new Date(),
      ),
    );
    const [granted] = await geofenceVouchers(id);
    expect(granted).toMatchObject({ status: 'ACTIVE', customerId: deniz });
    const estimate = await priceRental(
      session.em(),
      await session.em().findOneOrFail(Rental, id),
      Date.now(),
    );
    expect(linesOf(estimate.priceV4, 'BENEFIT').map((line) => line.code)).toEqual([
      `DISCOUNT_V${granted!.id}`,
    ]);
    expect(await session.em().count(VoucherConsumption, { voucher: granted!.id })).toBe(0);
    // The overview over HTTP shows the same.
    const overview = await call('GET', back(`/rentals/${id}/billing-overview`), {
      token: session.operatorToken,
    });
    expect(overview.status).toBe(200);
    expect(JSON.stringify(overview.body)).toContain(`DISCOUNT_V${granted!.id}`);
  });
});

describe('configuration', () => {
  test('a surcharge is a fixed amount (RentalRebate) or a fraction (Discount): VA105 otherwise', async () => {
    const refused = await call('POST', back('/voucherables'), {
      token: session.operatorToken,
      body: {
        branchId: session.seed.branchId,
        type: 'GeoFenceSurcharge',
        name: 'Free minutes are no surcharge',
        benefits: [{ type: 'FreeMinutes', amount: '10' }],
        geofence: zone(surchargeSpot.lat, surchargeSpot.lng),
        weekdays: ['MONDAY'],
        recurrenceStart: '2026-01-01T00:00:00Z',
        durationMinutes: 60,
      },
    });
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'VA105']);
  });
});
