// Rate limits of the expensive searches (spec: "Searches of rentals, events and message transmissions, and
// customer search, are rate limited"): the classes a route may name, the setting key each is read from and
// its default. Pure rules; the limiter itself is api/kernel/rate-limits.ts (docs/observability.md).

/** The rate-limit classes a route declaration may name (`rateLimit: 'search'`). */
export const rateLimitClasses = ['search'] as const;

export type RateLimitClass = (typeof rateLimitClasses)[number];

/** A fixed window: at most `points` requests per caller and tenant in `durationSeconds`. */
export interface RateLimit {
  points: number;
  durationSeconds: number;
}

/** Bounds of a configured limit: a limit of 0 or a window of days would only be a mistake. */
export const rateLimitBounds = {
  points: { minimum: 1, maximum: 1_000_000 },
  durationSeconds: { minimum: 1, maximum: 3600 },
} as const;

/** Defaults when the tenant configured nothing: generous for people and dashboards, a wall for loops. */
export const defaultRateLimits: Readonly<Record<RateLimitClass, RateLimit>> = {
  search: { points: 120, durationSeconds: 60 },
};

/** The setting key of a class's limit (tenant-wide, branch 0): `rateLimits.search`. */
export const rateLimitSettingKey = (rateLimitClass: RateLimitClass): `rateLimits.${RateLimitClass}` =>
  `rateLimits.${rateLimitClass}`;

const withinBounds = (value: unknown, bounds: { minimum: number; maximum: number }): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= bounds.minimum && value <= bounds.maximum;

/**
 * The limit a setting value gives, laid over the class's default: a field left out or out of its bounds
 * keeps the default (the settings registry refuses such values on write; this guards rows written before).
 */
export function rateLimitOf(rateLimitClass: RateLimitClass, value: unknown): RateLimit {
  const fallback = defaultRateLimits[rateLimitClass];
  if (!value || typeof value !== 'object') return fallback;
  const { points, durationSeconds } = value as Record<string, unknown>;
  return {
    points: withinBounds(points, rateLimitBounds.points) ? points : fallback.points,
    durationSeconds: withinBounds(durationSeconds, rateLimitBounds.durationSeconds)
      ? durationSeconds
      : fallback.durationSeconds,
  };
}
