import type { Request } from 'express';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { createHmac, randomUUID } from 'node:crypto';
import type { InterfaceScope } from '../db/entities/ApiClient.js';
import { DomainError } from '../domain/errors.js';
import type { Principal } from './context.js';

const ISSUER = 'fleetflow';
const AUDIENCE = 'fleetflow-api';
/** How many verified tokens a TokenService remembers at most. */
const VERIFIED_TOKENS_KEPT = 10_000;

/** Signs and verifies fleetflow access tokens (HS256 JWTs carrying tenant, subject and interface scope). */
export class TokenService {
  private readonly key: Uint8Array;
  private readonly digestKey: Buffer;
  /**
   * Tokens whose signature and claims were verified, with their expiry (epoch seconds): a client sends the
   * same token with every request, and checking its HMAC again each time was a tenth of a light request.
   * Only the expiry changes with time, so it is checked on every use. Bounded: emptied when full.
   */
  private readonly verified = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
    // A key of its own for digests, derived from the secret, so no digest is a usable signature.
    this.digestKey = createHmac('sha256', secret).update('fleetflow/digest/v1').digest();
  }

  /**
   * HMAC-SHA256 (hex) of a one-time code or refresh token: what is stored instead of the value, so a
   * copy of the database cannot be replayed and 6-digit codes cannot be brute-forced offline.
   */
  digest(value: string): string {
    return createHmac('sha256', this.digestKey).update(value).digest('hex');
  }

  async issue(principal: Omit<Principal, 'subject'>, ttlSeconds = this.ttlSeconds): Promise<string> {
    return new SignJWT({ tid: principal.tenant, scope: principal.scope, sty: principal.subjectType })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(principal.subjectId)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(this.key);
  }

  /** Verifies a token: expired → 0001, anything else wrong → AUTH005. */
  async verify(token: string): Promise<Principal> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAt <= Math.floor(Date.now() / 1000)) {
        this.verified.delete(token);
        throw new DomainError('0001', 'access token expired; request a new one');
      }
      return { ...known.principal };
    }
    return this.verifySignatureAndClaims(token);
  }

  private async verifySignatureAndClaims(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
      });
      // What this API issues expires, and lives no longer than its token lifetime: a token without `exp` or
      // `iat`, or one meant to live longer, was not issued here (a leaked key's forgery, or a bug).
      if (
        typeof payload.exp !== 'number' ||
        typeof payload.iat !== 'number' ||
        payload.exp - payload.iat > this.ttlSeconds + LIFETIME_TOLERANCE_SECONDS
      )
        throw new DomainError(
          'AUTH005',
          'the token has no expiry, or a lifetime beyond what this API issues',
        );
      const principal = principalOf(payload);
      if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.clear();
      this.verified.set(token, { principal: { ...principal }, expiresAt: payload.exp });
      return principal;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof joseErrors.JWTExpired)
        throw new DomainError('0001', 'access token expired; request a new one');
      throw new DomainError('AUTH005');
    }
  }
}

/** Seconds a token's lifetime (`exp - iat`) may exceed the configured one (both are whole seconds). */
const LIFETIME_TOLERANCE_SECONDS = 5;
const TENANT_CLAIM = /^[a-z0-9][a-z0-9-]{1,31}$/;
/** A customer id as it is issued: a plain decimal integer in the range of the ids, nothing looser. */
const CUSTOMER_SUBJECT = /^[1-9][0-9]{0,9}$/;
/** Client and operator ids: printable, no white space at either end, bounded (role assignments check it too). */
export const NAMED_SUBJECT = /^[^\s\p{C}](?:[^\p{C}]{0,198}[^\s\p{C}])?$/u;

/**
 * The caller a verified token names, its claims checked strictly before any use: tenant (`tid`) in the
 * form of the path segment, subject type (`sty`) one of the four, scope one of the three interfaces (an
 * AGENCY holds scope `mds` and nothing else holds it), and a subject (`sub`) of its type's form (a customer
 * id is a plain decimal integer within the id range). A token signed with the right key but claims of
 * another shape is AUTH005.
 */
function principalOf(payload: Record<string, unknown>): Principal {
  const { tid, sub, sty, scope } = payload;
  if (typeof tid !== 'string' || !TENANT_CLAIM.test(tid))
    throw new DomainError('AUTH005', 'the token names no valid tenant');
  if (scope !== 'back' && scope !== 'front' && scope !== 'mds')
    throw new DomainError('AUTH005', 'the token names no valid scope');
  if (sty !== 'API_CLIENT' && sty !== 'OPERATOR' && sty !== 'CUSTOMER' && sty !== 'AGENCY')
    throw new DomainError('AUTH005', 'the token names no valid subject type');
  if ((sty === 'AGENCY') !== (scope === 'mds'))
    throw new DomainError('AUTH005', 'only agency tokens carry the mds scope');
  const validSubject =
    typeof sub === 'string' &&
    (sty === 'CUSTOMER'
      ? CUSTOMER_SUBJECT.test(sub) && Number(sub) <= 2147483647 && scope === 'front'
      : NAMED_SUBJECT.test(sub));
  if (!validSubject) throw new DomainError('AUTH005', 'the token names no valid subject');
  const prefix = { OPERATOR: 'operator', CUSTOMER: 'customer', API_CLIENT: 'client', AGENCY: 'agency' }[sty];
  return { tenant: tid, subjectId: sub, subjectType: sty, subject: `${prefix}:${sub}`, scope };
}

function bearerToken(req: Request): string | undefined {
  const header = req.header('authorization');
  if (header === undefined) return undefined;
  const match = header.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new DomainError('AUTH005', 'Authorization header must be "Bearer <token>"');
  return match[1];
}

/**
 * The verified caller of a request to one interface of one tenant: the token must be valid, of that
 * interface's scope and of that tenant. With `optional`, a request without a token is anonymous
 * (undefined), but a token that is sent must still be valid.
 */
export async function authenticateRequest(
  tokens: TokenService,
  req: Request,
  scope: InterfaceScope | 'mds',
  tenant: string,
  mode: 'required' | 'optional',
): Promise<Principal | undefined> {
  const token = bearerToken(req);
  if (token === undefined) {
    if (mode === 'optional') return undefined;
    throw new DomainError('JWT006');
  }
  const principal = await tokens.verify(token);
  if (principal.scope !== scope)
    throw new DomainError('0005', `token is for the ${principal.scope} interface, not ${scope}`);
  if (principal.tenant !== tenant) throw new DomainError('AUTH002', 'token belongs to another tenant');
  return principal;
}

/** Client credentials from an HTTP Basic header (percent-encoded id and secret); undefined when absent. */
export function basicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  const match = header?.match(/^Basic\s+(\S+)\s*$/i);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0)
    throw new DomainError('AUTH101', 'HTTP Basic credentials must be "client_id:client_secret"');
  let credentials: { clientId: string; clientSecret: string };
  try {
    credentials = {
      clientId: decodeURIComponent(decoded.slice(0, separator)),
      clientSecret: decodeURIComponent(decoded.slice(separator + 1)),
    };
  } catch {
    throw new DomainError('AUTH101', 'HTTP Basic credentials are not correctly percent-encoded');
  }
  if (`${credentials.clientId}${credentials.clientSecret}`.includes('\u0000'))
    throw new DomainError('AUTH101', 'HTTP Basic credentials must not contain NUL characters');
  return credentials;
}
