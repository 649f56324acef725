// Price estimates, which both interfaces use (the operator's simulators, the app's calculators): the
// response schemas of the three price shapes, which version prices a request, the engine call that
// produces the estimate, and the query of GET .../pricing-simulator that both interfaces serve.
import { Type, type Static } from '@sinclair/typebox';
import { PricingBundleVersion } from '../../db/entities/PricingBundleVersion.js';
import {
  assignedPricing,
  businessUnitOfBranch,
  loadPricingBundle,
  loadPricingVersion,
  pricedVersion,
  taxContextOf,
  versionApplyingAt,
  type ResolvedPricing,
} from '../../db/pricing.js';
import { DomainError } from '../../domain/errors.js';
import { bookingCancellation } from '../../domain/pricing-fees.js';
import {
  decimalPattern,
  priceLineGroups,
  pricePhases,
  pricingBundleTypes,
  pricingVersionStatuses,
  type PhaseSpan,
  type PriceResult,
  type PricingBundleType,
} from '../../domain/pricing.js';
import { bookingLines, priceBooking } from '../../domain/pricing-booking.js';
import { onDemandRentalLines, priceOnDemandRental } from '../../domain/pricing-on-demand.js';
import { priceWithBenefits, type PricingBenefit } from '../../domain/pricing-benefits.js';
import { estimateBenefitsOf } from '../../db/pricing-benefits.js';
import type { RouteContext } from '../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../kernel/schemas.js';

const Money = (description: string) => Type.String({ description: `${description} Decimal string.` });

export const PricingVersionRef = component(
  'PricingBundleVersionRef',
  Type.Object(
    {
      pricingBundleId: Type.Integer(),
      pricingBundleVersionId: Type.Integer(),
      version: Type.Integer(),
      name: Type.String(),
    },
    {
      additionalProperties: false,
      description: 'The rules that priced this (the spec’s pricingBundleVersion).',
    },
  ),
);

const PriceLineGroup = component('PriceLineGroup', StringEnum(priceLineGroups));

export const Price = component(
  'Price',
  Type.Object(
    { total: Money('Gross total.'), currency: Type.String(), pricingBundleVersion: PricingVersionRef },
    { additionalProperties: false, description: 'Simplified total.' },
  ),
);

