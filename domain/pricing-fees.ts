// A booking's fees (pure): its cancellation terms at a given moment and a single fixed fee (cancellation,
// no-show) priced as a result of its own.
import { DomainError } from './errors.js';
import { MINUTE_MS, Money, buildResult, fixedLine } from './price-lines.js';
import type { PricedVersion, PriceResult, TaxContext } from './pricing.js';

/** What a booking costs (its price's totals): a cancellation fee is never above it. */
export interface BookingTotals {
  net: string;
  gross: string;
}

/**
 * The cancellation fee's amount at `atMs` in the tariff's terms (gross when the version's prices include
 * tax, else net): nothing before the free-cancellation deadline, then the version's fee, but never more than
 * the booking would have cost (`bookingTotals`, when known): a 2-hour booking of 18.00 costs 18.00 to
 * cancel, not a fee of 20.00.
 */
export function cancellationFeeAmount(
  version: PricedVersion,
  startMs: number,
  atMs: number,
  bookingTotals?: BookingTotals | null,
): InstanceType<typeof Money> {
  const rules = version.rules.booking;
  if (version.bundleType !== 'BOOKING' || !rules)
    throw new DomainError('ODP110', 'bookings are priced by BOOKING bundles');
  const deadline = startMs - rules.cancellation.freeUntilMinutesBefore * MINUTE_MS;
  if (atMs < deadline) return new Money(0);
  const fee = new Money(rules.cancellation.fee);
  if (!bookingTotals) return fee;
  const cost = new Money(version.rules.pricesIncludeTax ? bookingTotals.gross : bookingTotals.net);
  return Money.max(new Money(0), Money.min(fee, cost));
}

/** Cancellation terms of a booking at a given moment: the spec's cancellationInformation. */
export function bookingCancellation(
  version: PricedVersion,
  startMs: number,
  atMs: number,
  tax: TaxContext,
  bookingTotals?: BookingTotals | null,
): { cancellable: boolean; freeCancellationDeadline: string; estimatedFee: string } {
  const rules = version.rules.booking;
  if (version.bundleType !== 'BOOKING' || !rules)
    throw new DomainError('ODP110', 'bookings are priced by BOOKING bundles');
  const deadline = startMs - rules.cancellation.freeUntilMinutesBefore * MINUTE_MS;
  const fee = cancellationFeeAmount(version, startMs, atMs, bookingTotals);
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
