import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import { decimalPattern } from '../../../domain/pricing.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { DateTime, Id, Int, Str } from '../../kernel/schemas.js';
import {
  BookingEstimate,
  Estimate,
  bookingEstimate,
  callerEstimateBenefits,
  freeFloatingEstimate,
  resolveSimulatedVersion,
  SimulatorQuery,
  simulateFromQuery,
  usageEndMs,
} from '../../shared/pricing-estimates.js';

const tags = ['Pricing'];
const appAccess = {
  anyCaller:
    'estimates from published prices of the tenant only (drafts are refused); a signed-in customer’s own applicable vouchers apply (read only), nothing about other customers is read.',
};
const estimateErrors = ['B404', 'ODP100', 'ODP101', 'ODP104', 'ODP106', 'ODP110', 'ODP111'] as const;

export const appPricingCalculator = defineRoute({
  operationId: 'appPricingCalculator',
  method: 'get',
  path: '/pricing-bundles/pricing-calculator',
  interface: 'front',
  summary: 'Estimate an on-demand rental of a category at a branch (published prices applying now)',
  tags,
  query: Type.Object({
    branchId: Id(),
    vehicleCategoryId: Id(),
    reservationPaidMinutes: Type.Optional(Int(0, 1440)),
    drivingMinutes: Type.Optional(Int(0, 44_640)),
    parkingMinutes: Type.Optional(Int(0, 44_640)),
    distance: Type.Optional(Str(20, { pattern: decimalPattern })),
  }),
  access: appAccess,
  responses: { 200: { description: 'An estimate', schema: Estimate } },
  errors: [...estimateErrors],
  async handler(ctx) {
    const { query } = ctx;
    const now = new Date();
    const resolved = await resolveSimulatedVersion(ctx, {
      branchId: query.branchId,
      vehicleCategoryId: query.vehicleCategoryId,
      bundleType: 'ON_DEMAND_LEGACY',
      at: now,
      draftsAllowed: false,
    });
    const usage = {
      startMs: now.getTime(),
      reservationFreeMinutes: 0,
      reservationPaidMinutes: query.reservationPaidMinutes ?? 0,
      phases: [
        { phase: 'DRIVING' as const, minutes: query.drivingMinutes ?? 0 },
        { phase: 'PARKING' as const, minutes: query.parkingMinutes ?? 0 },
      ],
      distance: query.distance ?? '0',
    };
    const benefits = await callerEstimateBenefits(ctx, {
      branchId: query.branchId,
      vehicleCategoryId: query.vehicleCategoryId,
      at: new Date(usageEndMs(usage)),
    });
    return ok(freeFloatingEstimate(resolved, usage, benefits));
  },
});

export const appPricingSimulator = defineRoute({
  operationId: 'appPricingSimulator',
  method: 'get',
  path: '/pricing-bundles/pricing-simulator',
  interface: 'front',
  summary: 'Estimate on-demand minutes or a booking window for a bundle or a branch and category',
  tags,
  query: SimulatorQuery,
  access: appAccess,
  responses: { 200: { description: 'An estimate', schema: BookingEstimate } },
  errors: [...estimateErrors],
  async handler(ctx) {
    return ok(await simulateFromQuery(ctx, false, true));
  },
});

export const bookingPriceCalculator = defineRoute({
  operationId: 'bookingPriceCalculator',
  method: 'get',
  path: '/booking-price-calculator',
  interface: 'front',
  summary: 'Estimate a booking: branch, category or bundle, window, additions and distance',
  description:
    '`userGroupCode` is accepted (deprecated; the spec’s group pricing is not modelled, so it does not change the estimate). `version` pins a published version number of the bundle.',
  tags,
  query: Type.Object({
    branchId: Id(),
    vehicleCategoryId: Type.Optional(Id()),
    pricingBundleId: Type.Optional(Id()),
    startTime: DateTime(),
    endTime: DateTime(),
    additions: Type.Optional(Type.Array(Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }), { maxItems: 50 })),
    distance: Type.Optional(Str(20, { pattern: decimalPattern })),
    userGroupCode: Type.Optional(Str(64, { minLength: 1, deprecated: true })),
    version: Type.Optional(Int(1, 1_000_000, { description: 'Version number within the bundle.' })),
  }),
  access: appAccess,
  responses: { 200: { description: 'An estimate with cancellation terms', schema: BookingEstimate } },
  errors: [...estimateErrors],
  async handler(ctx) {
    const { query } = ctx;
    if (query.vehicleCategoryId === undefined && query.pricingBundleId === undefined)
      throw new DomainError('ODP111', 'give vehicleCategoryId or pricingBundleId');
    const now = new Date();
    const resolved = await resolveSimulatedVersion(ctx, {
      branchId: query.branchId,
      vehicleCategoryId: query.vehicleCategoryId,
      pricingBundleId: query.pricingBundleId,
      versionNumber: query.version,
      bundleType: 'BOOKING',
      at: now,
      draftsAllowed: false,
    });
    const endMs = Date.parse(query.endTime);
    const benefits = await callerEstimateBenefits(ctx, {
      branchId: query.branchId,
      vehicleCategoryId: query.vehicleCategoryId,
      at: new Date(Math.max(now.getTime(), Number.isSafeInteger(endMs) ? endMs : 0)),
    });
    return ok(
      bookingEstimate(
        resolved,
        {
          startMs: Date.parse(query.startTime),
          endMs,
          reservedAtMs: now.getTime(),
          distance: query.distance ?? '0',
          additions: query.additions ?? [],
        },
        benefits,
      ),
    );
  },
});

export const appPricingRoutes = [appPricingCalculator, appPricingSimulator, bookingPriceCalculator];
