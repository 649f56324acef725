import { platformErrors } from '../../domain/platform.errors.js';
import { defineDomain } from './domain.js';

/**
 * The platform's own codes: what the route kernel answers for a kind of route rather than any business
 * domain (the search rate limit, RL101; docs/observability.md). No tables, routes or workflows.
 */
export const platformDomain = defineDomain({
  name: 'platform',
  errors: platformErrors,
});
