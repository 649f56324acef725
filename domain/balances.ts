// Pure rules of balances (no I/O): the customer's referral code that balances are shared by, what a
// manual ledger amount may be, how much of a balance is voucher credit still unspent, and the event
// types recorded about a balance. Safe in workflows.
import { Decimal } from 'decimal.js';
import { minorDigitsOf } from './money.js';

// ---------------------------------------------------------------------------------------------------
// Referral codes

/** Crockford's base-32 alphabet: no I, L, O or U, so nothing is misread. */
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The Luhn mod 32 check character of base-32 digits: catches any one wrong and most swapped neighbours. */
function checkCharacter(digits: string): string {
  let sum = 0;
  let double = true;
  for (let index = digits.length - 1; index >= 0; index--) {
    let addend = alphabet.indexOf(digits[index]!) * (double ? 2 : 1);
    addend = Math.floor(addend / 32) + (addend % 32);
    sum += addend;
    double = !double;
  }
  return alphabet[(32 - (sum % 32)) % 32]!;
}

/**
 * A customer's referral code: the customer id in Crockford base-32 (at least five digits) and a Luhn
 * mod 32 check character, e.g. `0000Z8`. Derived from the id, so it needs no column of its own and is
 * unique per tenant; the check character catches a mistyped or swapped character.
 */
export function referralCodeOf(customerId: number): string {
  if (!Number.isSafeInteger(customerId) || customerId < 1) throw new RangeError('a customer id is positive');
  let digits = '';
  for (let rest = customerId; rest > 0; rest = Math.floor(rest / 32)) digits = alphabet[rest % 32] + digits;
  digits = digits.padStart(5, '0');
  return digits + checkCharacter(digits);
}

/** The pattern of a referral code as the API accepts it (letters and digits; checked again here). */
export const referralCodePattern = '^[0-9A-Za-z]{6,13}$';

/**
 * The customer id a referral code names, or undefined when it is not one (bad characters, wrong check
 * character, beyond PostgreSQL's integer range). Case and Crockford's look-alikes (I, L → 1; O → 0) are
 * forgiven, as people type what they read.
 */
export function customerIdOfReferralCode(code: string): number | undefined {
  const text = code.trim().toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  if (!/^[0-9A-HJKMNP-TV-Z]{6,13}$/.test(text)) return undefined;
  const digits = text.slice(0, -1);
  if (checkCharacter(digits) !== text.at(-1)) return undefined;
  let id = 0;
  for (const char of digits) {
    id = id * 32 + alphabet.indexOf(char);
    if (id > 2_147_483_647) return undefined;
  }
  return id >= 1 ? id : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Ledger amounts

/** Why an amount cannot be posted to a balance in `currency`, or undefined when it can. */
export function manualAmountProblem(amount: string, currency: string): string | undefined {
  if (!/^-?(0|[1-9][0-9]{0,9})(\.[0-9]{1,6})?$/.test(amount)) return 'amount must be a signed decimal string';
  const value = new Decimal(amount);
  if (value.isZero()) return 'amount must not be zero';
  if (value.decimalPlaces() > minorDigitsOf(currency))
    return `amount has more decimals than ${currency} has (${minorDigitsOf(currency)})`;
  return undefined;
}

/** The sums of a balance's ledger the representations are made from (decimal strings). */
export interface LedgerTotals {
  /** Sum of every row: the balance's value. */
  value: string;
  /** Sum of the VOUCHER rows (credit granted by vouchers). */
  voucherCredit: string;
  /** Sum of the negative rows, as a positive amount (what was charged to the balance). */
  charged: string;
}

/**
 * Voucher credit not spent yet: charges use voucher credit first, so it is the voucher credit less
 * everything charged, never below zero nor above the balance's value.
 */
export function remainingVoucherValue(totals: LedgerTotals): Decimal {
  const value = new Decimal(totals.value);
  const left = new Decimal(totals.voucherCredit).minus(totals.charged);
  return Decimal.max(0, Decimal.min(left, Decimal.max(value, 0)));
}

// ---------------------------------------------------------------------------------------------------
// Events

/**
 * The event types recorded about a balance; each carries `payload.balanceId` (the event row has no
 * balance column), and `GET /balances/{balanceId}/events` reads these types only.
 */
export const balanceEventTypes = [
  'BALANCE_CREATED',
  'BALANCE_UPDATED', // every ledger row: billing, refunds, vouchers, settlements, manual credits and debits
  'BALANCE_DEPLETED', // a row used up the last credit (the value went from positive to zero or below)
  'BALANCE_DEFAULT_SET',
  'BALANCE_DELETED',
  'BALANCE_ACCESS_GRANTED',
  'BALANCE_ACCESS_REVOKED',
  'BALANCE_SETTLEMENT_STARTED',
  'BALANCE_SETTLEMENT_SUCCESSFUL', // written by the payment (db/payments.ts)
  'BALANCE_SETTLEMENT_FAILED', // written by the payment (db/payments.ts)
  'BALANCE_SETTLED_BY_COLLECTION_INVOICE',
] as const;
export type BalanceEventType = (typeof balanceEventTypes)[number];
