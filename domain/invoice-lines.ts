// The money of an invoice's line items (pure: no I/O, safe in workflows): an operator sends a line's
// net or its gross, never both, and the other side is derived with the business unit's tax percentage
// and rounding by the same rule the pricing engine uses for one line (domain/price-lines.ts `splitTax`:
// the derived side rounded half-up once to the unit's scale, never finer than the currency's minor
// digits). An invoice's totals are always the sum of its lines.
import { Decimal } from 'decimal.js';
import { DomainError } from './errors.js';
import { formatAmount, formatUnitPrice, minorDigitsOf } from './money.js';
import { Money, type Amount } from './price-lines.js';

/**
 * A signed decimal amount as clients send it: up to 12 integer digits, no exponent. Its decimals are not
 * limited here (the schema's length is): more than the currency or the business unit allows is one rule
 * with one code, I131 (422), whatever the form.
 */
export const signedAmountPattern = '^-?(0|[1-9][0-9]{0,11})(\\.[0-9]+)?$';
/** A quantity: greater than zero, up to 9 integer digits and 3 decimals (quantity 0 would price nothing). */
export const quantityPattern = '^(?!0+(\\.0+)?$)(0|[1-9][0-9]{0,8})(\\.[0-9]{1,3})?$';

const signedAmountRegex = new RegExp(signedAmountPattern);

/** Every line's quantity in one format: three decimals, as the price engine writes it (`1.000`). */
export function formatQuantity(quantity: string): string {
  return new Money(quantity).toFixed(3);
}

/** The rounding context of a business unit's invoice: its tax rate, its scale and the invoice currency. */
export interface LineTaxContext {
  /** Percent, decimal string (`19.00`). */
  taxPercentage: string;
  /** Decimal places the business unit rounds prices to. */
  scale: number;
  currency: string;
}

/** What the operator sends: exactly one of net and gross (decimal strings). */
export interface LineAmountInput {
  net?: string | null;
  gross?: string | null;
}

/** A line's three amounts and its rate, written in the currency's minor digits. */
export interface LinePrice {
  net: string;
  tax: string;
  gross: string;
  taxPercentage: string;
  /** Which side was given (the other was derived): the basis of the line's unit price. */
  basis: 'NET' | 'GROSS';
}

/** The digits a line of this context is rounded to: the unit's scale, never finer than the currency's. */
export function lineScale(context: LineTaxContext): number {
  return Math.max(0, Math.min(context.scale, minorDigitsOf(context.currency)));
}

/**
 * Reads an amount an operator sent for this currency: a signed decimal string (`0x1`, `1e3`, text are
 * refused by the schemas and here alike) with no more decimals than the currency has (I131).
 */
export function parseLineAmount(value: string, context: Pick<LineTaxContext, 'currency'>): Amount {
  if (!signedAmountRegex.test(value))
    throw new DomainError('0022', `${JSON.stringify(value)} is not a decimal amount`);
  const amount = new Money(value);
  if (amount.decimalPlaces() > minorDigitsOf(context.currency))
    throw new DomainError(
      'I131',
      `${value} has more decimals than ${context.currency} has (${minorDigitsOf(context.currency)})`,
    );
  return amount;
}

/**
 * Net, tax and gross of one line from exactly one of net and gross (I126 for both or neither): the
 * derived side is the given one with the tax added (net given) or taken out (gross given), rounded once,
 * so net + tax = gross exactly.
 */
export function deriveLinePrice(input: LineAmountInput, context: LineTaxContext): LinePrice {
  const hasNet = input.net !== undefined && input.net !== null;
  const hasGross = input.gross !== undefined && input.gross !== null;
  if (hasNet === hasGross) throw new DomainError('I126', 'send either net or gross on a line item, not both');
  const rate = new Money(context.taxPercentage);
  const scale = lineScale(context);
  const round = (value: Amount) => value.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  const given = parseLineAmount((hasNet ? input.net : input.gross)!, context);
  if (given.decimalPlaces() > scale)
    throw new DomainError('I131', `the business unit rounds amounts to ${scale} decimals`);
  const factor = rate.div(100).plus(1);
  const net = hasNet ? given : round(given.div(factor));
  const gross = hasNet ? given.plus(round(given.times(rate).div(100))) : given;
  const amount = (value: Amount) => formatAmount(value, context.currency);
  return {
    net: amount(net),
    tax: amount(gross.minus(net)),
    gross: amount(gross),
    taxPercentage: rate.toFixed(2),
    basis: hasNet ? 'NET' : 'GROSS',
  };
}

/**
 * A line's unit price from its amount in the basis and its quantity: the amount itself for one piece (or
 * a zero quantity), else the rate per unit to six decimals (a rate is never rounded to the currency).
 */
export function lineUnitPrice(amount: string, quantity: string, currency: string): string {
  const count = new Money(quantity);
  if (count.isZero() || count.equals(1)) return formatUnitPrice(amount, currency);
  return formatUnitPrice(new Money(amount).div(count).toDecimalPlaces(6, Decimal.ROUND_HALF_UP), currency);
}

/** Totals of an invoice: the sums of its lines' net, tax and gross, in the currency's minor digits. */
export function invoiceTotalsOf(
  lines: readonly { net: string; tax: string; gross: string }[],
  currency: string,
): { net: string; tax: string; gross: string } {
  const sum = (pick: (line: { net: string; tax: string; gross: string }) => string) =>
    formatAmount(
      lines.reduce((total, line) => total.plus(pick(line)), new Money(0)),
      currency,
    );
  return { net: sum((line) => line.net), tax: sum((line) => line.tax), gross: sum((line) => line.gross) };
}
