// Request signing of the four customer endpoints the spec names, when the tenant enables it (setting
// `customers.requestSigning`): `signature` = base64url(HMAC-SHA256(app secret, "{endpoint}.{timestamp}.{value}")),
// with `timestamp` (Unix seconds, within ±5 minutes) and `appId` as query parameters. See docs/customers.md.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppSigningKey } from '../../../db/entities/AppSigningKey.js';
import { effectiveSetting } from '../../../db/settings.js';
import { DomainError } from '../../../domain/errors.js';
import type { RouteContext } from '../../kernel/route.js';

/** The signed endpoints and their SE100 sub-codes. */
export const signedEndpoints = {
  SIGN_UP: 1,
  PHONE_CODE: 2,
  PASSWORD_RESET: 3,
  EMAIL_VERIFICATION: 3,
  EMAIL_CODE: 4,
} as const;
export type SignedEndpoint = keyof typeof signedEndpoints;

export const REQUEST_SIGNING_SETTING_KEY = 'customers.requestSigning';
const defaultSkewSeconds = 300;

/** The signature of one value, as apps compute it. */
export function requestSignature(
  secret: string,
  endpoint: SignedEndpoint,
  timestamp: number,
  value: string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(`${endpoint}.${timestamp}.${value}`)
    .digest('base64url');
}

/**
 * Checks the signature of a request when the tenant requires signing: SE100.n when a signing parameter
 * is missing, SE101 for an unknown app or a stale timestamp, SE102 for a wrong signature.
 */
export async function signedRequest(
  ctx: Pick<RouteContext, 'em' | 'tenant' | 'query'>,
  endpoint: SignedEndpoint,
  value: string,
  now = Date.now(),
): Promise<void> {
  const setting = await effectiveSetting(ctx.em, ctx.tenant, REQUEST_SIGNING_SETTING_KEY, undefined);
  if (setting?.value.enabled !== true) return;
  const query = ctx.query as { signature?: string; timestamp?: number; appId?: string };
  if (!query.signature || query.timestamp === undefined || !query.appId)
    throw new DomainError(
      `SE100.${signedEndpoints[endpoint]}`,
      'signature, timestamp and appId are required',
    );
  const skew =
    typeof setting.value.maxSkewSeconds === 'number' ? setting.value.maxSkewSeconds : defaultSkewSeconds;
  const key = await ctx.em.findOne(AppSigningKey, { appId: query.appId, active: true });
  if (!key || Math.abs(now / 1000 - query.timestamp) > skew)
    throw new DomainError('SE101', 'unknown app or timestamp outside the allowed window');
  const expected = Buffer.from(requestSignature(key.secret, endpoint, query.timestamp, value));
  const actual = Buffer.from(query.signature);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw new DomainError('SE102');
}
