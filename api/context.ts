import type { InterfaceScope } from '../db/entities/ApiClient.js';

/** Who is calling, as established from a verified bearer token. */
export interface Principal {
  tenant: string;
  /**
   * API clients and operators act through permissions; a CUSTOMER is a signed-in app user; an AGENCY is a
   * regulator's MDS credential (scope `mds` only, docs/mds.md).
   */
  subjectType: 'API_CLIENT' | 'OPERATOR' | 'CUSTOMER' | 'AGENCY';
  /** Client id, operator id, customer id (as text) or the agency credential's client id. */
  subjectId: string;
  /** `client:{clientId}`, `operator:{id}`, `customer:{id}` or `agency:{clientId}`; recorded on events. */
  subject: string;
  scope: InterfaceScope | 'mds';
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
