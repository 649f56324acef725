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

/** Per-request facts the kernel and the error handler need before a route is known. */
export interface RequestContext {
  traceId: string;
  principal?: Principal;
}

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}
