// Money as every response writes it (pure: no I/O, importable from workflows): one format for amounts,
// the currency's minor digits after the point (ISO 4217; EUR "1.50", JPY "150"), computed with decimal.js,
// never binary floating point. Unit prices (rates) keep the digits they were set with beyond that.
import { Decimal } from 'decimal.js';

/** decimal.js with room for every amount and half-up rounding (the engine's rounding). */
const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

/**
 * ISO 4217 minor digits of the currencies the project bills in (HUF has 2 in ISO 4217, although cash
 * has none). A currency not listed here gets 2.
 */
export const currencyMinorDigits: Readonly<Record<string, number>> = Object.freeze({
  EUR: 2,
  CHF: 2,
  GBP: 2,
  USD: 2,
  SEK: 2,
  DKK: 2,
  NOK: 2,
  PLN: 2,
  CZK: 2,
  HUF: 2,
  JPY: 0,
});

/** Digits after the point of an amount in this currency (ISO 4217; 2 for a currency not listed). */
export function minorDigitsOf(currency: string): number {
  const code = currency.toUpperCase();
  return Object.hasOwn(currencyMinorDigits, code) ? currencyMinorDigits[code]! : 2;
}

/** A decimal text without a minus sign on zero ("-0.00" is "0.00"). */
const unsignedZero = (text: string) => (/^-[0.]*$/.test(text) ? text.slice(1) : text);

/**
 * An amount as responses write it: rounded half-up to the currency's minor digits, padded to them
 * ("1.5" EUR is "1.50"), plain notation. Every amount of a response comes from here.
 */
export function formatAmount(value: string | Decimal, currency: string): string {
  return unsignedZero(new Exact(value).toFixed(minorDigitsOf(currency), Decimal.ROUND_HALF_UP));
}

/**
 * A unit price (a rate, e.g. per minute) as responses write it: at least the currency's minor digits
 * ("0.1" EUR is "0.10"), and more when the rate has them ("0.125" stays): a rate is never rounded.
 */
export function formatUnitPrice(value: string | Decimal, currency: string): string {
  const rate = new Exact(value);
  return unsignedZero(rate.toFixed(Math.max(minorDigitsOf(currency), rate.decimalPlaces())));
}
