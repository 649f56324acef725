// A test workflow that runs the price engine inside the workflow sandbox: proves domain/pricing.ts and
// decimal.js bundle and compute deterministically there.
import { priceOnDemandRental } from '../../domain/pricing-on-demand.js';
import type { PhaseSpan, PricedVersion, PriceResult, TaxContext } from '../../domain/pricing.js';

/** Prices an on-demand rental in workflow code. */
export async function priceInWorkflow(
  version: PricedVersion,
  phases: PhaseSpan[],
  tax: TaxContext,
): Promise<PriceResult> {
  return priceOnDemandRental(version, { phases, distance: '12.5' }, tax);
}
