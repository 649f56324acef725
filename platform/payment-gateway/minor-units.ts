// Amounts cross the payment gateway port as decimal strings in major units; gateways book integer minor
// units (cents). The conversion is exact (decimal.js), with the currency's ISO 4217 minor digits.
import { Decimal } from 'decimal.js';
import { minorDigitsOf } from '../../domain/money.js';

/** A positive amount of at most 16 integer digits and no more decimals than the currency has. */
const decimalAmount = /^\d{1,16}(\.\d+)?$/;

/**
 * The amount in minor units as a decimal integer string (`12.50` EUR is `1250`, `150` JPY is `150`), or
 * null when it is not a positive amount payable in that currency (sign, exponent, more decimals than
 * the currency has, zero): a gateway refuses such an amount rather than round it.
 */
export function toMinorUnits(amount: string, currency: string): string | null {
  if (!decimalAmount.test(amount)) return null;
  const value = new Decimal(amount);
  const digits = minorDigitsOf(currency);
  if (value.decimalPlaces() > digits || value.lte(0)) return null;
  return value.times(new Decimal(10).pow(digits)).toFixed(0);
}

/** Minor units back to the port's decimal string (`1250` EUR is `12.50`). */
export function fromMinorUnits(minor: string | number | bigint, currency: string): string {
  const digits = minorDigitsOf(currency);
  return new Decimal(String(minor)).div(new Decimal(10).pow(digits)).toFixed(digits);
}

/** A three-letter ISO 4217 code, upper-cased; null for anything else. */
export function currencyCode(currency: string): string | null {
  return /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : null;
}
