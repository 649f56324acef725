import { platformErrors } from '../../domain/platform.errors.js';
import { RateLimitCount } from '../../db/entities/RateLimitCount.js';
import { Migration20261206030000_rate_limit_counts } from '../../db/migrations/Migration20261206030000_rate_limit_counts.js';
import { defineDomain } from './domain.js';

/**
 * The platform's own codes and counts: what the route kernel answers for a kind of route rather than any
 * business domain (the search rate limit, RL101; docs/observability.md), and the rate limits' counts
 * every API process shares. No routes or workflows.
 */
export const platformDomain = defineDomain({
  name: 'platform',
  errors: platformErrors,
  entities: [RateLimitCount],
  migrations: [Migration20261206030000_rate_limit_counts],
});
