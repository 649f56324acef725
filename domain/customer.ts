// Pure rules of customers and business accounts: verification states, terms acceptance, group rules, names.
import { DomainError } from './errors.js';

/** Licence verification states (the widest set); the other kinds use a subset (manualVerificationStates). */
export const licenseVerificationStates = [
  'UNVERIFIED',
  'CREATED',
  'PROCESSING',
  'VERIFIED',
  'REJECTED',
  'RETRY',
  'VERIFIED_BUT_NEEDS_CHECK',
  'EXPIRED_LICENSE',
  'REVIEW',
  'PENDING_REVERIFICATION',
] as const;
export const manualVerificationStates = [
  'UNVERIFIED',
  'PROCESSING',
  'VERIFIED',
  'REJECTED',
  'RETRY',
] as const;
export type VerificationState = (typeof licenseVerificationStates)[number];

/** Kinds of verification; the customer carries one state per kind. */
export const verificationKinds = ['LICENSE', 'ID_DOCUMENT', 'MANUAL', 'CUSTOM_EXTERNAL'] as const;
export type VerificationKind = (typeof verificationKinds)[number];

/** The customer field that follows each kind's newest attempt. */
export const verificationStateField = {
  LICENSE: 'licenseVerificationState',
  ID_DOCUMENT: 'idVerificationState',
  MANUAL: 'manualVerificationState',
  CUSTOM_EXTERNAL: 'customExternalVerificationState',
} as const satisfies Record<VerificationKind, string>;

/** States an attempt waits in for an operator's decision (the review queue). */
export const reviewableStates: readonly VerificationState[] = [
  'PROCESSING',
  'REVIEW',
  'VERIFIED_BUT_NEEDS_CHECK',
];

/** An operator's decision on an attempt in review: VERIFIED, REJECTED or RETRY (send new pictures). */
export const verificationDecisions = ['VERIFIED', 'REJECTED', 'RETRY'] as const;
export type VerificationDecision = (typeof verificationDecisions)[number];

/** UV409 unless the attempt waits for review (a decided attempt is never decided again). */
export function assertReviewable(state: VerificationState): void {
  if (!reviewableStates.includes(state))
    throw new DomainError('UV409', `the attempt is ${state}; only attempts in review can be decided`);
}

/** A new attempt is refused while one of the same kind is in review or already VERIFIED (UV409). */
export function assertCanStartAttempt(current: VerificationState): void {
  if (reviewableStates.includes(current) || current === 'VERIFIED')
    throw new DomainError('UV409', `a ${current} verification of this kind exists`);
}

export const paymentStates = [
  'NONE',
  'PUSH_INITIATED',
  'PUSH_COMPLETED',
  'SOURCE_ADDED',
  'INVOICING',
] as const;

/** Where a customer stands with the terms that apply to a branch. */
export const termsAcceptanceStates = ['ACCEPTED', 'NOT_ACCEPTED', 'OUTDATED', 'NO_TERMS'] as const;
export type TermsAcceptanceState = (typeof termsAcceptanceStates)[number];

/**
 * The acceptance state given the current terms version of a branch and the versions of that series the
 * customer accepted: nothing accepted is NOT_ACCEPTED (U601), an older version only is OUTDATED (U602).
 */
export function termsAcceptanceState(
  currentVersion: number | undefined,
  acceptedVersions: readonly number[],
): TermsAcceptanceState {
  if (currentVersion === undefined) return 'NO_TERMS';
  if (acceptedVersions.includes(currentVersion)) return 'ACCEPTED';
  return acceptedVersions.length ? 'OUTDATED' : 'NOT_ACCEPTED';
}

/** U601 / U602 unless the customer accepted the current terms (or there are none). */
export function assertTermsAccepted(state: TermsAcceptanceState): void {
  if (state === 'NOT_ACCEPTED') throw new DomainError('U601', 'accept the terms and conditions first');
  if (state === 'OUTDATED')
    throw new DomainError('U602', 'the terms and conditions were updated; accept the new version');
}

