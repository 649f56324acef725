import express, { Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createRequire } from 'node:module';
import path from 'node:path';
import { errorCatalogue } from '../domain/errors.js';
import { backDocument } from './openapi/back.js';
import { frontDocument } from './openapi/front.js';
import { assignTraceId, errorHandler, unknownRoute } from './errors.js';
import { optionalToken, requireToken, tokenRouter, TokenService } from './auth.js';
import { healthRouter, type ReadinessCheck } from './routes/health.js';
import { rentalsRouter } from './routes/back/rentals.js';
import { eventsRouter } from './routes/back/events.js';
import { rolesRouter } from './routes/back/roles.js';
import { userEventsRouter } from './routes/front/userevents.js';
import { appSettingsRouter } from './routes/front/settings.js';

export interface ApiDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  jwtSecret: string;
  tokenTtlSeconds: number;
  readinessChecks: Record<string, ReadinessCheck>;
  /** Validate every response against the OpenAPI documents (on in tests). */
  validateResponses?: boolean;
  log?: (message: string) => void;
}

const require = createRequire(import.meta.url);

type OpenApiDocument = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

function validator(document: object, handles: RegExp, validateResponses: boolean) {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(document) as OpenApiDocument,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    ignorePaths: (requestPath: string) => !handles.test(requestPath),
  });
}

/** A browsable docs page (Swagger UI from the npm package) for one document. */
function docsPage(title: string, specUrl: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#ui' });</script></body></html>`;
}

/** The HTTP application: contract validation, authentication, routes, and the one error handler. */
export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  const tokens = new TokenService(deps.jwtSecret, deps.tokenTtlSeconds);
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.use(assignTraceId);

  app.use(healthRouter(deps.readinessChecks));
  app.get('/openapi/back.json', (_req, res) => void res.json(backDocument));
  app.get('/openapi/front.json', (_req, res) => void res.json(frontDocument));
  app.get('/error-catalogue.json', (_req, res) => void res.json(Object.values(errorCatalogue)));
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

  app.use(express.json({ limit: '256kb' }));
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  // Authentication comes before validation, so callers without a valid token learn nothing about the API.
  app.use('/v1/:tenant/back', requireToken(tokens, 'back'));
  const frontRequired = requireToken(tokens, 'front');
  const frontOptional = optionalToken(tokens, 'front');
  app.use('/v1/:tenant/front', (req, res, next) =>
    (req.path === '/userevents' ? frontOptional : frontRequired)(req, res, next),
  );
  app.use(validator(backDocument, /^\/v1\/[^/]+\/(back|auth)(\/|$)/, deps.validateResponses ?? false));
  app.use(validator(frontDocument, /^\/v1\/[^/]+\/front(\/|$)/, deps.validateResponses ?? false));

  app.use(tokenRouter(deps.orm, tokens, deps.tokenTtlSeconds));

  const back = Router({ mergeParams: true });
  back.use(rentalsRouter(deps));
  back.use(rolesRouter(deps.orm));
  back.use(eventsRouter(deps.orm));
  app.use('/v1/:tenant/back', back);

  const front = Router({ mergeParams: true });
  front.use(userEventsRouter(deps.orm));
  front.use(appSettingsRouter(deps.orm));
  app.use('/v1/:tenant/front', front);

  app.use(unknownRoute);
  app.use(errorHandler(deps.log));
  return app;
}
