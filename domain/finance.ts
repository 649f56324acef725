// Pure rules of the finance domain: payment and attempt states, the payment transition table read by the
// workflow, the update validators and the writes, what each invoice state allows, the settings finance
// reads with their defaults, and the retry schedule. No I/O: safe inside workflows.
import type { InvoiceState } from './rental-pricing.js';
import type { ErrorCode } from './errors.js';

export { invoiceStates, invoiceTypes, type InvoiceState, type InvoiceType } from './rental-pricing.js';

// ---------------------------------------------------------------------------------------------------
// Payments

/**
 * The spec's payment states plus THREE_DS_WAITING_FOR_USER and THREE_DS_FAILED (the 3-D Secure
 * counterparts of the push states, which the invoice states already have).
 */
export const paymentStates = [
  'OPEN',
  'IN_PAYMENT',
  'AWAITING_RETRY',
  'PAID',
  'FAILED',
  'DISPUTED',
  'COLLECTIONS',
  'PUSH_WAITING_FOR_USER',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
  'THREE_DS_WAITING_FOR_USER',
  'THREE_DS_FAILED',
] as const;
export type PaymentState = (typeof paymentStates)[number];

/** States in which a payment's workflow still runs: at most one such payment per invoice and balance. */
export const runningPaymentStates = [
  'OPEN',
  'IN_PAYMENT',
  'AWAITING_RETRY',
  'PUSH_WAITING_FOR_USER',
  'THREE_DS_WAITING_FOR_USER',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
  'THREE_DS_FAILED',
] as const satisfies readonly PaymentState[];

/** What one call to the gateway ended as; each attempt has its own. */
export const paymentAttemptStates = [
  'PROCESSING',
  'SUCCEEDED',
  'SOFT_DECLINED',
  'HARD_DECLINED',
  'THREE_DS_REQUIRED',
  'PUSH_REQUIRED',
  'THREE_DS_FAILED',
  'PUSH_CANCELLED_BY_USER',
  'PUSH_BANK_REFUSED',
  'CHALLENGE_EXPIRED',
] as const;
export type PaymentAttemptState = (typeof paymentAttemptStates)[number];

/** What a payment is for: an invoice, or settling a negative balance. */
export const paymentPurposes = ['INVOICE', 'BALANCE_SETTLEMENT'] as const;
export type PaymentPurpose = (typeof paymentPurposes)[number];

/** How a waiting payment's challenge looks to the app: a 3-D Secure page, or a push the bank app shows. */
export interface PaymentChallenge {
  type: 'THREE_DS' | 'PUSH';
  /** Where the app sends the customer (3-D Secure); null for a push. */
  url: string | null;
  /** ISO date-time after which the wait ends as THREE_DS_FAILED / PUSH_CANCELLED_BY_USER. */
  expiresAt: string;
}

/** What moves a payment: the workflow's steps, the customer, operators and gateway webhooks. */
export type PaymentEvent =
  | 'CHARGE' // an attempt starts (first, scheduled or manual)
  | 'SUCCEEDED'
  | 'SOFT_DECLINED' // retries remain
  | 'FINAL_DECLINE' // hard decline, or a soft decline on the last attempt
  | 'THREE_DS_REQUIRED'
  | 'PUSH_REQUIRED'
  | 'THREE_DS_FAILED' // the customer failed or abandoned the challenge, or it timed out
  | 'PUSH_CANCELLED_BY_USER'
  | 'PUSH_BANK_REFUSED'
  | 'MANUAL_RETRY' // POST /payments/{id}/retry, the app's /invoices/retry
  | 'GIVE_UP' // a challenge failure nobody retried within the retry window
  | 'DISPUTED' // the gateway reports a chargeback
  | 'COLLECTIONS' // mark-for-collection of the invoice
  | 'PAID_EXTERNALLY' // set-paid-externally of the invoice
  | 'WITHDRAWN'; // a purchase whose first charge was declined is withdrawn: no retries (FAILED)

/** One row of the payment's transition table. */
export interface PaymentTransition {
  from: readonly PaymentState[];
  to: PaymentState;
}

