// Demo pricing: an on-demand bundle per demo category (one of each free-floating mode) and a booking
// bundle with night and weekend rates, published and assigned so the simulators answer out of the box.
import type { EntityManager } from '@mikro-orm/postgresql';
import { PricingAssignment } from '../entities/PricingAssignment.js';
import { PricingBundle } from '../entities/PricingBundle.js';
import { PricingBundleVersion } from '../entities/PricingBundleVersion.js';
import { type Branch } from '../entities/Branch.js';
import { type BusinessUnit } from '../entities/BusinessUnit.js';
import { type Tenant } from '../entities/Tenant.js';
import { type VehicleCategory } from '../entities/VehicleCategory.js';
import { validatePricingRules } from '../../domain/pricing-validation.js';
import type { PricingBundleType, PricingRules } from '../../domain/pricing.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** Demo prices apply from this date, so simulations of past dates work too. */
export const DEMO_PRICING_EFFECTIVE_FROM = new Date('2020-01-01T00:00:00Z');

/** Rules of the demo scooter bundle: per-minute, cheaper the longer the ride (each period at its own rate). */
export const demoScooterRules: PricingRules = {
  pricesIncludeTax: true,
  freeFloatingPricingMode: 'CUMULATIVE_TIMESLOTS',
  onDemand: {
    unlockFee: '1.00',
    reservationPerMinute: '0.15',
    timeSlots: [
      { fromMinute: 0, drivingPerMinute: '0.25', parkingPerMinute: '0.10' },
      { fromMinute: 30, drivingPerMinute: '0.20', parkingPerMinute: '0.08' },
      { fromMinute: 120, drivingPerMinute: '0.15', parkingPerMinute: '0.05' },
    ],
    distancePerUnit: '0',
    includedDistance: 0,
    billingIncrementMinutes: 1,
    minimumPrice: '1.50',
  },
  booking: null,
};

/** Rules of the demo car bundle: the slot reached by the rental's length prices all of it. */
export const demoCarRules: PricingRules = {
  pricesIncludeTax: true,
  freeFloatingPricingMode: 'ENDING_TIMESLOT',
  onDemand: {
    unlockFee: '0',
    reservationPerMinute: '0.10',
    timeSlots: [
      { fromMinute: 0, drivingPerMinute: '0.39', parkingPerMinute: '0.19' },
      { fromMinute: 60, drivingPerMinute: '0.34', parkingPerMinute: '0.17' },
      { fromMinute: 240, drivingPerMinute: '0.29', parkingPerMinute: '0.12' },
    ],
    distancePerUnit: '0.29',
    includedDistance: 50,
    billingIncrementMinutes: 1,
    minimumPrice: '0',
  },
  booking: null,
};

/** Rules of the demo car booking bundle: base, night and weekend hourly rates, extras and penalties. */
export const demoCarBookingRules: PricingRules = {
  pricesIncludeTax: true,
  freeFloatingPricingMode: null,
  onDemand: null,
  booking: {
    hourlyRate: '9.00',
    unlockFee: '0',
    distancePerUnit: '0.25',
    includedDistancePerDay: 150,
    nightRate: { startLocalTime: '22:00', endLocalTime: '06:00', hourlyRate: '3.00' },
    weekendHourlyRate: '11.00',
    adaptiveRates: [
      { minimumHours: 24, factor: '0.85' },
      { minimumHours: 72, factor: '0.7' },
    ],
    additions: [
      { code: 'CHILD_SEAT', name: 'Child seat', price: '5.00', per: 'DAY' },
      { code: 'FULL_INSURANCE', name: 'Full insurance', price: '12.00', per: 'DAY' },
      { code: 'CLEANING', name: 'Cleaning', price: '15.00', per: 'BOOKING' },
    ],
    cancellation: { cancellable: true, freeUntilMinutesBefore: 1440, fee: '20.00' },
    lateReturn: { graceMinutes: 15, hourlyRate: '25.00' },
    billingIncrementMinutes: 15,
  },
};

/** Seeds the demo bundles into a tenant being seeded (same transaction), assigned on the given branch. */
export function seedPricing(
  tx: EntityManager,
  seed: {
    tenant: Tenant;
    businessUnit: BusinessUnit;
    branch: Branch;
    scooters: VehicleCategory;
    cars: VehicleCategory;
  },
): void {
  const { tenant, businessUnit, branch } = seed;
  const publish = (name: string, type: PricingBundleType, rules: PricingRules, category: VehicleCategory) => {
    validatePricingRules(type, rules);
    const bundle = tx.create(PricingBundle, {
      tenant,
      businessUnit,
      name,
      type,
      currency: businessUnit.currency,
      distanceUnit: 'KILOMETER',
    });
    tx.create(PricingBundleVersion, {
      tenant,
      bundle,
      version: 1,
      status: 'PUBLISHED',
      rules,
      notes: 'Demo prices',
      effectiveFrom: DEMO_PRICING_EFFECTIVE_FROM,
      publishedAt: DEMO_PRICING_EFFECTIVE_FROM,
      publishedBy: 'seed',
    });
    tx.create(PricingAssignment, {
      tenant,
      branch,
      vehicleCategory: category,
      bundle,
      bundleType: type,
      createdBy: 'seed',
    });
  };
  publish('E-Scooter per minute', 'ON_DEMAND_LEGACY', demoScooterRules, seed.scooters);
  publish('Compact car per minute', 'ON_DEMAND_LEGACY', demoCarRules, seed.cars);
  publish('Compact car booking', 'BOOKING', demoCarBookingRules, seed.cars);
}

/** The demo bundles, assigned on the city branch. */
export const pricingSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    seedPricing(tx, {
      tenant: fromBoard(board, 'tenant'),
      businessUnit: fromBoard(board, 'businessUnit'),
      branch: fromBoard(board, 'city'),
      scooters: fromBoard(board, 'scooters'),
      cars: fromBoard(board, 'cars'),
    });
  },
};
