import express from 'express';
import type { PaymentGateways } from '../platform/payment-gateway/port.js';
import type { ObjectStore } from '../platform/object-store.js';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { CatalogueEntry } from '../domain/errors.js';
import type { PermissionCatalogue } from '../domain/permissions.js';
import type { ProcessKind } from '../workflows/process-kind.js';
import type { AnyRoute } from './kernel/route.js';
import { backDocument, frontDocument, maintenanceDocument, mdsDocument } from './documents.js';
import { assignTraceId, errorHandler, unknownRoute } from './errors.js';
import { TokenService } from './auth.js';
import { healthRouter, type ReadinessCheck } from './routes/health.js';
import { authenticationMiddleware, mountRoutes, RouteTable } from './kernel/mount.js';
import { speedUpOpenApiValidator } from './kernel/validator-speedups.js';
import { RateLimits } from './kernel/rate-limits.js';
import { realCalendarFormats } from './kernel/formats.js';
import { Registry } from 'prom-client';
import { createLogger, type Logger } from '../platform/logger.js';
import { createHttpObservability } from '../platform/http-observability.js';
import { activeTelemetry, httpTracing } from '../platform/telemetry.js';
import { loadConfig } from '../platform/config.js';
import { NodemailerSender, type MailSender } from '../platform/mail.js';
import { OutboxSmsSender, type SmsSender } from '../platform/sms.js';

/** What the domains bring to the HTTP application: endpoints, permissions and long-running process kinds. */
export interface ApiContents {
  routes: readonly AnyRoute[];
  permissions: PermissionCatalogue;
  processes: readonly ProcessKind[];
  /** Served at `/error-catalogue.json`. */
  errorCatalogue: readonly CatalogueEntry[];
  /**
   * Handlers outside every interface document, mounted before authentication and body parsing: public
   * open-data feeds (GBFS) answering anonymous GETs with stored bytes; each passes on what it does not serve.
   */
  publicHandlers?: readonly PublicHandlerFactory[];
}

/** Builds one public handler from the app's dependencies (docs/feeds.md). */
export type PublicHandlerFactory = (deps: ApiDeps) => express.RequestHandler;

export interface ApiDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  jwtSecret: string;
  tokenTtlSeconds: number;
  readinessChecks: Record<string, ReadinessCheck>;
  /** Validate every response against the OpenAPI documents, and every error code against its route (tests). */
  validateResponses?: boolean;
  /** Request and fault log (default: a pino logger named `api`, level from LOG_LEVEL). */
  logger?: Logger;
  /** Where HTTP metrics are kept (default: a registry of this app); the process serves them (API_METRICS_PORT). */
  metrics?: Registry;
  /** Outgoing e-mail (default: SMTP_URL, else .eml files in MAIL_OUTBOX_DIR) and SMS (default: SMS_OUTBOX_DIR). */
  mail?: MailSender;
  sms?: SmsSender;
  /** The payment gateway adapters: webhooks verify with them, refunds and challenges use them. */
  paymentGateways: PaymentGateways;
  /** The object store files are kept in. */
  objectStore: ObjectStore;
  /** Lifetime of pre-signed file links (default FILE_LINK_TTL_SECONDS). */
  fileLinkTtlSeconds?: number;
}

const require = createRequire(import.meta.url);

type OpenApiDocument = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

function validator(document: object, handles: RegExp, validateResponses: boolean) {
  speedUpOpenApiValidator();
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(document) as OpenApiDocument,
    // Path and query parameters are always coerced from text; JSON bodies are taken as sent.
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    // No multer: upload routes stream their multipart bodies themselves, within their own limits.
    fileUploader: false,
    // Dates and date-times must exist (api/kernel/formats.ts), not only look right.
    formats: realCalendarFormats,
    ignorePaths: (requestPath: string) => !handles.test(requestPath),
  });
}

/**
 * HEAD answers as GET does, without a body (RFC 9110 9.3.2): the request is served as its GET, headers
 * included (paging headers, caching headers); Node sends no body for a HEAD request whatever is written.
 */
const headAsGet: express.RequestHandler = (req, _res, next) => {
  if (req.method === 'HEAD') req.method = 'GET';
  next();
};

/** A browsable docs page (Swagger UI from the npm package) for one document. */
function docsPage(title: string, specUrl: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#ui' });</script></body></html>`;
}

/** Routes of the platform itself (not of any interface document): health, documents, docs pages. */
export const infrastructureRoutes = [
  'GET /health/live',
  'GET /health/ready',
  'GET /openapi/back.json',
  'GET /openapi/front.json',
  'GET /openapi/maintenance.json',
  'GET /openapi/mds.json',
  'GET /error-catalogue.json',
  'GET /docs',
  'GET /docs/back',
  'GET /docs/front',
  'GET /docs/maintenance',
  'GET /docs/mds',
] as const;

