// The operator's pricing simulators: any version, drafts included, so a draft can be tried before it is
// published. The estimate by query (GET /pricing-bundles/pricing-simulator) is with the bundles.
import { Type } from '@sinclair/typebox';
import { decimalPattern } from '../../../domain/pricing.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Str, StringEnum } from '../../kernel/schemas.js';
import {
  bookingEstimate,
  BookingEstimate,
  Estimate,
  freeFloatingEstimate,
  instant,
  resolveSimulatedVersion,
} from '../../shared/pricing-estimates.js';
import { branchUnit } from './pricing-representation.js';

const tags = ['Pricing Bundles'];

const SimulatorTarget = {
  branchId: Id({ description: 'Branch whose business unit gives tax, rounding and time zone.' }),
  vehicleCategoryId: Type.Optional(
    Id({ description: 'Use the bundle assigned to this category at the branch.' }),
  ),
  pricingBundleId: Type.Optional(Id({ description: 'Or name the bundle directly.' })),
  pricingBundleVersionId: Type.Optional(
    Id({ description: 'A version of that bundle, drafts included; default: the one applying at startTime.' }),
  ),
};

const FreeFloatingSimulation = component(
  'FreeFloatingPricingSimulation',
  Type.Object(
    {
      ...SimulatorTarget,
      startTime: Type.Optional(DateTime({ description: 'When the reservation starts; default now.' })),
      reservationFreeMinutes: Type.Optional(Int(0, 1440, { default: 0 })),
      reservationPaidMinutes: Type.Optional(Int(0, 1440, { default: 0 })),
      phases: Type.Array(
        Type.Object(
          { phase: StringEnum(['DRIVING', 'PARKING'] as const), minutes: Int(0, 44_640) },
          { additionalProperties: false },
        ),
        { maxItems: 500, description: 'The rental after its reservation, in order.' },
      ),
      distance: Type.Optional(Str(20, { pattern: decimalPattern, default: '0' })),
    },
    { additionalProperties: false },
  ),
);

const BookingSimulation = component(
  'BookingPricingSimulation',
  Type.Object(
    {
      ...SimulatorTarget,
      startTime: DateTime(),
      endTime: DateTime(),
      returnTime: Type.Optional(DateTime({ description: 'Actual return, for the late-return penalty.' })),
      reservationTime: Type.Optional(
        DateTime({ description: 'When the booking is made (cancellation terms); default now.' }),
      ),
      distance: Type.Optional(Str(20, { pattern: decimalPattern, default: '0' })),
      additions: Type.Optional(Type.Array(Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }), { maxItems: 50 })),
    },
    { additionalProperties: false },
  ),
);

const simulatorAccess = {
  permission: 'PRICING_READ',
  businessUnitOf: 'the business unit of body field branchId',
  businessUnit: (ctx: RouteContext<unknown, unknown, { branchId: number }>) =>
    branchUnit(ctx, ctx.body.branchId),
};

export const simulateFreeFloatingPrice = defineRoute({
  operationId: 'simulateFreeFloatingPrice',
  method: 'post',
  path: '/pricing-simulator/free-floating',
  interface: 'back',
  summary: 'Estimate an on-demand rental: reservation, then driving and parking phases',
  tags,
  body: FreeFloatingSimulation,
  access: simulatorAccess,
  responses: { 200: { description: 'An estimate', schema: Estimate } },
  errors: ['B404', 'ODP100', 'ODP101', 'ODP104', 'ODP106', 'ODP110', 'ODP111'],
  async handler(ctx) {
    const { body } = ctx;
    const start = instant(body.startTime);
    const resolved = await resolveSimulatedVersion(ctx, {
      ...body,
      bundleType: 'ON_DEMAND_LEGACY',
      at: start,
      draftsAllowed: true,
    });
    return ok(
      freeFloatingEstimate(resolved, {
        startMs: start.getTime(),
        reservationFreeMinutes: body.reservationFreeMinutes ?? 0,
        reservationPaidMinutes: body.reservationPaidMinutes ?? 0,
        phases: body.phases,
        distance: body.distance ?? '0',
      }),
    );
  },
});

export const simulateBookingPrice = defineRoute({
  operationId: 'simulateBookingPrice',
  method: 'post',
  path: '/pricing-simulator/booking',
  interface: 'back',
  summary: 'Estimate a booking, with its cancellation terms',
  tags,
  body: BookingSimulation,
  access: simulatorAccess,
  responses: { 200: { description: 'An estimate', schema: BookingEstimate } },
  errors: ['B404', 'ODP100', 'ODP101', 'ODP104', 'ODP106', 'ODP110', 'ODP111'],
  async handler(ctx) {
    const { body } = ctx;
    const reservedAt = instant(body.reservationTime);
    const resolved = await resolveSimulatedVersion(ctx, {
      ...body,
      bundleType: 'BOOKING',
      at: reservedAt,
      draftsAllowed: true,
    });
    return ok(
      bookingEstimate(resolved, {
        startMs: Date.parse(body.startTime),
        endMs: Date.parse(body.endTime),
        returnedAtMs: body.returnTime ? Date.parse(body.returnTime) : undefined,
        reservedAtMs: reservedAt.getTime(),
        distance: body.distance ?? '0',
        additions: body.additions ?? [],
      }),
    );
  },
});

export const pricingSimulatorRoutes = [simulateFreeFloatingPrice, simulateBookingPrice];