export const billingCycles = ['PAY_AS_YOU_GO', 'WEEKLY', 'MONTHLY'] as const;
export type BillingCycle = (typeof billingCycles)[number];

/**
 * ACTIVE a member; PENDING the customer's request to join, which the managers accept; INVITED a managing
 * member's invitation, which the customer accepts (issue 33: add-members invites, it adds nobody).
 */
export const membershipStates = ['ACTIVE', 'PENDING', 'INVITED'] as const;
export type MembershipState = (typeof membershipStates)[number];

/** The tenant setting holding the defaults of new business accounts. */
export const GROUP_SETTING_KEY = 'customers.groups';
export const defaultGroupSettings = { billingCycle: 'MONTHLY' as BillingCycle, maxMembers: 50 };

/** UG131: receipts instead of invoices only with PAY_AS_YOU_GO billing. */
export function assertReceiptsCompatible(
  billingCycle: BillingCycle,
  useReceiptInsteadOfInvoice: boolean,
): void {
  if (useReceiptInsteadOfInvoice && billingCycle !== 'PAY_AS_YOU_GO')
    throw new DomainError(
      'UG131',
      'useReceiptInsteadOfInvoice requires billing cycle PAY_AS_YOU_GO (USER_GROUP_RECEIPTS_INCOMPATIBLE)',
    );
}

/** UG132 when adding `adding` members would exceed the account's maximum. */
export function assertMembershipCapacity(current: number, adding: number, maxMembers: number): void {
  if (current + adding > maxMembers)
    throw new DomainError('UG132', `the business account allows at most ${maxMembers} members`);
}

/** 0022 unless `value` (YYYY-MM-DD) is a real calendar day (the contract checks only its shape). */
export function assertCalendarDate(value: string | null | undefined, field: string): void {
  if (value === null || value === undefined) return;
  const day = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value)
    throw new DomainError('0022', `${field} is not a calendar date`);
}

/** A customer's name field as the rules name it; each has its own "needed" sub-code. */
export type NameField = 'firstName' | 'lastName';

/** Longest name, in characters (the column's length). */
export const NAME_MAX_LENGTH = 100;

const nameNeededCode = { firstName: 'U130.5', lastName: 'U130.6' } as const;
/** Leading and trailing Unicode white space (a name's edges; U+FEFF is not white space). */
const edgeSpace = /^\p{White_Space}+|\p{White_Space}+$/gu;
/** Text that shows nothing: white space, controls, format characters, default-ignorables, the braille blank. */
const showsNothing = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]*$/u;
/**
 * Characters a name may not hold anywhere: bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069: they make a name display otherwise than it reads), zero-width characters (U+200B–U+200D,
 * U+2060, U+FEFF), control characters and lone surrogates.
 */
const forbiddenInName = /[\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060\uFEFF\p{Cc}\p{Cs}]/u;

/**
 * A first or last name as it is stored: Unicode NFC, white space trimmed. U130.5 (first name) / U130.6
 * (last name) when nothing visible is left; 0022 when it holds a bidirectional control, a zero-width or a
 * control character anywhere, or is longer than NAME_MAX_LENGTH once normalised.
 */
export function normaliseName(value: string | null | undefined, field: NameField): string {
  const name = (value ?? '').normalize('NFC').replace(edgeSpace, '');
  if (showsNothing.test(name))
    throw new DomainError(nameNeededCode[field], `${field} is needed: it shows no visible character`);
  if (forbiddenInName.test(name))
    throw new DomainError(
      '0022',
      `${field} may not contain bidirectional controls, zero-width or control characters`,
    );
  if ([...name].length > NAME_MAX_LENGTH)
    throw new DomainError('0022', `${field} is longer than ${NAME_MAX_LENGTH} characters`);
  return name;
}