export const PriceV3 = component(
  'PriceV3',
  Type.Object(
    {
      currency: Type.String(),
      groups: Type.Array(
        Type.Object(
          {
            group: PriceLineGroup,
            amount: Money('Gross sum of the group.'),
            lines: Type.Array(
              Type.Object(
                {
                  code: Type.String(),
                  description: Type.String(),
                  quantity: Type.String(),
                  unit: Type.String(),
                  amount: Money('Gross.'),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ),
      total: Money('Gross total.'),
      taxPercentage: Type.String(),
      taxAmount: Money('Tax included in the total.'),
      pricingBundleVersion: PricingVersionRef,
    },
    { additionalProperties: false, description: 'Grouped breakdown with a single tax view.' },
  ),
);

export const PriceV4 = component(
  'PriceV4',
  Type.Object(
    {
      currency: Type.String(),
      lines: Type.Array(
        Type.Object(
          {
            code: Type.String(),
            group: PriceLineGroup,
            phase: Nullable(StringEnum(pricePhases)),
            description: Type.String(),
            quantity: Type.String(),
            unit: Type.String(),
            unitPrice: Type.String(),
            net: Money('Net.'),
            tax: Money('Tax.'),
            gross: Money('Gross.'),
            taxPercentage: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
      taxes: Type.Array(
        Type.Object(
          { taxPercentage: Type.String(), net: Type.String(), tax: Type.String(), gross: Type.String() },
          { additionalProperties: false },
        ),
      ),
      totals: Type.Object(
        { net: Money('Net.'), tax: Money('Tax.'), gross: Money('Gross.') },
        { additionalProperties: false },
      ),
      pricingBundleVersion: PricingVersionRef,
    },
    {
      additionalProperties: false,
      description: 'Lines with the tax split; totals are the sums of the lines.',
    },
  ),
);

const estimateFields = {
  estimate: Type.Literal(true, { description: 'Always true: an estimate, not a charge.' }),
  pricingBundleVersion: PricingVersionRef,
  versionStatus: StringEnum(pricingVersionStatuses),
  price: Price,
  priceV3: PriceV3,
  priceV4: PriceV4,
};

export const Estimate = component(
  'PriceEstimate',
  Type.Object(estimateFields, {
    additionalProperties: false,
    description: 'A price estimate in three shapes.',
  }),
);

export const BookingEstimate = component(
  'BookingPriceEstimate',
  Type.Object(
    {
      ...estimateFields,
      cancellationInformation: Type.Optional(
        Type.Object(
          {
            cancellable: Type.Boolean(),
            freeCancellationDeadline: DateTime(),
            estimatedFee: Money(
              'Fee if cancelled at the reservation time; present even when not cancellable.',
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    {
      additionalProperties: false,
      description: 'A booking estimate; cancellation terms for booking bundles.',
    },
  ),
);

/** An instant from a validated date-time string; one the calendar does not have (leap second, 30 February) is ODP111. */
export function instant(value: string | undefined, fallback: Date = new Date()): Date {
  if (value === undefined) return fallback;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new DomainError('ODP111', `${value} is not a valid instant`);
  return parsed;
}

/** The business unit behind a branch, loaded once per request (the access check and the handler share it). */
export const branchUnitOf = (ctx: RouteContext, branchId: number) =>
  ctx.once(`branch-unit:${branchId}`, () => businessUnitOfBranch(ctx.em, branchId));

/** Which bundle and version price a simulation: a named bundle, or the one assigned to the category. */
export async function resolveSimulatedVersion(
  ctx: RouteContext,
  target: {
    branchId: number;
    vehicleCategoryId?: number;
    pricingBundleId?: number;
    pricingBundleVersionId?: number;
    /** A version number within the bundle (the app's `version`). */
    versionNumber?: number;
    bundleType: PricingBundleType;
    at: Date;
    /** Operators may simulate drafts; app callers see published versions only. */
    draftsAllowed: boolean;
  },
): Promise<ResolvedPricing> {
  const { em, tenant } = ctx;
  const unit = await branchUnitOf(ctx, target.branchId);
  let bundle;
  if (target.pricingBundleId !== undefined) {
    bundle = await loadPricingBundle(em, target.pricingBundleId);
    if (bundle.businessUnit.id !== unit.id)
      throw new DomainError('ODP110', 'the bundle belongs to another business unit than the branch');
    if (bundle.type !== target.bundleType)
      throw new DomainError('ODP110', `a ${target.bundleType} bundle is needed, this one is ${bundle.type}`);
  } else if (target.vehicleCategoryId !== undefined) {
    bundle = (await assignedPricing(em, tenant, target.branchId, target.vehicleCategoryId, target.bundleType))
      .bundle;
  } else {
    throw new DomainError('ODP111', 'give vehicleCategoryId or pricingBundleId');
  }
  let version: PricingBundleVersion;
  if (target.pricingBundleVersionId !== undefined) {
    version = await loadPricingVersion(em, bundle.id, target.pricingBundleVersionId);
  } else if (target.versionNumber !== undefined) {
    const found = await em.findOne(PricingBundleVersion, {
      bundle: bundle.id,
      version: target.versionNumber,
    });
    if (!found) throw new DomainError('ODP101', `version ${target.versionNumber} not found`);
    version = found;
  } else {
    version = await versionApplyingAt(em, bundle.id, target.at);
  }
  if (!target.draftsAllowed && (version.status === 'DRAFT' || version.status === 'ARCHIVED'))
    throw new DomainError('ODP101', 'only published versions can be estimated here');
  return { bundle, version, priced: pricedVersion(bundle, version), tax: taxContextOf(unit) };
}

function estimateOf(resolved: ResolvedPricing, result: PriceResult): Static<typeof Estimate> {
  return {
    estimate: true,
    pricingBundleVersion: resolved.priced.ref,
    versionStatus: resolved.version.status,
    ...result,
  };
}

const MINUTE_MS = 60_000;

/** When a simulated on-demand usage ends (its reservation and phases end to end from its start). */
export function usageEndMs(usage: {
  startMs: number;
  reservationFreeMinutes: number;
  reservationPaidMinutes: number;
  phases: readonly { minutes: number }[];
}): number {
  const minutes =
    usage.reservationFreeMinutes +
    usage.reservationPaidMinutes +
    usage.phases.reduce((sum, phase) => sum + Math.max(0, phase.minutes), 0);
  return usage.startMs + minutes * MINUTE_MS;
}

/**
 * The signed-in customer's ACTIVE vouchers an app estimate applies (docs/benefits.md, "Estimates"): those
 * applicable at `at` at the branch for the category, read only (nothing moved, locked or taken); none for
 * callers that are not customers (API clients, operators).
 */
export async function callerEstimateBenefits(
  ctx: RouteContext<unknown, unknown>,
  where: { branchId: number; vehicleCategoryId?: number | null; at: Date },
): Promise<PricingBenefit[]> {
  if (ctx.principal?.subjectType !== 'CUSTOMER') return [];
  const customerId = Number(ctx.principal.subjectId);
  if (!Number.isSafeInteger(customerId)) return [];
  return estimateBenefitsOf(ctx.em, {
    customerId,
    branchId: where.branchId,
    vehicleCategoryId: where.vehicleCategoryId ?? null,
    at: where.at,
  });
}

/** An on-demand estimate: free then paid reservation from `startMs`, then the phases end to end. */
export function freeFloatingEstimate(
  resolved: ResolvedPricing,
  usage: {
    startMs: number;
    reservationFreeMinutes: number;
    reservationPaidMinutes: number;
    phases: readonly { phase: 'DRIVING' | 'PARKING'; minutes: number }[];
    distance: string;
  },
  /** The caller's vouchers (`callerEstimateBenefits`); none: the bare price. */
  benefits: readonly PricingBenefit[] = [],
): Static<typeof Estimate> {
  const spans: PhaseSpan[] = [];
  let at = usage.startMs;
  const push = (phase: PhaseSpan['phase'], minutes: number) => {
    if (minutes <= 0) return;
    spans.push({ phase, startMs: at, endMs: at + minutes * MINUTE_MS });
    at += minutes * MINUTE_MS;
  };
  push('RESERVATION_FREE', usage.reservationFreeMinutes);
  push('RESERVATION_PAID', usage.reservationPaidMinutes);
  for (const phase of usage.phases) push(phase.phase, phase.minutes);
  const input = { phases: spans, distance: usage.distance };
  return estimateOf(
    resolved,
    benefits.length === 0
      ? priceOnDemandRental(resolved.priced, input, resolved.tax)
      : priceWithBenefits(
          resolved.priced,
          resolved.tax,
          onDemandRentalLines(resolved.priced, input),
          benefits,
        ).result,
  );
}

/** A booking estimate with its cancellation terms as of the reservation time. */
export function bookingEstimate(
  resolved: ResolvedPricing,
  usage: {
    startMs: number;
    endMs: number;
    returnedAtMs?: number;
    reservedAtMs: number;
    distance: string;
    additions: readonly string[];
  },
  /** The caller's vouchers (`callerEstimateBenefits`); none: the bare price. */
  benefits: readonly PricingBenefit[] = [],
): Static<typeof BookingEstimate> {
  const result =
    benefits.length === 0
      ? priceBooking(resolved.priced, usage, resolved.tax)
      : priceWithBenefits(
          resolved.priced,
          resolved.tax,
          bookingLines(resolved.priced, usage, resolved.tax),
          benefits,
        ).result;
  return {
    ...estimateOf(resolved, result),
    cancellationInformation: bookingCancellation(
      resolved.priced,
      usage.startMs,
      usage.reservedAtMs,
      resolved.tax,
      result.priceV4.totals,
    ),
  };
}

/** The type of a pricing bundle (on-demand or booking), named by both interfaces' simulator queries. */
export const PricingBundleTypeSchema = component('PricingBundleType', StringEnum(pricingBundleTypes));

/** The query of GET .../pricing-simulator on both interfaces: a bundle (or branch + category) and usage. */
export const SimulatorQuery = Type.Object({
  branchId: Id(),
  vehicleCategoryId: Type.Optional(Id()),
  pricingBundleId: Type.Optional(Id()),
  pricingBundleVersionId: Type.Optional(Id()),
  type: Type.Optional(PricingBundleTypeSchema),
  startTime: Type.Optional(DateTime({ description: 'Reservation or booking start; default now.' })),
  endTime: Type.Optional(DateTime({ description: 'Booking end (BOOKING bundles).' })),
  reservationFreeMinutes: Type.Optional(Int(0, 1440)),
  reservationPaidMinutes: Type.Optional(Int(0, 1440)),
  drivingMinutes: Type.Optional(Int(0, 44_640)),
  parkingMinutes: Type.Optional(Int(0, 44_640)),
  distance: Type.Optional(Str(20, { pattern: decimalPattern })),
  additions: Type.Optional(Type.Array(Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }), { maxItems: 50 })),
});

/** Answers a GET simulator query with an on-demand or a booking estimate, by the bundle's type. */
export async function simulateFromQuery(
  ctx: RouteContext<unknown, Static<typeof SimulatorQuery>>,
  draftsAllowed: boolean,
  /** The app's simulator: a signed-in customer's applicable vouchers apply (read only). */
  withCallerBenefits = false,
): Promise<Static<typeof BookingEstimate>> {
  const { query } = ctx;
  const start = instant(query.startTime);
  const bundleType =
    query.type ??
    (query.pricingBundleId !== undefined
      ? (await loadPricingBundle(ctx.em, query.pricingBundleId)).type
      : 'ON_DEMAND_LEGACY');
  const resolved = await resolveSimulatedVersion(ctx, { ...query, bundleType, at: start, draftsAllowed });
  if (bundleType === 'BOOKING') {
    if (!query.endTime) throw new DomainError('ODP111', 'endTime is required for a booking estimate');
    const endMs = Date.parse(query.endTime);
    return bookingEstimate(
      resolved,
      {
        startMs: start.getTime(),
        endMs,
        reservedAtMs: Date.now(),
        distance: query.distance ?? '0',
        additions: query.additions ?? [],
      },
      withCallerBenefits
        ? await callerEstimateBenefits(ctx, {
            branchId: query.branchId,
            vehicleCategoryId: query.vehicleCategoryId,
            at: new Date(Math.max(Date.now(), Number.isSafeInteger(endMs) ? endMs : 0)),
          })
        : [],
    );
  }
  const phases = [
    { phase: 'DRIVING' as const, minutes: query.drivingMinutes ?? 0 },
    { phase: 'PARKING' as const, minutes: query.parkingMinutes ?? 0 },
  ].filter((phase) => phase.minutes > 0);
  const usage = {
    startMs: start.getTime(),
    reservationFreeMinutes: query.reservationFreeMinutes ?? 0,
    reservationPaidMinutes: query.reservationPaidMinutes ?? 0,
    phases,
    distance: query.distance ?? '0',
  };
  return freeFloatingEstimate(
    resolved,
    usage,
    withCallerBenefits
      ? await callerEstimateBenefits(ctx, {
          branchId: query.branchId,
          vehicleCategoryId: query.vehicleCategoryId,
          at: new Date(Math.max(Date.now(), usageEndMs(usage))),
        })
      : [],
  );
}
