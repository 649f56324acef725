import { Router, type Request, type RequestHandler } from 'express';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiClient, Tenant } from '../db/entities/index.js';
import type { InterfaceScope } from '../db/entities/ApiClient.js';
import { tenantEm } from '../db/orm.js';
import { DomainError } from '../domain/errors.js';
import { verifySecret } from '../platform/secrets.js';
import { pathTenant, type Principal } from './context.js';

const ISSUER = 'fleetflow';
const AUDIENCE = 'fleetflow-api';

/** Signs and verifies fleetflow access tokens (HS256 JWTs carrying tenant, subject and interface scope). */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
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
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
      });
      const scope = payload.scope;
      if (
        typeof payload.tid !== 'string' ||
        typeof payload.sub !== 'string' ||
        (scope !== 'back' && scope !== 'front')
      ) {
        throw new DomainError('AUTH005', 'token is missing tenant, subject or scope');
      }
      const subjectType = payload.sty === 'OPERATOR' ? 'OPERATOR' : 'API_CLIENT';
      const prefix = subjectType === 'OPERATOR' ? 'operator' : 'client';
      return {
        tenant: payload.tid,
        subjectId: payload.sub,
        subjectType,
        subject: `${prefix}:${payload.sub}`,
        scope,
      };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof joseErrors.JWTExpired)
        throw new DomainError('0001', 'access token expired; request a new one');
      throw new DomainError('AUTH005');
    }
  }
}

function bearerToken(req: Request): string | undefined {
  const header = req.header('authorization');
  if (header === undefined) return undefined;
  const match = header.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new DomainError('AUTH005', 'Authorization header must be "Bearer <token>"');
  return match[1];
}

async function authenticate(
  tokens: TokenService,
  req: Request,
  scope: InterfaceScope,
  token: string,
): Promise<void> {
  const principal = await tokens.verify(token);
  if (principal.scope !== scope)
    throw new DomainError('0005', `token is for the ${principal.scope} interface, not ${scope}`);
  if (principal.tenant !== pathTenant(req))
    throw new DomainError('AUTH002', 'token belongs to another tenant');
  req.context.principal = principal;
}

/** Requires a valid token of the given interface scope and of the URL's tenant. */
export function requireToken(tokens: TokenService, scope: InterfaceScope): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerToken(req);
    if (token === undefined) throw new DomainError('JWT006');
    await authenticate(tokens, req, scope, token);
    next();
  };
}

/** Accepts anonymous calls but, when a token is sent, it must be valid (app events of signed-in users). */
export function optionalToken(tokens: TokenService, scope: InterfaceScope): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerToken(req);
    if (token !== undefined) await authenticate(tokens, req, scope, token);
    next();
  };
}

function basicCredentials(req: Request): { clientId: string; clientSecret: string } | undefined {
  const match = req.header('authorization')?.match(/^Basic\s+(\S+)$/i);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  return {
    clientId: decodeURIComponent(decoded.slice(0, separator)),
    clientSecret: decodeURIComponent(decoded.slice(separator + 1)),
  };
}

/** `POST /v1/{tenant}/auth/token`: OAuth2 client credentials for API clients. */
export function tokenRouter(orm: MikroORM, tokens: TokenService, ttlSeconds: number): Router {
  const router = Router({ mergeParams: true });
  router.post('/v1/:tenant/auth/token', async (req, res) => {
    const tenant = pathTenant(req);
    const body = req.body as { client_id?: string; client_secret?: string; scope?: InterfaceScope };
    const credentials = basicCredentials(req) ?? {
      clientId: body.client_id ?? '',
      clientSecret: body.client_secret ?? '',
    };
    if (!credentials.clientId || !credentials.clientSecret) {
      throw new DomainError('0022', 'client_id and client_secret are required (body or HTTP Basic)');
    }
    const em = tenantEm(orm, tenant);
    if (!(await em.findOne(Tenant, { id: tenant }, { filters: false }))) throw new DomainError('AUTH051');
    const client = await em.findOne(ApiClient, { clientId: credentials.clientId });
    // Unknown client and wrong secret answer alike, so client ids cannot be probed.
    if (!client || !client.active || !(await verifySecret(credentials.clientSecret, client.secretHash))) {
      throw new DomainError('AUTH101', 'wrong client credentials');
    }
    const scope = body.scope ?? client.scopes[0];
    if (!scope || !client.scopes.includes(scope))
      throw new DomainError('AUTH217', `client may not request scope "${body.scope}"`);
    const accessToken = await tokens.issue({
      tenant,
      subjectType: 'API_CLIENT',
      subjectId: client.clientId,
      scope,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ access_token: accessToken, token_type: 'Bearer', expires_in: ttlSeconds, scope });
  });
  return router;
}
