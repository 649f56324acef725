import type { InterfaceScope } from '../db/entities/ApiClient.js';

/** Who is calling, as established from a verified bearer token. */
export interface Principal {
  tenant: string;
  /** API clients and operators act through permissions; a CUSTOMER is a signed-in app user. */
  subjectType: 'API_CLIENT' | 'OPERATOR' | 'CUSTOMER';
  /** Client id, operator id or customer id (as text). */
  subjectId: string;
  /** `client:{clientId}`, `operator:{id}` or `customer:{id}`; recorded on events as the acting subject. */
  subject: string;
  scope: InterfaceScope;
}

/** Per-request facts the kernel and the error handler need before a route is known. */
export interface RequestContext {
  traceId: string;
  principal?: Principal;
  /** A JSON body's bytes as received: gateway webhooks are signed over them, not over the parsed value. */
  rawBody?: Buffer;
}

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}
