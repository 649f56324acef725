// The engine's core (pure): money as decimal.js (never binary floating point), the lines a price is made
// of, and the three result shapes derived from them. Rates and amounts travel as decimal strings, every
// line is rounded once to the business unit's scale (half-up, at most the currency's minor digits), and
// every total is the sum of its rounded lines, so priceV4's totals always equal its lines. Amounts are
// written by domain/money.ts, in the currency's minor digits.
import { Decimal } from 'decimal.js';
import { DomainError } from './errors.js';
import { formatAmount, formatUnitPrice, minorDigitsOf } from './money.js';
import {
  isDecimal,
  priceLineGroups,
  type DistanceUnit,
  type PriceLineGroup,
  type PriceLineV4,
  type PricePhase,
  type PricedVersion,
  type PriceResult,
  type TaxContext,
} from './pricing.js';

/** The engine's own Decimal, with enough precision for per-millisecond rates and half-up rounding. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
/** An amount or rate as the engine computes with it. */
export type Amount = InstanceType<typeof Money>;

/** Milliseconds per minute, hour and day, as the engine counts them. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Longest interval the engine prices (a year): bounds every loop. */
export const MAX_PRICED_SPAN_MS = 366 * DAY_MS;

/** A line before rounding, in the version's basis (gross when prices include tax, else net). */
export interface RawLine {
  code: string;
  group: PriceLineGroup;
  phase: PricePhase | null;
  description: string;
  quantity: Amount;
  unit: PriceLineV4['unit'];
  unitPrice: Amount;
  amount: Amount;
}

const fixed = (value: Amount, scale: number) => value.toFixed(scale, Decimal.ROUND_HALF_UP);

/**
 * Net and gross of each line. The tax is that of the whole price, rounded once: on the total net when
 * prices exclude tax, the total net taken out of the total gross when they include it; each line gets its
 * rounded share and the cents rounding leaves over go to the largest lines. Rounding every line on its
 * own would let a longer rental cost a cent less (a minimum-price top-up shrinking as time grows).
 */
function splitTax(
  bases: readonly Amount[],
  rate: Amount,
  pricesIncludeTax: boolean,
  scale: number,
): { net: Amount; gross: Amount }[] {
  const factor = rate.div(100).plus(1);
  const round = (value: Amount) => value.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  const total = bases.reduce((sum, basis) => sum.plus(basis), new Money(0));
  // The side of each line that is derived (tax when prices exclude it, net when they include it).
  const derivedTotal = pricesIncludeTax ? round(total.div(factor)) : round(total.times(rate).div(100));
  const derived = bases.map((basis) =>
    pricesIncludeTax ? round(basis.div(factor)) : round(basis.times(rate).div(100)),
  );
  const unit = new Money(1).div(new Money(10).pow(scale));
  let left = derivedTotal.minus(derived.reduce((sum, value) => sum.plus(value), new Money(0)));
  const largestFirst = bases.map((_, index) => index).sort((a, b) => bases[b]!.comparedTo(bases[a]!));
  for (let turn = 0; !left.isZero() && largestFirst.length > 0; turn++) {
    const index = largestFirst[turn % largestFirst.length]!;
    const step = left.isPositive() ? unit : unit.negated();
    derived[index] = derived[index]!.plus(step);
    left = left.minus(step);
  }
  return bases.map((basis, index) =>
    pricesIncludeTax
      ? { net: derived[index]!, gross: basis }
      : { net: basis, gross: basis.plus(derived[index]!) },
  );
}

/**
 * Rounds each line once and derives the three shapes from the rounded lines. The business unit's scale
 * rounds, but never finer than its currency's minor digits: an amount is written in those digits
 * (`formatAmount`), so a finer rounding would be rounded again and the totals would leave their lines.
 */
export function buildResult(version: PricedVersion, tax: TaxContext, lines: RawLine[]): PriceResult {
  // The business unit's currency, which its bundles bill in (ODP110 refuses another).
  const currency = tax.currency;
  const scale = Math.min(tax.scale, minorDigitsOf(currency));
  const amount = (value: Amount) => formatAmount(value, currency);
  const rate = new Money(tax.taxPercentage);
  const v4Lines: PriceLineV4[] = [];
  const split = splitTax(
    lines.map((line) => line.amount.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP)),
    rate,
    version.rules.pricesIncludeTax,
    scale,
  );
  let net = new Money(0);
  let taxSum = new Money(0);
  let gross = new Money(0);
  lines.forEach((line, index) => {
    const { net: lineNet, gross: lineGross } = split[index]!;
    const lineTax = lineGross.minus(lineNet);
    net = net.plus(lineNet);
    taxSum = taxSum.plus(lineTax);
    gross = gross.plus(lineGross);
    v4Lines.push({
      code: line.code,
      group: line.group,
      phase: line.phase,
      description: line.description,
      quantity: fixed(line.quantity, 3),
      unit: line.unit,
      unitPrice: formatUnitPrice(line.unitPrice, currency),
      net: amount(lineNet),
      tax: amount(lineTax),
      gross: amount(lineGross),
      taxPercentage: fixed(rate, 2),
    });
  });
  const ref = version.ref;
  const groups = priceLineGroups
    .map((group) => {
      const members = v4Lines.filter((line) => line.group === group);
      const sum = members.reduce((total, line) => total.plus(line.gross), new Money(0));
      return {
        group,
        amount: amount(sum),
        lines: members.map((line) => ({
          code: line.code,
          description: line.description,
          quantity: line.quantity,
          unit: line.unit,
          amount: line.gross,
        })),
      };
    })
    .filter((group) => group.lines.length > 0);
  const totals = { net: amount(net), tax: amount(taxSum), gross: amount(gross) };
  return {
    price: { total: totals.gross, currency: version.currency, pricingBundleVersion: ref },
    priceV3: {
      currency: version.currency,
      groups,
      total: totals.gross,
      taxPercentage: fixed(rate, 2),
      taxAmount: totals.tax,
      pricingBundleVersion: ref,
    },
    priceV4: {
      currency: version.currency,
      lines: v4Lines,
      taxes: v4Lines.length ? [{ taxPercentage: fixed(rate, 2), ...totals }] : [],
      totals,
      pricingBundleVersion: ref,
    },
  };
}

/** A duration in minutes, exactly. */
export const minutesOf = (ms: number) => new Money(ms).div(MINUTE_MS);

/** A distance as the engine reads it: ODP111 unless a non-negative decimal string. */
export function checkDistance(distance: string): Amount {
  if (!isDecimal(distance)) throw new DomainError('ODP111', 'distance must be a non-negative decimal');
  return new Money(distance);
}

/** A one-piece line (fee, top-up, adjustment) of a fixed amount. */
export function fixedLine(code: string, group: PriceLineGroup, description: string, amount: Amount): RawLine {
  return {
    code,
    group,
    phase: null,
    description,
    quantity: new Money(1),
    unit: 'PIECE',
    unitPrice: amount,
    amount,
  };
}

/** The line of the distance charged beyond what is included, in the version's distance unit. */
export function distanceLine(unit: DistanceUnit, charged: Amount, perUnit: string): RawLine {
  const rate = new Money(perUnit);
  return {
    code: 'DISTANCE',
    group: 'DISTANCE',
    phase: null,
    description: `Distance beyond the included ${unit === 'MILE' ? 'miles' : 'kilometers'}`,
    quantity: charged,
    unit: unit === 'MILE' ? 'MILE' : 'KILOMETER',
    unitPrice: rate,
    amount: rate.times(charged),
  };
}
