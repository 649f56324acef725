// Customer password hashing with Node's built-in scrypt (memory-hard). Parameters are stored with each
// hash, so raising them later only affects new hashes (old ones still verify with their own).
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/**
 * N = 2^15, r = 8, p = 1: 32 MiB of memory and ~50–100 ms of one core per hash (OWASP's scrypt
 * minimum is N = 2^17 with r = 8 at 128 MiB; we keep 32 MiB so a 2-core API node can still absorb
 * bursts of sign-ins; see docs/customers.md and `npm run bench:sign-in`).
 */
export const passwordHashParameters = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;

const maxmem = (N: number, r: number) => 128 * N * r * 2;

/** `scrypt$N$r$p$salt$hash` (base64) of a password. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltLength } = passwordHashParameters;
  const salt = randomBytes(saltLength);
  const hash = await scrypt(password, salt, keyLength, { N, r, p, maxmem: maxmem(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** A hash of a random password: verified against when the account does not exist, so timing reveals nothing. */
let decoyHash: Promise<string> | undefined;

/** Constant-time check of a password against a stored hash; with no hash, spends the same time and fails. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  decoyHash ??= hashPassword(randomBytes(16).toString('base64'));
  const [scheme, n, r, p, saltB64, hashB64] = (stored ?? (await decoyHash)).split('$');
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return false;
  const N = Number(n);
  const R = Number(r);
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N,
    r: R,
    p: Number(p),
    maxmem: maxmem(N, R),
  });
  return stored !== null && stored !== undefined && timingSafeEqual(actual, expected);
}