/** The HTTP application: authentication, contract validation, the declared routes and the one error handler. */
export function createApp(deps: ApiDeps, contents: ApiContents): express.Express {
  const app = express();
  // Paths are matched exactly as the documents write them, so every request the router serves has been
  // validated against the contract (a case variant or a trailing slash is an unknown route).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  // No entity tags: express hashed every answer body for them (a 40 KB vehicle page on each request), and
  // neither document declares conditional requests.
  app.set('etag', false);
  const tokens = new TokenService(deps.jwtSecret, deps.tokenTtlSeconds);
  const { routes } = contents;
  const back = backDocument(routes);
  const front = frontDocument(routes);
  const maintenance = maintenanceDocument(routes);
  const mds = mdsDocument(routes);
  const logger = deps.logger ?? createLogger('api');
  const observability = createHttpObservability({ logger, registry: deps.metrics ?? new Registry() });
  // With tracing on, each request is a server span, and its trace id is the request's trace id.
  if (activeTelemetry()) app.use(httpTracing());
  app.use(assignTraceId);
  app.use(headAsGet);
  app.use(observability.middlewares);
  // No /metrics here: the API process serves them on a port of its own (API_METRICS_PORT), off the public one.

  app.use(healthRouter(deps.readinessChecks));
  app.get('/openapi/back.json', (_req, res) => void res.json(back));
  app.get('/openapi/front.json', (_req, res) => void res.json(front));
  app.get('/openapi/maintenance.json', (_req, res) => void res.json(maintenance));
  app.get('/openapi/mds.json', (_req, res) => void res.json(mds));
  const catalogue = contents.errorCatalogue.map(({ code, meaning, retryable, httpStatus, source }) => ({
    code,
    meaning,
    retryable,
    httpStatus,
    source,
  }));
  app.get('/error-catalogue.json', (_req, res) => void res.json(catalogue));
  app.use('/docs/assets', express.static(path.dirname(require.resolve('swagger-ui-dist/package.json'))));
  app.get('/docs', (_req, res) => void res.redirect('/docs/back'));
  app.get(
    '/docs/back',
    (_req, res) => void res.type('html').send(docsPage('fleetflow operator API', '/openapi/back.json')),
  );
  app.get(
    '/docs/front',
    (_req, res) => void res.type('html').send(docsPage('fleetflow app API', '/openapi/front.json')),
  );
  app.get(
    '/docs/maintenance',
    (_req, res) =>
      void res.type('html').send(docsPage('fleetflow maintenance service API', '/openapi/maintenance.json')),
  );
  app.get(
    '/docs/mds',
    (_req, res) => void res.type('html').send(docsPage('fleetflow MDS provider API', '/openapi/mds.json')),
  );

  for (const publicHandler of contents.publicHandlers ?? []) app.use(publicHandler(deps));

  app.use(
    express.json({
      limit: '256kb',
      // The bytes as received stay beside the parsed body: gateway webhooks are signed over them.
      verify: (req, _res, raw) => {
        (req as express.Request).context.rawBody = raw;
      },
    }),
  );
  app.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 100 }));
  // Plain-text bodies only reach routes that declare `text/plain` (the vehicle debug console).
  app.use(express.text({ type: 'text/plain', limit: '16kb' }));
  // Authentication comes before validation, so callers without a valid token learn nothing about the API.
  app.use(authenticationMiddleware(new RouteTable(routes), tokens));
  app.use(validator(back, /^\/v1\/[^/]+\/(back|auth)(\/|$)/, deps.validateResponses ?? false));
  app.use(validator(front, /^\/v1\/[^/]+\/front(\/|$)/, deps.validateResponses ?? false));
  app.use(validator(maintenance, /^\/v1\/[^/]+\/maintenance(\/|$)/, deps.validateResponses ?? false));
  app.use(validator(mds, /^\/v1\/[^/]+\/mds(\/|$)/, deps.validateResponses ?? false));
  const config = loadConfig();
  mountRoutes(app, routes, {
    mail:
      deps.mail ??
      new NodemailerSender({
        smtpUrl: config.smtpUrl,
        outboxDir: config.mailOutboxDir,
        from: config.mailFrom,
      }),
    sms: deps.sms ?? new OutboxSmsSender(config.smsOutboxDir),
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
    orm: deps.orm,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    paymentGateways: deps.paymentGateways,
    objectStore: deps.objectStore,
    fileLinkTtlSeconds: deps.fileLinkTtlSeconds ?? config.fileLinkTtlSeconds,
    tokens,
    tokenTtlSeconds: deps.tokenTtlSeconds,
    permissions: contents.permissions,
    rateLimits: new RateLimits(),
  });

  app.use(unknownRoute);
  app.use(
    errorHandler({
      log: (message, fault, traceId) => logger.error({ err: fault, traceId }, message),
      processes: contents.processes,
      strictErrorCodes: deps.validateResponses ?? false,
    }),
  );
  return app;
}
