// Customer identity against the database: sign-in throttles, one-time codes, refresh tokens and the
// terms that apply to a branch. The rules themselves are pure (domain/identity.ts, domain/customer.ts).
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Customer } from './entities/Customer.js';
import { OneTimeCode } from './entities/OneTimeCode.js';
import { RefreshToken } from './entities/RefreshToken.js';
import { SignInThrottle } from './entities/SignInThrottle.js';
import { TermsAcceptance } from './entities/TermsAcceptance.js';
import { TermsAndConditions } from './entities/TermsAndConditions.js';
import { tenantEm } from './orm.js';
import { branchAncestry } from './branches.js';
import { DomainError } from '../domain/errors.js';
import {
  afterFailure,
  assertNotThrottled,
  codeExpiry,
  codeRecentlySent,
  type CodePurpose,
} from '../domain/identity.js';
import { termsAcceptanceState, type TermsAcceptanceState } from '../domain/customer.js';

/** RL100 while `key` is blocked by earlier failures. */
export async function assertSignInAllowed(em: EntityManager, key: string, now = new Date()): Promise<void> {
  const throttle = await em.findOne(SignInThrottle, { key });
  assertNotThrottled(throttle?.blockedUntil, now);
}

/**
 * Counts one failed attempt in its own transaction (the failing request rolls back its own work), under
 * a row lock so concurrent failures all count; the third failure in a row blocks for 120 s.
 */
