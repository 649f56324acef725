// A booking's fees (pure): its cancellation terms at a given moment and a single fixed fee (cancellation,
// no-show) priced as a result of its own.
import { DomainError } from './errors.js';
import { MINUTE_MS, Money, buildResult, fixedLine } from './price-lines.js';
import type { PricedVersion, PriceResult, TaxContext } from './pricing.js';

/** Cancellation terms of a booking at a given moment: the spec's cancellationInformation. */
export function bookingCancellation(
  version: PricedVersion,
  startMs: number,
  atMs: number,
  tax: TaxContext,
): { cancellable: boolean; freeCancellationDeadline: string; estimatedFee: string } {
  const rules = version.rules.booking;
  if (version.bundleType !== 'BOOKING' || !rules)
    throw new DomainError('ODP110', 'bookings are priced by BOOKING bundles');
  const deadline = startMs - rules.cancellation.freeUntilMinutesBefore * MINUTE_MS;
  const fee = atMs < deadline ? new Money(0) : new Money(rules.cancellation.fee);
  const result = buildResult(version, tax, [
    fixedLine('CANCELLATION_FEE', 'PENALTY', 'Cancellation fee', fee),
  ]);
  return {
    cancellable: rules.cancellation.cancellable,
    freeCancellationDeadline: new Date(deadline).toISOString(),
    estimatedFee: result.price.total,
  };
}

/**
 * A single fixed fee (a booking's cancellation or no-show fee) priced as a result of its own, taxed and
 * rounded like every other price of the version, so it can become an invoice.
 */
export function priceFee(
  version: PricedVersion,
  tax: TaxContext,
  fee: { code: string; description: string; amount: string },
): PriceResult {
  return buildResult(version, tax, [fixedLine(fee.code, 'PENALTY', fee.description, new Money(fee.amount))]);
}
