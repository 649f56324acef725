// Demo and test data of the vouchers part of the benefits domain: one ACTIVE voucherable of each of the
// twelve types in the demo business unit (a promotion with the code SPRING10 and a redeemable code
// FREERIDE, a sign-up referral template so every customer's referral code — `referralCodeOf(id)`, e.g.
// Anna's — grants a welcome credit and thanks the referrer, a package, a geofence promotion and a night
// surcharge over the Berlin Mitte business area, …), two annotations (Students, Staff), and Ben tagged
// as a student. Runs after the flush, once the areas exist. The subscriptions' own demo (plans with a
// subscribed customer) is the SUBSCRIPTIONS part's seed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Annotation } from '../entities/Annotation.js';
import { AnnotationAssignment } from '../entities/AnnotationAssignment.js';
import { Area } from '../entities/Area.js';
import { Reward } from '../entities/Reward.js';
import { VoucherCode } from '../entities/VoucherCode.js';
import { Voucherable } from '../entities/Voucherable.js';
import type { Benefit, VoucherableType } from '../../domain/benefits.js';
import type { GeofenceGeometry } from '../../domain/geofence.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

declare module './board.js' {
  interface SeedBoard {
    /** The demo voucherables by type (one each). */
    voucherables?: Partial<Record<VoucherableType, Voucherable>>;
  }
}

/** A small demo zone inside the Berlin Mitte business area ([lng, lat]), clear of the demo vehicles. */
const museumIsland: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [13.3955, 52.5185],
        [13.4005, 52.5185],
        [13.4005, 52.5225],
        [13.3955, 52.5225],
        [13.3955, 52.5185],
      ],
    ],
  ],
};

const everyDay = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

/** The demo templates: type, name, code and what they grant. */
function demoTemplates(geofence: GeofenceGeometry | null): {
  type: VoucherableType;
  name: string;
  code?: string;
  benefits: Benefit[];
  extra?: Partial<Voucherable>;
}[] {
  return [
    {
      type: 'Promotion',
      name: 'Spring: 10 % off driving',
      code: 'SPRING10',
      benefits: [{ type: 'Discount', amount: '0.1', applicablePriceType: 'DRIVING_PRICE' }],
      extra: { validityPeriod: 30, validityTimeUnit: 'DAYS', maxRedeems: 1000 },
    },
    ...(geofence
      ? [
          {
            type: 'GeoFencePromotion' as const,
            name: 'Mitte mornings: 20 % off',
            benefits: [{ type: 'Discount' as const, amount: '0.2' }],
            extra: {
              geofence,
              weekdays: [...everyDay],
              recurrenceStart: new Date('2026-01-01T06:00:00Z'),
              durationMinutes: 180,
              showInUserApp: true,
            },
          },
          {
            type: 'GeoFenceSurcharge' as const,
            name: 'Mitte Saturday night',
            benefits: [{ type: 'RentalRebate' as const, amount: '1.00' }],
            extra: {
              geofence,
              weekdays: ['SATURDAY' as const],
              recurrenceStart: new Date('2026-01-03T21:00:00Z'),
              durationMinutes: 360,
              showInUserApp: true,
            },
          },
        ]
      : []),
    {
      type: 'Package',
      name: 'Starter package: 60 free minutes',
      code: 'STARTER60',
      benefits: [{ type: 'FreeMinutes', amount: '60', validityPeriod: 3, validityTimeUnit: 'MONTHS' }],
      extra: { price: '9.90', initial: true, showInUserApp: true },
    },
    {
      type: 'Subscription',
      name: 'Demo monthly plan (template)',
      code: 'DEMO-MONTHLY',
      benefits: [
        { type: 'FreeUnlocks', amount: '10', applicablePriceType: 'UNLOCK_FEE' },
        { type: 'Discount', amount: '0.15', applicablePriceType: 'TIME_PRICE' },
      ],
      extra: { price: '19.90', interval: 'MONTHLY', showInUserApp: true },
    },
    {
      type: 'Reward',
      name: 'Thanks for parking at the station',
      benefits: [{ type: 'RentalRebate', amount: '1.50', numberOfRentals: 1 }],
    },
    {
      type: 'SignupReferral',
      name: 'Welcome: 5 EUR credit',
      code: 'WELCOME5',
      benefits: [{ type: 'Value', amount: '5.00' }],
      extra: { maxRedeems: 20 },
    },
    {
      type: 'Triggered',
      name: 'Tenth ride free unlock',
      benefits: [{ type: 'FreeUnlocks', amount: '1', applicablePriceType: 'UNLOCK_FEE' }],
    },
    {
      type: 'CustomerCare',
      name: 'Sorry for the trouble',
      benefits: [
        { type: 'Value', amount: '10.00' },
        { type: 'FreeMinutes', amount: '15', validityPeriod: 14, validityTimeUnit: 'DAYS' },
      ],
    },
    {
      type: 'VehiclePromotion',
      name: 'Try a car: 2 EUR off',
      benefits: [{ type: 'RentalRebate', amount: '2.00', numberOfRentals: 1 }],
      extra: { showInUserApp: true },
    },
    {
      type: 'RidePass',
      name: 'Day pass: 120 minutes',
      code: 'DAYPASS',
      benefits: [{ type: 'FreeMinutes', amount: '120', validityPeriod: 24, validityTimeUnit: 'HOURS' }],
      extra: { price: '12.00', showInUserApp: true },
    },
    {
      type: 'PricedPromotion',
      name: 'Weekend unlock bundle',
      benefits: [{ type: 'FreeUnlocks', amount: '5', applicablePriceType: 'UNLOCK_FEE' }],
      extra: { price: '3.00' },
    },
  ];
}

