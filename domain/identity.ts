// Pure rules of customer identity: password policy, phone format, one-time codes and sign-in blocking.
// No I/O and no Node built-ins (importable from workflow code); hashing lives in platform/passwords.ts.
import { DomainError } from './errors.js';

/** What a one-time code is for; each purpose has its own lifetime and resend cooldown. */
export const codePurposes = [
  'EMAIL_SIGN_IN',
  'PHONE_SIGN_IN',
  'PASSWORD_RESET',
  'EMAIL_VERIFICATION',
] as const;
export type CodePurpose = (typeof codePurposes)[number];

/** Sign-in methods whose failures are counted separately. */
export type SignInMethod = 'password' | 'email-code' | 'phone-code';

/** Lifetimes and cooldowns, in seconds. */
export const identityTimings = {
  /** RL100: after this many failed attempts of one method and identifier ... */
  maxFailedAttempts: 3,
  /** ... further attempts are refused for this long. */
  blockSeconds: 120,
  codeLifetimeSeconds: {
    EMAIL_SIGN_IN: 600,
    PHONE_SIGN_IN: 300,
    PASSWORD_RESET: 1800,
    EMAIL_VERIFICATION: 86_400,
  } satisfies Record<CodePurpose, number>,
  /** A new code for the same purpose and target is refused (429) this soon after the last one. */
  resendCooldownSeconds: 60,
} as const;

export const passwordRules = { minLength: 8, maxLength: 128 } as const;

/** U101 unless the password has 8–128 characters with at least one letter and one digit. */
export function assertPasswordRules(password: string): void {
  if (
    password.length < passwordRules.minLength ||
    password.length > passwordRules.maxLength ||
    !/\p{L}/u.test(password) ||
    !/\p{N}/u.test(password)
  )
    throw new DomainError(
      'U101',
      'a password needs 8 to 128 characters with at least one letter and one digit',
    );
}

/** E.164: `+`, country code, up to 15 digits in all. */
const e164 = /^\+[1-9]\d{6,14}$/;

/** The phone number in E.164 with spaces, dashes and brackets removed; AUTH107 when not international. */
export function normalisePhoneNumber(raw: string): string {
  const compact = raw.replace(/[\s\-().]/g, '');
  const international = compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
  if (!e164.test(international))
    throw new DomainError('AUTH107', 'phone numbers must be in international format, e.g. +4915112345678');
  return international;
}

/** E-mail addresses are compared and stored lower-case and trimmed. */
export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/** The throttle key of one method and identifier. */
export const throttleKey = (method: SignInMethod, identifier: string) => `${method}:${identifier}`;

/** RL100 while a block from earlier failures lasts. */
export function assertNotThrottled(blockedUntil: Date | null | undefined, now: Date): void {
  if (blockedUntil && blockedUntil.getTime() > now.getTime()) {
    const seconds = Math.ceil((blockedUntil.getTime() - now.getTime()) / 1000);
    throw new DomainError('RL100', `too many failed attempts; try again in ${seconds} s`, {
      retryAfterSeconds: seconds,
    });
  }
}

/** The throttle after one more failure: the third failure in a row blocks for 120 s and resets the count. */
export function afterFailure(failures: number, now: Date): { failures: number; blockedUntil: Date | null } {
  const next = failures + 1;
  if (next >= identityTimings.maxFailedAttempts)
    return { failures: 0, blockedUntil: new Date(now.getTime() + identityTimings.blockSeconds * 1000) };
  return { failures: next, blockedUntil: null };
}

/** Whether a new code may be sent: the last one for this purpose and target is older than the cooldown. */
export function codeRecentlySent(lastSentAt: Date | undefined, now: Date): boolean {
  return (
    lastSentAt !== undefined &&
    now.getTime() - lastSentAt.getTime() < identityTimings.resendCooldownSeconds * 1000
  );
}

/** The expiry of a code issued now. */
export function codeExpiry(purpose: CodePurpose, now: Date): Date {
  return new Date(now.getTime() + identityTimings.codeLifetimeSeconds[purpose] * 1000);
}
