// The four OpenAPI documents (operator, app, maintenance service, MDS provider), assembled from the route declarations they are given (every domain's).
import { buildDocument } from './kernel/openapi.js';
import type { AnyRoute } from './kernel/route.js';

/** The operator interface (`/v1/{tenant}/back`) and the token endpoint. */
export function backDocument(routes: readonly AnyRoute[]) {
  return buildDocument(
    'back',
    {
      title: 'fleetflow operator API',
      description:
        'Operator interface of the fleetflow shared-mobility platform. Every call needs a bearer token of scope `back` issued by `POST /v1/{tenant}/auth/token`; permissions come from role assignments on branches (operational) and business units (finance). Errors use the body `{errorCode, userMessage, httpStatus, traceId}`; each operation lists the catalogue codes it may answer with.',
    },
    routes,
  );
}

/** The app interface (`/v1/{tenant}/front`) and the token endpoint. */
export function frontDocument(routes: readonly AnyRoute[]) {
  return buildDocument(
    'front',
    {
      title: 'fleetflow app API',
      description:
        'User-facing interface for white-label apps. Tokens of scope `front` come from `POST /v1/{tenant}/auth/token`. Errors use the body `{errorCode, userMessage, httpStatus, traceId}`; each operation lists the catalogue codes it may answer with.',
    },
    routes,
  );
}

/**
 * The maintenance service (`/v1/{tenant}/maintenance`, its paths the spec's `/api/…`) and the token
 * endpoint: operators call it with the same `back` tokens as the operator interface.
 */
export function maintenanceDocument(routes: readonly AnyRoute[]) {
  return buildDocument(
    'maintenance',
    {
      title: 'fleetflow maintenance service API',
      description:
        "The maintenance service of the fleetflow shared-mobility platform, apart from the operator interface: vehicle maintenance logs (from the stored maintenance events), field routes of the crews and their service vehicles. Its base address is `/v1/{tenant}/maintenance`; below it the paths are the service's own (`/api/...`). Operators authenticate as on the operator interface, with a bearer token of scope `back` issued by `POST /v1/{tenant}/auth/token`; permissions (`MAINTENANCE_READ`, `MAINTENANCE_MANAGE`) come from role assignments on branches. Errors use the body `{errorCode, userMessage, httpStatus, traceId}`; each operation lists the catalogue codes it may answer with.",
    },
    routes,
  );
}

/**
 * The MDS 2.0 provider interface (`/v1/{tenant}/mds`, docs/mds.md): regulators' agencies read the tenant's
 * published systems with bearer tokens of scope `mds` issued by its own `POST /token`.
 */
export function mdsDocument(routes: readonly AnyRoute[]) {
  return buildDocument(
    'mds',
    {
      title: 'fleetflow MDS provider API',
      description:
        "The Open Mobility Foundation's Mobility Data Specification 2.0 provider endpoints of a fleetflow tenant, over its published systems (docs/mds.md). Agencies obtain a bearer token of scope `mds` from `POST /v1/{tenant}/mds/token` (client credentials an operator created for them) and send `Accept: application/vnd.mds+json;version=2.0`; answers carry `Content-Type: application/vnd.mds+json;version=2.0`. Errors use the body `{errorCode, userMessage, httpStatus, traceId}`; each operation lists the catalogue codes it may answer with.",
    },
    routes,
  );
}
