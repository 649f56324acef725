import { benefitErrors } from '../../domain/benefits.errors.js';
import { defineDomain } from './domain.js';

/** Voucherables, vouchers, promotions, subscriptions, packages and rewards: so far the spec's codes only. */
export const benefitDomain = defineDomain({
  name: 'benefits',
  errors: benefitErrors,
});
