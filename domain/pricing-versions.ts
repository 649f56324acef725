// Pricing versions in time (pure): which published version applies at a moment, and why a draft cannot be
// published now.
import { DomainError } from './errors.js';
import type { PricingVersionStatus } from './pricing.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** A version as the "which version applies" rule sees it. */
export interface VersionInTime {
  id: number;
  status: PricingVersionStatus;
  effectiveFrom: number | null;
  validUntil: number | null;
}

/**
 * The version that applies at `atMs`: among published versions (PUBLISHED, or SUPERSEDED/EXPIRED since),
 * the one with the latest effective date not after `atMs`, unless its validity ended before. Never a
 * draft or an archived version; undefined when none applies.
 */
export function applicableVersion<V extends VersionInTime>(
  versions: readonly V[],
  atMs: number,
): V | undefined {
  let best: V | undefined;
  for (const version of versions) {
    if (version.status === 'DRAFT' || version.status === 'ARCHIVED' || version.effectiveFrom === null)
      continue;
    if (version.effectiveFrom > atMs) continue;
    if (
      !best ||
      version.effectiveFrom > best.effectiveFrom! ||
      (version.effectiveFrom === best.effectiveFrom! && version.id > best.id)
    )
      best = version;
  }
  if (best && best.validUntil !== null && best.validUntil <= atMs) return undefined;
  return best;
}

/** How far in the past an effective date may lie and still mean "now" (clock skew, slow requests). */
export const EFFECTIVE_DATE_TOLERANCE_MS = 5 * MINUTE_MS;
/** How far ahead a publication may be scheduled (bounds the workflow's timers). */
export const MAX_SCHEDULE_AHEAD_MS = 3653 * DAY_MS;

/**
 * Why a version cannot be published now, or undefined: only a DRAFT of a live bundle, effective from
 * now on, after every other published version of the bundle, valid until a later date if bounded.
 */
export function publicationRefusal(check: {
  bundleArchived: boolean;
  status: PricingVersionStatus;
  effectiveFromMs: number;
  validUntilMs: number | null;
  nowMs: number;
  publishedEffectiveFromMs: readonly number[];
}): DomainError | undefined {
  if (check.bundleArchived) return new DomainError('ODP100', 'the pricing bundle is archived');
  if (check.status !== 'DRAFT')
    return new DomainError('ODP102', `version is ${check.status}; only a DRAFT can be published`);
  if (
    !Number.isFinite(check.effectiveFromMs) ||
    check.effectiveFromMs < check.nowMs - EFFECTIVE_DATE_TOLERANCE_MS
  )
    return new DomainError('ODP105', 'effectiveFrom lies in the past');
  if (check.effectiveFromMs > check.nowMs + MAX_SCHEDULE_AHEAD_MS)
    return new DomainError('ODP105', 'effectiveFrom may lie at most 10 years ahead');
  if (check.validUntilMs !== null && !(check.validUntilMs > check.effectiveFromMs))
    return new DomainError('ODP105', 'validUntil must be after effectiveFrom');
  if (check.validUntilMs !== null && check.validUntilMs > check.nowMs + 2 * MAX_SCHEDULE_AHEAD_MS)
    return new DomainError('ODP105', 'validUntil may lie at most 20 years ahead');
  const latest = Math.max(-Infinity, ...check.publishedEffectiveFromMs);
  if (latest >= check.effectiveFromMs)
    return new DomainError(
      'ODP105',
      `another published version takes effect at ${new Date(latest).toISOString()}; choose a later date`,
    );
  return undefined;
}