const challengeFailed = ['THREE_DS_FAILED', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED'] as const;

/** The payment's transitions: the workflow moves only along them, the validators refuse the rest. */
export const paymentTransitions: Readonly<Record<PaymentEvent, PaymentTransition>> = {
  CHARGE: { from: ['OPEN', 'AWAITING_RETRY', ...challengeFailed], to: 'IN_PAYMENT' },
  SUCCEEDED: { from: ['IN_PAYMENT', 'THREE_DS_WAITING_FOR_USER', 'PUSH_WAITING_FOR_USER'], to: 'PAID' },
  SOFT_DECLINED: { from: ['IN_PAYMENT'], to: 'AWAITING_RETRY' },
  FINAL_DECLINE: { from: ['IN_PAYMENT'], to: 'FAILED' },
  THREE_DS_REQUIRED: { from: ['IN_PAYMENT'], to: 'THREE_DS_WAITING_FOR_USER' },
  PUSH_REQUIRED: { from: ['IN_PAYMENT'], to: 'PUSH_WAITING_FOR_USER' },
  THREE_DS_FAILED: { from: ['THREE_DS_WAITING_FOR_USER'], to: 'THREE_DS_FAILED' },
  PUSH_CANCELLED_BY_USER: { from: ['PUSH_WAITING_FOR_USER'], to: 'PUSH_CANCELLED_BY_USER' },
  PUSH_BANK_REFUSED: { from: ['PUSH_WAITING_FOR_USER'], to: 'PUSH_BANK_REFUSED' },
  MANUAL_RETRY: { from: ['AWAITING_RETRY', ...challengeFailed], to: 'IN_PAYMENT' },
  GIVE_UP: { from: [...challengeFailed], to: 'FAILED' },
  DISPUTED: { from: ['PAID'], to: 'DISPUTED' },
  COLLECTIONS: { from: ['FAILED', 'AWAITING_RETRY', ...challengeFailed], to: 'COLLECTIONS' },
  PAID_EXTERNALLY: {
    from: ['OPEN', 'AWAITING_RETRY', 'FAILED', 'COLLECTIONS', ...challengeFailed],
    to: 'PAID',
  },
  WITHDRAWN: { from: ['AWAITING_RETRY', ...challengeFailed], to: 'FAILED' },
};

/** The next state, or undefined when the table does not allow the event in this state. */
export function paymentTransition(state: PaymentState, event: PaymentEvent): PaymentState | undefined {
  const row = paymentTransitions[event];
  return row.from.includes(state) ? row.to : undefined;
}

/**
 * The code that refuses closing a payment with this event (its workflow's closePayment, or the row when
 * the workflow has ended): marking for collection I124, setting paid externally F207, withdrawing a
 * purchase's declined charge P120 (it is not retried).
 */
export function paymentCloseRefusal(event: 'COLLECTIONS' | 'PAID_EXTERNALLY' | 'WITHDRAWN'): ErrorCode {
  return event === 'COLLECTIONS' ? 'I124' : event === 'WITHDRAWN' ? 'P120' : 'F207';
}

/** The refusal of a manual retry in a state that does not allow one (P120). */
export function manualRetryRefusal(state: PaymentState): ErrorCode | undefined {
  return paymentTransition(state, 'MANUAL_RETRY') === undefined ? 'P120' : undefined;
}

/** The invoice state that mirrors a payment state while the payment collects it. */
export function invoiceStateForPayment(state: PaymentState): InvoiceState {
  switch (state) {
    case 'OPEN':
      return 'BILLED';
    case 'IN_PAYMENT':
    case 'AWAITING_RETRY':
      return 'IN_PAYMENT';
    case 'PAID':
      return 'PAID';
    case 'FAILED':
      return 'EXCEPTION_PAYING';
    case 'DISPUTED':
      return 'DISPUTED';
    case 'COLLECTIONS':
      return 'COLLECTION';
    case 'PUSH_WAITING_FOR_USER':
      return 'PUSH_WAITING_FOR_USER';
    case 'THREE_DS_WAITING_FOR_USER':
      return 'THREE_DS_WAITING_FOR_USER';
    case 'PUSH_CANCELLED_BY_USER':
    case 'PUSH_BANK_REFUSED':
      return 'PUSH_BANK_REFUSED';
    case 'THREE_DS_FAILED':
      return 'THREE_DS_FAILED';
  }
}

// ---------------------------------------------------------------------------------------------------
// Invoices: what each state allows

/** Operations on an invoice whose permission depends on its state. */
export type InvoiceOperation =
  | 'EDIT' // title, description, line items
  | 'BILL'
  | 'REFUND'
  | 'SET_PAID_EXTERNALLY'
  | 'MARK_AS_LOST'
  | 'MARK_FOR_COLLECTION'
  | 'RETRY_PAYMENT';

/** The invoice states an operation starts from and the code refusing it elsewhere. */
export const invoiceOperations: Readonly<
  Record<InvoiceOperation, { from: readonly InvoiceState[]; refusal: ErrorCode }>
> = {
  EDIT: { from: ['OPEN'], refusal: 'I120' },
  BILL: { from: ['OPEN'], refusal: 'I121' },
  REFUND: {
    from: ['PAID', 'PAID_EXTERNALLY', 'ALLOWS_REFUND', 'REFUNDED', 'EXCEPTION_REFUND'],
    refusal: 'I122',
  },
  // F207: only collection invoices can be set paid externally (the spec's own code).
  SET_PAID_EXTERNALLY: { from: ['COLLECTION'], refusal: 'F207' },
  MARK_AS_LOST: {
    from: [
      'EXCEPTION_PAYING',
      'EXCEPTION_BILLING',
      'EXCEPTION_SEPA',
      'COLLECTION',
      'THREE_DS_FAILED',
      'PUSH_BANK_REFUSED',
    ],
    refusal: 'I123',
  },
  MARK_FOR_COLLECTION: {
    from: [
      'EXCEPTION_PAYING',
      'EXCEPTION_BILLING',
      'EXCEPTION_SEPA',
      'IN_PAYMENT',
      'THREE_DS_FAILED',
      'PUSH_BANK_REFUSED',
    ],
    refusal: 'I124',
  },
  RETRY_PAYMENT: {
    from: ['IN_PAYMENT', 'EXCEPTION_PAYING', 'THREE_DS_FAILED', 'PUSH_BANK_REFUSED'],
    refusal: 'I125',
  },
};

/**
 * Whether an invoice waits for a transfer: billed to a payer invoiced by transfer (paymentState
 * INVOICING), with a due date and no payment. The operator settles it (set-paid-externally) or hands it
 * to collection, as a COLLECTION invoice would be.
 */
export function awaitsTransfer(invoice: { state: InvoiceState; dueAt?: Date | null }): boolean {
  return invoice.state === 'BILLED' && invoice.dueAt != null;
}

/** Operations an invoice waiting for a transfer allows besides its state's (see {@link awaitsTransfer}). */
export const transferInvoiceOperations: readonly InvoiceOperation[] = [
  'SET_PAID_EXTERNALLY',
  'MARK_FOR_COLLECTION',
];

/** The refusal of an operation in an invoice state, or undefined when the state allows it. */
export function invoiceOperationRefusal(
  state: InvoiceState,
  operation: InvoiceOperation,
): ErrorCode | undefined {
  const row = invoiceOperations[operation];
  return row.from.includes(state) ? undefined : row.refusal;
}

/** Invoice states that count as unpaid for dunning once billed past the grace period. */
export const unpaidInvoiceStates = [
  'BILLED',
  'IN_PAYMENT',
  'EXCEPTION_BILLING',
  'EXCEPTION_SEPA',
  'EXCEPTION_PAYING',
  'PUSH_BANK_REFUSED',
  'THREE_DS_FAILED',
  'PUSH_WAITING_FOR_USER',
  'THREE_DS_WAITING_FOR_USER',
  'COLLECTION',
] as const satisfies readonly InvoiceState[];

// ---------------------------------------------------------------------------------------------------
// Balances

/** What a ledger row records. Negative amounts are owed by the customer, positive ones are credit. */
export const balanceUpdateKinds = [
  'INVOICE', // an invoice charged to the balance (negative)
  'VOUCHER', // credit from a voucher (positive; the benefits domain writes these)
  'SETTLEMENT', // a settlement payment that succeeded (positive)
  'MANUAL_CREDIT', // customer-care credit (positive) or debit (negative) by an operator
  'REFUND', // a refund credited to the balance (positive)
] as const;
export type BalanceUpdateKind = (typeof balanceUpdateKinds)[number];

// ---------------------------------------------------------------------------------------------------
// Settings finance reads (each inherited like every setting; the defaults apply when none is stored)

/** `finance.payment.retry`: days between automatic retries after a soft decline, and challenge waits. */
export const PAYMENT_RETRY_SETTING_KEY = 'finance.payment.retry';
export interface PaymentRetrySettings {
  /** Days after the previous attempt for each retry: [1, 3, 5, 7] is five attempts over 16 days. */
  retryDays: number[];
  /** How long a 3-D Secure or push challenge waits for the customer, in minutes. */
  challengeTimeoutMinutes: number;
  /** How long a failed challenge waits for the customer's manual retry before the payment FAILS, in days. */
  challengeRetryWindowDays: number;
}
export const defaultPaymentRetrySettings: PaymentRetrySettings = {
  retryDays: [1, 3, 5, 7],
  challengeTimeoutMinutes: 30,
  challengeRetryWindowDays: 7,
};

/** `finance.invoice.autoBill`: bill every invoice of an ended rental or a booking fee at once. */
export const AUTO_BILL_SETTING_KEY = 'finance.invoice.autoBill';
export interface AutoBillSettings {
  enabled: boolean;
}
export const defaultAutoBillSettings: AutoBillSettings = { enabled: true };

/**
 * `finance.balance.manualCredit` (read tenant-wide): the largest manual credit or debit one operator
 * request may post to a balance (its absolute value, a decimal string in the balance's currency).
 */
export const MANUAL_CREDIT_SETTING_KEY = 'finance.balance.manualCredit';
export interface ManualCreditSettings {
  maxAmount: string;
}
export const defaultManualCreditSettings: ManualCreditSettings = { maxAmount: '1000.00' };

/** `finance.dunning`: days after billing an unpaid invoice starts blocking new rentals and bookings (U134). */
export const DUNNING_SETTING_KEY = 'finance.dunning';
export interface DunningSettings {
  graceDays: number;
  /**
   * Days a payer invoiced by transfer (paymentState INVOICING) has to pay: its invoice's due date is
   * this long after billing, and the grace period counts from the due date.
   */
  paymentTermDays: number;
}
export const defaultDunningSettings: DunningSettings = { graceDays: 3, paymentTermDays: 14 };

/** Reads a stored `finance.dunning` value over the default, ignoring what is malformed (a negative or non-number). */
export function dunningSettingsOf(value: unknown): DunningSettings {
  const stored = value as Partial<Record<keyof DunningSettings, unknown>> | null | undefined;
  const days = (n: unknown, fallback: number) =>
    typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : fallback;
  return {
    graceDays: days(stored?.graceDays, defaultDunningSettings.graceDays),
    paymentTermDays: days(stored?.paymentTermDays, defaultDunningSettings.paymentTermDays),
  };
}

/** The due date of an invoice billed at `billedAt` to a payer invoiced by transfer. */
export function invoiceDueAt(settings: DunningSettings, billedAt: Date): Date {
  return new Date(billedAt.getTime() + settings.paymentTermDays * 86_400_000);
}

/** Invoices billed (or, invoiced by transfer, due) before this instant and still unpaid block new rentals and bookings (U134). */
export function dunningCutoff(settings: DunningSettings, at: Date): Date {
  return new Date(at.getTime() - settings.graceDays * 86_400_000);
}

export const DAY_MS = 86_400_000;

/**
 * When the next automatic attempt runs after attempt `attemptNumber` (1-based) was softly declined, in ms
 * after it; undefined when that was the last one. A gateway's Retry-After (seconds) wins over the schedule.
 */
export function retryDelayMs(
  settings: PaymentRetrySettings,
  attemptNumber: number,
  retryAfterSeconds?: number | null,
): number | undefined {
  const days = settings.retryDays[attemptNumber - 1];
  if (days === undefined) return undefined;
  if (retryAfterSeconds !== undefined && retryAfterSeconds !== null && retryAfterSeconds > 0)
    return retryAfterSeconds * 1000;
  return days * DAY_MS;
}

/** Reads a stored `finance.payment.retry` value over the defaults, ignoring what is malformed. */
export function paymentRetrySettingsOf(value: unknown): PaymentRetrySettings {
  const stored = (value ?? {}) as Partial<Record<keyof PaymentRetrySettings, unknown>>;
  const days =
    Array.isArray(stored.retryDays) && stored.retryDays.every((d) => typeof d === 'number' && d > 0)
      ? (stored.retryDays as number[])
      : defaultPaymentRetrySettings.retryDays;
  const positive = (v: unknown, fallback: number) => (typeof v === 'number' && v > 0 ? v : fallback);
  return {
    retryDays: days,
    challengeTimeoutMinutes: positive(
      stored.challengeTimeoutMinutes,
      defaultPaymentRetrySettings.challengeTimeoutMinutes,
    ),
    challengeRetryWindowDays: positive(
      stored.challengeRetryWindowDays,
      defaultPaymentRetrySettings.challengeRetryWindowDays,
    ),
  };
}

// ---------------------------------------------------------------------------------------------------
// Refunds

/** One refunded line: the original line and the gross amount given back for it. */
export interface RefundItem {
  lineItemId: number;
  /** Decimal string, gross, in the invoice's currency; positive. */
  amount: string;
}