export async function recordSignInFailure(
  orm: MikroORM,
  tenant: string,
  key: string,
  now = new Date(),
): Promise<void> {
  await tenantEm(orm, tenant).transactional(async (tx) => {
    await tx
      .getConnection()
      .execute(
        `insert into sign_in_throttle (tenant_id, key, failures) values (?, ?, 0) on conflict (tenant_id, key) do nothing`,
        [tenant, key],
        'run',
        tx.getTransactionContext(),
      );
    const throttle = await tx.findOneOrFail(
      SignInThrottle,
      { key },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const next = afterFailure(throttle.failures, now);
    throttle.failures = next.failures;
    if (next.blockedUntil) throttle.blockedUntil = next.blockedUntil;
  });
}

/** A successful sign-in forgets earlier failures. */
export async function clearSignInFailures(em: EntityManager, key: string): Promise<void> {
  await em.nativeDelete(SignInThrottle, { key });
}

/** Six random digits. */
const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * Stores a new code (digest only) for a purpose and target and returns it for sending; refuses with
 * `recentCode` (429) when one was sent within the cooldown. Earlier unused codes stop being valid.
 */
export async function issueCode(
  em: EntityManager,
  digest: (value: string) => string,
  purpose: CodePurpose,
  target: string,
  recentCode: 'AUTH225' | 'AUTH203',
  now = new Date(),
): Promise<{ code: string; row: OneTimeCode }> {
  const last = await em.findOne(OneTimeCode, { purpose, target }, { orderBy: { createdAt: 'desc' } });
  if (codeRecentlySent(last?.createdAt, now))
    throw new DomainError(recentCode, 'a code was sent moments ago; wait a minute before asking again');
  await em.nativeUpdate(OneTimeCode, { purpose, target, consumedAt: null }, { consumedAt: now });
  const code = newCode();
  const row = em.create(OneTimeCode, {
    purpose,
    target,
    codeDigest: digest(`${purpose}:${target}:${code}`),
    expiresAt: codeExpiry(purpose, now),
    createdAt: now,
  });
  await em.flush();
  return { code, row };
}

/** Sends a freshly issued code; when sending fails the code is withdrawn, so the cooldown does not apply. */
export async function sendOrWithdraw(
  em: EntityManager,
  row: OneTimeCode,
  send: () => Promise<void>,
  failure: 'A219' | 'A211' | 'A207' | 'A209',
): Promise<void> {
  try {
    await send();
  } catch (error) {
    em.remove(row);
    await em.flush();
    throw new DomainError(failure, 'the message could not be sent; try again', undefined, { cause: error });
  }
}

/** Checks and consumes the newest open code for a purpose and target. */
export async function consumeCode(
  em: EntityManager,
  digest: (value: string) => string,
  purpose: CodePurpose,
  target: string,
  code: string,
  now = new Date(),
): Promise<'ok' | 'mismatch' | 'expired' | 'none'> {
  const open = await em.findOne(
    OneTimeCode,
    { purpose, target, consumedAt: null },
    { orderBy: { createdAt: 'desc' } },
  );
  if (!open) return 'none';
  if (open.codeDigest !== digest(`${purpose}:${target}:${code}`)) return 'mismatch';
  if (open.expiresAt.getTime() <= now.getTime()) return 'expired';
  open.consumedAt = now;
  return 'ok';
}

/** A new opaque refresh token (`rt_` + 256 random bits) for a customer; only its digest is stored. */
export function createRefreshToken(
  em: EntityManager,
  digest: (value: string) => string,
  customer: Customer,
  ttlSeconds: number,
  family: string = randomUUID(),
): { token: string; row: RefreshToken } {
  const token = `rt_${randomBytes(32).toString('base64url')}`;
  const row = em.create(RefreshToken, {
    customer,
    tokenDigest: digest(token),
    family,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
  });
  return { token, row };
}

/** Revokes every open refresh token of a family (sign-out, reuse of a rotated token). */
export async function revokeFamily(em: EntityManager, family: string, now = new Date()): Promise<void> {
  await em.nativeUpdate(RefreshToken, { family, revokedAt: null }, { revokedAt: now });
}

/** Revokes every open refresh token of a customer (password reset, block). */
export async function revokeAllOf(em: EntityManager, customerId: number, now = new Date()): Promise<void> {
  await em.nativeUpdate(RefreshToken, { customer: customerId, revokedAt: null }, { revokedAt: now });
}

/**
 * The terms that apply to a branch: the newest version of the branch's own terms, else of its nearest
 * ancestor's, else the tenant-wide terms (no branch). Without a branch: the tenant-wide terms.
 */
export async function currentTerms(
  em: EntityManager,
  tenant: string,
  branchId: number | undefined,
): Promise<TermsAndConditions | undefined> {
  const chain = branchId === undefined ? [] : await branchAncestry(em, tenant, branchId);
  if (branchId !== undefined && chain.length === 0)
    throw new DomainError('B404', `branch ${branchId} not found`);
  const candidates = await em.find(
    TermsAndConditions,
    { $or: [{ branch: { $in: chain } }, { branch: null }] },
    { orderBy: { version: 'desc' } },
  );
  for (const id of [...chain, null]) {
    const match = candidates.find((terms) => (terms.branch?.id ?? null) === id);
    if (match) return match;
  }
  return undefined;
}

/** A customer's acceptance state of the terms that apply to a branch, with those terms. */
export async function termsStateOf(
  em: EntityManager,
  tenant: string,
  customerId: number,
  branchId: number | undefined,
): Promise<{ terms: TermsAndConditions | undefined; state: TermsAcceptanceState }> {
  const terms = await currentTerms(em, tenant, branchId);
  if (!terms) return { terms, state: 'NO_TERMS' };
  const accepted = await em.find(
    TermsAcceptance,
    { customer: customerId, terms: { branch: terms.branch?.id ?? null } },
    { populate: ['terms'] },
  );
  return {
    terms,
    state: termsAcceptanceState(
      terms.version,
      accepted.map((acceptance) => acceptance.terms.version),
    ),
  };
}

/** Records that a customer accepted a version of terms (idempotent). */
export async function acceptTerms(
  em: EntityManager,
  customer: Customer,
  terms: TermsAndConditions,
  acceptedBy: string,
): Promise<TermsAcceptance> {
  const existing = await em.findOne(TermsAcceptance, { customer, terms });
  return existing ?? em.create(TermsAcceptance, { customer, terms, acceptedBy });
}
