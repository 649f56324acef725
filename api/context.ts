import type { Request } from 'express';
import type { InterfaceScope } from '../db/entities/ApiClient.js';

/** Who is calling, as established from a verified bearer token. */
export interface Principal {
  tenant: string;
  subjectType: 'API_CLIENT' | 'OPERATOR';
  subjectId: string;
  /** `client:{clientId}`; recorded on events as the acting operator. */
  subject: string;
  scope: InterfaceScope;
}

/** Per-request facts every handler and the error handler need. */
export interface RequestContext {
  traceId: string;
  principal?: Principal;
}

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}

/** The tenant of the URL (`/v1/{tenant}/...`). */
export function pathTenant(req: Request): string {
  return String(req.params.tenant);
}

/** The verified caller; routes behind `requireToken` always have one. */
export function principalOf(req: Request): Principal {
  const principal = req.context.principal;
  if (!principal) throw new Error('principalOf called on a route without authentication');
  return principal;
}
