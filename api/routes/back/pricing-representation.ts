// The operator's pricing representation, which the bundle, version, assignment and simulator routes share
// (the operator interface only; the estimates both interfaces answer are in api/shared/pricing-estimates.ts):
// the rules and version schemas, the version mapper, the bundle of the path and the business unit behind a
// branch, where finance permissions are checked.
import { Type, type Static } from '@sinclair/typebox';
import { PricingBundleVersion } from '../../../db/entities/PricingBundleVersion.js';
import type { EntityManager } from '../../../db/orm.js';
import { loadPricingBundle } from '../../../db/pricing.js';
import { DomainError } from '../../../domain/errors.js';
import { isUniqueViolation } from '../../../db/constraints.js';
import { decimalPattern, freeFloatingPricingModes, pricingVersionStatuses } from '../../../domain/pricing.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { branchUnitOf } from '../../shared/pricing-estimates.js';

/** Money and rates: decimal strings (never binary floating point), up to 10 integer digits, 6 decimals. */
const Decimal = (description: string) => Str(18, { pattern: decimalPattern, description });

export const PricingVersionStatusSchema = component(
  'PricingVersionStatus',
  StringEnum(pricingVersionStatuses),
);
export const FreeFloatingPricingModeSchema = component(
  'FreeFloatingPricingMode',
  StringEnum(freeFloatingPricingModes),
);

const TimeSlot = Type.Object(
  {
    fromMinute: Int(0, 525_600, {
      description: 'Billable minute from which the slot applies; the first is 0.',
    }),
    drivingPerMinute: Decimal('Rate per DRIVING minute.'),
    parkingPerMinute: Decimal('Rate per PARKING minute.'),
  },
  { additionalProperties: false },
);

export const OnDemandRulesSchema = component(
  'OnDemandPricingRules',
  Type.Object(
    {
      unlockFee: Decimal('Charged once when the rental starts.'),
      reservationPerMinute: Decimal('Rate of RESERVATION_PAID minutes; RESERVATION_FREE costs nothing.'),
      timeSlots: Type.Array(TimeSlot, { minItems: 1, maxItems: 50 }),
      distancePerUnit: Decimal('Rate per distance unit beyond the included distance.'),
      includedDistance: Int(0, 1_000_000),
      billingIncrementMinutes: Int(1, 1440, { description: 'Each phase is billed in started increments.' }),
      minimumPrice: Decimal('A started rental costs at least this much (reservation excluded).'),
    },
    { additionalProperties: false },
  ),
);

export const BookingRulesSchema = component(
  'BookingPricingRules',
  Type.Object(
    {
      hourlyRate: Decimal('Base rate per hour.'),
      unlockFee: Decimal('Charged once per booking.'),
      distancePerUnit: Decimal('Rate per distance unit beyond the daily allowance.'),
      includedDistancePerDay: Int(0, 1_000_000),
      nightRate: Nullable(
        Type.Object(
          {
            startLocalTime: Str(5, { pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
            endLocalTime: Str(5, { pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
            hourlyRate: Decimal('Rate per hour inside the night window (local time of the business unit).'),
          },
          { additionalProperties: false },
        ),
      ),
      weekendHourlyRate: Nullable(
        Decimal('Rate per hour on local Saturdays and Sundays outside the night window.'),
      ),
      adaptiveRates: Type.Array(
        Type.Object(
          { minimumHours: Int(0, 8784), factor: Decimal('Multiplies the time price, e.g. 0.8.') },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
      additions: Type.Array(
        Type.Object(
          {
            code: Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }),
            name: Str(200, { minLength: 1 }),
            price: Decimal('Price of the addition.'),
            per: StringEnum(['BOOKING', 'DAY'] as const),
          },
          { additionalProperties: false },
        ),
        { maxItems: 50 },
      ),
      cancellation: Type.Object(
        {
          cancellable: Type.Boolean(),
          freeUntilMinutesBefore: Int(0, 525_600),
          fee: Decimal('Fee after the free-cancellation deadline.'),
        },
        { additionalProperties: false },
      ),
      lateReturn: Type.Object(
        {
          graceMinutes: Int(0, 1440),
          hourlyRate: Decimal('Penalty per hour past the end and the grace period.'),
        },
        { additionalProperties: false },
      ),
      billingIncrementMinutes: Int(1, 1440),
    },
    { additionalProperties: false },
  ),
);

export const PricingBundleVersionSchema = component(
  'PricingBundleVersion',
  Type.Object(
    {
      id: Id(),
      pricingBundleId: Id(),
      version: Type.Integer(),
      status: PricingVersionStatusSchema,
      notes: Nullable(Type.String()),
      pricesIncludeTax: Type.Boolean(),
      freeFloatingPricingMode: Nullable(FreeFloatingPricingModeSchema),
      onDemand: Nullable(OnDemandRulesSchema),
      booking: Nullable(BookingRulesSchema),
      basedOnVersion: Nullable(Type.Integer()),
      effectiveFrom: Nullable(DateTime()),
      validUntil: Nullable(DateTime()),
      publishedAt: Nullable(DateTime()),
      publishedBy: Nullable(Type.String()),
      endedAt: Nullable(DateTime()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The API's version representation. */
export function toVersionDto(version: PricingBundleVersion): Static<typeof PricingBundleVersionSchema> {
  return {
    id: version.id,
    pricingBundleId: version.bundle.id,
    version: version.version,
    status: version.status,
    notes: version.notes ?? null,
    pricesIncludeTax: version.rules.pricesIncludeTax,
    freeFloatingPricingMode: version.rules.freeFloatingPricingMode,
    onDemand: version.rules.onDemand,
    booking: version.rules.booking,
    basedOnVersion: version.basedOnVersion ?? null,
    effectiveFrom: version.effectiveFrom?.toISOString() ?? null,
    validUntil: version.validUntil?.toISOString() ?? null,
    publishedAt: version.publishedAt?.toISOString() ?? null,
    publishedBy: version.publishedBy ?? null,
    endedAt: version.endedAt?.toISOString() ?? null,
    createdAt: version.createdAt.toISOString(),
    updatedAt: version.updatedAt.toISOString(),
  };
}

/** The bundle of the path, loaded once per request (access check and handler share it). */
export const bundleOf = (ctx: RouteContext<{ pricingBundleId: number }>) =>
  ctx.once('bundle', () => loadPricingBundle(ctx.em, ctx.params.pricingBundleId));

/** Finance permissions on a bundle are checked on its business unit. */
export const bundleUnit = async (ctx: RouteContext<{ pricingBundleId: number }>) =>
  (await bundleOf(ctx)).businessUnit.id;

/** The business unit behind a branch given in the query or body, loaded once per request. */
export const branchUnit = async (ctx: RouteContext, branchId: number) =>
  (await branchUnitOf(ctx, branchId)).id;

/** Flushes; a unique key lost to a concurrent request is the business conflict it stands for. */
export async function flushOrRefuse(em: EntityManager, code: 'ODP102' | 'ODP109' | 'ODP112'): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError(code, 'a concurrent request got there first; retry');
    throw error;
  }
}

export const bundleParams = Type.Object({ pricingBundleId: Id() });