/** The templates, codes and annotations; after the flush, reading the business area back. */
export async function seedBenefits(tx: EntityManager, board: SeedBoard): Promise<void> {
  const tenant = fromBoard(board, 'tenant');
  const unit = fromBoard(board, 'businessUnit');
  const district = fromBoard(board, 'district');
  const area = await tx.findOne(
    Area,
    { tenant: tenant.id, name: 'Berlin Mitte business area' },
    { filters: false },
  );
  const createdBy = 'seed';
  const templates: Partial<Record<VoucherableType, Voucherable>> = {};
  // The geofence promotion and surcharge cover a small zone inside the business area (Museum Island),
  // where no demo vehicle stands: they price only rentals starting or ending there, in their window.
  for (const spec of demoTemplates(area ? museumIsland : null)) {
    templates[spec.type] = tx.create(Voucherable, {
      tenant,
      branchId: district.id,
      businessUnitId: unit.id,
      type: spec.type,
      status: 'ACTIVE',
      code: spec.code ?? null,
      name: spec.name,
      currency: unit.currency,
      benefits: spec.benefits,
      createdBy,
      ...spec.extra,
    });
  }
  await tx.flush();
  // The referral template thanks the referrer with the Reward template.
  templates.SignupReferral!.referrerVoucherableId = templates.Reward!.id;
  tx.create(VoucherCode, {
    tenant,
    voucherable: templates.Promotion!,
    businessUnitId: unit.id,
    code: 'FREERIDE',
    maxRedeems: 500,
    createdBy,
  });
  tx.create(Reward, {
    tenant,
    branchId: district.id,
    businessUnitId: unit.id,
    code: 'PARKHERE',
    name: 'Park at the Rosenthaler Platz dock',
    voucherable: templates.Reward!,
    createdBy,
  });
  const students = tx.create(Annotation, {
    tenant,
    businessUnitId: unit.id,
    type: 'TAG',
    name: 'Students',
    createdBy,
  });
  tx.create(Annotation, { tenant, businessUnitId: unit.id, type: 'LABEL', name: 'Staff', createdBy });
  await tx.flush();
  const ben = board.customers?.[1];
  if (ben) tx.create(AnnotationAssignment, { tenant, customerId: ben.id, annotation: students, createdBy });
  await tx.flush();
  board.voucherables = templates;
}

export const benefitSeed: DomainSeed = { afterFlush: seedBenefits };
